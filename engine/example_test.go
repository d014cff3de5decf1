package engine_test

import (
	"fmt"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

func f32s(shape []int, v ...float32) *tensor.Tensor {
	t := tensor.New(tensor.F32, shape)
	copy(t.F32(), v)
	return t
}

// Reflect padding mirrors the input about its edge without repeating it.
func Example_padReflect() {
	eng, err := engine.New()
	if err != nil {
		panic(err)
	}
	x := f32s([]int{4}, 1, 2, 3, 4)
	res, err := eng.Run(engine.CPU, ops.Pad(x, kernels.Reflect, kernels.Pad{Before: 2, After: 2}))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Out.F32(), res.ServedBy())
	// Output: [3 2 1 2 3 4 3 2] kernel pad (fuel-cpu-backend, Cpu)
}

// A reduction along one axis removes it; ops.All reduces every element.
func Example_sum() {
	eng, _ := engine.New()
	x := f32s([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	rows, _ := eng.Run(engine.CPU, ops.Sum(x, 1))
	all, _ := eng.Run(engine.CPU, ops.Sum(x, ops.All))
	fmt.Println(rows.Out.F32(), rows.Out.Shape, all.Out.F32(), all.Out.Shape)
	// Output: [6 15] [2] [21] []
}

// gather reads data at each position with the dim coordinate replaced by
// the index; a bad index is a contract violation that names it.
func Example_gather() {
	eng, _ := engine.New()
	data := f32s([]int{2, 2}, 1, 2, 3, 4)
	idx := tensor.New(tensor.U32, []int{2, 2})
	copy(idx.U32(), []uint32{0, 0, 1, 0})
	res, _ := eng.Run(engine.CPU, ops.Gather(data, idx, 1))
	fmt.Println(res.Out.F32())
	idx.U32()[3] = 7
	_, err := eng.Run(engine.CPU, ops.Gather(data, idx, 1))
	fmt.Println(err)
	// Output:
	// [1 1 4 3]
	// gather: indices[1,1] = 7 is out of range (contract: indices < data.shape[dim] = 2)
}

// The same call on a Vulkan GPU, when this machine has an adapter: the WGSL
// kernel's answer is bitwise the CPU's (without an adapter, this example
// runs on the CPU and prints the same).
func Example_vulkan() {
	eng, _ := engine.New()
	backend := engine.CPU
	if dev, err := gpu.OpenNative(); err == nil {
		defer dev.Close()
		eng.Attach(dev)
		backend = engine.Vulkan
	}
	x := f32s([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	res, err := eng.Run(backend, ops.Pad(x, kernels.Replicate, kernels.Pad{}, kernels.Pad{Before: 1, After: 1}))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Out.F32())
	// Output: [1 1 2 3 3 4 4 5 6 6]
}

// A chain keeps its results on the GPU: pad, sum along the rows, argmax,
// recorded into one submission; each result is the next call's input in
// place, and only what is asked for is read back. (Without an adapter the
// same calls run one by one on the CPU and print the same.)
func Example_chain() {
	eng, _ := engine.New()
	x := f32s([]int{2, 4}, 1, 5, 2, 0, 3, 1, 4, 4)
	pad := func(x *tensor.Tensor) *kernels.Call {
		return ops.Pad(x, kernels.Reflect, kernels.Pad{}, kernels.Pad{Before: 1, After: 1})
	}
	dev, err := gpu.OpenNative()
	if err != nil {
		p, _ := eng.Run(engine.CPU, pad(x))
		s, _ := eng.Run(engine.CPU, ops.Sum(p.Out, 1))
		a, _ := eng.Run(engine.CPU, ops.ArgMax(s.Out, 0))
		fmt.Println(s.Out.F32(), a.Out.U32())
		return
	}
	defer dev.Close()
	eng.Attach(dev)
	dx, _ := dev.Upload(x) // the one transfer in
	defer dx.Release()
	ch, _ := eng.Chain(engine.Vulkan)
	p, _ := ch.Run(pad(dx))
	s, _ := ch.Run(ops.Sum(p.Out, 1))
	a, _ := ch.Run(ops.ArgMax(s.Out, 0))
	if err := ch.Submit(); err != nil { // one submission; an error names its call
		panic(err)
	}
	sums, _ := s.Out.Host()
	arg, _ := a.Out.Host()
	fmt.Println(sums.F32(), arg.U32())
	// Output: [15 17] [1]
}
