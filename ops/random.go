package ops

import (
	"math"
	"math/rand"

	"github.com/fkc-playground/fkc/tensor"
)

// Helpers for the ops' random valid calls (Op.Random) and default Try-it
// cases (Op.Example).

// RandTensor fills a tensor of shape with small random values that are
// exactly representable in dt (quarter steps in [-8, 8) for floats), so
// sums of a few of them are exact and comparisons are meaningful.
func RandTensor(rng *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	FillRandom(rng, t)
	return t
}

// FillRandom overwrites t with RandTensor's values.
func FillRandom(rng *rand.Rand, t *tensor.Tensor) {
	dt, n := t.DType, t.NumElems()
	for i := 0; i < n; i++ {
		switch {
		case dt == tensor.BOOL:
			t.Set(i, float64(rng.Intn(2)))
		case dt.IsFloat():
			t.Set(i, float64(rng.Intn(64)-32)/4)
		case dt == tensor.U8 || dt == tensor.U32:
			t.Set(i, float64(rng.Intn(250)))
		default:
			t.Set(i, float64(rng.Intn(250)-125))
		}
	}
}

// Specials sprinkles NaN, ±inf and -0.0 into a float tensor (for the
// extremum ops whose contracts define what happens to them).
func Specials(rng *rand.Rand, t *tensor.Tensor) {
	if !t.DType.IsFloat() {
		return
	}
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
	for i := 0; i < t.NumElems(); i++ {
		if rng.Intn(8) == 0 {
			t.Set(i, vals[rng.Intn(len(vals))])
		}
	}
}

// randFill is a small fill value inside dt's range.
func randFill(rng *rand.Rand, dt tensor.DType) tensor.Scalar {
	switch dt {
	case tensor.BOOL:
		return tensor.IntScalar(int64(rng.Intn(2)))
	case tensor.U8, tensor.U32:
		return tensor.IntScalar(int64(rng.Intn(9)))
	}
	return tensor.IntScalar(int64(rng.Intn(9) - 4))
}

func randShape(rng *rand.Rand, minRank, maxRank, minDim, maxDim int) []int {
	r := minRank + rng.Intn(maxRank-minRank+1)
	s := make([]int, r)
	for i := range s {
		s[i] = minDim + rng.Intn(maxDim-minDim+1)
	}
	return s
}

// RandIndices is a U32 tensor of shape with values in [0, bound).
func RandIndices(rng *rand.Rand, shape []int, bound int) *tensor.Tensor {
	t := tensor.New(tensor.U32, shape)
	FillIndices(rng, t, bound)
	return t
}

// FillIndices overwrites a U32 tensor with values in [0, bound).
func FillIndices(rng *rand.Rand, t *tensor.Tensor, bound int) {
	u := t.U32()
	for i := range u {
		u[i] = uint32(rng.Intn(bound))
	}
}

// The generators of the Example cases carry the seed and range "random"
// takes (RandomRange), so that switching the form's fill to random draws
// useful values rather than [0, 0]; an index operand's range stays within
// the axis it indexes (indexGen).
func arangeGen(shape string, dt tensor.DType) Gen {
	lo, hi := RandomRange(dt)
	return Gen{Shape: shape, DType: dt.String(), Kind: "arange", Seed: 1, Lo: lo, Hi: hi}
}

func randomGen(shape string, dt tensor.DType, lo, hi float64) Gen {
	return Gen{Shape: shape, DType: dt.String(), Kind: "random", Seed: 1, Lo: lo, Hi: hi}
}

func valuesGen(shape string, dt tensor.DType, values string) Gen {
	lo, hi := RandomRange(dt)
	return Gen{Shape: shape, DType: dt.String(), Kind: "values", Values: values, Seed: 1, Lo: lo, Hi: hi}
}

// indexGen is U32 indices given as values, whose random range is [0, bound).
func indexGen(shape, values string, bound int) Gen {
	g := valuesGen(shape, tensor.U32, values)
	g.Hi = float64(bound - 1)
	return g
}

// tileBlock is how many elements of a Sized input are drawn at random; the
// rest repeats them, so filling costs a memmove, not a draw per element.
const tileBlock = 4096

// TiledTensor is RandTensor's values for the first few thousand elements,
// repeated to fill shape: values as RandTensor gives, built at memmove speed.
func TiledTensor(rng *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	k := min(t.NumElems(), tileBlock)
	copy(t.Data, RandTensor(rng, dt, []int{k}).Data)
	tile(t.Data, k*dt.Size())
	return t
}

// TiledIndices is RandIndices's values in [0, bound) for the first few
// thousand elements, repeated to fill shape.
func TiledIndices(rng *rand.Rand, shape []int, bound int) *tensor.Tensor {
	t := tensor.New(tensor.U32, shape)
	k := min(t.NumElems(), tileBlock)
	copy(t.Data, RandIndices(rng, []int{k}, bound).Data)
	tile(t.Data, 4*k)
	return t
}

// tile repeats b[:k] over all of b, doubling the copied stretch each time.
func tile(b []byte, k int) {
	for n := k; n > 0 && n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// grid is a near-square [r, c] with about n elements, both at least lo.
func grid(n, lo int) (r, c int) {
	c = max(lo, int(math.Round(math.Sqrt(float64(n)))))
	return max(lo, n/c), c
}
