package ops

import (
	"math/rand"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

var maskedFillFamily = []*Op{maskedFillOp}

var maskedFillOp = &Op{
	Name:    "masked_fill",
	Summary: "out[i] = mask[i] != 0 ? value : x[i]",
	Explain: "Where the BOOL mask is true the output is the fill value; elsewhere the input is copied. " +
		"The mask has exactly the input's shape (no broadcasting), and the fill must be exact in the input's dtype.",
	Inputs: []Operand{{Name: "x", Role: "the input (any dtype)"}, {Name: "mask", Role: "BOOL, x's shape", Fixed: tensor.BOOL}},
	Flags:  []Use{{Flag: ValueFlag, Required: true}},
	Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
		x := c.In("x")
		fill, err := c.FillFor(x.DType)
		if err != nil {
			return nil, 0, err
		}
		return x.Shape, x.DType, kernels.CheckMaskedFill(x, c.In("mask"), fill)
	},
	Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
		x := c.In("x")
		fill, err := c.FillFor(x.DType)
		if err != nil {
			return nil, err
		}
		return cpu.MaskedFill(x, c.In("mask"), fill)
	},
	Tolerance: always(Bitwise),
	Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
		s := randShape(rng, 0, min(maxRank, 3), 1, 9)
		return MaskedFill(RandTensor(rng, dt, s), RandTensor(rng, tensor.BOOL, s), randFill(rng, dt))
	},
	Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
		s := []int{max(1, n)}
		return MaskedFill(TiledTensor(rng, dt, s), TiledTensor(rng, tensor.BOOL, s), randFill(rng, dt))
	},
	Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
		c := &kernels.Call{Op: "masked_fill", Params: kernels.Params{Fill: tensor.IntScalar(-1), Dim: kernels.NoDim}}
		if dt == tensor.BOOL || dt == tensor.U8 || dt == tensor.U32 {
			c.Fill = tensor.IntScalar(1)
		}
		return c, []Gen{arangeGen("4,5", dt), {Shape: "4,5", DType: "BOOL", Kind: "random", Seed: 3, Lo: 0, Hi: 1}}
	},
	Trace: func(run Runner, c *kernels.Call) (*Trace, error) {
		t, err := traceMover(run, c, "x", true)
		if err != nil {
			return nil, err
		}
		t.MarkTrue = "mask"
		t.Explain = "masked_fill: where the mask is true the output is the fill value; elsewhere the input is copied."
		return t, nil
	},
	Bench: []Bench{{Name: "masked_fill f32[16Mi]", N: 16 << 20}},
}

// MaskedFill builds a masked_fill call.
func MaskedFill(x, mask *tensor.Tensor, value tensor.Scalar) *kernels.Call {
	return &kernels.Call{Op: "masked_fill", Inputs: map[string]*tensor.Tensor{"x": x, "mask": mask},
		Params: kernels.Params{Fill: value, Dim: kernels.NoDim}}
}
