package cpu

import (
	"sync/atomic"
	"unsafe"

	"github.com/fkc-playground/fkc/internal/par"
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
// resized to len(indices). The fast path copies whole [inner] runs (rows,
// along dim 0), shared out among the workers.
func IndexSelect(data, indices *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	out, err := indexSelectSetup(data, indices, dim, into...)
	if err != nil || len(out.Data) == 0 {
		return out, err
	}
	idx := indices.U32()
	outer, n, inner := split3(data.Shape, dim)
	run := inner * data.DType.Size()
	m := len(idx)
	srcOf := func(r int) int { return (r/m*n + int(idx[r%m])) * run } // output run r = (o, k)
	par.For(outer*m, 2*run, func(lo, hi int) {
		copyRows(out.Data, data.Data, run, lo, hi, srcOf)
	})
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

func indexSelectSetup(data, indices *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	shape, err := kernels.IndexSelectShape(data, indices, dim)
	if err == nil {
		err = kernels.CheckHost("index_select", data, indices)
	}
	if err != nil {
		return nil, err
	}
	if err := kernels.CheckIndices("index_select", "indices", indices, data.Shape[dim], "data.shape[dim]"); err != nil {
		return nil, err
	}
	return output(into, data.DType, shape)
}

// ---- gather ----

// Gather is gather (PyTorch semantics): indices has data's rank, the output
// has indices' shape, out[p] = data[p with p[dim] ← indices[p]]; for
// d ≠ dim, indices.shape[d] ≤ data.shape[d].
//
// The fast path checks each index as it uses it instead of in a pass of its
// own (the index tensor is as large as the output); on any index out of
// range the partial output is dropped and kernels.CheckIndices reports the
// first one in flat order, as the reference does.
func Gather(data, indices *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	shape, err := kernels.GatherShape(data, indices, dim)
	if err == nil {
		err = kernels.CheckHost("gather", data, indices)
	}
	if err != nil {
		return nil, err
	}
	out, err := output(into, data.DType, shape)
	if err != nil {
		return nil, err
	}
	if len(out.Data) == 0 || len(data.Data) == 0 {
		// No data with indices means data.shape[dim] is 0 (another empty
		// axis would empty indices too): every index is out of range.
		return out, gatherIndexCheck(data, indices, dim)
	}
	var ok bool
	switch data.DType.Size() {
	case 1:
		ok = gatherRows(viewOf[uint8](data.Data), indices.U32(), viewOf[uint8](out.Data), data.Shape, indices.Shape, dim)
	case 2:
		ok = gatherRows(viewOf[uint16](data.Data), indices.U32(), viewOf[uint16](out.Data), data.Shape, indices.Shape, dim)
	case 4:
		ok = gatherRows(viewOf[uint32](data.Data), indices.U32(), viewOf[uint32](out.Data), data.Shape, indices.Shape, dim)
	case 8:
		ok = gatherRows(viewOf[uint64](data.Data), indices.U32(), viewOf[uint64](out.Data), data.Shape, indices.Shape, dim)
	}
	if !ok {
		return nil, gatherIndexCheck(data, indices, dim)
	}
	return out, nil
}

func gatherIndexCheck(data, indices *tensor.Tensor, dim int) error {
	return kernels.CheckIndices("gather", "indices", indices, data.Shape[dim], "data.shape[dim]")
}

// gatherRows walks indices row by row along the last axis, rows shared out
// among the workers; the data offset of a row (every coordinate but dim's)
// is computed once per row. It reports false if an index was out of range.
func gatherRows[E any](data []E, idx []uint32, out []E, dShape, iShape []int, dim int) bool {
	last := len(iShape) - 1
	L := iShape[last]
	dStr := tensor.Strides(dShape)
	lead := iShape[:last]
	nd, ds := dShape[dim], dStr[dim]
	var bad atomic.Bool
	es := int(unsafe.Sizeof(data[0:1][0]))
	par.For(len(idx)/L, L*(4+2*es), func(lo, hi int) {
		coord := make([]int, last)
		// baseOf is a row's data offset (every coordinate but dim's).
		baseOf := func(r int) int {
			unflatten(r, lead, coord)
			b := 0
			for a, c := range coord {
				if a != dim {
					b += c * dStr[a]
				}
			}
			return b
		}
		for r := lo; r < hi; r++ {
			if dim == last && r+1 < hi {
				// The next row's data is read in random order, which no
				// hardware prefetcher follows: ask for all of it now.
				nb := baseOf(r + 1)
				prefetch(unsafe.Slice((*byte)(unsafe.Pointer(&data[nb])), min(nd*es, 64<<10)))
			}
			base := baseOf(r)
			irow, orow := idx[r*L:(r+1)*L], out[r*L:(r+1)*L]
			var ok bool
			if dim == last && es == 4 {
				ok = gatherU32(as[uint32](orow), as[uint32](data[base:base+nd]), irow)
			} else if dim == last {
				ok = gatherRow(orow, data[base:base+nd], irow)
			} else {
				ok = gatherCol(orow, data[base:], irow, nd, ds)
			}
			if !ok {
				bad.Store(true)
			}
		}
	})
	return !bad.Load()
}

// gatherRow is dst[c] = row[idx[c]]; false if an index is ≥ len(row) (that
// element is then left unwritten). Not inlined: inside the worker closure
// the compiler ran out of registers and kept ok on the stack, a store and
// a load per element on the loop's critical path (≈ 3× slower).
//
//go:noinline
func gatherRow[E any](dst, row []E, idx []uint32) bool {
	dst = dst[:len(idx)]
	ok := true
	for c, ix := range idx {
		if int(ix) >= len(row) {
			ok = false
			continue
		}
		dst[c] = row[ix]
	}
	return ok
}

// gatherCol is dst[c] = data[c + idx[c]·ds] for indices < nd.
//
//go:noinline
func gatherCol[E any](dst, data []E, idx []uint32, nd, ds int) bool {
	dst = dst[:len(idx)]
	ok := true
	for c, ix := range idx {
		if int(ix) >= nd {
			ok = false
			continue
		}
		dst[c] = data[c+int(ix)*ds]
	}
	return ok
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
	if err == nil {
		err = kernels.CheckHost("gather", data, indices)
	}
	if err != nil {
		return nil, err
	}
	if err := gatherIndexCheck(data, indices, dim); err != nil {
		return nil, err
	}
	return newOutput(data.DType, shape), nil
}

// ---- embedding ----

// Embedding is embedding: table [V, D] (rank 2), ids rank-1 U32; row i of
// the [len(ids), D] output is table[ids[i]], copied whole.
func Embedding(table, ids *tensor.Tensor, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	shape, err := kernels.EmbeddingShape(table, ids)
	if err == nil {
		err = kernels.CheckHost("embedding", table, ids)
	}
	if err != nil {
		return nil, err
	}
	V, D := table.Shape[0], table.Shape[1]
	id := ids.U32()
	if err := kernels.CheckIndices("embedding", "ids", ids, V, "V"); err != nil {
		return nil, err
	}
	out, err := output(into, table.DType, shape)
	if err != nil {
		return nil, err
	}
	row := D * table.DType.Size()
	par.For(len(id), 2*row, func(lo, hi int) {
		copyRows(out.Data, table.Data, row, lo, hi, func(i int) int { return int(id[i]) * row })
	})
	return out, nil
}

// copyRows copies rows lo..hi-1 of run bytes each into dst, row r from src
// at byte offset srcOf(r). The rows come from random places, so a row's
// first cache line always waits for memory; prefetching the row a few
// ahead overlaps those waits (about 2× on 1 KiB rows).
func copyRows(dst, src []byte, run, lo, hi int, srcOf func(int) int) {
	for r := lo; r < hi; r++ {
		if run >= prefetchMinRow && r+prefetchAhead < hi {
			p := srcOf(r + prefetchAhead)
			prefetch(src[p : p+min(run, prefetchMaxBytes)])
		}
		s := srcOf(r)
		copy(dst[r*run:(r+1)*run], src[s:s+run])
	}
}

// Prefetch distance and extent for rows fetched at random: prefetchAhead
// rows ahead (8 measured best on 1 KiB rows; 4 and 16 within noise), at
// most prefetchMaxBytes of each (the hardware prefetcher follows a long
// row by itself), and only rows of prefetchMinRow bytes or more, where a
// call per row is cheap next to the copy.
const (
	prefetchAhead    = 8
	prefetchMaxBytes = 2048
	prefetchMinRow   = 256
)

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
//
// The fast path never copies base whole and then adds into it from afar:
// it cuts each [base.shape[dim], inner] slab into chunks of destination
// rows small enough to stay in cache, and for each chunk copies base's
// rows and then adds the src rows that land there, visited in increasing
// src order (a stable counting sort of the indices by chunk). A slot's
// additions therefore come in src flat order, as in the reference, and
// chunks are independent, so they are shared out among the workers.
func IndexAdd(base, indices, src *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	if err := indexAddCheck(base, indices, src, dim); err != nil {
		return nil, err
	}
	out, err := output(into, base.DType, base.Shape)
	if err != nil {
		return nil, err
	}
	if len(out.Data) == 0 {
		return out, nil
	}
	idx := indices.U32()
	outer, m, inner := split3(src.Shape, dim)
	nb := base.Shape[dim]
	if inner == 1 && base.DType == tensor.F32 {
		// Along the last axis a "row" is one element: each slab is a row
		// of base that src's row scatters into, in order.
		o32, b32, s32 := out.F32(), base.F32(), src.F32()
		par.For(outer, 4*(2*nb+m), func(lo, hi int) {
			for o := lo; o < hi; o++ {
				copy(o32[o*nb:(o+1)*nb], b32[o*nb:(o+1)*nb])
				scatterRowF32(o32[o*nb:(o+1)*nb], idx, s32[o*m:(o+1)*m])
			}
		})
		return out, nil
	}
	rowBytes := inner * base.DType.Size()
	C := max(1, addChunkBytes/rowBytes) // destination rows per chunk
	nc := (nb + C - 1) / C
	// order[first[c]:first[c+1]] are the src rows that add into chunk c,
	// in increasing order.
	first := make([]int, nc+1)
	for _, ix := range idx {
		first[int(ix)/C+1]++
	}
	for c := range nc {
		first[c+1] += first[c]
	}
	order, next := make([]int, m), append([]int{}, first[:nc]...)
	for i, ix := range idx {
		c := int(ix) / C
		order[next[c]] = i
		next[c]++
	}
	addRow := rowAdder(out, src)
	par.For(outer*nc, 3*C*rowBytes, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			o, c := u/nc, u%nc
			r0, r1 := (o*nb+c*C)*rowBytes, (o*nb+min((c+1)*C, nb))*rowBytes
			copy(out.Data[r0:r1], base.Data[r0:r1])
			rows := order[first[c]:first[c+1]]
			for k, i := range rows {
				if rowBytes >= prefetchMinRow && k+prefetchAhead < len(rows) {
					p := (o*m + rows[k+prefetchAhead]) * rowBytes
					prefetch(src.Data[p : p+min(rowBytes, prefetchMaxBytes)])
				}
				addRow((o*nb+int(idx[i]))*inner, (o*m+i)*inner, inner)
			}
		}
	})
	return out, nil
}

