// Package kernels holds what the CPU and GPU implementations share: the pad
// modes, the shape rules of SPEC §4, and the contract-violation errors, so
// that both backends reject the same input with the same words.
package kernels

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Violation is a contract violation: bad user input that a kernel's
// contract forbids. Its message names the violated constraint.
type Violation struct {
	Op  string // "pad", "gather", …
	Msg string
	// Constraint is the contract's words the message cites, "before <=
	// in_shape[i]-1 AND …" ("" when it cites none): a page marks them in
	// the contract's tables.
	Constraint string
}

func (v *Violation) Error() string { return v.Op + ": " + v.Msg }

// Violatef builds a Violation. By this package's convention a message
// cites the contract as "(contract: WORDS)"; Violatef keeps WORDS as the
// Constraint, so no caller has to read them back out of the text.
func Violatef(op, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	v := &Violation{Op: op, Msg: msg}
	if _, rest, ok := strings.Cut(msg, "(contract: "); ok {
		if words, _, ok := strings.Cut(rest, ")"); ok {
			v.Constraint = strings.TrimSpace(words)
		}
	}
	return v
}

// Pad is one axis's (before, after) padding.
type Pad struct{ Before, After int }

// PadOutShape validates a forward pad and returns the output shape
// (out_shape[i] = in_shape[i] + before + after). It enforces every
// precondition the contracts state, before any work:
//   - len(padding) == rank ("padding: len == in_shape.len()"),
//   - before, after >= 0,
//   - the mode's own rule (PadMode.Check): reflect's before, after <= n-1,
//     and no padded empty axis where there is no element to repeat.
func PadOutShape(op string, mode Mode, in []int, pads []Pad) ([]int, error) {
	if err := CheckMode(op, mode); err != nil {
		return nil, err
	}
	if len(pads) != len(in) {
		return nil, Violatef(op, "padding has %d axes but the input has rank %d (contract: padding len == in_shape.len())", len(pads), len(in))
	}
	out := make([]int, len(in))
	for i, p := range pads {
		n := in[i]
		if n < 0 {
			return nil, Violatef(op, "axis %d: input size %d is negative", i, n)
		}
		if p.Before < 0 || p.After < 0 {
			return nil, Violatef(op, "axis %d: padding (%d, %d) is negative (contract: before, after >= 0)", i, p.Before, p.After)
		}
		if check := ModeOf(mode).Check; check != nil {
			if err := check(op, i, n, p); err != nil {
				return nil, err
			}
		}
		size, ok := addSizes(n, p.Before, p.After)
		if !ok {
			return nil, Violatef(op, "axis %d: output size %d + %d + %d = %s exceeds the largest size %d (contract: out_shape[i] = in_shape[i] + before + after)", i, n, p.Before, p.After, exactSum(n, p.Before, p.After), math.MaxInt)
		}
		out[i] = size
	}
	return out, nil
}

// addSizes adds non-negative sizes, reporting false instead of wrapping
// when the sum exceeds the int range: a pad width is user input, and a
// wrapped sum (3 + (2^63-1) + (2^63-2) = 0) would pass every later check.
func addSizes(a int, rest ...int) (int, bool) {
	for _, b := range rest {
		if b > math.MaxInt-a {
			return 0, false
		}
		a += b
	}
	return a, true
}

// exactSum renders the true (unwrapped) sum for an error message.
func exactSum(xs ...int) string {
	s := new(big.Int)
	for _, x := range xs {
		s.Add(s, big.NewInt(int64(x)))
	}
	return s.String()
}

