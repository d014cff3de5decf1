package playground

import (
	"fmt"
	"math"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Runner runs one `fkc run` op (SPEC §5) on some backend and returns its
// output: in the app it is ops.Engine.Run on the backend being shown.
type Runner func(op string, flags []string, inputs map[string]*tensor.Tensor) (*tensor.Tensor, error)

// Source is one input element: the input's CLI name and its flat index.
type Source struct {
	Input string `json:"in"`
	Index int    `json:"i"`
}

// Cell roles, one per output element, for the picture's colours.
const (
	RoleCopy    = "copy"    // copied from one input element
	RoleFill    = "fill"    // the constant fill value (pad constant, masked_fill)
	RoleMirror  = "mirror"  // pad reflect: outside the interior, mirrored in
	RoleClamp   = "clamp"   // pad replicate: outside the interior, edge repeated
	RoleFold    = "fold"    // pad backward: several grad_out cells summed here
	RoleNone    = "none"    // pad backward: no grad_out cell reaches this input (stays 0)
	RoleReduce  = "reduce"  // a reduction over a set of input elements
	RoleAdd     = "add"     // index_add / scatter_add: base plus added src elements
	RoleRoute   = "route"   // reduce_max_to_backward: a max position receives upstream
	RoleBlocked = "blocked" // reduce_max_to_backward: not a max position, gradient 0
	RoleUnknown = "unknown" // the kernel wrote an index that no input element has
)

// Trace says where every output element of one call came from.
type Trace struct {
	Op       string `json:"op"`
	Method   string `json:"method"` // "kernel on a U32 index tensor", "shape rule", …
	OutShape []int  `json:"out_shape"`
	// Sources[i] lists the input elements that output element i reads.
	Sources [][]Source `json:"sources"`
	Role    []string   `json:"role"`
	// Winner[i] is the element that decided output i of a max/min/arg
	// reduction (Index -1: none, e.g. all NaN), nil for other ops.
	Winner []Source `json:"winner,omitempty"`
	// Heat counts, per input, how many output elements read each element.
	Heat map[string][]int `json:"heat"`
	// Reduced lists the reduced axes of the first input (reductions).
	Reduced []int `json:"reduced,omitempty"`
	// Interior is, per output axis, the [start, end) range of a pad's
	// output that holds the input unpadded (pad), or of grad_out that maps
	// 1:1 onto grad_in (pad_backward). The picture draws the mirror line /
	// clamped edge on its border.
	Interior [][2]int `json:"interior,omitempty"`
	Mode     string   `json:"mode,omitempty"`
	// Label[i] is a short tag drawn in output cell i (index_add: which src
	// slices accumulate into it, "+src 0,2"), nil when the op has none.
	Label []string `json:"label,omitempty"`
	// Notes spell the picture out, one line per output slice
	// ("out[2,:] = base[2,:] + src[0,:] + src[2,:]").
	Notes []string `json:"notes,omitempty"`
}

// FlagValue returns the value of a `--name value` flag, or "".
func FlagValue(flags []string, name string) string {
	for i := 0; i+1 < len(flags); i++ {
		if flags[i] == name {
			return flags[i+1]
		}
		if v, ok := strings.CutPrefix(flags[i], name+"="); ok {
			return v
		}
	}
	if n := len(flags); n > 0 {
		if v, ok := strings.CutPrefix(flags[n-1], name+"="); ok {
			return v
		}
	}
	return ""
}

// WithFlag returns flags with --name set to value (replaced or appended).
func WithFlag(flags []string, name, value string) []string {
	out := make([]string, 0, len(flags)+2)
	found := false
	for i := 0; i < len(flags); i++ {
		switch {
		case flags[i] == name && i+1 < len(flags):
			out = append(out, name, value)
			i++
			found = true
		case strings.HasPrefix(flags[i], name+"="):
			out = append(out, name, value)
			found = true
		default:
			out = append(out, flags[i])
		}
	}
	if !found {
		out = append(out, name, value)
	}
	return out
}

// TraceCall traces one call that has already run successfully with these
// inputs and flags (so the inputs satisfy the contract). run is used for
// the data movers; arithmetic ops are traced by their shape rules.
func TraceCall(run Runner, op string, flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	switch op {
	case "pad":
		return tracePad(run, flags, inputs)
	case "pad_backward":
		return tracePadBackward(run, flags, inputs)
	case "masked_fill":
		return traceMover(run, op, flags, inputs, "x", "--value")
	case "gather", "index_select":
		return traceMover(run, op, flags, inputs, "data", "")
	case "embedding":
		return traceMover(run, op, flags, inputs, "table", "")
	case "sum", "max", "min", "mean", "argmax", "argmin":
		return traceReduceDim(op, flags, inputs)
	case "reduce_sum_to", "reduce_max_to":
		return traceReduceTo(op, flags, inputs)
	case "reduce_max_to_backward":
		return traceReduceMaxToBackward(flags, inputs)
	case "index_add", "scatter_add":
		return traceIndexAdd(op, flags, inputs)
	}
	return nil, fmt.Errorf("no provenance for op %q", op)
}

// indexDTypes are tried in order for the index tensor: U32 is exact for any
// size; F32 is exact up to 2^24 elements and is taken by every float kernel.
var indexDTypes = []tensor.DType{tensor.U32, tensor.F32, tensor.F64}

// sentinel is a fill value no flat index can take.
func sentinel(dt tensor.DType) float64 {
	if dt == tensor.U32 {
		return math.MaxUint32
	}
	return -1
}

func arangeOf(dt tensor.DType, shape []int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	for i := range t.NumElems() {
		t.Set(i, float64(i))
	}
	return t
}

// runOnIndices runs op with input `mover` replaced by the flat-index
// tensor of its shape (and fillFlag, if any, set to the sentinel). It
// returns, per output element, the source index or -1 for the fill.
func runOnIndices(run Runner, op string, flags []string, inputs map[string]*tensor.Tensor, mover, fillFlag string) ([]int, []int, string, error) {
	src := inputs[mover]
	if src == nil {
		return nil, nil, "", fmt.Errorf("%s: no input %q", op, mover)
	}
	n := src.NumElems()
	var errs []string
	for _, dt := range indexDTypes {
		if dt == tensor.F32 && n > 1<<24 {
			continue
		}
		in := make(map[string]*tensor.Tensor, len(inputs))
		for k, v := range inputs {
			in[k] = v
		}
		in[mover] = arangeOf(dt, src.Shape)
		f := flags
		if fillFlag != "" {
			f = WithFlag(flags, fillFlag, fmt.Sprint(sentinel(dt)))
		}
		out, err := run(op, f, in)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", dt, err))
			continue
		}
		idx := make([]int, out.NumElems())
		for i := range idx {
			v := out.At(i)
			switch {
			case v == sentinel(dt):
				idx[i] = -1
			case v >= 0 && v < float64(n) && v == math.Trunc(v):
				idx[i] = int(v)
			default:
				idx[i] = -2 // not an index: the kernel invented data
			}
		}
		return idx, out.Shape, fmt.Sprintf("ran %s on a %s tensor of flat indices", op, dt), nil
	}
	return nil, nil, "", fmt.Errorf("%s on an index tensor: %s", op, strings.Join(errs, "; "))
}

