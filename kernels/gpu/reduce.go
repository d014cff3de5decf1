package gpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
)

// The reduce family on the GPU (shaders/wgsl/reduce.wgsl, and
// reduce64.wgsl for F64; contract contracts/project/fkc-wgsl-kernels.fkc.md).
// Validation is the CPU path's (same helpers, same words); the GPU serves
// F32, F16 and BF16 everywhere and F64 where the adapter has shader-f64.

// GPUFloatDTypes are the dtypes the GPU reductions and adds compute on
// every adapter (F64 needs shader-f64).
var GPUFloatDTypes = []tensor.DType{tensor.F32, tensor.F16, tensor.BF16}

const (
	opSum = 0
	opMax = 1
	opMin = 2

	finSum  = 0
	finMean = 1
	finVal  = 2
	finArg  = 3

	chunk  = 16 * wgSize // elements per workgroup per level (CH in reduce.wgsl)
	seqMax = 32          // segments this short are folded by one thread, in order
)

// The bulk first sum level (`bulk` in reduce.wgsl): bulkRounds·chunk
// contiguous elements per workgroup, taken when a sum's reduced elements
// are contiguous and K >= bulkMin.
var (
	bulkRounds = 8                        // RB in reduce.wgsl (a power of two)
	bulkMin    = 256 * bulkRounds * chunk // 2^23: at least 256 bulk workgroups
)

// bulkSplit is the groups in which a `bulk` thread issues its loads (BS in
// reduce.wgsl, a power of two dividing its units): the same sum bit for bit
// at every split; 8 was the fastest. Measurements:
// docs/perf/gpu-reductions.md.
var bulkSplit = 8

// treeLast: a workgroup's last shared-memory tree leaves its result in
// thread 0 only and skips the closing barriers (LB in reduce.wgsl; 0 runs
// the full tree, for side-by-side measurement). The same bits either way;
// faster on the row reductions. Measurements: docs/perf/gpu-reductions.md.
var treeLast = 1

// bulkLastOn: a one-segment bulk sum folds its partials in the bulk
// level's last workgroup (`bulk_last`) rather than in a level dispatch of
// its own. The same bits either way, one dispatch fewer and faster.
// Measurements: docs/perf/gpu-reductions.md.
var bulkLastOn = true

// seqBulkW is `bulk_seq`'s workgroup size (SW in reduce.wgsl).
const seqBulkW = 16

func dtTag(dt tensor.DType) uint32 {
	switch dt {
	case tensor.F16:
		return 1
	case tensor.BF16:
		return 2
	}
	return 0
}

// checkGPUFloat validates a float operand as the CPU does; F64 needs an
// adapter with shader-f64 (browsers have none): without it, a typed
// *kernels.Unavailable that points to the CPU path.
func (d *Device) checkGPUFloat(op, operand string, t *tensor.Tensor) error {
	if err := kernels.CheckOperand(op, operand, t, kernels.FloatDTypes); err != nil {
		return err
	}
	if t.DType == tensor.F64 && !d.info.ShaderF64 {
		return &kernels.Unavailable{Kernel: op + "_f64", Need: "shader-f64", Msg: "runs on CPU"}
	}
	return nil
}

// f64Specials is reduce64.wgsl's and reduce_backward64.wgsl's table of
// special values (cst): +0, NaN, -inf, +inf, -0 — read at run time, so no
// compiler folds them through float arithmetic — then the powers of two
// 2^(2^k) and 2^-(2^k), k = 0..9, that reduce_backward64.wgsl scales an
// integer quotient by.
func f64Specials() []byte {
	vs := []float64{0, math.NaN(), math.Inf(-1), math.Inf(1), math.Copysign(0, -1)}
	for k := range 10 {
		vs = append(vs, math.Ldexp(1, 1<<k))
	}
	for k := range 10 {
		vs = append(vs, math.Ldexp(1, -(1<<k)))
	}
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// axis is one (size, input stride) pair of a segment walk.
type axis struct{ size, stride int }

// mergeAxes drops size-1 axes and merges neighbours that are contiguous in
// the input (stride[a] == size[a+1]*stride[a+1]), keeping row-major order.
func mergeAxes(ax []axis) []axis {
	var out []axis
	for _, a := range ax {
		if a.size == 1 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].stride == a.size*a.stride {
			out[n-1] = axis{out[n-1].size * a.size, a.stride}
			continue
		}
		out = append(out, a)
	}
	return out
}

