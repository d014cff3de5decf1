package cpu

import (
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// The indexing family of fuel-reference-indexing. Every index is U32 and is
// bounds-checked before any work, in flat order, so the first bad index is
// the one reported (kernels.IndexOutOfRange). The data movers (index_select,
// gather, embedding) copy raw elements of any width; the adds (index_add,
// scatter_add) add in the element dtype, in src flat order.

// ---- index_select ----

// IndexSelect is index_select_tensor: out[..., k, ...] = data[..., indices[k], ...]
// along dim, with rank-1 U32 indices; the output is data's shape with dim
// resized to len(indices). The fast path copies whole [inner] runs.
func IndexSelect(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := indexSelectSetup(data, indices, dim)
	if err != nil || len(out.Data) == 0 {
		return out, err
	}
	idx := indices.U32()
	outer, n, inner := split3(data.Shape, dim)
	run := inner * data.DType.Size()
	m := len(idx)
	for o := 0; o < outer; o++ {
		for k, ix := range idx {
			src := (o*n + int(ix)) * run
			copy(out.Data[(o*m+k)*run:(o*m+k+1)*run], data.Data[src:src+run])
		}
	}
	return out, nil
}

// IndexSelectRef is the oracle's walk: per output element, unflatten,
// translate the dim coordinate through indices, copy.
func IndexSelectRef(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := indexSelectSetup(data, indices, dim)
	if err != nil {
		return nil, err
	}
	idx := indices.U32()
	es := data.DType.Size()
	dStr := tensor.Strides(data.Shape)
	coord := make([]int, data.Rank())
	for o := 0; o < out.NumElems(); o++ {
		unflatten(o, out.Shape, coord)
		coord[dim] = int(idx[coord[dim]])
		src := flatten(coord, dStr)
		copy(out.Data[o*es:(o+1)*es], data.Data[src*es:(src+1)*es])
	}
	return out, nil
}

func indexSelectSetup(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	shape, err := kernels.IndexSelectShape(data, indices, dim)
	if err != nil {
		return nil, err
	}
	if err := kernels.CheckIndices("index_select", "indices", indices, data.Shape[dim], "data.shape[dim]"); err != nil {
		return nil, err
	}
	return newOutput(data.DType, shape), nil
}

// ---- gather ----

// Gather is gather (PyTorch semantics): indices has data's rank, the output
// has indices' shape, out[p] = data[p with p[dim] ← indices[p]]; for
// d ≠ dim, indices.shape[d] ≤ data.shape[d].
func Gather(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := gatherSetup(data, indices, dim)
	if err != nil || len(out.Data) == 0 {
		return out, err
	}
	switch data.DType.Size() {
	case 1:
		gatherRows(viewOf[uint8](data.Data), indices.U32(), viewOf[uint8](out.Data), data.Shape, indices.Shape, dim)
	case 2:
		gatherRows(viewOf[uint16](data.Data), indices.U32(), viewOf[uint16](out.Data), data.Shape, indices.Shape, dim)
	case 4:
		gatherRows(viewOf[uint32](data.Data), indices.U32(), viewOf[uint32](out.Data), data.Shape, indices.Shape, dim)
	case 8:
		gatherRows(viewOf[uint64](data.Data), indices.U32(), viewOf[uint64](out.Data), data.Shape, indices.Shape, dim)
	}
	return out, nil
}

// gatherRows walks indices row by row along the last axis; the data offset
// of a row (every coordinate but dim's) is computed once per row.
func gatherRows[E any](data []E, idx []uint32, out []E, dShape, iShape []int, dim int) {
	last := len(iShape) - 1
	L := iShape[last]
	dStr := tensor.Strides(dShape)
	lead := iShape[:last]
	coord := make([]int, last)
	for r := 0; r < len(idx)/L; r++ {
		unflatten(r, lead, coord)
		base := 0
		for a, c := range coord {
			if a != dim {
				base += c * dStr[a]
			}
		}
		irow, orow := idx[r*L:(r+1)*L], out[r*L:(r+1)*L]
		if dim == last {
			for c, ix := range irow {
				orow[c] = data[base+int(ix)]
			}
		} else {
			ds := dStr[dim]
			for c, ix := range irow {
				orow[c] = data[base+c+int(ix)*ds]
			}
		}
	}
}

// GatherRef is the oracle's walk: per index position p, unflatten, replace
// the dim coordinate by indices[p], copy.
func GatherRef(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := gatherSetup(data, indices, dim)
	if err != nil {
		return nil, err
	}
	idx := indices.U32()
	es := data.DType.Size()
	dStr := tensor.Strides(data.Shape)
	coord := make([]int, data.Rank())
	for p, ix := range idx {
		unflatten(p, indices.Shape, coord)
		coord[dim] = int(ix)
		src := flatten(coord, dStr)
		copy(out.Data[p*es:(p+1)*es], data.Data[src*es:(src+1)*es])
	}
	return out, nil
}

func gatherSetup(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	shape, err := kernels.GatherShape(data, indices, dim)
	if err != nil {
		return nil, err
	}
	if err := kernels.CheckIndices("gather", "indices", indices, data.Shape[dim], "data.shape[dim]"); err != nil {
		return nil, err
	}
	return newOutput(data.DType, shape), nil
}

// ---- embedding ----

// Embedding is embedding: table [V, D] (rank 2), ids rank-1 U32; row i of
// the [len(ids), D] output is table[ids[i]], copied whole.
func Embedding(table, ids *tensor.Tensor) (*tensor.Tensor, error) {
	shape, err := kernels.EmbeddingShape(table, ids)
	if err != nil {
		return nil, err
	}
	V, D := table.Shape[0], table.Shape[1]
	id := ids.U32()
	if err := kernels.CheckIndices("embedding", "ids", ids, V, "V"); err != nil {
		return nil, err
	}
	out := newOutput(table.DType, shape)
	row := D * table.DType.Size()
	for i, v := range id {
		copy(out.Data[i*row:(i+1)*row], table.Data[int(v)*row:(int(v)+1)*row])
	}
	return out, nil
}

// ---- index_add / scatter_add ----

// adder adds src element s into out element o in the element dtype (a half
// add widens both to f32, adds, and narrows with RNE). Only the touched
// elements of out are rewritten: untouched ones keep base's exact bits.
type adder func(o, s int)

func newAdder(out, src *tensor.Tensor) adder {
	switch out.DType {
	case tensor.F32:
		o, s := out.F32(), src.F32()
		return func(i, j int) { o[i] += s[j] }
	case tensor.F64:
		o, s := out.F64(), src.F64()
		return func(i, j int) { o[i] += s[j] }
	}
	dt := out.DType
	o, s := out.U16(), src.U16()
	return func(i, j int) {
		o[i] = tensor.HalfFromF32(dt, tensor.HalfToF32(dt, o[i])+tensor.HalfToF32(dt, s[j]))
	}
}

// IndexAdd is index_add: a copy of base with out[..., idx[i], ...] +=
// src[..., i, ...], sequential in src flat order, in the dtype. indices is
// rank-1; src has base's rank, src.shape[dim] == len(indices) and every
// other axis equal to base's.
func IndexAdd(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := indexAddSetup(base, indices, src, dim)
	if err != nil {
		return nil, err
	}
	idx := indices.U32()
	outer, m, inner := split3(src.Shape, dim)
	nb := base.Shape[dim]
	// Src flat order is (o, i, k); for a fixed (o, i) the inner run touches
	// distinct slots, so adding it as a row keeps every slot's order.
	switch base.DType {
	case tensor.F32:
		addRuns(out.F32(), src.F32(), idx, outer, m, nb, inner)
	case tensor.F64:
		addRuns(out.F64(), src.F64(), idx, outer, m, nb, inner)
	default:
		add := newAdder(out, src)
		for o := 0; o < outer; o++ {
			for i, ix := range idx {
				d, s := (o*nb+int(ix))*inner, (o*m+i)*inner
				for k := 0; k < inner; k++ {
					add(d+k, s+k)
				}
			}
		}
	}
	return out, nil
}

func addRuns[T float](out, src []T, idx []uint32, outer, m, nb, inner int) {
	for o := 0; o < outer; o++ {
		for i, ix := range idx {
			d, s := (o*nb+int(ix))*inner, (o*m+i)*inner
			dst := out[d : d+inner]
			for k, v := range src[s : s+inner] {
				dst[k] += v
			}
		}
	}
}

// IndexAddRef is the oracle's walk: per src flat position, unflatten, map
// the dim coordinate through indices, add.
func IndexAddRef(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := indexAddSetup(base, indices, src, dim)
	if err != nil {
		return nil, err
	}
	idx := indices.U32()
	add := newAdder(out, src)
	bStr := tensor.Strides(base.Shape)
	coord := make([]int, src.Rank())
	for p := 0; p < src.NumElems(); p++ {
		unflatten(p, src.Shape, coord)
		coord[dim] = int(idx[coord[dim]])
		d := flatten(coord, bStr)
		add(d, p)
	}
	return out, nil
}

func indexAddSetup(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	if err := kernels.CheckIndexAdd(base, indices, src, dim); err != nil {
		return nil, err
	}
	if err := kernels.CheckIndices("index_add", "indices", indices, base.Shape[dim], "base.shape[dim]"); err != nil {
		return nil, err
	}
	return base.Clone(), nil
}

// ScatterAdd is scatter_add: a copy of base with out[p with dim ← idx[p]]
// += src[p] for every src position p, in src flat order, in the dtype.
// indices has exactly src's shape; src has base's rank and, for d ≠ dim,
// src.shape[d] ≤ base.shape[d].
func ScatterAdd(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := scatterAddSetup(base, indices, src, dim)
	if err != nil || src.NumElems() == 0 {
		return out, err
	}
	idx := indices.U32()
	sShape := src.Shape
	last := len(sShape) - 1
	L := sShape[last]
	bStr := tensor.Strides(base.Shape)
	lead := sShape[:last]
	coord := make([]int, last)
	ds := bStr[dim]
	var add adder
	var o32, s32 []float32
	if base.DType == tensor.F32 {
		o32, s32 = out.F32(), src.F32()
	} else {
		add = newAdder(out, src)
	}
	// Rows along the last axis, in src flat order; a row's base offset
	// (every coordinate but dim's) is computed once.
	for r := 0; r < len(idx)/L; r++ {
		unflatten(r, lead, coord)
		b := 0
		for a, c := range coord {
			if a != dim {
				b += c * bStr[a]
			}
		}
		step := 1 // the last axis' own stride, unless it is dim
		if dim == last {
			step = 0
		}
		irow := idx[r*L : (r+1)*L]
		if o32 != nil {
			srow := s32[r*L : (r+1)*L]
			for c, ix := range irow {
				o32[b+c*step+int(ix)*ds] += srow[c]
			}
			continue
		}
		for c, ix := range irow {
			add(b+c*step+int(ix)*ds, r*L+c)
		}
	}
	return out, nil
}

// ScatterAddRef is the oracle's walk: per src flat position p, unflatten,
// replace the dim coordinate by indices[p], add.
func ScatterAddRef(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	out, err := scatterAddSetup(base, indices, src, dim)
	if err != nil {
		return nil, err
	}
	idx := indices.U32()
	add := newAdder(out, src)
	bStr := tensor.Strides(base.Shape)
	coord := make([]int, src.Rank())
	for p, ix := range idx {
		unflatten(p, src.Shape, coord)
		coord[dim] = int(ix)
		d := flatten(coord, bStr)
		add(d, p)
	}
	return out, nil
}

func scatterAddSetup(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	if err := kernels.CheckScatterAdd(base, indices, src, dim); err != nil {
		return nil, err
	}
	if err := kernels.CheckIndices("scatter_add", "indices", indices, base.Shape[dim], "base.shape[dim]"); err != nil {
		return nil, err
	}
	return base.Clone(), nil
}
