//go:build linux || (js && wasm)

package tensor

import "unsafe"

// rawBytes returns n bytes from the Go heap without the zeroing pass
// (mallocgc with needzero false, as a noscan object: the GC owns it, so a
// view that outlives its *Tensor keeps it alive like any slice). Kernel
// outputs overwrite every byte. In the browser the clear is a memory.fill
// of the whole buffer, a quarter of a large pad's time
// (docs/perf/cpu-pad.md).
func rawBytes(n int) []byte {
	return unsafe.Slice((*byte)(mallocgc(uintptr(n), nil, false)), n)
}

// mallocgc is the runtime's allocator. It is one of the runtime symbols
// that stay linkable from outside ("//go:linkname mallocgc" in
// runtime/malloc.go keeps it for the packages that use it); with typ nil
// the object holds no pointers, and needzero false skips the clear.
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer
