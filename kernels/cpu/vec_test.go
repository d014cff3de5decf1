package cpu

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// Each vector primitive equals its *Go loop: the dispatching function (the
// assembly where there is one) against the Go loop, over lengths 0..70,
// start offsets 0..3 (unaligned vectors) and data full of NaNs, signed
// zeros, infinities and ties.

func vecF32(rng *rand.Rand, n int) []float32 {
	sp := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, -1}
	x := make([]float32, n)
	for i := range x {
		switch r := rng.Intn(8); {
		case r == 0:
			x[i] = sp[rng.Intn(len(sp))]
		case r < 3:
			x[i] = float32(rng.Intn(5) - 2)
		default:
			x[i] = float32(rng.NormFloat64() * 1e3)
		}
	}
	return x
}

func vecF64(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i, v := range vecF32(rng, n) {
		x[i] = float64(v) + float64(rng.Intn(3))*1e-12 // bits below f32's
	}
	return x
}

// sameBits: equal bits, or both NaN (a NaN's payload is the hardware's).
func sameBits[T float](a, b []T) int {
	for i := range a {
		if a[i] != a[i] && b[i] != b[i] {
			continue
		}
		if (a[i] != b[i]) || math.Signbit(float64(a[i])) != math.Signbit(float64(b[i])) {
			return i
		}
	}
	return -1
}

// offsets yields (offset, length) pairs.
func eachLen(t *testing.T, step int, f func(off, n int)) {
	for n := 0; n <= 70; n++ {
		if n%step != 0 {
			continue
		}
		for off := 0; off < 4; off++ {
			f(off, n)
		}
	}
}

func TestLanePrimitives(t *testing.T) {
	if !useAVX2 {
		t.Log("no AVX2 here: the dispatchers are the Go loops themselves")
	}
	rng := rand.New(rand.NewSource(11))
	for _, n := range []int{0, 32, 64, 96, 160, 32 * 20} {
		for off := 0; off < 4; off++ {
			x32 := vecF32(rng, off+n)[off:]
			if off%2 == 1 { // finite: lane sums a wrong order would change
				for i, v := range x32 {
					if v != v || math.IsInf(float64(v), 0) {
						x32[i] = 3
					}
				}
			}
			x64 := vecF64(rng, off+n)[off:]
			type l32 = [lanes]float32
			type l64 = [lanes]float64
			seed32 := func(v float32) *l32 {
				var a l32
				for i := range a {
					a[i] = v
				}
				return &a
			}
			seed64 := func(v float64) *l64 {
				var a l64
				for i := range a {
					a[i] = v
				}
				return &a
			}
			for _, c := range []struct {
				name      string
				fast, go_ func(*l32)
				seed      float32
			}{
				{"sumLanesF32", func(a *l32) { sumLanesF32(x32, a) }, func(a *l32) { sumLanesGo(x32, a) }, 0.5},
				{"max extremeLanesF32", func(a *l32) { extremeLanesF32(x32, a, true) }, func(a *l32) { extremeLanesGo(x32, a, true) }, float32(math.Inf(-1))},
				{"min extremeLanesF32", func(a *l32) { extremeLanesF32(x32, a, false) }, func(a *l32) { extremeLanesGo(x32, a, false) }, float32(math.Inf(1))},
				{"max extremeLanesF32 from -0", func(a *l32) { extremeLanesF32(x32, a, true) }, func(a *l32) { extremeLanesGo(x32, a, true) }, float32(math.Copysign(0, -1))},
			} {
				a, b := seed32(c.seed), seed32(c.seed)
				c.fast(a)
				c.go_(b)
				if i := sameBits(a[:], b[:]); i >= 0 {
					t.Fatalf("%s n %d off %d: lane %d %v, Go loop %v", c.name, n, off, i, a[i], b[i])
				}
			}
			for _, c := range []struct {
				name      string
				fast, go_ func(*l64)
				seed      float64
			}{
				{"sumLanesF64", func(a *l64) { sumLanesF64(x64, a) }, func(a *l64) { sumLanesGo(x64, a) }, 0.25},
				{"max extremeLanesF64", func(a *l64) { extremeLanesF64(x64, a, true) }, func(a *l64) { extremeLanesGo(x64, a, true) }, math.Inf(-1)},
				{"min extremeLanesF64", func(a *l64) { extremeLanesF64(x64, a, false) }, func(a *l64) { extremeLanesGo(x64, a, false) }, math.Inf(1)},
			} {
				a, b := seed64(c.seed), seed64(c.seed)
				c.fast(a)
				c.go_(b)
				if i := sameBits(a[:], b[:]); i >= 0 {
					t.Fatalf("%s n %d off %d: lane %d %v, Go loop %v", c.name, n, off, i, a[i], b[i])
				}
			}
		}
	}
}

