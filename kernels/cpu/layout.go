package cpu

// Layout helpers the kernels share: typed views of raw bytes, fill
// patterns, and the (outer, n, inner) split of a shape around one axis.

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/fkc-playground/fkc/tensor"
)

// Typed views over tensor bytes. Tensor data is 8-byte aligned (tensor.New),
// so these are safe for every element width; they are byte-width views, not
// dtype views, which is what the byte-agnostic movers need.
func viewOf[E any](b []byte) []E {
	var z E
	size := int(unsafe.Sizeof(z))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(&b[0])), len(b)/size)
}

// bytesOf is the byte view of a typed view (the inverse of viewOf).
func bytesOf[E any](x []E) []byte {
	var z E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), len(x)*int(unsafe.Sizeof(z)))
}

// fillPattern tiles pat (one element) over dst, doubling the copied prefix
// so a large fill costs log(n) copy calls.
func fillPattern(dst, pat []byte) {
	if len(dst) == 0 {
		return
	}
	n := copy(dst, pat)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}

// split3 views shape around axis dim as [outer, n, inner].
func split3(shape []int, dim int) (outer, n, inner int) {
	outer, inner = 1, 1
	for _, d := range shape[:dim] {
		outer *= d
	}
	for _, d := range shape[dim+1:] {
		inner *= d
	}
	return outer, shape[dim], inner
}

// unflatten writes the row-major coordinates of flat index i into coord.
func unflatten(i int, shape, coord []int) {
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] == 0 {
			coord[k] = 0
			continue
		}
		coord[k] = i % shape[k]
		i /= shape[k]
	}
}

// flatten is unflatten's inverse for a row-major tensor: the flat offset
// of coord under strides.
func flatten(coord, strides []int) int {
	off := 0
	for a, c := range coord {
		off += c * strides[a]
	}
	return off
}

// newOutput allocates a kernel's output. Every kernel writes every output
// element, so the output need not be zeroed first (tensor.Empty: a large
// one then costs no clearing pass). The tests replace it with an allocator
// that poisons every byte (poison_test.go), so an element a kernel forgets
// to write shows up as a mismatch, not as stale memory.
var newOutput = tensor.Empty

// output is a kernel's result: the caller's own tensor (into, a data
// mover's optional last argument: NumPy's out=), which must have the
// output's dtype and shape, or a new one.
func output(into []*tensor.Tensor, dt tensor.DType, shape []int) (*tensor.Tensor, error) {
	if len(into) == 0 || into[0] == nil {
		return newOutput(dt, shape), nil
	}
	o := into[0]
	if o.DType != dt || !slices.Equal(o.Shape, shape) || len(o.Data) != tensor.NumElems(shape)*dt.Size() {
		return nil, fmt.Errorf("the output tensor is %s%v (%d bytes); this call's output is %s%v", o.DType, o.Shape, len(o.Data), dt, shape)
	}
	return o, nil
}
