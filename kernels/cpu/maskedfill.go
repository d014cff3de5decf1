package cpu

import (
	"encoding/binary"
	"unsafe"

	"github.com/fkc-playground/fkc/internal/par"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// MaskedFill is this project's CPU masked_fill (contracts/project/
// fkc-cpu-kernels.fkc.md): out[i] = mask[i] != 0 ? fill : x[i] for any
// element width. mask is BOOL with exactly x's shape (no broadcasting); fill
// is one pre-encoded element (len == dtype size).
func MaskedFill(x, mask *tensor.Tensor, fill []byte, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	if err := kernels.CheckMaskedFill(x, mask, fill); err != nil {
		return nil, err
	}
	if err := kernels.CheckHost("masked_fill", x, mask); err != nil {
		return nil, err
	}
	// Element views are native-endian over little-endian data (the hosts
	// and WASM are little-endian); the fill is decoded the same way.
	out, err := output(into, x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	switch x.DType.Size() {
	case 1:
		maskedFill(viewOf[uint8](x.Data), mask.Data, fill[0], viewOf[uint8](out.Data))
	case 2:
		maskedFill(viewOf[uint16](x.Data), mask.Data, binary.NativeEndian.Uint16(fill), viewOf[uint16](out.Data))
	case 4:
		maskedFill(viewOf[uint32](x.Data), mask.Data, binary.NativeEndian.Uint32(fill), viewOf[uint32](out.Data))
	case 8:
		maskedFill(viewOf[uint64](x.Data), mask.Data, binary.NativeEndian.Uint64(fill), viewOf[uint64](out.Data))
	}
	return out, nil
}

// maskedFill writes every element once (the select, not a copy of x and
// then a pass over the mask), in chunks shared out among the workers.
func maskedFill[E any](x []E, mask []byte, fill E, out []E) {
	es := int(unsafe.Sizeof(fill))
	par.For(len(out), 2*es+1, func(lo, hi int) {
		xs, ms := x[lo:hi], mask[lo:hi]
		for i := range out[lo:hi] {
			v := xs[i]
			if ms[i] != 0 {
				v = fill
			}
			out[lo+i] = v
		}
	})
}

func init() { families = append(families, maskedFillLinks) }

// maskedFillLinks: masked_fill is this project's own CPU contract.
func maskedFillLinks() []kernels.Link {
	return []kernels.Link{{EntryPoint: "fkc::cpu::masked_fill", Serves: kernels.Variants("masked_fill"), Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
		fill, err := c.FillFor(x(c).DType)
		if err != nil {
			return nil, err
		}
		return MaskedFill(x(c), c.In("mask"), fill, c.Out)
	}, Where: "kernels/cpu.MaskedFill"}}
}
