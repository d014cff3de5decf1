package cpu

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

var floatDTypes = []tensor.DType{tensor.F32, tensor.F64, tensor.BF16, tensor.F16}

// mk builds a tensor from values (converted to the dtype).
func mk(dt tensor.DType, shape []int, vals ...float64) *tensor.Tensor {
	t := tensor.New(dt, shape)
	if len(vals) != t.NumElems() {
		panic("mk: wrong value count")
	}
	for i, v := range vals {
		t.Set(i, v)
	}
	return t
}

func u32s(shape []int, vals ...uint32) *tensor.Tensor {
	t := tensor.New(tensor.U32, shape)
	copy(t.U32(), vals)
	return t
}

func vals(t *tensor.Tensor) []float64 {
	out := make([]float64, t.NumElems())
	for i := range out {
		out[i] = t.At(i)
	}
	return out
}

// specials are mixed into random float data: signed zeros, infinities,
// NaN, ties.
var specials = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, 1, -1}

// randTensor fills a tensor with random bits (integers, bytes) or random
// floats with a sprinkling of specials (floats).
func randTensor(rng *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	if !dt.IsFloat() {
		rng.Read(t.Data)
		return t
	}
	for i := 0; i < t.NumElems(); i++ {
		var v float64
		switch r := rng.Intn(10); {
		case r == 0:
			v = specials[rng.Intn(len(specials))]
		case r < 3:
			v = float64(rng.Intn(7) - 3) // small integers: ties and exact sums
		default:
			v = rng.NormFloat64() * math.Pow(2, float64(rng.Intn(20)-10))
		}
		t.Set(i, v)
	}
	return t
}

func randShape(rng *rand.Rand, rank, maxDim int) []int {
	s := make([]int, rank)
	for i := range s {
		s[i] = rng.Intn(maxDim + 1)
	}
	return s
}

// bitwise reports whether two tensors are identical in dtype, shape and bytes.
func bitwise(a, b *tensor.Tensor) bool {
	return a.DType == b.DType && slices.Equal(a.Shape, b.Shape) && bytes.Equal(a.Data, b.Data)
}

// guard snapshots inputs and checks after a call that none was modified.
func guard(t *testing.T, ins ...*tensor.Tensor) func() {
	t.Helper()
	snaps := make([]*tensor.Tensor, len(ins))
	for i, in := range ins {
		if in != nil {
			snaps[i] = in.Clone()
		}
	}
	return func() {
		t.Helper()
		for i, in := range ins {
			if in != nil && !bitwise(in, snaps[i]) {
				t.Fatalf("input %d (%s) was modified", i, in)
			}
		}
	}
}

// wantErr checks that err is a *kernels.Violation whose message contains
// every fragment.
func wantErr(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error containing %q, got nil", fragments)
	}
	var v *kernels.Violation
	if !errors.As(err, &v) {
		t.Fatalf("error %q is %T, not a *kernels.Violation", err, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("error %q does not contain %q", err, f)
		}
	}
}

func wantVals(t *testing.T, got *tensor.Tensor, err error, shape []int, want ...float64) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Shape, shape) {
		t.Fatalf("shape %v, want %v", got.Shape, shape)
	}
	g := vals(got)
	if len(g) != len(want) {
		t.Fatalf("got %v, want %v", g, want)
	}
	for i := range g {
		same := g[i] == want[i] && math.Signbit(g[i]) == math.Signbit(want[i])
		if math.IsNaN(want[i]) {
			same = math.IsNaN(g[i])
		}
		if !same {
			t.Fatalf("got %v, want %v (first difference at %d)", g, want, i)
		}
	}
}

var negZero = math.Copysign(0, -1)

// sameFloats is bitwise equality up to NaN payloads: IEEE 754 leaves which
// NaN an operation with NaN operands returns to the hardware, and Go's
// compiler may commute an addition's operands, so two walks that do the
// same additions in the same order can still return NaNs with different
// payload or sign bits. Every non-NaN element must match bit for bit
// (signed zeros included).
func sameFloats(a, b *tensor.Tensor) (bool, int) {
	if a.DType != b.DType || !slices.Equal(a.Shape, b.Shape) {
		return false, -1
	}
	if !a.DType.IsFloat() {
		return bytes.Equal(a.Data, b.Data), -1
	}
	es := a.DType.Size()
	for i := 0; i < a.NumElems(); i++ {
		if bytes.Equal(a.Data[i*es:(i+1)*es], b.Data[i*es:(i+1)*es]) {
			continue
		}
		if math.IsNaN(a.At(i)) && math.IsNaN(b.At(i)) {
			continue
		}
		return false, i
	}
	return true, -1
}
