package gpu

import (
	"fmt"
	"slices"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/shaders/wgsl"
	"github.com/fkc-playground/fkc/tensor"
)

// The deterministic pad backward (shaders/wgsl/pad_backward_gather.wgsl;
// contract fkc-wgsl-kernels `pad_backward`): each grad_in slot gathers its
// contributions in grad_out's flat order. With shader-f64 it accumulates
// in f64 and narrows once, exactly as kernels/cpu.PadBackward, so the two
// agree bit for bit; without it, in f32 (same bits run to run, not the
// CPU's). No atomics, no retry limit, whatever the contention.

// PadBackwardGatherKernel is this kernel's contract name.
const PadBackwardGatherKernel = "pad_backward"

// gatherUnits is `main`'s output words per thread on a GPU (GU in
// pad_backward_gather.wgsl; for f32 each stage's loads go out together),
// gatherUnitsSoftware on a software adapter: tuning variables, the result
// is the same. The fastest on the H200 and on lavapipe respectively.
// Measurements: docs/perf/gpu-pad.md.
var (
	gatherUnits         = 2
	gatherUnitsSoftware = 1
)

// wordsPerThread is gatherUnits or gatherUnitsSoftware, as fits d (the
// browser's SwiftShader is a software adapter too).
func (d *Device) wordsPerThread() int {
	if d.softwareAdapter() || d.threadsOverTrees() {
		return max(1, gatherUnitsSoftware)
	}
	return max(1, gatherUnits)
}

// padSources lists, for each input coordinate i of one axis (n input,
// out output coordinates, `before` padded in front), the output
// coordinates that the forward pad maps to i, ascending, as CSR: i's list
// is list[off[i]:off[i+1]]. Constant mode maps only the interior.
func padSources(n, before, out int, mode kernels.Mode) (off, list []uint32) {
	cnt := make([]uint32, n+1)
	for c := range out {
		if j := padMap(c, before, n, mode); j >= 0 {
			cnt[j+1]++
		}
	}
	for i := range n {
		cnt[i+1] += cnt[i]
	}
	off = append([]uint32(nil), cnt...)
	list = make([]uint32, cnt[n])
	for c := range out {
		if j := padMap(c, before, n, mode); j >= 0 {
			list[cnt[j]] = uint32(c)
			cnt[j]++
		}
	}
	return off, list
}

// padGatherTables builds T for pad_backward_gather.wgsl: the row table
// (per input row, the output rows that read it, ascending) and the column
// table, the P words locating them, and the most contributions any slot
// gathers. in/out are the input/grad_out shapes with rank >= 1.
func padGatherTables(in, out []int, pads []kernels.Pad, mode kernels.Mode) (p, t []uint32, maxC uint64) {
	r := len(in)
	// Per outer axis, the CSR of output coordinates per input coordinate.
	offs := make([][]uint32, r-1)
	lists := make([][]uint32, r-1)
	for a := range r - 1 {
		offs[a], lists[a] = padSources(in[a], pads[a].Before, out[a], mode)
	}
	inRows := tensor.NumElems(in[:r-1])
	ost := tensor.Strides(out[:r-1]) // output row stride per outer axis
	rowOff := make([]uint32, 1, inRows+1)
	var rowList []uint32
	ic := make([]int, r-1) // input row coordinates (odometer)
	oc := make([]int, r-1) // position in each axis' list (inner odometer)
	for range inRows {
		// Every combination of the per-axis lists, row-major: ascending
		// output rows.
		empty := false
		for a := range r - 1 {
			oc[a] = int(offs[a][ic[a]])
			if oc[a] == int(offs[a][ic[a]+1]) {
				empty = true
			}
		}
		for !empty {
			row := 0
			for a := range r - 1 {
				row += int(lists[a][oc[a]]) * ost[a]
			}
			rowList = append(rowList, uint32(row))
			a := r - 2
			for ; a >= 0; a-- {
				oc[a]++
				if oc[a] < int(offs[a][ic[a]+1]) {
					break
				}
				oc[a] = int(offs[a][ic[a]])
			}
			if a < 0 {
				break
			}
		}
		rowOff = append(rowOff, uint32(len(rowList)))
		for a := r - 2; a >= 0; a-- {
			ic[a]++
			if ic[a] < in[a] {
				break
			}
			ic[a] = 0
		}
	}
	colOff, colList := padSources(in[r-1], pads[r-1].Before, out[r-1], mode)
	// The sole tables: where a row (column) is read by exactly one output
	// row (column), that row's flat start (that column), else NONE.
	L := uint32(out[r-1])
	rowSole := soleOf(rowOff, rowList, L)
	colSole := soleOf(colOff, colList, 1)
	parts := [][]uint32{rowOff, rowList, colOff, colList, rowSole, colSole}
	p = make([]uint32, 16)
	p[0], p[1], p[2] = uint32(tensor.NumElems(in)), uint32(in[r-1]), L
	at := 0
	for i, part := range parts {
		p[[]int{4, 5, 6, 7, 12, 13}[i]] = uint32(at)
		at += len(part)
	}
	t = make([]uint32, 0, at)
	for _, part := range parts {
		t = append(t, part...)
	}
	return p, t, uint64(longest(rowOff)) * uint64(longest(colOff))
}

