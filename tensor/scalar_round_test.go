package tensor

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// floatBits decodes one element of float dtype dt to a float64 (exact).
func floatBits(dt DType, b []byte) float64 {
	switch dt {
	case F16, BF16:
		return float64(HalfToF32(dt, binary.LittleEndian.Uint16(b)))
	case F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// ratOf is the exact rational of a finite float64.
func ratOf(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }

// decimal writes the exact dyadic rational r as a decimal text (every
// dyadic rational has a finite decimal expansion: 2^-k = 5^k/10^k).
func decimal(r *big.Rat) string {
	k := 0
	for d := new(big.Int).Set(r.Denom()); d.Cmp(big.NewInt(1)) > 0; d.Rsh(d, 1) {
		k++
	}
	return r.FloatString(k)
}

// A float fill is rounded once, from its decimal text, to nearest with ties
// to even. The reference is built, not computed: for neighbours v < w of the
// dtype, their exact midpoint m is written as a decimal, and m, m - ε and
// m + ε (ε far below float64's resolution at m, so that a detour through
// float64 or f32 lands on the tie) must give the even one of v and w, v and w.
func TestScalarFillRoundsOnceAtTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []DType{F16, BF16, F32, F64} {
		bits := dt.Size() * 8
		for range 400 {
			var v, w float64
			var vEven bool
			for {
				raw := rng.Uint64() & (1<<bits - 1)
				raw &^= 1 << (bits - 1) // positive; the sign is checked below
				b := make([]byte, 8)
				binary.LittleEndian.PutUint64(b, raw)
				next := make([]byte, 8)
				binary.LittleEndian.PutUint64(next, raw+1)
				v, w = floatBits(dt, b[:dt.Size()]), floatBits(dt, next[:dt.Size()])
				if !math.IsInf(w, 0) && !math.IsNaN(w) && !math.IsNaN(v) {
					vEven = raw&1 == 0
					break
				}
			}
			m := new(big.Rat).Add(ratOf(v), ratOf(w))
			m.Quo(m, big.NewRat(2, 1))
			// ε = (w - v) · 2^-80: far below any float64 step at m
			eps := new(big.Rat).Sub(ratOf(w), ratOf(v))
			eps.Quo(eps, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 80)))
			tie := v
			if !vEven {
				tie = w
			}
			for _, c := range []struct {
				r    *big.Rat
				want float64
			}{
				{m, tie},
				{new(big.Rat).Sub(m, eps), v},
				{new(big.Rat).Add(m, eps), w},
			} {
				for _, sign := range []float64{1, -1} {
					text := decimal(new(big.Rat).Mul(c.r, big.NewRat(int64(sign), 1)))
					if len(text) > maxDecimalLen {
						continue // subnormal F64 midpoints need more digits than a fill takes
					}
					s, err := ParseScalar(text)
					if err != nil {
						t.Fatalf("%s: %v", text, err)
					}
					b, err := s.Encode(dt)
					if err != nil {
						t.Fatalf("%s on %s: %v", text, dt, err)
					}
					if got, want := floatBits(dt, b), sign*c.want; got != want || math.Signbit(got) != math.Signbit(want) {
						t.Fatalf("%s on %s: %v, want %v (neighbours %v, %v)", text, dt, got, want, v, w)
					}
				}
			}
		}
	}
}

