// Package ops is the op table: one descriptor per `fkc run` op (SPEC §5)
// saying everything the project knows about that op — its operands, its
// typed flags and their one parser, its variants, its output shape rule,
// its oracle (the CPU reference walk), a random valid case, its default
// Try-it case, its provenance trace, its cost-formula symbols and its
// explanation for the page. One file per op family (pad.go, maskedfill.go,
// reduce.go, index.go); Table lists them.
//
// The CLI's flag parsing and --help, dispatch (package engine), `fkc
// verify` and the registry walks (package verify), `fkc bench` and the
// playground all iterate this table: adding an op touches its contracts and
// one family file per layer (docs/adding-an-op.md lists them), and nothing
// else.
package ops

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Op describes one op.
type Op struct {
	Name    string // the `fkc run` name: "pad", "sum", "gather", …
	Summary string // one line for --help and the catalog
	Explain string // a paragraph for the kernel page (markdown)
	Inputs  []Operand
	Flags   []Use
	// Forms lists the op's variants (the pad modes; all elements vs one
	// axis); nil means the op has one form.
	Forms []kernels.Form
	// FormOf says which form a call with these params takes (nil: FormOnly).
	FormOf func(p *kernels.Params) kernels.Form
	// Check refuses flag combinations the op does not take (a usage error);
	// given reports whether the user gave a flag. May be nil.
	Check func(p *kernels.Params, given func(name string) bool) error
	// Out validates the operands by the op's shape rules and returns the
	// output's shape and dtype — before anything is allocated, so that
	// sizes are checked first (SPEC §4).
	Out func(c *kernels.Call) ([]int, tensor.DType, error)
	// Oracle is the CPU reference walk, the code that reads like the
	// contract's prose: every backend's result is compared with it.
	Oracle kernels.Impl
	// Tolerance says how a backend's result must compare with the oracle.
	Tolerance func(f kernels.Form) Tolerance
	// Terms names the op whose oracle, run on all-ones inputs, counts the
	// terms of each output (the tolerance of a sum grows with them); ""
	// is this op. A mean's terms are its sum's.
	Terms string
	// Random builds a valid random call of one form on dtype dt, of rank
	// at most maxRank (fkc verify, the registry walks).
	Random func(rng *rand.Rand, f kernels.Form, dt tensor.DType, maxRank int) *kernels.Call
	// Sized builds a valid call of form f on dtype dt whose first operand
	// has about n elements (never fewer than the op needs), in the standard
	// benchmark layout: a [r, c] matrix near square, reduced or indexed
	// along its contiguous axis where the op takes a dim. Its inputs are
	// filled fast (a random block, tiled), so the Judge's sweeps can build
	// calls of hundreds of megabytes.
	Sized func(rng *rand.Rand, f kernels.Form, dt tensor.DType, n int) *kernels.Call
	// CPUOnly, when set, says why the op has no GPU kernel (every other op
	// has one on Vulkan and WebGPU; a test holds the table to that).
	CPUOnly string
	// Bench lists the op's standard `fkc bench` cases (package bench runs
	// every op's in table order).
	Bench []Bench
	// Example is the small, readable Try-it case a kernel page opens with:
	// shapes that fit on screen, values easy to follow, params that satisfy
	// the contract; one generator per operand (DefaultCase wraps it).
	Example func(f kernels.Form, dt tensor.DType) (*kernels.Call, []Gen)
	// Trace says where every output element of a call came from.
	Trace func(run Runner, c *kernels.Call) (*Trace, error)
	// Symbols adds the op's own cost-formula symbols (CostSymbols sets the
	// common ones); may be nil.
	Symbols func(c *kernels.Call, out []int, s map[string]float64)
}

// Bench is one standard `fkc bench` case of an op: the call Sized builds
// for Form on F32 with about N elements (the layout the Judge sweeps), or,
// for a case compared with other libraries on a layout Sized does not make
// (an image batch, fewer rows picked than the table has), the call Call
// builds.
type Bench struct {
	Name string // as `fkc bench` prints it: "sum_dim 1 f32[4096,4096]"
	Form kernels.Form
	N    int
	Call func(rng *rand.Rand) *kernels.Call
	// Kernel, when set, is the kernel (PROVIDER/NAME) that serves the case
	// instead of dispatch's choice; the case runs only on its backend.
	Kernel string
}

