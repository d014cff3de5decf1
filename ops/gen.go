package ops

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Case is one Try-it setup: an op's flags and a generator per input. It is
// what a kernel page opens with (Op.Example) and what a shareable URL stores.
type Case struct {
	Op     string         `json:"op"`
	Flags  []string       `json:"flags"`
	Inputs map[string]Gen `json:"inputs"`
	// Order lists the input names in the op's order (SPEC §5).
	Order []string `json:"order"`
}

// DefaultCase is the op's Example for form f on dtype dt: its params
// rendered as flags (the page and the share link speak `fkc run`) and one
// generator per operand.
func (o *Op) DefaultCase(f kernels.Form, dt tensor.DType) Case {
	c, gens := o.Example(f, dt)
	c.Op = o.Name
	cs := Case{Op: o.Name, Flags: FormatFlags(c), Inputs: map[string]Gen{}, Order: o.InputNames()}
	for i, g := range gens {
		cs.Inputs[cs.Order[i]] = g
	}
	return cs
}

// Gen describes one Try-it input: a shape, a dtype and how to fill it. It
// is what a shareable URL stores, so it must reproduce the same tensor.
type Gen struct {
	Shape  string  `json:"shape"`            // "4,5"; "" is rank 0
	DType  string  `json:"dtype"`            // contract spelling: F32, U32, BOOL, …
	Kind   string  `json:"kind"`             // "arange", "random", "uniform", "values", "file"
	Seed   uint64  `json:"seed,omitempty"`   // random, uniform
	Lo     float64 `json:"lo,omitempty"`     // random (integers in [Lo, Hi]), uniform ([Lo, Hi))
	Hi     float64 `json:"hi,omitempty"`     //
	Values string  `json:"values,omitempty"` // values: "1, 2.5, nan, -inf"; repeated cyclically
	// File is the name of the .npy file a "file" input came from; Data is
	// that file's bytes, which only the page holding them has (a share
	// link names the file but cannot carry it).
	File string `json:"file,omitempty"`
	Data []byte `json:"-"`
	// Bad says which field of a form or share link did not parse (e.g.
	// `seed "abc" is not a non-negative integer`); Make refuses the
	// generator with it rather than run with a stand-in 0.
	Bad string `json:"-"`
	// Texts keeps, by key (seed, lo, hi), the text of a field that did not
	// parse, so that a share link written back carries what the user wrote
	// (and the same error) rather than the stand-in 0.
	Texts map[string]string `json:"-"`
}

// Make builds the tensor a Gen describes. Errors name the field at fault.
func (g Gen) Make() (*tensor.Tensor, error) {
	if g.Bad != "" {
		return nil, errors.New(g.Bad)
	}
	if g.Kind == "file" {
		return g.fromFile()
	}
	shape, err := tensor.ParseShape(g.Shape)
	if err != nil {
		return nil, err
	}
	if n := tensor.NumElems(shape); n > MaxTryElems {
		return nil, fmt.Errorf("shape %v has %d elements; the playground draws at most %d", shape, n, MaxTryElems)
	}
	dt, err := tensor.ParseDType(g.DType)
	if err != nil {
		return nil, err
	}
	t := tensor.New(dt, shape)
	if err := g.Fill(t); err != nil {
		return nil, err
	}
	return t, nil
}

// MaxFileBytes bounds a "file" input's .npy: MaxTryElems of the widest
// dtype and a header of the largest size the format allows.
const MaxFileBytes = MaxTryElems*8 + 1<<16

