package cpu

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

var (
	inf  = math.Inf(1)
	nan  = math.NaN()
	ninf = math.Inf(-1)
)

func TestReduceAllHandWorked(t *testing.T) {
	type fn func(*tensor.Tensor) (*tensor.Tensor, error)
	cases := []struct {
		name string
		f    fn
		dt   tensor.DType
		in   []float64
		want float64
	}{
		{"sum", SumAll, tensor.F32, []float64{1, 2, 3}, 6},
		{"sum empty", SumAll, tensor.F32, nil, 0},
		{"sum -0 from +0 seed", SumAll, tensor.F64, []float64{negZero}, 0},
		{"sum inf-inf", SumAll, tensor.F32, []float64{inf, ninf}, nan},
		// f32: 2^24 + 1 + 1 stays 2^24 when added one at a time
		{"sum f32 order", SumAll, tensor.F32, []float64{1 << 24, 1, 1}, 1 << 24},
		{"sum f32 order 2", SumAll, tensor.F32, []float64{1, 1, 1 << 24}, 1<<24 + 2},
		{"max", MaxAll, tensor.F32, []float64{1, 5, 3}, 5},
		{"max -0 first", MaxAll, tensor.F32, []float64{negZero, 0}, negZero},
		{"max +0 first", MaxAll, tensor.F32, []float64{0, negZero}, 0},
		{"max NaN skipped", MaxAll, tensor.F64, []float64{nan, 1, nan}, 1},
		{"max all NaN", MaxAll, tensor.BF16, []float64{nan, nan}, ninf},
		{"max empty", MaxAll, tensor.F16, nil, ninf},
		{"max -inf only", MaxAll, tensor.F32, []float64{ninf}, ninf},
		{"min", MinAll, tensor.F32, []float64{4, -2, 3}, -2},
		{"min +0 first", MinAll, tensor.F32, []float64{0, negZero}, 0},
		{"min -0 first", MinAll, tensor.F64, []float64{negZero, 0}, negZero},
		{"min NaN skipped", MinAll, tensor.F16, []float64{nan, 2, nan}, 2},
		{"min all NaN", MinAll, tensor.F32, []float64{nan}, inf},
		{"min empty", MinAll, tensor.F32, nil, inf},
		{"mean", MeanAll, tensor.F32, []float64{1, 2}, 1.5},
		{"mean empty", MeanAll, tensor.F64, nil, nan},
		{"mean rank0", MeanAll, tensor.BF16, []float64{3}, 3},
	}
	for _, c := range cases {
		for _, dt := range []tensor.DType{c.dt} {
			t.Run(c.name, func(t *testing.T) {
				shape := []int{len(c.in)}
				if c.name == "mean rank0" {
					shape = []int{}
				}
				x := mk(dt, shape, c.in...)
				check := guard(t, x)
				got, err := c.f(x)
				check()
				wantVals(t, got, err, []int{}, c.want)
				if got.DType != dt {
					t.Fatalf("dtype %s, want %s", got.DType, dt)
				}
			})
		}
	}
}

// In-dtype accumulation: every half add rounds to the half type.
func TestReduceHalfStall(t *testing.T) {
	ones := func(dt tensor.DType, n int) *tensor.Tensor {
		x := tensor.New(dt, []int{n})
		for i := 0; i < n; i++ {
			x.Set(i, 1)
		}
		return x
	}
	// f16: 2048 + 1 = 2049 is a tie between 2048 and 2050: even → 2048.
	got, err := SumAll(ones(tensor.F16, 4096))
	wantVals(t, got, err, []int{}, 2048)
	got, err = MeanAll(ones(tensor.F16, 4096))
	wantVals(t, got, err, []int{}, 0.5)
	// bf16 (8 significant bits) stalls at 256.
	got, err = SumAll(ones(tensor.BF16, 1000))
	wantVals(t, got, err, []int{}, 256)
	// The same stall along an axis, and in reduce_sum_to.
	x := tensor.New(tensor.F16, []int{3000, 2})
	for i := 0; i < 6000; i++ {
		x.Set(i, 1)
	}
	got, err = SumDim(x, 0)
	wantVals(t, got, err, []int{2}, 2048, 2048)
	got, err = ReduceSumTo(x, []int{1, 2})
	wantVals(t, got, err, []int{1, 2}, 2048, 2048)
	got, err = MeanDim(x, 0) // 2048 / f16(3000) rounded to f16
	want := float64(tensor.F16ToF32(tensor.F16FromF32(2048.0 / 3000.0)))
	wantVals(t, got, err, []int{2}, want, want)
	// bf16 sum of values that are exact: 1.5 + 2.25 = 3.75.
	got, err = SumAll(mk(tensor.BF16, []int{2}, 1.5, 2.25))
	wantVals(t, got, err, []int{}, 3.75)
	// bf16 rounding per add: 1 + 2^-8 rounds back to 1 (tie → even), but
	// 2^-8 + 2^-8 first gives 2^-7 and then 1 + 2^-7 is exact.
	got, err = SumAll(mk(tensor.BF16, []int{3}, 1, 1.0/256, 1.0/256))
	wantVals(t, got, err, []int{}, 1)
	got, err = SumAll(mk(tensor.BF16, []int{3}, 1.0/256, 1.0/256, 1))
	wantVals(t, got, err, []int{}, 1+1.0/128)
}

