package ops

import (
	"math"
	"math/rand"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Random valid calls for `fkc verify` and the registry-walking tests.

// RandTensor fills a tensor of shape with small random values that are
// exactly representable in dt (quarter steps in [-8, 8) for floats), so
// sums of a few of them are exact and comparisons are meaningful.
func RandTensor(rng *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	n := t.NumElems()
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
	return t
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

func randShape(rng *rand.Rand, minRank, maxRank, minDim, maxDim int) []int {
	r := minRank + rng.Intn(maxRank-minRank+1)
	s := make([]int, r)
	for i := range s {
		s[i] = minDim + rng.Intn(maxDim-minDim+1)
	}
	return s
}

func randIndices(rng *rand.Rand, shape []int, bound int) *tensor.Tensor {
	t := tensor.New(tensor.U32, shape)
	u := t.U32()
	for i := range u {
		u[i] = uint32(rng.Intn(bound))
	}
	return t
}

// RandomCall builds a valid random call for op/variant on dtype dt.
// maxRank bounds the rank (the Vulkan pad family takes rank 1..=8).
func RandomCall(rng *rand.Rand, variant string, dt tensor.DType, maxRank int) *Call {
	c := &Call{Dim: -1, Inputs: map[string]*tensor.Tensor{}}
	op, sub, _ := cutSlash(variant)
	c.Op = op
	switch op {
	case "pad", "pad_backward":
		c.Mode, _ = kernels.ParseMode(sub)
		in := randShape(rng, 1, min(maxRank, 4), 1, 6)
		c.Padding = make([]kernels.Pad, len(in))
		for i, n := range in {
			lim := 3
			if c.Mode == kernels.Reflect {
				lim = n - 1
			}
			c.Padding[i] = kernels.Pad{Before: rng.Intn(lim + 1), After: rng.Intn(lim + 1)}
		}
		if op == "pad" {
			c.Inputs["x"] = RandTensor(rng, dt, in)
			if c.Mode == kernels.Constant {
				c.Value = float64(rng.Intn(9) - 4)
			}
		} else {
			out, _ := kernels.PadOutShape(op, c.Mode, in, c.Padding)
			c.Inputs["grad_out"] = RandTensor(rng, dt, out)
		}
	case "masked_fill":
		s := randShape(rng, 0, min(maxRank, 3), 1, 9)
		c.Inputs["x"] = RandTensor(rng, dt, s)
		c.Inputs["mask"] = RandTensor(rng, tensor.BOOL, s)
		c.Value = float64(rng.Intn(9) - 4)
	case "sum", "max", "min", "mean", "argmax", "argmin":
		s := randShape(rng, 1, min(maxRank, 3), 1, 7)
		x := RandTensor(rng, dt, s)
		if op != "sum" && op != "mean" {
			Specials(rng, x)
		}
		c.Inputs["x"] = x
		if sub == "dim" || op == "argmax" || op == "argmin" {
			c.Dim = rng.Intn(len(s))
		}
	case "reduce_sum_to", "reduce_max_to", "reduce_max_to_backward":
		s := randShape(rng, 1, min(maxRank, 3), 1, 5)
		drop := rng.Intn(len(s))
		tgt := make([]int, 0, len(s))
		for i := drop; i < len(s); i++ {
			if rng.Intn(2) == 0 {
				tgt = append(tgt, 1)
			} else {
				tgt = append(tgt, s[i])
			}
		}
		c.Shape = tgt
		c.Inputs["x"] = RandTensor(rng, dt, s)
		if op == "reduce_max_to_backward" {
			// Few distinct values so that ties (fair-share splits) occur.
			x := c.Inputs["x"]
			for i := 0; i < x.NumElems(); i++ {
				x.Set(i, float64(rng.Intn(3)))
			}
			c.Inputs["upstream"] = RandTensor(rng, dt, tgt)
		}
	case "index_select":
		s := randShape(rng, 1, min(maxRank, 3), 1, 6)
		c.Dim = rng.Intn(len(s))
		c.Inputs["data"] = RandTensor(rng, dt, s)
		c.Inputs["indices"] = randIndices(rng, []int{rng.Intn(8)}, s[c.Dim])
	case "gather":
		s := randShape(rng, 1, min(maxRank, 3), 1, 6)
		c.Dim = rng.Intn(len(s))
		is := make([]int, len(s))
		for i := range s {
			if i == c.Dim {
				is[i] = rng.Intn(7)
			} else {
				is[i] = 1 + rng.Intn(s[i])
			}
		}
		c.Inputs["data"] = RandTensor(rng, dt, s)
		c.Inputs["indices"] = randIndices(rng, is, s[c.Dim])
	case "index_add":
		s := randShape(rng, 1, min(maxRank, 3), 1, 6)
		c.Dim = rng.Intn(len(s))
		k := rng.Intn(8)
		ss := append([]int{}, s...)
		ss[c.Dim] = k
		c.Inputs["base"] = RandTensor(rng, dt, s)
		c.Inputs["indices"] = randIndices(rng, []int{k}, s[c.Dim])
		c.Inputs["src"] = RandTensor(rng, dt, ss)
	case "scatter_add":
		s := randShape(rng, 1, min(maxRank, 3), 1, 6)
		c.Dim = rng.Intn(len(s))
		ss := make([]int, len(s))
		for i := range s {
			if i == c.Dim {
				ss[i] = rng.Intn(7)
			} else {
				ss[i] = 1 + rng.Intn(s[i])
			}
		}
		c.Inputs["base"] = RandTensor(rng, dt, s)
		c.Inputs["indices"] = randIndices(rng, ss, s[c.Dim])
		c.Inputs["src"] = RandTensor(rng, dt, ss)
	case "embedding":
		v, d := 1+rng.Intn(9), 1+rng.Intn(9)
		c.Inputs["table"] = RandTensor(rng, dt, []int{v, d})
		c.Inputs["ids"] = randIndices(rng, []int{rng.Intn(9)}, v)
	}
	return c
}

func cutSlash(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
