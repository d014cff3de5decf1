package ops

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// The reduce family (SPEC §4): sum/max/min/mean over all elements or along
// one axis, argmax/argmin, and the reduce-to ops.

var reduceFamily = []*Op{sumOp, maxOp, minOp, meanOp, argmaxOp, argminOp,
	reduceSumToOp, reduceMaxToOp, reduceMinToOp, reduceMaxToBackwardOp}

// All is the Dim of a reduction over every element (no --dim); -1 is the
// last axis, as in NumPy.
const All = kernels.NoDim

type reduceImpl = func(*tensor.Tensor) (*tensor.Tensor, error)
type reduceDimImpl = func(*tensor.Tensor, int) (*tensor.Tensor, error)

// foldOp builds sum/max/min/mean: one op, two forms (all elements → rank 0,
// or along --dim, the axis removed).
func foldOp(name, summary, explain string, all reduceImpl, dimRef reduceDimImpl, tol Tolerance, p pick) *Op {
	return &Op{
		Name:    name,
		Summary: summary,
		Explain: explain,
		Inputs:  []Operand{{Name: "x", Role: "a float tensor"}},
		Flags:   []Use{{Flag: DimFlag, Note: "absent: every element (rank-0 output)"}},
		Forms:   []kernels.Form{kernels.FormAll, kernels.FormDim},
		FormOf: func(p *kernels.Params) kernels.Form {
			if p.Dim == All {
				return kernels.FormAll
			}
			return kernels.FormDim
		},
		Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
			x := c.In("x")
			if c.Dim == All {
				return []int{}, x.DType, nil
			}
			if err := kernels.CheckDim(name, "x", c.Dim, x.Rank()); err != nil {
				return nil, 0, err
			}
			return kernels.DropDim(x.Shape, c.Dim), x.DType, nil
		},
		Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
			if c.Dim == All {
				return all(c.In("x")) // the _all folds have one implementation: the flat-order fold
			}
			return dimRef(c.In("x"), c.Dim)
		},
		Tolerance: always(tol),
		Random: func(rng *rand.Rand, f kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
			s := randShape(rng, 1, min(maxRank, 3), 1, 7)
			x := RandTensor(rng, dt, s)
			if p != pickNone { // the extrema define what NaN, ±inf and -0 do
				Specials(rng, x)
			}
			dim := All
			if f == kernels.FormDim {
				dim = rng.Intn(len(s))
			}
			return reduction(name, x, dim)
		},
		Sized: func(rng *rand.Rand, f kernels.Form, dt tensor.DType, n int) *kernels.Call {
			if f == kernels.FormAll {
				return reduction(name, TiledTensor(rng, dt, []int{max(1, n)}), All)
			}
			r, c := grid(n, 1)
			return reduction(name, TiledTensor(rng, dt, []int{r, c}), 1)
		},
		Example: func(f kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
			dim := 1
			if f == kernels.FormAll {
				dim = All
			}
			return reduction(name, nil, dim), []Gen{randomGen("3,5", dt, -9, 9)}
		},
		Trace: traceReduceDim(p, false),
	}
}