func newTrace(op, method string, outShape []int, inputs map[string]*tensor.Tensor) *Trace {
	n := tensor.NumElems(outShape)
	t := &Trace{Op: op, Method: method, OutShape: outShape, Sources: make([][]Source, n), Role: make([]string, n), Heat: map[string][]int{}}
	for name, in := range inputs {
		t.Heat[name] = make([]int, in.NumElems())
	}
	return t
}

func (t *Trace) add(out int, s Source) {
	t.Sources[out] = append(t.Sources[out], s)
	if h := t.Heat[s.Input]; s.Index >= 0 && s.Index < len(h) {
		h[s.Index]++
	}
}

func padParams(op string, flags []string) (kernels.Mode, []kernels.Pad, error) {
	mode, err := kernels.ParseMode(FlagValue(flags, "--mode"))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %v", op, err)
	}
	pads, err := kernels.ParsePadding(FlagValue(flags, "--padding"))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %v", op, err)
	}
	return mode, pads, nil
}

func interior(pads []kernels.Pad, in []int) [][2]int {
	r := make([][2]int, len(in))
	for i, p := range pads {
		if i < len(r) {
			r[i] = [2]int{p.Before, p.Before + in[i]}
		}
	}
	return r
}

func inside(coord []int, box [][2]int) bool {
	for a, c := range coord {
		if c < box[a][0] || c >= box[a][1] {
			return false
		}
	}
	return true
}

