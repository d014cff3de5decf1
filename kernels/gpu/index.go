package gpu

import (
	"fmt"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
)

// The indexing family on the GPU (shaders/wgsl/index.wgsl). Validation
// mirrors kernels/cpu word for word. Index bounds are checked on the GPU
// (every mover tests each index it reads; the adds and empty outputs run
// the `check` pass): the first bad position comes back through an error
// word and becomes the very same kernels.IndexOutOfRange error the CPU
// path raises — so no host pass over the indices (tens of milliseconds for
// 16M indices) precedes the upload.

// indexCall is one index kernel invocation.
type indexCall struct {
	op, entry      string
	data, idx, src *tensor.Tensor // src nil for the movers
	dim            int
	outShape       []int
	a, b           []int // P's A (data/base) and B (indices/src) shapes
	bound, length  int
	operand, limit string // for IndexOutOfRange
	add            bool
	init           []byte
}

func (d *Device) runIndex(c *indexCall) (*tensor.Tensor, error) {
	if err := checkRank(c.op, len(c.a)); err != nil {
		return nil, err
	}
	n := tensor.NumElems(c.outShape)
	for _, v := range []int{n, c.data.NumElems(), c.idx.NumElems()} {
		if err := checkElems(c.op, v); err != nil {
			return nil, err
		}
	}
	nIdx := c.idx.NumElems()
	if n == 0 && nIdx == 0 {
		return tensor.New(c.data.DType, c.outShape), nil
	}
	for _, sh := range [][]int{c.a, c.b, c.outShape} {
		if err := checkDims(c.op, "size", sh...); err != nil {
			return nil, err
		}
	}
	eb := c.data.DType.Size()
	// Size every buffer (the adds' bucket tables too) before building any.
	bufs := []sized{{"data", inBytes(len(c.data.Data))}, {"indices", inBytes(len(c.idx.Data))}, {"out", outBytes(n * eb)}}
	if c.src != nil {
		bufs = append(bufs, sized{"src", inBytes(len(c.src.Data))})
	}
	switch c.entry {
	case "index_add":
		bufs = append(bufs, sized{"bucket_off", 4 * uint64(c.bound+1)}, sized{"bucket_order", inBytes(4 * nIdx)})
	case "scatter_add":
		bufs = append(bufs, sized{"bucket_off", 4 * uint64(n+1)}, sized{"bucket_order", inBytes(4 * nIdx)})
	}
	if err := d.fits(c.op, bufs...); err != nil {
		return nil, err
	}
	out := &tensor.Tensor{DType: c.data.DType, Shape: append([]int{}, c.outShape...)}
	var defs []wgsl.Def
	name := fmt.Sprintf("%s_b%d", c.entry, eb)
	if c.add {
		defs = []wgsl.Def{{Name: "EB", Value: 4}, {Name: "DT", Value: dtTag(c.data.DType)}}
		name = c.entry + "_" + dtName(c.data.DType)
	} else {
		defs = []wgsl.Def{{Name: "EB", Value: uint32(eb)}, {Name: "DT", Value: 0}}
	}
	// scatter_add_rows' tile: the most columns whose sums and bids (8
	// bytes each) fit the adapter's workgroup memory, up to 4096.
	sct := uint32(4096)
	for sct > 256 && 8*sct+16 > d.info.MaxComputeWorkgroupStorageSize {
		sct /= 2
	}
	defs = append(defs, wgsl.Def{Name: "SCT", Value: sct})
	name += fmt.Sprintf("_sct%d", sct)
	rw := []bool{false, false, false, false, true, true, false}
	d.mu.Lock()
	defer d.mu.Unlock()
	if I, _, _ := c.fast(); c.entry == "index_select" && n > 0 && I*eb%16 == 0 {
		return d.selectRows(c, out, I*eb/16)
	}
	pchk, err := d.pipeline(kernelSpec{name: name, file: "index.wgsl", entry: "check", defs: defs, rw: rw})
	if err != nil {
		return nil, err
	}
	pk, err := d.pipeline(kernelSpec{name: name, file: "index.wgsl", entry: c.entry, defs: defs, rw: rw})
	if err != nil {
		return nil, err
	}
	// Rows staged in workgroup memory (index.wgsl gather_rows,
	// index_add_rows): dim last, a row of at most 16 KiB that starts on a
	// word, enough rows to fill the device.
	entry, rows := c.entry, 0
	if c.entry == "scatter_add" && c.scatterRows() && n/c.bound >= 64 {
		entry, rows = "scatter_add_rows", n/c.bound
	}
	if I, J, ok := c.fast(); ok && I == 1 && J > 0 && (c.entry == "gather" || c.entry == "index_add") {
		el := c.data.DType.Size()
		row := c.bound // gather: the data row
		if c.add {
			row = c.length // index_add: the src row
		}
		if (el == 4 || (el == 2 && row%2 == 0 && J%2 == 0)) && row*el <= 16<<10 && n/J >= 64 {
			entry, rows = c.entry+"_rows", n/J
		}
	}
	if entry != c.entry {
		if pk, err = d.pipeline(kernelSpec{name: name, file: "index.wgsl", entry: entry, defs: defs, rw: rw}); err != nil {
			return nil, err
		}
	}
	var off, order []uint32
	switch entry {
	case "index_add", "index_add_rows":
		off, order = bucketsByIndex(c.idx.U32(), c.bound)
	case "scatter_add":
		off, order = bucketsByTarget(c.idx.U32(), c.src.Shape, c.a, c.dim, c.bound)
	}
	p := make([]uint32, 32)
	p[0], p[1], p[2], p[3], p[4], p[5] = uint32(n), uint32(len(c.a)), uint32(c.dim), uint32(nIdx), uint32(c.bound), uint32(c.length)
	for i := range c.a {
		p[8+i] = uint32(c.a[i])
		if i < len(c.b) {
			p[16+i] = uint32(c.b[i])
		}
		p[24+i] = uint32(c.outShape[i])
	}
	// The fast path (index.wgsl): shapes that agree on every axis but dim.
	if I, J, ok := c.fast(); ok {
		p[6], p[7] = uint32(I), uint32(J)
	}
	j := d.begin(c.op)
	params := j.words("params", p)
	data := j.input("data", c.data.Data)
	idx := j.input("indices", c.idx.Data)
	src := idx
	if c.src != nil {
		src = j.input("src", c.src.Data)
	}
	dst := j.outputTensor("out", out)
	flag := j.output("index_error", 4, []byte{0xff, 0xff, 0xff, 0xff}, false)
	// The adds read their bucket table: off at binding 6, order in the
	// indices' slot (the check pass reads the indices themselves).
	ob, kidx := idx, idx
	if c.add && entry != "scatter_add_rows" {
		ob, kidx = j.words("bucket_off", off), j.words("bucket_order", order)
	}
	// The movers read every index whenever the output is not empty, and
	// report the first bad one themselves; the adds read bucket tables
	// instead, and an empty output reads nothing: those run the check.
	if (c.add && entry != "scatter_add_rows") || n == 0 {
		j.dispatch(pchk, groupsFor(uint64(nIdx)), params, data, idx, src, dst.buf, flag.buf, ob)
	}
	words := elemWords(n, eb)
	if c.add {
		words = elemWords(n, c.data.DType.Size())
	}
	groups := groupsFor(words)
	if rows > 0 {
		groups = uint64(rows) // one workgroup per output row
	}
	j.dispatch(pk, groups, params, data, kidx, src, dst.buf, flag.buf, ob)
	return c.finish(j, flag, out)
}

