//go:build !js

package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

func refMaskedFill(x, mask *tensor.Tensor, fill []byte) *tensor.Tensor {
	out := x.Clone()
	eb := x.DType.Size()
	for i := range x.NumElems() {
		if mask.Data[i] != 0 {
			copy(out.Data[i*eb:], fill)
		}
	}
	return out
}

func TestMaskedFill(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(3))
	shapes := [][]int{{}, {1}, {3}, {5, 7}, {255}, {256}, {257}, {1023}, {1024}, {1025}, {511}, {513}, {2, 3, 4, 5, 1, 2, 1, 3}, {77, 601}}
	for _, dt := range []tensor.DType{tensor.BOOL, tensor.U8, tensor.I8, tensor.I16, tensor.F16, tensor.BF16, tensor.F32, tensor.U32, tensor.I32, tensor.F64, tensor.I64} {
		for _, sh := range shapes {
			x := randTensor(r, dt, sh)
			mask := tensor.New(tensor.BOOL, sh)
			for i := range mask.Data {
				mask.Data[i] = byte(r.Intn(3)) // 0 or nonzero (1, 2)
			}
			fill := make([]byte, dt.Size())
			r.Read(fill)
			name := fmt.Sprintf("masked_fill_b%d/%v/%v", dt.Size(), dt, sh)
			got, err := d.MaskedFill(x, mask, fill)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			sameBits(t, name, got, refMaskedFill(x, mask, fill))
		}
	}
	// errors: mask dtype and shape
	if _, err := d.MaskedFill(tensor.New(tensor.F32, []int{3}), tensor.New(tensor.U8, []int{3}), nil); err == nil {
		t.Error("U8 mask accepted")
	}
	if _, err := d.MaskedFill(tensor.New(tensor.F32, []int{3}), tensor.New(tensor.BOOL, []int{1, 3}), nil); err == nil {
		t.Error("mask of another shape accepted")
	}
}
