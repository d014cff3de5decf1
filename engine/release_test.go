package engine_test

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// A result given back with Release is reused by the next call whose output
// has its size, and a released tensor is refused as an input, never read.
func TestReleaseReusesAndRefuses(t *testing.T) {
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.F32, []int{256, 256})
	for i := range x.F32() {
		x.F32()[i] = float32(i)
	}
	call := func() *tensor.Tensor {
		res, err := eng.Run(engine.CPU, ops.Pad(x, kernels.Reflect, kernels.Pad{Before: 1, After: 1}, kernels.Pad{Before: 2, After: 2}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Out
	}
	first := call()
	want := append([]float32{}, first.F32()...)
	block := unsafe.SliceData(first.Data)
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if first.Data != nil || !first.Released() {
		t.Errorf("released tensor still holds %d bytes", len(first.Data))
	}
	second := call()
	if unsafe.SliceData(second.Data) != block {
		t.Errorf("the second call's output is a new block, not the released one")
	}
	for i, v := range second.F32() {
		if v != want[i] {
			t.Fatalf("element %d of the reused output = %v, want %v", i, v, want[i])
		}
	}
	if err := first.Release(); err == nil || !strings.Contains(err.Error(), "released already") {
		t.Errorf("a second Release: %v", err)
	}
	// the released tensor as an input: refused by name, before any kernel
	_, err = eng.Run(engine.CPU, ops.Sum(first, ops.All))
	if err == nil || !errors.Is(err, tensor.ErrReleased) && !strings.Contains(err.Error(), tensor.ErrReleased.Error()) {
		t.Errorf("a released input: %v", err)
	}
	if err == nil || !strings.Contains(err.Error(), "input x") {
		t.Errorf("the error does not name the input: %v", err)
	}
	// a hand-built tensor whose data is short is refused the same way
	short := &tensor.Tensor{DType: tensor.F32, Shape: []int{4}, Data: make([]byte, 8)}
	if _, err := eng.Run(engine.CPU, ops.Sum(short, ops.All)); err == nil || !strings.Contains(err.Error(), "holds 8 data bytes") {
		t.Errorf("a short input: %v", err)
	}
}

// The loop a Go program writes: run, use, release. BenchmarkRunAllocating
// is the same loop without Release, for comparison.
func BenchmarkRunReleased(b *testing.B)   { benchPadLoop(b, true) }
func BenchmarkRunAllocating(b *testing.B) { benchPadLoop(b, false) }

func benchPadLoop(b *testing.B, release bool) {
	eng, err := engine.New()
	if err != nil {
		b.Fatal(err)
	}
	x := tensor.New(tensor.F32, []int{8, 3, 512, 512})
	call := ops.Pad(x, kernels.Reflect, kernels.Pad{}, kernels.Pad{}, kernels.Pad{Before: 3, After: 3}, kernels.Pad{Before: 3, After: 3})
	b.SetBytes(int64(len(x.Data)) * 2)
	for b.Loop() {
		res, err := eng.Run(engine.CPU, call)
		if err != nil {
			b.Fatal(err)
		}
		if release {
			res.Out.Release()
		}
	}
}
