package tensor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/fkc-playground/fkc/internal/par"
)

// Tensor is a contiguous, row-major, offset-0 array: the only layout any
// contract here accepts. Data always holds exactly NumElems()*DType.Size()
// bytes, little-endian, and is 8-byte aligned so typed views are safe —
// except for a tensor whose bytes are on a device (OnStorage): its Data is
// nil, and only that device's kernels read it in place.
type Tensor struct {
	DType DType
	Shape []int
	Data  []byte
	// released is set by Release: the storage went back for reuse.
	released bool
	// store, when set, holds the bytes instead of Data (OnStorage).
	store Storage
}

// Check reports whether t is a tensor as the type's comment says: a dtype
// with a .npy form, a valid shape (CheckShape) and exactly the data bytes
// that shape holds. Writers check it: a tensor built by hand with a short
// buffer or a negative axis would otherwise be written as a file that no
// reader loads (or, for a negative axis, that NumPy loads as empty).
func (t *Tensor) Check() error {
	if t == nil {
		return errors.New("no tensor (nil)")
	}
	if t.released {
		return ErrReleased
	}
	if t.store != nil {
		return t.errOnStorage()
	}
	if NpyDescr(t.DType) == "" {
		return fmt.Errorf("dtype %v is not one of the tensor dtypes", t.DType)
	}
	if err := CheckShape(t.Shape); err != nil {
		return err
	}
	if want := NumElems(t.Shape) * t.DType.Size(); len(t.Data) != want {
		return fmt.Errorf("%v%v holds %d data bytes, not the %d its shape needs", t.DType, t.Shape, len(t.Data), want)
	}
	return nil
}

// MaxElems bounds every tensor's element count, so that size arithmetic
// cannot overflow and a shape (a pad width, a .npy header) cannot ask for
// more memory than a process can have: 2^31 elements is 8 GiB of f32. (The
// browser app's engine is configured lower: engine.Limits.)
const MaxElems = 1 << 31

// NumElems is the product of the shape (1 for rank 0).
func NumElems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// MaxRank is NumPy 2's limit on an array's axes (NPY_MAXDIMS; NumPy 1.x
// reads at most 32): a tensor of more could not be loaded from the .npy
// file it would be written to.
const MaxRank = 64

// CheckShape validates a shape: non-negative dims and a bounded element
// count. The bound applies to the product of the non-empty axes, whatever
// their order: an empty tensor's strides and every shape derived from it
// (a reduction drops the empty axis; a pad fills it) must fit as well, so
// [0, 2^40, 2^40] is refused just as [2^40, 2^40, 0] is.
func CheckShape(shape []int) error {
	if len(shape) > MaxRank {
		return fmt.Errorf("rank %d: more than %d axes, the most NumPy reads or writes", len(shape), MaxRank)
	}
	n, empty := 1, false
	for i, d := range shape {
		if d < 0 {
			return fmt.Errorf("shape %v: axis %d has negative size %d", shape, i, d)
		}
		if d == 0 {
			empty = true
			continue
		}
		if n > MaxElems/d {
			if empty || slices.Contains(shape[i:], 0) {
				return fmt.Errorf("shape %v: its non-empty axes multiply to more than %d elements (the strides of an empty tensor must fit too)", shape, MaxElems)
			}
			return fmt.Errorf("shape %v: more than %d elements", shape, MaxElems)
		}
		n *= d
	}
	return nil
}

// New allocates a zeroed tensor. It panics on an invalid shape: callers
// validate user shapes with CheckShape first. A tensor bigger than the
// process may use panics with a *MemoryError rather than abort the process
// (Alloc returns that error instead).
func New(dt DType, shape []int) *Tensor {
	if err := CheckShape(shape); err != nil {
		panic(err)
	}
	if dt.Size() == 0 {
		panic(fmt.Errorf("invalid dtype %d", int(dt)))
	}
	if err := checkAlloc(dt, shape); err != nil {
		panic(err)
	}
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), Data: alignedBytes(NumElems(shape) * dt.Size())}
}

