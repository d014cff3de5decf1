package gpu

import (
	"fmt"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
)

// The deterministic adds on the GPU (shaders/wgsl/index_add.wgsl):
// index_add and scatter_add, F32/F16/BF16 everywhere and F64 where the
// adapter has shader-f64. Every output element receives its contributions
// in ascending src flat order, one add at a time in the dtype: bitwise the
// CPU oracle's result.

// addRounds is scatter_add_rows' bidding rounds before a contended chunk
// is swept (ROUNDS in index_add.wgsl).
const addRounds = 8

// addSQ is scatter_add_rows' contributions per thread per chunk (SQ), and
// addPF the chunks ahead whose indices and values a thread loads during a
// chunk's bidding rounds (PF: 0, 1 or 2); tuning variables, the result is
// the same. SQ 2, PF 1 was the fastest on the H200. Measurements:
// docs/perf/index-add.md.
var (
	addSQ = 2
	addPF = 1
)

// addChain is the most contributions of one bucket that a general add
// pass folds per element; a unit of two halves folds two elements.
const addChain = loopBudget / 2

// addKernel describes the add pipelines for one dtype: the element
// access fragment, DT, PER (elements per output unit) and the value size.
type addKernel struct {
	io      string
	dt, per uint32
	valB    int
}

func addKernelFor(dt tensor.DType) addKernel {
	switch dt {
	case tensor.F64:
		return addKernel{"addio64.wgsl", 3, 1, 8}
	case tensor.F16, tensor.BF16:
		return addKernel{"addio32.wgsl", dtTag(dt), 2, 4}
	}
	return addKernel{"addio32.wgsl", 0, 1, 4}
}

// sct is scatter_add_rows' tile: the most columns (a power of two, 256 to
// 4096) whose sums and bids fit the adapter's workgroup memory; 0 if not
// even 256 do.
func (k addKernel) sct(limit uint32) uint32 {
	for s := uint32(4096); s >= 256; s /= 2 {
		if s*uint32(4+k.valB)+16 <= limit {
			return s
		}
	}
	return 0
}

func (d *Device) addPipe(k addKernel, dt tensor.DType, entry string, sct uint32) (*pipe, error) {
	return d.pipeline(kernelSpec{
		name:  fmt.Sprintf("index_add_%s_sq%d_pf%d_sct%d", dtName(dt), addSQ, addPF, sct),
		file:  "index_add.wgsl",
		entry: entry,
		defs: []wgsl.Def{{Name: "DT", Value: k.dt}, {Name: "PER", Value: k.per}, {Name: "SQ", Value: uint32(addSQ)}, {Name: "PF", Value: uint32(addPF)},
			{Name: "SCT", Value: max(sct, 256)}, {Frag: k.io}},
		rw: []bool{false, false, false, false, true, true, false, true},
	})
}

// scatterChunkCost is the most loop iterations of one scatter_add_rows
// invocation per chunk of SQ·W contributions (the loads, ROUNDS bidding
// rounds, the sweep of a contended chunk), counting the SQ-trip loops as
// loops; scatterTileCost per tile (its sums in and out, and its first
// chunks' loads).
func scatterChunkCost() int {
	return 2*addSQ + addRounds*(1+2*addSQ) + 3*addSQ + addSQ*addSQ*wgSize + 4
}

func scatterTileCost() int { return 2*4096/wgSize + 4 + 2*addSQ }

// scatters reports whether the call is scatter_add's: src elements, not
// slices, each added where its index sends it (bucketed by flat target).
func (c *indexCall) scatters() bool { return c.entry == "scatter_add" }

