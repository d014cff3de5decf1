// Package lab is the kernel lab (docs/lab.md): a user's WGSL kernel for a
// contract kernel, run on cases derived from the contract and its op's
// descriptor, compared with the CPU oracle as the contract's precision
// says, with a verdict per case, and timed beside the built-in kernel.
//
// Everything here is pure Go — the interface's params and prelude, the
// loop-budget rewrite, the case derivation, the comparison and the
// verdicts — so the browser can run it too; the GPU work goes through a
// kernels.LabDevice (kernels/gpu.Device, natively or in the page).
package lab

import (
	"fmt"
	"math"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
)

// The interface's constants (docs/lab.md, contracts/project/fkc-lab.fkc.md).
const (
	// WG is the workgroup size: @workgroup_size(WG).
	WG = 64
	// MaxRank is the most axes Params describes.
	MaxRank = 8
	// Budget is how many loop iterations one invocation may run, all of
	// its loops together, during a check: below lavapipe's silent stop at
	// 65,535, which the plain kernels' cases stay far within.
	Budget = 1 << 15
	// Marker is every byte of the output (payload and guard words) before
	// the kernel runs: a cell still holding it was never written.
	Marker = 0xA5
)

// Params word offsets (struct Params in the prelude).
const (
	pN, pUnits, pRank, pDim, pOp, pM, pFillLo, pFillHi = 0, 1, 2, 3, 4, 5, 6, 7
	pOutShape                                          = 8
	pAShape                                            = 16
	pAStrides                                          = 24
	pBShape                                            = 32
	pBStrides                                          = 40
	pPadBefore                                         = 48
	pPadAfter                                          = 56
	pKeep                                              = 64
	pRed                                               = 72
	paramWords                                         = 80
)

// paramsStruct is struct Params as the prelude declares it.
const paramsStruct = `// The lab's params (binding K+1, read-only storage; docs/lab.md).
struct Params {
    n: u32,                        // output elements
    units: u32,                    // invocations with work: ceil(n / PER)
    rank: u32,                     // axes of the iteration space (<= 8)
    dim: u32,                      // the op's dim (NONE: every element)
    op: u32,                       // pad mode 0 constant 1 reflect 2 replicate 3 circular 4 symmetric; reduction 0 sum 1 max 2 min 3 mean 4 argmax 5 argmin
    m: u32,                        // rank-1 index operand's length; reductions: elements per output
    fill: vec2<u32>,               // the fill value's element bits (lo, hi)
    out_shape: array<u32, 8>,      // output shape (unused axes 1)
    a_shape: array<u32, 8>,        // first operand's shape
    a_strides: array<u32, 8>,      // its row-major strides, in elements
    b_shape: array<u32, 8>,        // the second tensor the op indexes (mask, indices, src, upstream)
    b_strides: array<u32, 8>,
    pad_before: array<u32, 8>,
    pad_after: array<u32, 8>,
    keep: array<u32, 8>,           // reductions: the output aligned to x's rank (reduced axes 1)
    red: array<u32, 8>,            // reductions: the reduced axes' sizes (kept axes 1)
}
`

// opCodes are Params.op for the reductions.
var opCodes = map[string]uint32{"sum": 0, "max": 1, "min": 2, "mean": 3, "argmax": 4, "argmin": 5,
	"reduce_sum_to": 0, "reduce_max_to": 1, "reduce_min_to": 2, "reduce_max_to_backward": 1}

// family is one plain kernel and the ops it serves.
type family struct {
	file string
	ops  []string
	// computes: it reads float values, not only bits (an F64 case needs
	// shader-f64 and the f64 views).
	computes bool
}

var families = []family{
	{"pad.wgsl", []string{"pad"}, false},
	{"pad_backward.wgsl", []string{"pad_backward"}, true},
	{"masked_fill.wgsl", []string{"masked_fill"}, false},
	{"reduce.wgsl", []string{"sum", "max", "min", "mean", "argmax", "argmin", "reduce_sum_to", "reduce_max_to", "reduce_min_to"}, true},
	{"reduce_max_to_backward.wgsl", []string{"reduce_max_to_backward"}, true},
	{"index_select.wgsl", []string{"index_select", "embedding"}, false},
	{"gather.wgsl", []string{"gather"}, false},
	{"index_add.wgsl", []string{"index_add"}, true},
	{"scatter_add.wgsl", []string{"scatter_add"}, true},
}

func familyOf(op string) (*family, bool) {
	for i := range families {
		for _, o := range families[i].ops {
			if o == op {
				return &families[i], true
			}
		}
	}
	return nil, false
}