func TestReduceDimHandWorked(t *testing.T) {
	x := mk(tensor.F32, []int{2, 3}, 1, 5, 3, 4, 2, 6)
	got, err := SumDim(x, 0)
	wantVals(t, got, err, []int{3}, 5, 7, 9)
	got, err = SumDim(x, 1)
	wantVals(t, got, err, []int{2}, 9, 12)
	got, err = MaxDim(x, 1)
	wantVals(t, got, err, []int{2}, 5, 6)
	got, err = MinDim(x, 0)
	wantVals(t, got, err, []int{3}, 1, 2, 3)
	got, err = MeanDim(x, 1)
	wantVals(t, got, err, []int{2}, 3, 4)
	got, err = ArgMaxDim(x, 1)
	wantVals(t, got, err, []int{2}, 1, 2)
	got, err = ArgMinDim(x, 0)
	wantVals(t, got, err, []int{3}, 0, 1, 0)
	if got.DType != tensor.U32 {
		t.Fatalf("arg dtype %s", got.DType)
	}
	// rank 1 → rank 0
	got, err = SumDim(mk(tensor.F64, []int{3}, 1, 2, 3), 0)
	wantVals(t, got, err, []int{}, 6)
	// empty axis: sum 0, max -inf, min +inf, mean NaN
	e := mk(tensor.F32, []int{2, 0})
	got, err = SumDim(e, 1)
	wantVals(t, got, err, []int{2}, 0, 0)
	got, err = MaxDim(e, 1)
	wantVals(t, got, err, []int{2}, ninf, ninf)
	got, err = MinDim(e, 1)
	wantVals(t, got, err, []int{2}, inf, inf)
	got, err = MeanDim(e, 1)
	wantVals(t, got, err, []int{2}, nan, nan)
	got, err = SumDim(e, 0)
	wantVals(t, got, err, []int{0})
	got, err = ArgMaxDim(mk(tensor.F32, []int{0, 3}), 1) // axis not empty, no slots
	wantVals(t, got, err, []int{0})
	// signed zeros, NaN, ties along an axis
	z := mk(tensor.F32, []int{2, 2}, negZero, 0, 0, negZero)
	got, err = MaxDim(z, 1)
	wantVals(t, got, err, []int{2}, negZero, 0)
	got, err = MaxDim(mk(tensor.F16, []int{1, 3}, nan, nan, nan), 1)
	wantVals(t, got, err, []int{1}, ninf)
}

