package tensor

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// FuzzReadNpy: any bytes either parse or give an error — never a panic or a
// huge allocation — and whatever parses re-encodes to a file that parses to
// the same tensor (round trip).
func FuzzReadNpy(f *testing.F) {
	for _, dt := range All {
		for _, shape := range [][]int{{}, {3}, {2, 2}, {1, 0, 2}} {
			f.Add(mustNpy(New(dt, shape)), dt == BF16)
		}
	}
	f.Add([]byte("\x93NUMPY\x02\x00\x10\x00\x00\x00{'descr': '<f4'}"), false)
	f.Fuzz(func(t *testing.T, b []byte, bf16 bool) {
		x, err := ReadNpyBytes(b, bf16)
		if err != nil {
			return
		}
		y, err := ReadNpyBytes(mustNpy(x), bf16 || x.DType == BF16)
		if err != nil {
			t.Fatalf("re-encoded %s does not parse: %v", x, err)
		}
		if y.DType != x.DType || len(y.Shape) != len(x.Shape) || !bytes.Equal(x.Data, y.Data) {
			t.Fatalf("round trip %s -> %s", x, y)
		}
	})
}

// FuzzNpyHeader: the header grammar never panics, and whatever it accepts
// means one thing: written back as numpy writes it, it parses to the same
// descr, fortran_order and shape.
func FuzzNpyHeader(f *testing.F) {
	for _, s := range []string{
		"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
		"{'descr': '|u1', 'fortran_order': True, 'shape': (), }",
		"{'shape': (7,), 'descr': \"<i8\", 'fortran_order': False}",
		"{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 0L), }   \n",
		`{'x': "'descr': '<f8', 'shape': (1,)", 'descr': '<f4', 'fortran_order': False, 'shape': (4,), }`,
		"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), 'fortran_order': False, }",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (3,,,4,), }",
		"['descr', '<f4', 'fortran_order', False, 'shape', (4,)]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseNpyHeader(b)
		if err != nil {
			return
		}
		if !strings.HasPrefix(strings.TrimLeft(string(b), " \t\r\n"), "{") {
			t.Fatalf("accepted a header that is not a dict: %q", b)
		}
		if strings.ContainsAny(h.descr, "\\\n\r") || strings.Contains(h.descr, "'") && strings.Contains(h.descr, `"`) {
			t.Fatalf("descr %q holds a backslash, a line break or both quotes", h.descr)
		}
		canon := formatNpyHeader(h)
		g, err := parseNpyHeader([]byte(canon))
		if err != nil {
			t.Fatalf("%q parsed, but its canonical form %q does not: %v", b, canon, err)
		}
		if g.descr != h.descr || g.fortran != h.fortran || !slices.Equal(g.shape, h.shape) {
			t.Fatalf("%q -> %+v, canonical %q -> %+v", b, h, canon, g)
		}
	})
}