// Layout is how one call meets the interface: its specialisation, its
// params and its dispatch.
type Layout struct {
	Op       *ops.Op
	Data     tensor.DType // the first operand's dtype (DT, EB)
	Out      tensor.DType // OUT_EB
	OutShape []int
	Per      int    // output elements per invocation
	Units    uint64 // invocations with work
	Params   []uint32
	F64      bool // the module carries the f64 views (F64 data, shader-f64)
}

// Plan checks a call by its op's shape rules and lays it out for the
// interface; f64 says whether the adapter has shader-f64. The call is a
// resolved one (ops.Op.Resolve: 0 <= dim < rank, U32 indices).
func Plan(c *kernels.Call, f64 bool) (*Layout, error) {
	o, err := ops.Get(c.Op)
	if err != nil {
		return nil, err
	}
	if err := o.CheckInputs(c); err != nil {
		return nil, err
	}
	fam, ok := familyOf(o.Name)
	if !ok {
		return nil, fmt.Errorf("lab: op %s has no plain kernel", o.Name)
	}
	outShape, odt, err := o.Out(c)
	if err != nil {
		return nil, err
	}
	x := o.Primary(c)
	l := &Layout{Op: o, Data: x.DType, Out: odt, OutShape: outShape, Per: max(1, 4/odt.Size())}
	if x.DType == tensor.F64 && fam.computes && x.DType.IsFloat() {
		if !f64 {
			return nil, &kernels.Unavailable{Kernel: "lab " + o.Name, Need: "shader-f64 (F64 arithmetic)"}
		}
		l.F64 = true
	}
	n := tensor.NumElems(outShape)
	l.Units = uint64((n + l.Per - 1) / l.Per)
	p := make([]uint32, paramWords)
	fits := func(what string, v int) uint32 {
		if v < 0 || v > math.MaxUint32 {
			if err == nil {
				err = kernels.Violatef(o.Name, "%s %d does not fit the lab interface's u32 words", what, v)
			}
			return 0
		}
		return uint32(v)
	}
	vec := func(at int, what string, s []int) {
		if len(s) > MaxRank && err == nil {
			err = kernels.Violatef(o.Name, "%s has rank %d; the lab interface describes at most %d axes", what, len(s), MaxRank)
			return
		}
		for i := range MaxRank {
			p[at+i] = 1
			if i < len(s) {
				p[at+i] = fits(what, s[i])
			}
		}
	}
	shape := func(at int, what string, t []int) {
		vec(at, what, t)
		vec(at+MaxRank, what+" strides", tensor.Strides(t))
	}
	p[pN] = fits("output size", n)
	p[pUnits] = fits("invocations", int(l.Units))
	p[pRank] = fits("rank", x.Rank())
	p[pDim] = math.MaxUint32
	if c.Dim >= 0 {
		p[pDim] = fits("dim", c.Dim)
	}
	vec(pOutShape, "output shape", outShape)
	shape(pAShape, o.Inputs[0].Name, x.Shape)
	fill := func() {
		b, ferr := c.FillFor(x.DType)
		if ferr != nil {
			err = ferr
			return
		}
		var w [8]byte
		copy(w[:], b)
		p[pFillLo] = uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24
		p[pFillHi] = uint32(w[4]) | uint32(w[5])<<8 | uint32(w[6])<<16 | uint32(w[7])<<24
	}
	reduced := func(keep []int) {
		red := make([]int, x.Rank())
		for a := range red {
			red[a] = 1
			if keep[a] == 1 {
				red[a] = x.Shape[a]
			}
		}
		vec(pKeep, "output", keep)
		vec(pRed, "reduced axes", red)
		p[pM] = fits("group size", tensor.NumElems(red))
	}
	switch o.Name {
	case "pad", "pad_backward":
		p[pOp] = uint32(c.Mode)
		before, after := make([]int, len(c.Padding)), make([]int, len(c.Padding))
		for i, pd := range c.Padding {
			before[i], after[i] = pd.Before, pd.After
		}
		vec(pPadBefore, "padding", before)
		vec(pPadAfter, "padding", after)
		if o.Name == "pad" && c.Mode == kernels.Constant {
			fill()
		}
	case "masked_fill":
		fill()
		shape(pBShape, "mask", c.In("mask").Shape)
	case "sum", "max", "min", "mean", "argmax", "argmin":
		p[pOp] = opCodes[o.Name]
		keep := make([]int, x.Rank())
		for a := range keep {
			keep[a] = 1
			if c.Dim >= 0 && a != c.Dim {
				keep[a] = x.Shape[a]
			}
		}
		reduced(keep)
	case "reduce_sum_to", "reduce_max_to", "reduce_min_to", "reduce_max_to_backward":
		p[pOp] = opCodes[o.Name]
		al, aerr := kernels.AlignTarget(o.Name, x.Shape, c.Shape)
		if aerr != nil {
			return nil, aerr
		}
		keep := make([]int, len(al))
		for a := range al {
			keep[a] = 1
			if al[a] != 1 {
				keep[a] = x.Shape[a]
			}
		}
		reduced(keep)
		if o.Name == "reduce_max_to_backward" {
			shape(pBShape, "upstream", al)
		}
	case "index_select", "gather":
		shape(pBShape, "indices", c.In("indices").Shape)
		p[pM] = fits("indices", c.In("indices").NumElems())
	case "embedding":
		p[pDim] = 0
		shape(pBShape, "ids", c.In("ids").Shape)
		p[pM] = fits("ids", c.In("ids").NumElems())
	case "index_add", "scatter_add":
		shape(pBShape, "src", c.In("src").Shape)
		p[pM] = fits("indices", c.In("indices").NumElems())
	}
	if err != nil {
		return nil, err
	}
	l.Params = p
	return l, nil
}