func TestArgHandWorked(t *testing.T) {
	cases := []struct {
		name string
		max  bool
		in   []float64
		want float64
	}{
		{"tie → smallest", true, []float64{1, 3, 3, 2}, 1},
		{"min tie", false, []float64{2, 1, 1}, 1},
		{"NaN at 0 wins (nothing beats NaN)", true, []float64{nan, 5, 7}, 0},
		{"min NaN at 0 wins", false, []float64{nan, -5}, 0},
		{"later NaN skipped", true, []float64{5, nan, 7}, 2},
		{"signed zero tie", true, []float64{negZero, 0}, 0},
		{"-inf", true, []float64{ninf, ninf}, 0},
		{"-inf, then NaN", true, []float64{ninf, nan, ninf}, 0},
		{"+inf min", false, []float64{inf, nan, inf}, 0},
		{"first of the zeros", true, []float64{-1, negZero, 0, negZero}, 1},
		{"min: first of the zeros", false, []float64{1, 0, negZero}, 1},
		{"n=1", true, []float64{4}, 0},
	}
	for _, c := range cases {
		for _, dt := range floatDTypes {
			t.Run(fmt.Sprintf("%s/%s", c.name, dt), func(t *testing.T) {
				x := mk(dt, []int{len(c.in)}, c.in...)
				f := ArgMinDim
				if c.max {
					f = ArgMaxDim
				}
				got, err := f(x, 0)
				wantVals(t, got, err, []int{}, c.want)
			})
		}
	}
}

// Fast dim reductions are bitwise the reference walk (up to NaN payloads)
// for every fold, dtype, rank and axis, with specials mixed in.
func TestReduceDimFastMatchesRef(t *testing.T) { atThreads(t, testReduceDimFastMatchesRef) }

func testReduceDimFastMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	ops := []struct {
		name string
		k    foldKind
		mean bool
	}{{"sum_dim", foldSum, false}, {"max_dim", foldMax, false}, {"min_dim", foldMin, false}, {"mean_dim", foldSum, true}}
	for iter := 0; iter < 1500; iter++ {
		dt := floatDTypes[rng.Intn(4)]
		shape := randShape(rng, 1+rng.Intn(4), 9)
		switch rng.Intn(4) {
		case 0: // around the 8-row blocks and the 8-column vectors
			shape[rng.Intn(len(shape))] = 8*rng.Intn(5) + rng.Intn(2)
		case 1: // rows long enough for the 32-lane primitives
			shape[rng.Intn(len(shape))] = 32*rng.Intn(3) + rng.Intn(40)
		}
		dim := rng.Intn(len(shape))
		x := randTensor(rng, dt, shape)
		check := guard(t, x)
		for _, op := range ops {
			fast, err1 := reduceDim(op.name, x, dim, op.k, op.mean, false)
			ref, err2 := reduceDim(op.name, x, dim, op.k, op.mean, true)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if ok, i := sameFloats(fast, ref); !ok {
				t.Fatalf("%s %s %v dim %d: fast != ref at %d: %v vs %v", op.name, dt, shape, dim, i, fast.At(i), ref.At(i))
			}
		}
		if shape[dim] > 0 {
			for _, max := range []bool{true, false} {
				fast, err1 := argDim("argmax_dim", x, dim, max, false)
				ref, err2 := argDim("argmax_dim", x, dim, max, true)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if !bitwise(fast, ref) {
					t.Fatalf("arg max=%v %s %v dim %d: fast != ref", max, dt, shape, dim)
				}
			}
		}
		check()
	}
}

// sum_all / max_all over a random tensor equal a plain flat fold written
// out here in the dtype.
func TestReduceAllRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for iter := 0; iter < 300; iter++ {
		dt := floatDTypes[rng.Intn(4)]
		x := randTensor(rng, dt, randShape(rng, rng.Intn(4), 9))
		rnd := func(v float64) float64 { return roundTo(dt, v) }
		sum, max := 0.0, ninf
		for i := 0; i < x.NumElems(); i++ {
			v := x.At(i)
			sum = rnd(sum + v)
			if v > max {
				max = v
			}
		}
		got, err := SumAll(x)
		wantVals(t, got, err, []int{}, sum)
		got, err = MaxAll(x)
		wantVals(t, got, err, []int{}, max)
	}
}