func tracePad(run Runner, flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	mode, pads, err := padParams("pad", flags)
	if err != nil {
		return nil, err
	}
	x := inputs["x"]
	fill := ""
	if mode == kernels.Constant {
		fill = "--value"
	}
	idx, shape, method, err := runOnIndices(run, "pad", flags, inputs, "x", fill)
	if err != nil {
		return nil, err
	}
	t := newTrace("pad", method, shape, inputs)
	t.Mode = mode.String()
	t.Interior = interior(pads, x.Shape)
	coord := make([]int, len(shape))
	for i, s := range idx {
		unflatten(i, shape, coord)
		switch {
		case s == -1:
			t.Role[i] = RoleFill
			continue
		case s < 0:
			t.Role[i] = RoleUnknown
			continue
		case inside(coord, t.Interior):
			t.Role[i] = RoleCopy
		case mode == kernels.Reflect:
			t.Role[i] = RoleMirror
		case mode == kernels.Replicate:
			t.Role[i] = RoleClamp
		default:
			t.Role[i] = RoleCopy
		}
		t.add(i, Source{"x", s})
	}
	return t, nil
}

// tracePadBackward runs the forward pad on grad_in's index tensor: grad_out
// element j received grad_in element fwd[j] in the forward pass, so its
// gradient folds back into that element.
func tracePadBackward(run Runner, flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	mode, pads, err := padParams("pad_backward", flags)
	if err != nil {
		return nil, err
	}
	g := inputs["grad_out"]
	if g == nil {
		return nil, fmt.Errorf("pad_backward: no input grad_out")
	}
	inShape, err := kernels.PadBackwardInShape("pad_backward", mode, g.Shape, pads)
	if err != nil {
		return nil, err
	}
	fwdFlags := []string{"--mode", mode.String(), "--padding", kernels.FormatPadding(pads)}
	fill := ""
	if mode == kernels.Constant {
		fill = "--value"
	}
	idx, _, method, err := runOnIndices(run, "pad", fwdFlags, map[string]*tensor.Tensor{"x": tensor.New(tensor.U32, inShape)}, "x", fill)
	if err != nil {
		return nil, err
	}
	t := newTrace("pad_backward", "forward "+method+", inverted", inShape, inputs)
	t.Mode = mode.String()
	t.Interior = interior(pads, inShape)
	for j, s := range idx {
		if s >= 0 && s < len(t.Sources) {
			t.add(s, Source{"grad_out", j})
		}
	}
	for i, src := range t.Sources {
		switch len(src) {
		case 0:
			t.Role[i] = RoleNone
		case 1:
			t.Role[i] = RoleCopy
		default:
			t.Role[i] = RoleFold
		}
	}
	return t, nil
}

// traceMover traces a pure data mover whose input `mover` is copied.
func traceMover(run Runner, op string, flags []string, inputs map[string]*tensor.Tensor, mover, fill string) (*Trace, error) {
	idx, shape, method, err := runOnIndices(run, op, flags, inputs, mover, fill)
	if err != nil {
		return nil, err
	}
	t := newTrace(op, method, shape, inputs)
	for i, s := range idx {
		switch {
		case s == -1:
			t.Role[i] = RoleFill
			if m := inputs["mask"]; m != nil && i < m.NumElems() {
				t.add(i, Source{"mask", i})
			}
		case s < 0:
			t.Role[i] = RoleUnknown
		default:
			t.Role[i] = RoleCopy
			t.add(i, Source{mover, s})
		}
	}
	// The index operand decides where each output reads from: show it too.
	if ix := inputs["indices"]; ix != nil {
		d := dimFlag(flags)
		coord := make([]int, len(shape))
		for i := range t.Sources {
			unflatten(i, shape, coord)
			switch op {
			case "gather": // indices has the output's shape
				t.add(i, Source{"indices", i})
			case "index_select":
				if d >= 0 && d < len(coord) {
					t.add(i, Source{"indices", coord[d]})
				}
			}
		}
	}
	if ids := inputs["ids"]; ids != nil && len(shape) > 0 {
		coord := make([]int, len(shape))
		for i := range t.Sources {
			unflatten(i, shape, coord)
			t.add(i, Source{"ids", coord[0]})
		}
	}
	return t, nil
}

func dimFlag(flags []string) int {
	v := FlagValue(flags, "--dim")
	if v == "" {
		return -1
	}
	var d int
	if _, err := fmt.Sscan(v, &d); err != nil {
		return -1
	}
	return d
}

// better reports whether v beats best under the seeds' strict compare.
func better(op string, v, best float64) bool {
	if strings.HasSuffix(op, "min") {
		return v < best
	}
	return v > best
}