// PadBackwardInShape derives grad_in's shape from grad_out's shape and the
// padding (in_shape[i] = out_shape[i] - before - after), then checks that the
// forward pad from that shape was valid.
func PadBackwardInShape(op string, mode Mode, out []int, pads []Pad) ([]int, error) {
	if len(pads) != len(out) {
		return nil, Violatef(op, "padding has %d axes but grad_out has rank %d (contract: padding len == in_shape.len())", len(pads), len(out))
	}
	in := make([]int, len(out))
	for i, p := range pads {
		if p.Before < 0 || p.After < 0 {
			return nil, Violatef(op, "axis %d: padding (%d, %d) is negative (contract: before, after >= 0)", i, p.Before, p.After)
		}
		// Subtract without wrapping: out - before - after with both pads
		// near 2^63 wraps back into range (3 - (2^63-1) - (2^63-2) = 6).
		if p.Before > out[i] || p.After > out[i]-p.Before {
			return nil, Violatef(op, "axis %d: grad_out size %d is smaller than its padding %d+%d (contract: out_shape[i] == in_shape[i] + before + after)", i, out[i], p.Before, p.After)
		}
		in[i] = out[i] - p.Before - p.After
	}
	if _, err := PadOutShape(op, mode, in, pads); err != nil {
		return nil, err
	}
	return in, nil
}

// CheckDim validates a dim against a rank.
func CheckDim(op, operand string, dim, rank int) error {
	if dim < 0 || dim >= rank {
		return Violatef(op, "dim %d is out of range for %s of rank %d (contract: dim < %s.rank)", dim, operand, rank, operand)
	}
	return nil
}

// ResolveDim reads a dim as NumPy and PyTorch do: -rank ≤ dim < rank, a
// negative one counting from the end (-1 is the last axis). It returns the
// axis, 0 ≤ axis < rank, or an error naming the valid range.
func ResolveDim(op, operand string, dim, rank int) (int, error) {
	if dim >= -rank && dim < rank {
		if dim < 0 {
			dim += rank
		}
		return dim, nil
	}
	if rank == 0 {
		return 0, Violatef(op, "dim %d is out of range for %s of rank 0, which has no axis (contract: dim < %s.rank)", dim, operand, operand)
	}
	return 0, Violatef(op, "dim %d is out of range for %s of rank %d (%d ≤ dim < %d) (contract: dim < %s.rank)", dim, operand, rank, -rank, rank, operand)
}

// DropDim returns shape without axis dim (reductions remove the axis).
func DropDim(shape []int, dim int) []int {
	out := make([]int, 0, len(shape))
	out = append(out, shape[:dim]...)
	return append(out, shape[dim+1:]...)
}

// AlignTarget left-pads target with 1s to the rank of in and checks that every
// axis equals the input's size or 1 (reduce_sum_to / reduce_max_to).
func AlignTarget(op string, in, target []int) ([]int, error) {
	if len(target) > len(in) {
		return nil, Violatef(op, "target shape %v has rank %d > input rank %d (contract: rank <= input rank)", target, len(target), len(in))
	}
	al := make([]int, len(in))
	off := len(in) - len(target)
	for i := range al {
		al[i] = 1
		if i >= off {
			al[i] = target[i-off]
		}
		if al[i] != in[i] && al[i] != 1 {
			return nil, Violatef(op, "target shape %v: axis %d (left-padded with 1s to rank %d) is %d but the input has %d (contract: each axis == input size OR 1)", target, i, len(in), al[i], in[i])
		}
	}
	return al, nil
}

// IndexOutOfRange is the error every index kernel returns for a bad index,
// on the CPU and (through an error-flag buffer) on the GPU alike. pos is the
// flat position in an index operand of the given shape; it is shown as
// coordinates ("indices[1,0]") when the operand has rank 2 or more. value is
// the index as given: a negative one comes from I32/I64 indices
// (IndicesToU32), and does not count from the end as a NumPy index would.
func IndexOutOfRange(op, operand string, shape []int, pos int, value int64, bound int, limitName string) error {
	why := ""
	if value < 0 {
		why = ": a negative index does not count from the end here"
	}
	return Violatef(op, "%s%s = %d is out of range (contract: %s < %s = %d)%s", operand, position(shape, pos), value, operand, limitName, bound, why)
}

// position renders flat position pos of a row-major shape as [i] or [i,j,…].
func position(shape []int, pos int) string {
	if len(shape) <= 1 {
		return fmt.Sprintf("[%d]", pos)
	}
	c := make([]string, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		n := max(shape[a], 1)
		c[a] = fmt.Sprint(pos % n)
		pos /= n
	}
	return "[" + strings.Join(c, ",") + "]"
}
