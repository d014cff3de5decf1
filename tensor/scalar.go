package tensor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Scalar is a fill value as the user wrote it (`--value`), kept exact until
// it meets a dtype: an integer literal stays an integer (so -9007199254740993
// reaches an I64 tensor unrounded, where a float64 would round it), anything
// else is a float64. The zero Scalar is the integer 0.
type Scalar struct {
	isFloat bool
	neg     bool    // integer: the sign
	mag     uint64  // integer: the magnitude (|v| ≤ 2^64-1)
	f       float64 // float
}

// IntScalar and FloatScalar build scalars from Go values.
func IntScalar(v int64) Scalar {
	if v < 0 {
		return Scalar{neg: true, mag: uint64(-(v + 1)) + 1}
	}
	return Scalar{mag: uint64(v)}
}

func FloatScalar(v float64) Scalar { return Scalar{isFloat: true, f: v} }

// ParseScalar reads a decimal integer ("-3", "18446744073709551615"), a
// float ("2.5", "1e10", "-0", "nan", "inf", "-inf") or true/false, strictly:
// nothing may follow the number, and it is decimal (no "0x1p4", no "1_0").
func ParseScalar(s string) (Scalar, error) {
	switch strings.ToLower(s) {
	case "true":
		return IntScalar(1), nil
	case "false":
		return IntScalar(0), nil
	}
	digits, neg := s, false
	if strings.HasPrefix(digits, "-") {
		digits, neg = digits[1:], true
	} else {
		digits = strings.TrimPrefix(digits, "+")
	}
	if digits != "" && strings.Trim(digits, "0123456789") == "" && !(neg && isAllZero(digits)) {
		m, err := strconv.ParseUint(digits, 10, 64)
		if err != nil {
			return Scalar{}, fmt.Errorf("%q is outside every integer dtype's range", s)
		}
		return Scalar{neg: neg && m != 0, mag: m}, nil
	}
	if strings.ContainsAny(s, "_xX") {
		// Go's syntax, which ParseFloat reads, also takes digit separators
		// ("1_0") and hexadecimal floats ("0x1p4"); a fill value is decimal
		return Scalar{}, fmt.Errorf("%q is not a number (a decimal integer or float, inf, nan, true or false)", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return Scalar{}, fmt.Errorf("%q is outside the float64 range", s)
		}
		return Scalar{}, fmt.Errorf("%q is not a number", s)
	}
	return FloatScalar(f), nil
}

// "-0" is the float negative zero, not the integer 0.
func isAllZero(s string) bool { return strings.Trim(s, "0") == "" }

// Float64 is the scalar's value as a float64 (rounded for huge integers).
func (s Scalar) Float64() float64 {
	if s.isFloat {
		return s.f
	}
	f := float64(s.mag)
	if s.neg {
		return -f
	}
	return f
}

// IsInt reports whether the scalar was written as an integer.
func (s Scalar) IsInt() bool { return !s.isFloat }

// String writes the scalar back so that ParseScalar reads the same value.
func (s Scalar) String() string {
	if s.isFloat {
		if s.f == math.Trunc(s.f) && math.Abs(s.f) < 1e15 && !(s.f == 0 && math.Signbit(s.f)) {
			return strconv.FormatFloat(s.f, 'f', 1, 64) // "3.0": stays a float literal
		}
		return strconv.FormatFloat(s.f, 'g', -1, 64)
	}
	if s.neg {
		return "-" + strconv.FormatUint(s.mag, 10)
	}
	return strconv.FormatUint(s.mag, 10)
}

// IsZero reports whether the scalar is an integer or float zero (either sign).
func (s Scalar) IsZero() bool {
	if s.isFloat {
		return s.f == 0
	}
	return s.mag == 0
}