func TestElementwisePrimitives(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	eachLen(t, 1, func(off, n int) {
		d1 := vecF32(rng, off+n)[off:]
		d2 := append([]float32{}, d1...)
		s := vecF32(rng, n+1)[1:]
		addF32(d1, s)
		addGo(d2, s)
		if i := sameBits(d1, d2); i >= 0 {
			t.Fatalf("addF32 n %d off %d: element %d", n, off, i)
		}
		e1 := vecF64(rng, off+n)[off:]
		e2 := append([]float64{}, e1...)
		s64 := vecF64(rng, n)
		addF64(e1, s64)
		addGo(e2, s64)
		if i := sameBits(e1, e2); i >= 0 {
			t.Fatalf("addF64 n %d off %d: element %d", n, off, i)
		}
		e2 = append(e2[:0], e1...)
		widenAddF32(e1, s)
		widenAddF32Go(e2, s)
		if i := sameBits(e1, e2); i >= 0 {
			t.Fatalf("widenAddF32 n %d off %d: element %d", n, off, i)
		}
		big := make([]float64, n) // values that round when narrowed, and overflow
		for i := range big {
			big[i] = e1[i] * (1 + 1e-9)
			if i%7 == 3 {
				big[i] = 1e300
			}
		}
		narrowF32(d1, big)
		narrowF32Go(d2, big)
		if i := sameBits(d1, d2); i >= 0 {
			t.Fatalf("narrowF32 n %d off %d: element %d %v vs %v", n, off, i, d1[i], d2[i])
		}
	})
}

func TestSumRows8(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	for _, cols := range []int{0, 8, 16, 24, 40, 64} {
		for _, extra := range []int{0, 1, 5} {
			stride := cols + extra
			x := vecF32(rng, 8*stride+3)[3:]
			if extra != 5 { // finite rows, so that a wrong order shows (NaN hides it)
				for i, v := range x {
					if v != v || math.IsInf(float64(v), 0) {
						x[i] = float32(i % 5)
					}
				}
			}
			var a, b [8]float32
			for i := range a {
				a[i] = float32(i)
				b[i] = float32(i)
			}
			sumRows8F32(x, stride, cols, &a)
			sumRows8F32Go(x, stride, cols, &b)
			if i := sameBits(a[:], b[:]); i >= 0 {
				t.Fatalf("sumRows8F32 cols %d stride %d: row %d %v vs %v", cols, stride, i, a[i], b[i])
			}
		}
	}
}

func TestBlockSums(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for nb := 0; nb <= 3; nb++ {
		for off := 0; off < 4; off++ {
			// Finite data: one NaN or inf in a block would make every sum
			// NaN or inf and hide a wrong fold order.
			x := make([]float32, off+nb*blockLen+5)[off:]
			for i := range x {
				x[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.Intn(40)-20)))
			}
			a, b := make([]float32, nb), make([]float32, nb)
			blockSumsF32(x, a)
			blockSumsGo(x, b)
			if i := sameBits(a, b); i >= 0 {
				t.Fatalf("blockSumsF32 %d blocks off %d: block %d %v, Go loop %v", nb, off, i, a[i], b[i])
			}
		}
	}
}

