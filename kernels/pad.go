package kernels

import (
	"slices"

	"github.com/fkc-playground/fkc/tensor"
)

// The operand rules of the pad family and masked_fill, shared by the CPU and
// GPU kernels (the shape arithmetic is PadOutShape / PadBackwardInShape).

// CheckMode validates a pad mode (the CPU contract's mode_tag).
func CheckMode(op string, mode Mode) error {
	switch mode {
	case Constant, Reflect, Replicate:
		return nil
	}
	return Violatef(op, "mode_tag %d is not a pad mode (contract: mode_tag in {0 Constant, 1 Reflect, 2 Replicate})", int(mode))
}

// PadShape validates a forward pad of x (any dtype: the kernels are byte
// movers) — mode, padding, the constant mode's pre-encoded fill — and
// returns the output shape.
func PadShape(x *tensor.Tensor, mode Mode, pads []Pad, fill []byte) ([]int, error) {
	const op = "pad"
	if err := CheckOperand(op, "input", x, nil); err != nil {
		return nil, err
	}
	if err := CheckMode(op, mode); err != nil {
		return nil, err
	}
	out, err := PadOutShape(op, mode, x.Shape, pads)
	if err != nil {
		return nil, err
	}
	if mode == Constant {
		if err := CheckFill(op, fill, x.DType); err != nil {
			return nil, err
		}
	}
	return out, CheckOutShape(op, out)
}

// PadBackwardShape validates a pad backward and returns grad_in's shape.
// dtypes is the grad_out dtype set of the serving contract: floats for the
// accumulating kernels, nil (any width) for the Vulkan constant backward,
// which is a byte-copy gather.
func PadBackwardShape(g *tensor.Tensor, mode Mode, pads []Pad, dtypes []tensor.DType) ([]int, error) {
	const op = "pad_backward"
	if err := CheckOperand(op, "grad_out", g, dtypes); err != nil {
		return nil, err
	}
	if err := CheckMode(op, mode); err != nil {
		return nil, err
	}
	return PadBackwardInShape(op, mode, g.Shape, pads)
}

// CheckMaskedFill: mask BOOL with exactly x's shape (no broadcasting), fill
// one pre-encoded element of x's dtype.
func CheckMaskedFill(x, mask *tensor.Tensor, fill []byte) error {
	const op = "masked_fill"
	if err := CheckOperand(op, "input", x, nil); err != nil {
		return err
	}
	if err := CheckOperand(op, "mask", mask, []tensor.DType{tensor.BOOL}); err != nil {
		return err
	}
	if !slices.Equal(x.Shape, mask.Shape) {
		return Violatef(op, "mask shape %v differs from input shape %v (contract: mask same_as=input, no broadcasting)", mask.Shape, x.Shape)
	}
	return CheckFill(op, fill, x.DType)
}

// ReduceMaxToBackwardShape: x and upstream floats of one dtype, the target
// aligned to x (AlignTarget), upstream of exactly the target shape. It
// returns the left-padded target.
func ReduceMaxToBackwardShape(x, upstream *tensor.Tensor, target []int) ([]int, error) {
	const op = "reduce_max_to_backward"
	if err := CheckOperand(op, "x", x, FloatDTypes); err != nil {
		return nil, err
	}
	if err := CheckOperand(op, "upstream", upstream, FloatDTypes); err != nil {
		return nil, err
	}
	if err := CheckSameDType(op, "x", x, "upstream", upstream); err != nil {
		return nil, err
	}
	al, err := AlignTarget(op, x.Shape, target)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(upstream.Shape, target) {
		return nil, Violatef(op, "upstream shape %v differs from the target shape %v (contract: upstream same_as=out_shape)", upstream.Shape, target)
	}
	return al, nil
}
