package tensor

import (
	"math"

	"github.com/x448/float16"
)

// BF16FromF32 narrows an f32 to bf16 (the high 16 bits of an f32) with
// round-to-nearest-even. NaN stays NaN: the quiet bit is forced so that a NaN
// whose payload lives only in the low 16 bits cannot round to ±inf.
func BF16FromF32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN
		return uint16(b>>16) | 0x0040
	}
	// Add 0x7fff plus the lowest kept bit: ties go to the even kept value.
	// Overflow into the exponent correctly yields ±inf.
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16ToF32 widens bf16 bits to f32 exactly.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F16FromF32 narrows to IEEE binary16 with round-to-nearest-even.
func F16FromF32(f float32) uint16 { return uint16(float16.Fromfloat32(f)) }

// F16ToF32 widens binary16 bits to f32 exactly.
func F16ToF32(h uint16) float32 { return float16.Frombits(h).Float32() }

// HalfToF32 widens a half of dtype d (F16 or BF16).
func HalfToF32(d DType, h uint16) float32 {
	if d == BF16 {
		return BF16ToF32(h)
	}
	return F16ToF32(h)
}

// HalfFromF32 narrows to a half of dtype d (F16 or BF16) with round-to-nearest-even.
func HalfFromF32(d DType, f float32) uint16 {
	if d == BF16 {
		return BF16FromF32(f)
	}
	return F16FromF32(f)
}

// HalfFromF64 narrows f64→f32→half, the double rounding the pad-backward
// contracts specify ("narrow f64->f32->bf16 on store"). A value (a fill,
// a generated input) is narrowed once instead: HalfNearestF64.
func HalfFromF64(d DType, f float64) uint16 { return HalfFromF32(d, float32(f)) }

// HalfNearestF64 narrows an f64 to a half of dtype d once, to nearest with
// ties to even. The f64 goes to f32 rounded to odd (truncated, its last bit
// set when anything was cut off), which keeps enough of what was cut for
// the one rounding to the half's 11 or 8 bits to be the nearest: f32's 24
// bits exceed either by more than two.
func HalfNearestF64(d DType, f float64) uint16 {
	if math.IsNaN(f) {
		return HalfFromF32(d, float32(f))
	}
	g := float32(f)
	if float64(g) != f {
		if math.Abs(float64(g)) > math.Abs(f) { // rounded away from zero: truncate
			g = math.Nextafter32(g, 0)
		}
		g = math.Float32frombits(math.Float32bits(g) | 1)
	}
	return HalfFromF32(d, g)
}
