package gpu

import (
	"fmt"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
)

// The fuel-vulkan-kernels family (contracts/seeds/fuel-vulkan-kernels.fkc.md):
// pad_{const,reflect,replicate}_b{1,2,4,8}, pad_backward_const_b{1,2,4,8},
// pad_backward_{reflect,replicate}_{f32,f16,bf16}, masked_fill_b{1,2,4,8};
// and this project's own pad modes' pad_MODE (fkc-wgsl-kernels).

const maxRank = 8 // shape_buf is sized for rank <= 8

// PadKernel names the contract kernel that serves a forward pad: the
// seed's pad_{tag}_b{width}, or this project's pad_{mode} for its own
// modes (kernels.PadModes).
func PadKernel(dt tensor.DType, mode kernels.Mode) string {
	pm := kernels.ModeOf(mode)
	if pm.Own {
		return "pad_" + pm.Name
	}
	return fmt.Sprintf("pad_%s_b%d", pm.Tag, dt.Size())
}

// PadBackwardKernel names the seed kernel of a pad backward: the constant
// byte gather, or the compare-and-swap accumulation.
func PadBackwardKernel(dt tensor.DType, mode kernels.Mode) string {
	if mode == kernels.Constant {
		return fmt.Sprintf("pad_backward_const_b%d", dt.Size())
	}
	return fmt.Sprintf("pad_backward_%s_%s", kernels.ModeOf(mode).Tag, dtName(dt))
}

func dtName(dt tensor.DType) string {
	switch dt {
	case tensor.F32:
		return "f32"
	case tensor.F64:
		return "f64"
	case tensor.F16:
		return "f16"
	case tensor.BF16:
		return "bf16"
	}
	return fmt.Sprintf("%v", dt)
}

func checkRank(op string, rank int) error {
	if rank > maxRank {
		return kernels.Violatef(op, "rank %d exceeds the GPU kernels' limit (contract: rank <= 8; shape_buf holds 8 axes)", rank)
	}
	return nil
}

// checkDims refuses a size or pad that does not fit the u32 words the
// kernels take, so nothing passed to a shader can wrap.
func checkDims(op, what string, vs ...int) error {
	for _, v := range vs {
		if v < 0 || uint64(v) > 1<<32-1 {
			return kernels.Violatef(op, "%s %d does not fit the GPU kernels' 32-bit sizes (contract: every size and pad < 2^32)", what, v)
		}
	}
	return nil
}

// checkPads checks every pad and both shapes of a pad call with checkDims,
// and that each output size is in + before + after exactly (computed here
// in uint64, where it cannot wrap): a size that wrapped upstream in int
// arithmetic is refused, never passed on.
func checkPads(op string, in, out []int, pads []kernels.Pad) error {
	for i, p := range pads {
		if err := checkDims(op, fmt.Sprintf("axis %d: padding", i), p.Before, p.After); err != nil {
			return err
		}
	}
	if err := checkDims(op, "input size", in...); err != nil {
		return err
	}
	if err := checkDims(op, "output size", out...); err != nil {
		return err
	}
	for i, p := range pads {
		if want := uint64(in[i]) + uint64(p.Before) + uint64(p.After); uint64(out[i]) != want {
			return kernels.Violatef(op, "axis %d: output size %d is not %d + %d + %d (contract: out_shape[i] == in_shape[i] + before + after)", i, out[i], in[i], p.Before, p.After)
		}
	}
	return nil
}

func checkElems(op string, n int) error {
	if n > 1<<32-1 {
		return kernels.Violatef(op, "%d elements exceed the GPU kernels' 32-bit index (contract: n_out: u32)", n)
	}
	return nil
}

func shapeBuf(in, out []int, pads []kernels.Pad) []uint32 {
	r := len(in)
	sb := make([]uint32, 3*r)
	for i := range r {
		sb[i] = uint32(in[i])
		sb[r+i] = uint32(out[i])
		sb[2*r+i] = uint32(pads[i].Before)
	}
	return sb
}

// fillWords splits a (validated) fill element's bytes into (lo, hi) u32 words.
func fillWords(fill []byte) (uint32, uint32) {
	var b [8]byte
	copy(b[:], fill)
	return getU32(b[:4]), getU32(b[4:])
}

func elemWords(n, eb int) uint64 {
	switch eb {
	case 1:
		return uint64((n + 3) / 4)
	case 2:
		return uint64((n + 1) / 2)
	}
	return uint64(n)
}

