package cpu

import (
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// The CPU link table: every Cpu entry_point of the seeds and of this
// project's own CPU contract, mapped to its Go implementation. (The GPU
// table is kernels/gpu.Links.)

const (
	cpuBackend = "fuel_cpu_backend::byte_kernels::"
	refOracle  = "fuel_reference_backend::ops::"
)

func x(c *kernels.Call) *tensor.Tensor { return c.In("x") }

func unary(f func(*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(x(c)) }
}

func unaryDim(f func(*tensor.Tensor, int) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(x(c), c.Dim) }
}

func to(f func(*tensor.Tensor, []int) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(x(c), c.Shape) }
}

func padWith(f func(*tensor.Tensor, kernels.Mode, []kernels.Pad, []byte, ...*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) {
		var fill []byte
		if c.Mode == kernels.Constant {
			var err error
			if fill, err = c.FillFor(x(c).DType); err != nil {
				return nil, err
			}
		}
		return f(x(c), c.Mode, c.Padding, fill, c.Out)
	}
}

// The data movers write into the caller's tensor (Call.Out) when there is one.

func index(f func(data, indices *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(c.In("data"), c.In("indices"), c.Dim, c.Out) }
}

func add(f func(base, indices, src *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) {
		return f(c.In("base"), c.In("indices"), c.In("src"), c.Dim, c.Out)
	}
}

