package ops

import (
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Every op × form × float dtype builds a sized call that its own shape rule
// and oracle accept, of the asked form, whose first operand has about n
// elements — from the smallest the op allows to a few hundred thousand.
func TestEveryOpSized(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, o := range Table {
		if o.Sized == nil {
			t.Errorf("%s: no Sized call builder (the Judge sweeps every op)", o.Name)
			continue
		}
		forms := o.Forms
		if forms == nil {
			forms = []kernels.Form{kernels.FormOnly}
		}
		for _, f := range forms {
			for _, dt := range kernels.FloatDTypes {
				for _, n := range []int{0, 1, 2, 3, 10, 1000, 4097, 300000} {
					c := o.Sized(rng, f, dt, n)
					if got := o.Variant(&c.Params); got != (kernels.Variant{Op: o.Name, Form: f}) {
						t.Fatalf("%s: sized call of form %v is %v", o.Name, f, got)
					}
					if err := o.CheckInputs(c); err != nil {
						t.Fatalf("%s %v n=%d: %v", o.Name, f, n, err)
					}
					if _, _, err := o.Out(c); err != nil {
						t.Fatalf("%s %v %s n=%d: shape rule refuses its own sized call: %v", o.Name, f, dt, n, err)
					}
					if got := o.Primary(c).NumElems(); n >= 16 && (got < n/2 || got > 2*n) {
						t.Errorf("%s %v n=%d: first operand has %d elements", o.Name, f, n, got)
					}
					if n <= 4097 {
						if _, err := o.Oracle(c); err != nil {
							t.Fatalf("%s %v %s n=%d: oracle: %v", o.Name, f, dt, n, err)
						}
					}
				}
			}
		}
	}
}

// The data movers take every dtype.
func TestSizedMoversAnyDType(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for _, name := range []string{"pad", "masked_fill"} {
		o, _ := Lookup(name)
		for _, dt := range tensor.All {
			c := o.Sized(rng, kernels.FormReflect, dt, 50)
			if name == "masked_fill" {
				c = o.Sized(rng, kernels.FormOnly, dt, 50)
			}
			if _, err := o.Oracle(c); err != nil {
				t.Errorf("%s %s: %v", name, dt, err)
			}
		}
	}
}

// A tiled tensor repeats its random block exactly; indices stay in bounds.
func TestTiled(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, n := range []int{1, tileBlock - 1, tileBlock, 3*tileBlock + 5} {
		x := TiledTensor(rng, tensor.F16, []int{n})
		k := min(n, tileBlock)
		for i := 0; i < n; i++ {
			if x.At(i) != x.At(i%k) {
				t.Fatalf("n=%d: element %d = %v, element %d = %v", n, i, x.At(i), i%k, x.At(i%k))
			}
		}
		idx := TiledIndices(rng, []int{n}, 7)
		for i, v := range idx.U32() {
			if v >= 7 || v != idx.U32()[i%k] {
				t.Fatalf("n=%d: index %d = %d", n, i, v)
			}
		}
	}
	if x := TiledTensor(rng, tensor.F32, []int{0, 3}); x.NumElems() != 0 {
		t.Errorf("empty shape: %d elements", x.NumElems())
	}
}
