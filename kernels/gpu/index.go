package gpu

import (
	"fmt"
	"math/bits"

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

// loopBudget is the most loop iterations one kernel invocation may spend:
// lavapipe stops an invocation silently after 65,535 in all (every loop of
// it counts), so every kernel whose loops depend on the input keeps within
// half of that. The host picks passes and paths by it.
const loopBudget = 1 << 15

// prepIndex validates the sizes of an index call (movers and adds) and
// sizes its buffers before anything is built; extra lists the call's
// other buffers. done is set when the output is empty with no index to
// check.
func (d *Device) prepIndex(c *indexCall, extra ...sized) (n, nIdx int, done bool, err error) {
	if err := checkRank(c.op, len(c.a)); err != nil {
		return 0, 0, false, err
	}
	n = tensor.NumElems(c.outShape)
	for _, v := range []int{n, c.data.NumElems(), c.idx.NumElems()} {
		if err := checkElems(c.op, v); err != nil {
			return 0, 0, false, err
		}
	}
	nIdx = c.idx.NumElems()
	if n == 0 && nIdx == 0 {
		return n, nIdx, true, nil
	}
	for _, sh := range [][]int{c.a, c.b, c.outShape} {
		if err := checkDims(c.op, "size", sh...); err != nil {
			return 0, 0, false, err
		}
	}
	bufs := append([]sized{{"data", inBytes(len(c.data.Data))}, {"indices", inBytes(len(c.idx.Data))},
		outSized("out", n*c.data.DType.Size())}, extra...)
	return n, nIdx, false, d.fits(c.op, bufs...)
}

// checkPipe is index.wgsl's bounds check (one thread per index); its
// bindings are the movers': params, data, indices, out, error word.
func (d *Device) checkPipe() (*pipe, error) {
	return d.pipeline(kernelSpec{name: "index_check", file: "index.wgsl", entry: "check", defs: []wgsl.Def{{Name: "EB", Value: 4}, {Name: "GB", Value: 1}, {Name: "EPT", Value: 1}}, rw: moverRW})
}

// gatherBatch is gather_rows' GB: the words a thread moves per round, all
// loads first (a tuning variable).
var gatherBatch = 16

var moverRW = []bool{false, false, false, true, true}

// indexParams is the P block of index.wgsl and index_add.wgsl (40 words:
// the pass words of the adds follow at 32).
func (c *indexCall) indexParams(n, nIdx int) []uint32 {
	p := make([]uint32, 40)
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
	return p
}

// runIndex runs a data mover (index_select, gather) from index.wgsl.
func (d *Device) runIndex(c *indexCall) (*tensor.Tensor, error) {
	n, nIdx, done, err := d.prepIndex(c)
	if err != nil {
		return nil, err
	}
	if done {
		return tensor.New(c.data.DType, c.outShape), nil
	}
	eb := c.data.DType.Size()
	out := &tensor.Tensor{DType: c.data.DType, Shape: append([]int{}, c.outShape...)}
	ept := d.perThread()
	defs := []wgsl.Def{{Name: "EB", Value: uint32(eb)}, {Name: "GB", Value: uint32(gatherBatch)}, {Name: "EPT", Value: uint32(ept)}}
	name := fmt.Sprintf("index_b%d_gb%d_ept%d", eb, gatherBatch, ept)
	d.mu.Lock()
	defer d.mu.Unlock()
	if I, _, _ := c.fast(); c.entry == "index_select" && n > 0 && I*eb%16 == 0 {
		return d.selectRows(c, out, I*eb/16)
	}
	// gather along the last axis stages each data row (up to 16 KiB) in
	// workgroup memory (index.wgsl gather_rows), given enough rows to
	// fill the device and a row loop within the budget.
	entry, rows := c.entry, 0
	if I, J, ok := c.fast(); ok && c.entry == "gather" && I == 1 && J > 0 && !d.threadsOverTrees() {
		if (eb == 4 || (eb == 2 && c.bound%2 == 0 && J%2 == 0)) && c.bound*eb <= 16<<10 && n/J >= 64 && 6*J/wgSize+64 <= loopBudget {
			entry, rows = "gather_rows", n/J
		}
	}
	pk, err := d.pipeline(kernelSpec{name: name, file: "index.wgsl", entry: entry, defs: defs, rw: moverRW})
	if err != nil {
		return nil, err
	}
	j := d.begin(c.op)
	params := j.words("params", c.indexParams(n, nIdx))
	data := j.operand("data", c.data)
	idx := j.operand("indices", c.idx)
	dst := j.outputTensor("out", out)
	flag := j.output("index_error", 4, []byte{0xff, 0xff, 0xff, 0xff}, false)
	if n == 0 {
		// The movers check every index they read; an empty output reads
		// none, so the check pass runs instead.
		pchk, err := d.checkPipe()
		if err != nil {
			return nil, err
		}
		j.dispatch(pchk, groupsFor(uint64(nIdx)), params, data, idx, dst.buf, flag.buf)
	}
	groups := groupsFor((elemWords(n, eb) + uint64(ept) - 1) / uint64(ept))
	if rows > 0 {
		groups = uint64(rows) // one workgroup per output row
	}
	j.dispatch(pk, groups, params, data, idx, dst.buf, flag.buf)
	return c.finish(j, flag, out)
}

// finish runs the job and turns the GPU's error word (the first bad index
// position, or all ones) into the CPU path's IndexOutOfRange error.
// In a chain the word is checked when the chain has run.
func (c *indexCall) finish(j *job, flag *outBuf, out *tensor.Tensor) (*tensor.Tensor, error) {
	j.after(func() error {
		pos := getU32(flag.data)
		if pos == 0xffffffff {
			return nil
		}
		iv := j.hostU32(c.operand, c.idx)
		if int(pos) >= len(iv) {
			return kernels.Violatef(c.op, "%s at flat position %d is out of range (contract: %s < %s = %d); its value could not be read back: %v", c.operand, pos, c.operand, c.limit, c.bound, j.err)
		}
		return kernels.IndexOutOfRange(c.op, c.operand, c.idx.Shape, int(pos), int64(iv[pos]), c.bound, c.limit)
	})
	if err := j.run(); err != nil {
		return nil, err
	}
	return out, nil
}

// selectUnits is index_rows.wgsl's UPT: the 16-byte units each thread
// copies (a tuning variable; 8 was the fastest on the H200).
// Measurements: docs/perf/index-add.md.
var selectUnits = 8

// selectConsts: index_rows.wgsl gets R's shift when R (units per slice) is
// a power of two, and knows when there is one outer slice, so its per-unit
// divisions fold away (false: always divide, for side-by-side measurement).
// Measurements: docs/perf/index-add.md.
var selectConsts = true

// selectRows runs index_select through index_rows.wgsl: whole 16-byte
// units per slice (R of them), selectUnits vec4 copies per thread. Call
// with d.mu held.
func (d *Device) selectRows(c *indexCall, out *tensor.Tensor, R int) (*tensor.Tensor, error) {
	units := tensor.NumElems(out.Shape) * out.DType.Size() / 16
	rsh, one := 32, 0 // no shift; several outer slices
	if selectConsts && R&(R-1) == 0 {
		rsh = bits.TrailingZeros(uint(R))
	}
	if selectConsts && units == R*c.length {
		one = 1
	}
	p, err := d.pipeline(kernelSpec{name: fmt.Sprintf("index_select_rows_u%d_rsh%d_one%d", selectUnits, rsh, one), file: "index_rows.wgsl", entry: "main",
		defs: []wgsl.Def{{Name: "UPT", Value: uint32(selectUnits)}, {Name: "RSH", Value: uint32(rsh)}, {Name: "ONE", Value: uint32(one)}},
		rw:   []bool{false, false, false, true, true}})
	if err != nil {
		return nil, err
	}
	j := d.begin(c.op)
	params := j.words("params", []uint32{uint32(units), uint32(R), uint32(c.length), uint32(c.bound)})
	idx := j.operand("indices", c.idx)
	data := j.operand("data", c.data)
	dst := j.outputTensor("out", out)
	flag := j.output("index_error", 4, []byte{0xff, 0xff, 0xff, 0xff}, false)
	j.dispatch(p, groupsFor((uint64(units)+uint64(selectUnits)-1)/uint64(selectUnits)), params, idx, data, dst.buf, flag.buf)
	return c.finish(j, flag, out)
}

// fast reports whether the call takes index.wgsl's fast path — the data
// (base), indices (src) and output shapes agree on every axis but dim —
// with I, the product of the axes after dim, and J, the output's dim
// length. index_select, embedding and index_add always do; gather when
// its indices span the data on the other axes; an add that scatters
// buckets by flat target and never does.
func (c *indexCall) fast() (I, J int, ok bool) {
	switch {
	case c.scatters():
		return 0, 0, false
	case c.entry == "gather":
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

func init() { families = append(families, indexLinks) }

// indexLinks are index_select (which also serves embedding =
// index_select(table, dim=0, ids)) and gather of fkc-wgsl-kernels.
func indexLinks(d *Device) []kernels.Link {
	return []kernels.Link{
		wgslLink("index_select", append(kernels.Variants("index_select"), kernels.Variants("embedding")...), func(c *kernels.Call) (*tensor.Tensor, error) {
			if table := c.In("table"); table != nil { // embedding's operands
				return d.Embedding(table, c.In("ids"))
			}
			return d.IndexSelect(c.Inputs["data"], c.Inputs["indices"], c.Dim)
		}, "index.wgsl check+index_select (IndexSelect; Embedding along dim 0)"),
		wgslLink("gather", kernels.Variants("gather"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.Gather(c.Inputs["data"], c.Inputs["indices"], c.Dim)
		}, "index.wgsl check+gather (Gather)"),
	}
}
