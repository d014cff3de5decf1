package verify

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
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
		c := &kernels.Call{Op: "sum", Inputs: map[string]*tensor.Tensor{"x": x}, Params: kernels.Params{Dim: -1}}
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

// RunProgress reports each binding as it is done, with the total known
// from the start, and the same line Run writes.
func TestRunProgress(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var lines []string
	last, total := 0, -1
	rep := RunProgress(e, engine.CPU, 1, 1, &out, func(done, n int, line string) {
		if done != last+1 || (total >= 0 && n != total) {
			t.Fatalf("progress %d of %d after %d of %d", done, n, last, total)
		}
		last, total = done, n
		lines = append(lines, line)
	})
	if got := rep.Passed + rep.Failed + rep.Skipped; got == 0 || last != total || total != got {
		t.Errorf("%d reported, %d done of %d", got, last, total)
	}
	if strings.Join(lines, "\n")+"\n" != out.String() {
		t.Errorf("the progress lines are not the lines written")
	}
}
