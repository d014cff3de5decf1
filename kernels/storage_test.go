package kernels

import (
	"errors"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

type fakeStore struct{ err error }

func (f *fakeStore) Err() error            { return f.err }
func (f *fakeStore) ReadInto([]byte) error { return f.err }
func (f *fakeStore) Release() error        { return nil }
func (f *fakeStore) String() string        { return "the fake device" }

// A device tensor passes the operand rules on its dtype and shape (a
// wrong dtype is the same violation as on the host), not when its bytes
// cannot be read; a host kernel's CheckHost refuses it by name.
func TestDeviceOperand(t *testing.T) {
	s := &fakeStore{}
	x := tensor.OnStorage(tensor.F32, []int{2, 3}, s)
	if err := CheckOperand("sum", "x", x, FloatDTypes); err != nil {
		t.Errorf("a device operand: %v", err)
	}
	var v *Violation
	if err := CheckOperand("sum", "x", tensor.OnStorage(tensor.U32, []int{2}, s), FloatDTypes); !errors.As(err, &v) || !strings.Contains(err.Error(), "dtype U32") {
		t.Errorf("a device operand of the wrong dtype: %v", err)
	}
	if _, err := PadShape(x, Reflect, []Pad{{Before: 2}, {}}, nil); !errors.As(err, &v) {
		t.Errorf("a reflect pad past a device operand's edge: %v", err)
	}
	if err := CheckHost("sum", tensor.New(tensor.F32, []int{1}), x); err == nil || !strings.Contains(err.Error(), "the fake device") {
		t.Errorf("CheckHost: %v", err)
	}
	s.err = errors.New("not written")
	if err := CheckOperand("sum", "x", x, FloatDTypes); err == nil || !strings.Contains(err.Error(), "not written") {
		t.Errorf("a failed device operand: %v", err)
	}
	x.Release()
	if err := CheckOperand("sum", "x", x, FloatDTypes); !errors.Is(err, tensor.ErrReleased) && (err == nil || !strings.Contains(err.Error(), "released")) {
		t.Errorf("a released device operand: %v", err)
	}
}
