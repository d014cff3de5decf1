package ops

import (
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// The CPU link table: every Cpu entry_point of the seeds and of this
// project's own CPU contract, mapped to its Go implementation.

const (
	cpuBackend = "fuel_cpu_backend::byte_kernels::"
	refOracle  = "fuel_reference_backend::ops::"
)

func unary(f func(*tensor.Tensor) (*tensor.Tensor, error)) Impl {
	return func(c *Call) (*tensor.Tensor, error) { return f(c.Inputs["x"]) }
}

func unaryDim(f func(*tensor.Tensor, int) (*tensor.Tensor, error)) Impl {
	return func(c *Call) (*tensor.Tensor, error) { return f(c.Inputs["x"], c.Dim) }
}

// PadImpl etc. are shared by the CPU links and the oracle of `fkc verify`.
var (
	padImpl = func(c *Call) (*tensor.Tensor, error) {
		x := c.Inputs["x"]
		return cpu.Pad(x, c.Mode, c.Padding, tensor.Encode(x.DType, c.Value))
	}
	padRefImpl = func(c *Call) (*tensor.Tensor, error) {
		x := c.Inputs["x"]
		return cpu.PadRef(x, c.Mode, c.Padding, tensor.Encode(x.DType, c.Value))
	}
	padBackwardImpl = func(c *Call) (*tensor.Tensor, error) {
		return cpu.PadBackward(c.Inputs["grad_out"], c.Mode, c.Padding)
	}
	maskedFillImpl = func(c *Call) (*tensor.Tensor, error) {
		x := c.Inputs["x"]
		return cpu.MaskedFill(x, c.Inputs["mask"], tensor.Encode(x.DType, c.Value))
	}
	indexSelectImpl = func(c *Call) (*tensor.Tensor, error) {
		return cpu.IndexSelect(c.Inputs["data"], c.Inputs["indices"], c.Dim)
	}
	gatherImpl = func(c *Call) (*tensor.Tensor, error) {
		return cpu.Gather(c.Inputs["data"], c.Inputs["indices"], c.Dim)
	}
	indexAddImpl = func(c *Call) (*tensor.Tensor, error) {
		return cpu.IndexAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
	}
	scatterAddImpl = func(c *Call) (*tensor.Tensor, error) {
		return cpu.ScatterAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
	}
	embeddingImpl = func(c *Call) (*tensor.Tensor, error) {
		return cpu.Embedding(c.Inputs["table"], c.Inputs["ids"])
	}
	argImpl = func(c *Call) (*tensor.Tensor, error) {
		if c.Op == "argmin" {
			return cpu.ArgMinDim(c.Inputs["x"], c.Dim)
		}
		return cpu.ArgMaxDim(c.Inputs["x"], c.Dim)
	}
	reduceSumToImpl   = func(c *Call) (*tensor.Tensor, error) { return cpu.ReduceSumTo(c.Inputs["x"], c.Shape) }
	reduceMaxToImpl   = func(c *Call) (*tensor.Tensor, error) { return cpu.ReduceMaxTo(c.Inputs["x"], c.Shape) }
	reduceMaxToBwImpl = func(c *Call) (*tensor.Tensor, error) {
		return cpu.ReduceMaxToBackward(c.Inputs["x"], c.Inputs["upstream"], c.Shape)
	}
)

var padModes = []string{"pad/constant", "pad/reflect", "pad/replicate"}
var padBackwardModes = []string{"pad_backward/constant", "pad_backward/reflect", "pad_backward/replicate"}

// CPULinks is the CPU half of the link table.
func CPULinks() []Link {
	links := []Link{
		// fuel-cpu-backend: one mode-unified forward binding per dtype.
		{EntryPoint: cpuBackend + "pad_cpu", Ops: padModes, Impl: padImpl, Where: "kernels/cpu.Pad (run-wise fast path; PadRef is the reference walk)"},
		// Describe-only mode sections: the branches of the same wrapper.
		{EntryPoint: cpuBackend + "pad_const_cpu", Runs: padModes[:1], Impl: padImpl, Where: "kernels/cpu.Pad, constant branch"},
		{EntryPoint: cpuBackend + "pad_reflect_cpu", Runs: padModes[1:2], Impl: padImpl, Where: "kernels/cpu.Pad, reflect branch"},
		{EntryPoint: cpuBackend + "pad_replicate_cpu", Runs: padModes[2:], Impl: padImpl, Where: "kernels/cpu.Pad, replicate branch"},
		{EntryPoint: cpuBackend + "pad_walk_cpu", Runs: padModes[1:], Impl: padRefImpl, Where: "kernels/cpu.PadRef (the generic per-element walk)"},
		// fuel-reference-backend, indexing.
		{EntryPoint: refOracle + "index_select_tensor", Ops: []string{"index_select"}, Impl: indexSelectImpl, Where: "kernels/cpu.IndexSelect"},
		// Host-slice variant: same implementation; the seed says it is not
		// exec-wired, so it is no dispatch target (its kernel page runs it).
		{EntryPoint: refOracle + "index_select", Runs: []string{"index_select"}, Impl: indexSelectImpl, Where: "kernels/cpu.IndexSelect (host-slice form; not exec-wired)"},
		{EntryPoint: refOracle + "gather", Ops: []string{"gather"}, Impl: gatherImpl, Where: "kernels/cpu.Gather"},
		{EntryPoint: refOracle + "index_add", Ops: []string{"index_add"}, Impl: indexAddImpl, Where: "kernels/cpu.IndexAdd"},
		{EntryPoint: refOracle + "scatter_add", Ops: []string{"scatter_add"}, Impl: scatterAddImpl, Where: "kernels/cpu.ScatterAdd"},
		{EntryPoint: refOracle + "embedding", Ops: []string{"embedding"}, Impl: embeddingImpl, Where: "kernels/cpu.Embedding"},
		// fuel-reference-backend, reductions.
		{EntryPoint: refOracle + "sum_all", Ops: []string{"sum/all"}, Impl: unary(cpu.SumAll), Where: "kernels/cpu.SumAll"},
		{EntryPoint: refOracle + "max_all", Ops: []string{"max/all"}, Impl: unary(cpu.MaxAll), Where: "kernels/cpu.MaxAll"},
		{EntryPoint: refOracle + "min_all", Ops: []string{"min/all"}, Impl: unary(cpu.MinAll), Where: "kernels/cpu.MinAll"},
		{EntryPoint: refOracle + "mean_all", Ops: []string{"mean/all"}, Impl: unary(cpu.MeanAll), Where: "kernels/cpu.MeanAll"},
		{EntryPoint: refOracle + "sum_dim", Ops: []string{"sum/dim"}, Impl: unaryDim(cpu.SumDim), Where: "kernels/cpu.SumDim"},
		{EntryPoint: refOracle + "max_dim", Ops: []string{"max/dim"}, Impl: unaryDim(cpu.MaxDim), Where: "kernels/cpu.MaxDim"},
		{EntryPoint: refOracle + "min_dim", Ops: []string{"min/dim"}, Impl: unaryDim(cpu.MinDim), Where: "kernels/cpu.MinDim"},
		{EntryPoint: refOracle + "mean_dim", Ops: []string{"mean/dim"}, Impl: unaryDim(cpu.MeanDim), Where: "kernels/cpu.MeanDim"},
		{EntryPoint: refOracle + "argmax_dim", Ops: []string{"argmax"}, Impl: argImpl, Where: "kernels/cpu.ArgMaxDim"},
		{EntryPoint: refOracle + "argmin_dim", Ops: []string{"argmin"}, Impl: argImpl, Where: "kernels/cpu.ArgMinDim"},
		// The shared arg-index core: reached through argmax_dim/argmin_dim,
		// which is how its prose describes it ("not a distinct dispatch
		// entry-point"); its kernel page runs it directly.
		{EntryPoint: refOracle + "argindex_dim", Runs: []string{"argmax", "argmin"}, Impl: argImpl, Where: "kernels/cpu.ArgMaxDim / ArgMinDim (shared arg-index core)"},
		{EntryPoint: refOracle + "reduce_sum_to", Ops: []string{"reduce_sum_to"}, Impl: reduceSumToImpl, Where: "kernels/cpu.ReduceSumTo"},
		{EntryPoint: refOracle + "reduce_max_to", Ops: []string{"reduce_max_to"}, Impl: reduceMaxToImpl, Where: "kernels/cpu.ReduceMaxTo"},
		{EntryPoint: refOracle + "reduce_max_to_backward", Ops: []string{"reduce_max_to_backward"}, Impl: reduceMaxToBwImpl, Where: "kernels/cpu.ReduceMaxToBackward"},
		// This project's own CPU contract.
		{EntryPoint: "fkc::cpu::masked_fill", Ops: []string{"masked_fill"}, Impl: maskedFillImpl, Where: "kernels/cpu.MaskedFill"},
		{EntryPoint: "fkc::cpu::sum_all_blocked", Runs: []string{"sum/all"}, Impl: unary(cpu.SumAllBlocked), Where: "kernels/cpu.SumAllBlocked (blocked 32-lane order; SumAllBlockedRef is its reference walk)"},
	}
	for _, dt := range []string{"f32", "f64", "bf16", "f16"} {
		links = append(links, Link{EntryPoint: cpuBackend + "pad_backward_" + dt, Ops: padBackwardModes, Impl: padBackwardImpl, Where: "kernels/cpu.PadBackward (f64 accumulator)"})
	}
	return links
}

// Oracle runs the CPU reference walk for any call — the code that reads like
// the contract's prose (PadRef, the oracle's reduce_dim and argindex scans,
// the per-element index walks), not the fast paths — ignoring the CPU
// registry's dtype gating (the byte movers are dtype-agnostic). The
// registry walks of the CPU and GPU bindings, `fkc verify` and the
// playground's diff all compare against it.
func Oracle(c *Call) (*tensor.Tensor, error) {
	in := c.Inputs
	switch c.Op {
	case "pad":
		x := in["x"]
		return cpu.PadRef(x, c.Mode, c.Padding, tensor.Encode(x.DType, c.Value))
	case "pad_backward":
		if g := in["grad_out"]; c.Mode == kernels.Constant && g != nil && !g.DType.IsFloat() {
			// The Vulkan constant backward is a byte-width gather that
			// also takes integer dtypes; its oracle is the crop it is.
			return cropInterior(g, c.Padding)
		}
		return cpu.PadBackwardRef(in["grad_out"], c.Mode, c.Padding)
	case "masked_fill":
		return maskedFillImpl(c)
	case "sum", "max", "min", "mean":
		// The _all folds have a single implementation: the flat-order fold.
		all := map[string]func(*tensor.Tensor) (*tensor.Tensor, error){"sum": cpu.SumAll, "max": cpu.MaxAll, "min": cpu.MinAll, "mean": cpu.MeanAll}
		dim := map[string]func(*tensor.Tensor, int) (*tensor.Tensor, error){"sum": cpu.SumDimRef, "max": cpu.MaxDimRef, "min": cpu.MinDimRef, "mean": cpu.MeanDimRef}
		if c.Dim < 0 {
			return all[c.Op](in["x"])
		}
		return dim[c.Op](in["x"], c.Dim)
	case "argmax":
		return cpu.ArgMaxDimRef(in["x"], c.Dim)
	case "argmin":
		return cpu.ArgMinDimRef(in["x"], c.Dim)
	case "reduce_sum_to":
		return reduceSumToImpl(c)
	case "reduce_max_to":
		return reduceMaxToImpl(c)
	case "reduce_max_to_backward":
		return reduceMaxToBwImpl(c)
	case "index_select":
		return cpu.IndexSelectRef(in["data"], in["indices"], c.Dim)
	case "gather":
		return cpu.GatherRef(in["data"], in["indices"], c.Dim)
	case "index_add":
		return cpu.IndexAddRef(in["base"], in["indices"], in["src"], c.Dim)
	case "scatter_add":
		return cpu.ScatterAddRef(in["base"], in["indices"], in["src"], c.Dim)
	case "embedding":
		return embeddingImpl(c)
	}
	return nil, usagef("no oracle for op %q", c.Op)
}

// cropInterior is constant-pad backward as a byte copy: grad_in[i] =
// grad_out[i + before], per element, for any dtype.
func cropInterior(g *tensor.Tensor, pads []kernels.Pad) (*tensor.Tensor, error) {
	in, err := kernels.PadBackwardInShape("pad_backward", kernels.Constant, g.Shape, pads)
	if err != nil {
		return nil, err
	}
	out := tensor.New(g.DType, in)
	es, gs := g.DType.Size(), tensor.Strides(g.Shape)
	coord := make([]int, len(in))
	for i := 0; i < out.NumElems(); i++ {
		rem, src := i, 0
		for k := len(in) - 1; k >= 0; k-- {
			coord[k] = rem % in[k]
			rem /= in[k]
			src += (coord[k] + pads[k].Before) * gs[k]
		}
		copy(out.Data[i*es:(i+1)*es], g.Data[src*es:(src+1)*es])
	}
	return out, nil
}
