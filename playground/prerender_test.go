package playground

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
)

func staticPages(t *testing.T) (*Site, map[string]StaticPage) {
	t.Helper()
	s, err := StaticSite()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := s.StaticPages()
	if err != nil {
		t.Fatal(err)
	}
	byRoute := map[string]StaticPage{}
	for _, p := range pages {
		if _, dup := byRoute[p.Route]; dup {
			t.Fatalf("route %s drawn twice", p.Route)
		}
		byRoute[p.Route] = p
	}
	return s, byRoute
}

// The pages drawn at build time: goldens of a GPU kernel's (its link and
// Try it being checked, nothing claimed), the lab's index (its "Your
// contract" part waiting for the stored document) and the fragment's
// wrapping; every kernel has its page, at a name app.js asks for.
func TestGoldenPrerendered(t *testing.T) {
	s, pages := staticPages(t)
	page := func(route string) func() (string, error) {
		return func() (string, error) {
			p, ok := pages[route]
			if !ok {
				t.Fatalf("no page for %s", route)
			}
			return p.Fragment(), nil
		}
	}
	golden(t, "pre-kernel-pad-reflect-vulkan", page("/k/fuel-vulkan-kernels/pad_reflect_b4"))
	golden(t, "pre-kernel-pad", page("/k/fuel-cpu-backend/pad"))
	golden(t, "pre-lab-index", page("/lab"))
	golden(t, "pre-api", page("/api"))

	// app.js fetches "pre" + the route with each segment URI-escaped; the
	// server serves plain names only: a route is of the characters that
	// need no escape and make no dotfile.
	plain := regexp.MustCompile(`^(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)+$`)
	for r, p := range pages {
		if !plain.MatchString(r) || p.File() != "pre"+r+".html" {
			t.Errorf("route %q (file %q) is not a plain path", r, p.File())
		}
		if !strings.HasSuffix(p.Title, " — fkc playground") || strings.TrimSpace(p.HTML) == "" {
			t.Errorf("%s: title %q, %d bytes", r, p.Title, len(p.HTML))
		}
	}
	for _, r := range s.Rows() {
		if _, ok := pages["/k/"+r.ID]; !ok {
			t.Errorf("kernel %s has no prerendered page", r.ID)
		}
	}
	for _, r := range []string{"/learn/padding", "/api", "/judge", "/lab", "/lab/puzzles"} {
		if _, ok := pages[r]; !ok {
			t.Errorf("no prerendered page for %s", r)
		}
	}
	meta := Routes([]StaticPage{pages["/api"], pages["/k/fuel-cpu-backend/pad"]})
	if meta != `<meta name="fkc-prerendered" content="/api /k/fuel-cpu-backend/pad">` {
		t.Errorf("route list %s", meta)
	}
}

// A page drawn at build time is the page the app draws on arrival (WebGPU
// not answered yet, the bundled Judge fits) wherever it does not depend on
// the GPU links: every CPU kernel's page byte for byte, Learn padding, the
// API page, the Judge and the puzzle list. A GPU kernel's page claims no
// link status; the app's says it is linked.
func TestPrerenderedAsTheAppDraws(t *testing.T) {
	_, pages := staticPages(t)
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	reports, err := BundledSummaries()
	if err != nil {
		t.Fatal(err)
	}
	app := &Site{Eng: e, Reports: reports}
	cpu := 0
	for _, r := range app.Rows() {
		p := pages["/k/"+r.ID]
		if r.Backend != engine.CPU.Contract() {
			for _, claim := range []string{"not linked", "Not linked", "docs only", "WebGPU is not available"} {
				if strings.Contains(p.HTML, claim) {
					t.Errorf("%s (a GPU kernel) is prerendered saying %q", r.ID, claim)
				}
			}
			if !strings.Contains(p.HTML, "checking this browser's WebGPU") {
				t.Errorf("%s (a GPU kernel): its prerendered page does not say WebGPU is being checked", r.ID)
			}
			continue
		}
		kp, err := app.KernelPage(r.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Render("kernel", kp)
		if err != nil {
			t.Fatal(err)
		}
		if p.HTML != want {
			t.Errorf("%s: the prerendered page differs from the app's", r.ID)
		}
		cpu++
	}
	if cpu < 20 {
		t.Fatalf("only %d CPU kernel pages compared", cpu)
	}
	same := func(route, name string, data any) {
		want, err := Render(name, data)
		if err != nil {
			t.Fatal(err)
		}
		if pages[route].HTML != want {
			t.Errorf("%s: the prerendered page differs from the app's", route)
		}
	}
	same("/learn/padding", "padding", app.PaddingPage(DefaultPadding))
	same("/api", "api", APIPage(TabMaxElems, TabMaxResultBytes))
	same("/lab/puzzles", "lab-puzzles", PuzzleList())
	// The Judge as wasm/judge.go's judgePage opens it in a fresh tab.
	full, err := BundledReports()
	if err != nil {
		t.Fatal(err)
	}
	jp := NewJudgePage(full[0], nil, "")
	jp.Bundled, jp.Shown = contracts.JudgeReports(), contracts.JudgeReports()[0]
	same("/judge", "judge", jp)
}