func TestGatherU32(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	eachLen(t, 1, func(off, n int) {
		for _, rowLen := range []int{1, 7, 64, 5000} {
			row := make([]uint32, rowLen)
			for i := range row {
				row[i] = rng.Uint32()
			}
			idx := make([]uint32, off+n)[off:]
			for i := range idx {
				idx[i] = uint32(rng.Intn(rowLen))
			}
			a, b := make([]uint32, n), make([]uint32, n)
			okA, okB := gatherU32(a, row, idx), gatherRow(b, row, idx)
			if !okA || !okB || !slices.Equal(a, b) {
				t.Fatalf("gatherU32 n %d off %d row %d: %v %v", n, off, rowLen, okA, okB)
			}
			if n > 0 { // one index out of range, anywhere, is reported
				idx[rng.Intn(n)] = uint32(rowLen + rng.Intn(3))
				if gatherU32(a, row, idx) {
					t.Fatalf("gatherU32 n %d off %d row %d: out-of-range index not reported", n, off, rowLen)
				}
			}
		}
	})
}

// extremeF32 equals the Go fold in value; +0 and -0 count as equal (the
// caller settles a zero's sign).
func TestExtremeF32(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	for _, n := range []int{0, 32, 64, 96, 320} {
		for off := 0; off < 4; off++ {
			for _, max := range []bool{true, false} {
				x := vecF32(rng, off+n)[off:]
				if off == 3 { // all NaN: the seed comes back
					for i := range x {
						x[i] = float32(math.NaN())
					}
				}
				a, b := extremeF32(x, max), extremeGo(x, max)
				if a != b {
					t.Fatalf("extremeF32 max=%v n %d off %d: %v, Go fold %v", max, n, off, a, b)
				}
			}
		}
	}
}

// moveBytes is copy(): lengths around its 256-byte threshold and its
// 128-byte blocks, and row sizes of up to 5 KB, every start offset modulo
// 8 on both sides, and the bytes on either side of dst untouched.
func TestMoveBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	src := make([]byte, 5200)
	rng.Read(src)
	for _, n := range []int{0, 1, 127, 128, 255, 256, 257, 383, 384, 385, 1000, 1024, 511, 512, 513, 2047, 2048, 2060, 4095, 4096, 4097, 5000} {
		for so := range 8 {
			for do := range 8 {
				dst := make([]byte, n+16)
				want := slices.Clone(dst)
				copy(want[do:do+n], src[so:so+n])
				moveBytes(dst[do:do+n], src[so:so+n])
				if !slices.Equal(dst, want) {
					t.Fatalf("n %d, src offset %d, dst offset %d: bytes differ", n, so, do)
				}
			}
		}
	}
}

// firstEqualBits (AVX2 where there is, else the Go loop) finds the first
// of several equal elements at every position and length, and len(x) when
// none is equal.
func TestFirstEqualBits(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for n := 0; n < 300; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.Intn(1000)) + 0.5
		}
		if got := firstEqualBits(x, math.Float32bits(-1)); got != n {
			t.Fatalf("n %d, no hit: %d", n, got)
		}
		for trial := 0; trial < 4 && n > 0; trial++ {
			at := rng.Intn(n)
			for i := range x {
				if x[i] == -1 {
					x[i] = 7.5
				}
			}
			x[at] = -1
			if at+1 < n {
				x[at+1+rng.Intn(n-at-1)] = -1 // a later hit never wins
			}
			want := at
			if got := firstEqualBits(x, math.Float32bits(-1)); got != want {
				t.Fatalf("n %d, first hit at %d: got %d", n, want, got)
			}
			if got := firstEqualBitsGo(as[uint32](x), math.Float32bits(-1)); got != want {
				t.Fatalf("Go loop, n %d, first hit at %d: got %d", n, want, got)
			}
		}
	}
}