// Empty allocates a tensor whose contents are unspecified (stale bytes of
// memory this process freed): for outputs that the caller overwrites
// entirely, such as every kernel output, so a large one costs no zeroing
// pass. It panics on an invalid shape, as New does, but does not check the
// size against the process's memory limits: that check reads /proc and the
// cgroup files (a third of a fast kernel's run; docs/perf/cpu-pad.md),
// and the engine makes it for a call's output before any kernel runs.
func Empty(dt DType, shape []int) *Tensor {
	if err := CheckShape(shape); err != nil {
		panic(err)
	}
	n := NumElems(shape) * dt.Size()
	b := reuse(n) // a released block of this size, if one is kept
	if b == nil {
		b = uninitBytes(n)
	}
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), Data: b}
}

// FromBytes builds a tensor over a copy of raw little-endian data, checking
// the byte length against the shape.
func FromBytes(dt DType, shape []int, raw []byte) (*Tensor, error) {
	if err := CheckShape(shape); err != nil {
		return nil, err
	}
	if dt.Size() == 0 {
		return nil, fmt.Errorf("invalid dtype %d", int(dt))
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
// internal invariant (kernels are dispatched on the dtype), and for a
// tensor on a device, whose Data is nil.
func (t *Tensor) F32() []float32 { t.must(F32); return view[float32](t.Data, 4) }
func (t *Tensor) F64() []float64 { t.must(F64); return view[float64](t.Data, 8) }
func (t *Tensor) U32() []uint32  { t.must(U32); return view[uint32](t.Data, 4) }
func (t *Tensor) I32() []int32   { t.must(I32); return view[int32](t.Data, 4) }
func (t *Tensor) I64() []int64   { t.must(I64); return view[int64](t.Data, 8) }

// U16 views 2-byte elements (F16, BF16, I16) as raw bit patterns.
func (t *Tensor) U16() []uint16 {
	t.onHost("U16")
	if t.DType.Size() != 2 {
		panic(fmt.Sprintf("tensor: U16 view of %s", t.DType))
	}
	return view[uint16](t.Data, 2)
}

func (t *Tensor) must(d DType) {
	t.onHost(d.String())
	if t.DType != d {
		panic(fmt.Sprintf("tensor: %s view of %s tensor", d, t.DType))
	}
}

// onHost panics for a view of a tensor whose bytes are on a device: an
// empty view would read as a tensor of no elements.
func (t *Tensor) onHost(view string) {
	if t.store != nil {
		panic(fmt.Sprintf("tensor: %s view of %s on %s: copy it back first (Tensor.Host)", view, t, t.store))
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
		binary.LittleEndian.PutUint16(b, HalfNearestF64(dt, v))
	case F32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case F64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	}
	return b
}

// ParseShape parses "2,3,4" (or "" / "[]" / "()" for rank 0), strictly:
// every entry is a whole decimal number; "2,,3", "2x" and "1.5" are errors.
func ParseShape(s string) ([]int, error) {
	t := strings.TrimSpace(s)
	if len(t) >= 2 && (t[0] == '[' && t[len(t)-1] == ']' || t[0] == '(' && t[len(t)-1] == ')') {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	if t == "" {
		return []int{}, nil
	}
	parts := strings.Split(t, ",")
	if len(parts) > 1 && strings.TrimSpace(parts[len(parts)-1]) == "" {
		parts = parts[:len(parts)-1] // numpy's (3,) spelling
	}
	shape := make([]int, 0, len(parts))
	for _, p := range parts {
		d, err := ParseWhole(strings.TrimSpace(p))
		if errors.Is(err, strconv.ErrRange) {
			if strings.HasPrefix(strings.TrimSpace(p), "-") {
				return nil, fmt.Errorf("shape %q: axis %d has negative size %s", s, len(shape), strings.TrimSpace(p))
			}
			return nil, fmt.Errorf("shape %q: %q is out of range (far past any tensor's size)", s, strings.TrimSpace(p))
		}
		if err != nil {
			return nil, fmt.Errorf("shape %q: %q is not a whole number", s, strings.TrimSpace(p))
		}
		shape = append(shape, d)
	}
	return shape, CheckShape(shape)
}

// ParseWhole is strconv.Atoi without its leading '+': digits, with an
// optional '-' (SPEC §5: flag values are parsed strictly).
func ParseWhole(s string) (int, error) {
	if strings.HasPrefix(s, "+") {
		return 0, &strconv.NumError{Func: "Atoi", Num: s, Err: strconv.ErrSyntax}
	}
	return strconv.Atoi(s)
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
