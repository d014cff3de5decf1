package ops

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Spec describes one `fkc run` op (SPEC §5): its inputs in order and flags.
type Spec struct {
	Name     string
	Inputs   []string
	Flags    []string // besides --backend, --dtype, -i, -o
	Variants bool     // whether Variant() splits it (pad modes, all vs dim)
	Doc      string
	// DTypes, when set, restricts the first input's dtype whatever binding
	// serves the op: embedding is float-only (the seed's `embedding` table
	// dtypes) even where a U32 index_select binding serves it on the GPU.
	DTypes []tensor.DType
}

var specs = []Spec{
	{Name: "pad", Inputs: []string{"x"}, Flags: []string{"--mode", "--padding", "--value"}, Variants: true, Doc: "forward pad: constant|reflect|replicate"},
	{Name: "pad_backward", Inputs: []string{"grad_out"}, Flags: []string{"--mode", "--padding"}, Variants: true, Doc: "pad gradient; input shape derived from grad_out and the padding"},
	{Name: "masked_fill", Inputs: []string{"x", "mask"}, Flags: []string{"--value"}, Doc: "out[i] = mask[i] != 0 ? value : x[i]"},
	{Name: "sum", Inputs: []string{"x"}, Flags: []string{"--dim"}, Variants: true, Doc: "sum of all elements (rank-0) or along --dim"},
	{Name: "max", Inputs: []string{"x"}, Flags: []string{"--dim"}, Variants: true, Doc: "max of all elements or along --dim (NaN skipped)"},
	{Name: "min", Inputs: []string{"x"}, Flags: []string{"--dim"}, Variants: true, Doc: "min of all elements or along --dim (NaN skipped)"},
	{Name: "mean", Inputs: []string{"x"}, Flags: []string{"--dim"}, Variants: true, Doc: "mean of all elements or along --dim"},
	{Name: "argmax", Inputs: []string{"x"}, Flags: []string{"--dim"}, Doc: "U32 index of the max along --dim (ties → smallest index)"},
	{Name: "argmin", Inputs: []string{"x"}, Flags: []string{"--dim"}, Doc: "U32 index of the min along --dim (ties → smallest index)"},
	{Name: "reduce_sum_to", Inputs: []string{"x"}, Flags: []string{"--shape"}, Doc: "sum-reduce to a broadcast-compatible --shape"},
	{Name: "reduce_max_to", Inputs: []string{"x"}, Flags: []string{"--shape"}, Doc: "max-reduce to a broadcast-compatible --shape"},
	{Name: "reduce_max_to_backward", Inputs: []string{"x", "upstream"}, Flags: []string{"--shape"}, Doc: "route upstream to the max positions, ties share equally"},
	{Name: "index_select", Inputs: []string{"data", "indices"}, Flags: []string{"--dim"}, Doc: "out[..k..] = data[..indices[k]..] (indices rank-1 U32)"},
	{Name: "gather", Inputs: []string{"data", "indices"}, Flags: []string{"--dim"}, Doc: "PyTorch gather: out[p] = data[p with p[dim] ← indices[p]]"},
	{Name: "index_add", Inputs: []string{"base", "indices", "src"}, Flags: []string{"--dim"}, Doc: "copy of base; out[..idx[i]..] += src[..i..]"},
	{Name: "scatter_add", Inputs: []string{"base", "indices", "src"}, Flags: []string{"--dim"}, Doc: "copy of base; out[p, dim←idx[p]] += src[p]"},
	{Name: "embedding", Inputs: []string{"table", "ids"}, Doc: "rows table[ids[i]] of a [V,D] table", DTypes: kernels.FloatDTypes},
}

// Specs lists every op `fkc run` knows, in SPEC §5 order.
func Specs() []Spec { return append([]Spec(nil), specs...) }

// SpecFor finds an op's spec.
func SpecFor(op string) (Spec, bool) {
	for _, s := range specs {
		if s.Name == op {
			return s, true
		}
	}
	return Spec{}, false
}