// padTabs: the device keeps the tables of the last few pad_backward call
// shapes (a training loop repeats its shapes): building them costs host
// time comparable to the call's device time on a fast GPU
// (docs/perf/gpu-pad.md).
// At most padTabsMax shapes (the map starts over when full) and tables of
// at most padTabsWords words.
const (
	padTabsMax   = 8
	padTabsWords = 1 << 22
)

// padTables returns padGatherTables' P words (a copy: callers set the
// pass words) and T (shared: append copies, its capacity being its
// length). Call with d.mu held.
func (d *Device) padTables(in, out []int, pads []kernels.Pad, mode kernels.Mode) (p, t []uint32) {
	c := keptByShape(&d.padTabs, fmt.Sprint(in, out, pads, mode), func() (padTabled, int) {
		var c padTabled
		c.p, c.t, _ = padGatherTables(in, out, pads, mode)
		return c, len(c.t)
	})
	return slices.Clone(c.p), c.t[:len(c.t):len(c.t)]
}

// keptByShape is m[key], built and kept on first use: at most padTabsMax
// shapes (the map starts over when full), and nothing of more than
// padTabsWords words (build returns the value and its words).
func keptByShape[T any](m *map[string]T, key string, build func() (T, int)) T {
	if v, ok := (*m)[key]; ok {
		return v
	}
	v, words := build()
	if words <= padTabsWords {
		if len(*m) >= padTabsMax || *m == nil {
			*m = map[string]T{}
		}
		(*m)[key] = v
	}
	return v
}

// padTabled is one call shape's padGatherTables result (Device.padTabs).
type padTabled struct{ p, t []uint32 }

// padFoldWords lists, ascending, the output words (slots; pairs of slots
// for 2-byte elements) that hold a slot with other than one contribution:
// the words of pad_backward_gather.wgsl's `listed`, the rest being
// `soles`'. nil when those slots are more than limit. p and t are
// padGatherTables'.
func padFoldWords(p, t []uint32, eb, limit int) []uint32 {
	const none = 0xffffffff
	n := int(p[1])
	rows := int(p[0]) / n
	rowSole, colSole := t[p[12]:int(p[12])+rows], t[p[13]:int(p[13])+n]
	var cols []int
	for c, v := range colSole {
		if v == none {
			cols = append(cols, c)
		}
	}
	full := 0
	for _, v := range rowSole {
		if v == none {
			full++
		}
	}
	slots := full*n + (rows-full)*len(cols)
	if slots > limit {
		return nil
	}
	words := make([]uint32, 0, slots)
	add := func(slot int) {
		w := uint32(slot)
		if eb == 2 {
			w = uint32(slot / 2)
		}
		if len(words) == 0 || words[len(words)-1] != w {
			words = append(words, w)
		}
	}
	for r, v := range rowSole {
		if v == none {
			for c := range n {
				add(r*n + c)
			}
			continue
		}
		for _, c := range cols {
			add(r*n + c)
		}
	}
	return words
}

// soleOf is, per entry of a CSR, its one listed value times scale, or
// NONE (0xffffffff) where it lists more or none.
func soleOf(off, list []uint32, scale uint32) []uint32 {
	s := make([]uint32, len(off)-1)
	for i := range s {
		s[i] = 0xffffffff
		if off[i+1]-off[i] == 1 {
			s[i] = list[off[i]] * scale
		}
	}
	return s
}

