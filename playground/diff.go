package playground

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fkc-playground/fkc/tensor"
)

// Diff compares two backends' outputs of one call.
type Diff struct {
	Elems    int    `json:"elems"`
	BitEqual int    `json:"bit_equal"` // elements with identical bytes
	MaxULP   uint64 `json:"max_ulp"`   // floats: largest distance in units in the last place; ints: largest |a-b|
	// Mismatch lists the first few differing elements (flat index).
	Mismatch []Mismatch `json:"mismatch,omitempty"`
	Summary  string     `json:"summary"`
	// Verdict says whether both outputs are what the contract allows
	// (Within), naming the bound (verify.Bound) and the serving kernels'
	// determinism; empty when the outputs differ in kind.
	Verdict string `json:"verdict,omitempty"`
	Within  bool   `json:"within"`
}

// Mismatch is one differing element.
type Mismatch struct {
	Index int    `json:"i"`
	A     string `json:"a"` // every digit needed to tell the two apart
	B     string `json:"b"`
	ABits string `json:"a_bits"` // the element's bit pattern, hex
	BBits string `json:"b_bits"`
	ULP   uint64 `json:"ulp"`
}

// FormatExact renders element i with as many digits as its dtype needs to
// round-trip (Format's 4 significant digits hide a few-ULP difference).
func FormatExact(t *tensor.Tensor, i int) string {
	if !t.DType.IsFloat() || math.IsNaN(t.At(i)) || math.IsInf(t.At(i), 0) {
		return Format(t, i)
	}
	bits := 32
	if t.DType == tensor.F64 {
		bits = 64
	}
	return strconv.FormatFloat(t.At(i), 'g', -1, bits)
}

// Bits is element i's bit pattern in hex, as wide as the dtype.
func Bits(t *tensor.Tensor, i int) string {
	w := t.DType.Size()
	var u uint64
	for b := w - 1; b >= 0; b-- {
		u = u<<8 | uint64(t.Data[i*w+b])
	}
	return fmt.Sprintf("0x%0*x", 2*w, u)
}

// Compare diffs a against b bit by bit, and by ULP distance for floats.
// NaNs of any payload are 0 ULP apart (but not bit-equal unless identical).
func Compare(a, b *tensor.Tensor) Diff {
	var d Diff
	if a.DType != b.DType || !slices.Equal(a.Shape, b.Shape) {
		d.Summary = fmt.Sprintf("outputs differ in kind: %s vs %s", a, b)
		return d
	}
	n := a.NumElems()
	w := a.DType.Size()
	d.Elems = n
	for i := range n {
		if bytes.Equal(a.Data[i*w:(i+1)*w], b.Data[i*w:(i+1)*w]) {
			d.BitEqual++
			continue
		}
		u := ulps(a, b, i)
		d.MaxULP = max(d.MaxULP, u)
		if len(d.Mismatch) < 8 {
			d.Mismatch = append(d.Mismatch, Mismatch{Index: i, A: FormatExact(a, i), B: FormatExact(b, i),
				ABits: Bits(a, i), BBits: Bits(b, i), ULP: u})
		}
	}
	switch {
	case d.BitEqual == n:
		d.Summary = fmt.Sprintf("bitwise identical (%d elements)", n)
	case a.DType.IsFloat():
		d.Summary = fmt.Sprintf("%d of %d elements differ; max %d ULP", n-d.BitEqual, n, d.MaxULP)
	default:
		d.Summary = fmt.Sprintf("%d of %d elements differ; max |a-b| = %d", n-d.BitEqual, n, d.MaxULP)
	}
	return d
}

// ulps is the distance between element i of a and b on the dtype's
// ordered integer line (sign-magnitude mapped so that -0 == +0).
func ulps(a, b *tensor.Tensor, i int) uint64 {
	x, y := a.At(i), b.At(i)
	if !a.DType.IsFloat() {
		return uint64(math.Abs(x - y))
	}
	if math.IsNaN(x) && math.IsNaN(y) {
		return 0
	}
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.MaxUint64
	}
	var ox, oy int64
	switch a.DType {
	case tensor.F64:
		ox, oy = ordered(math.Float64bits(x), 64), ordered(math.Float64bits(y), 64)
	case tensor.F32:
		ox, oy = ordered(uint64(math.Float32bits(float32(x))), 32), ordered(uint64(math.Float32bits(float32(y))), 32)
	default:
		ox = ordered(uint64(tensor.HalfFromF32(a.DType, float32(x))), 16)
		oy = ordered(uint64(tensor.HalfFromF32(a.DType, float32(y))), 16)
	}
	if ox > oy {
		return uint64(ox - oy)
	}
	return uint64(oy - ox)
}

func ordered(bits uint64, width uint) int64 {
	sign := uint64(1) << (width - 1)
	if bits&sign != 0 {
		return -int64(bits &^ sign)
	}
	return int64(bits)
}
