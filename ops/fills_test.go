package ops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Switching any input of any op's Try-it example to "random" makes a valid
// call of varied values: the generators carry RandomRange (an index operand
// a range inside its axis). They carried [0, 0]: a random fill was zeros.
func TestExampleRandomFill(t *testing.T) {
	for _, o := range Table {
		forms := o.Forms
		if forms == nil {
			forms = []kernels.Form{kernels.FormOnly}
		}
		for _, f := range forms {
			for _, dt := range []tensor.DType{tensor.F32, tensor.I32, tensor.U8} {
				if !o.Accepts(dt) {
					continue
				}
				cs := o.DefaultCase(f, dt)
				if c, err := o.Parse(cs.Flags); err != nil {
					t.Fatal(err)
				} else {
					c.Inputs = map[string]*tensor.Tensor{}
					for n, g := range cs.Inputs {
						c.Inputs[n], _ = g.Make()
					}
					if _, err := o.Oracle(c); err != nil {
						continue // the op does not take dt (index_add of I32)
					}
				}
				for _, name := range cs.Order {
					name, cs := name, cs
					t.Run(fmt.Sprintf("%s/%s/%s/%s", o.Name, f, dt, name), func(t *testing.T) {
						gens := map[string]Gen{}
						for n, g := range cs.Inputs {
							gens[n] = g
						}
						g := gens[name]
						g.Kind = "random"
						gens[name] = g
						c, err := o.Parse(cs.Flags)
						if err != nil {
							t.Fatal(err)
						}
						c.Inputs = map[string]*tensor.Tensor{}
						for n, g := range gens {
							if c.Inputs[n], err = g.Make(); err != nil {
								t.Fatalf("%s: %v", n, err)
							}
						}
						x := c.Inputs[name]
						distinct := map[float64]bool{}
						for i := range x.NumElems() {
							distinct[x.At(i)] = true
						}
						if x.NumElems() > 2 && len(distinct) < 2 {
							t.Errorf("random %s [%g, %g] gives %d distinct values: %v", name, g.Lo, g.Hi, len(distinct), x)
						}
						if _, err := o.Oracle(c); err != nil {
							t.Errorf("random %s [%g, %g]: not a valid call: %v", name, g.Lo, g.Hi, err)
						}
					})
				}
			}
		}
	}
}

func TestRandomRange(t *testing.T) {
	for dt, want := range map[tensor.DType][2]float64{tensor.F32: {-9, 9}, tensor.BF16: {-9, 9}, tensor.I8: {-9, 9}, tensor.U8: {0, 9}, tensor.U32: {0, 9}, tensor.BOOL: {0, 1}} {
		if lo, hi := RandomRange(dt); lo != want[0] || hi != want[1] {
			t.Errorf("RandomRange(%s) = [%g, %g], want %v", dt, lo, hi, want)
		}
	}
	var random FillKind
	for _, f := range Fills {
		if f.Name == "random" {
			random = f
		}
	}
	if !strings.Contains(random.Help, "[-9, 9]") || !strings.Contains(random.Help, "[0, 1] for BOOL") || !random.Form || !random.Script {
		t.Errorf("random's help %q does not say its default ranges, or it is not both the form's and the scripts'", random.Help)
	}
}
