package e2e

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
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
// authoring page, the scripting API, the Judge, the lab), in the light
// theme and in the dark one (prefers-color-scheme: dark): no serious or
// critical violation of WCAG 2 A/AA. Lesser findings are logged. Both
// themes of the main pages are saved as screenshots (light-…, dark-…).
func TestAccessibility(t *testing.T) {
	src := axe(t)
	for _, scheme := range []string{"light", "dark"} {
		ctx := tab(t, nil) // a tab per theme: each has its own time limit
		if err := chromedp.Do(ctx, colorScheme(scheme)); err != nil {
			t.Fatal(err)
		}
		for _, page := range []struct{ name, hash, ready, shot string }{
			{"catalog", "#/", `document.querySelector("tr.krow")`, "catalog"},
			{"kernel after a run", "#/k/fuel-cpu-backend%2Fpad?flags=--mode%20reflect%20--padding%202:2,2:2&x=4,5|F32|arange&run=cpu", `document.querySelector("#visual .gridbox.out .cell")`, "kernel"},
			{"learn padding", "#/learn/padding", `document.querySelector(".mode .cell")`, "learn-padding"},
			{"your contract", "#/author", `document.querySelector("main h1")`, "author"},
			{"scripting API", "#/api", `document.querySelector("main h1")`, ""},
			{"the Judge", "#/judge", `document.querySelector(".judge-table")`, "judge"},
			{"kernel lab", "#/lab", `document.querySelector("ul.labks a")`, ""},
			{"kernel puzzles", "#/lab/puzzles", `document.querySelector("ol.puzzles a")`, ""},
			{"a puzzle", "#/lab/puzzles/gather", `document.getElementById("lab-code")`, ""},
		} {
			open(t, ctx, page.hash)
			waitFor(t, ctx, page.ready)
			if scheme == "dark" {
				checkDark(t, ctx, page.name)
			}
			if page.shot != "" {
				screenshot(t, ctx, scheme+"-"+page.shot)
			}
			checkAxe(t, ctx, src, page.name+" ("+scheme+")")
		}
		// The lab's editor with a failing case drawn (a reflect kernel that
		// never writes: every cell marked).
		open(t, ctx, "#/lab/fuel-vulkan-kernels%2Fpad_reflect_b4")
		waitFor(t, ctx, `document.getElementById("lab-code")`)
		setCode(t, ctx, strings.Replace(labTemplate(t, reflectID), "        out[t] = elem(t).x;\n", "", 1))
		labRun(t, ctx)
		waitFor(t, ctx, `document.querySelector("#lab-fail .gridbox .cell")`)
		checkAxe(t, ctx, src, "kernel lab, a failing case ("+scheme+")")
		screenshot(t, ctx, scheme+"-lab-failing-case")
		// Your contract with findings: a seed with an unknown dtype (an
		// error at its line, an info at line 1, the gutter's marks).
		seed, err := os.ReadFile("../contracts/seeds/fuel-cpu-backend.fkc.md")
		if err != nil {
			t.Fatal(err)
		}
		open(t, ctx, "#/author")
		waitFor(t, ctx, `document.getElementById("author-src")`)
		paste(t, ctx, strings.Replace(string(seed), "F64]", "F99]", 1))
		waitFor(t, ctx, `document.querySelector(".srclist tr.has-error")`)
		checkAxe(t, ctx, src, "your contract, with findings ("+scheme+")")
		screenshot(t, ctx, scheme+"-author-findings")
	}
}

// colorScheme emulates prefers-color-scheme (light or dark) in the tab.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// checkDark checks the page in ctx is drawn in the dark theme: the media
// query matches and the page's background is dark (relative luminance
// under 0.05), so the dark pass cannot run on light pages unnoticed.
func checkDark(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	lum := eval[float64](t, ctx, `(() => {
		if (!matchMedia("(prefers-color-scheme: dark)").matches) return -1;
		const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/[\d.]+/g).map(Number).map(v => v / 255)
			.map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
		return 0.2126 * r + 0.7152 * g + 0.0722 * b;
	})()`)
	if lum < 0 || lum > 0.05 {
		t.Errorf("%s: not drawn dark (prefers-color-scheme: dark matches: %v; background luminance %.3f)", name, lum >= 0, lum)
	}
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
