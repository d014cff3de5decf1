package gpu

import (
	"fmt"

	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// Entry-point prefixes: the seed's Vulkan kernels, and this project's own
// WGSL contract (contracts/project/fkc-wgsl-kernels.fkc.md).
const (
	vulkanEP = "fuel_vulkan_backend::fkc::"
	wgslEP   = "fkc::wgsl::"
)

// Links maps every GPU entry_point to its implementation on device d: the
// fuel-vulkan-kernels seed family and the fkc-wgsl-kernels contract.
func Links(d *Device) []ops.Link {
	pad := func(c *ops.Call) (*tensor.Tensor, error) {
		x := c.Inputs["x"]
		if x == nil {
			return nil, fmt.Errorf("pad: input x is missing")
		}
		return d.Pad(x, c.Mode, c.Padding, tensor.Encode(x.DType, c.Value))
	}
	padBackward := func(c *ops.Call) (*tensor.Tensor, error) {
		return d.PadBackward(c.Inputs["grad_out"], c.Mode, c.Padding)
	}
	maskedFill := func(c *ops.Call) (*tensor.Tensor, error) {
		x := c.Inputs["x"]
		if x == nil {
			return nil, fmt.Errorf("masked_fill: input x is missing")
		}
		return d.MaskedFill(x, c.Inputs["mask"], tensor.Encode(x.DType, c.Value))
	}
	unaryDim := func(f func(*tensor.Tensor, int) (*tensor.Tensor, error)) ops.Impl {
		return func(c *ops.Call) (*tensor.Tensor, error) { return f(c.Inputs["x"], c.Dim) }
	}
	allOrDim := func(all func(*tensor.Tensor) (*tensor.Tensor, error), dim func(*tensor.Tensor, int) (*tensor.Tensor, error)) ops.Impl {
		return func(c *ops.Call) (*tensor.Tensor, error) {
			if c.Dim < 0 {
				return all(c.Inputs["x"])
			}
			return dim(c.Inputs["x"], c.Dim)
		}
	}
	to := func(f func(*tensor.Tensor, []int) (*tensor.Tensor, error)) ops.Impl {
		return func(c *ops.Call) (*tensor.Tensor, error) { return f(c.Inputs["x"], c.Shape) }
	}
	var links []ops.Link
	for _, b := range []int{1, 2, 4, 8} {
		for _, m := range []struct{ tag, op string }{{"const", "pad/constant"}, {"reflect", "pad/reflect"}, {"replicate", "pad/replicate"}} {
			k := fmt.Sprintf("pad_%s_b%d", m.tag, b)
			links = append(links, ops.Link{EntryPoint: vulkanEP + k, Ops: []string{m.op}, Impl: pad, Where: "shaders/wgsl/pad.wgsl (" + k + ") via kernels/gpu.(*Device).Pad"})
		}
		k := fmt.Sprintf("pad_backward_const_b%d", b)
		links = append(links, ops.Link{EntryPoint: vulkanEP + k, Ops: []string{"pad_backward/constant"}, Impl: padBackward, Where: "shaders/wgsl/pad.wgsl (" + k + ", gather) via kernels/gpu.(*Device).PadBackward"})
		k = fmt.Sprintf("masked_fill_b%d", b)
		links = append(links, ops.Link{EntryPoint: vulkanEP + k, Ops: []string{"masked_fill"}, Impl: maskedFill, Where: "shaders/wgsl/masked_fill.wgsl (" + k + ") via kernels/gpu.(*Device).MaskedFill"})
	}
	for _, mode := range []string{"reflect", "replicate"} {
		for _, dt := range []string{"f32", "f16", "bf16", "f64"} {
			k := "pad_backward_" + mode + "_" + dt
			where := "shaders/wgsl/pad_backward.wgsl (" + k + ", CAS accumulate) via kernels/gpu.(*Device).PadBackward"
			if dt == "f64" {
				where = "kernels/gpu.(*Device).PadBackward: answers \"not available on this adapter (needs 64-bit atomics); runs on CPU\""
			}
			links = append(links, ops.Link{EntryPoint: vulkanEP + k, Ops: []string{"pad_backward/" + mode}, Impl: padBackward, Where: where})
		}
	}
	own := []struct {
		kernel string
		ops    []string
		impl   ops.Impl
		where  string
	}{
		// One mode-unified section per reduction (dims empty → all, [dim] → one axis).
		{"sum", []string{"sum/all", "sum/dim"}, allOrDim(d.SumAll, d.SumDim), "reduce.wgsl (SumAll / SumDim)"},
		{"max", []string{"max/all", "max/dim"}, allOrDim(d.MaxAll, d.MaxDim), "reduce.wgsl (MaxAll / MaxDim)"},
		{"min", []string{"min/all", "min/dim"}, allOrDim(d.MinAll, d.MinDim), "reduce.wgsl (MinAll / MinDim)"},
		{"mean", []string{"mean/all", "mean/dim"}, allOrDim(d.MeanAll, d.MeanDim), "reduce.wgsl (MeanAll / MeanDim)"},
		{"argmax_dim", []string{"argmax"}, unaryDim(d.ArgMaxDim), "reduce.wgsl (ArgMaxDim)"},
		{"argmin_dim", []string{"argmin"}, unaryDim(d.ArgMinDim), "reduce.wgsl (ArgMinDim)"},
		{"reduce_sum_to", []string{"reduce_sum_to"}, to(d.ReduceSumTo), "reduce.wgsl (ReduceSumTo)"},
		{"reduce_max_to", []string{"reduce_max_to"}, to(d.ReduceMaxTo), "reduce.wgsl (ReduceMaxTo)"},
		{"reduce_max_to_backward", []string{"reduce_max_to_backward"}, func(c *ops.Call) (*tensor.Tensor, error) {
			return d.ReduceMaxToBackward(c.Inputs["x"], c.Inputs["upstream"], c.Shape)
		}, "reduce.wgsl + reduce_backward.wgsl (ReduceMaxToBackward)"},
		// index_select also serves embedding = index_select(table, dim=0, ids).
		{"index_select", []string{"index_select", "embedding"}, func(c *ops.Call) (*tensor.Tensor, error) {
			if c.Op == "embedding" {
				return d.Embedding(c.Inputs["table"], c.Inputs["ids"])
			}
			return d.IndexSelect(c.Inputs["data"], c.Inputs["indices"], c.Dim)
		}, "index.wgsl check+index_select (IndexSelect; Embedding along dim 0)"},
		{"gather", []string{"gather"}, func(c *ops.Call) (*tensor.Tensor, error) {
			return d.Gather(c.Inputs["data"], c.Inputs["indices"], c.Dim)
		}, "index.wgsl check+gather (Gather)"},
		{"index_add", []string{"index_add"}, func(c *ops.Call) (*tensor.Tensor, error) {
			return d.IndexAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
		}, "index.wgsl check+index_add (IndexAdd)"},
		{"scatter_add", []string{"scatter_add"}, func(c *ops.Call) (*tensor.Tensor, error) {
			return d.ScatterAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
		}, "index.wgsl check+scatter_add (ScatterAdd)"},
	}
	for _, o := range own {
		links = append(links, ops.Link{EntryPoint: wgslEP + o.kernel, Ops: o.ops, Impl: o.impl, Where: "shaders/wgsl/" + o.where + " in kernels/gpu"})
	}
	// The deterministic pad backward: not yet a dispatch target (the seed's
	// pad_backward_* serve `fkc run pad_backward`); runs from its page.
	links = append(links, ops.Link{EntryPoint: wgslEP + "pad_backward",
		Runs: []string{"pad_backward/constant", "pad_backward/reflect", "pad_backward/replicate"},
		Impl: func(c *ops.Call) (*tensor.Tensor, error) {
			return d.PadBackwardGather(c.Inputs["grad_out"], c.Mode, c.Padding)
		},
		Where: "shaders/wgsl/pad_backward_gather.wgsl in kernels/gpu (PadBackwardGather)"})
	return links
}