var (
	sumOp = withBench(foldOp("sum", "sum of all elements (rank-0) or along --dim",
		"Adds the elements, in flat order, accumulating in the element dtype (each half-precision add rounds). "+
			"Without --dim the output is rank 0; with --dim that axis is removed.",
		cpu.SumAll, cpu.SumDimRef, AnyOrderF32, pickNone),
		Bench{Name: "sum_all f32[64Mi]", Form: kernels.FormAll, N: 64 << 20},
		// This project's contracted blocked order (fkc run sum --kernel …):
		// what the CPU's vectors and cores can do with an order they may use.
		Bench{Name: "sum_all blocked f32[64Mi]", Form: kernels.FormAll, N: 64 << 20, Kernel: "fkc-cpu-kernels/sum_all_blocked"},
		Bench{Name: "sum_dim 1 f32[4096,4096]", Form: kernels.FormDim, N: 16 << 20})
	maxOp = withBench(foldOp("max", "max of all elements or along --dim (NaN skipped)",
		"Seeds with −inf and keeps a strictly greater element: NaN is skipped (all-NaN gives −inf) and the first of a tie wins, "+
			"which decides the sign of a zero.",
		cpu.MaxAll, cpu.MaxDimRef, Bitwise, pickMax),
		Bench{Name: "max_dim 1 f32[4096,4096]", Form: kernels.FormDim, N: 16 << 20})
	minOp = withBench(foldOp("min", "min of all elements or along --dim (NaN skipped)",
		"Seeds with +inf and keeps a strictly smaller element: NaN is skipped (all-NaN gives +inf) and the first of a tie wins.",
		cpu.MinAll, cpu.MinDimRef, Bitwise, pickMin),
		Bench{Name: "min_dim 1 f32[4096,4096]", Form: kernels.FormDim, N: 16 << 20})
	meanOp = func() *Op {
		o := foldOp("mean", "mean of all elements or along --dim",
			"The sum (as in sum) divided by the element count converted to the dtype; the mean of nothing is NaN.",
			cpu.MeanAll, cpu.MeanDimRef, AnyOrderF32, pickNone)
		o.Terms = "sum" // the terms of a mean are its sum's
		return withBench(o, Bench{Name: "mean_dim 1 f32[4096,4096]", Form: kernels.FormDim, N: 16 << 20})
	}()
)

// argOp builds argmax/argmin: the U32 index of the extremum along --dim.
func argOp(name, summary string, p pick, ref reduceDimImpl) *Op {
	return &Op{
		Name:    name,
		Summary: summary,
		Explain: "Seeds with element 0 of the axis and keeps a strictly better one for k ≥ 1, so ties go to the smallest index. " +
			"The output is U32 with the axis removed; an empty axis is an error.",
		Inputs: []Operand{{Name: "x", Role: "a float tensor"}},
		Flags:  []Use{{Flag: DimFlag, Required: true}},
		Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
			x := c.In("x")
			if err := kernels.CheckDim(name, "x", c.Dim, x.Rank()); err != nil {
				return nil, 0, err
			}
			if x.Shape[c.Dim] == 0 {
				return nil, 0, kernels.Violatef(name, "axis %d of x is empty: there is no element to index (contract: the reduced axis is non-empty)", c.Dim)
			}
			return kernels.DropDim(x.Shape, c.Dim), tensor.U32, nil
		},
		Oracle:    func(c *kernels.Call) (*tensor.Tensor, error) { return ref(c.In("x"), c.Dim) },
		Tolerance: always(Bitwise),
		Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
			s := randShape(rng, 1, min(maxRank, 3), 1, 7)
			x := RandTensor(rng, dt, s)
			Specials(rng, x)
			return reduction(name, x, rng.Intn(len(s)))
		},
		Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
			r, c := grid(n, 1)
			return reduction(name, TiledTensor(rng, dt, []int{r, c}), 1)
		},
		Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
			return reduction(name, nil, 1), []Gen{randomGen("3,5", dt, -9, 9)}
		},
		Trace: traceReduceDim(p, true),
	}
}

var (
	argmaxOp = withBench(argOp("argmax", "U32 index of the max along --dim (ties → smallest index)", pickMax, cpu.ArgMaxDimRef),
		Bench{Name: "argmax_dim 1 f32[4096,4096]", N: 16 << 20})
	argminOp = withBench(argOp("argmin", "U32 index of the min along --dim (ties → smallest index)", pickMin, cpu.ArgMinDimRef),
		Bench{Name: "argmin_dim 1 f32[4096,4096]", N: 16 << 20})
)

// reduction builds a call of a one-input reduction op (dim All: every element).
func reduction(op string, x *tensor.Tensor, dim int) *kernels.Call {
	return &kernels.Call{Op: op, Inputs: map[string]*tensor.Tensor{"x": x}, Params: kernels.Params{Dim: dim}}
}

