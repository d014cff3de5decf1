package ops

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Runner runs one call on some backend and returns its output: in the app
// it is the engine on the backend being shown, so a trace shows what that
// backend's kernel did.
type Runner func(c *kernels.Call) (*tensor.Tensor, error)

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
	RoleAdd     = "add"     // the index adds: base plus added src elements
	RoleRoute   = "route"   // reduce_max_to_backward: a max position receives upstream
	RoleBlocked = "blocked" // reduce_max_to_backward: not a max position, gradient 0
	RoleUnknown = "unknown" // the kernel wrote an index that no input element has
	RoleWrap    = "wrap"    // pad circular: outside the interior, the input repeated periodically
)

// RoleLegend says what each cell role means, for the picture's legend.
var RoleLegend = map[string]string{
	RoleCopy: "copied from the input", RoleFill: "constant fill", RoleMirror: "reflected (mirror image)",
	RoleClamp: "edge replicated (clamped)", RoleFold: "several outputs fold in", RoleNone: "no output folds in (stays 0)",
	RoleReduce: "reduced", RoleAdd: "base + added src", RoleRoute: "max position: receives gradient",
	RoleBlocked: "not a max: gradient 0", RoleUnknown: "kernel wrote an impossible index",
	RoleWrap: "wrapped around (periodic)",
}

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
	// Border is how the picture marks the interior's border (a pad
	// mode's kernels.PadMode.Border: "mirror", "clamp", …).
	Border string `json:"border,omitempty"`
	// Label[i] is a short tag drawn in output cell i (index_add: which src
	// slices accumulate into it, "+src 0,2"), nil when the op has none.
	Label []string `json:"label,omitempty"`
	// Notes spell the picture out, one line per output slice
	// ("out[2,:] = base[2,:] + src[0,:] + src[2,:]").
	Notes []string `json:"notes,omitempty"`
	// Explain says in a sentence what the picture shows.
	Explain string `json:"explain"`
	// InteriorOn says which grid the interior box is drawn on: "out" (pad)
	// or "in" (pad_backward, on grad_out).
	InteriorOn string `json:"interior_on,omitempty"`
	// FoldHeat: colour the output cells by how many sources fold into each
	// (pad backward).
	FoldHeat bool `json:"fold_heat,omitempty"`
	// MarkTrue names an input whose true cells are marked (masked_fill's mask).
	MarkTrue string `json:"mark_true,omitempty"`
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

// runOnIndices runs call c with operand `mover` replaced by the flat-index
// tensor of its shape (and, when fill is set, the fill value set to a
// sentinel no index takes). It returns, per output element, the source
// index, -1 for the fill, or -2 for a value that is no index (the kernel
// invented data).
func runOnIndices(run Runner, c *kernels.Call, mover string, fill bool) ([]int, []int, string, error) {
	src := c.Inputs[mover]
	if src == nil {
		return nil, nil, "", fmt.Errorf("%s: no input %q", c.Op, mover)
	}
	n := src.NumElems()
	var errs []string
	for _, dt := range indexDTypes {
		if dt == tensor.F32 && n > 1<<24 {
			continue
		}
		ic := *c
		ic.Inputs = make(map[string]*tensor.Tensor, len(c.Inputs))
		for k, v := range c.Inputs {
			ic.Inputs[k] = v
		}
		ic.Inputs[mover] = arangeOf(dt, src.Shape)
		if fill {
			ic.Fill = tensor.FloatScalar(sentinel(dt))
		}
		out, err := run(&ic)
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
				idx[i] = -2
			}
		}
		return idx, out.Shape, fmt.Sprintf("%s ran a second time, on a %s tensor holding each %s cell's own flat index (0, 1, 2, …), so each output cell names the %s cell it copied", c.Op, dt, mover, mover), nil
	}
	return nil, nil, "", fmt.Errorf("%s on an index tensor: %s", c.Op, strings.Join(errs, "; "))
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

// traceMover traces a pure data mover whose operand `mover` is copied:
// each output cell is a copy of one mover cell or (fill) the fill value.
func traceMover(run Runner, c *kernels.Call, mover string, fill bool) (*Trace, error) {
	idx, shape, method, err := runOnIndices(run, c, mover, fill)
	if err != nil {
		return nil, err
	}
	t := newTrace(c.Op, method, shape, c.Inputs)
	for i, s := range idx {
		switch {
		case s == -1:
			t.Role[i] = RoleFill
			if m := c.Inputs["mask"]; m != nil && i < m.NumElems() {
				t.add(i, Source{"mask", i})
			}
		case s < 0:
			t.Role[i] = RoleUnknown
		default:
			t.Role[i] = RoleCopy
			t.add(i, Source{mover, s})
		}
	}
	return t, nil
}

// sourceLabels labels each output cell with the coordinates of the mover
// cell it was copied from ("←[2,1]").
func (t *Trace) sourceLabels(mover string, shape []int) {
	t.Label = make([]string, len(t.Sources))
	coord := make([]int, len(shape))
	for o, ss := range t.Sources {
		for _, s := range ss {
			if s.Input == mover && s.Index >= 0 {
				unflatten(s.Index, shape, coord)
				t.Label[o] = "←" + coordString(coord)
				break
			}
		}
	}
}

func coordString(c []int) string {
	parts := make([]string, len(c))
	for i, v := range c {
		parts[i] = strconv.Itoa(v)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
