package playground

import (
	"fmt"
	"strings"

	"github.com/fkc-playground/fkc/engine"
)

// The catalog is drawn into web/static/index.html at build time (go
// generate ./web), by this code natively, so a visitor sees it at once —
// before the browser has compiled the WASM app, whose Go takes the page
// over as soon as it runs (and redraws the list once WebGPU answers). A
// test keeps the file in step with what the app would draw.

// The markers around the prerendered catalog in index.html.
const (
	PrerenderStart = "<!-- catalog: go generate ./web -->"
	PrerenderEnd   = "<!-- /catalog -->"
)

// Prerender draws the catalog as the app draws it at start-up: no filter,
// WebGPU not yet answered.
func Prerender() (string, error) {
	e, err := engine.New()
	if err != nil {
		return "", err
	}
	return Render("catalog", (&Site{Eng: e}).CatalogPage(Filter{}))
}

// SplicePrerendered puts html between the markers of page.
func SplicePrerendered(page, html string) (string, error) {
	i, j := strings.Index(page, PrerenderStart), strings.Index(page, PrerenderEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("index.html lacks the markers %q … %q", PrerenderStart, PrerenderEnd)
	}
	return page[:i+len(PrerenderStart)] + "\n" + html + "\n" + page[j:], nil
}
