package ops

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// The pad family: pad and pad_backward (SPEC §4).

var padFamily = []*Op{padOp, padBackwardOp}

var padOp = &Op{
	Name:    "pad",
	Summary: "forward pad: " + strings.Join(kernels.ModeNames(), "|"),
	Explain: padExplain(),
	Inputs:  []Operand{{Name: "x", Role: "the tensor to pad (any dtype: the kernels move bytes)"}},
	Flags: []Use{{Flag: ModeFlag, Required: true}, {Flag: PaddingFlag, Required: true},
		{Flag: ValueFlag, Note: "constant mode only; default 0"}},
	Forms:  kernels.PadForms,
	FormOf: func(p *kernels.Params) kernels.Form { return kernels.ModeForm(p.Mode) },
	Check: func(p *kernels.Params, given func(string) bool) error {
		if given("value") && p.Mode != kernels.Constant {
			return kernels.Usagef("pad: --value is only meaningful with --mode constant")
		}
		return nil
	},
	Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
		x := c.In("x")
		fill, err := padFill(c)
		if err != nil {
			return nil, 0, err
		}
		shape, err := kernels.PadShape(x, c.Mode, c.Padding, fill)
		return shape, x.DType, err
	},
	Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
		fill, err := padFill(c)
		if err != nil {
			return nil, err
		}
		return cpu.PadRef(c.In("x"), c.Mode, c.Padding, fill)
	},
	Tolerance: always(Bitwise),
	Random: func(rng *rand.Rand, f kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
		c, in := padCall("pad", rng, f, maxRank)
		c.Inputs = map[string]*tensor.Tensor{"x": RandTensor(rng, dt, in)}
		if c.Mode == kernels.Constant {
			c.Fill = randFill(rng, dt)
		}
		return c
	},
	Sized: func(rng *rand.Rand, f kernels.Form, dt tensor.DType, n int) *kernels.Call {
		r, c := grid(n, 2)
		return Pad(TiledTensor(rng, dt, []int{r, c}), f.Mode(), sizedPads(r, c)...)
	},
	Example: func(f kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
		c := &kernels.Call{Op: "pad", Params: kernels.Params{Mode: f.Mode(), Padding: pads2x2, Dim: kernels.NoDim}}
		return c, []Gen{arangeGen("4,5", dt)}
	},
	Trace: tracePad,
	Bench: padBench("pad"),
}

var padBackwardOp = &Op{
	Name:    "pad_backward",
	Summary: "pad gradient; input shape derived from grad_out and the padding",
	Explain: "The gradient of pad: every grad_out cell flows back to the input cell it was copied from, " +
		"so a reflected or replicated input cell gathers several gradients. grad_in's shape is grad_out's " +
		"minus the padding.",
	Inputs: []Operand{{Name: "grad_out", Role: "the gradient of pad's output"}},
	Flags:  []Use{{Flag: ModeFlag, Required: true}, {Flag: PaddingFlag, Required: true}},
	Forms:  kernels.PadForms,
	FormOf: func(p *kernels.Params) kernels.Form { return kernels.ModeForm(p.Mode) },
	Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
		g := c.In("grad_out")
		shape, err := kernels.PadBackwardShape(g, c.Mode, c.Padding, nil)
		return shape, g.DType, err
	},
	Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
		if g := c.In("grad_out"); c.Mode == kernels.Constant && g != nil && !g.DType.IsFloat() {
			// The Vulkan constant backward is a byte-width gather that
			// also takes integer dtypes; its oracle is the crop it is.
			return cropInterior(g, c.Padding)
		}
		return cpu.PadBackwardRef(c.In("grad_out"), c.Mode, c.Padding)
	},
	Tolerance: func(f kernels.Form) Tolerance {
		if f == kernels.FormConstant {
			return Bitwise // a crop: each grad_in cell has one source
		}
		return AnyOrder
	},
	Random: func(rng *rand.Rand, f kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
		c, in := padCall("pad_backward", rng, f, maxRank)
		out, _ := kernels.PadOutShape("pad_backward", c.Mode, in, c.Padding)
		c.Inputs = map[string]*tensor.Tensor{"grad_out": RandTensor(rng, dt, out)}
		return c
	},
	Sized: func(rng *rand.Rand, f kernels.Form, dt tensor.DType, n int) *kernels.Call {
		r, c := grid(n, 2) // grad_in; grad_out is it padded
		pads := sizedPads(r, c)
		return PadBackward(TiledTensor(rng, dt, []int{r + 2*pads[0].Before, c + 2*pads[1].Before}), f.Mode(), pads...)
	},
	Example: func(f kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
		// grad_out of ones: grad_in then shows how many outputs fold into each input.
		c := &kernels.Call{Op: "pad_backward", Params: kernels.Params{Mode: f.Mode(), Padding: pads2x2, Dim: kernels.NoDim}}
		return c, []Gen{valuesGen("8,9", dt, "1")}
	},
	Trace: tracePadBackward,
	Bench: padBench("pad_backward"),
	Symbols: func(c *kernels.Call, out []int, s map[string]float64) {
		// The contract's symbols name the forward pass: its input is
		// grad_in (this call's output), its output grad_out.
		in, o := float64(tensor.NumElems(out)), s["n"]
		for _, k := range []string{"n_in", "in_elem", "in_elems"} {
			s[k] = in
		}
		for _, k := range []string{"n_out", "out_elem", "out_elems"} {
			s[k] = o
		}
	},
}