// segments splits x's axes into kept (output) and collapsed (reduced) walks.
func segments(shape []int, collapsed func(a int) bool) (kept, coll []axis) {
	st := tensor.Strides(shape)
	for a, n := range shape {
		if collapsed(a) {
			coll = append(coll, axis{n, st[a]})
		} else {
			kept = append(kept, axis{n, st[a]})
		}
	}
	return mergeAxes(kept), mergeAxes(coll)
}

type reduction struct {
	op       string // contract kernel name: "sum_all", "argmax_dim", …
	x        *tensor.Tensor
	outShape []int
	kept     []axis
	coll     []axis
	opKind   uint32
	fin      uint32
	cst      *buffer // reduce64.wgsl's special values (F64 calls)
	seqBulk  bool    // the bulk level is `bulk_seq` (an invocation per partial)
}

// f64 reports an F64 reduction: reduce64.wgsl (seq, level, finalize).
func (r *reduction) f64() bool { return r.x.DType == tensor.F64 }

// partWords is the u32 words of one stored partial: an f32 sum, an
// (element bits, k) pair, an f64 sum, or an F64 extremum's k.
func (r *reduction) partWords() int {
	switch {
	case r.f64() && r.opKind == opSum:
		return 2
	case r.f64():
		return 1
	case r.opKind == opSum:
		return 1
	}
	return 2
}

// bind lists a pass's bindings: params, x, the partials in and out, the
// output, x again (x4 / x8), and for F64 the special values.
func (r *reduction) bind(params, x, pin, pout, dst *buffer) []*buffer {
	b := []*buffer{params, x, pin, pout, dst, x}
	if r.f64() {
		b = append(b, r.cst)
	}
	return b
}

func prod(ax []axis) int {
	n := 1
	for _, a := range ax {
		n *= a.size
	}
	return n
}

func (r *reduction) params(kcur, c int, level0 bool) []uint32 {
	p := make([]uint32, 40)
	p[0] = uint32(tensor.NumElems(r.outShape))
	p[1] = uint32(prod(r.coll))
	p[2], p[3] = uint32(kcur), uint32(c)
	if level0 {
		p[4] = 1
	}
	p[5], p[6] = uint32(len(r.kept)), uint32(len(r.coll))
	for i, a := range r.kept {
		p[8+i], p[16+i] = uint32(a.size), uint32(a.stride)
	}
	for i, a := range r.coll {
		p[24+i], p[32+i] = uint32(a.size), uint32(a.stride)
	}
	if len(r.coll) == 0 {
		p[32] = 0
	}
	return p
}

func (r *reduction) check() error {
	if len(r.kept) > maxRank || len(r.coll) > maxRank {
		return kernels.Violatef(r.op, "x %s has more than 8 non-mergeable axes (GPU kernels: rank <= 8)", r.x)
	}
	if err := checkElems(r.op, r.x.NumElems()); err != nil {
		return err
	}
	return checkDims(r.op, "x size", r.x.Shape...)
}

// sizes lists the buffers of the call (the first level's partials are the
// largest scratch), for Device.fits before anything is built.
func (r *reduction) sizes(outBytesN int, path reducePath) []sized {
	s := []sized{{"x", inBytes(len(r.x.Data))}, outSized("out", outBytesN)}
	if path == onePass {
		return s // seq, rows: no partials (a 4-byte placeholder)
	}
	nseg, K := uint64(tensor.NumElems(r.outShape)), uint64(prod(r.coll))
	ch := uint64(chunk)
	if path == bulkLevels {
		ch = uint64(bulkRounds * chunk)
	}
	// The first level's partials; each later level's are fewer.
	c := max(1, (K+ch-1)/ch)
	n := 4 * uint64(r.partWords()) * nseg * c
	if path == bulkLevels && r.bulkLast() {
		n = 4 * (c + 1) // bulk_last: the partials and a counter
	}
	return append(s, sized{"partials", n})
}

// reducePath is how a reduction runs, for the buffers its size check counts.
type reducePath int

const (
	treeLevels reducePath = iota // level passes of chunk values, then finalize
	bulkLevels                   // a bulk first level (bulkRounds·chunk values), then levels
	onePass                      // seq or rows: one dispatch, no partials
)

