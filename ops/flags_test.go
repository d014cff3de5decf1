package ops

import (
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// The one flag parser is strict: leftovers, doubles, unknown flags and
// flags an op does not take are usage errors that name the flag — never a
// value silently taken in part.
func TestParseStrict(t *testing.T) {
	for _, tc := range []struct {
		op   string
		args []string
		want string // in the usage error
	}{
		{"sum", []string{"--dim", "1.5"}, "--dim"},
		{"sum", []string{"--dim", "1abc"}, "--dim"},
		{"sum", []string{"--dim", "-"}, "--dim"},
		{"sum", []string{"--dim", "--1"}, "--dim"},
		// the one negative int that is the "no dim" sentinel is no dim a user means
		{"sum", []string{"--dim", "-9223372036854775808"}, "--dim: \"-9223372036854775808\" is out of range"},
		{"sum", []string{"--dim=-99999999999999999999"}, "is out of range"},
		{"sum", []string{"--dim", ""}, "--dim"},
		{"sum", []string{"--dim=99999999999999999999"}, "--dim: \"99999999999999999999\" is out of range"},
		{"masked_fill", []string{"--value", "3abc"}, "--value"},
		{"masked_fill", []string{"--value", "0x"}, "--value"},
		{"masked_fill", []string{"--value", "1e999"}, "--value"},
		{"pad", []string{"--mode", "constant", "--padding", "1:1junk"}, "--padding"},
		{"pad", []string{"--mode", "constant", "--padding", "1:1:7"}, "--padding"},
		{"pad", []string{"--mode", "constant", "--padding", "1"}, "--padding"},
		{"pad", []string{"--mode", "constant", "--padding", " "}, "--padding"},
		{"pad", []string{"--mode", "constant", "--padding", "1:1,"}, "--padding"},
		{"pad", []string{"--mode", "constant", "--padding", "99999999999999999999:0"}, "integer range"},
		{"pad", []string{"--mode", "Reflect", "--padding", "1:1"}, "--mode"},
		{"pad", []string{"--mode", "reflect", "--mode", "reflect", "--padding", "1:1"}, "given twice"},
		{"pad", []string{"--mode", "reflect", "--padding", "1:1", "--value", "2"}, "--value"},
		{"pad", []string{"--mode", "reflect"}, "needs --padding"},
		{"pad", []string{"--mode", "reflect", "--padding", "1:1", "extra"}, "unexpected argument"},
		{"sum", []string{"--dim"}, "needs a value"},
		{"sum", []string{"--frob", "1"}, "unknown flag --frob"},
		{"sum", []string{"--padding", "1:1"}, "does not take --padding"},
		{"embedding", []string{"--dim", "0"}, "takes no flags"},
		{"reduce_sum_to", []string{"--shape", "1,,2"}, "--shape"},
		{"reduce_sum_to", []string{"--shape", "1x"}, "--shape"},
		{"reduce_sum_to", []string{"--shape", "+1,4"}, "--shape"},
		{"pad", []string{"--mode", "constant", "--padding", "+1:1"}, "--padding"},
		{"sum", []string{"--dim", "+0"}, "--dim"},
		{"argmax", nil, "needs --dim"},
		{"nope", nil, "unknown op"},
	} {
		_, err := Parse(tc.op, tc.args)
		var u *kernels.Usage
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: err %v; want a usage error naming %q", tc.op, tc.args, err, tc.want)
		}
	}
	// What is accepted, and what it means.
	for _, tc := range []struct {
		op   string
		args []string
		want kernels.Params
	}{
		{"pad", []string{"--mode", "reflect", "--padding", "1:2, 0:3"}, kernels.Params{Mode: kernels.Reflect, Padding: []kernels.Pad{{Before: 1, After: 2}, {Before: 0, After: 3}}, Dim: kernels.NoDim}},
		{"pad", []string{"-mode=constant", "--padding=", "--value", "-0"}, kernels.Params{Padding: []kernels.Pad{}, Fill: tensor.FloatScalar(negZero()), Dim: kernels.NoDim}},
		{"sum", nil, kernels.Params{Dim: kernels.NoDim}},
		{"sum", []string{"--dim=0"}, kernels.Params{Dim: 0}},
		// negative dims as NumPy and PyTorch take them, resolved against
		// the rank later (Resolve): the flag keeps what was written
		{"sum", []string{"--dim", "-1"}, kernels.Params{Dim: -1}},
		{"gather", []string{"--dim=-3"}, kernels.Params{Dim: -3}},
		{"reduce_sum_to", []string{"--shape", "(1,4)"}, kernels.Params{Shape: []int{1, 4}, Dim: kernels.NoDim}},
		{"masked_fill", []string{"--value", "-9007199254740993"}, kernels.Params{Fill: tensor.IntScalar(-9007199254740993), Dim: kernels.NoDim}},
	} {
		c, err := Parse(tc.op, tc.args)
		if err != nil {
			t.Errorf("%s %q: %v", tc.op, tc.args, err)
			continue
		}
		if !reflect.DeepEqual(c.Params, tc.want) {
			t.Errorf("%s %q: %+v, want %+v", tc.op, tc.args, c.Params, tc.want)
		}
	}
}

func negZero() float64 { z := 0.0; return -z }

