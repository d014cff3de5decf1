package playground

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// A tensor of any rank is drawn as a 2-D slice: two axes are drawn (a
// picker chooses which), the others are fixed by sliders. Go computes every
// cell — its value, role colour, label, heat, hover sources and the
// decorations (interior box, mirror lines, clamped edges) — so the page's
// script only swaps HTML and highlights what a cell's data-src names.

// MaxCells bounds the rows and columns drawn of one slice.
const MaxCells = 48

// Slice says which 2-D slice of a tensor is drawn.
type Slice struct {
	RowAx, ColAx int   // -1 when the rank is below 2 (or 1)
	Fixed        []int // the other axes' coordinates
}

// DefaultSlice draws the last two axes at coordinate 0 of the others.
func DefaultSlice(rank int) Slice {
	s := Slice{RowAx: rank - 2, ColAx: rank - 1, Fixed: make([]int, rank)}
	if rank < 2 {
		s.RowAx = -1
	}
	if rank < 1 {
		s.ColAx = -1
	}
	return s
}

// Fit is s made valid for a tensor of this shape: axes in range and
// distinct (else the default ones), every fixed coordinate within its axis.
// A picker event carries the page's values, which a script can set to
// anything; a slice past an axis panicked when the grid was drawn.
func (s Slice) Fit(shape []int) Slice {
	rank := len(shape)
	d := DefaultSlice(rank)
	if len(s.Fixed) != rank {
		return d
	}
	ok := func(ax int) bool { return ax >= 0 && ax < rank }
	if (d.RowAx >= 0) != ok(s.RowAx) || (d.ColAx >= 0) != ok(s.ColAx) || (ok(s.RowAx) && s.RowAx == s.ColAx) {
		s.RowAx, s.ColAx = d.RowAx, d.ColAx
	}
	fixed := make([]int, rank)
	for a, c := range s.Fixed {
		fixed[a] = max(0, min(c, shape[a]-1))
	}
	s.Fixed = fixed
	return s
}

// GridInput is everything one grid shows.
type GridInput struct {
	Name    string // the operand ("x", "out"), also data-grid
	Title   string
	Backend string // an output's backend, "" for an input
	T       *tensor.Tensor
	Out     bool
	Slice   Slice
	Trace   *ops.Trace
	Heat    []int            // fold counts (pad backward)
	Scale   HeatScale        // the picture's one scale for Heat; zero: this grid's own counts
	Coord   string           // the operand's name in hover text; "" is Name
	Differs map[int]bool     // bits differ from the first output
	Shapes  map[string][]int // every operand's shape (hover text)
	Primary string           // the op's first operand: winners and reduced axes are drawn on it
}

// Grid is the view of one tensor.
type Grid struct {
	Key                         string // which grid: "x", "out:0" (a page re-renders one by it)
	Name, Title, Backend, DType string
	Shape                       []int
	Out                         bool
	Pickers                     []Picker
	Empty, TooMany              string
	Columns                     string // grid-template-columns
	Head                        []AxisLabel
	Rows                        []GridRow
	Decos                       []Deco
	Note, SliceNote             string
	Reduced                     string
}

// Picker is one axis control of a rank ≥ 3 grid.
type Picker struct {
	Axis, Size, Value int
	Kind              string // "rows", "cols" or "fixed"
	Options           []int
}

// AxisLabel is a header cell.
type AxisLabel struct {
	Text    string
	Reduced bool
}

// GridRow is one drawn row.
type GridRow struct {
	Label AxisLabel
	Cells []Cell
}

// Cell is one element.
type Cell struct {
	I                  int
	Value, Bits, Class string
	Label, Style, Src  string
	Info               string
	Star, TabStop      bool
	Coord              string
}

// Deco is one decoration, placed on the grid's lines (an overlay grid
// with the same tracks, so nothing is measured in the browser).
type Deco struct {
	Class, Style, Text string
}

