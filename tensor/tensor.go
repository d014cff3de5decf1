package tensor

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/fkc-playground/fkc/internal/par"
)

// Tensor is a contiguous, row-major, offset-0 array: the only layout any
// contract here accepts. Data always holds exactly NumElems()*DType.Size()
// bytes, little-endian, and is 8-byte aligned so typed views are safe.
type Tensor struct {
	DType DType
	Shape []int
	Data  []byte
}

// MaxElems bounds every tensor's element count, so that size arithmetic
// cannot overflow and a shape (a pad width, a .npy header) cannot ask for
// more memory than a process can have: 2^31 elements is 8 GiB of f32. The
// WASM app lowers it to what a browser tab holds.
var MaxElems = 1 << 31

// NumElems is the product of the shape (1 for rank 0).
func NumElems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// CheckShape validates a shape: non-negative dims and a bounded element count.
func CheckShape(shape []int) error {
	n := 1
	for i, d := range shape {
		if d < 0 {
			return fmt.Errorf("shape %v: axis %d has negative size %d", shape, i, d)
		}
		if d != 0 && n > MaxElems/d {
			return fmt.Errorf("shape %v: more than %d elements", shape, MaxElems)
		}
		n *= d
	}
	return nil
}

// New allocates a zeroed tensor. It panics on an invalid shape: callers
// validate user shapes with CheckShape first.
func New(dt DType, shape []int) *Tensor {
	if err := CheckShape(shape); err != nil {
		panic(err)
	}
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), Data: alignedBytes(NumElems(shape) * dt.Size())}
}

// Empty allocates a tensor whose contents are unspecified (stale bytes of
// memory this process freed): for outputs that the caller overwrites
// entirely, such as every kernel output, so a large one costs no zeroing
// pass. It panics on an invalid shape, as New does.
func Empty(dt DType, shape []int) *Tensor {
	if err := CheckShape(shape); err != nil {
		panic(err)
	}
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), Data: uninitBytes(NumElems(shape) * dt.Size())}
}

// FromBytes builds a tensor over a copy of raw little-endian data, checking
// the byte length against the shape.
func FromBytes(dt DType, shape []int, raw []byte) (*Tensor, error) {
	if err := CheckShape(shape); err != nil {
		return nil, err
	}
	if want := NumElems(shape) * dt.Size(); len(raw) != want {
		return nil, fmt.Errorf("%s%v needs %d bytes, got %d", dt, shape, want, len(raw))
	}
	t := Empty(dt, shape)
	par.Copy(t.Data, raw)
	return t, nil
}

// NumElems of the tensor.
func (t *Tensor) NumElems() int { return NumElems(t.Shape) }

// Rank of the tensor.
func (t *Tensor) Rank() int { return len(t.Shape) }

// Clone deep-copies the tensor (a large one on every worker).
func (t *Tensor) Clone() *Tensor {
	c := Empty(t.DType, t.Shape)
	par.Copy(c.Data, t.Data)
	return c
}

// String is a short description such as F32[2 3].
func (t *Tensor) String() string { return fmt.Sprintf("%s%v", t.DType, t.Shape) }

func view[T any](b []byte, size int) []T {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size)
}

// Typed views share memory with Data. They panic on a dtype mismatch, an
// internal invariant (kernels are dispatched on the dtype).
func (t *Tensor) F32() []float32 { t.must(F32); return view[float32](t.Data, 4) }
func (t *Tensor) F64() []float64 { t.must(F64); return view[float64](t.Data, 8) }
func (t *Tensor) U32() []uint32  { t.must(U32); return view[uint32](t.Data, 4) }
func (t *Tensor) I32() []int32   { t.must(I32); return view[int32](t.Data, 4) }
func (t *Tensor) I64() []int64   { t.must(I64); return view[int64](t.Data, 8) }

// U16 views 2-byte elements (F16, BF16, I16) as raw bit patterns.
func (t *Tensor) U16() []uint16 {
	if t.DType.Size() != 2 {
		panic(fmt.Sprintf("tensor: U16 view of %s", t.DType))
	}
	return view[uint16](t.Data, 2)
}

func (t *Tensor) must(d DType) {
	if t.DType != d {
		panic(fmt.Sprintf("tensor: %s view of %s tensor", d, t.DType))
	}
}

// At reads element i widened to float64 (integers exactly up to 2^53). It
// is the slow generic accessor used by reference walks, tests and the UI.
func (t *Tensor) At(i int) float64 {
	b := t.Data[i*t.DType.Size():]
	switch t.DType {
	case BOOL, U8:
		return float64(b[0])
	case I8:
		return float64(int8(b[0]))
	case I16:
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case U32:
		return float64(binary.LittleEndian.Uint32(b))
	case I32:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	case I64:
		return float64(int64(binary.LittleEndian.Uint64(b)))
	case F16, BF16:
		return float64(HalfToF32(t.DType, binary.LittleEndian.Uint16(b)))
	case F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	panic("tensor: At on invalid dtype")
}

// Set stores v into element i, converted to the dtype (floats round to
// nearest even; integers truncate toward zero and wrap).
func (t *Tensor) Set(i int, v float64) {
	b := t.Data[i*t.DType.Size():]
	copy(b, Encode(t.DType, v))
}

// Encode returns the little-endian bytes of one element of dtype dt holding v.
// It is how a fill value (`--value`) becomes the contracts' pre-encoded
// fill bit pattern.
func Encode(dt DType, v float64) []byte {
	b := make([]byte, dt.Size())
	switch dt {
	case BOOL:
		if v != 0 {
			b[0] = 1
		}
	case U8:
		b[0] = uint8(int64(v))
	case I8:
		b[0] = uint8(int8(int64(v)))
	case I16:
		binary.LittleEndian.PutUint16(b, uint16(int16(int64(v))))
	case U32:
		binary.LittleEndian.PutUint32(b, uint32(int64(v)))
	case I32:
		binary.LittleEndian.PutUint32(b, uint32(int32(int64(v))))
	case I64:
		binary.LittleEndian.PutUint64(b, uint64(int64(v)))
	case F16, BF16:
		binary.LittleEndian.PutUint16(b, HalfFromF64(dt, v))
	case F32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case F64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	}
	return b
}

// ParseShape parses "2,3,4" (or "" / "[]" for rank 0).
func ParseShape(s string) ([]int, error) {
	s = strings.Trim(strings.TrimSpace(s), "[]()")
	if s == "" {
		return []int{}, nil
	}
	parts := strings.Split(s, ",")
	shape := make([]int, 0, len(parts))
	for _, p := range parts {
		var d int
		if _, err := fmt.Sscan(strings.TrimSpace(p), &d); err != nil {
			return nil, fmt.Errorf("shape %q: %q is not an integer", s, p)
		}
		shape = append(shape, d)
	}
	return shape, CheckShape(shape)
}

// Strides returns row-major element strides for shape.
func Strides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}