// finish runs the job and turns the GPU's error word (the first bad index
// position, or all ones) into the CPU path's IndexOutOfRange error.
func (c *indexCall) finish(j *job, flag *outBuf, out *tensor.Tensor) (*tensor.Tensor, error) {
	if err := j.run(); err != nil {
		return nil, err
	}
	if pos := getU32(flag.data); pos != 0xffffffff {
		v := c.idx.U32()[pos]
		return nil, kernels.IndexOutOfRange(c.op, c.operand, c.idx.Shape, int(pos), uint64(v), c.bound, c.limit)
	}
	return out, nil
}

// selectRows runs index_select through index_rows.wgsl: whole 16-byte
// units per slice (R of them), one vec4 copy per thread. Call with d.mu held.
func (d *Device) selectRows(c *indexCall, out *tensor.Tensor, R int) (*tensor.Tensor, error) {
	p, err := d.pipeline(kernelSpec{name: "index_select_rows", file: "index_rows.wgsl", entry: "main", rw: []bool{false, false, false, true, true}})
	if err != nil {
		return nil, err
	}
	units := tensor.NumElems(out.Shape) * out.DType.Size() / 16
	j := d.begin(c.op)
	params := j.words("params", []uint32{uint32(units), uint32(R), uint32(c.length), uint32(c.bound)})
	idx := j.input("indices", c.idx.Data)
	data := j.input("data", c.data.Data)
	dst := j.outputTensor("out", out)
	flag := j.output("index_error", 4, []byte{0xff, 0xff, 0xff, 0xff}, false)
	j.dispatch(p, groupsFor(uint64(units)), params, idx, data, dst.buf, flag.buf)
	return c.finish(j, flag, out)
}

