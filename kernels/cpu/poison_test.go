package cpu

import (
	"os"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// poison is the byte every output starts as in the tests: as f32 it is
// -2.9e-16-ish garbage, as a half a large negative number, as a U32 index
// 0xa5a5a5a5 — never a value a kernel could mean.
const poison = 0xa5

// TestMain poisons every kernel output before the kernel writes it, so an
// element a kernel forgets to write shows up as a mismatch, not as a lucky
// zero.
func TestMain(m *testing.M) {
	newOutput = func(dt tensor.DType, shape []int) *tensor.Tensor {
		t := tensor.New(dt, shape)
		for i := range t.Data {
			t.Data[i] = poison
		}
		return t
	}
	os.Exit(m.Run())
}

// The poisoning itself: an output that is never written keeps the poison.
func TestOutputsArePoisoned(t *testing.T) {
	out := newOutput(tensor.F32, []int{3})
	for _, b := range out.Data {
		if b != poison {
			t.Fatalf("test outputs are not poisoned: %x", out.Data)
		}
	}
}
