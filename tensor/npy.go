package tensor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// NumPy .npy I/O (format versions 1.0, 2.0 and 3.0 read; 1.0 written, or 2.0
// when the header needs it). Only little-endian, C-order arrays of the dtypes
// of SPEC §3 are accepted.

var npyMagic = []byte("\x93NUMPY")

var descrToDType = map[string]DType{
	"|b1": BOOL, "|u1": U8, "|i1": I8, "<i2": I16, "<u4": U32,
	"<i4": I32, "<i8": I64, "<f2": F16, "<f4": F32, "<f8": F64,
	// single-byte types may also be written with '<' or '=' by some writers
	"<b1": BOOL, "<u1": U8, "<i1": I8, "=b1": BOOL, "=u1": U8, "=i1": I8,
}

// NpyDescr is the NumPy descr written for dt. BF16 has no NumPy dtype: it
// is written as its <u2 bit patterns (SPEC §3).
func NpyDescr(dt DType) string {
	switch dt {
	case BOOL:
		return "|b1"
	case U8:
		return "|u1"
	case I8:
		return "|i1"
	case I16:
		return "<i2"
	case U32:
		return "<u4"
	case I32:
		return "<i4"
	case I64:
		return "<i8"
	case F16:
		return "<f2"
	case BF16:
		return "<u2"
	case F32:
		return "<f4"
	case F64:
		return "<f8"
	}
	return ""
}

var (
	reDescr   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	reFortran = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	reShape   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// ReadNpy parses a .npy stream. asBF16 reinterprets a <u2 array as bf16 bit
// patterns (`--dtype bf16`).
func ReadNpy(r io.Reader, asBF16 bool) (*Tensor, error) {
	pre := make([]byte, 8)
	if _, err := io.ReadFull(r, pre); err != nil {
		return nil, fmt.Errorf("npy: truncated preamble: %v", err)
	}
	if !bytes.Equal(pre[:6], npyMagic) {
		return nil, errors.New("npy: not a .npy file (bad magic)")
	}
	var hlen int
	switch pre[6] {
	case 1:
		b := make([]byte, 2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("npy: truncated header length: %v", err)
		}
		hlen = int(binary.LittleEndian.Uint16(b))
	case 2, 3:
		b := make([]byte, 4)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("npy: truncated header length: %v", err)
		}
		hlen = int(binary.LittleEndian.Uint32(b))
		if hlen > 1<<20 {
			return nil, fmt.Errorf("npy: header length %d is implausible", hlen)
		}
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", pre[6], pre[7])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("npy: truncated header: %v", err)
	}
	h := string(hdr)
	m := reDescr.FindStringSubmatch(h)
	if m == nil {
		return nil, errors.New("npy: header has no 'descr'")
	}
	descr := m[1]
	dt, ok := descrToDType[descr]
	if descr == "<u2" && asBF16 {
		dt, ok = BF16, true
	}
	if !ok {
		switch {
		case strings.HasPrefix(descr, ">") && len(descr) > 1 && descr[1:] != "u1" && descr[1:] != "i1" && descr[1:] != "b1":
			return nil, fmt.Errorf("npy: big-endian dtype %q is not supported (only little-endian)", descr)
		case descr == "<u2":
			return nil, errors.New("npy: dtype '<u2' (uint16) is not supported; pass --dtype bf16 to read it as bf16 bit patterns")
		default:
			return nil, fmt.Errorf("npy: unsupported dtype %q (supported: |b1 |u1 |i1 <i2 <u4 <i4 <i8 <f2 <f4 <f8, and <u2 with --dtype bf16)", descr)
		}
	}
	if f := reFortran.FindStringSubmatch(h); f == nil {
		return nil, errors.New("npy: header has no 'fortran_order'")
	} else if f[1] == "True" {
		return nil, errors.New("npy: Fortran-order arrays are not supported (save with np.ascontiguousarray)")
	}
	sm := reShape.FindStringSubmatch(h)
	if sm == nil {
		return nil, errors.New("npy: header has no 'shape'")
	}
	shape := []int{}
	for _, p := range strings.Split(sm[1], ",") {
		p = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), "L"))
		if p == "" {
			continue
		}
		d, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("npy: bad shape entry %q", p)
		}
		shape = append(shape, d)
	}
	if err := CheckShape(shape); err != nil {
		return nil, fmt.Errorf("npy: %v", err)
	}
	n := NumElems(shape) * dt.Size()
	// Never trust the header's size before allocating: a short or hostile
	// file could claim terabytes. A seekable reader says how much is left;
	// otherwise large data is read in chunks, so memory follows the bytes
	// that actually arrive.
	if avail, ok := remaining(r); ok && avail < int64(n) {
		return nil, fmt.Errorf("npy: truncated data: %s%v needs %d bytes, the file has %d", dt, shape, n, avail)
	}
	if _, seekable := r.(io.Seeker); !seekable && n > npyChunk {
		return readChunked(r, dt, shape, n)
	}
	t := New(dt, shape)
	if _, err := io.ReadFull(r, t.Data); err != nil {
		return nil, fmt.Errorf("npy: truncated data: %s%v needs %d bytes: %v", dt, shape, n, err)
	}
	return t, nil
}

