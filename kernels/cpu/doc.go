// Package cpu runs every kernel of the seeds' CPU contracts in pure Go, so
// the same code serves the native CLI, the tests and the WASM app.
//
// Each family keeps the straightforward reference walk that reads like its
// contract's prose (an unflatten per element, in the contract's flat order)
// beside the fast path that callers get; the fast path is bitwise the
// reference wherever the contract says bitwise or same_hardware_bitwise,
// and the tests hold it to that over random shapes. Where the fast path
// restructures loops around an accumulation (sum_dim, pad_backward,
// index_add, scatter_add) every output slot still sees its additions in
// the reference order, which is what makes it bitwise.
//
// Every exported function validates its operands first and returns a
// *kernels.Violation naming the violated contract constraint; nothing
// panics on user input and nothing reads out of bounds. The error prefix
// (Violation.Op) is the contract kernel's name: pad, pad_backward,
// masked_fill, sum_all, max_all, min_all, mean_all, sum_dim, max_dim,
// min_dim, mean_dim, argmax_dim, argmin_dim, reduce_sum_to, reduce_max_to,
// reduce_max_to_backward, index_select, gather, index_add, scatter_add,
// embedding. The GPU path uses the same names and the same kernels helpers
// so that both backends reject bad input with the same words.
package cpu

import (
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
