package tensor

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNpyHeaderGrammar: headers numpy (or a Python dict literal with the
// same meaning) writes are read as Python reads them; anything else —
// a key inside a string, a repeated or unknown key, a malformed tuple, a
// header that is not a dict — is refused with a message naming the fault.
func TestNpyHeaderGrammar(t *testing.T) {
	ok := []struct {
		hdr     string
		descr   string
		fortran bool
		shape   []int
	}{
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", "<f4", false, []int{2, 3}},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", "<f4", false, []int{}},
		{"{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", "|u1", false, []int{5}},
		{"{'descr': '<f8', 'fortran_order': True, 'shape': (0,)}", "<f8", true, []int{0}},
		{"{'shape': (2,3,), 'descr': \"<i4\", 'fortran_order': False}", "<i4", false, []int{2, 3}},
		{"{'descr': '<i8', 'fortran_order': False, 'shape': (3L, 4L), }", "<i8", false, []int{3, 4}},
		{"  {\n 'descr' : '<f2' ,\t'fortran_order':False,'shape':( 1 , 0 , 7 )\n}   \n", "<f2", false, []int{1, 0, 7}},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775807,), }", "<f4", false, []int{9223372036854775807}},
	}
	for _, c := range ok {
		h, err := parseNpyHeader([]byte(c.hdr))
		if err != nil || h.descr != c.descr || h.fortran != c.fortran || !slices.Equal(h.shape, c.shape) {
			t.Errorf("%q: got %+v, %v", c.hdr, h, err)
		}
	}
	bad := []struct{ hdr, want string }{
		// the header is a dict literal, not text to search
		{`{'x': "'descr': '<f8', 'shape': (1,)", 'descr': '<f4', 'fortran_order': False, 'shape': (4,), }`, "unknown key \"x\""},
		{"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), 'fortran_order': False, }", "duplicate key \"fortran_order\""},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (3,,,4,), }", "want a shape entry"},
		{"{'descr': '<f4', é: 1}", "found 'é'"},          // a v3 header's UTF-8, one character
		{"{'descr': '<f4', \xff: 1}", "found \"\\xff\""}, // a byte that starts none
		{"['descr', '<f4', 'fortran_order', False, 'shape', (4,)]", "not a Python dict literal"},
		// neighbours: duplicates, keys, values
		{"{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", "duplicate key \"descr\""},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2,), }", "duplicate key \"shape\""},
		{"{'descr': '<f4', 'fortran_order': False, }", "no 'shape'"},
		{"{}", "no 'descr', 'fortran_order', 'shape'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "unknown key \"extra\""},
		{"{'descr': 3, 'fortran_order': False, 'shape': (1,)}", "want a value"},
		{"{'descr': ('<f4',), 'fortran_order': False, 'shape': (1,)}", "want a shape entry"},
		{"{'descr': '<f4', 'fortran_order': 'False', 'shape': (1,)}", "\"fortran_order\" must be True or False"},
		{"{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", "want a value"},
		{"{'descr': '<f4', 'fortran_order': None, 'shape': (1,)}", "\"None\" is not a value"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': '(1,)'}", "\"shape\" must be a tuple"},
		{"{'descr': True, 'fortran_order': False, 'shape': (1,)}", "\"descr\" must be a string"},
		{"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", "want a value"},
		{"{descr: '<f4', 'fortran_order': False, 'shape': (1,)}", "want a quoted string"},
		// tuples
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", "is an integer in Python"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", "want a shape entry"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (3,,), }", "want a shape entry"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (3 4), }", "want ',' or ')'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "negative size"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (+1,), }", "want a shape entry"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (01,), }", "leading zero"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1e3,), }", "want ',' or ')'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1.0,), }", "want ',' or ')'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (0x10,), }", "want ',' or ')'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1_000,), }", "want ',' or ')'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775808,), }", "larger than"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", "larger than"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1,", "found the end of the header"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1", "unterminated tuple"},
		// strings and structure
		{"{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", "want ',' or '}' after the value of \"descr\", found 'f'"},
		{"{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", "want ':' after key"},
		{"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}", "escapes"},
		{"{'descr': '<f4", "unterminated string"},
		{"{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", "want ',' or '}'"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", "after the dict"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}{}", "after the dict"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1,),,}", "want a quoted string"},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", "want ',' or '}'"},
		{"dict(descr='<f4')", "not a Python dict literal"},
		{"", "not a Python dict literal"},
	}
	for _, c := range bad {
		_, err := parseNpyHeader([]byte(c.hdr))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to mention %q", c.hdr, err, c.want)
		}
	}
}

// TestNpyTrailingBytesOneAnswer: bytes after the data are an error that
// names them, whether the .npy comes from a file (the CLI), from memory
// (the browser) or from a stream that cannot seek (a pipe).
func TestNpyTrailingBytesOneAnswer(t *testing.T) {
	x := New(F32, []int{2, 4})
	good := mustNpy(x)
	for _, extra := range []int{1, 16, 48} { // (2,4) followed by 12 floats
		b := append(append([]byte{}, good...), make([]byte, extra)...)
		path := filepath.Join(t.TempDir(), "x.npy")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, errFile := ReadNpy(f, false)
		f.Close()
		_, errMem := ReadNpyBytes(b, false)
		_, errStream := ReadNpy(struct{ io.Reader }{bytes.NewReader(b)}, false)
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { pw.Write(b); pw.Close() }()
		_, errPipe := ReadNpy(pr, false)
		pr.Close()
		want := "npy: " + strconv.Itoa(extra) + " trailing bytes after the data: the header's F32[2 4] is 32 data bytes"
		for name, err := range map[string]error{"file": errFile, "bytes": errMem, "stream": errStream, "pipe": errPipe} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%d extra bytes, %s: err = %v, want %q", extra, name, err, want)
			}
		}
	}
	// No trailing bytes: every reader reads the array.
	for name, r := range map[string]io.Reader{"bytes": bytes.NewReader(good), "stream": struct{ io.Reader }{bytes.NewReader(good)}} {
		if y, err := ReadNpy(r, false); err != nil || !bytes.Equal(y.Data, x.Data) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