// ParamBytes is the params buffer.
func (l *Layout) ParamBytes() []byte {
	b := make([]byte, 4*len(l.Params))
	for i, v := range l.Params {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	return b
}

// Prelude is the text the lab appends to a user's module for this
// layout: the constants, struct Params, the accumulator aliases, the
// helpers of common.wgsl, the f64 views (or stand-ins) and the loop
// budget. WGSL declarations may come after their uses, so the user's line
// numbers are the module's.
func (l *Layout) Prelude() string {
	var b strings.Builder
	k := len(l.Op.Inputs)
	b.WriteString("\n// ---- the lab's prelude (appended by package lab; docs/lab.md) ----\n")
	if common, err := wgsl.Source("common.wgsl"); err == nil {
		b.WriteString(common)
	}
	fmt.Fprintf(&b, "\nconst WG: u32 = %du;\nconst EB: u32 = %du;\nconst OUT_EB: u32 = %du;\nconst PER: u32 = %du;\nconst DT: u32 = %du;\n",
		WG, l.Data.Size(), l.Out.Size(), l.Per, uint32(l.Data))
	fmt.Fprintf(&b, "const FLOAT: bool = %v;\n", l.Data.IsFloat())
	for _, d := range tensor.All {
		fmt.Fprintf(&b, "const DT_%s: u32 = %du;\n", d, uint32(d))
	}
	b.WriteString(paramsStruct)
	if l.F64 {
		b.WriteString("alias ACC = f64;\nalias F64V = f64;\n")
		for i := range k {
			fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> in_f64_%d: array<f64>;\n", k+3+i, i)
		}
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> out_f64: array<f64>;\n", 2*k+3)
	} else {
		b.WriteString("alias ACC = f32;\nalias F64V = u32;\n// no shader-f64 or no F64 data: stand-ins, so that code for F64 compiles unused\n")
		for i := range k {
			fmt.Fprintf(&b, "var<private> in_f64_%d: array<u32, 1>;\n", i)
		}
		b.WriteString("var<private> out_f64: array<u32, 1>;\n")
	}
	b.WriteString(`
// A 16-bit float's bits (F16 or BF16, as DT says) as an f32, exactly.
fn half_to_f32(h: u32) -> f32 {
    if (DT == DT_BF16) {
        return bitcast<f32>(bf16_bits_to_f32_bits(h));
    }
    return bitcast<f32>(f16_bits_to_f32_bits(h));
}

// An f32 rounded to the 16-bit float DT names (to nearest, ties to even).
fn f32_to_half(f: f32) -> u32 {
    if (DT == DT_BF16) {
        return f32_bits_to_bf16_bits(bitcast<u32>(f));
    }
    return f32_bits_to_f16_bits(bitcast<u32>(f));
}
`)
	fmt.Fprintf(&b, `
// The loop budget: the lab's rewrite puts "if (lab_tick()) { break; }" at
// the top of every loop body.
@group(0) @binding(%d) var<storage, read_write> lab_budget: array<u32, 2>;
var<private> lab_iters: u32;
fn lab_tick() -> bool {
    lab_iters = lab_iters + 1u;
    if (lab_iters > lab_budget[1]) {
        lab_budget[0] = 1u;
        return true;
    }
    return false;
}
// The tick of a loop a barrier may follow or sit in (docs/lab.md): every
// invocation of the workgroup stops together.
var<workgroup> lab_stop: u32;
fn lab_tick_uniform() -> bool {
    lab_iters = lab_iters + 1u;
    if (lab_iters > lab_budget[1]) {
        lab_budget[0] = 1u;
        lab_stop = 1u;
    }
    return workgroupUniformLoad(&lab_stop) != 0u;
}
`, k+2)
	return b.String()
}

// Views is the LabRun views the layout's module declares.
func (l *Layout) Views() []int {
	if !l.F64 {
		return nil
	}
	v := make([]int, 0, len(l.Op.Inputs)+1)
	for i := range l.Op.Inputs {
		v = append(v, i)
	}
	return append(v, -1)
}