// withBench sets an op's bench cases (for ops built by a helper).
func withBench(o *Op, b ...Bench) *Op {
	o.Bench = b
	return o
}

// Operand is one input of an op, in `fkc run` order.
type Operand struct {
	Name string // "x", "mask", "indices", …
	Role string // what it is, for --help and the page
	// DTypes, when set, restricts the operand's dtype whatever binding
	// serves the call: embedding's table is float-only even where a U32
	// index_select binding serves it on the GPU.
	DTypes []tensor.DType
	// Fixed is the dtype of an operand that does not follow the data's
	// (U32 indices, a BOOL mask); Invalid for one that does.
	Fixed tensor.DType
	// Bound, for an index operand, is the exclusive limit of its values
	// and the contract's name for it ("data.shape[dim]"), read from a call
	// whose shapes Out accepted: I32 and I64 indices are checked against
	// it and converted to U32 (Resolve).
	Bound func(c *kernels.Call) (int, string)
}

// Tolerance is how a backend's result must compare with the oracle.
type Tolerance uint8

const (
	// Bitwise: pure data movement and exact extrema, bit for bit.
	Bitwise Tolerance = iota
	// AnyOrder: a sum a backend may order differently (a tree, atomics),
	// accumulating in at least f32 (halves) or the element dtype.
	AnyOrder
	// AnyOrderF32: likewise, accumulating in f32 whatever the element
	// dtype (the GPU sums), narrowed once.
	AnyOrderF32
)

func always(t Tolerance) func(kernels.Form) Tolerance {
	return func(kernels.Form) Tolerance { return t }
}

// Table lists every op in SPEC §5 order: each family file lists its own.
var Table = slices.Concat(padFamily, maskedFillFamily, reduceFamily, indexFamily)

// Lookup finds an op by name.
func Lookup(name string) (*Op, bool) {
	for _, o := range Table {
		if o.Name == name {
			return o, true
		}
	}
	return nil, false
}

// Get finds an op by name or says which ops exist (a usage error).
func Get(name string) (*Op, error) {
	if o, ok := Lookup(name); ok {
		return o, nil
	}
	names := make([]string, len(Table))
	for i, o := range Table {
		names[i] = o.Name
	}
	return nil, kernels.Usagef("unknown op %q (known: %s)", name, strings.Join(names, ", "))
}

// InputNames lists the operand names in order.
func (o *Op) InputNames() []string {
	n := make([]string, len(o.Inputs))
	for i, in := range o.Inputs {
		n[i] = in.Name
	}
	return n
}

// Primary is the call's first operand (whose dtype picks the binding).
func (o *Op) Primary(c *kernels.Call) *tensor.Tensor { return c.Inputs[o.Inputs[0].Name] }

// Variants lists the op's variants.
func (o *Op) Variants() []kernels.Variant { return kernels.Variants(o.Name, o.Forms...) }

// Variant is the variant a call of this op takes.
func (o *Op) Variant(p *kernels.Params) kernels.Variant {
	if o.FormOf == nil {
		return kernels.Variant{Op: o.Name}
	}
	return kernels.Variant{Op: o.Name, Form: o.FormOf(p)}
}

// Oracle runs the CPU reference walk of any call's op (a Runner), on the
// call resolved as the engine resolves it (Resolve).
func Oracle(c *kernels.Call) (*tensor.Tensor, error) {
	o, err := Of(c)
	if err != nil {
		return nil, err
	}
	rc, _, err := o.Resolve(c)
	if err != nil {
		return nil, err
	}
	return o.Oracle(rc)
}

// Of returns the descriptor of a call's op.
func Of(c *kernels.Call) (*Op, error) { return Get(c.Op) }

