package e2e

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// foldPage is Learn padding with the 2-D widths spelled out: a 4×5 input
// padded rows 1:2, columns 2:2 (a 7×9 grad_out).
const foldPage = "#/learn/padding?rows=4&cols=5&rb=1&ra=2&cb=2&ca=2"

// foldCell is one grad_in cell as drawn: its value and its computed colour.
type foldCell struct {
	Mode  string `json:"mode"`
	Value string `json:"value"`
	Color string `json:"color"`
}

// The backward heat maps of one picture share one colour scale: a count
// has one colour in every mode's panel (constant's single folds are as
// pale as reflect's), and the legend spans the largest count of them all,
// each swatch the colour of the cells of its count.
func TestFoldHeatOneScale(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, foldPage)
	waitFor(t, ctx, `document.querySelector('.mode[data-mode="reflect"] .gridbox[data-grid="fold-reflect"] .cell')`)
	cells := eval[[]foldCell](t, ctx, `[...document.querySelectorAll('.mode[data-mode] .gridbox[data-grid^="fold-"] .cell')].map(c => ({
		mode: c.closest(".mode").dataset.mode, value: c.querySelector(".v").textContent, color: getComputedStyle(c).backgroundColor}))`)
	colorOf := map[string]string{} // count → colour
	modes := map[string]bool{}
	top := 0
	for _, c := range cells {
		modes[c.Mode] = true
		n, err := strconv.Atoi(c.Value)
		if err != nil {
			t.Fatalf("%s: a grad_in cell of ones' backward reads %q", c.Mode, c.Value)
		}
		top = max(top, n)
		if was, ok := colorOf[c.Value]; ok && was != c.Color {
			t.Errorf("count %s is %s in one panel and %s in %s's", c.Value, was, c.Color, c.Mode)
		}
		colorOf[c.Value] = c.Color
	}
	if len(modes) != 5 || top != 9 {
		t.Fatalf("folds drawn for %d modes, largest count %d; want 5 modes and reflect's 9", len(modes), top)
	}
	if colorOf["1"] == colorOf["9"] {
		t.Errorf("counts 1 and 9 have the same colour %s", colorOf["1"])
	}
	// The legend: its range is the largest count over the panels, and its
	// swatches are the cells' colours.
	type swatch struct {
		N     string `json:"n"`
		Color string `json:"color"`
	}
	legend := eval[[]swatch](t, ctx, `[...document.querySelectorAll(".heatlegend li")].map(li => ({n: li.dataset.n, color: getComputedStyle(li.querySelector(".sw")).backgroundColor}))`)
	if len(legend) == 0 {
		t.Fatal("the backward heat maps have no legend")
	}
	if last := legend[len(legend)-1].N; last != strconv.Itoa(top) {
		t.Errorf("the legend ends at %s, the panels' largest count is %d", last, top)
	}
	if m := eval[string](t, ctx, `document.querySelector(".heatlegend").dataset.max`); m != strconv.Itoa(top) {
		t.Errorf("the legend's data-max is %s, want %d", m, top)
	}
	for _, s := range legend {
		if c, ok := colorOf[s.N]; ok && c != s.Color {
			t.Errorf("the legend's ×%s is %s, its cells are %s", s.N, s.Color, c)
		}
	}

	// A kernel page's pad_backward picture has the legend too, on the
	// counts it draws (reflect 2:2 on 4×5: 9 at most).
	open(t, ctx, "#/k/fuel-cpu-backend%2Fpad_backward_f32?flags=--mode%20reflect%20--padding%202:2,2:2&grad_out=8,9|F32|values|1&run=cpu")
	waitFor(t, ctx, `document.querySelector("#visual .heatlegend")`)
	if m := eval[string](t, ctx, `document.querySelector("#visual .heatlegend").dataset.max`); m != "9" {
		t.Errorf("the kernel page's heat legend reaches %s, want 9", m)
	}
}

