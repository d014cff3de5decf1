//go:build !js

package gpu

import "testing"

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
