package kernels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fkc-playground/fkc/tensor"
)

// The operand rules of the pad family and masked_fill, shared by the CPU and
// GPU kernels (the shape arithmetic is PadOutShape / PadBackwardInShape).

// Mode is a pad mode. Its number is the contracts' mode_tag (0–2 the
// seeds', from 3 this project's own) and the MODE that selects its branch
// in shaders/wgsl/pad.wgsl.
type Mode int

const (
	Constant Mode = iota
	Reflect
	Replicate
	Circular
	Symmetric
)

// PadMode is one pad mode: everything the kernels, the op table, the CLI
// and the pages know about it is here, so that adding a mode is adding an
// entry (plus its contract sections and its WGSL branch).
type PadMode struct {
	Mode Mode
	// Name is the canonical name: --mode NAME, Mode.String, the variant
	// pad/NAME and the own contracts' kernel names (pad_NAME).
	Name string
	// Aliases are other libraries' names --mode also accepts; the
	// canonical Name is what is shown back.
	Aliases []string
	// Tag spells the mode in the seed kernels' names (pad_const_b4).
	Tag string
	// Own: this project's contracts serve the mode (fkc-cpu-kernels,
	// fkc-wgsl-kernels); false: the seeds'.
	Own bool
	// Source maps j = out_coord - before on an axis of n input elements
	// to the input coordinate it reads, or -1 for the fill. It holds
	// where Check passes; the CPU kernels, the oracle, the traces and the
	// GPU host tables all take the rule from here.
	Source func(j, n int) int
	// Check refuses a padding the mode does not take on axis i of n
	// elements (nil: any).
	Check func(op string, i, n int, p Pad) error
	// MaxPad is the widest pad the mode takes on an axis of n (nil: any).
	MaxPad func(n int) int
	// MostSources bounds how many output coordinates of an axis
	// (n input elements, padded before:after) read one input coordinate.
	MostSources func(n, before, after uint64) uint64
	// The names other libraries give the rule ("—": none).
	NumPy, PyTorch, ONNX, TF string
	Rule                     string // the rule in a few words (Learn padding's names table)
	What                     string // one sentence on what the pictures show
	Explain                  string // the kernel page's sentence under a traced run
	Fold                     string // what its backward folds, in a sentence (Learn padding)
	// Role is a padding cell's role in a trace (ops.Role*).
	Role string
	// Border is how a picture marks the interior's border: "mirror"
	// (through the edge element's centre), "mirror-edge" (on the edge
	// line: the edge repeats), "clamp", "wrap", or "" (none).
	Border string
}

// PadModes lists every pad mode, in Mode order.
var PadModes = []PadMode{
	{Mode: Constant, Name: "constant", Tag: "const",
		Source: func(j, n int) int {
			if j < 0 || j >= n {
				return -1
			}
			return j
		},
		MostSources: func(n, b, a uint64) uint64 { return 1 },
		NumPy:       "constant", PyTorch: "constant", ONNX: "constant", TF: "CONSTANT",
		Rule:    "fill with a constant",
		What:    "Outside the input every cell is the fill value (0 here).",
		Explain: "Constant pad: the input is copied into the interior (boxed); every other cell gets the fill value.",
		Fold:    "Nothing folds: each input cell has its one copy.",
		Role:    "fill"},
	{Mode: Reflect, Name: "reflect", Tag: "reflect",
		Source: func(j, n int) int {
			if j < 0 {
				return -j
			}
			if j >= n {
				return 2*(n-1) - j
			}
			return j
		},
		Check: func(op string, i, n int, p Pad) error {
			if p.Before > n-1 || p.After > n-1 {
				return Violatef(op, "reflect padding (%d, %d) on axis %d exceeds in_shape[%d]-1 = %d (contract: before <= in_shape[i]-1 AND after <= in_shape[i]-1); %s",
					p.Before, p.After, i, i, n-1, reflectRemedy(i, n))
			}
			return nil
		},
		MaxPad:      func(n int) int { return n - 1 },
		MostSources: func(n, b, a uint64) uint64 { return 3 }, // the interior and one mirror each side
		NumPy:       "reflect", PyTorch: "reflect", ONNX: "reflect", TF: "REFLECT",
		Rule: "mirror about the edge, edge not repeated",
		What: "The input is mirrored about its edge element, which is not repeated: the pad on each side may be at most n − 1.",
		Explain: "Reflect pad: outside the box the input is mirrored about its edge row/column (dashed mirror lines) — " +
			"the edge itself is not repeated, so each pad must be ≤ n−1.",
		Fold: "The mirror images fold back onto the cells next to the edge.",
		Role: "mirror", Border: "mirror"},
	{Mode: Replicate, Name: "replicate", Aliases: []string{"edge"}, Tag: "replicate",
		Source: func(j, n int) int { return min(max(j, 0), n-1) },
		Check:  needsElements("replicate", "there is no edge element to replicate"),
		MostSources: func(n, b, a uint64) uint64 {
			if n == 1 {
				return 1 + b + a
			}
			return 1 + max(b, a) // the edge and its whole run of padding
		},
		NumPy: "edge", PyTorch: "replicate", ONNX: "edge", TF: "—",
		Rule:    "repeat the edge element outward",
		What:    "The edge element is repeated outward, for any width.",
		Explain: "Replicate pad: outside the box each cell repeats the nearest edge element (the clamped edge is drawn in orange); any width works.",
		Fold:    "The whole padding piles onto the edge cells.",
		Role:    "clamp", Border: "clamp"},
	{Mode: Circular, Name: "circular", Aliases: []string{"wrap"}, Tag: "circular", Own: true,
		Source: func(j, n int) int { // j mod n, non-negative
			i := j % n
			if i < 0 {
				i += n
			}
			return i
		},
		Check:       needsElements("circular", "there is no element to wrap around (contract: in_shape[i] >= 1 where padded)"),
		MostSources: periods(0),
		NumPy:       "wrap", PyTorch: "circular", ONNX: "wrap", TF: "—",
		Rule: "wrap around (periodic)",
		What: "The input repeats periodically: the cell past the last is the first again, for any width.",
		Explain: "Circular pad: outside the box the input repeats periodically, the cell after the last being the first again " +
			"(the wrap seams are drawn in green); any width works, wrapping as often as needed.",
		Fold: "Each period folds onto the input as a whole: a cell gathers one gradient per period that covers it.",
		Role: "wrap", Border: "wrap"},
	{Mode: Symmetric, Name: "symmetric", Tag: "symmetric", Own: true,
		Source: func(j, n int) int { // m = j mod 2n; m < n ? m : 2n-1-m
			k, r := j/n, j%n // j = k·n + r, 0 <= r < n: copy k, mirrored when odd
			if r < 0 {
				k, r = k-1, r+n
			}
			if k%2 != 0 {
				return n - 1 - r
			}
			return r
		},
		Check:       needsElements("symmetric", "there is no element to mirror (contract: in_shape[i] >= 1 where padded)"),
		MostSources: periods(1), // a slot is read once in each mirrored half-period, ceil(L/n)+1 bounds it
		NumPy:       "symmetric", PyTorch: "—", ONNX: "—", TF: "SYMMETRIC",
		Rule: "mirror with the edge repeated",
		What: "The input is mirrored about its border, the edge element repeated, for any width: past one mirror image the next copy runs forward again.",
		Explain: "Symmetric pad: outside the box the input is mirrored about the box's border (dashed mirror lines), " +
			"so the edge element is repeated; any width works, the copies alternating mirrored and straight.",
		Fold: "The mirror images fold back onto the cells from the edge inward, the edge cells included.",
		Role: "mirror", Border: "mirror-edge"},
}