// --dtype: only bf16 means something; anything else is said, not ignored.
func TestSplitDType(t *testing.T) {
	rest, bf16, err := SplitDType([]string{"--dim", "1", "--dtype=bf16"})
	if err != nil || !bf16 || !reflect.DeepEqual(rest, []string{"--dim", "1"}) {
		t.Fatalf("%v %v %v", rest, bf16, err)
	}
	for _, bad := range [][]string{{"--dtype=f32"}, {"--dtype", "F32"}, {"--dtype"}, {"--dtype", "bf16", "--dtype", "bf16"}} {
		if _, _, err := SplitDType(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// The registry walk of the op table: every op × form × dtype it accepts
// gives a random call that its own shape rule and oracle accept, whose
// flags print and parse back to the same params; and every op's default
// Try-it case parses, builds and traces on the oracle.
func TestEveryOpRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, o := range Table {
		forms := o.Forms
		if forms == nil {
			forms = []kernels.Form{kernels.FormOnly}
		}
		for _, f := range forms {
			for _, dt := range kernels.FloatDTypes {
				for i := 0; i < 8; i++ {
					c := o.Random(rng, f, dt, 4)
					if got := o.Variant(&c.Params); got != (kernels.Variant{Op: o.Name, Form: f}) {
						t.Fatalf("%s: random call of form %v is %v", o.Name, f, got)
					}
					if err := o.CheckInputs(c); err != nil {
						t.Fatalf("%s %v: %v", o.Name, f, err)
					}
					if _, _, err := o.Out(c); err != nil {
						t.Fatalf("%s %v: shape rule refuses its own random call: %v", o.Name, f, err)
					}
					if _, err := o.Oracle(c); err != nil {
						t.Fatalf("%s %v: oracle: %v", o.Name, f, err)
					}
					back, err := o.Parse(FormatFlags(c))
					if err != nil || !sameParams(back.Params, c.Params) {
						t.Fatalf("%s: flags %q parse back to %+v (%v), want %+v", o.Name, FormatFlags(c), back, err, c.Params)
					}
				}
				cs := o.DefaultCase(f, dt)
				c, err := o.Parse(cs.Flags)
				if err != nil {
					t.Fatalf("%s %v: default flags %q: %v", o.Name, f, cs.Flags, err)
				}
				c.Inputs = map[string]*tensor.Tensor{}
				for _, n := range cs.Order {
					if c.Inputs[n], err = cs.Inputs[n].Make(); err != nil {
						t.Fatalf("%s: default input %s: %v", o.Name, n, err)
					}
				}
				if _, err := o.Trace(Oracle, c); err != nil {
					t.Errorf("%s %v %s: default case does not trace: %v", o.Name, f, dt, err)
				}
			}
		}
	}
}

// sameParams compares params as the flags carry them (a nil and an empty
// padding are the same rank-0 padding).
func sameParams(a, b kernels.Params) bool {
	if len(a.Padding) == 0 && len(b.Padding) == 0 {
		a.Padding, b.Padding = nil, nil
	}
	if len(a.Shape) == 0 && len(b.Shape) == 0 {
		a.Shape, b.Shape = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// A wrong input name is reported before a missing one, naming both the
// name given and the op's inputs: '-i y=…' for pad's x was reported as
// "pad needs input x", without a word about y. Several wrong names: the
// first in name order, so the message does not change from run to run.
func TestCheckInputsUnknownBeforeMissing(t *testing.T) {
	x := tensor.New(tensor.F32, []int{2})
	for _, tc := range []struct {
		op     string
		inputs map[string]*tensor.Tensor
		want   string
	}{
		{"pad", map[string]*tensor.Tensor{"y": x}, `pad has no input "y"; its inputs: x`},
		{"pad", map[string]*tensor.Tensor{"x": x, "y": x}, `pad has no input "y"; its inputs: x`},
		{"gather", map[string]*tensor.Tensor{"data": x, "z": x, "b": x}, `gather has no input "b"; its inputs: data, indices`},
		{"gather", map[string]*tensor.Tensor{"data": x}, "gather needs input indices"},
		// a Go caller's nil tensors: under an unknown name it is still an
		// unknown name (it passed), under a known one it is missing
		{"sum", map[string]*tensor.Tensor{"x": x, "y": nil}, `sum has no input "y"; its inputs: x`},
		{"gather", map[string]*tensor.Tensor{"data": x, "indices": nil}, "gather needs input indices"},
	} {
		o, err := Get(tc.op)
		if err != nil {
			t.Fatal(err)
		}
		err = o.CheckInputs(&kernels.Call{Op: tc.op, Inputs: tc.inputs})
		var u *kernels.Usage
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v; want a usage error containing %q", tc.op, tc.inputs, err, tc.want)
		}
	}
}

// NumPy's names for the pad modes are taken on input and shown back as the
// canonical names (share links, printed commands); an unknown name lists
// every mode and alias.
func TestModeAliases(t *testing.T) {
	for alias, want := range map[string]kernels.Mode{"wrap": kernels.Circular, "edge": kernels.Replicate, "circular": kernels.Circular} {
		c, err := Parse("pad_backward", []string{"--mode", alias, "--padding", "1:1"})
		if err != nil || c.Mode != want {
			t.Fatalf("--mode %s: %v, %v; want %v", alias, c, err, want)
		}
		if got := FormatFlags(c); got[1] != want.String() {
			t.Errorf("--mode %s shown back as %v, want %s", alias, got, want)
		}
	}
	_, err := Parse("pad", []string{"--mode", "mirror", "--padding", "1:1"})
	for _, name := range append(kernels.ModeNames(), "wrap (circular)", "edge (replicate)") {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("unknown mode: %v does not name %s", err, name)
		}
	}
}