// intRange is [lo, hi] of an integer dtype, as (neg, mag) bounds.
var intRange = map[DType]struct {
	loMag uint64 // magnitude of the most negative value (0 for unsigned)
	hi    uint64
}{
	BOOL: {0, 1}, U8: {0, math.MaxUint8}, I8: {128, math.MaxInt8}, I16: {1 << 15, math.MaxInt16},
	U32: {0, math.MaxUint32}, I32: {1 << 31, math.MaxInt32}, I64: {1 << 63, math.MaxInt64},
}

// Encode returns the little-endian bytes of one element of dtype dt holding
// the scalar. Integer dtypes take integers (or integral floats) within their
// range, exactly; float dtypes round to nearest even, and a finite value
// beyond the dtype's largest finite value is an error (as in PyTorch: "value
// cannot be converted … without overflow"); nan and ±inf pass through.
func (s Scalar) Encode(dt DType) ([]byte, error) {
	if dt.IsFloat() {
		return s.encodeFloat(dt)
	}
	r, ok := intRange[dt]
	if !ok {
		return nil, fmt.Errorf("invalid dtype %s", dt)
	}
	neg, mag := s.neg, s.mag
	if s.isFloat {
		f := s.f
		if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
			return nil, fmt.Errorf("%v is not an integer, so it cannot fill %s elements", s, dt)
		}
		if math.Abs(f) >= 0x1p64 {
			return nil, rangeError(s, dt, r.loMag, r.hi)
		}
		neg, mag = f < 0, uint64(math.Abs(f))
	}
	if neg && mag > r.loMag || !neg && mag > r.hi {
		return nil, rangeError(s, dt, r.loMag, r.hi)
	}
	v := mag
	if neg {
		v = -mag // two's complement of the magnitude
	}
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, v)
	return b[:dt.Size()], nil
}

func rangeError(s Scalar, dt DType, loMag, hi uint64) error {
	lo := "0"
	if loMag > 0 {
		lo = "-" + strconv.FormatUint(loMag, 10)
	}
	return fmt.Errorf("%v cannot be converted to %s without overflow (%s range: [%s, %d])", s, dt, dt, lo, hi)
}

// mantissaBits is each float dtype's precision (the implicit bit
// included).
var mantissaBits = map[DType]uint{F16: 11, BF16: 8, F32: 24, F64: 53}

// maxFinite is the largest finite value of each float dtype.
var maxFinite = map[DType]float64{F16: 65504, BF16: 0x1.fep127, F32: math.MaxFloat32, F64: math.MaxFloat64}

func (s Scalar) encodeFloat(dt DType) ([]byte, error) {
	// Beyond the largest finite value is an error before any rounding, as
	// PyTorch's check is (65510 into F16 was rounded down to 65504 and
	// accepted; PyTorch: "value cannot be converted to type at::Half
	// without overflow"). ±inf and nan pass through.
	if s.beyond(dt) {
		return nil, fmt.Errorf("%v cannot be converted to %s without overflow (largest finite %s: %g)", s, dt, dt, maxFinite[dt])
	}
	var f float64
	if s.isFloat {
		f = s.f
	} else {
		// Round the integer once, straight to the target's precision
		// (to nearest, ties to even); the float64 it then goes through
		// holds the result exactly. A detour through float64's 53 bits
		// rounds twice: 2^60+2^52+1 became 2^60 in BF16, not 2^60+2^53.
		bf := new(big.Float).SetUint64(s.mag)
		if s.neg {
			bf.Neg(bf)
		}
		bf.SetPrec(mantissaBits[dt])
		f, _ = bf.Float64()
	}
	return Encode(dt, f), nil
}

// beyond reports a finite value past dt's largest finite one.
func (s Scalar) beyond(dt DType) bool {
	if s.isFloat {
		return !math.IsInf(s.f, 0) && math.Abs(s.f) > maxFinite[dt]
	}
	return new(big.Float).SetUint64(s.mag).Cmp(big.NewFloat(maxFinite[dt])) > 0
}
