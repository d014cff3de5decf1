//go:build !js

package gpu

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Issue 9, row 1 (GPU part): a pad or size that does not fit the kernels'
// u32 words is refused as a contract violation — never wrapped into a
// small (or empty) result. The class: pads at and past 2^32, pads whose
// int sum wraps, on every pad entry point, with empty and non-empty
// outputs.
func TestSizesNeverWrap(t *testing.T) {
	d := device(t)
	const big = 9223372036854775807
	x3 := tensor.New(tensor.F32, []int{3})
	x03 := tensor.New(tensor.F32, []int{0, 3})
	g4 := tensor.New(tensor.F32, []int{4})
	cases := []struct {
		name string
		run  func() (*tensor.Tensor, error)
	}{
		{"pad constant 2^63-1:2^63-2 (the int sum wraps to 0)", func() (*tensor.Tensor, error) {
			return d.Pad(x3, kernels.Constant, pp(big, big-1), make([]byte, 4))
		}},
		{"pad constant 2^63-1:2^63-1", func() (*tensor.Tensor, error) {
			return d.Pad(x3, kernels.Constant, pp(big, big), make([]byte, 4))
		}},
		{"pad constant 2^32 on an empty output", func() (*tensor.Tensor, error) {
			return d.Pad(x03, kernels.Constant, pp(0, 0, 1<<32, 0), make([]byte, 4))
		}},
		{"pad replicate 2^32-1+1 on an empty output", func() (*tensor.Tensor, error) {
			return d.Pad(x03, kernels.Replicate, pp(0, 0, 0, 1<<32), nil)
		}},
		{"pad_backward replicate 2^63-1:2^63-1", func() (*tensor.Tensor, error) {
			return d.PadBackward(g4, kernels.Replicate, pp(big, big))
		}},
		{"pad_backward (gather) replicate 2^63-1:2^63-1", func() (*tensor.Tensor, error) {
			return d.PadBackwardGather(g4, kernels.Replicate, pp(big, big))
		}},
		{"pad_backward (gather) constant 2^63-1:2^63-2", func() (*tensor.Tensor, error) {
			return d.PadBackwardGather(g4, kernels.Constant, pp(big, big-1))
		}},
	}
	for _, c := range cases {
		out, err := c.run()
		var v *kernels.Violation
		if !errors.As(err, &v) {
			t.Errorf("%s: got %v, %v; want a contract violation", c.name, out, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
	// Pads that fit are fine right up to the limit of what exists.
	if out, err := d.Pad(x03, kernels.Constant, pp(0, 0, 1<<31-3, 0), make([]byte, 4)); err != nil || out.NumElems() != 0 {
		t.Errorf("pad 2^31-3 on an empty output: got %v, %v; want an empty tensor", out, err)
	}
}

// Issue 9, row 4: a call whose buffers exceed the adapter's limits fails
// with the limit error before any host table, host tensor or device buffer
// is built: fast, and allocating next to nothing. The class: the pad
// tables (both table paths), the pad backward's gather tables, the index
// movers' output, the adds' bucket tables.
func TestOversizedCallFailsBeforeBuilding(t *testing.T) {
	d := device(t)
	lim := d.Info().MaxStorageBufferBindingSize
	if lim > 256<<20 {
		t.Skipf("adapter allows %d-byte bindings: the oversized inputs would be too big for a test", lim)
	}
	over := int(lim/4) + 1 // f32 elements just over the limit
	i8 := tensor.New(tensor.I8, []int{5})
	grad := tensor.New(tensor.F32, []int{over})
	data := tensor.New(tensor.F32, []int{1, 1 << 10})
	rows := tensor.New(tensor.U32, []int{over >> 10})
	base := tensor.New(tensor.F32, []int{2, 1})
	src := tensor.New(tensor.F32, []int{2, over/2 + 1})
	addIdx := tensor.New(tensor.U32, []int{over/2 + 1})
	tall := tensor.New(tensor.F32, []int{over, 1})
	cases := []struct {
		name string
		run  func() (*tensor.Tensor, error)
	}{
		{"pad constant i8[5] 0:2147483643 (issue 9 row 4)", func() (*tensor.Tensor, error) {
			return d.Pad(i8, kernels.Constant, pp(0, 2147483643), []byte{0})
		}},
		{"pad replicate f32[1] 0:limit/4 (table path)", func() (*tensor.Tensor, error) {
			return d.Pad(tensor.New(tensor.F32, []int{1}), kernels.Replicate, pp(0, over), nil)
		}},
		{"pad constant f32[limit/4, 1] (shape path)", func() (*tensor.Tensor, error) {
			return d.Pad(tall, kernels.Constant, pp(0, 0, 0, 2), make([]byte, 4))
		}},
		{"pad_backward (gather) reflect of f32[limit/4+1]", func() (*tensor.Tensor, error) {
			return d.PadBackwardGather(grad, kernels.Reflect, pp(1, 1))
		}},
		{"pad_backward (CAS) replicate of f32[limit/4+1]", func() (*tensor.Tensor, error) {
			return d.PadBackward(grad, kernels.Replicate, pp(1, 1))
		}},
		{"index_select output over the limit", func() (*tensor.Tensor, error) {
			return d.IndexSelect(data, rows, 0)
		}},
		{"index_add with src over the limit", func() (*tensor.Tensor, error) {
			return d.IndexAdd(base, addIdx, src, 1)
		}},
	}
	for _, c := range cases {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		out, err := c.run()
		el := time.Since(t0)
		runtime.ReadMemStats(&m1)
		alloc := m1.TotalAlloc - m0.TotalAlloc
		var u *kernels.Unavailable
		if !errors.As(err, &u) {
			t.Errorf("%s: got %v, %v; want the adapter-limit error", c.name, out, err)
			continue
		}
		if alloc > 1<<20 || el > time.Second {
			t.Errorf("%s: %v after %v and %d bytes allocated; want it before building anything", c.name, err, el, alloc)
		}
		t.Logf("%s: %v (%v, %d bytes allocated)", c.name, err, el, alloc)
	}
}