// fromFile reads a "file" input with the .npy reader `fkc run -i` uses;
// its shape and dtype are the file's, and with DType BF16 a <u2 file is
// read as bf16 bit patterns (`fkc run --dtype bf16`).
func (g Gen) fromFile() (*tensor.Tensor, error) {
	switch {
	case g.Data == nil && g.File == "":
		return nil, errors.New("file: no .npy file chosen: choose one, or drop it on the row")
	case g.Data == nil:
		return nil, fmt.Errorf("file: %s is not loaded in this page (a link names a file but cannot carry it): choose it again", g.File)
	case len(g.Data) > MaxFileBytes:
		return nil, fmt.Errorf("file %s: %d bytes; the playground reads at most %d (%d elements)", g.File, len(g.Data), MaxFileBytes, MaxTryElems)
	}
	t, err := tensor.ReadNpyBytes(g.Data, g.DType == "BF16")
	if err != nil {
		return nil, fmt.Errorf("file %s: %v", g.File, err)
	}
	if n := t.NumElems(); n > MaxTryElems {
		return nil, fmt.Errorf("file %s: shape %v has %d elements; the playground draws at most %d", g.File, t.Shape, n, MaxTryElems)
	}
	return t, nil
}

// Fill overwrites t as the generator's Kind says (its Shape and DType are
// not read: fkc.bench fills tensors of any size with the same fills).
func (g Gen) Fill(t *tensor.Tensor) error {
	if g.Bad != "" {
		return errors.New(g.Bad)
	}
	dt, n := t.DType, t.NumElems()
	// Every value the fill can make must be one the dtype holds, as a
	// --value must (tensor.Scalar.Encode): a U8 input of 300 is an error,
	// not a wrapped 44. The range's ends are checked, and each listed value.
	fits := func(what string, v float64) error {
		if _, err := tensor.FloatScalar(v).Encode(dt); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		return nil
	}
	switch g.Kind {
	case "", "arange":
		if n > 0 {
			if err := fits("arange", float64(n-1)); err != nil {
				return err
			}
		}
		for i := 0; i < n; i++ {
			t.Set(i, float64(i))
		}
	case "random":
		if math.IsNaN(g.Lo) || math.IsNaN(g.Hi) || math.IsInf(g.Lo, 0) || math.IsInf(g.Hi, 0) {
			return fmt.Errorf("random: the range [%v, %v] must have finite ends", g.Lo, g.Hi)
		}
		lo, hi := math.Ceil(g.Lo), math.Floor(g.Hi)
		if hi < lo {
			return fmt.Errorf("random: empty range [%v, %v]", g.Lo, g.Hi)
		}
		if hi-lo >= 1<<53 {
			return fmt.Errorf("random: the range [%v, %v] holds more than 2^53 integers (the most a float64 counts exactly)", g.Lo, g.Hi)
		}
		if n > 0 {
			if err := errors.Join(fits("random", lo), fits("random", hi)); err != nil {
				return err
			}
		}
		r := rand.New(rand.NewPCG(g.Seed, 0x666b63))
		span := uint64(hi-lo) + 1
		for i := 0; i < n; i++ {
			t.Set(i, lo+float64(r.Uint64N(span)))
		}
	case "uniform":
		if math.IsInf(g.Lo, 0) || math.IsInf(g.Hi, 0) || !(g.Hi > g.Lo) {
			return fmt.Errorf("uniform: empty or unbounded range [%v, %v)", g.Lo, g.Hi)
		}
		if n > 0 {
			kept := func(v float64) float64 { // an integer dtype keeps the values' integer parts
				if dt.IsFloat() {
					return v
				}
				return math.Trunc(v)
			}
			if err := errors.Join(fits("uniform", kept(g.Lo)), fits("uniform", kept(math.Nextafter(g.Hi, g.Lo)))); err != nil {
				return err
			}
		}
		r := rand.New(rand.NewPCG(g.Seed, 0x666b63))
		for i := 0; i < n; i++ {
			t.Set(i, g.Lo+(g.Hi-g.Lo)*r.Float64())
		}
	case "values":
		vals, err := parseValues(g.Values, n)
		if err != nil {
			return err
		}
		if len(vals) == 0 && n > 0 {
			return fmt.Errorf("values: none given for %d elements", n)
		}
		// each value is rounded once from its text, as a --value is
		// (through a float64 first, F16 2049.0000001 became 2048)
		size := dt.Size()
		enc := make([]byte, 0, min(n, len(vals))*size)
		for _, v := range vals[:min(n, len(vals))] {
			b, err := v.Encode(dt)
			if err != nil {
				return fmt.Errorf("values: %v", err)
			}
			enc = append(enc, b...)
		}
		for i := 0; i < n; i += len(enc) / size {
			copy(t.Data[i*size:], enc)
		}
	default:
		return fmt.Errorf("unknown fill %q (want arange, random, uniform or values)", g.Kind)
	}
	return nil
}