// The flat sum (the oracle's order, foldAll's unrolled loop) adds one
// element at a time from +0, in index order: checked bitwise against that
// loop on values whose sums round (so any other grouping shows), for
// lengths around the loop's 64-element step.
func TestFlatSumOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for _, n := range []int{1, 7, 63, 64, 65, 127, 128, 129, 200, 1000, 4099} {
		x32 := tensor.New(tensor.F32, []int{n})
		x64 := tensor.New(tensor.F64, []int{n})
		var s32 float32
		var s64 float64
		for i := range n {
			v := rng.NormFloat64() * math.Pow(2, float64(rng.Intn(40)-20))
			x32.F32()[i], x64.F64()[i] = float32(v), v
			s32 += float32(v)
			s64 += v
		}
		for _, c := range []struct {
			x    *tensor.Tensor
			want float64
		}{{x32, float64(s32)}, {x64, s64}} {
			got, err := SumAll(c.x)
			if err != nil {
				t.Fatal(err)
			}
			if g := got.At(0); math.Float64bits(g) != math.Float64bits(c.want) {
				t.Errorf("sum_all of %d %v: %v, want %v (one add at a time)", n, c.x.DType, g, c.want)
			}
		}
	}
}

// roundTo rounds an f64 that is exact as the f32 (or f64) sum of two dtype
// values to the dtype.
func roundTo(dt tensor.DType, v float64) float64 {
	t := tensor.New(dt, []int{})
	switch dt {
	case tensor.F64:
		return v
	case tensor.F32:
		return float64(float32(v))
	}
	t.Set(0, float64(float32(v)))
	return t.At(0)
}

func TestReduceToHandWorked(t *testing.T) {
	x := mk(tensor.F32, []int{2, 3}, 1, 5, 3, 4, 2, 6)
	got, err := ReduceSumTo(x, []int{3})
	wantVals(t, got, err, []int{3}, 5, 7, 9)
	got, err = ReduceSumTo(x, []int{1, 3})
	wantVals(t, got, err, []int{1, 3}, 5, 7, 9)
	got, err = ReduceSumTo(x, []int{2, 1})
	wantVals(t, got, err, []int{2, 1}, 9, 12)
	got, err = ReduceSumTo(x, []int{})
	wantVals(t, got, err, []int{}, 21)
	got, err = ReduceSumTo(x, []int{2, 3})
	wantVals(t, got, err, []int{2, 3}, 1, 5, 3, 4, 2, 6)
	got, err = ReduceMaxTo(x, []int{3})
	wantVals(t, got, err, []int{3}, 4, 5, 6)
	got, err = ReduceMaxTo(x, []int{1})
	wantVals(t, got, err, []int{1}, 6)
	got, err = ReduceMaxTo(mk(tensor.F16, []int{2, 2}, nan, 1, nan, negZero), []int{2, 1})
	wantVals(t, got, err, []int{2, 1}, 1, negZero)
	got, err = ReduceMaxTo(mk(tensor.BF16, []int{2, 1}, nan, nan), []int{1})
	wantVals(t, got, err, []int{1}, ninf)
	got, err = ReduceSumTo(mk(tensor.F64, []int{0, 3}), []int{3})
	wantVals(t, got, err, []int{3}, 0, 0, 0)
	// x [2,1,3] to [2,1,1]: an axis that is 1 in both carries through
	got, err = ReduceSumTo(mk(tensor.F32, []int{2, 1, 3}, 1, 2, 3, 4, 5, 6), []int{2, 1, 1})
	wantVals(t, got, err, []int{2, 1, 1}, 6, 15)
}

// reduce_sum_to / reduce_max_to agree with sum_dim / max_dim when the
// target collapses one axis.
func TestReduceToMatchesDim(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for iter := 0; iter < 300; iter++ {
		dt := floatDTypes[rng.Intn(4)]
		shape := randShape(rng, 1+rng.Intn(4), 6)
		dim := rng.Intn(len(shape))
		x := randTensor(rng, dt, shape)
		target := append([]int{}, shape...)
		target[dim] = 1
		for _, p := range []struct {
			to  func(*tensor.Tensor, []int) (*tensor.Tensor, error)
			dim func(*tensor.Tensor, int) (*tensor.Tensor, error)
		}{{ReduceSumTo, SumDim}, {ReduceMaxTo, MaxDim}} {
			a, err1 := p.to(x, target)
			b, err2 := p.dim(x, dim)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			b.Shape = target
			if ok, i := sameFloats(a, b); !ok {
				t.Fatalf("%s %v dim %d: differ at %d", dt, shape, dim, i)
			}
		}
	}
}