// onePassEntry is a one-pass reduction's entry and workgroups: `seq` (one
// thread per output word folds short segments, or many segments where
// threads beat trees), else `rows` (one workgroup per output word,
// contiguous segments).
func (r *reduction) onePassEntry(d *Device, K, nseg int, outWords uint64) (string, uint64) {
	if seqPass(d, K, nseg) {
		return "seq", groupsFor(outWords)
	}
	return "rows", outWords
}

// seqPass: `seq` takes the reduction (short segments, or many segments
// where threads beat trees).
func seqPass(d *Device, K, nseg int) bool {
	return K <= seqMax || d.threadsOverTrees() && nseg >= seqSegsEmulated
}

// path is the way reduce runs r: K reduced elements into nseg segments.
func (r *reduction) path(d *Device, K, nseg int) reducePath {
	switch {
	case seqPass(d, K, nseg) || r.rows():
		return onePass
	case r.bulk():
		return bulkLevels
	}
	return treeLevels
}

func (r *reduction) spec(entry string) kernelSpec {
	fin := [...]string{"sum", "mean", "val", "arg"}[r.fin]
	if r.f64() {
		frags := []wgsl.Def{{Frag: "r64sum.wgsl"}}
		switch {
		case r.opKind != opSum && r.fin == finArg:
			frags = []wgsl.Def{{Frag: "r64ext.wgsl"}, {Frag: "r64arg.wgsl"}}
		case r.opKind != opSum:
			frags = []wgsl.Def{{Frag: "r64ext.wgsl"}, {Frag: "r64val.wgsl"}}
		}
		return kernelSpec{
			name:  fmt.Sprintf("reduce64_%s_op%d", fin, r.opKind),
			file:  "reduce64.wgsl",
			entry: entry,
			defs:  append([]wgsl.Def{{Name: "OP", Value: r.opKind}, {Name: "FIN", Value: r.fin}}, frags...),
			rw:    []bool{false, false, false, true, true, false, false},
		}
	}
	re, bs := 1, 1 // RE and BS in reduce.wgsl: the units a thread loads, in bs groups
	switch entry {
	case "rows":
		re = r.rowUnits()
	case "bulk", "bulk_last", "bulk_seq":
		re = bulkRounds * chunk / (r.unit() * wgSize)
		bs = min(bulkSplit, re)
	}
	return kernelSpec{
		name:  fmt.Sprintf("reduce_%s_op%d_%s_rb%d_re%d_bs%d_lb%d", fin, r.opKind, dtName(r.x.DType), bulkRounds, re, bs, treeLast),
		file:  "reduce.wgsl",
		entry: entry,
		defs: []wgsl.Def{{Name: "DT", Value: dtTag(r.x.DType)}, {Name: "OP", Value: r.opKind}, {Name: "FIN", Value: r.fin},
			{Name: "RB", Value: uint32(bulkRounds)}, {Name: "LU", Value: uint32(r.unit())}, {Name: "RE", Value: uint32(re)},
			{Name: "BS", Value: uint32(bs)}, {Name: "LB", Value: uint32(treeLast)}},
		rw: []bool{false, false, false, true, true, false},
	}
}

// unit is the elements per 16-byte unit of x (the `rows` kernel's loads).
func (r *reduction) unit() int { return 16 / r.x.DType.Size() }

// rowUnits is the `rows` kernel's RE: the units each thread loads, the
// smallest power of two with RE·W units covering a segment.
func (r *reduction) rowUnits() int {
	units := (prod(r.coll) + r.unit() - 1) / r.unit()
	re := 1
	for re*wgSize < units {
		re *= 2
	}
	return re
}

// rows reports whether the one-pass `rows` kernel serves the call: the
// reduced elements of a segment are consecutive (one collapsed axis of
// stride 1), K is a whole number of units and at most 16·W units, and there
// are enough segments to fill the device.
func (r *reduction) rows() bool {
	if r.f64() || len(r.coll) != 1 || r.coll[0].stride != 1 {
		return false
	}
	K := r.coll[0].size
	return K > seqMax && K%r.unit() == 0 && K <= 16*wgSize*r.unit() && tensor.NumElems(r.outShape) >= rowsMinSegs
}

// seqSegsEmulated: on an adapter where threads beat trees, from this many
// segments (four workgroups' worth) each is folded by one thread.
const seqSegsEmulated = 4 * wgSize

