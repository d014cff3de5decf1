package playground

import (
	"fmt"
	"strings"
	"testing"
)

// The heat scale spans every panel's counts; a cell's own copy is pale
// whatever the scale's top, and the legend's steps end at that top.
func TestHeatScale(t *testing.T) {
	h := NewHeatScale([]int{1, 1, 1}, []int{1, 3, 9, 2})
	if h.Min != 1 || h.Max != 9 {
		t.Fatalf("scale of counts 1…9 is %d…%d", h.Min, h.Max)
	}
	if l := h.Level(1); l != 0.12 {
		t.Errorf("level of 1 is %g, want 0.12", l)
	}
	if l := NewHeatScale([]int{1, 1}).Level(1); l != 0.12 {
		t.Errorf("level of 1 on an all-ones scale is %g, want 0.12 (nothing folds: pale)", l)
	}
	if h.Level(9) != 1 || h.Level(0) != 0 || !(h.Level(2) < h.Level(3)) {
		t.Errorf("levels 0, 2, 3, 9: %g %g %g %g", h.Level(0), h.Level(2), h.Level(3), h.Level(9))
	}
	var ns []int
	for _, s := range h.Steps() {
		ns = append(ns, s.N)
	}
	if fmt.Sprint(ns) != "[1 2 3 4 5 6 7 8 9]" {
		t.Errorf("steps %v", ns)
	}
	ns = nil
	for _, s := range NewHeatScale([]int{1, 289}).Steps() {
		ns = append(ns, s.N)
	}
	if fmt.Sprint(ns) != "[1 59 116 174 231 289]" {
		t.Errorf("steps of 1…289: %v", ns)
	}
}

// Learn padding's folds are drawn on one scale: count 1 has one style in
// every mode's panel, and the legend reaches the largest count (reflect's
// 9 at the default widths). Each fold panel draws its grad_out, whose
// cells a grad_in cell names as its sources.
func TestPaddingFoldsShareScale(t *testing.T) {
	pg := site(t).PaddingPage(DefaultPadding)
	if pg.Heat.Max != 9 {
		t.Errorf("the folds' scale tops at %d, want 9", pg.Heat.Max)
	}
	styles := map[string]map[string]bool{} // value → styles
	for _, f := range pg.Folds {
		if f.Grid == nil || f.In == nil {
			t.Fatalf("%s: fold panel without its grids (%s)", f.Mode, f.Error)
		}
		for _, r := range f.Grid.Rows {
			for _, c := range r.Cells {
				if styles[c.Value] == nil {
					styles[c.Value] = map[string]bool{}
				}
				styles[c.Value][c.Style] = true
				if !strings.HasPrefix(c.Src, "grad_out:") {
					t.Errorf("%s: grad_in cell %d names sources %q", f.Mode, c.I, c.Src)
				}
			}
		}
	}
	for v, ss := range styles {
		if len(ss) != 1 {
			t.Errorf("count %s is drawn in %d styles: %v", v, len(ss), ss)
		}
	}
}
