//go:build !js

package gpu

import "testing"

// CopyTime: more copies take longer; bad sizes and counts are errors.
func TestCopyTime(t *testing.T) {
	d := device(t)
	one, err := d.CopyTime(1<<20, 1)
	if err != nil {
		t.Fatal(err)
	}
	many, err := d.CopyTime(1<<20, 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 MiB: 1 copy %v, 16 copies %v", one, many)
	if one <= 0 || many <= one {
		t.Errorf("16 copies took %v, one %v", many, one)
	}
	if _, err := d.CopyTime(d.Info().MaxBufferSize+4, 1); err == nil {
		t.Error("a buffer past maxBufferSize: no error")
	}
	if _, err := d.CopyTime(4, 0); err == nil {
		t.Error("0 copies: no error")
	}
	if d.MaxBufferBytes() == 0 || d.MaxBufferBytes() > d.Info().MaxBufferSize {
		t.Errorf("MaxBufferBytes = %d", d.MaxBufferBytes())
	}
}