// rowsMinSegs: below this many segments the tree levels spread the work
// over more workgroups than `rows` would.
const rowsMinSegs = 32

// bulk reports whether the first level is `bulk`: a sum, extremum or arg
// whose reduced elements are contiguous (one collapsed axis of stride 1),
// start on a 16-byte unit (one segment, or K a whole number of units) and
// K >= bulkMin.
func (r *reduction) bulk() bool {
	if r.f64() || len(r.coll) != 1 || r.coll[0].stride != 1 || r.coll[0].size < bulkMin {
		return false
	}
	return tensor.NumElems(r.outShape) == 1 || r.coll[0].size%r.unit() == 0
}

// bulkLast reports whether a bulk sum takes `bulk_last` (one dispatch): a
// single segment whose bulk partials one level workgroup folds (at most
// chunk of them: K <= 2^27), when bulkLastOn.
func (r *reduction) bulkLast() bool {
	if !bulkLastOn || r.opKind != opSum || !r.bulk() || tensor.NumElems(r.outShape) != 1 {
		return false
	}
	c := bulkParts(prod(r.coll))
	return c > 1 && c <= chunk
}

// bulkParts is the bulk level's partials (workgroups) for K elements of a
// segment.
func bulkParts(K int) int { return (K + bulkRounds*chunk - 1) / (bulkRounds * chunk) }

// levels records the tree passes: each level reduces chunks of `chunk`
// values per segment to one partial (the first of a bulk sum, pb non-nil,
// bulkRounds·chunk), until one partial per segment is left. It returns the
// last level's params buffer and partials; with fuse set, and where no two
// segments share an output word, the last level writes the output itself
// (fused reports it: no finalize pass then).
func (r *reduction) levels(j *job, x *buffer, dst *buffer, p, pb *pipe, fuse bool) (params, parts *buffer, fused bool) {
	nseg := tensor.NumElems(r.outShape)
	words := r.partWords()
	kcur := prod(r.coll)
	in := x
	level0 := true
	for {
		lp, ch := p, chunk
		if level0 && pb != nil {
			lp, ch = pb, bulkRounds*chunk
		}
		c := max(1, (kcur+ch-1)/ch)
		pw := r.params(kcur, c, level0)
		halfOut := r.x.DType.Size() == 2 && r.fin != finArg
		fused = fuse && c == 1 && lp == p && !r.f64() && (!halfOut || nseg == 1)
		if fused {
			pw[7] = 1
		}
		params = j.words("params", pw)
		out := j.scratch("partials", 4*words*nseg*c)
		groups := uint64(nseg) * uint64(c)
		if lp == pb && r.seqBulk {
			groups = (groups + seqBulkW - 1) / seqBulkW // an invocation per partial
		}
		j.dispatch(lp, groups, r.bind(params, x, in, out, dst)...)
		parts, in, kcur, level0 = out, out, c, false
		if c == 1 {
			return params, parts, fused
		}
	}
}

