package tensor

import (
	"errors"
	"fmt"
)

// Storage holds a tensor's bytes outside Go memory: a buffer on a GPU
// (kernels/gpu.Tensor). A tensor on a storage has Data nil; its dtype and
// shape are known here, its bytes only to the storage, which hands them
// back on request (Tensor.Host). The kernels of the storage's own device
// read it in place; every other reader of Data refuses it (Check).
type Storage interface {
	// Err is nil while the bytes can be read; else why not (the call that
	// was to write them failed, the device was lost).
	Err() error
	// ReadInto copies the tensor's bytes into dst (of exactly their
	// length), waiting for the work that writes them.
	ReadInto(dst []byte) error
	// Release gives the memory back (Tensor.Release).
	Release() error
	// String names where the bytes are, for messages ("the Vulkan device
	// llvmpipe (LLVM 15.0.6, 256 bits)").
	String() string
}

// OnStorage is a tensor of dtype dt and this shape whose bytes s holds.
// The storage's owner makes these; the shape is copied.
func OnStorage(dt DType, shape []int, s Storage) *Tensor {
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), store: s}
}

// Storage is where t's bytes are when they are not in Data (nil: in Data).
func (t *Tensor) Storage() Storage {
	if t == nil {
		return nil
	}
	return t.store
}

// Host is t in Go memory: t itself when its bytes are in Data, else a new
// tensor holding a copy of them read back from its storage.
func (t *Tensor) Host() (*Tensor, error) {
	if t == nil {
		return nil, errors.New("host: no tensor (nil)")
	}
	if t.released {
		return nil, ErrReleased
	}
	if t.store == nil {
		return t, nil
	}
	if err := t.store.Err(); err != nil {
		return nil, err
	}
	n := NumElems(t.Shape) * t.DType.Size()
	if err := CheckAlloc(fmt.Sprintf("%s%v read back from %s", t.DType, t.Shape, t.store), n); err != nil {
		return nil, err
	}
	h := Empty(t.DType, t.Shape)
	if err := t.store.ReadInto(h.Data); err != nil {
		return nil, err
	}
	return h, nil
}

// CheckAnywhere is Check for a tensor wherever its bytes are: for one on
// a storage, a dtype, a valid shape and bytes that can still be read
// (not released, not failed); for one in Go memory, Check.
func (t *Tensor) CheckAnywhere() error {
	if t == nil || t.store == nil || t.released {
		return t.Check()
	}
	if NpyDescr(t.DType) == "" {
		return fmt.Errorf("dtype %v is not one of the tensor dtypes", t.DType)
	}
	if err := CheckShape(t.Shape); err != nil {
		return err
	}
	return t.store.Err()
}

// errOnStorage is Check's answer for a tensor whose bytes are not in Go
// memory.
func (t *Tensor) errOnStorage() error {
	return fmt.Errorf("%v%v is on %s, not in Go memory: copy it back first (Tensor.Host)", t.DType, t.Shape, t.store)
}
