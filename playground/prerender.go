package playground

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
)

// Every page of the app is drawn at build time (go generate ./web draws
// the catalog into web/static/index.html; `make wasm` draws the other
// routes into web/static/pre/), by this code natively, so a visitor sees
// the page of any address at once — before the browser has compiled the
// WASM app, whose Go takes the page over as soon as it runs. Tests keep
// the files in step with what the app would draw.
//
// Natively the GPU kernels' links are unknown (kernels/gpu needs cgo
// outside the browser), and so is this browser's WebGPU: a static site's
// GPU kernels say both are being checked rather than "not linked".

// The markers around the prerendered catalog in index.html, and around
// the list of prerendered routes (a meta tag in its head, read by app.js
// before the body is parsed).
const (
	PrerenderStart = "<!-- catalog: go generate ./web -->"
	PrerenderEnd   = "<!-- /catalog -->"
	RoutesStart    = "<!-- routes: go generate ./web -->"
	RoutesEnd      = "<!-- /routes -->"
)

// Tab limits the app runs under, which the API page states: a tab's Go
// heap lives in at most 4 GiB of wasm memory, so every tensor is capped at
// 2^27 elements (512 MiB of f32); fkc.run's output must fit a JS string
// as base64 (V8: under 2^29 characters) beside Go's copies of it.
const (
	TabMaxElems       = 1 << 27
	TabMaxResultBytes = 256 << 20
)

// StaticSite is the site as the app draws it before WebGPU has answered,
// built natively: the built-in contracts and the bundled Judge fits.
func StaticSite() (*Site, error) {
	e, err := engine.New()
	if err != nil {
		return nil, err
	}
	reports, err := BundledSummaries()
	if err != nil {
		return nil, err
	}
	return &Site{Eng: e, Reports: reports, Static: true}, nil
}

// A StaticPage is one route of the app drawn at build time: Route is the
// URL hash's path, percent-escapes decoded ("/k/fuel-cpu-backend/pad"),
// Title the document's title on it, HTML what the app puts in <main>.
type StaticPage struct {
	Route, Title, HTML string
}

// File is where the page is served, relative to the static directory:
// pre/ROUTE.html. app.js fetches the same name for an address.
func (p StaticPage) File() string { return "pre" + p.Route + ".html" }

// Fragment is the file's text: a template element titled as the page,
// holding the page.
func (p StaticPage) Fragment() string {
	return `<template data-title="` + template.HTMLEscapeString(p.Title) + "\">\n" + p.HTML + "\n</template>\n"
}

// StaticPages draws every route but the catalog (in index.html) and the
// pages made of what this browser keeps (Your contract, a lab kernel's
// code, a puzzle's): each kernel page, Learn padding, the scripting API,
// the Judge, the lab's index and its puzzle list.
func (s *Site) StaticPages() ([]StaticPage, error) {
	var pages []StaticPage
	add := func(route, title, name string, data any) error {
		html, err := Render(name, data)
		if err != nil {
			return fmt.Errorf("%s: %v", route, err)
		}
		full := "fkc playground — kernel contracts you can run"
		if title != "" {
			full = title + " — fkc playground"
		}
		pages = append(pages, StaticPage{Route: route, Title: full, HTML: html})
		return nil
	}
	for _, r := range s.Rows() {
		p, err := s.KernelPage(r.ID, nil)
		if err != nil {
			return nil, err
		}
		if err := add("/k/"+r.ID, p.K.Name, "kernel", p); err != nil {
			return nil, err
		}
	}
	judgePage, err := s.StaticJudgePage()
	if err != nil {
		return nil, err
	}
	lab := s.LabIndex(nil)
	lab.MinePending = true
	for _, p := range []struct {
		route, title, name string
		data               any
	}{
		{"/learn/padding", "Learn padding", "padding", s.PaddingPage(DefaultPadding)},
		{"/api", "Scripting API", "api", APIPage(TabMaxElems, TabMaxResultBytes)},
		{"/judge", "The Judge", "judge", judgePage},
		{"/lab", "Kernel lab", "lab-index", lab},
		{"/lab/puzzles", "Kernel puzzles", "lab-puzzles", PuzzleList()},
	} {
		if err := add(p.route, p.title, p.name, p.data); err != nil {
			return nil, err
		}
	}
	return pages, nil
}

// StaticJudgePage is the Judge as a fresh tab opens it: the first bundled
// report shown, no sweep of its own.
func (s *Site) StaticJudgePage() (*JudgePage, error) {
	bundled := contracts.JudgeReports()
	reports, err := BundledReports()
	if err != nil {
		return nil, err
	}
	p := NewJudgePage(nil, nil, "")
	p.Shown = "tab"
	if len(reports) > 0 && len(bundled) > 0 {
		p = NewJudgePage(reports[0], nil, "")
		p.Shown = bundled[0]
	}
	p.GPU, p.Bundled = s.GPU, bundled
	return p, nil
}

// Routes is the meta tag listing the prerendered routes, for index.html's
// head: app.js fetches a page's file only when its route is listed (any
// other address waits for the app, with no request that could fail).
func Routes(pages []StaticPage) string {
	rs := make([]string, len(pages))
	for i, p := range pages {
		rs[i] = p.Route
	}
	return `<meta name="fkc-prerendered" content="` + template.HTMLEscapeString(strings.Join(rs, " ")) + `">`
}

// SplicePrerendered puts html between the markers of page.
func SplicePrerendered(page, html string) (string, error) {
	return splice(page, html, PrerenderStart, PrerenderEnd)
}

// SpliceRoutes puts the routes' meta tag between the routes markers.
func SpliceRoutes(page, meta string) (string, error) {
	return splice(page, meta, RoutesStart, RoutesEnd)
}

func splice(page, html, start, end string) (string, error) {
	i, j := strings.Index(page, start), strings.Index(page, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("index.html lacks the markers %q … %q", start, end)
	}
	return page[:i+len(start)] + "\n" + html + "\n" + page[j:], nil
}

// Index is index.html with the catalog and the route list drawn in.
func Index(page string) (string, error) {
	s, err := StaticSite()
	if err != nil {
		return "", err
	}
	html, err := Render("catalog", s.CatalogPage(Filter{}))
	if err != nil {
		return "", err
	}
	pages, err := s.StaticPages()
	if err != nil {
		return "", err
	}
	if page, err = SplicePrerendered(page, html); err != nil {
		return "", err
	}
	return SpliceRoutes(page, Routes(pages))
}