func (d *Device) reduce(r *reduction) (*tensor.Tensor, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	odt := r.x.DType
	if r.fin == finArg {
		odt = tensor.U32
	}
	nseg := tensor.NumElems(r.outShape)
	if nseg == 0 {
		return tensor.New(odt, r.outShape), nil
	}
	K := prod(r.coll)
	path := r.path(d, K, nseg)
	if err := d.fits(r.op, r.sizes(nseg*odt.Size(), path)...); err != nil {
		return nil, err
	}
	out := &tensor.Tensor{DType: odt, Shape: append([]int{}, r.outShape...)}
	outWords := elemWords(nseg, odt.Size())
	if r.f64() {
		if K == 0 {
			return r.empty64(out), nil
		}
		outWords = uint64(nseg) // one thread per output element
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if path == onePass {
		entry, groups := r.onePassEntry(d, K, nseg, outWords)
		p, err := d.pipeline(r.spec(entry))
		if err != nil {
			return nil, err
		}
		j := d.begin(r.op)
		r.specials(j)
		params := j.words("params", r.params(K, 1, true))
		x := j.soleOperand("x", r.x)
		dst := j.outputTensor("out", out)
		j.dispatch(p, groups, r.bind(params, x, x, j.scratch("unused", 4), dst.buf)...)
		if err := j.run(); err != nil {
			return nil, err
		}
		return out, nil
	}
	pl, err := d.pipeline(r.spec("level"))
	if err != nil {
		return nil, err
	}
	pf, err := d.pipeline(r.spec("finalize"))
	if err != nil {
		return nil, err
	}
	var pb *pipe
	last := r.bulkLast()
	if r.bulk() {
		entry := "bulk"
		switch {
		case d.threadsOverTrees():
			entry, last, r.seqBulk = "bulk_seq", false, true
		case last:
			entry = "bulk_last"
		}
		if pb, err = d.pipeline(r.spec(entry)); err != nil {
			return nil, err
		}
	}
	j := d.begin(r.op)
	r.specials(j)
	x := j.soleOperand("x", r.x)
	dst := j.outputTensor("out", out)
	if last {
		// One dispatch: the bulk level, whose last workgroup folds the
		// partials (and a counter after them, zeroed) and writes out.
		c := bulkParts(K)
		pw := r.params(K, c, true)
		pw[7] = 1
		parts := j.zeroedReset("partials", 4*(c+1))
		j.dispatch(pb, uint64(c), r.bind(j.words("params", pw), x, x, parts, dst.buf)...)
		if err := j.run(); err != nil {
			return nil, err
		}
		return out, nil
	}
	params, parts, fused := r.levels(j, x, dst.buf, pl, pb, true)
	if !fused {
		j.dispatch(pf, groupsFor(outWords), r.bind(params, x, parts, j.scratch("unused", 4), dst.buf)...)
	}
	if err := j.run(); err != nil {
		return nil, err
	}
	return out, nil
}

// specials uploads the special-value table of an F64 call.
func (r *reduction) specials(j *job) {
	if r.f64() {
		r.cst = j.input("specials", f64Specials())
	}
}

// empty64 is an F64 reduction over an empty axis, answered on the host as
// the CPU does: sums +0, means NaN, max -inf, min +inf (arg-indices refuse
// an empty axis before this).
func (r *reduction) empty64(out *tensor.Tensor) *tensor.Tensor {
	v := 0.0
	switch {
	case r.fin == finMean:
		v = math.NaN()
	case r.opKind == opMax:
		v = math.Inf(-1)
	case r.opKind == opMin:
		v = math.Inf(1)
	}
	out.Data = tensor.New(out.DType, out.Shape).Data
	for i := range out.NumElems() {
		out.Set(i, v)
	}
	return out
}

func (d *Device) reduceAll(op string, x *tensor.Tensor, opKind, fin uint32) (*tensor.Tensor, error) {
	if err := d.checkGPUFloat(op, "x", x); err != nil {
		return nil, err
	}
	kept, coll := segments(x.Shape, func(int) bool { return true })
	return d.reduce(&reduction{op: op, x: x, outShape: []int{}, kept: kept, coll: coll, opKind: opKind, fin: fin})
}

func (d *Device) reduceDim(op string, x *tensor.Tensor, dim int, opKind, fin uint32) (*tensor.Tensor, error) {
	if err := d.checkGPUFloat(op, "x", x); err != nil {
		return nil, err
	}
	if err := kernels.CheckDim(op, "x", dim, x.Rank()); err != nil {
		return nil, err
	}
	if fin == finArg {
		n := x.Shape[dim]
		if n == 0 {
			return nil, kernels.Violatef(op, "axis %d of x %s is empty: there is no element to index (contract: reduced axis non-empty)", dim, x)
		}
		if err := kernels.CheckAxisIndexable(op, n); err != nil {
			return nil, err
		}
	}
	kept, coll := segments(x.Shape, func(a int) bool { return a == dim })
	return d.reduce(&reduction{op: op, x: x, outShape: kernels.DropDim(x.Shape, dim), kept: kept, coll: coll, opKind: opKind, fin: fin})
}

func (d *Device) reduceTo(op string, x *tensor.Tensor, target []int, opKind uint32) (*tensor.Tensor, error) {
	if err := d.checkGPUFloat(op, "x", x); err != nil {
		return nil, err
	}
	al, err := kernels.AlignTarget(op, x.Shape, target)
	if err != nil {
		return nil, err
	}
	kept, coll := segments(x.Shape, func(a int) bool { return al[a] != x.Shape[a] })
	fin := uint32(finSum)
	if opKind != opSum {
		fin = finVal
	}
	return d.reduce(&reduction{op: op, x: x, outShape: append([]int{}, target...), kept: kept, coll: coll, opKind: opKind, fin: fin})
}

// SumAll: tree-reduced f32 sum of every element (halves widened, narrowed
// once); rank-0 output; empty -> 0.
func (d *Device) SumAll(x *tensor.Tensor) (*tensor.Tensor, error) {
	return d.reduceAll("sum_all", x, opSum, finSum)
}

// MaxAll: exact maximum (strict >, NaN skipped, first of a tie); empty or
// all-NaN -> -inf. Bitwise equal to the CPU oracle.
func (d *Device) MaxAll(x *tensor.Tensor) (*tensor.Tensor, error) {
	return d.reduceAll("max_all", x, opMax, finVal)
}

// MinAll: exact minimum, the mirror of MaxAll; empty or all-NaN -> +inf.
func (d *Device) MinAll(x *tensor.Tensor) (*tensor.Tensor, error) {
	return d.reduceAll("min_all", x, opMin, finVal)
}

// MeanAll: f32 tree sum / n, narrowed once; empty -> NaN.
func (d *Device) MeanAll(x *tensor.Tensor) (*tensor.Tensor, error) {
	return d.reduceAll("mean_all", x, opSum, finMean)
}

// SumDim sums along dim (removed).
func (d *Device) SumDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return d.reduceDim("sum_dim", x, dim, opSum, finSum)
}

