package gpu

import (
	"fmt"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
)

// Entry-point prefixes: the seed's Vulkan kernels, and this project's own
// WGSL contract (contracts/project/fkc-wgsl-kernels.fkc.md).
const (
	vulkanEP = "fuel_vulkan_backend::fkc::"
	wgslEP   = "fkc::wgsl::"
	labEP    = "fkc::lab::"
)

// Links maps every GPU entry_point to its implementation on device d: the
// fuel-vulkan-kernels seed family, the fkc-wgsl-kernels contract, and the
// kernel lab's plain kernels (fkc-lab).
func Links(d *Device) []kernels.Link {
	pad := func(c *kernels.Call) (*tensor.Tensor, error) {
		x := c.Inputs["x"]
		if x == nil {
			return nil, fmt.Errorf("pad: input x is missing")
		}
		var fill []byte
		if c.Mode == kernels.Constant {
			var err error
			if fill, err = c.FillFor(x.DType); err != nil {
				return nil, err
			}
		}
		return d.Pad(x, c.Mode, c.Padding, fill)
	}
	padBackward := func(c *kernels.Call) (*tensor.Tensor, error) {
		return d.PadBackward(c.Inputs["grad_out"], c.Mode, c.Padding)
	}
	maskedFill := func(c *kernels.Call) (*tensor.Tensor, error) {
		x := c.Inputs["x"]
		if x == nil {
			return nil, fmt.Errorf("masked_fill: input x is missing")
		}
		fill, err := c.FillFor(x.DType)
		if err != nil {
			return nil, err
		}
		return d.MaskedFill(x, c.Inputs["mask"], fill)
	}
	unaryDim := func(f func(*tensor.Tensor, int) (*tensor.Tensor, error)) kernels.Impl {
		return func(c *kernels.Call) (*tensor.Tensor, error) { return f(c.Inputs["x"], c.Dim) }
	}
	allOrDim := func(all func(*tensor.Tensor) (*tensor.Tensor, error), dim func(*tensor.Tensor, int) (*tensor.Tensor, error)) kernels.Impl {
		return func(c *kernels.Call) (*tensor.Tensor, error) {
			if c.Dim < 0 {
				return all(c.Inputs["x"])
			}
			return dim(c.Inputs["x"], c.Dim)
		}
	}
	to := func(f func(*tensor.Tensor, []int) (*tensor.Tensor, error)) kernels.Impl {
		return func(c *kernels.Call) (*tensor.Tensor, error) { return f(c.Inputs["x"], c.Shape) }
	}
	all, dim := kernels.FormAll, kernels.FormDim
	var links []kernels.Link
	for _, b := range []int{1, 2, 4, 8} {
		for _, f := range kernels.SeedPadForms {
			k := fmt.Sprintf("pad_%s_b%d", kernels.ModeOf(f.Mode()).Tag, b)
			links = append(links, kernels.Link{EntryPoint: vulkanEP + k, Serves: kernels.Variants("pad", f), Impl: pad, Where: "shaders/wgsl/pad.wgsl (" + k + ") via kernels/gpu.(*Device).Pad"})
		}
		k := fmt.Sprintf("pad_backward_const_b%d", b)
		links = append(links, kernels.Link{EntryPoint: vulkanEP + k, Serves: kernels.Variants("pad_backward", kernels.FormConstant), Impl: padBackward, Where: "shaders/wgsl/pad.wgsl (" + k + ", gather) via kernels/gpu.(*Device).PadBackward"})
		k = fmt.Sprintf("masked_fill_b%d", b)
		links = append(links, kernels.Link{EntryPoint: vulkanEP + k, Serves: kernels.Variants("masked_fill"), Impl: maskedFill, Where: "shaders/wgsl/masked_fill.wgsl (" + k + ") via kernels/gpu.(*Device).MaskedFill"})
	}
	for _, f := range kernels.SeedPadForms[1:] { // the accumulating modes
		mode := f.Mode()
		for _, dt := range []string{"f32", "f16", "bf16", "f64"} {
			k := "pad_backward_" + kernels.ModeOf(mode).Tag + "_" + dt
			where := "shaders/wgsl/pad_backward.wgsl (" + k + ", CAS accumulate) via kernels/gpu.(*Device).PadBackward"
			if dt == "f64" {
				where = "kernels/gpu.(*Device).PadBackward: answers \"not available on this adapter (needs 64-bit atomics); runs on CPU\""
			}
			// The seed's compare-and-swap kernels run from their pages (or
			// --kernel): dispatch picks the deterministic gather below.
			l := kernels.Link{EntryPoint: vulkanEP + k, Runs: kernels.Variants("pad_backward", kernels.ModeForm(mode)), Impl: padBackward, Where: where}
			if dt == "f64" && d != nil {
				l.Unavailable = "needs 64-bit atomics, which wgpu does not offer"
			}
			links = append(links, l)
		}
	}
	own := []struct {
		kernel string
		serves []kernels.Variant
		impl   kernels.Impl
		where  string
	}{
		// One mode-unified section per reduction (dims empty → all, [dim] → one axis).
		{"sum", kernels.Variants("sum", all, dim), allOrDim(d.SumAll, d.SumDim), "reduce.wgsl (SumAll / SumDim)"},
		{"max", kernels.Variants("max", all, dim), allOrDim(d.MaxAll, d.MaxDim), "reduce.wgsl (MaxAll / MaxDim)"},
		{"min", kernels.Variants("min", all, dim), allOrDim(d.MinAll, d.MinDim), "reduce.wgsl (MinAll / MinDim)"},
		{"mean", kernels.Variants("mean", all, dim), allOrDim(d.MeanAll, d.MeanDim), "reduce.wgsl (MeanAll / MeanDim)"},
		{"argmax_dim", kernels.Variants("argmax"), unaryDim(d.ArgMaxDim), "reduce.wgsl (ArgMaxDim)"},
		{"argmin_dim", kernels.Variants("argmin"), unaryDim(d.ArgMinDim), "reduce.wgsl (ArgMinDim)"},
		{"reduce_sum_to", kernels.Variants("reduce_sum_to"), to(d.ReduceSumTo), "reduce.wgsl (ReduceSumTo)"},
		{"reduce_max_to", kernels.Variants("reduce_max_to"), to(d.ReduceMaxTo), "reduce.wgsl (ReduceMaxTo)"},
		{"reduce_min_to", kernels.Variants("reduce_min_to"), to(d.ReduceMinTo), "reduce.wgsl (ReduceMinTo)"},
		{"reduce_max_to_backward", kernels.Variants("reduce_max_to_backward"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.ReduceMaxToBackward(c.Inputs["x"], c.Inputs["upstream"], c.Shape)
		}, "reduce.wgsl + reduce_backward.wgsl (ReduceMaxToBackward)"},
		// index_select also serves embedding = index_select(table, dim=0, ids).
		{"index_select", append(kernels.Variants("index_select"), kernels.Variants("embedding")...), func(c *kernels.Call) (*tensor.Tensor, error) {
			if table := c.In("table"); table != nil { // embedding's operands
				return d.Embedding(table, c.In("ids"))
			}
			return d.IndexSelect(c.Inputs["data"], c.Inputs["indices"], c.Dim)
		}, "index.wgsl check+index_select (IndexSelect; Embedding along dim 0)"},
		{"gather", kernels.Variants("gather"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.Gather(c.Inputs["data"], c.Inputs["indices"], c.Dim)
		}, "index.wgsl check+gather (Gather)"},
		{"index_add", kernels.Variants("index_add"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.IndexAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
		}, "index.wgsl check+index_add (IndexAdd)"},
		{"scatter_add", kernels.Variants("scatter_add"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.ScatterAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
		}, "index.wgsl check+scatter_add (ScatterAdd)"},
	}
	// This project's own pad modes (kernels.PadModes): one forward section
	// each, the branch of pad.wgsl their MODE selects.
	for _, m := range kernels.OwnPadModes {
		own = append(own, struct {
			kernel string
			serves []kernels.Variant
			impl   kernels.Impl
			where  string
		}{"pad_" + m.String(), kernels.Variants("pad", kernels.ModeForm(m)), pad, "pad.wgsl, pad4.wgsl (Pad, " + m.String() + " rule)"})
	}
	for _, o := range own {
		links = append(links, kernels.Link{EntryPoint: wgslEP + o.kernel, Serves: o.serves, Impl: o.impl, Where: "shaders/wgsl/" + o.where + " in kernels/gpu"})
	}
	// The deterministic pad backward serves `fkc run pad_backward --backend
	// vulkan` in every mode but constant (its contract says why: exact,
	// the same bits every run, no retry cap under contention — issue 9 row
	// 15); the constant backward stays the seed's byte-copy gather.
	links = append(links, kernels.Link{EntryPoint: wgslEP + "pad_backward",
		Serves: kernels.Variants("pad_backward", kernels.PadForms[1:]...),
		Runs:   kernels.Variants("pad_backward", kernels.PadForms...),
		Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.PadBackwardGather(c.Inputs["grad_out"], c.Mode, c.Padding)
		},
		Where: "shaders/wgsl/pad_backward_gather.wgsl in kernels/gpu (PadBackwardGather)"})
	// The kernel lab's plain kernels (contracts/project/fkc-lab.fkc.md):
	// describe-only, run by package lab with a user's WGSL beside them.
	for _, f := range wgsl.LabNames() {
		name := strings.TrimSuffix(f, ".wgsl")
		links = append(links, kernels.Link{EntryPoint: labEP + name,
			Where: "shaders/wgsl/lab/" + f + ": the lab's plain kernel, run by package lab (fkc lab check)"})
	}
	return links
}

// Links is the device's link table (engine.Device).
func (d *Device) Links() []kernels.Link { return Links(d) }
