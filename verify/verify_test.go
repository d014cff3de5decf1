package verify

import (
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// A kernel with an order of its own (sum_all_blocked) differs from the
// oracle's flat fold in the last bits: held bit for bit it fails, held to
// the any-order bound (OwnOrder) it passes, in f32 and in f64 — where the
// Contract mode would compare f64 bit for bit.
func TestCompareOwnOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
		x := tensor.New(dt, []int{20000})
		for i := 0; i < x.NumElems(); i++ {
			v := rng.NormFloat64()
			if dt == tensor.F32 {
				x.F32()[i] = float32(v)
			} else {
				x.F64()[i] = v
			}
		}
		c := &kernels.Call{Op: "sum", Inputs: map[string]*tensor.Tensor{"x": x}, Params: kernels.Params{Dim: kernels.NoDim}}
		got, err := cpu.SumAllBlocked(x)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []Match{Bitwise, Contract, OwnOrder} {
			msg, err := Compare(c, got, m)
			if err != nil {
				t.Fatal(err)
			}
			wantPass := m == OwnOrder || (m == Contract && dt == tensor.F32)
			if (msg == "") != wantPass {
				t.Errorf("%s, match %d: mismatch report %q, want a pass: %v", dt, m, msg, wantPass)
			}
		}
	}
}