func TestReduceMaxToBackward(t *testing.T) {
	x := mk(tensor.F32, []int{2, 3}, 1, 3, 3, 2, 2, 0)
	up := mk(tensor.F32, []int{2, 1}, 4, 6)
	check := guard(t, x, up)
	got, err := ReduceMaxToBackward(x, up, []int{2, 1})
	check()
	// y = [3, 2], ties split: 4/2 and 6/2
	wantVals(t, got, err, []int{2, 3}, 0, 2, 2, 3, 3, 0)
	// negative upstream: masked-out positions are scaled * 0 = -0
	got, err = ReduceMaxToBackward(x, mk(tensor.F32, []int{2, 1}, -4, -6), []int{2, 1})
	wantVals(t, got, err, []int{2, 3}, negZero, -2, -2, -3, -3, negZero)
	// target given with fewer axes: [3] (left-padded to [1, 3])
	got, err = ReduceMaxToBackward(x, mk(tensor.F32, []int{3}, 1, 1, 1), []int{3})
	wantVals(t, got, err, []int{2, 3}, 0, 1, 1, 1, 0, 0)
	// all-NaN window: y = -inf, mask 0, count 0 → 1, grad 0 (and the NaN
	// element gets scaled*0 = 0)
	got, err = ReduceMaxToBackward(mk(tensor.F64, []int{2}, nan, nan), mk(tensor.F64, []int{1}, 5), []int{1})
	wantVals(t, got, err, []int{2}, 0, 0)
	// infinite upstream: masked-out inf*0 = NaN, literally
	got, err = ReduceMaxToBackward(mk(tensor.F32, []int{2}, 1, 0), mk(tensor.F32, []int{1}, inf), []int{1})
	wantVals(t, got, err, []int{2}, inf, nan)
	// f16 count stalls at 2048: 3000 equal maxima, upstream 2048 → 1 each
	xs := tensor.New(tensor.F16, []int{3000})
	for i := 0; i < 3000; i++ {
		xs.Set(i, 7)
	}
	got, err = ReduceMaxToBackward(xs, mk(tensor.F16, []int{1}, 2048), []int{1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3000; i++ {
		if got.At(i) != 1 {
			t.Fatalf("f16 grad[%d] = %v, want 1 (count stalls at 2048)", i, got.At(i))
		}
	}
	// bf16: 1/3 in the dtype
	got, err = ReduceMaxToBackward(mk(tensor.BF16, []int{3}, 2, 2, 2), mk(tensor.BF16, []int{}, 1), []int{})
	third := float64(tensor.BF16ToF32(tensor.BF16FromF32(1.0 / 3)))
	wantVals(t, got, err, []int{3}, third, third, third)
}

func TestReduceErrors(t *testing.T) {
	x := mk(tensor.F32, []int{2, 3}, 1, 2, 3, 4, 5, 6)
	xi := mk(tensor.I32, []int{2}, 1, 2)
	one := func(f func(*tensor.Tensor) (*tensor.Tensor, error)) func() error {
		return func() error { _, err := f(xi); return err }
	}
	cases := []struct {
		name string
		call func() error
		frag []string
	}{
		{"sum_all dtype", one(SumAll), []string{"sum_all: x has dtype I32 (contract: x dtypes [F32, F64, BF16, F16])"}},
		{"max_all dtype", one(MaxAll), []string{"max_all: x has dtype I32"}},
		{"min_all dtype", one(MinAll), []string{"min_all: x has dtype I32"}},
		{"mean_all dtype", one(MeanAll), []string{"mean_all: x has dtype I32"}},
		{"sum_all nil", func() error { _, err := SumAll(nil); return err }, []string{"sum_all: x is missing"}},
		{"sum_dim dim", func() error { _, err := SumDim(x, 2); return err }, []string{"sum_dim: dim 2 is out of range for x of rank 2 (contract: dim < x.rank)"}},
		{"max_dim negative dim", func() error { _, err := MaxDim(x, -1); return err }, []string{"max_dim: dim -1 is out of range"}},
		{"min_dim rank 0", func() error { _, err := MinDim(mk(tensor.F32, []int{}, 1), 0); return err }, []string{"min_dim: dim 0 is out of range for x of rank 0"}},
		{"mean_dim dtype", func() error { _, err := MeanDim(xi, 0); return err }, []string{"mean_dim: x has dtype I32"}},
		{"argmax empty axis", func() error { _, err := ArgMaxDim(mk(tensor.F32, []int{3, 0}), 1); return err }, []string{"argmax_dim: axis 1 of x F32[3 0] is empty"}},
		{"argmin empty axis no slots", func() error { _, err := ArgMinDim(mk(tensor.F32, []int{0, 0}), 1); return err }, []string{"argmin_dim: axis 1"}},
		{"argmax dim", func() error { _, err := ArgMaxDim(x, 5); return err }, []string{"argmax_dim: dim 5 is out of range"}},
		{"argmin dtype", func() error { _, err := ArgMinDim(xi, 0); return err }, []string{"argmin_dim: x has dtype I32"}},
		{"reduce_sum_to axis", func() error { _, err := ReduceSumTo(x, []int{2}); return err }, []string{"reduce_sum_to: target shape [2]: axis 1 (left-padded with 1s to rank 2) is 2 but the input has 3", "each axis == input size OR 1"}},
		{"reduce_sum_to rank", func() error { _, err := ReduceSumTo(x, []int{1, 2, 3}); return err }, []string{"rank 3 > input rank 2"}},
		{"reduce_max_to axis", func() error { _, err := ReduceMaxTo(x, []int{3, 3}); return err }, []string{"reduce_max_to: target shape [3 3]: axis 0"}},
		{"reduce_max_to dtype", func() error { _, err := ReduceMaxTo(xi, []int{1}); return err }, []string{"reduce_max_to: x has dtype I32"}},
		{"backward upstream shape", func() error {
			_, err := ReduceMaxToBackward(x, mk(tensor.F32, []int{1, 3}, 1, 2, 3), []int{3})
			return err
		}, []string{"reduce_max_to_backward: upstream shape [1 3] differs from the target shape [3]"}},
		{"backward dtype mismatch", func() error {
			_, err := ReduceMaxToBackward(x, mk(tensor.F64, []int{3}, 1, 2, 3), []int{3})
			return err
		}, []string{"upstream has dtype F64 but x has dtype F32"}},
		{"backward target", func() error {
			_, err := ReduceMaxToBackward(x, mk(tensor.F32, []int{2}, 1, 2), []int{2})
			return err
		}, []string{"reduce_max_to_backward: target shape [2]"}},
		{"backward upstream missing", func() error { _, err := ReduceMaxToBackward(x, nil, []int{3}); return err }, []string{"upstream is missing"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantErr(t, c.call(), c.frag...) })
	}
}

// The row folds behind max_dim and argmax_dim on a contiguous axis equal
// the oracle's scans on rows made of the values that decide ties: signed
// zeros, NaN (first or later), -inf and repeats, at every length to 100.
func TestRowFoldsMatchOracle(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	alphabet := []float64{-1, negZero, 0, math.NaN(), math.Inf(-1), math.Inf(1), 2, -2}
	for iter := 0; iter < 4000; iter++ {
		n := 1 + rng.Intn(100)
		dt := []tensor.DType{tensor.F32, tensor.F64}[rng.Intn(2)]
		x := tensor.New(dt, []int{1, n})
		k := 2 + rng.Intn(len(alphabet)-1) // how many letters this row uses
		for i := 0; i < n; i++ {
			x.Set(i, alphabet[rng.Intn(k)])
		}
		for _, max := range []bool{true, false} {
			kind := foldMin
			if max {
				kind = foldMax
			}
			fast, err1 := reduceDim("max_dim", x, 1, kind, false, false)
			ref, err2 := reduceDim("max_dim", x, 1, kind, false, true)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if ok, _ := sameFloats(fast, ref); !ok {
				t.Fatalf("%s max=%v %v: fold %v, oracle %v", dt, max, vals(x), fast.At(0), ref.At(0))
			}
			fa, err1 := argDim("argmax_dim", x, 1, max, false)
			ra, err2 := argDim("argmax_dim", x, 1, max, true)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !bitwise(fa, ra) {
				t.Fatalf("%s arg max=%v %v: %v, oracle %v", dt, max, vals(x), fa.At(0), ra.At(0))
			}
		}
	}
}
