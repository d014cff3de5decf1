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

// In arithmetic a NaN matches any NaN (IEEE leaves a computed NaN's
// payload to the implementation), F64 included, where Contract compares
// bit for bit; a mover must keep the payload. And a result holding the
// oracle's own bits passes even where the f64 bound, blind to underflow,
// would refuse it.
func TestCellsNaNAndOracleBits(t *testing.T) {
	nan := func(dt tensor.DType, bits uint64) *tensor.Tensor {
		x := tensor.New(dt, []int{})
		for i := range dt.Size() {
			x.Data[i] = byte(bits >> (8 * i))
		}
		return x
	}
	x := nan(tensor.F64, 0x7ff8000000000001)
	sum := &kernels.Call{Op: "sum", Inputs: map[string]*tensor.Tensor{"x": tensor.New(tensor.F64, []int{1})}, Params: kernels.Params{Dim: kernels.NoDim}}
	copy(sum.Inputs["x"].Data, x.Data)
	if d, err := Cells(sum, nan(tensor.F64, 0xfff8000000000000), Contract, 0); err != nil || d != nil {
		t.Errorf("F64 sum of a NaN, another NaN's bits: %+v, %v; want a match", d, err)
	}
	pad := &kernels.Call{Op: "pad", Inputs: map[string]*tensor.Tensor{"x": tensor.New(tensor.F32, []int{1})},
		Params: kernels.Params{Mode: kernels.Constant, Padding: []kernels.Pad{{}}, Dim: kernels.NoDim}}
	copy(pad.Inputs["x"].Data, nan(tensor.F32, 0x7fc00001).Data)
	got := tensor.New(tensor.F32, []int{1})
	copy(got.Data, nan(tensor.F32, 0x7fc00000).Data)
	if d, err := Cells(pad, got, Contract, 0); err != nil || d == nil || d.Total != 1 {
		t.Errorf("pad moving a NaN, its payload lost: %+v, %v; want one wrong cell", d, err)
	}
	// The f32 mean of [2^-149, -0]: the oracle rounds 2^-150 to 0, which
	// the f64 reference (2^-150, bound about 1e-52) would refuse.
	x32 := tensor.New(tensor.F32, []int{2})
	x32.F32()[0], x32.F32()[1] = 0x1p-149, 0
	mean := &kernels.Call{Op: "mean", Inputs: map[string]*tensor.Tensor{"x": x32}, Params: kernels.Params{Dim: kernels.NoDim}}
	want, err := cpu.MeanAll(x32)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := Cells(mean, want, Contract, 0); err != nil || d != nil {
		t.Errorf("the oracle's own mean: %+v, %v; want a match", d, err)
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