var pads2x2 = []kernels.Pad{{Before: 2, After: 2}, {Before: 2, After: 2}}

// sizedPads pads both axes of an [r, c] input by 2 on each side, or by as
// much as every mode allows (reflect: n−1) on an axis shorter than 3.
func sizedPads(r, c int) []kernels.Pad {
	p := func(n int) kernels.Pad {
		w := 2
		for _, pm := range kernels.PadModes {
			if pm.MaxPad != nil {
				w = min(w, pm.MaxPad(n))
			}
		}
		return kernels.Pad{Before: w, After: w}
	}
	return []kernels.Pad{p(r), p(c)}
}

// padExplain is the pad op's paragraph: each mode's sentence, from the
// mode table.
func padExplain() string {
	var b strings.Builder
	b.WriteString("Pads every axis by (before, after) cells.")
	for _, pm := range kernels.PadModes {
		fmt.Fprintf(&b, " **%s**: %s", pm.Name, pm.What)
	}
	return b.String()
}

// padFill is the constant mode's fill in x's dtype (nil for the other modes).
func padFill(c *kernels.Call) ([]byte, error) {
	x := c.In("x")
	if c.Mode != kernels.Constant || x == nil {
		return nil, nil
	}
	return c.FillFor(x.DType)
}

// padCall draws a random input shape and a padding for mode f (within the
// mode's MaxPad: reflect's n−1); the caller adds the operand.
func padCall(op string, rng *rand.Rand, f kernels.Form, maxRank int) (*kernels.Call, []int) {
	c := &kernels.Call{Op: op, Params: kernels.Params{Mode: f.Mode(), Dim: kernels.NoDim}}
	in := randShape(rng, 1, min(maxRank, 4), 1, 6)
	c.Padding = make([]kernels.Pad, len(in))
	for i, n := range in {
		lim := 3
		if mp := kernels.ModeOf(c.Mode).MaxPad; mp != nil {
			lim = min(lim, mp(n))
		}
		c.Padding[i] = kernels.Pad{Before: rng.Intn(lim + 1), After: rng.Intn(lim + 1)}
	}
	return c, in
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
		unflatten(i, in, coord)
		src := 0
		for k := range coord {
			src += (coord[k] + pads[k].Before) * gs[k]
		}
		copy(out.Data[i*es:(i+1)*es], g.Data[src*es:(src+1)*es])
	}
	return out, nil
}

func tracePad(run Runner, c *kernels.Call) (*Trace, error) {
	x := c.In("x")
	idx, shape, method, err := runOnIndices(run, c, "x", c.Mode == kernels.Constant)
	if err != nil {
		return nil, err
	}
	t := newTrace("pad", method, shape, c.Inputs)
	t.Mode = c.Mode.String()
	t.Interior = interior(c.Padding, x.Shape)
	t.InteriorOn = "out"
	pm := kernels.ModeOf(c.Mode)
	t.Explain = pm.Explain
	t.Border = pm.Border
	coord := make([]int, len(shape))
	for i, s := range idx {
		unflatten(i, shape, coord)
		switch {
		case s == -1:
			t.Role[i] = RoleFill
			continue
		case s < 0:
			t.Role[i] = RoleUnknown
			continue
		case inside(coord, t.Interior):
			t.Role[i] = RoleCopy
		default:
			t.Role[i] = pm.Role
		}
		t.add(i, Source{"x", s})
	}
	return t, nil
}

