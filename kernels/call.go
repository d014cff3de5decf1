package kernels

import (
	"fmt"
	"math"

	"github.com/fkc-playground/fkc/tensor"
)

// Params are an op's typed parameters — what `fkc run`'s flags say, after
// parsing. Each op reads the fields its descriptor (package ops) lists and
// leaves the others at their zero value.
type Params struct {
	Mode    Mode          // pad, pad_backward
	Padding []Pad         // pad, pad_backward: (before, after) per axis
	Fill    tensor.Scalar // pad (constant mode), masked_fill
	Dim     int           // the axis; NoDim when absent (a reduction over all elements)
	Shape   []int         // reduce_*_to: the target shape
}

// NoDim is Params.Dim when no dim is given (a reduction over every
// element). Any other negative dim counts from the end, as in NumPy and
// PyTorch (-1 is the last axis): the op resolves it against its operand's
// rank once, before a kernel runs (ops.Op.Resolve), so kernels see
// 0 ≤ dim < rank only.
const NoDim = math.MinInt

// Call is one kernel invocation: the op, its operands by name (x, mask,
// data, indices, …) and its parameters.
type Call struct {
	Op     string
	Inputs map[string]*tensor.Tensor
	Params
	// Out, when set, is the caller's tensor for the result (engine.RunInto
	// checks its shape and dtype and that no input shares its bytes): an
	// implementation that can writes the result there and returns it; one
	// that returns another tensor has it copied in by the engine.
	Out *tensor.Tensor
}

// In returns the operand called name (nil when absent).
func (c *Call) In(name string) *tensor.Tensor { return c.Inputs[name] }

// FillFor encodes the call's fill value for elements of dt, range-checked:
// an integer fill is exact, one out of the dtype's range is an error.
func (c *Call) FillFor(dt tensor.DType) ([]byte, error) {
	b, err := c.Fill.Encode(dt)
	if err != nil {
		return nil, Violatef(c.Op, "fill value: %v", err)
	}
	return b, nil
}

// Form tells apart the variants of one op: the pad modes, and a reduction
// over all elements versus along one axis. Ops with a single form use FormOnly.
type Form uint8

const (
	FormOnly Form = iota // the op has one form
	FormAll              // a reduction over every element (no --dim): sum_all
	FormDim              // a reduction along --dim: sum_dim
	formPad              // the pad modes follow: ModeForm(m) = formPad + m
)

// The seed pad modes' forms (ModeForm gives any mode's).
const (
	FormConstant  = formPad + Form(Constant)
	FormReflect   = formPad + Form(Reflect)
	FormReplicate = formPad + Form(Replicate)
)

func (f Form) String() string {
	switch f {
	case FormOnly:
		return ""
	case FormAll:
		return "all"
	case FormDim:
		return "dim"
	}
	if m, ok := f.PadMode(); ok {
		return m.String()
	}
	return fmt.Sprintf("form(%d)", int(f))
}

// ModeForm is the form of a pad mode.
func ModeForm(m Mode) Form { return formPad + Form(m) }

// PadMode is the pad mode of a pad form; ok is false for any other form.
func (f Form) PadMode() (Mode, bool) {
	m := Mode(f) - Mode(formPad)
	return m, f >= formPad && m.valid()
}

// Mode is the pad mode of a pad form (Constant for any other form).
func (f Form) Mode() Mode {
	m, _ := f.PadMode()
	if !m.valid() {
		return Constant
	}
	return m
}

// Variant is one form of one op: what a link serves and what dispatch
// matches, e.g. {pad, FormReflect} or {sum, FormAll}.
type Variant struct {
	Op   string
	Form Form
}

// String is the display spelling: "pad/reflect", "sum/all", "gather".
func (v Variant) String() string {
	if v.Form == FormOnly {
		return v.Op
	}
	return v.Op + "/" + v.Form.String()
}

// Impl runs one linked kernel implementation on a call.
type Impl func(c *Call) (*tensor.Tensor, error)

// Link ties a contract entry_point to an implementation in this project.
// The CPU links (kernels/cpu.Links) and the GPU links (kernels/gpu.Links)
// are two tables of these.
type Link struct {
	EntryPoint string
	// Serves lists the variants dispatch picks this entry point for; it
	// tells apart bindings that share a registry key (DuplicateKernelRef).
	Serves []Variant
	// Runs lists the variants that exercise an entry point that is no
	// dispatch target (argindex_dim, the describe-only pad branches), when
	// its binding is run directly from its kernel page. Empty: Serves.
	Runs []Variant
	Impl Impl
	// Where names the implementation for docs ("kernels/cpu.Pad").
	Where string
	// OwnOrder: the kernel adds in an order of its own contract, not the
	// oracle's (sum_all_blocked), so fkc verify checks it within the
	// any-order bound instead of bit for bit, even on the CPU.
	OwnOrder bool
	// Unavailable, when set, says why this device cannot run the kernel
	// (a missing feature: "needs 64-bit atomics"); its Impl answers with a
	// *Unavailable error. Empty for runnable links and device-less tables.
	Unavailable string
}

// Exercised is the variants that run this link: Runs, else Serves.
func (l Link) Exercised() []Variant {
	if len(l.Runs) > 0 {
		return l.Runs
	}
	return l.Serves
}

// Variants builds the variants of op for the given forms.
func Variants(op string, forms ...Form) []Variant {
	if len(forms) == 0 {
		return []Variant{{Op: op}}
	}
	out := make([]Variant, len(forms))
	for i, f := range forms {
		out[i] = Variant{Op: op, Form: f}
	}
	return out
}

// PadForms are the pad modes as forms, in Mode order.
var PadForms = padForms(func(*PadMode) bool { return true })

// SeedPadForms are the seed contracts' pad modes as forms; OwnPadModes
// lists the modes this project's own contracts serve.
var (
	SeedPadForms = padForms(func(pm *PadMode) bool { return !pm.Own })
	OwnPadModes  = func() (own []Mode) {
		for _, pm := range PadModes {
			if pm.Own {
				own = append(own, pm.Mode)
			}
		}
		return own
	}()
)

func padForms(keep func(*PadMode) bool) []Form {
	var fs []Form
	for i := range PadModes {
		if keep(&PadModes[i]) {
			fs = append(fs, ModeForm(PadModes[i].Mode))
		}
	}
	return fs
}

// Recording is a batch of calls that a device records into one submission
// (kernels/gpu.Device.Record): its links run a call by recording it, and
// the result stays in the device's memory (tensor.OnStorage); Submit runs
// the batch and reports the first call that failed; Discard drops it.
type Recording interface {
	Links() []Link
	Submit() error
	Discard()
}
