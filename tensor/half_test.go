package tensor

import (
	"math"
	"testing"

	"github.com/x448/float16"
)

// Every bf16 bit pattern widens to f32 and narrows back to itself (NaNs
// stay NaN, with the quiet bit set).
func TestBF16RoundTripExhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := BF16ToF32(uint16(h))
		back := BF16FromF32(f)
		if math.IsNaN(float64(f)) {
			if !math.IsNaN(float64(BF16ToF32(back))) {
				t.Fatalf("bf16 %#04x: NaN narrowed to non-NaN %#04x", h, back)
			}
			continue
		}
		if back != uint16(h) {
			t.Fatalf("bf16 %#04x -> %v -> %#04x", h, f, back)
		}
	}
}

// Narrowing rounds to nearest, ties to even, checked against an
// independent reference: exact rational rounding in float64.
func TestBF16NarrowMatchesReference(t *testing.T) {
	ref := func(f float32) uint16 {
		// Candidates: the two bf16 values around f.
		b := math.Float32bits(f)
		lo := uint16(b >> 16)
		hi := lo + 1
		flo, fhi := float64(BF16ToF32(lo)), float64(BF16ToF32(hi))
		x := float64(f)
		dlo, dhi := math.Abs(x-flo), math.Abs(fhi-x)
		if math.IsInf(fhi, 0) && b&0x7f800000 != 0x7f800000 { // hi overflowed: compare to the would-be next value
			dhi = math.Abs(math.Ldexp(float64(BF16ToF32(lo)), 0) + (flo - float64(BF16ToF32(lo-1))) - x)
		}
		switch {
		case dlo < dhi:
			return lo
		case dhi < dlo:
			return hi
		case lo&1 == 0:
			return lo
		}
		return hi
	}
	// Every f32 whose low half is one of a set of interesting patterns,
	// over all high halves (finite, non-NaN).
	lows := []uint32{0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff, 0x4000, 0xc000}
	for hiBits := uint32(0); hiBits < 1<<16; hiBits++ {
		for _, l := range lows {
			b := hiBits<<16 | l
			f := math.Float32frombits(b)
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				continue
			}
			if got, want := BF16FromF32(f), ref(f); got != want {
				t.Fatalf("BF16FromF32(%#08x = %g) = %#04x, want %#04x", b, f, got, want)
			}
		}
	}
}

func TestBF16Ties(t *testing.T) {
	cases := []struct {
		in   uint32
		want uint16
	}{
		{0x3f808000, 0x3f80}, // 1.00390625: exact tie, kept LSB even → down
		{0x3f818000, 0x3f82}, // tie with odd kept LSB → up
		{0x3f808001, 0x3f81}, // just above the tie → up
		{0x3f807fff, 0x3f80}, // just below → down
		{0x7f7fffff, 0x7f80}, // max f32 rounds to +inf
		{0xff7fffff, 0xff80}, // and to -inf
		{0x80000000, 0x8000}, // -0 stays -0
		{0x7f800001, 0x7fc0}, // sNaN with payload only in the low half stays NaN
		{0xffc00000, 0xffc0},
	}
	for _, c := range cases {
		if got := BF16FromF32(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("BF16FromF32(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
}

func TestF16MatchesFloat16Package(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := F16ToF32(uint16(h))
		if f != float16.Frombits(uint16(h)).Float32() && !math.IsNaN(float64(f)) {
			t.Fatalf("F16ToF32(%#04x)", h)
		}
		if !math.IsNaN(float64(f)) && F16FromF32(f) != uint16(h) {
			t.Fatalf("f16 %#04x does not round-trip", h)
		}
	}
	// 2049 is a tie between 2048 and 2050 in f16: even → 2048.
	if got := F16ToF32(F16FromF32(2049)); got != 2048 {
		t.Errorf("f16(2049) = %v, want 2048", got)
	}
}
