package cpu

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// The order is the contract's, not the flat fold's: 2^24 + 1 + 1 is 2^24
// folded flat in f32 (each +1 ties to even), but the two ones sit in lanes
// 1 and 3, meet first at the h = 2 step and add 2 to 2^24 exactly.
func TestSumAllBlockedHandWorked(t *testing.T) {
	x := tensor.New(tensor.F32, []int{33})
	x.F32()[0], x.F32()[1], x.F32()[3] = 1<<24, 1, 1
	got, err := SumAllBlocked(x)
	wantVals(t, got, err, []int{}, 1<<24+2)
	flat, err := SumAll(x)
	wantVals(t, flat, err, []int{}, 1<<24)

	empty, err := SumAllBlocked(tensor.New(tensor.F16, []int{0, 3}))
	wantVals(t, empty, err, []int{}, 0)
	negz, err := SumAllBlocked(mk(tensor.F64, []int{1}, negZero)) // +0 + -0
	wantVals(t, negz, err, []int{}, 0)

	_, err = SumAllBlocked(u32s([]int{2}, 1, 2))
	wantErr(t, err, "sum_all_blocked", "x")
}

// Fast == reference walk, bitwise up to NaN payloads, across the block and
// lane boundaries, every float dtype, one to three workers.
func TestSumAllBlockedMatchesRef(t *testing.T) { atThreads(t, testSumAllBlockedMatchesRef) }

func testSumAllBlockedMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	sizes := []int{0, 1, 31, 32, 33, 95, blockLen - 1, blockLen, blockLen + 1, 3*blockLen + 17, 5 * blockLen}
	for iter := 0; iter < 60; iter++ {
		n := rng.Intn(4 * blockLen)
		if iter < len(sizes) {
			n = sizes[iter]
		}
		dt := floatDTypes[rng.Intn(4)]
		x := randTensor(rng, dt, []int{n})
		if iter%2 == 0 {
			// Mostly finite data: a NaN or inf in every block would make
			// every sum NaN or inf and hide a wrong order.
			for i := 0; i < n; i++ {
				if v := x.At(i); math.IsNaN(v) || math.IsInf(v, 0) {
					x.Set(i, float64(i%7)-3)
				}
			}
		}
		check := guard(t, x)
		fast, err1 := SumAllBlocked(x)
		ref, err2 := SumAllBlockedRef(x)
		check()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if ok, _ := sameFloats(fast, ref); !ok {
			t.Fatalf("%s[%d]: fast %v, reference walk %v", dt, n, fast.At(0), ref.At(0))
		}
	}
}

// The contract's error bound: |sum − exact| ≤ γ_d·Σ|x| with
// d = blockLen/32 − 1 + 5 + ⌈log2(blocks)⌉ and γ_d = d·u/(1 − d·u).
func TestSumAllBlockedErrorBound(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
		u := map[tensor.DType]float64{tensor.F32: 0x1p-24, tensor.F64: 0x1p-53}[dt]
		for _, n := range []int{100, blockLen * 3, 300001} {
			x := tensor.New(dt, []int{n})
			exact, absSum := new(big.Float).SetPrec(2000), 0.0
			for i := 0; i < n; i++ {
				x.Set(i, rng.NormFloat64()*math.Pow(2, float64(rng.Intn(30)-15)))
				v := x.At(i)
				exact.Add(exact, big.NewFloat(v))
				absSum += math.Abs(v)
			}
			blocks := (n + blockLen - 1) / blockLen
			d := float64(blockLen/lanes - 1 + 5 + int(math.Ceil(math.Log2(float64(blocks)))))
			bound := d * u / (1 - d*u) * absSum
			got, err := SumAllBlocked(x)
			if err != nil {
				t.Fatal(err)
			}
			e, _ := exact.Float64()
			if diff := math.Abs(got.At(0) - e); diff > bound {
				t.Errorf("%s[%d]: error %g above the bound %g", dt, n, diff, bound)
			}
		}
	}
}
