//go:build !js

package gpu

import (
	"errors"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// A pad or size that does not fit the kernels'
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

// A call whose buffers exceed the adapter's limits fails
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
		{"pad constant i8[5] 0:2147483643 (output past the limit)", func() (*tensor.Tensor, error) {
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

// The size check counts the buffers of the path a call takes, not every
// path's: calls whose buffers all fit were refused for partials that the
// one-pass reductions never make (extrema along a length-1 axis, F16
// arg along short rows), a continuation state that an F16 index_add makes
// only past a long bucket, and a bucket table that scatter_add_rows never
// builds. Run with this device's binding limit lowered to 1 MiB; each call
// must run and equal the CPU.
func TestSizeCheckCountsTheChosenPath(t *testing.T) {
	d := device(t)
	if d.threadsOverTrees() {
		t.Skip("a software adapter taking threads over trees chooses other paths")
	}
	saved := d.info.MaxStorageBufferBindingSize
	d.info.MaxStorageBufferBindingSize = 1 << 20
	defer func() { d.info.MaxStorageBufferBindingSize = saved }()
	r := rand.New(rand.NewSource(3))
	fill := func(x *tensor.Tensor, bound int) *tensor.Tensor {
		for i := range x.NumElems() {
			if bound > 0 {
				x.Set(i, float64(r.Intn(bound)))
			} else {
				x.Set(i, float64(r.Intn(64)-32)/4)
			}
		}
		return x
	}
	col := fill(tensor.New(tensor.F32, []int{200000, 1}), 0)   // x 800 KB, partials (2 words a segment) 1.6 MB
	short := fill(tensor.New(tensor.F16, []int{150000, 3}), 0) // x 900 KB, partials 1.2 MB
	base := fill(tensor.New(tensor.F16, []int{2, 150000}), 0)  // base 600 KB, src 900 KB, state (f32) 1.2 MB
	src := fill(tensor.New(tensor.F16, []int{3, 150000}), 0)
	ai := tensor.New(tensor.U32, []int{3})
	ai.Set(0, 1)
	ai.Set(2, 1)
	sbase := fill(tensor.New(tensor.F16, []int{300, 1500}), 0) // base 900 KB, buckets 1.8 MB
	ssrc := fill(tensor.New(tensor.F16, []int{300, 4}), 0)
	sidx := fill(tensor.New(tensor.U32, []int{300, 4}), 1500)
	for _, c := range []struct {
		name     string
		gpu, cpu func() (*tensor.Tensor, error)
	}{
		{"max dim 1 of f32[200000,1]", func() (*tensor.Tensor, error) { return d.MaxDim(col, 1) }, func() (*tensor.Tensor, error) { return cpu.MaxDim(col, 1) }},
		{"argmax dim 1 of f16[150000,3]", func() (*tensor.Tensor, error) { return d.ArgMaxDim(short, 1) }, func() (*tensor.Tensor, error) { return cpu.ArgMaxDim(short, 1) }},
		{"index_add dim 0 of f16[2,150000]", func() (*tensor.Tensor, error) { return d.IndexAdd(base, ai, src, 0) }, func() (*tensor.Tensor, error) { return cpu.IndexAdd(base, ai, src, 0) }},
		{"scatter_add dim 1 of f16[300,1500]", func() (*tensor.Tensor, error) { return d.ScatterAdd(sbase, sidx, ssrc, 1) }, func() (*tensor.Tensor, error) { return cpu.ScatterAdd(sbase, sidx, ssrc, 1) }},
	} {
		got, err := c.gpu()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want, err := c.cpu()
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, c.name, got, want)
	}
}

// An output of exactly the binding limit is refused, its guard words
// making it 128 bytes larger: the error says so (it quoted a size 128
// bytes over the limit, and no word why).
func TestOutputLimitNamesGuards(t *testing.T) {
	d := device(t)
	saved := d.info.MaxStorageBufferBindingSize
	d.info.MaxStorageBufferBindingSize = 1 << 20
	defer func() { d.info.MaxStorageBufferBindingSize = saved }()
	x := tensor.New(tensor.F32, []int{1 << 18}) // exactly 1 MiB
	_, err := d.MaskedFill(x, tensor.New(tensor.BOOL, []int{1 << 18}), make([]byte, 4))
	var u *kernels.Unavailable
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "needs out (its data and 128 guard bytes): a 1048704-byte storage buffer") {
		t.Errorf("masked_fill of f32[2^18] under a 1 MiB limit: %v", err)
	}
}