// periods bounds the output coordinates reading one input coordinate of a
// periodic mode: one per period of n that the output's L = n+before+after
// cells span, plus extra (no sum wraps: b and a are each below 2^63).
func periods(extra uint64) func(n, b, a uint64) uint64 {
	return func(n, b, a uint64) uint64 {
		if n == 0 {
			return 1
		}
		s := b + a
		c := 1 + s/n // ceil((n + s) / n)
		if s%n != 0 {
			c++
		}
		return c + extra
	}
}

// needsElements is the rule of a mode that reads some input element for
// every padding cell: a padded empty axis is an error.
func needsElements(name, why string) func(op string, i, n int, p Pad) error {
	return func(op string, i, n int, p Pad) error {
		if n == 0 && (p.Before > 0 || p.After > 0) {
			return Violatef(op, "%s padding (%d, %d) on empty axis %d: %s", name, p.Before, p.After, i, why)
		}
		return nil
	}
}

// ModeOf is mode m's table entry; m must be a mode (CheckMode).
func ModeOf(m Mode) *PadMode { return &PadModes[m] }

func (m Mode) valid() bool { return m >= 0 && int(m) < len(PadModes) }

func (m Mode) String() string {
	if m.valid() {
		return PadModes[m].Name
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// ModeNames are the canonical names, in Mode order.
func ModeNames() []string {
	names := make([]string, len(PadModes))
	for i, pm := range PadModes {
		names[i] = pm.Name
	}
	return names
}

// ParseMode reads a mode's canonical name or one of its aliases.
func ParseMode(s string) (Mode, error) {
	for _, pm := range PadModes {
		if s == pm.Name || slices.Contains(pm.Aliases, s) {
			return pm.Mode, nil
		}
	}
	var also []string
	for _, pm := range PadModes {
		for _, a := range pm.Aliases {
			also = append(also, a+" ("+pm.Name+")")
		}
	}
	return 0, fmt.Errorf("%q is not a pad mode (want %s; also %s)", s, strings.Join(ModeNames(), ", "), strings.Join(also, ", "))
}

// CheckMode validates a pad mode (the contracts' mode_tag).
func CheckMode(op string, mode Mode) error {
	if mode.valid() {
		return nil
	}
	tags := make([]string, len(PadModes))
	for i, pm := range PadModes {
		tags[i] = fmt.Sprintf("%d %s", int(pm.Mode), strings.ToUpper(pm.Name[:1])+pm.Name[1:])
	}
	return Violatef(op, "mode_tag %d is not a pad mode (contract: mode_tag in {%s})", int(mode), strings.Join(tags, ", "))
}

// SourceIndex is the mode's source-index rule (PadMode.Source).
func (m Mode) SourceIndex(j, n int) int { return PadModes[m].Source(j, n) }

// reflectRemedy is the way out of a too-wide reflect pad: the widest that
// axis takes, or the mode that takes any width.
func reflectRemedy(axis, n int) string {
	if n == 0 {
		// replicate has no edge element to repeat here either
		return "an empty axis takes no reflect padding — --mode constant pads it with the fill value"
	}
	if n == 1 {
		return "an axis of size 1 takes no reflect padding — --mode replicate pads it to any width"
	}
	return fmt.Sprintf("the widest reflect pad on axis %d is %d:%d — for more, --mode replicate repeats the edge", axis, n-1, n-1)
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
