package cpu

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// The data movers write into the caller's tensor without allocating one:
// the allocator is replaced by one that fails the test.
func TestMoversWriteInto(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	data := randT(rng, tensor.F32, []int{6, 5})
	idx := tensor.New(tensor.U32, []int{6, 5})
	for i := range idx.U32() {
		idx.U32()[i] = uint32(rng.Intn(5))
	}
	rows := tensor.New(tensor.U32, []int{4})
	copy(rows.U32(), []uint32{5, 0, 5, 2})
	mask := tensor.New(tensor.BOOL, []int{6, 5})
	for i := range mask.Data {
		mask.Data[i] = byte(rng.Intn(2))
	}
	src := randT(rng, tensor.F32, []int{6, 5})
	srcRows := randT(rng, tensor.F32, []int{4, 5})
	type mover struct {
		name string
		run  func(into ...*tensor.Tensor) (*tensor.Tensor, error)
	}
	for _, m := range []mover{
		{"index_select", func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return IndexSelect(data, rows, 0, into...) }},
		{"gather", func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return Gather(data, idx, 1, into...) }},
		{"embedding", func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return Embedding(data, rows, into...) }},
		{"index_add", func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return IndexAdd(data, rows, srcRows, 0, into...) }},
		{"scatter_add", func(into ...*tensor.Tensor) (*tensor.Tensor, error) { return ScatterAdd(data, idx, src, 1, into...) }},
		{"pad reflect", func(into ...*tensor.Tensor) (*tensor.Tensor, error) {
			return Pad(data, kernels.Reflect, []kernels.Pad{{Before: 2, After: 1}, {Before: 0, After: 4}}, nil, into...)
		}},
		{"pad circular", func(into ...*tensor.Tensor) (*tensor.Tensor, error) {
			return Pad(data, kernels.Circular, []kernels.Pad{{Before: 7, After: 1}, {Before: 3, After: 11}}, nil, into...)
		}},
		{"pad_backward symmetric", func(into ...*tensor.Tensor) (*tensor.Tensor, error) {
			return PadBackward(data, kernels.Symmetric, []kernels.Pad{{Before: 1, After: 2}, {Before: 1, After: 1}}, into...)
		}},
		{"masked_fill", func(into ...*tensor.Tensor) (*tensor.Tensor, error) {
			return MaskedFill(data, mask, []byte{0, 0, 0x80, 0x3f}, into...)
		}},
	} {
		want, err := m.run()
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		into := tensor.New(want.DType, want.Shape)
		saved := newOutput
		newOutput = func(tensor.DType, []int) *tensor.Tensor {
			t.Errorf("%s allocated an output although one was given", m.name)
			return saved(tensor.F32, []int{0})
		}
		got, err := m.run(into)
		newOutput = saved
		if err != nil {
			t.Fatalf("%s into: %v", m.name, err)
		}
		if got != into || !bytes.Equal(into.Data, want.Data) {
			t.Errorf("%s: the result written into the caller's tensor differs", m.name)
		}
		if _, err := m.run(tensor.New(want.DType, []int{1})); err == nil {
			t.Errorf("%s: a wrong-shaped output was accepted", m.name)
		}
	}
}

func randT(rng *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	x := tensor.New(dt, shape)
	for i := range x.NumElems() {
		x.Set(i, float64(rng.Intn(64)-32)/4)
	}
	return x
}