// NewGrid builds the view of one tensor.
func NewGrid(in GridInput) Grid {
	t := in.T
	g := Grid{Name: in.Name, Title: in.Title, Backend: in.Backend, DType: t.DType.String(), Shape: t.Shape, Out: in.Out}
	rank := t.Rank()
	s := in.Slice
	if len(s.Fixed) != rank || s.RowAx >= rank || s.ColAx >= rank {
		s = DefaultSlice(rank)
	}
	if tr := in.Trace; tr != nil && !in.Out && len(tr.Reduced) > 0 && in.Name == in.Primary {
		parts := make([]string, len(tr.Reduced))
		for i, a := range tr.Reduced {
			parts[i] = strconv.Itoa(a)
		}
		g.Reduced = "reduced: axis " + strings.Join(parts, ", ")
	}
	if rank >= 3 {
		for a, n := range t.Shape {
			p := Picker{Axis: a, Size: n, Value: s.Fixed[a], Kind: "fixed"}
			if a == s.RowAx {
				p.Kind = "rows"
			} else if a == s.ColAx {
				p.Kind = "cols"
			}
			for o := range rank {
				p.Options = append(p.Options, o)
			}
			g.Pickers = append(g.Pickers, p)
		}
	}
	R, C := 1, 1
	if s.RowAx >= 0 {
		R = t.Shape[s.RowAx]
	}
	if s.ColAx >= 0 {
		C = t.Shape[s.ColAx]
	}
	if t.NumElems() > maxDraw {
		g.TooMany = fmt.Sprintf("%d elements — too many to draw.", t.NumElems())
		return g
	}
	if R*C == 0 {
		g.Empty = "empty"
		return g
	}
	rs, cs := min(R, MaxCells), min(C, MaxCells)
	strides := tensor.Strides(t.Shape)
	flat := func(r, c int) int {
		i := 0
		for a := range rank {
			switch a {
			case s.RowAx:
				i += strides[a] * r
			case s.ColAx:
				i += strides[a] * c
			default:
				i += strides[a] * s.Fixed[a]
			}
		}
		return i
	}
	tr := in.Trace
	var labels []string
	var winners map[int]bool
	reduced := func(ax int) bool { return false }
	markTrue := false
	if tr != nil {
		if in.Out {
			labels = tr.Label
		} else if in.Name == in.Primary {
			winners = map[int]bool{}
			for _, w := range tr.Winner {
				if w.Index >= 0 {
					winners[w.Index] = true
				}
			}
			reduced = func(ax int) bool { return ax >= 0 && slices.Contains(tr.Reduced, ax) }
		}
		markTrue = tr.MarkTrue == in.Name
	}
	scale := in.Scale
	if scale.Max == 0 {
		scale = NewHeatScale(in.Heat)
	}
	coordName := in.Name
	if in.Coord != "" {
		coordName = in.Coord
	}
	wide := 0
	g.Head = append(g.Head, AxisLabel{Text: corner(rank, s)})
	for c := range cs {
		txt := ""
		if rank > 0 {
			txt = strconv.Itoa(c)
		}
		g.Head = append(g.Head, AxisLabel{Text: txt, Reduced: reduced(s.ColAx)})
	}
	for r := range rs {
		row := GridRow{Label: AxisLabel{Reduced: reduced(s.RowAx)}}
		if rank >= 2 {
			row.Label.Text = strconv.Itoa(r)
		}
		for c := range cs {
			i := flat(r, c)
			cell := Cell{I: i, Value: Format(t, i), TabStop: r == 0 && c == 0}
			cell.Coord = coordName + coordString(unflatten(i, t.Shape))
			if t.DType.IsFloat() {
				cell.Bits = bitsHex(t, i)
			}
			var cls []string
			if tr != nil && in.Out && i < len(tr.Role) && tr.Role[i] != "" {
				cls = append(cls, "r-"+tr.Role[i])
			}
			if in.Heat != nil && i < len(in.Heat) {
				n := in.Heat[i]
				cls = append(cls, "heat")
				cell.Style = scale.Style(n)
				cell.Label = "×" + strconv.Itoa(n)
			}
			if labels != nil && i < len(labels) && labels[i] != "" {
				cell.Label = labels[i]
			}
			if winners[i] {
				cls = append(cls, "win")
				cell.Star = true
			}
			if markTrue && t.At(i) != 0 {
				cls = append(cls, "true")
			}
			if in.Differs[i] {
				cls = append(cls, "differs")
			}
			cell.Class = strings.Join(cls, " ")
			cell.Src, cell.Info = hover(in, i, cell.Coord, cell.Value)
			wide = max(wide, len([]rune(cell.Value)), len([]rune(cell.Label))*3/4)
			row.Cells = append(row.Cells, cell)
		}
		g.Rows = append(g.Rows, row)
	}
	g.Columns = fmt.Sprintf("2.2em repeat(%d, %.2fem)", cs, math.Max(3.2, 0.52*float64(wide)+1.1))
	if R > rs || C > cs {
		g.Note = fmt.Sprintf("showing %d×%d of %d×%d", rs, cs, R, C)
	}
	if tr != nil && tr.Interior != nil && (in.Out == (tr.InteriorOn == "out")) && (tr.InteriorOn == "out" || in.Name == in.Primary) {
		g.decorate(tr, s, R, C, rs, cs)
	}
	return g
}

// HeatScale colours fold counts (pad backward: how many output cells fold
// into each grad_in cell) on one scale for every panel of a picture, so one
// count has one colour wherever it is drawn and one legend reads them all.
// A cell carries its level as --heat; the stylesheet mixes the colour, so
// the light and dark themes each have their own ramp.
type HeatScale struct {
	Min, Max int // the smallest and largest count over the picture's panels
}

// NewHeatScale is the scale spanning every count of every panel.
func NewHeatScale(panels ...[]int) HeatScale {
	h := HeatScale{Min: -1}
	for _, counts := range panels {
		for _, n := range counts {
			h.Max = max(h.Max, n)
			if h.Min < 0 || n < h.Min {
				h.Min = n
			}
		}
	}
	h.Min = max(h.Min, 0)
	h.Max = max(h.Max, 1)
	return h
}

// Level is count n's place on the ramp (0–1). A cell's own copy (1) is
// pale, 0.12, whatever the scale: a picture where nothing folds (constant's
// all-ones) must not look like one where much does. From there the level
// grows in proportion to the extra folds, to 1 at Max; 0 (no gradient
// reaches the cell) is the ramp's bottom.
func (h HeatScale) Level(n int) float64 {
	switch {
	case n <= 0:
		return 0
	case h.Max <= 1:
		return 0.12
	}
	return 0.12 + 0.88*float64(min(n, h.Max)-1)/float64(h.Max-1)
}

// Style is a cell's (or a legend swatch's) inline style for count n.
func (h HeatScale) Style(n int) string { return fmt.Sprintf("--heat: %.3f", h.Level(n)) }

// HeatStep is one swatch of the legend: a count and its colour.
type HeatStep struct {
	N     int
	Style string
}

// Steps are the legend's swatches from Min to Max: every count when there
// are at most ten, else six evenly spaced ones (Min and Max among them).
func (h HeatScale) Steps() []HeatStep {
	var ns []int
	if h.Max-h.Min < 10 {
		for n := h.Min; n <= h.Max; n++ {
			ns = append(ns, n)
		}
	} else {
		for k := range 6 {
			n := h.Min + int(math.Round(float64(k*(h.Max-h.Min))/5))
			if len(ns) == 0 || ns[len(ns)-1] != n {
				ns = append(ns, n)
			}
		}
	}
	steps := make([]HeatStep, len(ns))
	for i, n := range ns {
		steps[i] = HeatStep{n, h.Style(n)}
	}
	return steps
}