// UsageError marks a malformed command line (exit status 2), as opposed to a
// contract violation (exit status 1).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// ParseFlags parses an op's flags (SPEC §5 spelling) into a Call without
// inputs. Flags that the op does not take are usage errors.
func ParseFlags(op string, flags []string) (*Call, error) {
	spec, ok := SpecFor(op)
	if !ok {
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.Name
		}
		return nil, usagef("unknown op %q (known: %s)", op, strings.Join(names, ", "))
	}
	fs := flag.NewFlagSet(op, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mode := fs.String("mode", "", "pad mode")
	padding := fs.String("padding", "", "B:A per axis")
	value := fs.String("value", "", "fill value")
	dim := fs.String("dim", "", "dim")
	shape := fs.String("shape", "", "target shape")
	if err := fs.Parse(flags); err != nil {
		return nil, usagef("%s: %v", op, err)
	}
	if fs.NArg() > 0 {
		return nil, usagef("%s: unexpected argument %q", op, fs.Arg(0))
	}
	allowed := map[string]bool{}
	for _, f := range spec.Flags {
		allowed[strings.TrimPrefix(f, "--")] = true
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		if !allowed[f.Name] && bad == nil {
			bad = usagef("%s does not take --%s (its flags: %s)", op, f.Name, strings.Join(spec.Flags, " "))
		}
	})
	if bad != nil {
		return nil, bad
	}
	c := &Call{Op: op, Dim: -1}
	var err error
	switch op {
	case "pad", "pad_backward":
		if *mode == "" {
			return nil, usagef("%s needs --mode constant|reflect|replicate", op)
		}
		if c.Mode, err = kernels.ParseMode(*mode); err != nil {
			return nil, usagef("%s: %v", op, err)
		}
		if *padding == "" {
			return nil, usagef("%s needs --padding B:A,… (one pair per axis)", op)
		}
		if c.Padding, err = kernels.ParsePadding(*padding); err != nil {
			return nil, usagef("%s: %v", op, err)
		}
		if *value != "" && c.Mode != kernels.Constant {
			return nil, usagef("%s: --value is only meaningful with --mode constant", op)
		}
	case "argmax", "argmin", "index_select", "gather", "index_add", "scatter_add":
		if *dim == "" {
			return nil, usagef("%s needs --dim D", op)
		}
	case "reduce_sum_to", "reduce_max_to", "reduce_max_to_backward":
		if *shape == "" {
			return nil, usagef("%s needs --shape S (e.g. 1,4)", op)
		}
		if c.Shape, err = tensor.ParseShape(*shape); err != nil {
			return nil, usagef("%s: --shape: %v", op, err)
		}
	}
	if *value != "" {
		if _, err := fmt.Sscan(*value, &c.Value); err != nil {
			return nil, usagef("%s: --value %q is not a number", op, *value)
		}
	} else if op == "masked_fill" {
		return nil, usagef("masked_fill needs --value V")
	}
	if *dim != "" {
		if _, err := fmt.Sscan(*dim, &c.Dim); err != nil || c.Dim < 0 {
			return nil, usagef("%s: --dim %q is not a non-negative integer (dims are 0-based)", op, *dim)
		}
	}
	return c, nil
}

// Variant is the op/variant string the link table matches: "pad/reflect",
// "sum/all", "sum/dim", or the op name itself.
func (c *Call) Variant() string {
	switch c.Op {
	case "pad", "pad_backward":
		return c.Op + "/" + c.Mode.String()
	case "sum", "max", "min", "mean":
		if c.Dim < 0 {
			return c.Op + "/all"
		}
		return c.Op + "/dim"
	}
	return c.Op
}

// Flags renders the call's parameters back into `fkc run` flags (used for
// shareable URLs and for printing reproducible commands).
func (c *Call) Flags() []string {
	var f []string
	switch c.Op {
	case "pad", "pad_backward":
		f = append(f, "--mode", c.Mode.String(), "--padding", kernels.FormatPadding(c.Padding))
		if c.Op == "pad" && c.Mode == kernels.Constant && c.Value != 0 {
			f = append(f, "--value", fmt.Sprint(c.Value))
		}
	case "masked_fill":
		f = append(f, "--value", fmt.Sprint(c.Value))
	case "reduce_sum_to", "reduce_max_to", "reduce_max_to_backward":
		parts := make([]string, len(c.Shape))
		for i, d := range c.Shape {
			parts[i] = fmt.Sprint(d)
		}
		f = append(f, "--shape", strings.Join(parts, ","))
	}
	if c.Dim >= 0 {
		f = append(f, "--dim", fmt.Sprint(c.Dim))
	}
	return f
}

// checkDType applies the op's own dtype restriction (Spec.DTypes), if any.
func (s Spec) checkDType(t *tensor.Tensor) error {
	if s.DTypes == nil || t == nil {
		return nil
	}
	for _, d := range s.DTypes {
		if t.DType == d {
			return nil
		}
	}
	return kernels.Violatef(s.Name, "%s has dtype %s (contract: %s dtypes %s)", s.Inputs[0], t.DType, s.Inputs[0], kernels.FormatDTypes(s.DTypes))
}

// Accepts reports whether the op takes dt as its first input's dtype.
func (s Spec) Accepts(dt tensor.DType) bool {
	return s.checkDType(&tensor.Tensor{DType: dt}) == nil
}
