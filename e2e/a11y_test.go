package e2e

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// axe is axe-core's source (e2e/node_modules, from `npm ci` in e2e/, which
// scripts/setup-test-deps.sh runs).
func axe(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("node_modules/axe-core/axe.min.js")
	if err != nil {
		t.Skipf("axe-core is not installed (cd e2e && npm ci; make test does it): %v", err)
	}
	return string(b)
}

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []string `json:"target"`
		HTML   string   `json:"html"`
	} `json:"nodes"`
}

// TestAccessibility runs the axe-core engine on the pages a visitor uses
// most (the catalog, a kernel page after a run, the padding page, the
// authoring page, the scripting API): no serious or critical violation of
// WCAG 2 A/AA. Lesser findings are logged.
func TestAccessibility(t *testing.T) {
	src := axe(t)
	ctx := tab(t, nil)
	for _, page := range []struct{ name, hash, ready string }{
		{"catalog", "#/", `document.querySelector("tr.krow")`},
		{"kernel after a run", "#/k/fuel-cpu-backend%2Fpad?flags=--mode%20reflect%20--padding%202:2,2:2&x=4,5|F32|arange&run=cpu", `document.querySelector("#visual .gridbox.out .cell")`},
		{"learn padding", "#/learn/padding", `document.querySelector(".mode .cell")`},
		{"your contract", "#/author", `document.querySelector("main h1")`},
		{"scripting API", "#/api", `document.querySelector("main h1")`},
		{"the Judge", "#/judge", `document.querySelector(".judge-table")`},
		{"kernel lab", "#/lab", `document.querySelector("ul.labks a")`},
		{"kernel puzzles", "#/lab/puzzles", `document.querySelector("ol.puzzles a")`},
		{"a puzzle", "#/lab/puzzles/gather", `document.getElementById("lab-code")`},
	} {
		open(t, ctx, page.hash)
		waitFor(t, ctx, page.ready)
		checkAxe(t, ctx, src, page.name)
	}
	// The lab's editor with a failing case drawn (a reflect kernel that
	// never writes: every cell marked).
	open(t, ctx, "#/lab/fuel-vulkan-kernels%2Fpad_reflect_b4")
	waitFor(t, ctx, `document.getElementById("lab-code")`)
	setCode(t, ctx, strings.Replace(labTemplate(t, reflectID), "        out[t] = elem(t).x;\n", "", 1))
	labRun(t, ctx)
	waitFor(t, ctx, `document.querySelector("#lab-fail .gridbox .cell")`)
	checkAxe(t, ctx, src, "kernel lab, a failing case")
}

// checkAxe runs axe-core (src) on the page in ctx: a serious or critical
// violation fails the test, lesser ones are logged.
func checkAxe(t *testing.T, ctx context.Context, src, name string) {
	t.Helper()
	eval[bool](t, ctx, src+"\n;true")
	vs := eval[[]axeViolation](t, ctx, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then(r => r.violations)`)
	for _, v := range vs {
		where := []string{}
		for i, n := range v.Nodes {
			if i == 3 {
				where = append(where, "…")
				break
			}
			where = append(where, strings.Join(n.Target, " ")+" "+short(n.HTML))
		}
		msg := name + ": " + v.Impact + " " + v.ID + " (" + v.Help + ") at " + strings.Join(where, "; ")
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	t.Logf("%s: %d axe findings", name, len(vs))
}

// The grids work from the keyboard: one tab stop per grid, arrow keys move
// between cells, and focus shows where a cell came from as hover does.
func TestGridKeyboard(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/fuel-cpu-backend%2Fpad?flags=--mode%20reflect%20--padding%202:2,2:2&x=4,5|F32|arange&run=cpu")
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	if n := eval[int](t, ctx, `document.querySelectorAll('#visual .gridbox.out .cell[tabindex="0"]').length`); n != 1 {
		t.Fatalf("the output grid has %d tab stops, want 1", n)
	}
	eval[bool](t, ctx, `document.querySelector('#visual .gridbox.out .cell[tabindex="0"]').focus(), true`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowDown)); err != nil {
		t.Fatal(err)
	}
	got := eval[string](t, ctx, `document.activeElement.dataset.i + " " + document.getElementById("hoverinfo").textContent`)
	// out[1,1] of the 8×9 output is flat 10; reflect pad 2 maps it to x[1,1].
	if !strings.HasPrefix(got, "10 out[1,1] = 6  ←  x[1,1]") {
		t.Errorf("after → ↓ the focus is on %q, want out[1,1] read from x[1,1]", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#visual .gridbox[data-grid="x"] .cell.src').length`); n != 1 {
		t.Errorf("%d input cells lit for a focused output cell, want 1", n)
	}
}