// Sum, Max, Min, Mean, ArgMax and ArgMin build reduction calls; dim All
// reduces every element (not for the arg ops).
func Sum(x *tensor.Tensor, dim int) *kernels.Call    { return reduction("sum", x, dim) }
func Max(x *tensor.Tensor, dim int) *kernels.Call    { return reduction("max", x, dim) }
func Min(x *tensor.Tensor, dim int) *kernels.Call    { return reduction("min", x, dim) }
func Mean(x *tensor.Tensor, dim int) *kernels.Call   { return reduction("mean", x, dim) }
func ArgMax(x *tensor.Tensor, dim int) *kernels.Call { return reduction("argmax", x, dim) }
func ArgMin(x *tensor.Tensor, dim int) *kernels.Call { return reduction("argmin", x, dim) }

// toOp builds reduce_sum_to / reduce_max_to.
func toOp(name, summary string, impl func(*tensor.Tensor, []int) (*tensor.Tensor, error), tol Tolerance, p pick) *Op {
	return &Op{
		Name:    name,
		Summary: summary,
		Explain: "Reduces x to a broadcast-compatible target shape: the target is left-padded with 1s to x's rank, " +
			"every axis must equal x's size or 1, and the axes of size 1 are reduced.",
		Inputs: []Operand{{Name: "x", Role: "a float tensor"}},
		Flags:  []Use{{Flag: ShapeFlag, Required: true}},
		Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
			x := c.In("x")
			if _, err := kernels.AlignTarget(name, x.Shape, c.Shape); err != nil {
				return nil, 0, err
			}
			return c.Shape, x.DType, nil
		},
		Oracle:    func(c *kernels.Call) (*tensor.Tensor, error) { return impl(c.In("x"), c.Shape) },
		Tolerance: always(tol),
		Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
			s, tgt := randTarget(rng, maxRank)
			return ReduceTo(name, RandTensor(rng, dt, s), tgt)
		},
		Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
			r, c := grid(n, 1)
			return ReduceTo(name, TiledTensor(rng, dt, []int{r, c}), []int{1, c})
		},
		Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
			return ReduceTo(name, nil, []int{1, 5}), []Gen{randomGen("3,5", dt, -9, 9)}
		},
		Trace: traceReduceTo(p),
	}
}

var (
	reduceSumToOp = withBench(toOp("reduce_sum_to", "sum-reduce to a broadcast-compatible --shape", cpu.ReduceSumTo, AnyOrderF32, pickNone),
		Bench{Name: "reduce_sum_to f32[4096,4096] to [1,4096]", N: 16 << 20})
	reduceMaxToOp = withBench(toOp("reduce_max_to", "max-reduce to a broadcast-compatible --shape", cpu.ReduceMaxTo, Bitwise, pickMax),
		Bench{Name: "reduce_max_to f32[4096,4096] to [1,4096]", N: 16 << 20})
	reduceMinToOp = withBench(toOp("reduce_min_to", "min-reduce to a broadcast-compatible --shape", cpu.ReduceMinTo, Bitwise, pickMin),
		Bench{Name: "reduce_min_to f32[4096,4096] to [1,4096]", N: 16 << 20})
)

// ReduceTo builds a reduce_sum_to or reduce_max_to call.
func ReduceTo(op string, x *tensor.Tensor, target []int) *kernels.Call {
	return &kernels.Call{Op: op, Inputs: map[string]*tensor.Tensor{"x": x}, Params: kernels.Params{Shape: target, Dim: kernels.NoDim}}
}

