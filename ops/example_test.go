package ops_test

import (
	"fmt"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// f32 builds an F32 tensor of the given shape and values.
func f32(shape []int, v ...float32) *tensor.Tensor {
	t := tensor.New(tensor.F32, shape)
	copy(t.F32(), v)
	return t
}

// u32 builds a U32 index tensor.
func u32(shape []int, v ...uint32) *tensor.Tensor {
	t := tensor.New(tensor.U32, shape)
	copy(t.U32(), v)
	return t
}

// run runs a call on the CPU and prints its output's values and shape, or
// the error.
func run(c *kernels.Call) {
	eng, err := engine.New()
	if err != nil {
		panic(err)
	}
	res, err := eng.Run(engine.CPU, c)
	if err != nil {
		fmt.Println(err)
		return
	}
	switch res.Out.DType {
	case tensor.U32:
		fmt.Println(res.Out.U32(), res.Out.Shape)
	default:
		fmt.Println(res.Out.F32(), res.Out.Shape)
	}
}

// Each pad mode on one row: a constant fill, reflect's mirror (the edge is
// not repeated), replicate's clamp.
func ExamplePad() {
	x := f32([]int{4}, 1, 2, 3, 4)
	two := kernels.Pad{Before: 2, After: 2}
	c := ops.Pad(x, kernels.Constant, two)
	c.Fill = tensor.FloatScalar(9)
	run(c)
	run(ops.Pad(x, kernels.Reflect, two))
	run(ops.Pad(x, kernels.Replicate, two))
	// Output:
	// [9 9 1 2 3 4 9 9] [8]
	// [3 2 1 2 3 4 3 2] [8]
	// [1 1 1 2 3 4 4 4] [8]
}

// The gradient of a reflect pad folds each padded cell back onto the input
// cell it copied: input 1 (index 1) was copied to two pad cells.
func ExamplePadBackward() {
	g := f32([]int{6}, 1, 1, 1, 1, 1, 1) // grad of pad(x[4], reflect, 1:1)
	run(ops.PadBackward(g, kernels.Reflect, kernels.Pad{Before: 1, After: 1}))
	// Output: [1 2 2 1] [4]
}

func ExampleMaskedFill() {
	x := f32([]int{4}, 1, 2, 3, 4)
	mask := tensor.New(tensor.BOOL, []int{4})
	copy(mask.Data, []byte{0, 1, 0, 1})
	run(ops.MaskedFill(x, mask, tensor.FloatScalar(-1)))
	// Output: [1 -1 3 -1] [4]
}

// ops.All reduces every element to a rank-0 result.
func ExampleSum() {
	x := f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	run(ops.Sum(x, 0))
	run(ops.Sum(x, ops.All))
	// Output:
	// [5 7 9] [3]
	// [21] []
}

// max and min skip NaN (the seeds' contract; NumPy and PyTorch propagate
// it): a row's NaN does not win.
func ExampleMax() {
	nan := float32(0)
	nan = nan / nan
	x := f32([]int{2, 3}, 1, nan, 3, -4, -5, -6)
	run(ops.Max(x, 1))
	// Output: [3 -4] [2]
}

func ExampleMin() {
	x := f32([]int{2, 3}, 1, 2, 3, -4, -5, -6)
	run(ops.Min(x, 1))
	// Output: [1 -6] [2]
}

func ExampleMean() {
	x := f32([]int{2, 2}, 1, 2, 3, 5)
	run(ops.Mean(x, 1))
	run(ops.Mean(x, ops.All))
	// Output:
	// [1.5 4] [2]
	// [2.75] []
}

// argmax's ties go to the smallest index.
func ExampleArgMax() {
	x := f32([]int{2, 3}, 7, 9, 9, 0, -1, 0)
	run(ops.ArgMax(x, 1))
	// Output: [1 0] [2]
}

func ExampleArgMin() {
	x := f32([]int{2, 3}, 7, 9, 9, 0, -1, 0)
	run(ops.ArgMin(x, 1))
	// Output: [0 1] [2]
}

// The reductions to a shape undo a broadcast: [2,3] to [1,3] sums the rows.
func ExampleReduceTo() {
	x := f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	run(ops.ReduceTo("reduce_sum_to", x, []int{1, 3}))
	run(ops.ReduceTo("reduce_max_to", x, []int{2, 1}))
	run(ops.ReduceTo("reduce_min_to", x, []int{1, 1}))
	// Output:
	// [5 7 9] [1 3]
	// [3 6] [2 1]
	// [1] [1 1]
}

// The gradient of reduce_max_to: each group's upstream value goes to its
// maxima, split equally between ties.
func ExampleReduceMaxToBackward() {
	x := f32([]int{2, 3}, 1, 5, 5, 7, 2, 3)
	up := f32([]int{2, 1}, 10, 4)
	run(ops.ReduceMaxToBackward(x, up, []int{2, 1}))
	// Output: [0 5 5 4 0 0] [2 3]
}

func ExampleIndexSelect() {
	data := f32([]int{3, 2}, 1, 2, 3, 4, 5, 6)
	run(ops.IndexSelect(data, u32([]int{3}, 2, 0, 2), 0))
	// Output: [5 6 1 2 5 6] [3 2]
}

// PyTorch's gather: out[i][j] = data[i][indices[i][j]] along dim 1.
func ExampleGather() {
	data := f32([]int{2, 2}, 1, 2, 3, 4)
	run(ops.Gather(data, u32([]int{2, 2}, 0, 0, 1, 0), 1))
	// Output: [1 1 4 3] [2 2]
}

// index_add adds src's rows into base's rows named by indices; a repeated
// index adds twice.
func ExampleAddCall_indexAdd() {
	base := f32([]int{3, 2}, 0, 0, 0, 0, 0, 0)
	src := f32([]int{3, 2}, 1, 2, 3, 4, 5, 6)
	run(ops.AddCall("index_add", base, u32([]int{3}, 2, 0, 2), src, 0))
	// Output: [3 4 0 0 6 8] [3 2]
}

// scatter_add: out[i][indices[i][j]] += src[i][j] along dim 1.
func ExampleAddCall_scatterAdd() {
	base := f32([]int{2, 3}, 0, 0, 0, 0, 0, 0)
	src := f32([]int{2, 2}, 1, 2, 3, 4)
	run(ops.AddCall("scatter_add", base, u32([]int{2, 2}, 2, 2, 0, 1), src, 1))
	// Output: [0 0 3 3 4 0] [2 3]
}

// embedding picks table rows by id; an id past the table is an error that
// names it.
func ExampleEmbedding() {
	table := f32([]int{3, 2}, 1, 2, 3, 4, 5, 6)
	run(ops.Embedding(table, u32([]int{2}, 2, 1)))
	run(ops.Embedding(table, u32([]int{2}, 3, 1)))
	// Output:
	// [5 6 3 4] [2 2]
	// embedding: ids[0] = 3 is out of range (contract: ids < V = 3)
}

// A loop that gives each result back: the next call's output reuses its
// storage instead of faulting in a new block.
func Example_release() {
	eng, _ := engine.New()
	x := f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	for range 3 {
		res, err := eng.Run(engine.CPU, ops.Pad(x, kernels.Replicate, kernels.Pad{}, kernels.Pad{Before: 1, After: 1}))
		if err != nil {
			panic(err)
		}
		fmt.Println(res.Out.F32())
		res.Out.Release() // res.Out holds no data from here on
	}
	// Output:
	// [1 1 2 3 3 4 4 5 6 6]
	// [1 1 2 3 3 4 4 5 6 6]
	// [1 1 2 3 3 4 4 5 6 6]
}
