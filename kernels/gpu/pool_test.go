//go:build !js

package gpu

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// Pooled buffers keep an earlier call's bytes: they serve only bodies that
// kernels overwrite. Buffers that must start zeroed (the CAS accumulator,
// the tie counter) are never taken from the pool. Here every call follows
// one that left non-zero garbage in buffers of the same size class, with
// output poisoning off (as callers run), and the results are still exact.
func TestPooledBuffersAreSafe(t *testing.T) {
	d := device(t)
	if d.poolCap == 0 {
		t.Skip("pooling is off (FKC_GPU_POOL_MB=0)")
	}
	d.poisonBodies = false
	defer func() { d.poisonBodies = true }()
	r := rand.New(rand.NewSource(50))
	ints := func(dt tensor.DType, shape ...int) *tensor.Tensor {
		x := tensor.New(dt, shape)
		for i := range x.NumElems() {
			x.Set(i, float64(r.Intn(9)-4))
		}
		return x
	}
	garbage := func() {
		// Fill pooled buffers of many size classes with non-zero bytes.
		for _, n := range []int{64, 1000, 4096, 70000} {
			x := ints(tensor.F32, n)
			x.Set(0, 7)
			if _, err := d.Pad(x, kernels.Replicate, pp(3, 3), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	hits := d.poolHits
	for _, n := range []int{61, 994, 4090, 69994} {
		garbage()
		g := ints(tensor.F32, n+6)
		got, err := d.PadBackward(g, kernels.Replicate, pp(3, 3)) // CAS into a zeroed accumulator
		if err != nil {
			t.Fatal(err)
		}
		want, _ := cpu.PadBackward(g, kernels.Replicate, pp(3, 3))
		sameBits(t, "CAS pad backward after garbage", got, want) // small integers: exact in any order
		garbage()
		x := ints(tensor.F32, 4, n)
		up := ints(tensor.F32, 4, 1)
		got, err = d.ReduceMaxToBackward(x, up, []int{4, 1}) // atomic tie counts into zeroed scratch
		if err != nil {
			t.Fatal(err)
		}
		want, _ = cpu.ReduceMaxToBackward(x, up, []int{4, 1})
		sameBits(t, "reduce_max_to_backward after garbage", got, want)
		garbage()
		got, err = d.SumDim(x, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, _ = cpu.SumDim(x, 1)
		sameBits(t, "sum_dim after garbage", got, want) // small integers: exact
	}
	if d.poolHits == hits {
		t.Errorf("no buffer came from the pool")
	}
}

// Large inputs stream to the device in pieces, each through its own
// staging buffer (thresholds lowered here so that a few MB take the path,
// with a ragged last piece): the results are those of the one-copy upload.
func TestStreamedUploads(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(51))
	x := randFloat(r, tensor.F32, []int{5<<20/4 + 3}, 1)
	table := randFloat(r, tensor.F32, []int{3000, 257}, 1)
	ids := randIdx(r, []int{700}, 3000)
	run := func() (*tensor.Tensor, *tensor.Tensor) {
		s, err := d.SumAll(x)
		if err != nil {
			t.Fatal(err)
		}
		g, err := d.IndexSelect(table, ids, 0)
		if err != nil {
			t.Fatal(err)
		}
		return s, g
	}
	defer func(a, b int) { streamMin, streamPieces = a, b }(streamMin, streamPieces)
	streamPieces = 1
	s0, g0 := run()
	streamMin = 1 << 20
	for _, n := range []int{2, 3, 7} {
		streamPieces = n
		s1, g1 := run()
		sameBits(t, fmt.Sprintf("sum_all in %d pieces", n), s1, s0)
		sameBits(t, fmt.Sprintf("index_select in %d pieces", n), g1, g0)
	}
	want, _ := cpu.IndexSelect(table, ids, 0)
	sameBits(t, "index_select vs cpu", g0, want)
	// A reduction's sole input streams in two pieces from soleMin bytes
	// (below streamMin); the results are the whole upload's.
	defer func(s bool, m int) { soleStream, soleMin = s, m }(soleStream, soleMin)
	streamPieces, streamMin, soleMin = 0, 64<<20, 1<<20
	m := randFloat(r, tensor.F32, []int{300, 1000}, 1) // 1.2 MB: rows
	var whole *tensor.Tensor
	for _, sole := range []bool{false, true} {
		soleStream = sole
		s1, _ := run()
		sameBits(t, fmt.Sprintf("sum_all, sole stream %v", sole), s1, s0)
		got, err := d.ArgMaxDim(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if whole == nil {
			whole = got
			want, _ := cpu.ArgMaxDim(m, 1)
			sameBits(t, "argmax_dim, whole upload, vs cpu", got, want)
		}
		sameBits(t, fmt.Sprintf("argmax_dim, sole stream %v", sole), got, whole)
	}
}

// The pool keeps what a process uses now: once it is full, a buffer of a
// new size evicts the ones returned longest ago instead of being dropped.
func TestPoolEvictsOldest(t *testing.T) {
	d := device(t)
	saved := d.poolCap
	defer func() { d.poolCap = saved; d.drainPool() }()
	d.drainPool()
	d.poolCap = 4 << 20
	r := rand.New(rand.NewSource(52))
	for _, n := range []int{1 << 18, 1<<18 + 1000, 1<<18 + 3000, 1<<18 + 7000} { // four size classes
		if _, err := d.SumAll(randFloat(r, tensor.F32, []int{n}, 1)); err != nil {
			t.Fatal(err)
		}
		if d.pooled > d.poolCap {
			t.Fatalf("pooled %d > cap %d", d.pooled, d.poolCap)
		}
	}
	x := randFloat(r, tensor.F32, []int{1<<18 + 7000}, 1)
	hits := d.poolHits
	if _, err := d.SumAll(x); err != nil {
		t.Fatal(err)
	}
	if d.poolHits == hits {
		t.Errorf("the latest size class was not kept in a full pool (hits %d)", hits)
	}
}

// A device with poolIdle set empties its pool once calls stop, and later
// calls pool again.
func TestPoolDrainsWhenIdle(t *testing.T) {
	d := device(t)
	defer func(idle time.Duration) {
		d.mu.Lock()
		d.poolIdle = idle
		d.mu.Unlock()
	}(d.poolIdle)
	d.mu.Lock()
	d.poolIdle = 500 * time.Millisecond // long beside a call: the checks right after one see its buffers
	d.mu.Unlock()
	x := randFloat(rand.New(rand.NewSource(53)), tensor.F32, []int{1 << 16}, 1)
	want, err := d.SumAll(x)
	if err != nil {
		t.Fatal(err)
	}
	pooled := func() uint64 {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.pooled
	}
	if pooled() == 0 {
		t.Fatal("nothing pooled after a call")
	}
	deadline := time.Now().Add(10 * time.Second)
	for pooled() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the pool still holds %d bytes 10 s after the last call", pooled())
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, err := d.SumAll(x)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "sum after the drain", got, want)
	if pooled() == 0 {
		t.Error("nothing pooled after the drain's next call")
	}
}