var reduceMaxToBackwardOp = &Op{
	Name:    "reduce_max_to_backward",
	Summary: "route upstream to the max positions, ties share equally",
	Explain: "The gradient of reduce_max_to: each group's upstream gradient is divided by the number of positions equal " +
		"to the group's max, and those positions receive it; every other position gets 0. All arithmetic is in the dtype.",
	Inputs: []Operand{{Name: "x", Role: "the forward input (float)"}, {Name: "upstream", Role: "the gradient of the output, target shape"}},
	Flags:  []Use{{Flag: ShapeFlag, Required: true}},
	Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
		x := c.In("x")
		_, err := kernels.ReduceMaxToBackwardShape(x, c.In("upstream"), c.Shape)
		return x.Shape, x.DType, err
	},
	Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
		return cpu.ReduceMaxToBackward(c.In("x"), c.In("upstream"), c.Shape)
	},
	Tolerance: always(AnyOrder),
	Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
		s, tgt := randTarget(rng, maxRank)
		x := tensor.New(dt, s)
		for i := 0; i < x.NumElems(); i++ {
			x.Set(i, float64(rng.Intn(3))) // few distinct values, so that ties (fair-share splits) occur
		}
		return ReduceMaxToBackward(x, RandTensor(rng, dt, tgt), tgt)
	},
	Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
		r, c := grid(n, 1)
		tgt := []int{1, c}
		return ReduceMaxToBackward(TiledTensor(rng, dt, []int{r, c}), TiledTensor(rng, dt, tgt), tgt)
	},
	Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
		c := ReduceMaxToBackward(nil, nil, []int{1, 5})
		// a narrow range: ties share the gradient
		return c, []Gen{randomGen("3,5", dt, 0, 3), valuesGen("1,5", dt, "1 2 3 4 6")}
	},
	Trace: traceReduceMaxToBackward,
	Bench: []Bench{{Name: "reduce_max_to_backward f32[4096,4096] to [1,4096]", N: 16 << 20}},
}

// ReduceMaxToBackward builds a reduce_max_to_backward call.
func ReduceMaxToBackward(x, upstream *tensor.Tensor, target []int) *kernels.Call {
	return &kernels.Call{Op: "reduce_max_to_backward", Inputs: map[string]*tensor.Tensor{"x": x, "upstream": upstream},
		Params: kernels.Params{Shape: target, Dim: kernels.NoDim}}
}

// randTarget draws an input shape and a broadcast-compatible target.
func randTarget(rng *rand.Rand, maxRank int) (shape, target []int) {
	s := randShape(rng, 1, min(maxRank, 3), 1, 5)
	drop := rng.Intn(len(s))
	tgt := make([]int, 0, len(s))
	for i := drop; i < len(s); i++ {
		if rng.Intn(2) == 0 {
			tgt = append(tgt, 1)
		} else {
			tgt = append(tgt, s[i])
		}
	}
	return s, tgt
}

// pick says which element of a group decides a reduction's output.
type pick uint8

const (
	pickNone pick = iota // every element contributes (sum, mean)
	pickMax              // the strictly greatest (max, argmax, reduce_max_to)
	pickMin              // the strictly smallest
)

// better reports whether v beats best under the seeds' strict compare.
func (p pick) better(v, best float64) bool {
	if p == pickMin {
		return v < best
	}
	return v > best
}

// traceReduceDim traces a reduction over all elements or along one axis;
// arg: the arg ops' seeding (element 0 of the axis) rather than ∓inf.
func traceReduceDim(p pick, arg bool) func(Runner, *kernels.Call) (*Trace, error) {
	return func(_ Runner, c *kernels.Call) (*Trace, error) { return reduceDimTrace(p, arg, c) }
}

func reduceDimTrace(p pick, arg bool, c *kernels.Call) (*Trace, error) {
	x, d, op := c.In("x"), c.Dim, c.Op
	var outShape, reduced []int
	if d == All {
		outShape = []int{}
		for a := range x.Shape {
			reduced = append(reduced, a)
		}
	} else {
		if err := kernels.CheckDim(op, "x", d, x.Rank()); err != nil {
			return nil, err
		}
		outShape = kernels.DropDim(x.Shape, d)
		reduced = []int{d}
	}
	rule := op + " over all elements (rank-0 output)"
	if d != All {
		rule = fmt.Sprintf("%s along axis %d (removed)", op, d)
	}
	t := newTrace(op, "the op's shape rule, "+rule, outShape, c.Inputs)
	t.Reduced = reduced
	groups := make([][]int, tensor.NumElems(outShape))
	coord := make([]int, x.Rank())
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		o := 0
		if d != All {
			o = flattenSkip(coord, x.Shape, d)
		}
		groups[o] = append(groups[o], i)
	}
	picks := p != pickNone
	t.Explain = fmt.Sprintf("%s: axis %v of x is reduced (hover an output to see its group).", op, reduced)
	if picks {
		t.Winner = make([]Source, len(groups))
		t.Explain = fmt.Sprintf("%s: axis %v of x is reduced (hover an output to see its group); the winning cell of each group is starred ★.", op, reduced)
	}
	for o, g := range groups {
		t.Role[o] = RoleReduce
		for _, i := range g {
			t.add(o, Source{"x", i})
		}
		if !picks {
			continue
		}
		w := -1
		if arg { // seed with element 0 of the axis, strict compare for k >= 1
			if len(g) > 0 {
				w = g[0]
				for _, i := range g[1:] {
					if p.better(x.At(i), x.At(w)) {
						w = i
					}
				}
			}
		} else { // seed ∓inf, strict compare: NaN never wins, first of a tie wins
			best := math.Inf(-1)
			if p == pickMin {
				best = math.Inf(1)
			}
			for _, i := range g {
				if v := x.At(i); p.better(v, best) {
					best, w = v, i
				}
			}
		}
		t.Winner[o] = Source{"x", w}
	}
	return t, nil
}

