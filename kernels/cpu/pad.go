package cpu

import (
	"encoding/binary"
	"math"
	"runtime"

	"github.com/fkc-playground/fkc/internal/par"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Pad is the mode-unified forward pad of fuel-cpu-backend (`## pad`:
// constant / reflect / replicate) and of this project's own modes
// (fkc-cpu-kernels pad_circular, pad_symmetric), every mode of
// kernels.PadModes, on any rank (including 0) and any element width. fill is one pre-encoded element (len == dtype size) for Constant and
// is ignored otherwise. Dtype gating (U8/U32/BF16/F16/F32/F64 on the CPU) is
// the registry's job; the kernel itself is a byte mover.
//
// It builds the output row by row along the last axis. Every output row's
// leading coordinates map, axis by axis, to one input row (reflect and
// replicate always; constant unless a coordinate falls in the padding, and
// then the row is all fill), so rows are independent and are shared out
// among the workers. A row is one moveBytes of the input row for the
// interior plus fill or mirrored/clamped elements for the edges. Bitwise
// equal to PadRef.
func Pad(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	out, err := padSetup(x, mode, pads, fill, into...)
	if err != nil || len(out.Data) == 0 {
		return out, err
	}
	rank := len(x.Shape)
	if rank == 0 {
		copy(out.Data, x.Data)
		return out, nil
	}
	last := rank - 1
	g := &padGeom{n: x.Shape[last], b: pads[last].Before, lead: out.Shape[:last], inStr: tensor.Strides(x.Shape)}
	g.outRow = g.b + g.n + pads[last].After
	g.edges = edgeMap(mode, g.n, pads[last])
	g.fill = mode == kernels.Constant
	// maps[k][o] is the input coordinate output coordinate o reads along
	// leading axis k, or -1 in a constant pad's padding.
	g.maps = make([][]int, last)
	for k := range g.maps {
		g.maps[k] = axisMap(mode, x.Shape[k], pads[k])
	}
	es := x.DType.Size()
	par.For(out.NumElems()/g.outRow, 2*g.outRow*es, func(lo, hi int) {
		switch es {
		case 1:
			padRows(g, out.Data, x.Data, fillElem[uint8](mode, fill), lo, hi)
		case 2:
			padRows(g, viewOf[uint16](out.Data), viewOf[uint16](x.Data), fillElem[uint16](mode, fill), lo, hi)
		case 4:
			padRows(g, viewOf[uint32](out.Data), viewOf[uint32](x.Data), fillElem[uint32](mode, fill), lo, hi)
		default:
			padRows(g, viewOf[uint64](out.Data), viewOf[uint64](x.Data), fillElem[uint64](mode, fill), lo, hi)
		}
	})
	return out, nil
}

// padGeom is what building a forward pad's output rows needs.
type padGeom struct {
	n, b   int     // the last axis: input row length, pad before
	outRow int     // output row length (b + n + after)
	edges  []int   // the last axis's padding cells, before then after: input coordinate, -1 = fill
	fill   bool    // every padding cell is the fill (constant mode)
	lead   []int   // the output's leading axes
	maps   [][]int // per leading axis: output coordinate → input coordinate, -1 = fill
	inStr  []int   // the input's element strides
}

// axisMap is the mode's source-index rule over one axis's output
// coordinates: the input coordinate each reads, -1 for the fill.
func axisMap(mode kernels.Mode, n int, p kernels.Pad) []int {
	src := kernels.ModeOf(mode).Source
	m := make([]int, p.Before+n+p.After)
	for o := range m {
		m[o] = src(o-p.Before, n)
	}
	return m
}

// edgeMap is axisMap of the padding cells alone: the before cells, then
// the after cells (the interior is read as one run).
func edgeMap(mode kernels.Mode, n int, p kernels.Pad) []int {
	m := axisMap(mode, n, p)
	return append(m[:p.Before:p.Before], m[p.Before+n:]...)
}

// padRows builds output rows [lo, hi) on typed views of the element width.
// Rows go plane by plane: the leading axes but the innermost fix a
// plane's input offset once, and the innermost axis's map gives each
// row's. A row is its input row's interior in one moveBytes, then the
// edges — the fill for constant, else each edge cell's input element by
// the mode's rule (edgeMap) — or, in a constant pad's padding, all fill.
func padRows[E any](g *padGeom, out, in []E, fill E, lo, hi int) {
	n, b, w := g.n, g.b, g.outRow
	// rank 1 is one plane of one row
	lead, maps, rows, m, stride := g.lead, g.maps, 1, []int{0}, 0
	if k := len(lead) - 1; k >= 0 {
		lead, maps, rows, m, stride = lead[:k], maps[:k], lead[k], maps[k], g.inStr[k]
	}
	coord := make([]int, len(lead))
	unflatten(lo/rows, lead, coord)
	for r := lo; r < hi; {
		base, inside := 0, true
		for k, c := range coord {
			j := maps[k][c]
			inside = inside && j >= 0
			base += j * g.inStr[k]
		}
		c0 := r % rows
		c1 := min(rows, c0+hi-r)
		if inside && padInteriorsFirst {
			padInteriors(out[r*w+b:], in[base:], m[c0:c1], w, stride, n)
		}
		for c := c0; c < c1; c, r = c+1, r+1 {
			dst := out[r*w : r*w+w : r*w+w]
			j := m[c]
			if !inside || j < 0 {
				for i := range dst {
					dst[i] = fill
				}
				continue
			}
			src := in[base+j*stride : base+j*stride+n : base+j*stride+n]
			if !padInteriorsFirst {
				moveBytes(bytesOf(dst[b:b+n]), bytesOf(src))
			}
			if g.fill {
				for i := 0; i < b; i++ {
					dst[i] = fill
				}
				for i := b + n; i < w; i++ {
					dst[i] = fill
				}
				continue
			}
			for t, e := range g.edges[:b] {
				dst[t] = src[e]
			}
			for t, e := range g.edges[b:] {
				dst[b+n+t] = src[e]
			}
		}
		for k := len(coord) - 1; k >= 0; k-- { // the next plane's coordinates
			if coord[k]++; coord[k] < lead[k] {
				break
			}
			coord[k] = 0
		}
	}
}

// padInteriorsFirst: in WASM a plane's row interiors are copied first, in
// padInteriors, and the row loop then writes only the edges. There a Go
// call spills every live value to the stack, so the copy loop must keep
// few. Natively the edges would then meet their rows' cache lines a second
// time, so there the row loop copies. A variable so that the tests take
// both paths. Measurements: docs/perf/cpu-pad.md.
var padInteriorsFirst = runtime.GOARCH == "wasm"

// padInteriors copies input row m[i] (at m[i]*stride in in) to out[i*w:],
// n elements, for every i with m[i] >= 0.
func padInteriors[E any](out, in []E, m []int, w, stride, n int) {
	for i, j := range m {
		if j >= 0 {
			moveBytes(bytesOf(out[i*w:i*w+n]), bytesOf(in[j*stride:j*stride+n]))
		}
	}
}

// fillElem is a constant pad's pre-encoded fill element read through the
// same native-endian view as the data (the hosts and WASM are
// little-endian); other modes have none.
func fillElem[E any](mode kernels.Mode, fill []byte) E {
	var f E
	if mode == kernels.Constant {
		f = viewOf[E](fill)[0]
	}
	return f
}

// PadRef is the reference walk, as the contracts' prose reads: for every
// output element, unflatten its coordinates, map each axis's j = out_coord
// - before through the mode's source-index rule (PadMode.Source; -1, a
// constant pad's padding, means fill) and copy that input element.
func PadRef(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	out, err := padSetup(x, mode, pads, fill, into...)
	if err != nil {
		return nil, err
	}
	es := x.DType.Size()
	rank := len(x.Shape)
	inStr := tensor.Strides(x.Shape)
	source := kernels.ModeOf(mode).Source
	coord := make([]int, rank)
	for o := 0; o < out.NumElems(); o++ {
		unflatten(o, out.Shape, coord)
		in, inside := 0, true
		for k := 0; k < rank; k++ {
			j := source(coord[k]-pads[k].Before, x.Shape[k])
			if j < 0 {
				inside = false
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

// padSetup validates a forward pad before any work and allocates the output
// (or takes the caller's, into).
func padSetup(x *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, fill []byte, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	shape, err := kernels.PadShape(x, mode, pads, fill)
	if err == nil {
		err = kernels.CheckHost("pad", x)
	}
	if err != nil {
		return nil, err
	}
	return output(into, x.DType, shape)
}

// PadBackward is pad_backward_{f32,f64,bf16,f16}: grad_in's shape is derived
// from grad_out's and the padding; every output position, in flat order,
// adds its gradient into an f64 accumulator for the input slot it was read
// from (constant skips padded positions); each slot is then narrowed on
// store (f64→f32, or f64→f32→half). The accumulator starts at 0.0, so a
// lone -0.0 gradient stores as +0.0, as the contract's walk does.
//
// The fast path works per input row (last axis): it finds the output rows
// that read that row — along each leading axis the output coordinates
// mapping to the row's coordinate, in increasing order, so their product
// is in increasing flat order — and adds them into one row of f64
// accumulators, which it then narrows into grad_in. Each slot sees the
// same additions in the same order as in PadBackwardRef (bitwise equal),
// only one row of accumulators is live per worker, and input rows are
// independent, so they are shared out among the workers.
func PadBackward(gradOut *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad, into ...*tensor.Tensor) (*tensor.Tensor, error) {
	inShape, err := padBackwardSetup(gradOut, mode, pads)
	if err != nil {
		return nil, err
	}
	rank := len(inShape)
	if rank == 0 || tensor.NumElems(inShape) == 0 {
		acc := make([]float64, tensor.NumElems(inShape))
		if len(acc) == 1 {
			acc[0] += widenAt(gradOut, 0)
		}
		return narrowAcc(gradOut.DType, inShape, acc), nil
	}
	out, err := output(into, gradOut.DType, inShape)
	if err != nil {
		return nil, err
	}
	last := rank - 1
	n, b := inShape[last], pads[last].Before
	L := gradOut.Shape[last]
	// from[k][c]: the output coordinates along leading axis k that read
	// input coordinate c, increasing.
	from := make([][][]int, last)
	for k := range from {
		from[k] = make([][]int, inShape[k])
		for o, j := range axisMap(mode, inShape[k], pads[k]) {
			if j >= 0 {
				from[k][j] = append(from[k][j], o)
			}
		}
	}
	edges := edgeMap(mode, n, pads[last])
	outLeadStr := tensor.Strides(gradOut.Shape[:last])
	par.For(tensor.NumElems(inShape)/n, 2*n*gradOut.DType.Size(), func(lo, hi int) {
		acc, buf := make([]float64, n), make([]float64, L)
		coord, pick := make([]int, last), make([]int, last)
		unflatten(lo, inShape[:last], coord)
		for r := lo; r < hi; r++ {
			clear(acc)
			clear(pick)
			for { // the output rows reading input row r, in flat order
				R := 0
				for k, c := range coord {
					R += from[k][c][pick[k]] * outLeadStr[k]
				}
				addGradRow(acc, gradOut, R*L, buf, edges, b)
				k := last - 1
				for ; k >= 0; k-- {
					if pick[k]++; pick[k] < len(from[k][coord[k]]) {
						break
					}
					pick[k] = 0
				}
				if k < 0 {
					break
				}
			}
			narrowRow(out, r*n, acc)
			for k := last - 1; k >= 0; k-- {
				if coord[k]++; coord[k] < inShape[k] {
					break
				}
				coord[k] = 0
			}
		}
	})
	return out, nil
}

// addGradRow adds the output row of grad_out starting at element i into the
// input row's accumulators a, in the row's flat order: the before-edge, the
// interior, the after-edge, each edge cell into the slot edges names
// (edgeMap; -1, a constant pad's padding, adds nowhere). An F32 row is
// widened on the fly; other dtypes through buf.
func addGradRow(a []float64, g *tensor.Tensor, i int, buf []float64, edges []int, b int) {
	n := len(a)
	var g32 []float32
	if g.DType == tensor.F32 {
		g32 = g.F32()[i : i+len(buf)]
	} else {
		widenRow(g, i, buf)
	}
	at := func(t int) float64 {
		if g32 != nil {
			return float64(g32[t])
		}
		return buf[t]
	}
	for t, e := range edges[:b] {
		if e >= 0 {
			a[e] += at(t)
		}
	}
	if g32 != nil {
		widenAddF32(a, g32[b:b+n])
	} else {
		addGo(a, buf[b:b+n])
	}
	for t, e := range edges[b:] {
		if e >= 0 {
			a[e] += at(b + n + t)
		}
	}
}

// narrowRow stores accumulators into out from element i on, in out's dtype.
func narrowRow(out *tensor.Tensor, i int, acc []float64) {
	switch out.DType {
	case tensor.F32:
		narrowF32(out.F32()[i:i+len(acc)], acc)
	case tensor.F64:
		copy(out.F64()[i:], acc)
	default:
		o := out.U16()[i : i+len(acc)]
		for k, v := range acc {
			o[k] = tensor.HalfFromF64(out.DType, v)
		}
	}
}

// PadBackwardRef is the reference walk of pad_backward_*: per output flat
// position, unflatten, map each axis by the mode's rule (-1, a constant
// pad's padding: skip the position),
// add into the f64 accumulator of the input slot; narrow on store.
func PadBackwardRef(gradOut *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) (*tensor.Tensor, error) {
	inShape, err := padBackwardSetup(gradOut, mode, pads)
	if err != nil {
		return nil, err
	}
	acc := make([]float64, tensor.NumElems(inShape))
	rank := len(inShape)
	inStr := tensor.Strides(inShape)
	source := kernels.ModeOf(mode).Source
	coord := make([]int, rank)
outer:
	for o := 0; o < gradOut.NumElems(); o++ {
		unflatten(o, gradOut.Shape, coord)
		in := 0
		for k := 0; k < rank; k++ {
			j := source(coord[k]-pads[k].Before, inShape[k])
			if j < 0 {
				continue outer
			}
			in += j * inStr[k]
		}
		acc[in] += widenAt(gradOut, o)
	}
	return narrowAcc(gradOut.DType, inShape, acc), nil
}

func padBackwardSetup(g *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) ([]int, error) {
	shape, err := kernels.PadBackwardShape(g, mode, pads, kernels.FloatDTypes)
	if err == nil {
		err = kernels.CheckHost("pad_backward", g)
	}
	return shape, err
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
	narrowRow(out, 0, acc)
	return out
}

// cpuBackend prefixes the seed fuel-cpu-backend's entry points.
const cpuBackend = "fuel_cpu_backend::byte_kernels::"

func init() { families = append(families, padLinks) }

func padWith(f func(*tensor.Tensor, kernels.Mode, []kernels.Pad, []byte, ...*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) {
		var fill []byte
		if c.Mode == kernels.Constant {
			var err error
			if fill, err = c.FillFor(x(c).DType); err != nil {
				return nil, err
			}
		}
		return f(x(c), c.Mode, c.Padding, fill, c.Out)
	}
}

// padLinks are the pad family's links: fuel-cpu-backend's forward and
// backward, and this project's own modes (fkc-cpu-kernels).
func padLinks() []kernels.Link {
	pad, padRef := padWith(Pad), padWith(PadRef)
	padModes := kernels.Variants("pad", kernels.SeedPadForms...)
	branch := func(m kernels.Mode) []kernels.Variant { return kernels.Variants("pad", kernels.ModeForm(m)) }
	links := []kernels.Link{
		// fuel-cpu-backend: one mode-unified forward binding per dtype.
		{EntryPoint: cpuBackend + "pad_cpu", Serves: padModes, Impl: pad, Where: "kernels/cpu.Pad (run-wise fast path; PadRef is the reference walk)"},
		// Describe-only mode sections: the branches of the same wrapper.
		{EntryPoint: cpuBackend + "pad_const_cpu", Runs: branch(kernels.Constant), Impl: pad, Where: "kernels/cpu.Pad, constant branch"},
		{EntryPoint: cpuBackend + "pad_reflect_cpu", Runs: branch(kernels.Reflect), Impl: pad, Where: "kernels/cpu.Pad, reflect branch"},
		{EntryPoint: cpuBackend + "pad_replicate_cpu", Runs: branch(kernels.Replicate), Impl: pad, Where: "kernels/cpu.Pad, replicate branch"},
		{EntryPoint: cpuBackend + "pad_walk_cpu", Runs: padModes[1:], Impl: padRef, Where: "kernels/cpu.PadRef (the generic per-element walk)"},
	}
	padBackward := func(c *kernels.Call) (*tensor.Tensor, error) {
		return PadBackward(c.In("grad_out"), c.Mode, c.Padding, c.Out)
	}
	for _, dt := range []string{"f32", "f64", "bf16", "f16"} {
		links = append(links, kernels.Link{EntryPoint: cpuBackend + "pad_backward_" + dt, Serves: kernels.Variants("pad_backward", kernels.SeedPadForms...),
			Impl: padBackward, Where: "kernels/cpu.PadBackward (f64 accumulator)"})
	}
	// This project's own pad modes (kernels.PadModes): one forward and one
	// backward section each in fkc-cpu-kernels, served by the same kernels.
	for _, m := range kernels.OwnPadModes {
		links = append(links,
			kernels.Link{EntryPoint: "fkc::cpu::pad_" + m.String(), Serves: branch(m), Impl: pad, Where: "kernels/cpu.Pad, " + m.String() + " rule (PadRef is the reference walk)"},
			kernels.Link{EntryPoint: "fkc::cpu::pad_backward_" + m.String(), Serves: kernels.Variants("pad_backward", kernels.ModeForm(m)), Impl: padBackward, Where: "kernels/cpu.PadBackward (f64 accumulator), " + m.String() + " rule"})
	}
	return links
}