// Links is the CPU half of the link table.
func Links() []kernels.Link {
	pad, padRef := padWith(Pad), padWith(PadRef)
	padModes := kernels.Variants("pad", kernels.SeedPadForms...)
	branch := func(m kernels.Mode) []kernels.Variant { return kernels.Variants("pad", kernels.ModeForm(m)) }
	v := func(op string, forms ...kernels.Form) []kernels.Variant { return kernels.Variants(op, forms...) }
	links := []kernels.Link{
		// fuel-cpu-backend: one mode-unified forward binding per dtype.
		{EntryPoint: cpuBackend + "pad_cpu", Serves: padModes, Impl: pad, Where: "kernels/cpu.Pad (run-wise fast path; PadRef is the reference walk)"},
		// Describe-only mode sections: the branches of the same wrapper.
		{EntryPoint: cpuBackend + "pad_const_cpu", Runs: branch(kernels.Constant), Impl: pad, Where: "kernels/cpu.Pad, constant branch"},
		{EntryPoint: cpuBackend + "pad_reflect_cpu", Runs: branch(kernels.Reflect), Impl: pad, Where: "kernels/cpu.Pad, reflect branch"},
		{EntryPoint: cpuBackend + "pad_replicate_cpu", Runs: branch(kernels.Replicate), Impl: pad, Where: "kernels/cpu.Pad, replicate branch"},
		{EntryPoint: cpuBackend + "pad_walk_cpu", Runs: padModes[1:], Impl: padRef, Where: "kernels/cpu.PadRef (the generic per-element walk)"},
		// fuel-reference-backend, indexing.
		{EntryPoint: refOracle + "index_select_tensor", Serves: v("index_select"), Impl: index(IndexSelect), Where: "kernels/cpu.IndexSelect"},
		// Host-slice variant: same implementation; the seed says it is not
		// exec-wired, so it is no dispatch target (its kernel page runs it).
		{EntryPoint: refOracle + "index_select", Runs: v("index_select"), Impl: index(IndexSelect), Where: "kernels/cpu.IndexSelect (host-slice form; not exec-wired)"},
		{EntryPoint: refOracle + "gather", Serves: v("gather"), Impl: index(Gather), Where: "kernels/cpu.Gather"},
		{EntryPoint: refOracle + "index_add", Serves: v("index_add"), Impl: add(IndexAdd), Where: "kernels/cpu.IndexAdd"},
		{EntryPoint: refOracle + "scatter_add", Serves: v("scatter_add"), Impl: add(ScatterAdd), Where: "kernels/cpu.ScatterAdd"},
		{EntryPoint: refOracle + "embedding", Serves: v("embedding"), Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
			return Embedding(c.In("table"), c.In("ids"), c.Out)
		}, Where: "kernels/cpu.Embedding"},
		// fuel-reference-backend, reductions.
		{EntryPoint: refOracle + "sum_all", Serves: v("sum", kernels.FormAll), Impl: unary(SumAll), Where: "kernels/cpu.SumAll"},
		{EntryPoint: refOracle + "max_all", Serves: v("max", kernels.FormAll), Impl: unary(MaxAll), Where: "kernels/cpu.MaxAll"},
		{EntryPoint: refOracle + "min_all", Serves: v("min", kernels.FormAll), Impl: unary(MinAll), Where: "kernels/cpu.MinAll"},
		{EntryPoint: refOracle + "mean_all", Serves: v("mean", kernels.FormAll), Impl: unary(MeanAll), Where: "kernels/cpu.MeanAll"},
		{EntryPoint: refOracle + "sum_dim", Serves: v("sum", kernels.FormDim), Impl: unaryDim(SumDim), Where: "kernels/cpu.SumDim"},
		{EntryPoint: refOracle + "max_dim", Serves: v("max", kernels.FormDim), Impl: unaryDim(MaxDim), Where: "kernels/cpu.MaxDim"},
		{EntryPoint: refOracle + "min_dim", Serves: v("min", kernels.FormDim), Impl: unaryDim(MinDim), Where: "kernels/cpu.MinDim"},
		{EntryPoint: refOracle + "mean_dim", Serves: v("mean", kernels.FormDim), Impl: unaryDim(MeanDim), Where: "kernels/cpu.MeanDim"},
		{EntryPoint: refOracle + "argmax_dim", Serves: v("argmax"), Impl: unaryDim(ArgMaxDim), Where: "kernels/cpu.ArgMaxDim"},
		{EntryPoint: refOracle + "argmin_dim", Serves: v("argmin"), Impl: unaryDim(ArgMinDim), Where: "kernels/cpu.ArgMinDim"},
		// The shared arg-index core: reached through argmax_dim/argmin_dim,
		// which is how its prose describes it ("not a distinct dispatch
		// entry-point"); its kernel page runs it directly, as argmax.
		{EntryPoint: refOracle + "argindex_dim", Runs: v("argmax"), Impl: unaryDim(ArgMaxDim), Where: "kernels/cpu.ArgMaxDim / ArgMinDim (shared arg-index core)"},
		{EntryPoint: refOracle + "reduce_sum_to", Serves: v("reduce_sum_to"), Impl: to(ReduceSumTo), Where: "kernels/cpu.ReduceSumTo"},
		{EntryPoint: refOracle + "reduce_max_to", Serves: v("reduce_max_to"), Impl: to(ReduceMaxTo), Where: "kernels/cpu.ReduceMaxTo"},
		{EntryPoint: refOracle + "reduce_max_to_backward", Serves: v("reduce_max_to_backward"), Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
			return ReduceMaxToBackward(x(c), c.In("upstream"), c.Shape)
		}, Where: "kernels/cpu.ReduceMaxToBackward"},
		// This project's own CPU contract.
		{EntryPoint: "fkc::cpu::reduce_min_to", Serves: v("reduce_min_to"), Impl: to(ReduceMinTo), Where: "kernels/cpu.ReduceMinTo"},
		{EntryPoint: "fkc::cpu::masked_fill", Serves: v("masked_fill"), Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
			fill, err := c.FillFor(x(c).DType)
			if err != nil {
				return nil, err
			}
			return MaskedFill(x(c), c.In("mask"), fill, c.Out)
		}, Where: "kernels/cpu.MaskedFill"},
		// A sum in its own contracted order: run from its page or chosen by
		// name, never in place of sum_all's flat fold.
		{EntryPoint: "fkc::cpu::sum_all_blocked", Runs: v("sum", kernels.FormAll), OwnOrder: true, Impl: unary(SumAllBlocked), Where: "kernels/cpu.SumAllBlocked (blocked 32-lane order; SumAllBlockedRef is its reference walk)"},
	}
	padBackward := func(c *kernels.Call) (*tensor.Tensor, error) {
		return PadBackward(c.In("grad_out"), c.Mode, c.Padding, c.Out)
	}
	for _, dt := range []string{"f32", "f64", "bf16", "f16"} {
		links = append(links, kernels.Link{EntryPoint: cpuBackend + "pad_backward_" + dt, Serves: v("pad_backward", kernels.SeedPadForms...),
			Impl: padBackward, Where: "kernels/cpu.PadBackward (f64 accumulator)"})
	}
	// This project's own pad modes (kernels.PadModes): one forward and one
	// backward section each in fkc-cpu-kernels, served by the same kernels.
	for _, m := range kernels.OwnPadModes {
		links = append(links,
			kernels.Link{EntryPoint: "fkc::cpu::pad_" + m.String(), Serves: branch(m), Impl: pad, Where: "kernels/cpu.Pad, " + m.String() + " rule (PadRef is the reference walk)"},
			kernels.Link{EntryPoint: "fkc::cpu::pad_backward_" + m.String(), Serves: v("pad_backward", kernels.ModeForm(m)), Impl: padBackward, Where: "kernels/cpu.PadBackward (f64 accumulator), " + m.String() + " rule"})
	}
	return links
}