func traceReduceTo(p pick) func(Runner, *kernels.Call) (*Trace, error) {
	return func(_ Runner, c *kernels.Call) (*Trace, error) { return reduceToTrace(p, c) }
}

func reduceToTrace(p pick, c *kernels.Call) (*Trace, error) {
	x, op := c.In("x"), c.Op
	al, err := kernels.AlignTarget(op, x.Shape, c.Shape)
	if err != nil {
		return nil, err
	}
	t := newTrace(op, "the op's shape rule, reduce every axis whose target size is 1", c.Shape, c.Inputs)
	for a := range al {
		if al[a] == 1 && x.Shape[a] != 1 {
			t.Reduced = append(t.Reduced, a)
		}
	}
	t.Explain = fmt.Sprintf("%s: axes %v of x are reduced to the target shape %v (hover an output to see its group).", op, t.Reduced, c.Shape)
	if p != pickNone {
		t.Winner = make([]Source, len(t.Sources))
		for o := range t.Winner {
			t.Winner[o] = Source{"x", -1}
		}
	}
	// Seed ∓inf, strict compare in input flat order: NaN never wins, the
	// first of a tie does.
	best := make([]float64, len(t.Sources))
	for o := range best {
		best[o] = math.Inf(-1)
		if p == pickMin {
			best[o] = math.Inf(1)
		}
		t.Role[o] = RoleReduce
	}
	coord := make([]int, x.Rank())
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		o := flattenBroadcast(coord, al)
		t.add(o, Source{"x", i})
		if t.Winner != nil {
			if v := x.At(i); p.better(v, best[o]) {
				best[o], t.Winner[o] = v, Source{"x", i}
			}
		}
	}
	return t, nil
}

func traceReduceMaxToBackward(_ Runner, c *kernels.Call) (*Trace, error) {
	x := c.In("x")
	al, err := kernels.AlignTarget(c.Op, x.Shape, c.Shape)
	if err != nil {
		return nil, err
	}
	t := newTrace(c.Op, "the op's shape rule, upstream routed to the positions equal to the max (ties share)", x.Shape, c.Inputs)
	t.Explain = "reduce_max_to_backward: upstream gradient goes to the positions equal to the max of their group (ties share it)."
	for a := range al {
		if al[a] == 1 && x.Shape[a] != 1 {
			t.Reduced = append(t.Reduced, a)
		}
	}
	max := make([]float64, tensor.NumElems(al))
	for o := range max {
		max[o] = math.Inf(-1)
	}
	coord := make([]int, x.Rank())
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		if v, o := x.At(i), flattenBroadcast(coord, al); v > max[o] {
			max[o] = v
		}
	}
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		o := flattenBroadcast(coord, al)
		t.add(i, Source{"x", i})
		t.add(i, Source{"upstream", o})
		if x.At(i) == max[o] {
			t.Role[i] = RoleRoute
		} else {
			t.Role[i] = RoleBlocked
		}
	}
	return t, nil
}
