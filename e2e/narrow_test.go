package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// On a phone-sized screen (390 x 844) no page is wider than the screen: a
// wide table scrolls inside its own box (the catalog was 884 px wide, the
// Judge 959, a kernel page 581, the API page 719, Learn padding 567).
func TestNarrowScreen(t *testing.T) {
	ctx := tab(t, nil)
	if _, err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"", "#/judge", "#/k/fkc-wgsl-kernels%2Fsum", "#/api", "#/learn/padding", "#/k/fuel-cpu-backend%2Fpad"} {
		open(t, ctx, page)
		waitFor(t, ctx, `document.querySelector("#main h1, #main h2")`)
		if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
			wide := eval[string](t, ctx, `[...document.querySelectorAll("#main *")].filter(e => e.getBoundingClientRect().right > 392).slice(0, 3).map(e => e.tagName + "." + e.className).join(", ")`)
			t.Errorf("%q: the page is %d px wide on a 390 px screen (past the edge: %s)", page, w, wide)
		}
	}
	screenshot(t, ctx, "narrow-kernel")
}
