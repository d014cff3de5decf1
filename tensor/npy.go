package tensor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// NumPy .npy I/O (format versions 1.0, 2.0 and 3.0 read; 1.0 written, or 2.0
// when the header needs it). Only little-endian, C-order arrays of the dtypes
// of SPEC §3 are accepted.

var npyMagic = []byte("\x93NUMPY")

var descrToDType = map[string]DType{
	"|b1": BOOL, "|u1": U8, "|i1": I8, "<i2": I16, "<u4": U32,
	"<i4": I32, "<i8": I64, "<f2": F16, "<f4": F32, "<f8": F64,
	// single-byte types have no byte order: some writers spell them with
	// '<', '=' or '>', and NumPy loads each as the '|' type
	"<b1": BOOL, "<u1": U8, "<i1": I8, "=b1": BOOL, "=u1": U8, "=i1": I8,
	">b1": BOOL, ">u1": U8, ">i1": I8,
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
	if pre[7] != 0 { // NumPy writes and reads 1.0, 2.0 and 3.0 only
		return nil, fmt.Errorf("npy: unsupported format version %d.%d (1.0, 2.0 and 3.0 are NumPy's)", pre[6], pre[7])
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
		return nil, fmt.Errorf("npy: unsupported format version %d.%d (1.0, 2.0 and 3.0 are NumPy's)", pre[6], pre[7])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("npy: truncated header: %v", err)
	}
	hd, err := parseNpyHeader(hdr)
	if err != nil {
		return nil, err
	}
	descr, shape := hd.descr, hd.shape
	dt, ok := descrToDType[descr]
	if descr == "<u2" && asBF16 {
		dt, ok = BF16, true
	}
	if !ok {
		switch {
		case strings.HasPrefix(descr, ">") && (descrToDType["<"+descr[1:]] != Invalid || descr == ">u2"):
			// a type read in its little-endian form only
			return nil, fmt.Errorf("npy: big-endian dtype %q is not supported (only little-endian: %q; arr.astype(arr.dtype.newbyteorder('<')) converts it)", descr, "<"+descr[1:])
		case descr == "<u2":
			return nil, errors.New("npy: dtype '<u2' (uint16) is not supported; pass --dtype bf16 to read it as bf16 bit patterns")
		default:
			return nil, fmt.Errorf("npy: unsupported dtype %q (supported: |b1 |u1 |i1 <i2 <u4 <i4 <i8 <f2 <f4 <f8, and <u2 with --dtype bf16)", descr)
		}
	}
	if hd.fortran {
		return nil, errors.New("npy: Fortran-order arrays are not supported (save with np.ascontiguousarray)")
	}
	if err := CheckShape(shape); err != nil {
		return nil, fmt.Errorf("npy: %v", err)
	}
	n := NumElems(shape) * dt.Size()
	// Never trust the header's size before allocating: a short or hostile
	// file could claim terabytes. A seekable reader says how much is left;
	// otherwise the claim is checked against what the process may use and
	// large data must start arriving before it is allocated (readStream).
	// A file holds one array: bytes after its data mean the header's shape
	// or dtype is not the data's, and are an error (for files and in-memory
	// bytes alike, so the CLI and the browser give one answer).
	avail, seekable := remaining(r)
	if seekable && avail < int64(n) {
		return nil, fmt.Errorf("npy: truncated data: %s%v needs %d bytes, the file has %d", dt, shape, n, avail)
	}
	if seekable && avail > int64(n) {
		return nil, trailing(dt, shape, n, avail-int64(n), "")
	}
	var t *Tensor
	if !seekable && n > npyChunk {
		if t, err = readStream(r, dt, shape, n); err != nil {
			return nil, err
		}
	} else {
		if t, err = Alloc(dt, shape); err != nil {
			return nil, fmt.Errorf("npy: %w", err)
		}
		if _, err := io.ReadFull(r, t.Data); err != nil {
			return nil, fmt.Errorf("npy: truncated data: %s%v needs %d bytes: %v", dt, shape, n, err)
		}
	}
	if !seekable {
		// Count what follows, up to a bound: a stream may be endless.
		const most = 1 << 20
		if extra, _ := io.Copy(io.Discard, io.LimitReader(r, most)); extra > 0 {
			atLeast := ""
			if extra == most {
				atLeast = "at least "
			}
			return nil, trailing(dt, shape, n, extra, atLeast)
		}
	}
	return t, nil
}

// trailing is the error for bytes after an array's data.
func trailing(dt DType, shape []int, n int, extra int64, atLeast string) error {
	return fmt.Errorf("npy: %s%d trailing bytes after the data: the header's %s%v is %d data bytes (is its shape or dtype wrong?)",
		atLeast, extra, dt, shape, n)
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

// readStream reads n data bytes from a reader that cannot say how many it
// holds (a pipe, stdin). The header's claim is checked against what the
// process may use before anything is read, so an impossible one fails at
// once, not after as many bytes have arrived (never, from an endless
// pipe); then the first npyChunk bytes must arrive before the
// tensor is allocated, and the rest are read into it directly. The tensor
// is unzeroed (Empty): pages a short stream never reaches are never
// touched, and memory peaks at the tensor plus one piece (pieces copied
// into it at the end took twice the data).
func readStream(r io.Reader, dt DType, shape []int, n int) (*Tensor, error) {
	if err := checkAlloc(dt, shape); err != nil {
		return nil, fmt.Errorf("npy: %w (read from a stream)", err)
	}
	truncated := func(got int, err error) error {
		return fmt.Errorf("npy: truncated data: %s%v needs %d bytes, got %d: %v", dt, shape, n, got, err)
	}
	first := make([]byte, npyChunk)
	if k, err := io.ReadFull(r, first); err != nil {
		return nil, truncated(k, err)
	}
	t := Empty(dt, shape)
	copy(t.Data, first)
	if k, err := io.ReadFull(r, t.Data[npyChunk:]); err != nil {
		return nil, truncated(npyChunk+k, err)
	}
	return t, nil
}

// ReadNpyBytes parses an in-memory .npy file (the browser's inputs): the
// same reader, with the same checks, as files.
func ReadNpyBytes(b []byte, asBF16 bool) (*Tensor, error) {
	return ReadNpy(bytes.NewReader(b), asBF16)
}

// WriteNpy writes t as a version 1.0 .npy (2.0 if the header is too long).
func WriteNpy(w io.Writer, t *Tensor) error {
	if err := t.Check(); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	dict := formatNpyHeader(npyHeader{descr: NpyDescr(t.DType), shape: t.Shape})
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

// NpyBytes encodes t as an in-memory .npy file; an inconsistent t (see
// Tensor.Check) is an error, as in WriteNpy.
func NpyBytes(t *Tensor) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteNpy(&b, t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
