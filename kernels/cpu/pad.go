package cpu

import (
	"encoding/binary"
	"math"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Pad is the mode-unified forward pad of fuel-cpu-backend (`## pad`):
// constant / reflect / replicate on any rank (including 0) and any element
// width. fill is one pre-encoded element (len == dtype size) for Constant and
// is ignored otherwise. Dtype gating (U8/U32/BF16/F16/F32/F64 on the CPU) is
// the registry's job; the kernel itself is a byte mover.
//
// It builds the output slab by slab: along each axis the interior slabs are
// built recursively from the input, then every padded slab is either a fill
// (constant) or a copy() of the already-built output slab it maps to
// (reflect/replicate map out coordinate o to the interior slab at
// map(o-before)+before, whose contents depend only on that input slab). The
// last axis is done row-wise: one copy() for the interior run, fill or
// mirrored/clamped elements for the edges. Bitwise equal to PadRef.
func Pad(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte) (*tensor.Tensor, error) {
	out, err := padSetup(x, mode, pads, fill)
	if err != nil || len(out.Data) == 0 {
		return out, err
	}
	es := x.DType.Size()
	p := padPlan{
		mode: mode, es: es, fill: fill,
		in: x.Data, out: out.Data,
		inShape: x.Shape, pads: pads,
		inStr: byteStrides(x.Shape, es), outStr: byteStrides(out.Shape, es),
	}
	p.slab(0, 0, 0)
	return out, nil
}

// PadRef is the reference walk, as the contracts' prose reads: for every
// output element, unflatten its coordinates, map each axis through
// j = out_coord - before (constant: outside [0, n) means fill; reflect:
// ReflectIndex; replicate: ReplicateIndex) and copy that input element.
func PadRef(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte) (*tensor.Tensor, error) {
	out, err := padSetup(x, mode, pads, fill)
	if err != nil {
		return nil, err
	}
	es := x.DType.Size()
	rank := len(x.Shape)
	inStr := tensor.Strides(x.Shape)
	coord := make([]int, rank)
	for o := 0; o < out.NumElems(); o++ {
		unflatten(o, out.Shape, coord)
		in, inside := 0, true
		for k := 0; k < rank; k++ {
			n := x.Shape[k]
			j := coord[k] - pads[k].Before
			switch mode {
			case kernels.Constant:
				if j < 0 || j >= n {
					inside = false
				}
			case kernels.Reflect:
				j = kernels.ReflectIndex(j, n)
			case kernels.Replicate:
				j = kernels.ReplicateIndex(j, n)
			}
			in += j * inStr[k]
		}
		dst := out.Data[o*es : (o+1)*es]
		if inside {
			copy(dst, x.Data[in*es:(in+1)*es])
		} else {
			copy(dst, fill)
		}
	}
	return out, nil
}

// padSetup validates a forward pad before any work and allocates the output.
func padSetup(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte) (*tensor.Tensor, error) {
	shape, err := kernels.PadShape(x, mode, pads, fill)
	if err != nil {
		return nil, err
	}
	return newOutput(x.DType, shape), nil
}

func byteStrides(shape []int, es int) []int {
	st := tensor.Strides(shape)
	for i := range st {
		st[i] *= es
	}
	return st
}

type padPlan struct {
	mode          kernels.Mode
	es            int
	fill          []byte
	in, out       []byte
	inShape       []int
	pads          []kernels.Pad
	inStr, outStr []int // byte strides
}

// slab builds the output sub-tensor over axes k.. at byte offset oo from
// the input sub-tensor at byte offset io.
func (p *padPlan) slab(k, oo, io int) {
	rank := len(p.inShape)
	if k == rank { // rank 0: one element
		copy(p.out[oo:oo+p.es], p.in[io:io+p.es])
		return
	}
	n, b, a := p.inShape[k], p.pads[k].Before, p.pads[k].After
	if k == rank-1 {
		p.row(oo, io, n, b, a)
		return
	}
	os, is := p.outStr[k], p.inStr[k]
	for i := 0; i < n; i++ {
		p.slab(k+1, oo+(b+i)*os, io+i*is)
	}
	for o := 0; o < b+n+a; o++ {
		if o == b { // skip the interior built above
			o += n
			if o == b+n+a {
				break
			}
		}
		dst := p.out[oo+o*os : oo+(o+1)*os]
		switch p.mode {
		case kernels.Constant:
			fillPattern(dst, p.fill)
		case kernels.Reflect:
			src := kernels.ReflectIndex(o-b, n) + b
			copy(dst, p.out[oo+src*os:oo+(src+1)*os])
		case kernels.Replicate:
			src := kernels.ReplicateIndex(o-b, n) + b
			copy(dst, p.out[oo+src*os:oo+(src+1)*os])
		}
	}
}

// row builds one output row of the last axis.
func (p *padPlan) row(oo, io, n, b, a int) {
	es := p.es
	copy(p.out[oo+b*es:oo+(b+n)*es], p.in[io:io+n*es])
	before := p.out[oo : oo+b*es]
	after := p.out[oo+(b+n)*es : oo+(b+n+a)*es]
	switch p.mode {
	case kernels.Constant:
		fillPattern(before, p.fill)
		fillPattern(after, p.fill)
	case kernels.Replicate:
		if b > 0 {
			fillPattern(before, p.in[io:io+es])
		}
		if a > 0 {
			fillPattern(after, p.in[io+(n-1)*es:io+n*es])
		}
	case kernels.Reflect:
		// out[t] = in[b-t] before the row, out[b+n+t] = in[n-2-t] after it
		// (ReflectIndex with j = t-b and j = n+t).
		for t := 0; t < b; t++ {
			copy(before[t*es:(t+1)*es], p.in[io+(b-t)*es:])
		}
		for t := 0; t < a; t++ {
			copy(after[t*es:(t+1)*es], p.in[io+(n-2-t)*es:io+(n-1-t)*es])
		}
	}
}

// PadBackward is pad_backward_{f32,f64,bf16,f16}: grad_in's shape is derived
// from grad_out's and the padding; every output position, in flat order,
// adds its gradient into an f64 accumulator for the input slot it was read
// from (constant skips padded positions); each slot is then narrowed on
// store (f64→f32, or f64→f32→half). The accumulator starts at 0.0, so a
// lone -0.0 gradient stores as +0.0, as the contract's walk does.
//
// The fast path walks output rows instead of unflattening every element;
// it visits positions in the same flat order, so each slot sees the same
// additions in the same order: bitwise equal to PadBackwardRef.
func PadBackward(gradOut *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) (*tensor.Tensor, error) {
	inShape, err := padBackwardSetup(gradOut, mode, pads)
	if err != nil {
		return nil, err
	}
	acc := make([]float64, tensor.NumElems(inShape))
	rank := len(inShape)
	if rank == 0 {
		if len(acc) == 1 {
			acc[0] += widenAt(gradOut, 0)
		}
		return narrowAcc(gradOut.DType, inShape, acc), nil
	}
	outShape := gradOut.Shape
	L := outShape[rank-1]
	if L == 0 || gradOut.NumElems() == 0 {
		return narrowAcc(gradOut.DType, inShape, acc), nil
	}
	n, b := inShape[rank-1], pads[rank-1].Before
	inStr := tensor.Strides(inShape)
	rows := gradOut.NumElems() / L
	lead := outShape[:rank-1]
	coord := make([]int, rank-1)
	buf := make([]float64, L)
	for r := 0; r < rows; r++ {
		unflatten(r, lead, coord)
		inRow, inside := 0, true
		for k, c := range coord {
			j := c - pads[k].Before
			switch mode {
			case kernels.Constant:
				inside = inside && j >= 0 && j < inShape[k]
			case kernels.Reflect:
				j = kernels.ReflectIndex(j, inShape[k])
			case kernels.Replicate:
				j = kernels.ReplicateIndex(j, inShape[k])
			}
			inRow += j * inStr[k]
		}
		if !inside {
			continue
		}
		widenRow(gradOut, r*L, buf)
		a := acc[inRow : inRow+n]
		// Three runs in flat order, so each slot sees its additions in the
		// reference order: the before-edge, the interior, the after-edge.
		switch mode {
		case kernels.Reflect:
			for t, v := range buf[:b] { // out t reads in[b-t]
				a[b-t] += v
			}
		case kernels.Replicate:
			for _, v := range buf[:b] {
				a[0] += v
			}
		}
		for j, v := range buf[b : b+n] {
			a[j] += v
		}
		switch mode {
		case kernels.Reflect:
			for t, v := range buf[b+n:] { // out b+n+t reads in[n-2-t]
				a[n-2-t] += v
			}
		case kernels.Replicate:
			for _, v := range buf[b+n:] {
				a[n-1] += v
			}
		}
	}
	return narrowAcc(gradOut.DType, inShape, acc), nil
}

// PadBackwardRef is the reference walk of pad_backward_*: per output flat
// position, unflatten, map each axis (constant: skip a padded position),
// add into the f64 accumulator of the input slot; narrow on store.
func PadBackwardRef(gradOut *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) (*tensor.Tensor, error) {
	inShape, err := padBackwardSetup(gradOut, mode, pads)
	if err != nil {
		return nil, err
	}
	acc := make([]float64, tensor.NumElems(inShape))
	rank := len(inShape)
	inStr := tensor.Strides(inShape)
	coord := make([]int, rank)
outer:
	for o := 0; o < gradOut.NumElems(); o++ {
		unflatten(o, gradOut.Shape, coord)
		in := 0
		for k := 0; k < rank; k++ {
			n := inShape[k]
			j := coord[k] - pads[k].Before
			switch mode {
			case kernels.Constant:
				if j < 0 || j >= n {
					continue outer
				}
			case kernels.Reflect:
				j = kernels.ReflectIndex(j, n)
			case kernels.Replicate:
				j = kernels.ReplicateIndex(j, n)
			}
			in += j * inStr[k]
		}
		acc[in] += widenAt(gradOut, o)
	}
	return narrowAcc(gradOut.DType, inShape, acc), nil
}

func padBackwardSetup(g *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) ([]int, error) {
	return kernels.PadBackwardShape(g, mode, pads, kernels.FloatDTypes)
}

// widenAt reads element i of a float tensor exactly as f64.
func widenAt(t *tensor.Tensor, i int) float64 {
	switch t.DType {
	case tensor.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:])))
	case tensor.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:]))
	default:
		return float64(tensor.HalfToF32(t.DType, binary.LittleEndian.Uint16(t.Data[2*i:])))
	}
}

// widenRow widens len(dst) elements of t starting at element i into dst.
func widenRow(t *tensor.Tensor, i int, dst []float64) {
	switch t.DType {
	case tensor.F32:
		for k, v := range t.F32()[i : i+len(dst)] {
			dst[k] = float64(v)
		}
	case tensor.F64:
		copy(dst, t.F64()[i:i+len(dst)])
	default:
		for k, h := range t.U16()[i : i+len(dst)] {
			dst[k] = float64(tensor.HalfToF32(t.DType, h))
		}
	}
}

// narrowAcc stores the f64 accumulators in dtype dt: f64→f32, or
// f64→f32→half (the contracts' "narrow f64->f32->bf16 on store").
func narrowAcc(dt tensor.DType, shape []int, acc []float64) *tensor.Tensor {
	out := newOutput(dt, shape)
	switch dt {
	case tensor.F32:
		o := out.F32()
		for i, v := range acc {
			o[i] = float32(v)
		}
	case tensor.F64:
		copy(out.F64(), acc)
	default:
		o := out.U16()
		for i, v := range acc {
			o[i] = tensor.HalfFromF64(dt, v)
		}
	}
	return out
}