// padMostSources bounds the most contributions any slot gathers, from the
// shapes alone (no table, no allocation): the product over axes of the
// mode's per-axis bound (kernels.PadMode.MostSources).
func padMostSources(in []int, pads []kernels.Pad, mode kernels.Mode) uint64 {
	most := kernels.ModeOf(mode).MostSources
	m := uint64(1)
	for a, n := range in {
		s := most(uint64(n), uint64(pads[a].Before), uint64(pads[a].After))
		if s > 0 && m > (1<<62)/s {
			return 1 << 62
		}
		m *= s
	}
	return m
}

// longest is the longest list of a CSR offset array.
func longest(off []uint32) uint32 {
	m := uint32(0)
	for i := 1; i < len(off); i++ {
		m = max(m, off[i]-off[i-1])
	}
	return m
}

// gatherChain is the most contributions one invocation adds per pass: a
// slot with more is continued by further passes (pad_backward_gather.wgsl).
// lavapipe stops an invocation after 65,535 loop iterations in all; a half
// word holds two slots, and a thread of `main` folds wordsPerThread words,
// so each of its slots gets gatherChain / wordsPerThread a pass.
const gatherChain = 1 << 14

// gatherPasses splits the longest chain (maxC contributions to one slot)
// into passes of at most `chain` adds (gatherChain over the words a thread
// of `main` writes), at most 1024 passes: beyond that
// the chain per pass grows, except on a CPU adapter (lavapipe's loop
// limit), which refuses.
func (d *Device) gatherPasses(maxC uint64, words int) (chain, passes uint64, err error) {
	chain = gatherChain / uint64(words) // a thread of `main` folds that many words
	passes = max(1, (maxC+chain-1)/chain)
	if passes > 1024 {
		if d.softwareAdapter() {
			return 0, 0, &kernels.Unavailable{Kernel: PadBackwardGatherKernel, Need: fmt.Sprintf("at most %d ordered adds per slot on a software adapter; this call has %d", 1024*chain, maxC)}
		}
		chain = (maxC + 1023) / 1024
		passes = (maxC + chain - 1) / chain
	}
	return chain, passes, nil
}

// padGatherTableWords is the length of padGatherTables' T, computed
// without building it: every output row and column that reads the input
// appears once, plus the two offset arrays.
func padGatherTableWords(in, out []int, pads []kernels.Pad, mode kernels.Mode) uint64 {
	r := len(in)
	rows := uint64(1)
	inRows := uint64(1)
	for a := range r - 1 {
		rows *= uint64(padReads(in[a], pads[a].Before, out[a], mode))
		inRows *= uint64(in[a])
	}
	cols := uint64(padReads(in[r-1], pads[r-1].Before, out[r-1], mode))
	return inRows + 1 + rows + uint64(in[r-1]) + 1 + cols + inRows + uint64(in[r-1])
}

// padReads counts the output coordinates of one axis that read the input
// (all of them, except the constant mode's padding).
func padReads(n, before, out int, mode kernels.Mode) int {
	if mode == kernels.Constant {
		return min(n, out-before)
	}
	return out
}

