package playground

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// The "Learn padding" page: every pad mode of these contracts (the mode
// table, kernels.PadModes) side by side on one input — a 1-D strip and a
// 2-D grid, each computed by the real CPU kernels and traced like a Try-it
// run — the reflect precondition shown live, the backward fold of each mode
// as a heat map, and the names other libraries give the modes.

// PaddingParams are the page's controls (they live in its URL).
type PaddingParams struct {
	N, Before, After                   int // the 1-D strip
	Rows, Cols, RowB, RowA, ColB, ColA int // the 2-D grid
}

// DefaultPadding is where the page starts: wide enough to show every mode's
// character, narrow enough that reflect still holds.
var DefaultPadding = PaddingParams{N: 5, Before: 3, After: 2, Rows: 4, Cols: 5, RowB: 1, RowA: 2, ColB: 2, ColA: 2}

// paddingBounds keep the page's tensors small enough to draw.
var paddingBounds = map[string][2]int{"n": {1, 12}, "b": {0, 14}, "a": {0, 14}, "rows": {1, 8}, "cols": {1, 8},
	"rb": {0, 8}, "ra": {0, 8}, "cb": {0, 8}, "ca": {0, 8}}

// ParsePadding reads the controls from a URL query (or the form's values),
// clamping each to the range the page draws.
func ParsePaddingParams(get func(string) string) PaddingParams {
	p := DefaultPadding
	for key, dst := range map[string]*int{"n": &p.N, "b": &p.Before, "a": &p.After, "rows": &p.Rows, "cols": &p.Cols,
		"rb": &p.RowB, "ra": &p.RowA, "cb": &p.ColB, "ca": &p.ColA} {
		if v, err := strconv.Atoi(get(key)); err == nil {
			lim := paddingBounds[key]
			*dst = min(max(v, lim[0]), lim[1])
		}
	}
	return p
}

// Query is the controls as a URL query.
func (p PaddingParams) Query() string {
	v := url.Values{}
	for key, x := range map[string]int{"n": p.N, "b": p.Before, "a": p.After, "rows": p.Rows, "cols": p.Cols,
		"rb": p.RowB, "ra": p.RowA, "cb": p.ColB, "ca": p.ColA} {
		v.Set(key, strconv.Itoa(x))
	}
	return v.Encode()
}

// PaddingPage is the page's model.
type PaddingPage struct {
	P        PaddingParams
	Controls []Control
	Strip    Grid        // the 1-D input
	Input    Grid        // the 2-D input
	Strips   []ModePanel // 1-D: the contracts' modes
	Grids    []ModePanel // 2-D: the contracts' modes
	Folds    []ModePanel // pad backward of ones: how many outputs fold into each input cell
	Heat     HeatScale   // the folds' one colour scale
	Names    []NameRow
	Modes    string // "constant, reflect, replicate, circular and symmetric"
}

// Control is one slider.
type Control struct {
	Key, Label, Help string
	Value, Min, Max  int
	Group            string
}

// ModePanel is one mode's picture (or why there is none).
type ModePanel struct {
	Mode, Title, What string
	In                *Grid // the panel's own input (a fold's grad_out), drawn before Grid
	Grid              *Grid
	Error, Cite, Fix  string
}

// NameRow maps one padding rule to the names libraries give it.
type NameRow struct {
	Rule, Here, NumPy, PyTorch, ONNX, TF string
}

// paddingNames is the names table, one row per mode of the mode table.
var paddingNames = func() []NameRow {
	var rows []NameRow
	for _, pm := range kernels.PadModes {
		rows = append(rows, NameRow{pm.Rule, pm.Name, pm.NumPy, pm.PyTorch, pm.ONNX, pm.TF})
	}
	return rows
}()

// PaddingPage computes the page for controls p with the engine's CPU kernels.
func (s *Site) PaddingPage(p PaddingParams) *PaddingPage {
	pg := &PaddingPage{P: p, Names: paddingNames}
	names := kernels.ModeNames()
	pg.Modes = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	pg.Controls = []Control{
		{"n", "n (strip length)", "the 1-D input's length", p.N, 1, 12, "1-D"},
		{"b", "before", "cells padded before the strip", p.Before, 0, 14, "1-D"},
		{"a", "after", "cells padded after the strip", p.After, 0, 14, "1-D"},
		{"rows", "rows", "the 2-D input's rows", p.Rows, 1, 8, "2-D"},
		{"cols", "cols", "the 2-D input's columns", p.Cols, 1, 8, "2-D"},
		{"rb", "rows before", "rows padded above", p.RowB, 0, 8, "2-D"},
		{"ra", "rows after", "rows padded below", p.RowA, 0, 8, "2-D"},
		{"cb", "cols before", "columns padded left", p.ColB, 0, 8, "2-D"},
		{"ca", "cols after", "columns padded right", p.ColA, 0, 8, "2-D"},
	}
	strip := arange(tensor.F32, p.N)
	pads1 := []kernels.Pad{{Before: p.Before, After: p.After}}
	grid := arange(tensor.F32, p.Rows, p.Cols)
	pg.Strip = NewGrid(GridInput{Name: "x", Title: "x", T: strip})
	pg.Input = NewGrid(GridInput{Name: "x", Title: "x", T: grid})
	pads2 := []kernels.Pad{{Before: p.RowB, After: p.RowA}, {Before: p.ColB, After: p.ColA}}
	var folds []fold
	var counts [][]int
	for _, pm := range kernels.PadModes {
		m := pm.Mode
		pg.Strips = append(pg.Strips, s.padPanel("strip", strip, m, pads1))
		pg.Grids = append(pg.Grids, s.padPanel("grid", grid, m, pads2))
		f := s.fold(grid, m, pads2)
		folds = append(folds, f)
		if f.trace != nil {
			counts = append(counts, foldCounts(f.trace))
		}
	}
	// One scale over every mode's panel: constant's single folds must look
	// as pale beside reflect's nines as the numbers say.
	pg.Heat = NewHeatScale(counts...)
	for _, f := range folds {
		pg.Folds = append(pg.Folds, f.panel(pg.Heat))
	}
	return pg
}