// scatterRows reports whether scatter_add takes scatter_add_rows: dim is
// the last axis, src (and indices) span base on the other axes, and an
// output row starts on a word.
func (c *indexCall) scatterRows() bool {
	if c.dim != len(c.a)-1 || (c.data.DType.Size() == 2 && c.bound%2 != 0) {
		return false
	}
	for a := range c.dim {
		if c.b[a] != c.a[a] {
			return false
		}
	}
	return true
}

// fast reports whether the call takes index.wgsl's fast path — the data
// (base), indices (src) and output shapes agree on every axis but dim —
// with I, the product of the axes after dim, and J, the output's dim
// length. index_select, embedding and index_add always do; gather when
// its indices span the data on the other axes; scatter_add's general
// kernel buckets by flat target and never does.
func (c *indexCall) fast() (I, J int, ok bool) {
	switch c.entry {
	case "scatter_add":
		return 0, 0, false
	case "gather":
		for a := range c.a {
			if a != c.dim && c.b[a] != c.a[a] {
				return 0, 0, false
			}
		}
	}
	return max(1, tensor.NumElems(c.outShape[c.dim+1:])), c.outShape[c.dim], true
}

// IndexSelect: out[..., k, ...] = data[..., indices[k], ...] along dim;
// rank-1 U32 indices. Pure data movement: bitwise equal to the CPU path.
func (d *Device) IndexSelect(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	const op = "index_select"
	shape, err := kernels.IndexSelectShape(data, indices, dim)
	if err != nil {
		return nil, err
	}
	return d.runIndex(&indexCall{op: op, entry: "index_select", data: data, idx: indices, dim: dim,
		outShape: shape, a: data.Shape, b: indices.Shape, bound: data.Shape[dim], length: indices.Shape[0],
		operand: "indices", limit: "data.shape[dim]"})
}

// Gather (PyTorch): out[p] = data[p with p[dim] <- indices[p]]; output has
// indices' shape. Bitwise equal to the CPU path.
func (d *Device) Gather(data, indices *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	const op = "gather"
	if _, err := kernels.GatherShape(data, indices, dim); err != nil {
		return nil, err
	}
	return d.runIndex(&indexCall{op: op, entry: "gather", data: data, idx: indices, dim: dim,
		outShape: indices.Shape, a: data.Shape, b: indices.Shape, bound: data.Shape[dim], length: 0,
		operand: "indices", limit: "data.shape[dim]"})
}

// Embedding: table [V, D], rank-1 U32 ids -> [len(ids), D], row i =
// table[ids[i]] (index_select along dim 0). Bitwise equal to the CPU path.
func (d *Device) Embedding(table, ids *tensor.Tensor) (*tensor.Tensor, error) {
	const op = "embedding"
	shape, err := kernels.EmbeddingShape(table, ids)
	if err != nil {
		return nil, err
	}
	V := table.Shape[0]
	return d.runIndex(&indexCall{op: op, entry: "index_select", data: table, idx: ids, dim: 0,
		outShape: shape, a: table.Shape, b: ids.Shape, bound: V, length: ids.Shape[0],
		operand: "ids", limit: "V"})
}

// noF64 refuses F64 for the adds: WGSL in browsers has no f64 arithmetic,
// so the project's GPU contract lists F32, F16, BF16 only.
func noF64(op string, base *tensor.Tensor) error {
	if base.DType == tensor.F64 {
		return fmt.Errorf("%s: F64 is not available on the GPU kernels (contract fkc-wgsl-kernels: dtypes [F32, F16, BF16]); runs on CPU", op)
	}
	return nil
}

