package bench

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
)

// Measure times exactly reps runs, after the settle runs the memory's
// growth asks for: here a scripted sequence of the runtime's mapped bytes.
func TestMeasureSettles(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	call := func() *kernels.Call {
		return ops.Pad(f32(rand.New(rand.NewSource(1)), 2, 3), kernels.Reflect, pads(1, 2)...)
	}
	const M = 1 << 20
	for _, tc := range []struct {
		name   string
		mapped []uint64 // before and after the first run, then before and after each settle run
		settle int
	}{
		{"no growth", []uint64{5 * M, 5 * M}, 0},
		{"below a MiB", []uint64{5 * M, 6*M - 1}, 0},
		{"three quiet runs", []uint64{0, 2 * M, 2 * M, 2 * M, 2 * M, 2 * M, 2 * M, 2 * M}, 3},
		// the second settle run grows again: three more quiet ones follow it
		{"grows again", []uint64{0, 2 * M, 2 * M, 2 * M, 2 * M, 4 * M, 4 * M, 4 * M, 4 * M, 4 * M, 4 * M, 4 * M}, 5},
		{"never settles", nil, settleMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			mappedBytes = func() uint64 {
				defer func() { calls++ }()
				if tc.mapped == nil {
					return uint64(calls) * M // every run grows
				}
				if calls >= len(tc.mapped) {
					t.Fatalf("mapped read %d times; the script has %d", calls+1, len(tc.mapped))
				}
				return tc.mapped[calls]
			}
			defer func() { mappedBytes = runtimeBytes }()
			r := Measure(e, engine.CPU, tc.name, "", call(), 3)
			if r.Error != "" {
				t.Fatal(r.Error)
			}
			if r.Settle != tc.settle || len(r.TimesNs) != 3 || r.Kernel != "pad" {
				t.Errorf("settle %d (want %d), %d times (want 3), kernel %q", r.Settle, tc.settle, len(r.TimesNs), r.Kernel)
			}
		})
	}
	// the runtime's own figure: some bytes, and no settle runs past the cap
	r := Measure(e, engine.CPU, "real", "", call(), 2)
	if runtimeBytes() == 0 || r.Error != "" || r.Settle > settleMax || len(r.TimesNs) != 2 {
		t.Errorf("runtime bytes %d; %+v", runtimeBytes(), r)
	}
}

// A case that names its kernel is served by it, not by dispatch.
func TestRunNamedKernel(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	res := Run(e, engine.CPU, 1, "sum_all")
	if len(res) != 2 || res[0].Kernel != "sum_all" || res[1].Kernel != "sum_all_blocked" || res[1].Provider != "fkc-cpu-kernels" {
		t.Fatalf("sum_all cases: %+v", res)
	}
	for _, r := range res {
		if r.Error != "" || len(r.TimesNs) != 1 || r.BytesMoved != 4<<26+4 {
			t.Errorf("%s: %+v", r.Case, r)
		}
	}
}

// GB/s is the call's tensor bytes (inputs read + output written) over time,
// the same figure for the same call whatever contract serves it; the
// contract's bytes_moved is reported beside. fuel-cpu-backend's pad counts
// a constant pad's output twice (736 B for F32[4,5] padded 2 each side),
// the WGSL pad once (576 B): GB/s from those did not compare.
func TestGBpsFromTensorBytes(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	x := f32(rand.New(rand.NewSource(1)), 4, 5)
	r := Measure(e, engine.CPU, "pad", "", ops.Pad(x, kernels.Constant, pads(2, 2)...), 3)
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	if r.TensorBytes != 4*(20+72) || r.BytesMoved != 736 {
		t.Errorf("tensor bytes %g (want %d), contract's bytes_moved %g (want 736)", r.TensorBytes, 4*(20+72), r.BytesMoved)
	}
	if want := r.TensorBytes / float64(r.MedianNs); r.MedianNs > 0 && r.GBps != want {
		t.Errorf("GB/s %g, want tensor bytes / median = %g", r.GBps, want)
	}
	if s := r.String(); !strings.Contains(s, "tensors 368 B") || !strings.Contains(s, "contract's bytes_moved 736") {
		t.Errorf("the line %q does not name both figures", s)
	}
}

// Each case's name says the shape of the call it builds (its first
// operand's, as fkc bench prints it: "f32[4096,4096]", "f32[64Mi]"), and
// names one case only.
func TestCaseNamesSayTheirShapes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	seen := map[string]bool{}
	for _, bc := range Cases {
		if seen[bc.Name] {
			t.Errorf("%s: two cases of this name", bc.Name)
		}
		seen[bc.Name] = true
		c := bc.Build(rng)
		o, err := ops.Of(c)
		if err != nil {
			t.Fatalf("%s: %v", bc.Name, err)
		}
		x := o.Primary(c)
		dims := make([]string, len(x.Shape))
		for i, n := range x.Shape {
			dims[i] = fmt.Sprint(n)
			if n%(1<<20) == 0 && strings.Contains(bc.Name, fmt.Sprintf("%dMi", n>>20)) {
				dims[i] = fmt.Sprintf("%dMi", n>>20)
			}
		}
		if want := strings.ToLower(x.DType.String()) + "[" + strings.Join(dims, ",") + "]"; !strings.Contains(bc.Name, want) {
			t.Errorf("%s: builds %s", bc.Name, want)
		}
		if _, _, err := o.Out(c); err != nil {
			t.Errorf("%s: %v", bc.Name, err)
		}
	}
}