// decorate draws the interior box and the border its trace's mode names
// (kernels.PadMode.Border): reflect's mirror lines (through the centre of
// the edge element: it is not repeated), symmetric's (on the box's border:
// the edge repeats), circular's wrap seams and replicate's clamped edges,
// on the drawn tracks (track 1 is the axis labels).
func (g *Grid) decorate(tr *ops.Trace, s Slice, R, C, rs, cs int) {
	span := func(ax, n int) [2]int {
		if ax < 0 {
			return [2]int{0, 1}
		}
		return tr.Interior[ax]
	}
	ri, ci := span(s.RowAx, R), span(s.ColAx, C)
	if ri[1] <= ri[0] || ci[1] <= ci[0] || ri[0] >= rs || ci[0] >= cs {
		return
	}
	r0, r1 := ri[0]+2, min(ri[1], rs)+2 // grid lines
	c0, c1 := ci[0]+2, min(ci[1], cs)+2
	inSlice := true
	var fixed []string
	for ax, f := range s.Fixed {
		if ax == s.RowAx || ax == s.ColAx {
			continue
		}
		fixed = append(fixed, fmt.Sprintf("axis %d = %d", ax, f))
		if f < tr.Interior[ax][0] || f >= tr.Interior[ax][1] {
			inSlice = false
		}
	}
	box := "deco interior"
	if !inSlice {
		box += " ghost"
		g.SliceNote = fmt.Sprintf("This slice (%s) lies in the padding: none of its cells is inside the input region (dashed: where the input sits on the interior slices).", strings.Join(fixed, ", "))
	}
	g.Decos = append(g.Decos, Deco{Class: box, Style: fmt.Sprintf("grid-row: %d / %d; grid-column: %d / %d", r0, r1, c0, c1)})
	padRows, padCols := ri[0] > 0 || ri[1] < R, ci[0] > 0 || ci[1] < C
	all := fmt.Sprintf("2 / %d", rs+2)
	allC := fmt.Sprintf("2 / %d", cs+2)
	switch tr.Border {
	case "mirror":
		if padCols && ci[0] > 0 {
			g.Decos = append(g.Decos, Deco{"deco mirror v", fmt.Sprintf("grid-row: %s; grid-column: %d", all, c0), "mirror"})
		}
		if padCols && ci[1] < C && ci[1] <= cs {
			g.Decos = append(g.Decos, Deco{"deco mirror v", fmt.Sprintf("grid-row: %s; grid-column: %d", all, c1-1), "mirror"})
		}
		if padRows && ri[0] > 0 {
			g.Decos = append(g.Decos, Deco{"deco mirror hz", fmt.Sprintf("grid-row: %d; grid-column: %s", r0, allC), "mirror"})
		}
		if padRows && ri[1] < R && ri[1] <= rs {
			g.Decos = append(g.Decos, Deco{"deco mirror hz", fmt.Sprintf("grid-row: %d; grid-column: %s", r1-1, allC), "mirror"})
		}
	case "wrap", "mirror-edge":
		// On the box's border (a seam between the input's last cell and
		// the period that follows, or symmetric's mirror, which repeats
		// the edge), across the whole picture.
		cls, label := "deco wrap", "wrap"
		if tr.Border == "mirror-edge" {
			cls, label = "deco mirror", "mirror"
		}
		if padCols && ci[0] > 0 {
			g.Decos = append(g.Decos, Deco{cls + " v start", fmt.Sprintf("grid-row: %s; grid-column: %d", all, c0), label})
		}
		if padCols && ci[1] < C && ci[1] <= cs {
			g.Decos = append(g.Decos, Deco{cls + " v end", fmt.Sprintf("grid-row: %s; grid-column: %d", all, c1-1), label})
		}
		if padRows && ri[0] > 0 {
			g.Decos = append(g.Decos, Deco{cls + " hz start", fmt.Sprintf("grid-row: %d; grid-column: %s", r0, allC), label})
		}
		if padRows && ri[1] < R && ri[1] <= rs {
			g.Decos = append(g.Decos, Deco{cls + " hz end", fmt.Sprintf("grid-row: %d; grid-column: %s", r1-1, allC), label})
		}
	case "clamp":
		rows, cols := fmt.Sprintf("%d / %d", r0, r1), fmt.Sprintf("%d / %d", c0, c1)
		if padCols && ci[0] > 0 {
			g.Decos = append(g.Decos, Deco{"deco clamp v start", fmt.Sprintf("grid-row: %s; grid-column: %d", rows, c0), "edge"})
		}
		if padCols && ci[1] < C && ci[1] <= cs {
			g.Decos = append(g.Decos, Deco{"deco clamp v end", fmt.Sprintf("grid-row: %s; grid-column: %d", rows, c1-1), "edge"})
		}
		if padRows && ri[0] > 0 {
			g.Decos = append(g.Decos, Deco{"deco clamp hz start", fmt.Sprintf("grid-row: %d; grid-column: %s", r0, cols), "edge"})
		}
		if padRows && ri[1] < R && ri[1] <= rs {
			g.Decos = append(g.Decos, Deco{"deco clamp hz end", fmt.Sprintf("grid-row: %d; grid-column: %s", r1-1, cols), "edge"})
		}
	}
}