// The values a new user met, as NumPy rounds them (np.float16(s)) and as
// the nearest BF16 is; and the page's typed values take the same path.
func TestScalarFillNearest(t *testing.T) {
	for _, c := range []struct {
		v    string
		dt   DType
		bits uint16
	}{
		{"2049.0000001", F16, 0x6801}, // 2050; through f32 it became 2048
		{"1.0004882813", F16, 0x3C01},
		{"257.00001", BF16, 0x4381}, // 258
		{"1.0039062501", BF16, 0x3F81},
		{"2049", F16, 0x6800}, // a tie: to even
		{"1e-8", F16, 0x0000}, // below half of F16's smallest subnormal
		{"3e-8", F16, 0x0001}, // above it
		{"-1e-30", F16, 0x8000},
		{"65504.00000000000001", F16, 0x7bff},
	} {
		s, err := ParseScalar(c.v)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Encode(c.dt)
		if err != nil {
			t.Fatalf("%s on %s: %v", c.v, c.dt, err)
		}
		if got := binary.LittleEndian.Uint16(b); got != c.bits {
			t.Errorf("%s on %s: %#04x, want %#04x", c.v, c.dt, got, c.bits)
		}
	}
	// a decimal is an integer only if it is one as written
	s, _ := ParseScalar("1.0000000000000000001")
	if _, err := s.Encode(I32); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Errorf("1.0000000000000000001 on I32: %v", err)
	}
	// its float64 is 2^63, past I64, but the value as written fits
	s, _ = ParseScalar("9223372036854775807.0")
	if b, err := s.Encode(I64); err != nil || binary.LittleEndian.Uint64(b) != math.MaxInt64 {
		t.Errorf("9223372036854775807.0 on I64: %x %v", b, err)
	}
	// an integer past every integer dtype is still a float's to round
	s, err := ParseScalar("100000000000000000000")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := s.Encode(F32); err != nil || math.Float32frombits(binary.LittleEndian.Uint32(b)) != 1e20 {
		t.Errorf("100000000000000000000 on F32: %x %v", b, err)
	}
	if _, err := s.Encode(I64); err == nil || !strings.Contains(err.Error(), "without overflow") {
		t.Errorf("100000000000000000000 on I64: %v", err)
	}
	// the text comes back as written, so a share link keeps it
	if s, _ := ParseScalar("2049.00000000000000000001"); s.String() != "2049.00000000000000000001" {
		t.Errorf("String: %s", s)
	}
	if _, err := ParseScalar("1." + strings.Repeat("0", 2000) + "1"); err == nil || !strings.Contains(err.Error(), "characters") {
		t.Errorf("a 2000-digit fill: %v", err)
	}
}

// testdata/f16_numpy.txt holds decimal texts and the F16 bits NumPy 1.24
// gives them (np.float16(s)), written by scripts/f16_numpy_golden.py: values
// near F16 ties where the float64 is not itself the tie, so that NumPy's
// own decimal → float64 → float16 rounding is the nearest one.
func TestScalarFillMatchesNumPy(t *testing.T) {
	f, err := os.Open("testdata/f16_numpy.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var text string
		var bits uint16
		if _, err := fmt.Sscanf(sc.Text(), "%s %x", &text, &bits); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		s, err := ParseScalar(text)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Encode(F16)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := binary.LittleEndian.Uint16(b); got != bits {
			t.Errorf("%s: %#04x, NumPy %#04x", text, got, bits)
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d NumPy values", n)
	}
}

// A generated f64 (Gen's uniform, Tensor.Set) is narrowed to a half once,
// as the exact rational reference rounds it; through f32 first, values just
// past a tie landed on it.
func TestHalfNearestF64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []DType{F16, BF16} {
		for i := 0; i < 200000; i++ {
			// a half, its neighbour's midpoint, nudged by a few f64 ulps
			raw := uint16(rng.Uint32())
			h := float64(HalfToF32(dt, raw))
			if math.IsNaN(h) || math.IsInf(h, 0) {
				continue
			}
			f := h
			if i%2 == 0 {
				n := float64(HalfToF32(dt, raw+1))
				if math.IsInf(n, 0) || math.IsNaN(n) || math.Signbit(n) != math.Signbit(h) {
					continue
				}
				f = (h + n) / 2
			}
			for range rng.IntN(4) {
				f = math.Nextafter(f, math.Inf(int(rng.Int32N(2))*2-1))
			}
			if i%7 == 0 {
				f = math.Float64frombits(rng.Uint64()) // anywhere, inf and huge included
			}
			got := HalfNearestF64(dt, f)
			if math.IsNaN(f) {
				if h := HalfToF32(dt, got); !math.IsNaN(float64(h)) {
					t.Fatalf("%s: NaN became %v", dt, h)
				}
				continue
			}
			var want uint16
			if math.Abs(f) > maxFinite[dt] {
				want = HalfFromF32(dt, float32(math.Copysign(math.Inf(1), f)))
				// between the largest and the midpoint to inf, the largest
				if limit := maxFinite[dt] * (1 + math.Ldexp(1, -int(mantissaBits[dt]))); math.Abs(f) < limit {
					want = HalfFromF32(dt, float32(math.Copysign(maxFinite[dt], f)))
				}
			} else {
				b, err := FloatScalar(f).Encode(dt)
				if err != nil {
					t.Fatal(err)
				}
				want = binary.LittleEndian.Uint16(b)
			}
			if got != want {
				t.Fatalf("%s %v (%#x): %#04x, want %#04x", dt, f, math.Float64bits(f), got, want)
			}
		}
	}
}