// Pad runs the seeds' pad_{const,reflect,replicate}_b{1,2,4,8} and this
// project's pad_MODE for its own modes (kernels.PadModes): one thread per
// output element (per output word for 1- and 2-byte elements). fill is the
// constant mode's element bit pattern (nil = zeros); other modes ignore it.
func (d *Device) Pad(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte) (*tensor.Tensor, error) {
	const op = "pad"
	outShape, err := kernels.PadShape(x, mode, pads, fill)
	if err != nil {
		return nil, err
	}
	var lo, hi uint32
	if mode == kernels.Constant {
		lo, hi = fillWords(fill)
	}
	if err := tensor.CheckShape(outShape); err != nil {
		return nil, kernels.Violatef(op, "output: %v", err)
	}
	if err := checkRank(op, x.Rank()); err != nil {
		return nil, err
	}
	nOut := tensor.NumElems(outShape)
	if err := checkElems(op, nOut); err != nil {
		return nil, err
	}
	if err := checkPads(op, x.Shape, outShape, pads); err != nil {
		return nil, err
	}
	if nOut == 0 {
		return tensor.New(x.DType, outShape), nil
	}
	eb := x.DType.Size()
	// Table path (see pad.wgsl, TAB): when the innermost output axis has at
	// least 4 elements the tables are at most a quarter of the output.
	tab := x.Rank() >= 1 && outShape[x.Rank()-1] >= 4
	tableWords := uint64(3 * x.Rank())
	if tab {
		last := outShape[x.Rank()-1]
		tableWords = uint64(nOut/last) + uint64(last)
	}
	// Size every buffer before building anything (fits).
	if err := d.fits(op, sized{"pad_tables", 4 * tableWords}, sized{"input", inBytes(len(x.Data))}, outSized("out", nOut*eb)); err != nil {
		return nil, err
	}
	tabVal := uint32(0)
	// The pipeline is per element width (the own modes' contract kernel
	// pad_MODE serves every width).
	name := fmt.Sprintf("pad_%s_b%d", kernels.ModeOf(mode).Tag, eb)
	if tab {
		tabVal = 1
		name += "_tab" // a pipeline variant, same contract kernel
	}
	spec := kernelSpec{
		name: name, file: "pad.wgsl", entry: "main",
		defs: []wgsl.Def{{Name: "EB", Value: uint32(eb)}, {Name: "MODE", Value: uint32(mode)}, {Name: "DIR", Value: 0}, {Name: "TAB", Value: tabVal}},
		rw:   []bool{false, false, false, true},
	}
	per := uint64(1) // output elements (words, for 1- and 2-byte elements) per thread
	if tab && eb == 4 {
		// Four elements per thread, one 16-byte store (pad4.wgsl); the
		// tables encode the mode, so one pipeline serves all three.
		spec = kernelSpec{name: "pad_tab_b4x4", file: "pad4.wgsl", entry: "main", rw: spec.rw}
		per = 4
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	p, err := d.pipeline(spec)
	if err != nil {
		return nil, err
	}
	j := d.begin(PadKernel(x.DType, mode))
	var params, sb *buffer
	if tab {
		rows, tables := d.padForwardTables(x.Shape, outShape, pads, mode)
		params = j.words("params", []uint32{uint32(nOut), uint32(rows), lo, hi, uint32(outShape[x.Rank()-1])})
		sb = j.input("pad_tables", tables)
	} else {
		params = j.words("params", []uint32{uint32(nOut), uint32(x.Rank()), lo, hi})
		sb = j.words("shape_buf", shapeBuf(x.Shape, outShape, pads))
	}
	src := j.operand("input", x)
	out := &tensor.Tensor{DType: x.DType, Shape: outShape}
	dst := j.outputTensor("out", out)
	j.dispatch(p, groupsFor((elemWords(nOut, eb)+per-1)/per), params, sb, src, dst.buf)
	if err := j.run(); err != nil {
		return nil, err
	}
	return out, nil
}

// PadBackward runs the pad backward: constant mode is the gather
// pad_backward_const_b{1,2,4,8} (one thread per grad_in element, any dtype);
// reflect/replicate are the CAS-accumulate pad_backward_{mode}_{f32,f16,bf16}
// into a zero-filled grad_in. F64 reflect/replicate needs 64-bit atomics,
// which wgpu does not offer: it returns an error saying so.
func (d *Device) PadBackward(gradOut *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) (*tensor.Tensor, error) {
	const op = "pad_backward"
	// Constant backward is a byte gather (any dtype, as the seed's
	// pad_backward_const_b*); the accumulating modes take the float set,
	// exactly as the CPU path checks it.
	dts := kernels.FloatDTypes
	if mode == kernels.Constant {
		dts = nil
	}
	inShape, err := kernels.PadBackwardShape(gradOut, mode, pads, dts)
	if err != nil {
		return nil, err
	}
	if err := checkRank(op, gradOut.Rank()); err != nil {
		return nil, err
	}
	dt := gradOut.DType
	nOut, nIn := gradOut.NumElems(), tensor.NumElems(inShape)
	if err := checkElems(op, nOut); err != nil {
		return nil, err
	}
	if mode != kernels.Constant {
		switch dt {
		case tensor.F32, tensor.F16, tensor.BF16:
		case tensor.F64:
			return nil, &kernels.Unavailable{Kernel: PadBackwardKernel(dt, mode), Need: "64-bit atomics", Msg: "runs on CPU"}
		}
	}
	if err := checkPads(op, inShape, gradOut.Shape, pads); err != nil {
		return nil, err
	}
	if nIn == 0 {
		return tensor.New(dt, inShape), nil
	}
	if err := d.fits(op, sized{"shape_buf", 4 * 3 * uint64(len(inShape))}, sized{"grad_out", inBytes(len(gradOut.Data))}, outSized("grad_in", nIn*dt.Size())); err != nil {
		return nil, err
	}
	gin := &tensor.Tensor{DType: dt, Shape: inShape}
	name := PadBackwardKernel(dt, mode)
	d.mu.Lock()
	defer d.mu.Unlock()
	if mode == kernels.Constant {
		eb := dt.Size()
		p, err := d.pipeline(kernelSpec{
			name: name, file: "pad.wgsl", entry: "main",
			defs: []wgsl.Def{{Name: "EB", Value: uint32(eb)}, {Name: "MODE", Value: 0}, {Name: "DIR", Value: 1}, {Name: "TAB", Value: 0}},
			rw:   []bool{false, false, false, true},
		})
		if err != nil {
			return nil, err
		}
		j := d.begin(name)
		params := j.words("params", []uint32{uint32(nIn), uint32(len(inShape)), 0, 0})
		sb := j.words("shape_buf", shapeBuf(inShape, gradOut.Shape, pads))
		src := j.operand("grad_out", gradOut)
		dst := j.outputTensor("grad_in", gin)
		j.dispatch(p, groupsFor(elemWords(nIn, eb)), params, sb, src, dst.buf)
		if err := j.run(); err != nil {
			return nil, err
		}
		return gin, nil
	}
	dtTag := map[tensor.DType]uint32{tensor.F32: 0, tensor.F16: 1, tensor.BF16: 2}[dt]
	p, err := d.pipeline(kernelSpec{
		name: name, file: "pad_backward.wgsl", entry: "main",
		defs: []wgsl.Def{{Name: "DT", Value: dtTag}, {Name: "MODE", Value: uint32(mode)}},
		rw:   []bool{false, false, false, true, true},
	})
	if err != nil {
		return nil, err
	}
	j := d.begin(name)
	params := j.words("params", []uint32{uint32(nOut), uint32(len(inShape))})
	sb := j.words("shape_buf", shapeBuf(inShape, gradOut.Shape, pads))
	src := j.operand("grad_out", gradOut)
	gin.Data = tensor.New(dt, inShape).Data
	dst := j.accumulator("grad_in", len(gin.Data), true) // zero-filled: the kernel only accumulates
	dst.into = gin.Data
	fails := j.accumulator("cas_failures", 4, false)
	j.dispatch(p, groupsFor(uint64(nOut)), params, sb, src, dst.buf, fails.buf)
	if err := j.run(); err != nil {
		return nil, err
	}
	if n := getU32(fails.data); n != 0 {
		return nil, fmt.Errorf("%s: %d gradient contributions could not be stored after %d compare-and-swap retries (contended slots); the result is discarded rather than returned incomplete", name, n, 1000)
	}
	return gin, nil
}

// MaskedFill runs masked_fill_b{1,2,4,8}: out[i] = mask[i] != 0 ? fill : x[i];
// mask is BOOL with x's shape (no broadcasting).
func (d *Device) MaskedFill(x, mask *tensor.Tensor, fill []byte) (*tensor.Tensor, error) {
	const op = "masked_fill"
	if err := kernels.CheckMaskedFill(x, mask, fill); err != nil {
		return nil, err
	}
	lo, hi := fillWords(fill)
	n := x.NumElems()
	if err := checkElems(op, n); err != nil {
		return nil, err
	}
	if n == 0 {
		return tensor.New(x.DType, x.Shape), nil
	}
	eb := x.DType.Size()
	if err := d.fits(op, sized{"input", inBytes(len(x.Data))}, sized{"mask", inBytes(len(mask.Data))}, outSized("out", len(x.Data))); err != nil {
		return nil, err
	}
	out := &tensor.Tensor{DType: x.DType, Shape: append([]int{}, x.Shape...)}
	name := fmt.Sprintf("masked_fill_b%d", eb)
	d.mu.Lock()
	defer d.mu.Unlock()
	p, err := d.pipeline(kernelSpec{
		name: name, file: "masked_fill.wgsl", entry: "main",
		defs: []wgsl.Def{{Name: "EB", Value: uint32(eb)}},
		rw:   []bool{false, false, false, true},
	})
	if err != nil {
		return nil, err
	}
	j := d.begin(name)
	params := j.words("params", []uint32{uint32(n), lo, hi})
	src := j.operand("input", x)
	m := j.operand("mask", mask)
	dst := j.outputTensor("out", out)
	j.dispatch(p, groupsFor(elemWords(n, eb)), params, src, m, dst.buf)
	if err := j.run(); err != nil {
		return nil, err
	}
	return out, nil
}

// padMap maps an output coordinate c of one axis to its input coordinate
// (-1: a constant-fill slot) by the mode's rule, as pad.wgsl's
// source_index does.
func padMap(c, before, n int, mode kernels.Mode) int {
	return mode.SourceIndex(c-before, n)
}

// padTables builds the forward pad's tables (pad.wgsl, TAB = 1): the source
// element offset of every output row (outer axes), and the source column of
// every innermost output coordinate; none (^0) marks constant-fill slots.
func padTables(in, out []int, pads []kernels.Pad, mode kernels.Mode) (rows, cols []uint32) {
	const none = ^uint32(0)
	r := len(in)
	st := tensor.Strides(in)
	cols = make([]uint32, out[r-1])
	for c := range cols {
		if j := padMap(c, pads[r-1].Before, in[r-1], mode); j < 0 {
			cols[c] = none
		} else {
			cols[c] = uint32(j)
		}
	}
	// rows: built axis by axis, outermost first (row-major order).
	rows = []uint32{0}
	for a := 0; a < r-1; a++ {
		next := make([]uint32, 0, len(rows)*out[a])
		for _, base := range rows {
			for c := range out[a] {
				j := padMap(c, pads[a].Before, in[a], mode)
				if base == none || j < 0 {
					next = append(next, none)
				} else {
					next = append(next, base+uint32(j*st[a]))
				}
			}
		}
		rows = next
	}
	return rows, cols
}

// padForwardTables is padTables as the bytes pad.wgsl reads (rows, then
// cols) and the count of rows, kept per call shape as padTabs keeps
// pad_backward's: a loop that pads one shape builds them once (for
// f32[8,3,512,512] they are 12,900 words, most of a chained pad's host
// time). Call with d.mu held; the bytes are shared, never written.
func (d *Device) padForwardTables(in, out []int, pads []kernels.Pad, mode kernels.Mode) (rows int, tables []byte) {
	c := keptByShape(&d.padFwdTabs, fmt.Sprint(in, out, pads, mode), func() (padFwdTabled, int) {
		rt, ct := padTables(in, out, pads, mode)
		b := make([]byte, 4*(len(rt)+len(ct)))
		for i, v := range rt {
			putU32(b[4*i:], v)
		}
		for i, v := range ct {
			putU32(b[4*(len(rt)+i):], v)
		}
		return padFwdTabled{rows: len(rt), b: b}, len(rt) + len(ct)
	})
	return c.rows, c.b
}

// padFwdTabled is one call shape's forward pad tables (Device.padFwdTabs).
type padFwdTabled struct {
	rows int
	b    []byte
}

func init() { families = append(families, padLinks) }

// padLinks are the seed's pad, pad backward and masked_fill kernels per
// element width, and this project's own pad modes (fkc-wgsl-kernels).
func padLinks(d *Device) []kernels.Link {
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
			// --kernel): dispatch picks the deterministic gather
			// (padBackwardGatherLinks).
			l := kernels.Link{EntryPoint: vulkanEP + k, Runs: kernels.Variants("pad_backward", kernels.ModeForm(mode)), Impl: padBackward, Where: where}
			if dt == "f64" && d != nil {
				l.Unavailable = "needs 64-bit atomics, which wgpu does not offer"
			}
			links = append(links, l)
		}
	}
	// This project's own pad modes (kernels.PadModes): one forward section
	// each, the branch of pad.wgsl their MODE selects.
	for _, m := range kernels.OwnPadModes {
		links = append(links, wgslLink("pad_"+m.String(), kernels.Variants("pad", kernels.ModeForm(m)), pad, "pad.wgsl, pad4.wgsl (Pad, "+m.String()+" rule)"))
	}
	return links
}
