package cpu

import (
	"encoding/binary"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// MaskedFill is this project's CPU masked_fill (contracts/project/
// fkc-cpu-kernels.fkc.md): out[i] = mask[i] != 0 ? fill : x[i] for any
// element width. mask is BOOL with exactly x's shape (no broadcasting); fill
// is one pre-encoded element (len == dtype size).
func MaskedFill(x, mask *tensor.Tensor, fill []byte) (*tensor.Tensor, error) {
	if err := kernels.CheckMaskedFill(x, mask, fill); err != nil {
		return nil, err
	}
	// Element views are native-endian over little-endian data (the hosts
	// and WASM are little-endian); the fill is decoded the same way.
	out := x.Clone()
	switch x.DType.Size() {
	case 1:
		maskedFill(viewOf[uint8](out.Data), mask.Data, fill[0])
	case 2:
		maskedFill(viewOf[uint16](out.Data), mask.Data, binary.NativeEndian.Uint16(fill))
	case 4:
		maskedFill(viewOf[uint32](out.Data), mask.Data, binary.NativeEndian.Uint32(fill))
	case 8:
		maskedFill(viewOf[uint64](out.Data), mask.Data, binary.NativeEndian.Uint64(fill))
	}
	return out, nil
}

func maskedFill[E any](out []E, mask []byte, fill E) {
	for i, m := range mask[:len(out)] {
		if m != 0 {
			out[i] = fill
		}
	}
}
