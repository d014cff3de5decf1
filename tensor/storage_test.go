package tensor

import (
	"errors"
	"strings"
	"testing"
)

// fakeStore is a Storage in a byte slice.
type fakeStore struct {
	b        []byte
	err      error
	released int
}

func (f *fakeStore) Err() error                { return f.err }
func (f *fakeStore) ReadInto(dst []byte) error { copy(dst, f.b); return f.err }
func (f *fakeStore) Release() error            { f.released++; return nil }
func (f *fakeStore) String() string            { return "the fake device" }

// A tensor on a storage: Check refuses it (its bytes are not in Go
// memory: writers and host kernels must not read Data), CheckAnywhere
// takes it while its storage can be read, Host copies it back, typed
// views panic rather than read as empty, Release reaches the storage once.
func TestOnStorage(t *testing.T) {
	s := &fakeStore{b: []byte{1, 0, 0, 0, 2, 0, 0, 0}}
	shape := []int{2}
	x := OnStorage(U32, shape, s)
	shape[0] = 7
	if x.Data != nil || x.Storage() != s || x.Shape[0] != 2 {
		t.Fatalf("OnStorage: %+v", x)
	}
	if err := x.Check(); err == nil || !strings.Contains(err.Error(), "not in Go memory") {
		t.Errorf("Check: %v", err)
	}
	if err := x.CheckAnywhere(); err != nil {
		t.Errorf("CheckAnywhere: %v", err)
	}
	h, err := x.Host()
	if err != nil || h.Storage() != nil || h.U32()[1] != 2 {
		t.Fatalf("Host: %v %v", h, err)
	}
	if h2, _ := h.Host(); h2 != h {
		t.Error("Host of a tensor in Go memory is not itself")
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "Host") {
				t.Errorf("a typed view of a device tensor: %v", r)
			}
		}()
		_ = x.U32()
	}()
	s.err = errors.New("gone")
	if err := x.CheckAnywhere(); err == nil || err.Error() != "gone" {
		t.Errorf("CheckAnywhere of a failed storage: %v", err)
	}
	if _, err := x.Host(); err == nil {
		t.Error("Host of a failed storage")
	}
	if err := x.Release(); err != nil || s.released != 1 {
		t.Errorf("Release: %v, storage released %d times", err, s.released)
	}
	if err := x.Release(); err == nil || s.released != 1 {
		t.Errorf("a second Release: %v, storage released %d times", err, s.released)
	}
	if err := x.CheckAnywhere(); !errors.Is(err, ErrReleased) {
		t.Errorf("CheckAnywhere after Release: %v", err)
	}
	if _, err := x.Host(); !errors.Is(err, ErrReleased) {
		t.Errorf("Host after Release: %v", err)
	}
}