// tracePadBackward runs the forward pad on grad_in's index tensor: grad_out
// element j received grad_in element fwd[j] in the forward pass, so its
// gradient folds back into that element.
func tracePadBackward(run Runner, c *kernels.Call) (*Trace, error) {
	g := c.In("grad_out")
	inShape, err := kernels.PadBackwardInShape("pad_backward", c.Mode, g.Shape, c.Padding)
	if err != nil {
		return nil, err
	}
	fwd := &kernels.Call{Op: "pad", Params: kernels.Params{Mode: c.Mode, Padding: c.Padding, Dim: kernels.NoDim},
		Inputs: map[string]*tensor.Tensor{"x": tensor.New(tensor.U32, inShape)}}
	idx, _, method, err := runOnIndices(run, fwd, "x", c.Mode == kernels.Constant)
	if err != nil {
		return nil, err
	}
	t := newTrace("pad_backward", "the forward pad's sources, inverted (to find them, "+method+")", inShape, c.Inputs)
	t.Mode = c.Mode.String()
	t.Interior = interior(c.Padding, inShape)
	t.InteriorOn, t.FoldHeat = "in", true
	t.Explain = "Pad backward: every grad_out cell's gradient flows back to the input cell it was copied from; " +
		"the heat map on grad_in counts how many outputs fold into each cell."
	for j, s := range idx {
		if s >= 0 && s < len(t.Sources) {
			t.add(s, Source{"grad_out", j})
		}
	}
	for i, src := range t.Sources {
		switch len(src) {
		case 0:
			t.Role[i] = RoleNone
		case 1:
			t.Role[i] = RoleCopy
		default:
			t.Role[i] = RoleFold
		}
	}
	return t, nil
}

func interior(pads []kernels.Pad, in []int) [][2]int {
	r := make([][2]int, len(in))
	for i, p := range pads {
		if i < len(r) {
			r[i] = [2]int{p.Before, p.Before + in[i]}
		}
	}
	return r
}

func inside(coord []int, box [][2]int) bool {
	for a, c := range coord {
		if c < box[a][0] || c >= box[a][1] {
			return false
		}
	}
	return true
}

// Pad builds a pad call: ops.Pad(x, kernels.Reflect, kernels.Pad{2, 2}).
// Constant mode fills with 0; set Call.Fill for another value.
func Pad(x *tensor.Tensor, mode kernels.Mode, pads ...kernels.Pad) *kernels.Call {
	return &kernels.Call{Op: "pad", Inputs: map[string]*tensor.Tensor{"x": x},
		Params: kernels.Params{Mode: mode, Padding: pads, Dim: kernels.NoDim}}
}

// PadBackward builds a pad_backward call.
func PadBackward(gradOut *tensor.Tensor, mode kernels.Mode, pads ...kernels.Pad) *kernels.Call {
	return &kernels.Call{Op: "pad_backward", Inputs: map[string]*tensor.Tensor{"grad_out": gradOut},
		Params: kernels.Params{Mode: mode, Padding: pads, Dim: kernels.NoDim}}
}

// padBench: every pad mode forward on an image batch, the constant pad of
// a large matrix, and the backward of every mode that reads the input
// (constant's is a crop).
func padBench(op string) []Bench {
	pads := func(n, rank int) []kernels.Pad {
		p := make([]kernels.Pad, rank)
		p[rank-1], p[rank-2] = kernels.Pad{Before: n, After: n}, kernels.Pad{Before: n, After: n}
		return p
	}
	var b []Bench
	for _, pm := range kernels.PadModes {
		m := pm.Mode
		switch {
		case op == "pad":
			b = append(b, Bench{Name: "pad " + pm.Name + " f32[8,3,512,512] pad 2", Call: func(r *rand.Rand) *kernels.Call {
				return Pad(TiledTensor(r, tensor.F32, []int{8, 3, 512, 512}), m, pads(2, 4)...)
			}})
		case m != kernels.Constant:
			b = append(b, Bench{Name: "pad_backward " + pm.Name + " f32[8,3,516,516] pad 2", Call: func(r *rand.Rand) *kernels.Call {
				return PadBackward(TiledTensor(r, tensor.F32, []int{8, 3, 516, 516}), m, pads(2, 4)...)
			}})
		}
	}
	if op == "pad" {
		b = append(b, Bench{Name: "pad constant f32[4096,4096] pad 3", Call: func(r *rand.Rand) *kernels.Call {
			return Pad(TiledTensor(r, tensor.F32, []int{4096, 4096}), kernels.Constant, pads(3, 2)...)
		}})
	}
	return b
}