// MaxDim: exact maximum along dim (removed); bitwise equal to the oracle.
func (d *Device) MaxDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return d.reduceDim("max_dim", x, dim, opMax, finVal)
}

// MinDim: exact minimum along dim (removed); bitwise equal to the oracle.
func (d *Device) MinDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return d.reduceDim("min_dim", x, dim, opMin, finVal)
}

// MeanDim: sum along dim / the axis length, narrowed once.
func (d *Device) MeanDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return d.reduceDim("mean_dim", x, dim, opSum, finMean)
}

// ArgMaxDim: U32 index of the maximum along dim (ties -> smallest index;
// a NaN at index 0 is never beaten, as in the oracle's seeded scan).
func (d *Device) ArgMaxDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return d.reduceDim("argmax_dim", x, dim, opMax, finArg)
}

// ArgMinDim: U32 index of the minimum along dim.
func (d *Device) ArgMinDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return d.reduceDim("argmin_dim", x, dim, opMin, finArg)
}

// ReduceSumTo sums x down to the broadcast-compatible target shape.
func (d *Device) ReduceSumTo(x *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	return d.reduceTo("reduce_sum_to", x, target, opSum)
}

// ReduceMaxTo takes the exact maximum down to the target shape.
func (d *Device) ReduceMaxTo(x *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	return d.reduceTo("reduce_max_to", x, target, opMax)
}

// ReduceMinTo takes the exact minimum down to the target shape.
func (d *Device) ReduceMinTo(x *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	return d.reduceTo("reduce_min_to", x, target, opMin)
}