// reflectIndex is where reflect padding reads coordinate i of an axis of
// n cells (the mirror passes through the edge cell, which is not repeated).
func reflectIndex(i, n int) int {
	for i < 0 || i >= n {
		if i < 0 {
			i = -i
		}
		if i >= n {
			i = 2*(n-1) - i
		}
	}
	return i
}

// Hovering (or focusing) a grad_in cell of Learn padding's reflect fold
// lights exactly the grad_out cells that fold into it — the set computed
// here from the reflect formula — and nothing in the other modes' panels.
func TestFoldHoverLightsSources(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, foldPage)
	const rows, cols, rb, cb, outRows, outCols = 4, 5, 1, 2, 4 + 1 + 2, 5 + 2 + 2
	panel := `.mode[data-mode="reflect"]`
	waitFor(t, ctx, `document.querySelector('`+panel+` .gridbox[data-grid="fold-reflect"] .cell')`)
	if n := eval[int](t, ctx, `document.querySelectorAll('`+panel+` .gridbox[data-grid="grad_out"] .cell').length`); n != outRows*outCols {
		t.Fatalf("the reflect fold draws %d grad_out cells, want %d", n, outRows*outCols)
	}
	want := make([][]int, rows*cols) // grad_in flat index → grad_out flat indices
	for i := range outRows {
		for j := range outCols {
			src := reflectIndex(i-rb, rows)*cols + reflectIndex(j-cb, cols)
			want[src] = append(want[src], i*outCols+j)
		}
	}
	lit := func(how string, k int) []int {
		got := eval[[]string](t, ctx, fmt.Sprintf(`(() => {
			const c = document.querySelector('%s .gridbox[data-grid="fold-reflect"] .cell[data-i="%d"]');
			if (%q === "focus") c.focus(); else c.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
			return [...document.querySelectorAll('%s .gridbox[data-grid="grad_out"] .cell.src')].map(c => c.dataset.i);
		})()`, panel, k, how, panel))
		var is []int
		for _, s := range got {
			n, _ := strconv.Atoi(s)
			is = append(is, n)
		}
		slices.Sort(is)
		return is
	}
	for k := range rows * cols {
		if got := lit("hover", k); !slices.Equal(got, want[k]) {
			t.Errorf("hovering grad_in[%d,%d] lights grad_out cells %v, want %v", k/cols, k%cols, got, want[k])
		}
	}
	// From the keyboard: grad_in[1,2] gathers 3×3 = 9 cells.
	if got := lit("focus", 1*cols+2); !slices.Equal(got, want[1*cols+2]) || len(got) != 9 {
		t.Errorf("focusing grad_in[1,2] lights %v, want the 9 cells %v", got, want[1*cols+2])
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll(".cell.src")].filter(c => !c.closest('`+panel+`')).length`); n != 0 {
		t.Errorf("%d cells outside the reflect panel are lit", n)
	}
	// And back: a grad_out cell lights the one grad_in cell it folds into
	// (grad_out[0,0] is x[1,2] under reflect 1 row, 2 columns).
	got := eval[[]string](t, ctx, `(() => {
		document.querySelector('`+panel+` .gridbox[data-grid="grad_out"] .cell[data-i="0"]').dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
		return [...document.querySelectorAll(".cell.src")].map(c => c.closest(".gridbox").dataset.grid + ":" + c.dataset.i);
	})()`)
	if fmt.Sprint(got) != fmt.Sprintf("[fold-reflect:%d]", 1*cols+2) {
		t.Errorf("hovering grad_out[0,0] lights %v, want grad_in[1,2] alone", got)
	}
	// The picture: reflect's grad_in[1,2] hovered, its nine grad_out cells
	// lit, the legend above (fold-hover-top.png is that screenful).
	eval[bool](t, ctx, `(() => {
		document.activeElement.blur();
		document.querySelector(".heatlegend").closest("section").scrollIntoView();
		scrollBy(0, -90);
		document.querySelector('`+panel+` .gridbox[data-grid="fold-reflect"] .cell[data-i="7"]').dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
		return true;
	})()`)
	screenshot(t, ctx, "fold-hover")
}