// PadBackwardGather runs the deterministic pad backward (any mode; F32,
// F16, BF16, and F64 where the adapter has shader-f64). With shader-f64
// the result is bitwise equal to kernels/cpu.PadBackward.
func (d *Device) PadBackwardGather(gradOut *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) (*tensor.Tensor, error) {
	const op = "pad_backward"
	inShape, err := kernels.PadBackwardShape(gradOut, mode, pads, kernels.FloatDTypes)
	if err != nil {
		return nil, err
	}
	if err := checkRank(op, gradOut.Rank()); err != nil {
		return nil, err
	}
	dt := gradOut.DType
	if dt == tensor.F64 && !d.info.ShaderF64 {
		return nil, &kernels.Unavailable{Kernel: PadBackwardGatherKernel + "_f64", Need: "shader-f64", Msg: "runs on CPU"}
	}
	nOut, nIn := gradOut.NumElems(), tensor.NumElems(inShape)
	if err := checkElems(op, nOut); err != nil {
		return nil, err
	}
	if err := checkPads(op, inShape, gradOut.Shape, pads); err != nil {
		return nil, err
	}
	if nIn == 0 {
		return tensor.New(dt, inShape), nil
	}
	in, out, pd := inShape, gradOut.Shape, pads
	if len(in) == 0 { // rank 0: one slot, one contribution
		in, out, pd = []int{1}, []int{1}, []kernels.Pad{{}}
	}
	eb := dt.Size()
	accBytes := uint64(4)
	if d.info.ShaderF64 {
		accBytes = 8
	}
	// Size every buffer before building anything (tables, host tensors);
	// the carried state exists only where a chain takes several passes.
	most := padMostSources(in, pd, mode)
	gu := d.wordsPerThread()
	chain, passes, err := d.gatherPasses(most, gu)
	if err != nil {
		return nil, err
	}
	stateBytes := accBytes
	if passes > 1 {
		stateBytes = accBytes * uint64(nIn)
	}
	// Where every branch runs for every lane (threadsOverTrees), the sole
	// slots go in a pass of their own and the others are listed, when they
	// are at most a quarter of the words.
	words := elemWords(nIn, eb)
	listMax := 0
	if d.threadsOverTrees() {
		listMax = int(words / 4)
	}
	if err := d.fits(op,
		sized{"tables", 4 * (padGatherTableWords(in, out, pd, mode) + uint64(listMax))},
		sized{"grad_out", inBytes(nOut * eb)},
		outSized("grad_in", nIn*eb),
		sized{"state", stateBytes}); err != nil {
		return nil, err
	}
	acc, io := "acc32.wgsl", "padbw_io32.wgsl"
	tag := dtName(dt) + "_acc32"
	if d.info.ShaderF64 {
		acc, tag = "acc64.wgsl", dtName(dt)+"_acc64"
	}
	dtv := dtTag(dt)
	if dt == tensor.F64 {
		io, dtv = "padbw_io64.wgsl", 3
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	pw, tw := d.padTables(in, out, pd, mode)
	var listed []uint32
	if listMax > 0 {
		if listed = padFoldWords(pw, tw, eb, listMax); listed != nil {
			pw[14], pw[15] = uint32(len(tw)), uint32(len(listed))
			tw = append(tw, listed...)
		}
	}
	spec := kernelSpec{
		name: fmt.Sprintf("pad_backward_gather_%s_gu%d", tag, gu), file: "pad_backward_gather.wgsl", entry: "main",
		defs: []wgsl.Def{{Name: "DT", Value: dtv}, {Name: "GU", Value: uint32(gu)}, {Frag: acc}, {Frag: io}},
		rw:   []bool{false, false, false, true, true},
	}
	var ps *pipe // `soles`, when the others are listed
	if listed != nil {
		spec.entry = "soles"
		if ps, err = d.pipeline(spec); err != nil {
			return nil, err
		}
		spec.entry = "listed"
	}
	p, err := d.pipeline(spec)
	if err != nil {
		return nil, err
	}
	j := d.begin(PadBackwardGatherKernel)
	tab := j.words("pad_tables", tw)
	src := j.operand("grad_out", gradOut)
	gin := &tensor.Tensor{DType: dt, Shape: inShape}
	dst := j.outputTensor("grad_in", gin)
	state := j.scratch("state", int(stateBytes))
	groups := groupsFor((words + uint64(gu) - 1) / uint64(gu))
	if listed != nil {
		groups = groupsFor(words)
		j.dispatch(ps, groups, j.words("params", pw), tab, src, dst.buf, state)
		groups = groupsFor(uint64(len(listed)))
		if len(listed) == 0 {
			passes = 0 // every slot is a sole one
		}
	}
	// The passes split the bound's chain; a slot's own count ends its
	// share (the kernel's k1), so a bound above the tables' longest chain
	// only leaves the last pass with less to do.
	for s := range passes {
		pw[8], pw[9] = uint32(s*chain), uint32(min((s+1)*chain, most))
		pw[10], pw[11] = b2u(s == 0), b2u(s == passes-1)
		j.dispatch(p, groups, j.words("params", pw), tab, src, dst.buf, state)
	}
	if err := j.run(); err != nil {
		return nil, err
	}
	return gin, nil
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func init() { families = append(families, padBackwardGatherLinks) }

// padBackwardGatherLinks: the deterministic pad backward serves `fkc run
// pad_backward --backend vulkan` in every mode but constant (its contract
// says why: exact, the same bits every run, no retry cap under
// contention); the constant backward stays the seed's byte-copy gather.
func padBackwardGatherLinks(d *Device) []kernels.Link {
	return []kernels.Link{{EntryPoint: wgslEP + "pad_backward",
		Serves: kernels.Variants("pad_backward", kernels.PadForms[1:]...),
		Runs:   kernels.Variants("pad_backward", kernels.PadForms...),
		Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
			return d.PadBackwardGather(c.Inputs["grad_out"], c.Mode, c.Padding)
		},
		Where: "shaders/wgsl/pad_backward_gather.wgsl in kernels/gpu (PadBackwardGather)"}}
}