// CheckInputs checks that a call has exactly the op's operands
// (CheckInputNames), and that each has a dtype the op itself allows
// (Operand.DTypes).
func (o *Op) CheckInputs(c *kernels.Call) error {
	names := make([]string, 0, len(c.Inputs))
	for name := range c.Inputs {
		names = append(names, name)
	}
	if err := o.CheckInputNames(names); err != nil {
		return err
	}
	for _, in := range o.Inputs {
		t := c.Inputs[in.Name]
		if t == nil { // a Go caller's nil tensor under the name
			return o.needs(in.Name)
		}
		// a Go caller's tensor built by hand, or one given back with
		// Release: its bytes must be its shape's, before a kernel reads them
		// (a device tensor's are, while it can be read)
		if err := t.CheckAnywhere(); err != nil {
			return kernels.Usagef("%s: input %s: %v", o.Name, in.Name, err)
		}
		if in.DTypes != nil && !hasDType(in.DTypes, t.DType) {
			return kernels.Violatef(o.Name, "%s has dtype %s (contract: %s dtypes %s)", in.Name, t.DType, in.Name, kernels.FormatDTypes(in.DTypes))
		}
	}
	return nil
}

// CheckInputNames checks operand names before any is read (fkc run opens
// its -i files after it): a name the op does not have is reported first
// (in name order), before a missing one — '-i y=…' for pad's x was
// reported as "needs input x", without the y; and a file for an operand
// the op does not have was read (a FIFO hung) before it was refused.
func (o *Op) CheckInputNames(names []string) error {
	names = slices.Sorted(slices.Values(names))
	for _, name := range names {
		if !hasName(o.Inputs, name) {
			return kernels.Usagef("%s has no input %q; its inputs: %s", o.Name, name, strings.Join(o.InputNames(), ", "))
		}
	}
	for _, in := range o.Inputs {
		if !slices.Contains(names, in.Name) {
			return o.needs(in.Name)
		}
	}
	return nil
}

// needs is the error for a missing operand.
func (o *Op) needs(name string) error {
	return kernels.Usagef("%s needs input %s (-i %s=FILE.npy); its inputs: %s", o.Name, name, name, strings.Join(o.InputNames(), ", "))
}

// Accepts reports whether the op allows dt as its primary operand's dtype.
func (o *Op) Accepts(dt tensor.DType) bool {
	ds := o.Inputs[0].DTypes
	return ds == nil || hasDType(ds, dt)
}

// Command is the command line that reaches a variant: "fkc run pad --mode
// reflect", "fkc run sum (no --dim)", "fkc run sum --dim D".
func Command(v kernels.Variant) string {
	switch v.Form {
	case kernels.FormOnly:
		return "fkc run " + v.Op
	case kernels.FormAll:
		return "fkc run " + v.Op + " (no --dim)"
	case kernels.FormDim:
		return "fkc run " + v.Op + " --dim D"
	}
	return "fkc run " + v.Op + " --mode " + v.Form.String()
}

// CostSymbols are the values of the contracts' cost-formula symbols for a
// call whose output has shape out: n, n_in, in_elem(s), n_out, out_elem(s),
// dtype_bytes, and the op's own (index family: base_n, src_n, data_n, m,
// ids_len, v, d).
func CostSymbols(c *kernels.Call, out []int) (map[string]float64, error) {
	o, err := Of(c)
	if err != nil {
		return nil, err
	}
	x := o.Primary(c)
	if x == nil {
		return nil, fmt.Errorf("%s: no input %s", o.Name, o.Inputs[0].Name)
	}
	nx, no := float64(x.NumElems()), float64(tensor.NumElems(out))
	s := map[string]float64{"dtype_bytes": float64(x.DType.Size()), "n": nx}
	for _, k := range []string{"n_in", "in_elem", "in_elems"} {
		s[k] = nx
	}
	for _, k := range []string{"n_out", "out_elem", "out_elems"} {
		s[k] = no
	}
	if o.Symbols != nil {
		o.Symbols(c, out, s)
	}
	return s, nil
}

func hasDType(set []tensor.DType, d tensor.DType) bool {
	for _, s := range set {
		if s == d {
			return true
		}
	}
	return false
}

func hasName(ins []Operand, name string) bool {
	for _, in := range ins {
		if in.Name == name {
			return true
		}
	}
	return false
}