// IndexAdd: copy of base with out[..., idx[i], ...] += src[..., i, ...],
// deterministic: one thread per output element adds its contributions in
// src flat order, in the dtype (bitwise equal to the CPU oracle); the
// contributions come from a host-built bucket table (O(base_n + src_n)).
func (d *Device) IndexAdd(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	const op = "index_add"
	if err := kernels.CheckIndexAdd(base, indices, src, dim); err != nil {
		return nil, err
	}
	if err := noF64(op, base); err != nil {
		return nil, err
	}
	return d.runIndex(&indexCall{op: op, entry: "index_add", data: base, idx: indices, src: src, dim: dim,
		outShape: base.Shape, a: base.Shape, b: src.Shape, bound: base.Shape[dim], length: indices.Shape[0],
		operand: "indices", limit: "base.shape[dim]", add: true})
}

// ScatterAdd: copy of base with out[p with dim <- idx[p]] += src[p],
// deterministic: one thread per output element adds its contributions in
// src flat order, in the dtype (bitwise equal to the CPU oracle); the
// contributions come from a host-built bucket table (O(base_n + src_n)).
func (d *Device) ScatterAdd(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	const op = "scatter_add"
	if err := kernels.CheckScatterAdd(base, indices, src, dim); err != nil {
		return nil, err
	}
	if err := noF64(op, base); err != nil {
		return nil, err
	}
	return d.runIndex(&indexCall{op: op, entry: "scatter_add", data: base, idx: indices, src: src, dim: dim,
		outShape: base.Shape, a: base.Shape, b: src.Shape, bound: base.Shape[dim], length: src.Shape[dim],
		operand: "indices", limit: "base.shape[dim]", add: true})
}

// bucketsByIndex is index_add's bucket table, a stable counting sort of the
// index positions by value: bucket c = order[off[c]:off[c+1]] lists the i
// with idx[i] == c in ascending order. Out-of-range indices are left out
// (the GPU check pass reports them).
func bucketsByIndex(idx []uint32, nb int) (off, order []uint32) {
	off = make([]uint32, nb+1)
	for _, v := range idx {
		if int64(v) < int64(nb) {
			off[v+1]++
		}
	}
	for c := range nb {
		off[c+1] += off[c]
	}
	order = make([]uint32, off[nb])
	cur := append([]uint32(nil), off[:nb]...)
	for i, v := range idx {
		if int64(v) < int64(nb) {
			order[cur[v]] = uint32(i)
			cur[v]++
		}
	}
	return off, order
}

// bucketsByTarget is scatter_add's bucket table: every src flat position p
// goes to the output element it adds into (p's coordinates in base, dim <-
// idx[p]); bucket e = order[off[e]:off[e+1]] lists those p in ascending
// (src flat) order. Out-of-range indices are left out (the GPU check pass
// reports them).
func bucketsByTarget(idx []uint32, srcShape, baseShape []int, dim, bound int) (off, order []uint32) {
	nBase := tensor.NumElems(baseShape)
	bst := tensor.Strides(baseShape)
	const none = ^uint32(0)
	tgt := make([]uint32, len(idx))
	rank := len(srcShape)
	coord := make([]int, rank)
	eoff := 0 // Σ_{a != dim} coord[a]·bst[a]
	for p, v := range idx {
		if int64(v) < int64(bound) {
			tgt[p] = uint32(eoff + int(v)*bst[dim])
		} else {
			tgt[p] = none
		}
		for a := rank - 1; a >= 0; a-- {
			coord[a]++
			if a != dim {
				eoff += bst[a]
			}
			if coord[a] < srcShape[a] {
				break
			}
			if a != dim {
				eoff -= coord[a] * bst[a]
			}
			coord[a] = 0
		}
	}
	off = make([]uint32, nBase+1)
	for _, e := range tgt {
		if e != none {
			off[e+1]++
		}
	}
	for e := range nBase {
		off[e+1] += off[e]
	}
	order = make([]uint32, off[nBase])
	cur := append([]uint32(nil), off[:nBase]...)
	for p, e := range tgt {
		if e != none {
			order[cur[e]] = uint32(p)
			cur[e]++
		}
	}
	return off, order
}
