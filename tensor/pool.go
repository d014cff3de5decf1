package tensor

import (
	"errors"
	"sync"
	"unsafe"
)

// Released storage: a result given back with Release is kept, by byte
// size, for the next Empty of that size (every kernel output is one), so
// that a loop which runs a call and releases its result reuses one warm
// block instead of faulting in a fresh one each time and starting a GC
// cycle every few calls. Only large blocks are kept (small ones cost the
// allocator little), at most poolPerSize of a size and poolMaxBytes in all.
const (
	poolMin      = 64 << 10
	poolPerSize  = 4
	poolMaxBytes = 1 << 30
)

var pool = struct {
	sync.Mutex
	free  map[int][][]byte
	bytes int
}{free: map[int][][]byte{}}

// ErrReleased is the error for the use of a tensor after Release.
var ErrReleased = errors.New("the tensor was released (Tensor.Release): its storage may hold another tensor's data now")

// Release gives t's storage back for reuse by a later allocation of the
// same size, as sync.Pool does for objects: after it t holds no data, and
// a call that takes t as an input or an output refuses it (ErrReleased).
// A slice of t.Data (or a typed view, t.F32()) kept from before is not
// t's any more and may change under it. Releasing twice is an error. A
// tensor on a storage (a GPU's) gives its device memory back.
func (t *Tensor) Release() error {
	if t == nil {
		return errors.New("release: no tensor (nil)")
	}
	if t.released {
		return errors.New("release: the tensor was released already")
	}
	if t.store != nil {
		t.released = true
		return t.store.Release()
	}
	b := t.Data
	t.Data, t.released = nil, true
	// kept only as Empty makes blocks: whole and 8-byte aligned
	if len(b) < poolMin || cap(b) != len(b) || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 != 0 {
		return nil
	}
	pool.Lock()
	defer pool.Unlock()
	if len(pool.free[len(b)]) < poolPerSize && pool.bytes+len(b) <= poolMaxBytes {
		pool.free[len(b)] = append(pool.free[len(b)], b)
		pool.bytes += len(b)
	}
	return nil
}

// Released reports whether t was released.
func (t *Tensor) Released() bool { return t != nil && t.released }

// reuse takes a released block of n bytes, or nil.
func reuse(n int) []byte {
	if n < poolMin {
		return nil
	}
	pool.Lock()
	defer pool.Unlock()
	l := pool.free[n]
	if len(l) == 0 {
		return nil
	}
	b := l[len(l)-1]
	pool.free[n] = l[:len(l)-1]
	pool.bytes -= n
	return b
}