// ReduceMaxToBackward routes upstream to the positions equal to their
// cell's maximum, split evenly across ties: the max passes of ReduceMaxTo,
// an integer tie count per cell (atomicAdd), then one pass writing
// mask ? upstream/count : upstream/count·0.
func (d *Device) ReduceMaxToBackward(x, upstream *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	const op = "reduce_max_to_backward"
	al, err := kernels.ReduceMaxToBackwardShape(x, upstream, target)
	if err != nil {
		return nil, err
	}
	if err := d.checkGPUFloat(op, "x", x); err != nil {
		return nil, err
	}
	if err := checkRank(op, x.Rank()); err != nil {
		return nil, err
	}
	kept, coll := segments(x.Shape, func(a int) bool { return al[a] != x.Shape[a] })
	r := &reduction{op: op, x: x, outShape: append([]int{}, target...), kept: kept, coll: coll, opKind: opMax, fin: finVal}
	if err := r.check(); err != nil {
		return nil, err
	}
	n, ncell := x.NumElems(), tensor.NumElems(target)
	if n == 0 {
		return tensor.New(x.DType, x.Shape), nil
	}
	// The cells' maxima come from reduce_max_to's one pass where the
	// forward takes one (not on F64), else from the tree levels (never a
	// bulk level).
	K, outWords := prod(r.coll), elemWords(ncell, x.DType.Size())
	path := treeLevels
	if !r.f64() && r.path(d, K, ncell) == onePass {
		path = onePass
	}
	if err := d.fits(op, append(r.sizes(len(x.Data), path), sized{"upstream", inBytes(len(upstream.Data))}, sized{"tie_count", 4 * uint64(ncell)})...); err != nil {
		return nil, err
	}
	grad := &tensor.Tensor{DType: x.DType, Shape: append([]int{}, x.Shape...)}
	// cell strides: row-major over the aligned target, 0 on collapsed axes
	p2 := make([]uint32, 18)
	p2[0], p2[1] = uint32(n), uint32(x.Rank())
	ost := tensor.Strides(al)
	for a := range x.Shape {
		p2[2+a] = uint32(x.Shape[a])
		if al[a] == x.Shape[a] {
			p2[10+a] = uint32(ost[a])
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	pl, err := d.pipeline(r.spec("level"))
	if err != nil {
		return nil, err
	}
	if r.f64() {
		return d.maxToBackward64(r, pl, upstream, grad, p2)
	}
	// The division upstream/count: exact with shader-f64 (quot64.wgsl),
	// the adapter's f32 division otherwise.
	quot := []wgsl.Def{{Frag: "acc32.wgsl"}, {Frag: "quot32.wgsl"}}
	if d.info.ShaderF64 {
		quot = []wgsl.Def{{Frag: "acc64.wgsl"}, {Frag: "quot64.wgsl"}}
	}
	bspec := kernelSpec{
		name: "reduce_max_to_backward_" + dtName(x.DType) + "_" + quot[1].Frag, file: "reduce_backward.wgsl",
		defs: append([]wgsl.Def{{Name: "DT", Value: dtTag(x.DType)}}, quot...),
		rw:   []bool{false, false, false, false, true, true},
	}
	pp, err := d.entries(bspec, "count", "grad")
	if err != nil {
		return nil, err
	}
	pc, pg := pp[0], pp[1]
	// The cells' maxima as reduce_max_to computes them, into a guarded
	// scratch in its output layout: in one pass where the forward takes
	// one — on SwiftShader a workgroup per cell of one or two elements
	// made a large call take minutes (docs/perf/gpu-reductions.md) — else
	// the tree levels and finalize.
	onePassed := path == onePass
	var pf *pipe
	var fgroups uint64
	if onePassed {
		var entry string
		entry, fgroups = r.onePassEntry(d, K, ncell, outWords)
		pf, err = d.pipeline(r.spec(entry))
	} else {
		pf, err = d.pipeline(r.spec("finalize"))
		fgroups = groupsFor(outWords)
	}
	if err != nil {
		return nil, err
	}
	j := d.begin(op)
	xb := j.operand("x", x)
	ub := j.operand("upstream", upstream)
	dst := j.outputTensor("grad_x", grad)
	ymax := j.scratch("cell_max", 4*(int(outWords)+2*j.guards()))
	if onePassed {
		j.dispatch(pf, fgroups, r.bind(j.words("params", r.params(K, 1, true)), xb, xb, j.scratch("unused", 4), ymax)...)
	} else {
		params, parts, _ := r.levels(j, xb, ymax, pl, nil, false)
		j.dispatch(pf, fgroups, r.bind(params, xb, parts, j.scratch("unused", 4), ymax)...)
	}
	pb := j.words("params", p2)
	cnt := j.zeros("tie_count", 4*ncell)
	j.dispatch(pc, groupsFor(uint64(n)), pb, xb, ymax, ub, cnt, dst.buf)
	j.dispatch(pg, groupsFor(elemWords(n, x.DType.Size())), pb, xb, ymax, ub, cnt, dst.buf)
	if err := j.run(); err != nil {
		return nil, err
	}
	return grad, nil
}

// maxToBackward64 is ReduceMaxToBackward on F64 (call with d.mu held):
// reduce64.wgsl's max levels and finalize into the cells' maxima, then
// reduce_backward64.wgsl's count and grad passes.
func (d *Device) maxToBackward64(r *reduction, pl *pipe, upstream, grad *tensor.Tensor, p2 []uint32) (*tensor.Tensor, error) {
	const op = "reduce_max_to_backward"
	pf, err := d.pipeline(r.spec("finalize"))
	if err != nil {
		return nil, err
	}
	pp, err := d.entries(kernelSpec{name: "reduce_max_to_backward_f64", file: "reduce_backward64.wgsl",
		rw: []bool{false, false, false, false, true, true, false, false}}, "count", "grad")
	if err != nil {
		return nil, err
	}
	pc, pg := pp[0], pp[1]
	n, ncell := r.x.NumElems(), tensor.NumElems(r.outShape)
	j := d.begin(op)
	r.specials(j)
	xb := j.operand("x", r.x)
	ub := j.operand("upstream", upstream)
	dst := j.outputTensor("grad_x", grad)
	ymax := j.scratch("cell_max", 8*ncell+8*j.guards())
	params, parts, _ := r.levels(j, xb, ymax, pl, nil, false)
	j.dispatch(pf, groupsFor(uint64(ncell)), r.bind(params, xb, parts, j.scratch("unused", 4), ymax)...)
	pb := j.words("params", p2)
	cnt := j.zeros("tie_count", 4*ncell)
	j.dispatch(pc, groupsFor(uint64(n)), pb, xb, ymax, ub, cnt, dst.buf, ub, r.cst)
	j.dispatch(pg, groupsFor(uint64(n)), pb, xb, ymax, ub, cnt, dst.buf, ub, r.cst)
	if err := j.run(); err != nil {
		return nil, err
	}
	return grad, nil
}

func init() { families = append(families, reduceLinks) }

// reduceLinks are the reductions of fkc-wgsl-kernels: one mode-unified
// section per reduction (dims empty → all, [dim] → one axis).
func reduceLinks(d *Device) []kernels.Link {
	unaryDim := func(f func(*tensor.Tensor, int) (*tensor.Tensor, error)) kernels.Impl {
		return func(c *kernels.Call) (*tensor.Tensor, error) { return f(c.Inputs["x"], c.Dim) }
	}
	allOrDim := func(all func(*tensor.Tensor) (*tensor.Tensor, error), dim func(*tensor.Tensor, int) (*tensor.Tensor, error)) kernels.Impl {
		return func(c *kernels.Call) (*tensor.Tensor, error) {
			if c.Dim < 0 {
				return all(c.Inputs["x"])
			}
			return dim(c.Inputs["x"], c.Dim)
		}
	}
	to := func(f func(*tensor.Tensor, []int) (*tensor.Tensor, error)) kernels.Impl {
		return func(c *kernels.Call) (*tensor.Tensor, error) { return f(c.Inputs["x"], c.Shape) }
	}
	v, all, dim := kernels.Variants, kernels.FormAll, kernels.FormDim
	return []kernels.Link{
		wgslLink("sum", v("sum", all, dim), allOrDim(d.SumAll, d.SumDim), "reduce.wgsl (SumAll / SumDim)"),
		wgslLink("max", v("max", all, dim), allOrDim(d.MaxAll, d.MaxDim), "reduce.wgsl (MaxAll / MaxDim)"),
		wgslLink("min", v("min", all, dim), allOrDim(d.MinAll, d.MinDim), "reduce.wgsl (MinAll / MinDim)"),
		wgslLink("mean", v("mean", all, dim), allOrDim(d.MeanAll, d.MeanDim), "reduce.wgsl (MeanAll / MeanDim)"),
		wgslLink("argmax_dim", v("argmax"), unaryDim(d.ArgMaxDim), "reduce.wgsl (ArgMaxDim)"),
		wgslLink("argmin_dim", v("argmin"), unaryDim(d.ArgMinDim), "reduce.wgsl (ArgMinDim)"),
		wgslLink("reduce_sum_to", v("reduce_sum_to"), to(d.ReduceSumTo), "reduce.wgsl (ReduceSumTo)"),
		wgslLink("reduce_max_to", v("reduce_max_to"), to(d.ReduceMaxTo), "reduce.wgsl (ReduceMaxTo)"),
		wgslLink("reduce_min_to", v("reduce_min_to"), to(d.ReduceMinTo), "reduce.wgsl (ReduceMinTo)"),
		wgslLink("reduce_max_to_backward", v("reduce_max_to_backward"), func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.ReduceMaxToBackward(c.Inputs["x"], c.Inputs["upstream"], c.Shape)
		}, "reduce.wgsl + reduce_backward.wgsl (ReduceMaxToBackward)"),
	}
}
