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
	f       float64 // float: the value rounded to float64
	// dec is a finite float's decimal text as written ("2049.0000001"),
	// kept so that a dtype's value is rounded once from it: through the
	// float64 f first, a value just past a half-precision tie can land on
	// the tie and round the wrong way. "" when f is the exact value.
	dec string
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
		// past 2^64-1 it is no integer dtype's, but a float's to round
		if m, err := strconv.ParseUint(digits, 10, 64); err == nil {
			return Scalar{neg: neg && m != 0, mag: m}, nil
		}
	}
	if strings.ContainsAny(s, "_xX") {
		// Go's syntax, which ParseFloat reads, also takes digit separators
		// ("1_0") and hexadecimal floats ("0x1p4"); a fill value is decimal
		return Scalar{}, fmt.Errorf("%q is not a number (a decimal integer or float, inf, nan, true or false)", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return Scalar{}, fmt.Errorf("%q is outside the float64 range", s)
		}
		if !errors.Is(err, strconv.ErrRange) {
			return Scalar{}, fmt.Errorf("%q is not a number", s)
		}
		// below float64's smallest subnormal: ±0 in every dtype (f is ±0)
	}
	v := FloatScalar(f)
	if !math.IsInf(f, 0) && !math.IsNaN(f) && f != 0 {
		if len(s) > maxDecimalLen {
			return Scalar{}, fmt.Errorf("%q has more than %d characters (a fill value is rounded from its exact decimal)", s[:20]+"…", maxDecimalLen)
		}
		v.dec = s
	}
	return v, nil
}

// maxDecimalLen bounds the decimal text kept for exact rounding: 800
// significant digits decide every float64 halfway case, and the exact
// rational of a longer text costs time the user did not mean to spend.
const maxDecimalLen = 1024

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

// String writes the scalar back so that ParseScalar reads the same value:
// a decimal the user wrote comes back as written.
func (s Scalar) String() string {
	if s.dec != "" {
		return s.dec
	}
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
		// the decimal as written must be whole, not its float64
		// ("1.0000000000000000001" rounds to 1.0 but is no integer)
		if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || !s.exact().IsInt() {
			return nil, fmt.Errorf("%v is not an integer, so it cannot fill %s elements", s, dt)
		}
		if math.Abs(f) >= 0x1p64 {
			return nil, rangeError(s, dt, r.loMag, r.hi)
		}
		n := s.exact().Num()
		if !n.IsUint64() && !new(big.Int).Neg(n).IsUint64() {
			return nil, rangeError(s, dt, r.loMag, r.hi)
		}
		neg, mag = n.Sign() < 0, new(big.Int).Abs(n).Uint64()
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
	f := s.f
	if !s.isFloat || s.dec != "" || dt == F16 || dt == BF16 {
		// Round the exact value once, straight to the target's precision
		// (to nearest, ties to even); the float64 it then goes through
		// holds the result exactly. A detour rounds twice: through
		// float64's 53 bits 2^60+2^52+1 became 2^60 in BF16, not
		// 2^60+2^53; through f32 2049.0000001 became F16 2048, not 2050.
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			f = math.Copysign(RoundExact(s.exact(), dt), s.sign())
		}
	}
	return Encode(dt, f), nil
}

// exact is the scalar's exact value (finite scalars only).
func (s Scalar) exact() *big.Rat {
	if !s.isFloat {
		r := new(big.Rat).SetFrac(new(big.Int).SetUint64(s.mag), big.NewInt(1))
		if s.neg {
			r.Neg(r)
		}
		return r
	}
	if s.dec != "" {
		if r, ok := new(big.Rat).SetString(s.dec); ok {
			return r
		}
	}
	return new(big.Rat).SetFloat64(s.f)
}

// sign is -1 for a negative scalar (-0 included), else 1.
func (s Scalar) sign() float64 {
	if s.isFloat && math.Signbit(s.f) || !s.isFloat && s.neg {
		return -1
	}
	return 1
}

// beyond reports a finite value past dt's largest finite one. A float is
// judged by its float64, as PyTorch judges a Python float: the decimal
// printed for BF16's largest value, 3.3895313892515355e38, is a hair above
// it, yet names it. Such a value still rounds to the largest, not past it.
func (s Scalar) beyond(dt DType) bool {
	if s.isFloat {
		return !math.IsInf(s.f, 0) && math.Abs(s.f) > maxFinite[dt]
	}
	return new(big.Float).SetUint64(s.mag).Cmp(big.NewFloat(maxFinite[dt])) > 0
}

// minNormalExp is each float dtype's smallest normal exponent: below
// 2^minNormalExp its values are subnormal, spaced by the smallest one.
var minNormalExp = map[DType]int{F16: -14, BF16: -126, F32: -126, F64: -1022}

// RoundExact rounds the magnitude of the exact value r to float dtype dt
// once, to nearest with ties to even, in dt's precision and exponent range
// (its subnormals included), and returns it as a float64, which holds
// every such value exactly. r must not exceed dt's largest finite value.
func RoundExact(r *big.Rat, dt DType) float64 {
	a := new(big.Rat).Abs(r)
	if a.Sign() == 0 {
		return 0
	}
	num, den := a.Num(), a.Denom()
	// e = floor(log2 a): 2^e ≤ a < 2^(e+1)
	e := num.BitLen() - den.BitLen()
	if cmpPow2(num, den, e) < 0 {
		e--
	}
	p := int(mantissaBits[dt])
	q := max(e, minNormalExp[dt]) - (p - 1) // the exponent of one ulp at a
	// n = a / 2^q rounded to the nearest integer, ties to even
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if q >= 0 {
		d.Lsh(d, uint(q))
	} else {
		n.Lsh(n, uint(-q))
	}
	quo, rem := new(big.Int).QuoRem(n, d, new(big.Int))
	switch c := new(big.Int).Lsh(rem, 1).Cmp(d); {
	case c > 0, c == 0 && quo.Bit(0) == 1:
		quo.Add(quo, big.NewInt(1))
	}
	// quo ≤ 2^p ≤ 2^53: exact in a float64, and so is quo·2^q
	return math.Ldexp(float64(quo.Uint64()), q)
}

// cmpPow2 compares num/den with 2^e.
func cmpPow2(num, den *big.Int, e int) int {
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if e >= 0 {
		d.Lsh(d, uint(e))
	} else {
		n.Lsh(n, uint(-e))
	}
	return n.Cmp(d)
}