// hover is what hovering (or focusing) a cell highlights and says: an
// output cell names its sources, an input cell the outputs that read it.
func hover(in GridInput, i int, coord, value string) (src, info string) {
	tr := in.Trace
	if tr == nil {
		return "", coord + " = " + value
	}
	var refs, words []string
	if in.Out {
		if i >= len(tr.Sources) {
			return "", coord + " = " + value
		}
		ss := tr.Sources[i]
		for n, s := range ss {
			if n < maxHover {
				refs = append(refs, fmt.Sprintf("%s:%d", s.Input, s.Index))
			}
			if n < 6 {
				words = append(words, s.Input+coordString(unflatten(s.Index, in.Shapes[s.Input])))
			}
		}
		desc := strings.Join(words, ", ")
		if len(ss) > 6 {
			desc += fmt.Sprintf(" … (%d cells)", len(ss))
		}
		if len(ss) == 0 {
			desc = "nothing"
			if i < len(tr.Role) && tr.Role[i] == ops.RoleFill {
				desc = "the fill value"
			}
		}
		info = coord + " = " + value + "  ←  " + desc
		if tr.Winner != nil && i < len(tr.Winner) && tr.Winner[i].Index >= 0 {
			w := tr.Winner[i]
			info += "; winner " + w.Input + coordString(unflatten(w.Index, in.Shapes[w.Input]))
		}
		if i < len(tr.Role) && tr.Role[i] != "" {
			info += "  [" + ops.RoleLegend[tr.Role[i]] + "]"
		}
		return strings.Join(refs, " "), info
	}
	n := 0
	for o, ss := range tr.Sources {
		for _, s := range ss {
			if s.Input == in.Name && s.Index == i {
				if n < maxHover {
					refs = append(refs, fmt.Sprintf("out:%d", o))
				}
				n++
				break
			}
		}
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return strings.Join(refs, " "), fmt.Sprintf("%s = %s  →  read by %d output cell%s", coord, value, n, plural)
}

// maxHover bounds the cells one hover highlights (a whole-tensor sum reads
// every input cell).
const maxHover = 256

// maxDraw bounds what is drawn per tensor.
const maxDraw = 1 << 14

func corner(rank int, s Slice) string {
	if rank < 2 {
		return ""
	}
	return fmt.Sprintf("%d↓ %d→", s.RowAx, s.ColAx)
}

func unflatten(i int, shape []int) []int {
	c := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		if shape[a] > 0 {
			c[a] = i % shape[a]
			i /= shape[a]
		}
	}
	return c
}

func coordString(c []int) string {
	parts := make([]string, len(c))
	for i, v := range c {
		parts[i] = strconv.Itoa(v)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func bitsHex(t *tensor.Tensor, i int) string {
	w := t.DType.Size()
	var u uint64
	for b := w - 1; b >= 0; b-- {
		u = u<<8 | uint64(t.Data[i*w+b])
	}
	return fmt.Sprintf("0x%0*x", 2*w, u)
}
