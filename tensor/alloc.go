package tensor

import "unsafe"

// Tensor storage. Every tensor's bytes are 8-byte aligned so that typed
// views are safe. Large buffers (hugeMin and up) are where allocation
// cost shows: a fresh 256 MiB tensor is 65,536 page faults of 4 KiB, and
// Go zeroes a reused span with one thread before make returns. The Linux
// build therefore asks for transparent huge pages on large buffers and
// lets kernel outputs, which overwrite every byte, skip the zeroing
// (alloc_linux.go, alloc_raw.go); the browser skips the zeroing too
// (alloc_js.go); other platforms use make.

// hugeMin is the size from which a buffer can hold a whole 2 MiB huge page.
const hugeMin = 2 << 20

// makeBytes returns n zeroed bytes backed by 8-byte-aligned storage.
func makeBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}