func traceReduceDim(op string, flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	x := inputs["x"]
	d := dimFlag(flags)
	var outShape, reduced []int
	if d < 0 {
		outShape = []int{}
		for a := range x.Shape {
			reduced = append(reduced, a)
		}
	} else {
		if d >= x.Rank() {
			return nil, kernels.Violatef(op, "dim %d is out of range for x of rank %d", d, x.Rank())
		}
		outShape = kernels.DropDim(x.Shape, d)
		reduced = []int{d}
	}
	t := newTrace(op, "shape rule: "+reduceRule(op, d), outShape, inputs)
	t.Reduced = reduced
	groups := make([][]int, tensor.NumElems(outShape))
	coord := make([]int, x.Rank())
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		o := 0
		if d >= 0 {
			o = flattenSkip(coord, x.Shape, d)
		}
		groups[o] = append(groups[o], i)
	}
	arg := op == "argmax" || op == "argmin"
	picks := arg || op == "max" || op == "min"
	if picks {
		t.Winner = make([]Source, len(groups))
	}
	for o, g := range groups {
		t.Role[o] = RoleReduce
		for _, i := range g {
			t.add(o, Source{"x", i})
		}
		if !picks {
			continue
		}
		w := -1
		if arg { // seed with element 0 of the axis, strict compare for k >= 1
			if len(g) > 0 {
				w = g[0]
				for _, i := range g[1:] {
					if better(op, x.At(i), x.At(w)) {
						w = i
					}
				}
			}
		} else { // seed ∓inf, strict compare: NaN never wins, first of a tie wins
			best := math.Inf(-1)
			if op == "min" {
				best = math.Inf(1)
			}
			for _, i := range g {
				if v := x.At(i); better(op, v, best) {
					best, w = v, i
				}
			}
		}
		t.Winner[o] = Source{"x", w}
	}
	return t, nil
}

func reduceRule(op string, d int) string {
	if d < 0 {
		return op + " over all elements (rank-0 output)"
	}
	return fmt.Sprintf("%s along axis %d (removed)", op, d)
}

func traceReduceTo(op string, flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	x := inputs["x"]
	target, err := tensor.ParseShape(FlagValue(flags, "--shape"))
	if err != nil {
		return nil, err
	}
	al, err := kernels.AlignTarget(op, x.Shape, target)
	if err != nil {
		return nil, err
	}
	t := newTrace(op, "shape rule: reduce every axis whose target size is 1", target, inputs)
	for a := range al {
		if al[a] == 1 && x.Shape[a] != 1 {
			t.Reduced = append(t.Reduced, a)
		}
	}
	if op == "reduce_max_to" {
		t.Winner = make([]Source, len(t.Sources))
		for o := range t.Winner {
			t.Winner[o] = Source{"x", -1}
		}
	}
	best := make([]float64, len(t.Sources))
	for o := range best {
		best[o] = math.Inf(-1)
		t.Role[o] = RoleReduce
	}
	coord := make([]int, x.Rank())
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		o := flattenBroadcast(coord, al)
		t.add(o, Source{"x", i})
		if t.Winner != nil {
			if v := x.At(i); v > best[o] {
				best[o], t.Winner[o] = v, Source{"x", i}
			}
		}
	}
	return t, nil
}

func traceReduceMaxToBackward(flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	x := inputs["x"]
	target, err := tensor.ParseShape(FlagValue(flags, "--shape"))
	if err != nil {
		return nil, err
	}
	al, err := kernels.AlignTarget("reduce_max_to_backward", x.Shape, target)
	if err != nil {
		return nil, err
	}
	t := newTrace("reduce_max_to_backward", "shape rule: upstream routed to the positions equal to the max (ties share)", x.Shape, inputs)
	for a := range al {
		if al[a] == 1 && x.Shape[a] != 1 {
			t.Reduced = append(t.Reduced, a)
		}
	}
	max := make([]float64, tensor.NumElems(al))
	for o := range max {
		max[o] = math.Inf(-1)
	}
	coord := make([]int, x.Rank())
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		if v, o := x.At(i), flattenBroadcast(coord, al); v > max[o] {
			max[o] = v
		}
	}
	for i := range x.NumElems() {
		unflatten(i, x.Shape, coord)
		o := flattenBroadcast(coord, al)
		t.add(i, Source{"x", i})
		t.add(i, Source{"upstream", o})
		if x.At(i) == max[o] {
			t.Role[i] = RoleRoute
		} else {
			t.Role[i] = RoleBlocked
		}
	}
	return t, nil
}