// addChunkBytes is the size of a chunk of destination rows: well inside a
// core's L2, so the adds that follow a chunk's copy hit cache.
const addChunkBytes = 256 << 10

// rowAdder returns add(d, s, n): out[d+k] += src[s+k] for k < n, in the
// dtype; F32 and F64 through the vector primitive (elementwise, exact).
func rowAdder(out, src *tensor.Tensor) func(d, s, n int) {
	switch out.DType {
	case tensor.F32:
		o, v := out.F32(), src.F32()
		return func(d, s, n int) { addF32(o[d:d+n], v[s:s+n]) }
	case tensor.F64:
		o, v := out.F64(), src.F64()
		return func(d, s, n int) { addF64(o[d:d+n], v[s:s+n]) }
	}
	add := newAdder(out, src)
	return func(d, s, n int) {
		for k := 0; k < n; k++ {
			add(d+k, s+k)
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
	if err := indexAddCheck(base, indices, src, dim); err != nil {
		return nil, err
	}
	return base.Clone(), nil
}

func indexAddCheck(base, indices, src *tensor.Tensor, dim int) error {
	if err := kernels.CheckIndexAdd(base, indices, src, dim); err != nil {
		return err
	}
	if err := kernels.CheckHost("index_add", base, indices, src); err != nil {
		return err
	}
	return kernels.CheckIndices("index_add", "indices", indices, base.Shape[dim], "base.shape[dim]")
}

// ScatterAdd is scatter_add: a copy of base with out[p with dim ← idx[p]]
// += src[p] for every src position p, in src flat order, in the dtype.
// indices has exactly src's shape; src has base's rank and, for d ≠ dim,
// src.shape[d] ≤ base.shape[d].
//
// A src position writes into the base slab with its own coordinates before
// dim, so slabs are independent and are shared out among the workers; the
// positions of one slab keep their flat order. When dim is the last axis a
// slab is one row, and each worker copies a base row and scatters the
// matching src row into it while the row is in cache. Indices are checked
// as they are used; on any out of range the partial output is dropped and
// kernels.CheckIndices reports the first one in flat order.
func ScatterAdd(base, indices, src *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	if err := kernels.CheckScatterAdd(base, indices, src, dim); err != nil {
		return nil, err
	}
	if err := kernels.CheckHost("scatter_add", base, indices, src); err != nil {
		return nil, err
	}
	out, err := output(into, base.DType, base.Shape)
	if err != nil {
		return nil, err
	}
	if len(out.Data) == 0 {
		return out, scatterIndexCheck(base, indices, dim)
	}
	sShape, bShape := src.Shape, base.Shape
	last := len(sShape) - 1
	es := base.DType.Size()
	bStr, sStr := tensor.Strides(bShape), tensor.Strides(sShape)
	row := scatterRower(out, src)
	var bad atomic.Bool
	if dim == last {
		Lb, Ls := bShape[last], sShape[last]
		par.For(base.NumElems()/Lb, 2*Lb*es+Ls*(4+es), func(lo, hi int) {
			coord := make([]int, last)
			unflatten(lo, bShape[:last], coord)
			for r := lo; r < hi; r++ {
				copy(out.Data[r*Lb*es:(r+1)*Lb*es], base.Data[r*Lb*es:(r+1)*Lb*es])
				inSrc, s := Ls > 0, 0
				for k, c := range coord {
					inSrc = inSrc && c < sShape[k]
					s += c * sStr[k]
				}
				if inSrc && !row(r*Lb, Lb, 0, s, indices.U32()[s:s+Ls]) {
					bad.Store(true)
				}
				for k := last - 1; k >= 0; k-- {
					if coord[k]++; coord[k] < bShape[k] {
						break
					}
					coord[k] = 0
				}
			}
		})
	} else {
		par.Copy(out.Data, base.Data)
		// Slab = src coordinates before dim; its rows (along the last axis)
		// are contiguous in src: rowsPer of them.
		L := sShape[last]
		rowsPer := tensor.NumElems(sShape[dim:last])
		slabs := tensor.NumElems(sShape[:dim])
		if L > 0 && rowsPer > 0 {
			par.For(slabs, rowsPer*L*(4+3*es), func(lo, hi int) {
				coord := make([]int, last)
				for r := lo * rowsPer; r < hi*rowsPer; r++ {
					unflatten(r, sShape[:last], coord)
					b := 0
					for a, c := range coord {
						if a != dim {
							b += c * bStr[a]
						}
					}
					if !row(b, bShape[dim], bStr[dim], r*L, indices.U32()[r*L:(r+1)*L]) {
						bad.Store(true)
					}
				}
			})
		}
	}
	if bad.Load() {
		return nil, scatterIndexCheck(base, indices, dim)
	}
	return out, nil
}

// scatterRowF32 is row[idx[c]] += src[c] in order; false if an index is
// ≥ len(row) (that element is skipped). Separate and not inlined, so that
// the loop has registers to itself.
//
//go:noinline
func scatterRowF32(row []float32, idx []uint32, src []float32) bool {
	src = src[:len(idx)]
	ok := true
	for c, ix := range idx {
		if int(ix) >= len(row) {
			ok = false
			continue
		}
		row[ix] += src[c]
	}
	return ok
}

func scatterIndexCheck(base, indices *tensor.Tensor, dim int) error {
	return kernels.CheckIndices("scatter_add", "indices", indices, base.Shape[dim], "base.shape[dim]")
}

// scatterRower returns row(b, nd, ds, s, idx): for each c,
// out[b + c + idx[c]·ds] += src[s+c] in the dtype, or, for a row along dim
// itself (ds == 0), out[b + idx[c]] += src[s+c]; it reports false (and
// skips the element) for an idx[c] ≥ nd.
func scatterRower(out, src *tensor.Tensor) func(b, nd, ds, s int, idx []uint32) bool {
	addAt := newAdder(out, src)
	var o32, s32 []float32
	if out.DType == tensor.F32 {
		o32, s32 = out.F32(), src.F32()
	}
	return func(b, nd, ds, s int, idx []uint32) bool {
		step := 1
		if ds == 0 {
			step, ds = 0, 1
		}
		ok := true
		if o32 != nil && step == 0 {
			return scatterRowF32(o32[b:b+nd], idx, s32[s:s+len(idx)])
		}
		if o32 != nil {
			srow := s32[s : s+len(idx)]
			for c, ix := range idx {
				if int(ix) >= nd {
					ok = false
					continue
				}
				o32[b+c*step+int(ix)*ds] += srow[c]
			}
			return ok
		}
		for c, ix := range idx {
			if int(ix) >= nd {
				ok = false
				continue
			}
			addAt(b+c*step+int(ix)*ds, s+c)
		}
		return ok
	}
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
	if err := kernels.CheckHost("scatter_add", base, indices, src); err != nil {
		return nil, err
	}
	if err := scatterIndexCheck(base, indices, dim); err != nil {
		return nil, err
	}
	return base.Clone(), nil
}

func init() { families = append(families, indexLinks) }

// The data movers write into the caller's tensor (Call.Out) when there is one.

func index(f func(data, indices *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(c.In("data"), c.In("indices"), c.Dim, c.Out) }
}

func add(f func(base, indices, src *tensor.Tensor, dim int, into ...*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) {
		return f(c.In("base"), c.In("indices"), c.In("src"), c.Dim, c.Out)
	}
}

// indexLinks are fuel-reference-backend's indexing kernels.
func indexLinks() []kernels.Link {
	v := kernels.Variants
	return []kernels.Link{
		{EntryPoint: refOracle + "index_select_tensor", Serves: v("index_select"), Impl: index(IndexSelect), Where: "kernels/cpu.IndexSelect"},
		// Host-slice variant: same implementation; the seed says it is not
		// exec-wired, so it is no dispatch target (its kernel page runs it).
		{EntryPoint: refOracle + "index_select", Runs: v("index_select"), Impl: index(IndexSelect), Where: "kernels/cpu.IndexSelect (host-slice form; not exec-wired)"},
		{EntryPoint: refOracle + "gather", Serves: v("gather"), Impl: index(Gather), Where: "kernels/cpu.Gather"},
		{EntryPoint: refOracle + "index_add", Serves: v("index_add"), Impl: add(IndexAdd), Where: "kernels/cpu.IndexAdd"},
		{EntryPoint: refOracle + "scatter_add", Serves: v("scatter_add"), Impl: add(ScatterAdd), Where: "kernels/cpu.ScatterAdd"},
		{EntryPoint: refOracle + "embedding", Serves: v("embedding"), Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
			return Embedding(c.In("table"), c.In("ids"), c.Out)
		}, Where: "kernels/cpu.Embedding"},
	}
}