// RandomRange is the "random" fill's range when none is given: integers
// in [-9, 9] for signed and float dtypes, [0, 9] for unsigned ones, [0, 1]
// for BOOL — small values every dtype holds exactly, varied enough that a
// picture of the run shows where each cell came from.
func RandomRange(dt tensor.DType) (lo, hi float64) {
	switch {
	case dt == tensor.BOOL:
		return 0, 1
	case dt == tensor.U8 || dt == tensor.U32:
		return 0, 9
	}
	return -9, 9
}

// A FillKind is one way to fill an input, as the Try-it form's fill control
// and fkc.bench's fill name it: the page and the API page describe every
// fill from this table.
type FillKind struct {
	Name string // as the form and a share link write it; a script's word
	Help string
	// Form: the Try-it form offers it; Script: fkc.bench and fkc.run's
	// input specs take it.
	Form, Script bool
}

// Fills lists the fills.
var Fills = []FillKind{
	{Name: "arange", Help: "0, 1, 2, … in flat order", Form: true, Script: true},
	{Name: "random", Help: fmt.Sprintf("integers drawn uniformly from [lo, hi] by a seeded generator; by default seed 1 and %s", randomDefaults()), Form: true, Script: true},
	{Name: "uniform", Help: "reals drawn uniformly from [lo, hi) by a seeded generator (integer dtypes keep the integer part)", Form: true},
	{Name: "values", Help: "the listed values (commas or spaces; nan, inf, -inf, true, false), repeated to fill the shape", Form: true},
	{Name: "file", Help: "a .npy file you choose or drop on the row, read as fkc run -i reads it: its shape and dtype come from the file (with dtype BF16 chosen first, a uint16 file is read as bf16 bit patterns)", Form: true},
	{Name: "a number", Help: "every element that value, rounded once as --value is", Script: true},
	{Name: "indices:N", Help: "U32 only: indices drawn uniformly from [0, N)", Script: true},
}

// randomDefaults describes RandomRange.
func randomDefaults() string {
	r := func(dt tensor.DType) string { lo, hi := RandomRange(dt); return fmt.Sprintf("[%g, %g]", lo, hi) }
	return fmt.Sprintf("%s for signed integer and float dtypes, %s for unsigned ones, %s for BOOL", r(tensor.F32), r(tensor.U32), r(tensor.BOOL))
}

// FillKinds are the names of the fills the Try-it form offers.
func FillKinds() []string {
	var out []string
	for _, f := range Fills {
		if f.Form {
			out = append(out, f.Name)
		}
	}
	return out
}

// MaxTryElems bounds a Try-it tensor: the page draws every element.
const MaxTryElems = 1 << 20

// ParseValues reads "1, 2.5 nan -inf true" (commas or spaces), each as
// tensor.ParseScalar reads a --value.
func ParseValues(s string) ([]tensor.Scalar, error) { return parseValues(s, -1) }

// parseValues reads at most limit values (all of them when limit < 0):
// a tensor takes its first n values, so a link holding a million for a
// 10x10 input parses 100 of them, not all.
func parseValues(s string, limit int) ([]tensor.Scalar, error) {
	var out []tensor.Scalar
	sep := func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '[' || r == ']' }
	for s != "" && (limit < 0 || len(out) < limit) {
		s = strings.TrimLeftFunc(s, sep)
		end := strings.IndexFunc(s, sep)
		if end < 0 {
			end = len(s)
		}
		w := s[:end]
		s = s[end:]
		if w == "" {
			break
		}
		v, err := tensor.ParseScalar(w)
		if err != nil {
			return nil, fmt.Errorf("values: %q is not a number", w)
		}
		out = append(out, v)
	}
	return out, nil
}
