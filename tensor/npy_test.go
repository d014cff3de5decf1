package tensor

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// numpyHeader builds a header byte-for-byte as numpy.save writes it
// (format 1.0: dict, spaces, '\n', total length a multiple of 64).
func numpyHeader(dict string) []byte {
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := dict + strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	return b.Bytes()
}

func TestWriteNpyMatchesNumpyBytes(t *testing.T) {
	cases := []struct {
		t    *Tensor
		dict string
	}{
		{New(F32, []int{2, 3}), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"},
		{New(U8, []int{5}), "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }"},
		{New(F64, []int{}), "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"},
		{New(BOOL, []int{1, 0, 2}), "{'descr': '|b1', 'fortran_order': False, 'shape': (1, 0, 2), }"},
	}
	for _, c := range cases {
		want := append(numpyHeader(c.dict), c.t.Data...)
		if got := mustNpy(c.t); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", c.t, got, want)
		}
	}
}

func TestNpyRoundTripEveryDType(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, dt := range All {
		for _, shape := range [][]int{{}, {0}, {7}, {2, 3}, {2, 1, 3, 1}} {
			x := New(dt, shape)
			rng.Read(x.Data)
			b := mustNpy(x)
			y, err := ReadNpyBytes(b, dt == BF16)
			if err != nil {
				t.Fatalf("%s: %v", x, err)
			}
			if y.DType != dt || !bytes.Equal(x.Data, y.Data) || len(y.Shape) != len(shape) {
				t.Fatalf("%s round-trips to %s", x, y)
			}
		}
	}
}

func TestNpyVersion2And3(t *testing.T) {
	x := New(I32, []int{3})
	copy(x.Data, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0})
	for _, ver := range []byte{2, 3} {
		dict := "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }"
		total := 12 + len(dict) + 1
		h := dict + strings.Repeat(" ", (64-total%64)%64) + "\n"
		var b bytes.Buffer
		b.WriteString("\x93NUMPY")
		b.WriteByte(ver)
		b.WriteByte(0)
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
		b.WriteString(h)
		b.Write(x.Data)
		y, err := ReadNpyBytes(b.Bytes(), false)
		if err != nil || y.At(2) != 3 {
			t.Fatalf("v%d: %v %v", ver, y, err)
		}
	}
}

func TestNpyErrors(t *testing.T) {
	good := mustNpy(New(F32, []int{2, 2}))
	hdr := func(dict string) []byte { return numpyHeader(dict) }
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated preamble"},
		{"magic", []byte("PK\x03\x04xxxxxxxx"), "bad magic"},
		{"version", []byte("\x93NUMPY\x09\x00\x00\x00"), "unsupported format version 9"},
		{"minor version", append([]byte("\x93NUMPY\x01\x05"), good[8:]...), "unsupported format version 1.5"},
		{"truncated header", good[:20], "truncated header"},
		{"truncated data", good[:len(good)-3], "truncated data"},
		{"trailing", append(append([]byte{}, good...), 0), "trailing bytes"},
		{"big-endian", append(hdr("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }"), 0, 0, 0, 0), `big-endian dtype ">f4" is not supported (only little-endian: "<f4"`},
		// not supported in either byte order: said so, not "big-endian"
		{"big-endian unicode", append(hdr("{'descr': '>U4', 'fortran_order': False, 'shape': (1,), }"), make([]byte, 16)...), `unsupported dtype ">U4"`},
		{"big-endian complex", append(hdr("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }"), make([]byte, 8)...), `unsupported dtype ">c8"`},
		{"fortran", append(hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }"), 0, 0, 0, 0), "Fortran-order"},
		{"complex", hdr("{'descr': '<c8', 'fortran_order': False, 'shape': (0,), }"), "unsupported dtype \"<c8\""},
		{"u2 without bf16", hdr("{'descr': '<u2', 'fortran_order': False, 'shape': (0,), }"), "--dtype bf16"},
		{"negative shape", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), "negative size"},
		{"huge shape", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000000), }"), "more than"},
		{"no descr", hdr("{'fortran_order': False, 'shape': (1,), }"), "no 'descr'"},
		// the header is a dict literal, not text to search
		{"decoy key", append(hdr(`{'x': "'descr': '<f8', 'shape': (1,)", 'descr': '<f4', 'fortran_order': False, 'shape': (4,), }`), make([]byte, 16)...), "unknown key \"x\""},
		{"duplicate key", append(hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), 'fortran_order': False, }"), make([]byte, 16)...), "duplicate key \"fortran_order\""},
		{"empty shape entries", append(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (3,,,4,), }"), make([]byte, 48)...), "want a shape entry"},
		{"not a dict", append(hdr("['descr', '<f4', 'fortran_order', False, 'shape', (4,)]"), make([]byte, 16)...), "not a Python dict literal"},
		// bytes after the data
		{"trailing floats", append(append(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }"), make([]byte, 32)...), make([]byte, 16)...), "16 trailing bytes"},
	}
	for _, c := range cases {
		_, err := ReadNpyBytes(c.b, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestEncodeFill(t *testing.T) {
	if b := Encode(BF16, 1); binary.LittleEndian.Uint16(b) != 0x3f80 {
		t.Errorf("bf16 1.0 = %x", b)
	}
	if b := Encode(F16, -2); binary.LittleEndian.Uint16(b) != 0xc000 {
		t.Errorf("f16 -2 = %x", b)
	}
	if b := Encode(I8, -1); b[0] != 0xff {
		t.Errorf("i8 -1 = %x", b)
	}
}

// A header that claims far more data than the file holds is refused before
// anything that size is allocated (seekable and streaming readers alike).
func TestNpyHugeClaimNotAllocated(t *testing.T) {
	withHeadroom(t, 1<<40, "test", true) // the claim fits: the stream's shortness is what stops it
	b := append(numpyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (30000, 30000), }"), 1, 2, 3)
	if _, err := ReadNpyBytes(b, false); err == nil || !strings.Contains(err.Error(), "the file has 3") {
		t.Errorf("seekable: %v", err)
	}
	if _, err := ReadNpy(struct{ io.Reader }{bytes.NewReader(b)}, false); err == nil || !strings.Contains(err.Error(), "got 3") {
		t.Errorf("stream: %v", err)
	}
}

// mustNpy is NpyBytes of a tensor the test built valid.
func mustNpy(x *Tensor) []byte {
	b, err := NpyBytes(x)
	if err != nil {
		panic(err)
	}
	return b
}

// Single-byte types have no byte order: '>u1', '>i1' and '>b1' load as the
// '|' types (NumPy loads them; they were refused as "unsupported dtype").
func TestNpySingleByteAnyOrder(t *testing.T) {
	for descr, want := range map[string]DType{">u1": U8, ">i1": I8, ">b1": BOOL, "=u1": U8, "<i1": I8} {
		b := append(numpyHeader("{'descr': '"+descr+"', 'fortran_order': False, 'shape': (3,), }"), 1, 0, 1)
		x, err := ReadNpyBytes(b, false)
		if err != nil || x.DType != want || !bytes.Equal(x.Data, []byte{1, 0, 1}) {
			t.Errorf("%s: %v, %v", descr, x, err)
		}
	}
}