func traceIndexAdd(op string, flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	base, idx, src := inputs["base"], inputs["indices"], inputs["src"]
	if base == nil || idx == nil || src == nil {
		return nil, fmt.Errorf("%s: needs base, indices and src", op)
	}
	d := dimFlag(flags)
	if d < 0 || d >= base.Rank() || src.Rank() != base.Rank() {
		return nil, kernels.Violatef(op, "dim %d does not fit base of rank %d and src of rank %d", d, base.Rank(), src.Rank())
	}
	t := newTrace(op, "shape rule: "+op+" in src flat order", base.Shape, inputs)
	for i := range t.Sources {
		t.Role[i] = RoleCopy
		t.add(i, Source{"base", i})
	}
	coord := make([]int, src.Rank())
	for i := range src.NumElems() {
		unflatten(i, src.Shape, coord)
		var k int
		if op == "index_add" {
			k = coord[d]
		} else {
			k = i // scatter_add: indices has src's shape
		}
		if k >= idx.NumElems() {
			continue
		}
		coord[d] = int(idx.At(k))
		o, ok := flattenIn(coord, base.Shape)
		if !ok {
			continue // the kernel rejected this case before we got here
		}
		t.Role[o] = RoleAdd
		t.add(o, Source{"src", i})
		t.add(o, Source{"indices", k})
	}
	t.Label = make([]string, len(t.Sources))
	if op == "scatter_add" {
		for o, ss := range t.Sources {
			if n := countInput(ss, "src"); n > 0 {
				t.Label[o] = fmt.Sprintf("+%d src", n)
			}
		}
		return t, nil
	}
	// index_add: slice k of src (along d) lands in slice indices[k] of the
	// output, so each output slice sums base and the src slices naming it.
	into := make([][]int, base.Shape[d])
	for k := 0; k < idx.NumElems() && k < src.Shape[d]; k++ {
		if r := int(idx.At(k)); r >= 0 && r < len(into) {
			into[r] = append(into[r], k)
		}
	}
	for r, ks := range into {
		terms := []string{"base" + sliceStr(base.Rank(), d, r)}
		for _, k := range ks {
			terms = append(terms, "src"+sliceStr(base.Rank(), d, k))
		}
		note := "out" + sliceStr(base.Rank(), d, r) + " = " + strings.Join(terms, " + ")
		if len(ks) == 0 {
			note += "   (no index names it: a copy of base)"
		}
		t.Notes = append(t.Notes, note)
	}
	cb := make([]int, base.Rank())
	for o := range t.Label {
		unflatten(o, base.Shape, cb)
		ks := into[cb[d]]
		if len(ks) == 0 {
			continue
		}
		var b strings.Builder
		b.WriteString("+src ")
		for j, k := range ks {
			if j == 3 {
				b.WriteString(",…")
				break
			}
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprint(&b, k)
		}
		t.Label[o] = b.String()
	}
	return t, nil
}

func countInput(ss []Source, name string) int {
	n := 0
	for _, s := range ss {
		if s.Input == name {
			n++
		}
	}
	return n
}

// sliceStr is numpy's spelling of slice k along axis d: "[:,2]".
func sliceStr(rank, d, k int) string {
	parts := make([]string, rank)
	for a := range parts {
		parts[a] = ":"
	}
	parts[d] = fmt.Sprint(k)
	return "[" + strings.Join(parts, ",") + "]"
}

func unflatten(i int, shape, coord []int) {
	for a := len(shape) - 1; a >= 0; a-- {
		if shape[a] > 0 {
			coord[a] = i % shape[a]
			i /= shape[a]
		}
	}
}

// flattenSkip flattens coord without axis skip (the shape of a reduced output).
func flattenSkip(coord, shape []int, skip int) int {
	o := 0
	for a := range coord {
		if a != skip {
			o = o*shape[a] + coord[a]
		}
	}
	return o
}

// flattenBroadcast flattens coord into the aligned target shape, where a
// size-1 axis absorbs every coordinate.
func flattenBroadcast(coord, al []int) int {
	o := 0
	for a := range coord {
		c := coord[a]
		if al[a] == 1 {
			c = 0
		}
		o = o*al[a] + c
	}
	return o
}

func flattenIn(coord, shape []int) (int, bool) {
	o := 0
	for a := range coord {
		if coord[a] < 0 || coord[a] >= shape[a] {
			return 0, false
		}
		o = o*shape[a] + coord[a]
	}
	return o, true
}
