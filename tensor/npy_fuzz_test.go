package tensor

import (
	"bytes"
	"testing"
)

// FuzzReadNpy: any bytes either parse or give an error — never a panic or a
// huge allocation — and whatever parses re-encodes to a file that parses to
// the same tensor (round trip).
func FuzzReadNpy(f *testing.F) {
	for _, dt := range All {
		for _, shape := range [][]int{{}, {3}, {2, 2}, {1, 0, 2}} {
			f.Add(NpyBytes(New(dt, shape)), dt == BF16)
		}
	}
	f.Add([]byte("\x93NUMPY\x02\x00\x10\x00\x00\x00{'descr': '<f4'}"), false)
	f.Fuzz(func(t *testing.T, b []byte, bf16 bool) {
		x, err := ReadNpyBytes(b, bf16)
		if err != nil {
			return
		}
		y, err := ReadNpyBytes(NpyBytes(x), bf16 || x.DType == BF16)
		if err != nil {
			t.Fatalf("re-encoded %s does not parse: %v", x, err)
		}
		if y.DType != x.DType || len(y.Shape) != len(x.Shape) || !bytes.Equal(x.Data, y.Data) {
			t.Fatalf("round trip %s -> %s", x, y)
		}
	})
}
