package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// The Judge in the browser: a short sweep on this tab's CPU, with a progress
// bar, fills the table (positive, finite figures) and draws the plot; the
// kernel pages then show this tab's measurements beside the bundled ones.
func TestJudgePage(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/judge")
	waitFor(t, ctx, `document.querySelector(".judge-table tbody tr")`) // the bundled report
	// Opened here directly, the page is drawn before WebGPU answers: its
	// backend picker offers webgpu once it has (it stayed disabled, "not
	// available", while the header said available).
	waitFor(t, ctx, `fkc.gpu().done`)
	needGPU(t, ctx)
	waitFor(t, ctx, `!document.querySelector('select[name="backend"] option[value="webgpu"]').disabled`)
	if n := eval[int](t, ctx, `document.querySelectorAll(".judge-table tbody tr").length`); n < 50 {
		t.Errorf("the bundled CPU report shows %d rows", n)
	}
	// A bundled CPU kernel that splits over two workers above some size
	// draws two fitted lines, one per regime.
	eval[bool](t, ctx, `(() => { document.querySelector('.rowpick[data-key="fuel-cpu-backend/pad[F32] pad/reflect"]').click(); return true; })()`)
	waitFor(t, ctx, `document.querySelector(".plotbox figcaption b").textContent.includes("pad[F32] pad/reflect")`)
	if n := eval[int](t, ctx, `document.querySelectorAll(".plotbox svg polyline.fit").length`); n != 2 {
		t.Errorf("the bundled pad/reflect plot has %d fitted lines, want 2 (one worker, then two)", n)
	}
	screenshot(t, ctx, "judge-regimes")
	eval[bool](t, ctx, `(() => { const f = document.querySelector("form.judgectl");
		f.elements.budget.value = "4"; f.elements.kernel.value = "fuel-reference-backend/sum_all fuel-cpu-backend/pad";
		document.getElementById("judge-start").click(); return true; })()`)
	waitFor(t, ctx, `document.getElementById("judge-stop").disabled === false`)
	// The page stays live while it runs: a progress value appears.
	waitFor(t, ctx, `document.getElementById("judge-bar").value > 0`)
	waitFor(t, ctx, `/^(done|stopped)/.test(document.getElementById("judge-status").textContent)`)
	// The page drawn again at the sweep's end keeps the form as it was
	// run (it went back to a 20 s budget and no kernels).
	if got := eval[string](t, ctx, `(f => f.elements.budget.value + "|" + f.elements.kernel.value + "|" + f.elements.backend.value)(document.querySelector("form.judgectl"))`); got != "4|fuel-reference-backend/sum_all fuel-cpu-backend/pad|cpu" {
		t.Errorf("the form after the sweep: %q", got)
	}
	rows := eval[[][]string](t, ctx, `[...document.querySelectorAll(".judge-table tbody tr")].map(r => [...r.cells].map(c => c.textContent.trim()))`)
	if len(rows) == 0 {
		t.Fatal("no rows after the sweep")
	}
	fitted, moving := 0, 0
	for _, r := range rows {
		if len(r) < 6 || !strings.HasPrefix(r[0], "fuel-") {
			t.Errorf("row %q", r)
			continue
		}
		gbps, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			continue // skipped, or no fit within the budget: the row says why
		}
		fitted++
		// 0 GB/s is a fit whose time does not grow with bytes (tiny sizes
		// only, in a short budget); never negative, never infinite.
		if gbps < 0 || gbps > 1e4 || !strings.HasSuffix(r[3], "s") {
			t.Errorf("%s %s: overhead %q, %v GB/s", r[0], r[1], r[3], gbps)
		}
		if gbps > 0 {
			moving++
		}
	}
	if fitted == 0 || moving < fitted/2 {
		t.Errorf("%d fitted rows, %d with a bandwidth, of %q", fitted, moving, rows)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll(".plotbox svg circle").length`); n < 3 {
		t.Errorf("the plot has %d points", n)
	}
	if !eval[bool](t, ctx, `!!document.querySelector(".plotbox svg polyline.fit") && !!document.querySelector(".plotbox svg polyline.ceiling")`) {
		t.Error("the plot lacks the fitted line or the ceiling")
	}
	t.Logf("in-tab sweep: %d rows, %d fitted; status %q", len(rows), fitted, eval[string](t, ctx, `document.getElementById("judge-status").textContent`))
	screenshot(t, ctx, "judge")
	open(t, ctx, "#/k/fuel-reference-backend%2Fsum_all")
	waitFor(t, ctx, `document.querySelector("#measured tbody tr")`)
	devices := eval[string](t, ctx, `[...document.querySelectorAll("#measured tbody tr td:first-child")].map(c => c.textContent).join("; ")`)
	if !strings.Contains(devices, "AMD EPYC (cpu)") || !strings.Contains(devices, "(cpu)") || strings.Count(devices, "(cpu)") < 2 {
		t.Errorf("sum_all's measured rows: %q (want the bundled report and this tab's)", devices)
	}
	screenshot(t, ctx, "kernel-measured")
}
