package playground

import (
	"math"
	"strconv"

	"github.com/fkc-playground/fkc/tensor"
)

// Format renders element i for display: integers plainly, floats with up to
// 4 significant decimals, and the IEEE specials by name.
func Format(t *tensor.Tensor, i int) string {
	v := t.At(i)
	if !t.DType.IsFloat() {
		if t.DType == tensor.BOOL {
			if v != 0 {
				return "T"
			}
			return "F"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v == 0 && math.Signbit(v):
		return "-0"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e7 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
