//go:build !js

package gpu

import (
	"bytes"
	"math/rand"
	"testing"
)

// CopyTime: one time per count, each positive (no claim that more copies
// take longer: on a real GPU a 1 MiB copy is mostly submit overhead, and a
// unit test is no timer); bad sizes and counts are errors.
func TestCopyTime(t *testing.T) {
	d := device(t)
	ts, err := d.CopyTime(1<<20, 1, 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 MiB: 1 copy %v, 16 copies %v", ts[0], ts[1])
	if len(ts) != 2 || ts[0] <= 0 || ts[1] <= 0 {
		t.Errorf("16 copies took %v, one %v", ts[1], ts[0])
	}
	if _, err := d.CopyTime(d.Info().MaxBufferSize+4, 1); err == nil {
		t.Error("a buffer past maxBufferSize: no error")
	}
	if _, err := d.CopyTime(4, 1, 0); err == nil {
		t.Error("0 copies: no error")
	}
	if _, err := d.CopyTime(4); err == nil {
		t.Error("no counts: no error")
	}
	if d.MaxBufferBytes() == 0 || d.MaxBufferBytes() > d.Info().MaxBufferSize {
		t.Errorf("MaxBufferBytes = %d", d.MaxBufferBytes())
	}
}

// CopyKernelTime: samples on the timestamp clock where the adapter has
// it (lavapipe does), each positive; bad arguments are errors, and an
// adapter without timestamps says so.
func TestCopyKernelTime(t *testing.T) {
	d := device(t)
	ts, err := d.CopyKernelTime(1<<20, 4, 3)
	if d.Info().TimestampTickNs == 0 {
		if err == nil {
			t.Error("no timestamps, and no error")
		}
		t.Skipf("this adapter has no timestamps: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 MiB, 4 passes: %v a copy", ts)
	if len(ts) != 3 || ts[0] <= 0 || ts[1] <= 0 || ts[2] <= 0 {
		t.Errorf("3 samples of 4 copies each: %v", ts)
	}
	for _, bad := range [][3]int{{0, 1, 1}, {16, 0, 1}, {16, 1, 0}, {16, maxKernelRepeat + 1, 1}} {
		if _, err := d.CopyKernelTime(uint64(bad[0]), bad[1], bad[2]); err == nil {
			t.Errorf("CopyKernelTime(%v): no error", bad)
		}
	}
	if _, err := d.CopyKernelTime(d.MaxBufferBytes()+16, 1, 1); err == nil {
		t.Error("a buffer past the adapter's limit: no error")
	}
}

// The ceiling's kernel copies every byte: copy.wgsl on CopyTime's grid,
// for sizes around a thread's and a workgroup's share, read back.
func TestCopyKernel(t *testing.T) {
	d := device(t)
	d.mu.Lock()
	defer d.mu.Unlock()
	p, err := d.pipeline(copySpec)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{16, 48, 64 * 16, 4 * wgSize * 16, 4*wgSize*16 + 16, 3<<20 + 16} {
		src := make([]byte, n)
		r.Read(src)
		j := d.begin("copy")
		in := j.input("src", src)
		out := j.output("dst", n, nil, false)
		j.dispatch(p, copyGroups(uint64(n)), in, out.buf)
		if err := j.run(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.data, src) {
			t.Errorf("%d bytes: the copy differs", n)
		}
	}
}