// npyChunk is the piece size for reading large data from a stream of
// unknown length.
const npyChunk = 64 << 20

// remaining reports the bytes left in a seekable reader.
func remaining(r io.Reader) (int64, bool) {
	s, ok := r.(io.Seeker)
	if !ok {
		return 0, false
	}
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	end, err := s.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, false
	}
	if _, err := s.Seek(cur, io.SeekStart); err != nil {
		return 0, false
	}
	return end - cur, true
}

// readChunked reads n data bytes from a stream in npyChunk pieces and only
// then allocates the tensor.
func readChunked(r io.Reader, dt DType, shape []int, n int) (*Tensor, error) {
	var parts [][]byte
	got := 0
	for got < n {
		b := make([]byte, min(npyChunk, n-got))
		k, err := io.ReadFull(r, b)
		got += k
		parts = append(parts, b[:k])
		if err != nil {
			return nil, fmt.Errorf("npy: truncated data: %s%v needs %d bytes, got %d: %v", dt, shape, n, got, err)
		}
	}
	t := New(dt, shape)
	off := 0
	for _, p := range parts {
		off += copy(t.Data[off:], p)
	}
	return t, nil
}

// ReadNpyBytes parses an in-memory .npy file; trailing bytes are an error.
func ReadNpyBytes(b []byte, asBF16 bool) (*Tensor, error) {
	r := bytes.NewReader(b)
	t, err := ReadNpy(r, asBF16)
	if err != nil {
		return nil, err
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("npy: %d trailing bytes after the data of %s", r.Len(), t)
	}
	return t, nil
}

// WriteNpy writes t as a version 1.0 .npy (2.0 if the header is too long).
func WriteNpy(w io.Writer, t *Tensor) error {
	var sb strings.Builder
	for _, d := range t.Shape {
		sb.WriteString(strconv.Itoa(d))
		sb.WriteString(", ")
	}
	shape := strings.TrimSuffix(sb.String(), " ")
	if len(t.Shape) > 1 {
		shape = strings.TrimSuffix(shape, ",")
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", NpyDescr(t.DType), shape)
	ver, lenBytes := byte(1), 2
	if len(dict)+1+10 > 65535 {
		ver, lenBytes = 2, 4
	}
	pre := 6 + 2 + lenBytes
	total := pre + len(dict) + 1
	pad := (64 - total%64) % 64
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	var buf bytes.Buffer
	buf.Write(npyMagic)
	buf.WriteByte(ver)
	buf.WriteByte(0)
	if lenBytes == 2 {
		binary.Write(&buf, binary.LittleEndian, uint16(len(hdr)))
	} else {
		binary.Write(&buf, binary.LittleEndian, uint32(len(hdr)))
	}
	buf.WriteString(hdr)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(t.Data)
	return err
}

// NpyBytes encodes t as an in-memory .npy file.
func NpyBytes(t *Tensor) []byte {
	var b bytes.Buffer
	WriteNpy(&b, t)
	return b.Bytes()
}
