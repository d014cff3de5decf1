package contract

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpr(t *testing.T) {
	env := map[string]float64{"n": 10, "n_in": 6, "n_out": 12, "dtype_bytes": 4, "d": 3, "ids_len": 5}
	for _, c := range []struct {
		src  string
		want float64
		syms []string
	}{
		{"0", 0, nil},
		{"n", 10, []string{"n"}},
		{"n + 1", 11, []string{"n"}},
		{"(n_out + n_in) * dtype_bytes", 72, []string{"dtype_bytes", "n_in", "n_out"}},
		{"n_out * dtype_bytes + 2 * n_out * dtype_bytes", 144, []string{"dtype_bytes", "n_out"}},
		{"2 * ids_len * d * dtype_bytes", 120, []string{"d", "dtype_bytes", "ids_len"}},
		{"(2 * n * dtype_bytes) + n", 90, []string{"dtype_bytes", "n"}},
		{"-n + 3", -7, []string{"n"}},
		{"- -n", 10, []string{"n"}},
		{"n / 4", 2.5, []string{"n"}},
		{"10 - 2 - 3", 5, nil},
		{"12 / 2 / 3", 2, nil},
		{"1.5e2 * 2", 300, nil},
		{"n*(n_in-(1+1))", 40, []string{"n", "n_in"}},
	} {
		e, err := ParseExpr(c.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.src, err)
			continue
		}
		got, err := e.Eval(env)
		if err != nil || got != c.want {
			t.Errorf("%q = %v, %v; want %v", c.src, got, err, c.want)
		}
		if s := e.Symbols(); !reflect.DeepEqual(s, c.syms) && !(len(s) == 0 && len(c.syms) == 0) {
			t.Errorf("%q symbols %v, want %v", c.src, s, c.syms)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"", "empty"},
		{"(n + 1", "unclosed ("},
		{"n +", "unexpected end"},
		{"n n", `unexpected "n" at column 3`},
		{"n ** 2", `unexpected "*" at column 4`},
		{"n % 2", `unexpected "%"`},
		{"max(n, 1)", "function calls"},
		{")", `unexpected ")"`},
		{strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000), "nested too deeply"},
		{strings.Repeat("-", 1000) + "1", "nested too deeply"},
	} {
		if _, err := ParseExpr(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseExpr(%q) error %v, want %q", c.src, err, c.want)
		}
	}
	e, _ := ParseExpr("n_out * dtype_bytes")
	if _, err := e.Eval(map[string]float64{"n_out": 1}); err == nil || !strings.Contains(err.Error(), `"dtype_bytes"`) {
		t.Errorf("missing symbol error = %v", err)
	}
	if e, err := ParseExpr("n / (n - n)"); err != nil {
		t.Fatal(err)
	} else if _, err := e.Eval(env); err == nil {
		t.Error("division by zero not reported")
	}
	// a count that overflows is an error, not +Inf bytes
	if e, err := ParseExpr("n * 1e308 * 1e308"); err != nil {
		t.Fatal(err)
	} else if v, err := e.Eval(env); err == nil || !strings.Contains(err.Error(), "evaluates to +Inf here") {
		t.Errorf("an overflowing formula: %v, %v", v, err)
	}
}

// Every cost formula in the seeds parses, and evaluates once its symbols
// are given.
func TestSeedFormulas(t *testing.T) {
	n := 0
	for _, s := range seeds {
		d, _ := Parse(s.file, readSeed(t, s.file))
		for _, k := range d.Kernels {
			for _, f := range k.Formulas() {
				e, err := ParseExpr(f.Value)
				if err != nil {
					t.Errorf("%s %s %s: %v", s.file, k.Name, f.Key, err)
					continue
				}
				env := map[string]float64{}
				for _, sym := range e.Symbols() {
					env[sym] = 2
				}
				if v, err := e.Eval(env); err != nil || v < 0 {
					t.Errorf("%s %s: %s = %v, %v", k.Name, f.Key, f.Value, v, err)
				}
				n++
			}
		}
	}
	if n < 57*4 {
		t.Errorf("only %d formulas found", n)
	}
}
