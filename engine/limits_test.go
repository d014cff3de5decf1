package engine_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// Shape arithmetic at the edges: every op with sizes, pads,
// dims and index values near the int64 and uint32 limits, on the CPU and on
// Vulkan when an adapter is present. Each call either runs — and then both
// backends give the same bits — or is refused with a contract violation or
// a typed "not on this adapter"; never a panic ("internal error"), never a
// size that wrapped, and the two backends refuse with the same words where
// both refuse on the contract.
func TestShapeArithmeticAtTheLimits(t *testing.T) {
	e := newEngine(t)
	backends := []engine.Backend{engine.CPU}
	if dev, err := gpu.OpenNative(); err == nil {
		defer dev.Close()
		e.Attach(dev)
		backends = append(backends, engine.Vulkan)
	} else {
		t.Logf("no Vulkan adapter (%v): CPU only", err)
	}
	const maxI, maxU = math.MaxInt64, math.MaxUint32
	empty := func(dt tensor.DType, shape ...int) *tensor.Tensor { return tensor.New(dt, shape) }
	u32 := func(shape []int, v ...uint32) *tensor.Tensor {
		t := tensor.New(tensor.U32, shape)
		copy(t.U32(), v)
		return t
	}
	ints := func(dt tensor.DType, shape []int, v ...int64) *tensor.Tensor {
		t := tensor.New(dt, shape)
		for i, x := range v {
			t.Set(i, float64(x))
		}
		return t
	}
	x5 := f32([]int{5}, 1, 2, 3, 4, 5)
	x23 := f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	pad := func(x *tensor.Tensor, m kernels.Mode, ps ...kernels.Pad) *kernels.Call { return ops.Pad(x, m, ps...) }
	p := func(b, a int) kernels.Pad { return kernels.Pad{Before: b, After: a} }
	cases := []struct {
		name string
		c    *kernels.Call
		ok   bool // runs (else: refused)
	}{
		{"pad sum past int64", pad(x5, kernels.Constant, p(maxI, maxI-1)), false},
		{"pad sum just past int64", pad(x5, kernels.Constant, p(maxI-4, 0)), false},
		{"pad past the element cap", pad(x5, kernels.Replicate, p(0, 1<<31)), false},
		{"pad at 2^32 on the GPU's u32", pad(x5, kernels.Constant, p(0, 1<<32)), false},
		{"pad at 2^32-1", pad(x5, kernels.Constant, p(0, maxU)), false},
		{"reflect at n", pad(x5, kernels.Reflect, p(5, 0)), false},
		{"reflect at n-1", pad(x5, kernels.Reflect, p(4, 4)), true},
		{"empty axis, huge pad elsewhere", pad(empty(tensor.F32, 0, 3), kernels.Constant, p(0, 0), p(0, 1<<40)), false},
		{"empty axis, wide legal pad", pad(empty(tensor.F32, 0, 3), kernels.Constant, p(0, 0), p(1000, 1000)), true},
		{"negative pad", pad(x5, kernels.Constant, p(-1, 0)), false},
		{"pad_backward, pads past the size", ops.PadBackward(x5, kernels.Replicate, p(maxI, maxI)), false},
		{"pad_backward, before+after wraps", ops.PadBackward(x5, kernels.Constant, p(maxI, 2)), false},
		{"pad_backward replicate, all padding", ops.PadBackward(x5, kernels.Replicate, p(2, 2)), true},
		{"sum dim int64 max", ops.Sum(x23, maxI), false},
		{"sum dim 2^32", ops.Sum(x23, 1<<32), false},
		{"argmax dim 2^32+1", ops.ArgMax(x23, 1<<32+1), false},
		{"reduce_sum_to huge target", ops.ReduceTo("reduce_sum_to", x23, []int{maxI, 3}), false},
		{"reduce_max_to target 2^32", ops.ReduceTo("reduce_max_to", x23, []int{1 << 32}), false},
		{"gather index u32 max", ops.Gather(x23, u32([]int{2, 1}, 0, maxU), 1), false},
		{"gather dim 2^32", ops.Gather(x23, u32([]int{2, 1}, 0, 0), 1<<32), false},
		{"index_select index 2^32-1", ops.IndexSelect(x23, u32([]int{1}, maxU), 0), false},
		{"index_select last legal index", ops.IndexSelect(x23, u32([]int{2}, 1, 1), 0), true},
		{"index_add index u32 max", ops.AddCall("index_add", x23, u32([]int{1}, maxU), f32([]int{1, 3}, 1, 1, 1), 0), false},
		{"scatter_add index u32 max", ops.AddCall("scatter_add", x23, u32([]int{1, 1}, maxU), f32([]int{1, 1}, 1), 1), false},
		{"embedding id u32 max", ops.Embedding(x23, u32([]int{1}, maxU)), false},
		// I32/I64 indices are converted once, checked first: 2^32+1 would
		// be a valid 1 as a U32, -1 a huge one
		{"gather I64 index 2^32+1", ops.Gather(x23, ints(tensor.I64, []int{2, 1}, 0, 1<<32+1), 1), false},
		{"gather I64 index -1", ops.Gather(x23, ints(tensor.I64, []int{2, 1}, 0, -1), 1), false},
		{"gather I64, dim -1", ops.Gather(x23, ints(tensor.I64, []int{2, 2}, 2, 0, 1, 1), -1), true},
		{"index_select I32 last legal", ops.IndexSelect(x23, ints(tensor.I32, []int{2}, 1, 1), 0), true},
		{"index_add I64 index min int64", ops.AddCall("index_add", x23, ints(tensor.I64, []int{1}, math.MinInt64), f32([]int{1, 3}, 1, 1, 1), 0), false},
		{"scatter_add I32, dim -2", ops.AddCall("scatter_add", x23, ints(tensor.I32, []int{1, 3}, 1, 0, 1), f32([]int{1, 3}, 1, 2, 3), -2), true},
		{"embedding I64 id -2", ops.Embedding(x23, ints(tensor.I64, []int{1}, -2)), false},
		{"sum dim -1", ops.Sum(x23, -1), true},
		{"argmax dim -2", ops.ArgMax(x23, -2), true},
		{"sum dim -3 of rank 2", ops.Sum(x23, -3), false},
		{"sum dim min int + 1", ops.Sum(x23, math.MinInt+1), false},
		{"masked_fill int64 min, exact", ops.MaskedFill(tensor.New(tensor.I64, []int{2}), u8bool(1, 0), tensor.IntScalar(math.MinInt64)), true},
		{"masked_fill past int64", ops.MaskedFill(tensor.New(tensor.I64, []int{2}), u8bool(1, 0), mustScalar("9223372036854775808")), false},
		{"masked_fill u32 max, exact", ops.MaskedFill(tensor.New(tensor.U32, []int{2}), u8bool(1, 1), tensor.IntScalar(maxU)), true},
		{"masked_fill 2^32 on u32", ops.MaskedFill(tensor.New(tensor.U32, []int{2}), u8bool(1, 1), tensor.IntScalar(1<<32)), false},
	}
	for _, tc := range cases {
		var outs []*tensor.Tensor
		var errs []error
		for _, b := range backends {
			res, err := e.Run(b, tc.c)
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Errorf("%s on %s: %v", tc.name, b, err)
			}
			if res != nil {
				outs = append(outs, res.Out)
			}
			errs = append(errs, err)
			var v *kernels.Violation
			var u *kernels.Unavailable
			switch {
			case tc.ok && err != nil:
				t.Errorf("%s on %s: %v", tc.name, b, err)
			case !tc.ok && err == nil:
				t.Errorf("%s on %s ran: %s", tc.name, b, res.Out)
			case err != nil && !errors.As(err, &v) && !errors.As(err, &u):
				t.Errorf("%s on %s: %v is neither a violation nor not-on-this-adapter", tc.name, b, err)
			}
		}
		if len(outs) == 2 && (outs[0].String() != outs[1].String() || string(outs[0].Data) != string(outs[1].Data)) {
			t.Errorf("%s: CPU %s and Vulkan %s differ", tc.name, outs[0], outs[1])
		}
		// The CPU refuses on the contract; where the GPU also refuses on
		// the contract (not on a limit of its own), it says the same.
		var v0, v1 *kernels.Violation
		if len(errs) == 2 && errs[0] != nil && errs[1] != nil && errors.As(errs[0], &v0) && errors.As(errs[1], &v1) && v0.Error() != v1.Error() {
			t.Errorf("%s: CPU says %q, Vulkan %q", tc.name, v0, v1)
		}
	}
}

func u8bool(v ...byte) *tensor.Tensor {
	t := tensor.New(tensor.BOOL, []int{len(v)})
	copy(t.Data, v)
	return t
}

func mustScalar(s string) tensor.Scalar {
	v, err := tensor.ParseScalar(s)
	if err != nil {
		panic(err)
	}
	return v
}