// runAdd runs index_add or scatter_add.
func (d *Device) runAdd(c *indexCall) (*tensor.Tensor, error) {
	dt := c.data.DType
	if dt == tensor.F64 && !d.info.ShaderF64 {
		return nil, &kernels.Unavailable{Kernel: c.op + "_f64", Need: "shader-f64", Msg: "runs on CPU"}
	}
	k := addKernelFor(dt)
	scatter := c.scatters()
	nb := c.bound + 1 // index_add's table: one bucket per index value
	if scatter {
		nb = tensor.NumElems(c.outShape) + 1
	}
	// The buffers every path binds; the host tables' are checked below,
	// once the path is known (the rows kernels build none), and a
	// continuation state's when it is made (job.checkSize). Counting them
	// all here refused calls whose buffers all fit (an F16 index_add into
	// a base over 64 MiB: "needs state", which it never made).
	n, nIdx, done, err := d.prepIndex(c, sized{"src", inBytes(len(c.src.Data))})
	if err != nil {
		return nil, err
	}
	if done {
		return tensor.New(dt, c.outShape), nil
	}
	out := &tensor.Tensor{DType: dt, Shape: append([]int{}, c.outShape...)}
	sct := k.sct(d.info.MaxComputeWorkgroupStorageSize)
	// Along the last axis with enough rows: one workgroup per row.
	entry, rows := c.entry, 0
	switch {
	case scatter && c.scatterRows() && d.threadsOverTrees() && n/c.bound >= seqSegsEmulated:
		entry, rows = "scatter_add_seq", n/c.bound
	case scatter && sct > 0 && c.scatterRows() && n/c.bound >= 64 && !d.threadsOverTrees():
		entry, rows = "scatter_add_rows", n/c.bound
	case !scatter:
		if I, J, ok := c.fast(); ok && I == 1 && J > 0 && c.indexAddRows(k, J) && n/J >= 64 {
			entry, rows = "index_add_rows", n/J
		}
	}
	// F32 slices of whole 16-byte units: the general add a unit of 4 a
	// thread (index_add4.wgsl).
	per := int(k.per) // elements per output unit of the general adds
	if I, _, ok := c.fast(); rows == 0 && !scatter && dt == tensor.F32 && ok && I%4 == 0 {
		per = 4
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var pk *pipe
	if per == 4 {
		pk, err = d.pipeline(kernelSpec{name: "index_add4", file: "index_add4.wgsl", entry: "main",
			rw: []bool{false, false, false, false, true, true, false, true}})
	} else {
		pk, err = d.addPipe(k, dt, entry, sct)
	}
	if err != nil {
		return nil, err
	}
	// The table paths: their host tables (a bucket per target) and the
	// bounds check's pipeline, before the call's job begins.
	var pchk *pipe
	if entry != "scatter_add_seq" && entry != "scatter_add_rows" {
		if err := d.fits(c.op, sized{"bucket_off", 4 * uint64(nb)}, sized{"bucket_order", inBytes(4 * c.idx.NumElems())}); err != nil {
			return nil, err
		}
		if pchk, err = d.checkPipe(); err != nil {
			return nil, err
		}
	}
	p := c.indexParams(n, nIdx)
	j := d.begin(c.op)
	data := j.operand("data", c.data)
	idx := j.operand("indices", c.idx)
	src := j.operand("src", c.src)
	dst := j.outputTensor("out", out)
	flag := j.output("index_error", 4, []byte{0xff, 0xff, 0xff, 0xff}, false)
	if entry == "scatter_add_seq" {
		// One thread per row, which checks every index it reads; no
		// table, no state (placeholders as below). Passes over j keep
		// each invocation's loop within the budget.
		none, none2 := j.scratch("unused", 16), j.scratch("unused", 16)
		chunk := max(1, loopBudget-c.bound/int(k.per))
		for j0 := 0; j0 == 0 || j0 < c.length; j0 += chunk {
			p[34], p[35] = uint32(j0), uint32(min(j0+chunk, c.length))
			j.dispatch(pk, groupsFor(uint64(rows)), j.words("params", p), data, idx, src, dst.buf, flag.buf, none, none2)
		}
		return c.finish(j, flag, out)
	}
	if entry == "scatter_add_rows" {
		// The kernel checks every index it reads; it has no table and no
		// state (bindings 6 and 7: two distinct placeholders, one is
		// read-only and one writable).
		none, none2 := j.scratch("unused", 16), j.scratch("unused", 16)
		for _, ps := range scatterRowsPasses(c.bound, c.length, int(sct)) {
			copy(p[32:], ps[:])
			j.dispatch(pk, uint64(rows), j.words("params", p), data, idx, src, dst.buf, flag.buf, none, none2)
		}
		return c.finish(j, flag, out)
	}
	j.dispatch(pchk, groupsFor(uint64(nIdx)), j.words("params", p), data, idx, dst.buf, flag.buf)
	// the tables are built on the host from the index values (a device
	// tensor's are read back once)
	iv := j.hostU32("indices", c.idx)
	if iv == nil && nIdx > 0 {
		return c.finish(j, flag, out)
	}
	var off, order []uint32
	if scatter {
		off, order = bucketsByTarget(iv, c.src.Shape, c.a, c.dim, c.bound)
	} else {
		off, order = bucketsByIndex(iv, c.bound)
	}
	kidx := j.words("bucket_order", order)
	units := (n + per - 1) / per
	if rows > 0 {
		j.dispatch(pk, uint64(rows), j.words("params", p), data, kidx, src, dst.buf, flag.buf, j.words("bucket_off", off), j.scratch("unused", 16))
		return c.finish(j, flag, out)
	}
	// A bucket longer than the chain is continued by further passes over
	// the units that hold one, its accumulator carried in `state`.
	long := longUnits(off, n, per, addChain, func(e int) int {
		if scatter {
			return e
		}
		return e / max(1, int(p[6])) % c.bound
	})
	passes := 1
	if maxLen := longest(off); int(maxLen) > addChain {
		passes = (int(maxLen) + addChain - 1) / addChain
	}
	state := j.scratch("state", 16)
	if passes > 1 {
		state = j.scratch("state", k.valB*n)
	}
	p[33], p[35], p[36] = addChain, uint32(len(off)), uint32(len(long))
	ob := j.words("bucket_off", append(off, long...))
	for s := range passes {
		p[32], p[34] = uint32(s*addChain), b2u(s > 0)
		groups := groupsFor(uint64(units))
		if s > 0 {
			groups = groupsFor(uint64(len(long)))
		}
		j.dispatch(pk, groups, j.words("params", p), data, kidx, src, dst.buf, flag.buf, ob, state)
	}
	return c.finish(j, flag, out)
}

// longUnits lists the output units (of per elements) holding an element
// whose bucket (bucketOf(e)) has more than chain entries: the units the
// continuation passes revisit. Empty when no bucket is that long.
func longUnits(off []uint32, n, per, chain int, bucketOf func(e int) int) []uint32 {
	if int(longest(off)) <= chain {
		return nil
	}
	var list []uint32
	for u := 0; u*per < n; u++ {
		for e := u * per; e < min(n, (u+1)*per); e++ {
			if b := bucketOf(e); int(off[b+1]-off[b]) > chain {
				list = append(list, uint32(u))
				break
			}
		}
	}
	return list
}

// scatterRowsPasses splits a scatter_add_rows call (rows of C columns
// receiving J contributions) into passes that keep every invocation within
// the loop budget: each pass takes a group of whole tiles and a range of
// whole chunks; a pass after the first chunk range starts from the sums
// the previous one left in the output. Each entry is P[32..35]: columns
// [c0, c1), contributions [j0, j1).
func scatterRowsPasses(C, J, sct int) [][4]uint32 {
	chk := addSQ * wgSize
	chunks := max(1, (J+chk-1)/chk)
	tiles := (C + sct - 1) / sct
	cg := min(chunks, max(1, (loopBudget-scatterTileCost())/scatterChunkCost()))
	tg := min(tiles, max(1, loopBudget/(scatterTileCost()+cg*scatterChunkCost())))
	var ps [][4]uint32
	for tb := 0; tb < tiles; tb += tg {
		for jb := 0; jb < chunks; jb += cg {
			ps = append(ps, [4]uint32{uint32(tb * sct), uint32(min(tb+tg, tiles) * sct), uint32(jb * chk), uint32(min(jb+cg, chunks) * chk)})
		}
	}
	return ps
}

// indexAddRows reports whether index_add along the last axis (output rows
// of C elements) can stage its src row: at most 16 KiB, whole output
// units, and a thread's loop (the row's m contributions, its C/(PER·W)
// units, the staging) within the budget.
func (c *indexCall) indexAddRows(k addKernel, C int) bool {
	el, m := c.data.DType.Size(), c.length
	if m*el > 16<<10 || (k.per == 2 && (m%2 != 0 || C%2 != 0)) {
		return false
	}
	return m+C/(int(k.per)*wgSize)*(1+int(k.per))+(16<<10)/4/wgSize+4 <= loopBudget
}

// scatterRows reports whether scatter_add takes scatter_add_rows: dim is
// the last axis, of some length (an empty one has no rows to fold, and
// every index into it is out of range: the general path reports the
// first), src (and indices) span base on the other axes, and an output
// row starts on a word.
func (c *indexCall) scatterRows() bool {
	if c.bound == 0 || c.dim != len(c.a)-1 || (c.data.DType.Size() == 2 && c.bound%2 != 0) {
		return false
	}
	for a := range c.dim {
		if c.b[a] != c.a[a] {
			return false
		}
	}
	return true
}

// IndexAdd: copy of base with out[..., idx[i], ...] += src[..., i, ...],
// deterministic: each output element adds its contributions in src flat
// order, in the dtype (bitwise equal to the CPU oracle); the contributions
// come from a host-built bucket table (O(base_n + src_n)), or along the
// last axis from the staged src row. F64 needs shader-f64.
func (d *Device) IndexAdd(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	const op = "index_add"
	if err := kernels.CheckIndexAdd(base, indices, src, dim); err != nil {
		return nil, err
	}
	return d.runAdd(&indexCall{op: op, entry: "index_add", data: base, idx: indices, src: src, dim: dim,
		outShape: base.Shape, a: base.Shape, b: src.Shape, bound: base.Shape[dim], length: indices.Shape[0],
		operand: "indices", limit: "base.shape[dim]", add: true})
}

// ScatterAdd: copy of base with out[p with dim <- idx[p]] += src[p],
// deterministic: each output element adds its contributions in src flat
// order, in the dtype (bitwise equal to the CPU oracle): along the last
// axis one workgroup per row (scatter_add_rows), else from a host-built
// bucket table (O(base_n + src_n)). F64 needs shader-f64.
func (d *Device) ScatterAdd(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	const op = "scatter_add"
	if err := kernels.CheckScatterAdd(base, indices, src, dim); err != nil {
		return nil, err
	}
	return d.runAdd(&indexCall{op: op, entry: "scatter_add", data: base, idx: indices, src: src, dim: dim,
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

func init() { families = append(families, indexAddLinks) }

// indexAddLinks are index_add and scatter_add of fkc-wgsl-kernels.
func indexAddLinks(d *Device) []kernels.Link {
	return []kernels.Link{
		wgslLink("index_add", kernels.Variants("index_add"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.IndexAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
		}, "index.wgsl check+index_add (IndexAdd)"),
		wgslLink("scatter_add", kernels.Variants("scatter_add"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.ScatterAdd(c.Inputs["base"], c.Inputs["indices"], c.Inputs["src"], c.Dim)
		}, "index.wgsl check+scatter_add (ScatterAdd)"),
	}
}
