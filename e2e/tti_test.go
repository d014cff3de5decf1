package e2e

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTimeToInteractive is a benchmark, not a pass/fail timer: five fresh
// loads of the catalog (each in a new browser context: no cache, no
// compiled-wasm reuse), and the median time from navigation start to the
// moment Go has rendered the catalog and its filter answers input. The
// figure is printed; the test fails only if the page does not get there.
func TestTimeToInteractive(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	var tti, kernel []float64
	for range 5 {
		ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
		c := tab(t, ctx)
		open(t, c, "#/")
		tti = append(tti, eval[float64](t, c, `fkc.timing.interactiveMs`))
		t.Logf("load: %v; app.wasm fetched %v", eval[map[string]float64](t, c, `fkc.timing`),
			eval[map[string]float64](t, c, `(() => { const r = performance.getEntriesByType("resource").find(e => e.name.endsWith("/app.wasm")); const nav = performance.getEntriesByType("navigation")[0];
				return r ? {domContentLoaded: nav.domContentLoadedEventEnd, fetchStart: r.fetchStart, responseStart: r.responseStart, responseEnd: r.responseEnd, bytes: r.encodedBodySize} : {}; })()`))
		// A kernel page, from a click on the catalog.
		kernel = append(kernel, eval[float64](t, c, `new Promise(r => {
			const t0 = performance.now();
			document.querySelector("tr.krow a").click();
			const check = () => document.querySelector("#try .cell, #try .tryform") ? r(performance.now() - t0) : requestAnimationFrame(check);
			check(); })`))
		cancel()
	}
	slices.Sort(tti)
	slices.Sort(kernel)
	t.Logf("time to interactive catalog: median %.0f ms of 5 fresh loads %v; a kernel page %.0f ms after a click (median) %v", tti[2], round(tti), kernel[2], round(kernel))
}

func round(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x + 0.5)
	}
	return out
}
