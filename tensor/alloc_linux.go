//go:build linux

package tensor

import (
	"syscall"
	"unsafe"
)

// alignedBytes returns n zeroed bytes; a large buffer is advised onto huge
// pages before anything touches it.
func alignedBytes(n int) []byte {
	b := makeBytes(n)
	if n >= hugeMin {
		adviseHuge(b)
	}
	return b
}

// uninitBytes returns n bytes with unspecified contents: a large buffer
// skips the zeroing pass (rawBytes) and is advised onto huge pages.
func uninitBytes(n int) []byte {
	if n < hugeMin {
		return makeBytes(n)
	}
	b := rawBytes(n)
	adviseHuge(b)
	return b
}

const madvHugepage = 14 // MADV_HUGEPAGE, the same on every Linux architecture

// adviseHuge marks the 2 MiB-aligned interior of b MADV_HUGEPAGE. With THP
// in "madvise" mode (the default of many distributions) untouched pages of
// the range then fault in 2 MiB at a time: 128 faults for 256 MiB instead
// of 65,536. Pages already faulted stay as they are. The advice is a hint:
// an error (THP off, an old kernel) changes nothing but speed, so callers
// ignore it; the tests check it.
func adviseHuge(b []byte) error {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + hugeMin - 1) &^ (hugeMin - 1)
	hi := (p + uintptr(len(b))) &^ (hugeMin - 1)
	if hi <= lo {
		return nil
	}
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage); e != 0 {
		return e
	}
	return nil
}