func arange(dt tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape)
	for i := range t.NumElems() {
		t.Set(i, float64(i))
	}
	return t
}

// padPanel runs one mode's pad on the CPU and draws it with its trace.
func (s *Site) padPanel(key string, x *tensor.Tensor, m kernels.Mode, pads []kernels.Pad) ModePanel {
	pm := kernels.ModeOf(m)
	panel := ModePanel{Mode: m.String(), Title: m.String(), What: pm.What}
	c := ops.Pad(x, m, pads...)
	res, err := s.Eng.Run(engine.CPU, c)
	if err != nil {
		panel.Error = err.Error()
		panel.Cite = cite(err)
		var v *kernels.Violation
		if pm.MaxPad != nil && errors.As(err, &v) {
			widest := pm.MaxPad(x.Shape[0])
			for a, p := range pads {
				if w := pm.MaxPad(x.Shape[a]); p.Before > w || p.After > w {
					widest = w
				}
			}
			panel.Fix = fmt.Sprintf("The widest %s pad on that axis is %d; %s", m, widest, anyWidth())
		}
		return panel
	}
	run := func(c *kernels.Call) (*tensor.Tensor, error) {
		r, err := s.Eng.Run(engine.CPU, c)
		if err != nil {
			return nil, err
		}
		return r.Out, nil
	}
	o, _ := ops.Lookup("pad")
	tr, err := o.Trace(run, c)
	if err != nil {
		panel.Error = err.Error()
		return panel
	}
	g := NewGrid(GridInput{Name: key + "-" + m.String(), Title: m.String(), T: res.Out, Out: true, Trace: tr,
		Shapes: map[string][]int{"x": x.Shape}, Primary: "x"})
	g.Key = g.Name
	panel.Grid = &g
	return panel
}

// fold is one mode's pad backward of ones, traced: each grad_in cell
// counts the grad_out cells that fold into it, and the trace names them.
type fold struct {
	mode          kernels.Mode
	gradOut, grad *tensor.Tensor
	trace         *ops.Trace
	err           string
}

func (s *Site) fold(x *tensor.Tensor, m kernels.Mode, pads []kernels.Pad) fold {
	f := fold{mode: m}
	out, err := kernels.PadOutShape("pad", m, x.Shape, pads)
	if err != nil {
		f.err = err.Error()
		return f
	}
	ones := tensor.New(tensor.F32, out)
	for i := range ones.F32() {
		ones.F32()[i] = 1
	}
	c := ops.PadBackward(ones, m, pads...)
	res, err := s.Eng.Run(engine.CPU, c)
	if err != nil {
		f.err = err.Error()
		return f
	}
	run := func(c *kernels.Call) (*tensor.Tensor, error) {
		r, err := s.Eng.Run(engine.CPU, c)
		if err != nil {
			return nil, err
		}
		return r.Out, nil
	}
	o, _ := ops.Lookup("pad_backward")
	tr, err := o.Trace(run, c)
	if err != nil {
		f.err = err.Error()
		return f
	}
	f.gradOut, f.grad, f.trace = ones, res.Out, tr
	return f
}

// panel draws the fold on scale h: grad_out, then grad_in coloured by its
// counts. Both grids sit in one hover scope (the panel), so a grad_in cell
// lights the grad_out cells that fold into it, and a grad_out cell the
// grad_in cell it folds into.
func (f fold) panel(h HeatScale) ModePanel {
	m := f.mode
	panel := ModePanel{Mode: m.String(), Title: m.String(), What: kernels.ModeOf(m).Fold, Error: f.err}
	if f.trace == nil {
		return panel
	}
	shapes := map[string][]int{"grad_out": f.gradOut.Shape}
	in := NewGrid(GridInput{Name: "grad_out", Title: "grad_out (ones)", T: f.gradOut, Trace: f.trace, Shapes: shapes, Primary: "grad_out"})
	in.Key = "fold-" + m.String() + "-grad_out"
	g := NewGrid(GridInput{Name: "fold-" + m.String(), Coord: "grad_in", Title: "grad_in (" + m.String() + ")", T: f.grad, Out: true,
		Trace: f.trace, Shapes: shapes, Primary: "grad_out", Heat: foldCounts(f.trace), Scale: h})
	g.Key = g.Name
	panel.In, panel.Grid = &in, &g
	return panel
}

// anyWidth names the modes that repeat the input to any width.
func anyWidth() string {
	var names []string
	for _, pm := range kernels.PadModes {
		if pm.MaxPad == nil && pm.Role != ops.RoleFill {
			names = append(names, pm.Name)
		}
	}
	return strings.Join(names, ", ") + " take any width."
}
