package playground

import (
	"bytes"
	"flag"
	"github.com/fkc-playground/fkc/lab"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/")

// fixedClock makes a run's timing part of the golden page reproducible:
// every Since reads 2 µs, the resolution is 5 µs.
type fixedClock struct{}

func (fixedClock) Now() time.Time                { return time.Unix(0, 0) }
func (fixedClock) Since(time.Time) time.Duration { return 2 * time.Microsecond }
func (fixedClock) Resolution() time.Duration     { return 5 * time.Microsecond }
func noLock() func()                             { return func() {} }

func site(t *testing.T) *Site {
	t.Helper()
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	reports, err := BundledReports()
	if err != nil {
		t.Fatal(err)
	}
	return &Site{Eng: e, GPU: GPUState{Done: true, Reason: "no WebGPU in a native test"}, Reports: reports}
}

// golden compares a rendered page with testdata/NAME.html (rewritten with
// -update), and checks the page is stable: rendering twice gives the same.
func golden(t *testing.T, name string, render func() (string, error)) {
	t.Helper()
	got, err := render()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	again, _ := render()
	if again != got {
		t.Fatalf("%s: two renders differ", name)
	}
	path := filepath.Join("testdata", name+".html")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./playground -run Golden -update)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		a, b := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := 0; i < len(a) || i < len(b); i++ {
			var x, y string
			if i < len(a) {
				x = a[i]
			}
			if i < len(b) {
				y = b[i]
			}
			if x != y {
				t.Fatalf("%s differs from %s at line %d:\nwant: %.300s\ngot:  %.300s\n(go test ./playground -run Golden -update rewrites it)", name, path, i+1, x, y)
			}
		}
	}
}

func TestGoldenPages(t *testing.T) {
	s := site(t)
	golden(t, "catalog", func() (string, error) { return Render("catalog", s.CatalogPage(Filter{})) })
	golden(t, "catalog-filtered", func() (string, error) {
		return Render("catalog", s.CatalogPage(ParseFilter(url.Values{"op": {"pad"}, "reg": {"1"}})))
	})
	golden(t, "api", func() (string, error) { return Render("api", APIPage(1<<27, 256<<20)) })
	golden(t, "judge", func() (string, error) {
		reports, _ := BundledReports()
		p := NewJudgePage(reports[0], nil, "")
		p.Bundled, p.Shown = contracts.JudgeReports(), contracts.JudgeReports()[0]
		return Render("judge", p)
	})
	golden(t, "judge-compare", func() (string, error) {
		reports, _ := BundledReports()
		return Render("judge-results", NewJudgePage(reports[0], reports[0], "fuel-reference-backend/gather[F32,U32] gather"))
	})
	golden(t, "learn-padding", func() (string, error) { return Render("padding", s.PaddingPage(DefaultPadding)) })
	golden(t, "learn-padding-reflect-too-wide", func() (string, error) {
		q := url.Values{"n": {"4"}, "b": {"4"}, "a": {"1"}, "rows": {"2"}, "cols": {"3"}, "rb": {"2"}, "ra": {"0"}, "cb": {"1"}, "ca": {"1"}}
		return Render("padding", s.PaddingPage(ParsePaddingParams(q.Get)))
	})
	golden(t, "lab-index", func() (string, error) { return Render("lab-index", s.LabIndex(nil)) })
	golden(t, "lab-puzzles", func() (string, error) { return Render("lab-puzzles", PuzzleList()) })
	golden(t, "lab-puzzle-wrap", func() (string, error) {
		z, err := lab.PuzzleNamed("wrap")
		if err != nil {
			return "", err
		}
		k, err := lab.Find(s.Eng, z.Kernels[0])
		if err != nil {
			return "", err
		}
		return Render("lab", NewPuzzlePage(z, s.Eng, k, z.Stub()))
	})
	for _, c := range []struct{ name, id string }{
		{"kernel-pad", "fuel-cpu-backend/pad"},                              // pad family, a mode-unified CPU kernel
		{"kernel-pad-reflect-vulkan", "fuel-vulkan-kernels/pad_reflect_b4"}, // a GPU kernel fixing its mode, without WebGPU
		{"kernel-masked-fill", "fkc-cpu-kernels/masked_fill"},               // masked_fill
		{"kernel-sum-all", "fuel-reference-backend/sum_all"},                // reduce family, with lint findings (DuplicateKernelRef)
		{"kernel-gather", "fuel-reference-backend/gather"},                  // index family
		{"kernel-describe-only", "fuel-cpu-backend/pad_reflect_cpu"},        // registrable: false
	} {
		golden(t, c.name, func() (string, error) {
			p, err := s.KernelPage(c.id, nil)
			if err != nil {
				return "", err
			}
			return Render("kernel", p)
		})
	}
}

// A kernel page after runs: the results, the cost values, the grids with
// their decorations and hover data, a contract violation.
func TestGoldenRuns(t *testing.T) {
	s := site(t)
	run := func(id, query string) func() (string, error) {
		return func() (string, error) {
			q, _ := url.ParseQuery(query)
			p, err := s.KernelPage(id, q)
			if err != nil {
				return "", err
			}
			r := s.Try(p.Row, p.Try.Case, []string{"cpu"}, fixedClock{}, noLock)
			res, err := Render("results", r)
			if err != nil {
				return "", err
			}
			var vis string
			if v := r.Visual(nil); v != nil {
				if vis, err = Render("visual", v); err != nil {
					return "", err
				}
			}
			var costs []string
			for _, c := range r.PageCosts() {
				costs = append(costs, c.Name+" = "+FmtNum(c.Value, strings.Contains(c.Name, "bytes")))
			}
			return res + "\n<!-- costs: " + strings.Join(costs, "; ") + " -->\n" + vis, nil
		}
	}
	golden(t, "run-pad-reflect", run("fuel-cpu-backend/pad", "flags=--mode reflect --padding 2:2,2:2&x=4,5|F32|arange"))
	golden(t, "run-pad-backward", run("fuel-cpu-backend/pad_backward_f32", ""))
	golden(t, "run-argmax", run("fuel-reference-backend/argmax_dim", ""))
	golden(t, "run-index-add", run("fuel-reference-backend/index_add", ""))
	golden(t, "run-violation", run("fuel-cpu-backend/pad", "flags=--mode reflect --padding 4:4,0:0&x=4,5|F32|arange"))
	// the own modes, wider than n: circular's wrap seams, symmetric's mirror on the border
	golden(t, "run-pad-circular", run("fkc-cpu-kernels/pad_circular", "flags=--mode circular --padding 3:1,2:6&x=2,3|F32|arange"))
	golden(t, "run-pad-symmetric", run("fkc-cpu-kernels/pad_symmetric", "flags=--mode symmetric --padding 3:1,2:6&x=2,3|F32|arange"))
}

// The authoring page: a valid seed (flattened: the RebuiltNesting info), the
// same seed with one broken line (its finding beside that line), a kernel
// page and a run over the pasted document.
func TestGoldenAuthor(t *testing.T) {
	src, err := contracts.FS.ReadFile("seeds/fuel-cpu-backend.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	authored := func(file string, src []byte) (*Authored, *Site) {
		a := Author(file, src)
		return a, &Site{Eng: engine.NewWith(a.Reg, engine.Limits{}), GPU: GPUState{Done: true, Reason: "no WebGPU in a native test"}, Home: AuthorHome}
	}
	a, s := authored("fuel-cpu-backend.fkc.md", src)
	golden(t, "author-seed", func() (string, error) { return Render("author", s.AuthorPage(a)) })
	golden(t, "author-kernel", func() (string, error) {
		p, err := s.KernelPage("fuel-cpu-backend/pad", nil)
		if err != nil {
			return "", err
		}
		return Render("kernel", p)
	})
	golden(t, "author-run", func() (string, error) {
		p, err := s.KernelPage("fuel-cpu-backend/pad", nil)
		if err != nil {
			return "", err
		}
		return Render("results", s.Try(p.Row, p.Try.Case, []string{"cpu"}, fixedClock{}, noLock))
	})

	const line = 76 // dtypes: [U8, U32, BF16, F16, F32, F64]
	lines := strings.Split(string(src), "\n")
	lines[line-1] = strings.Replace(lines[line-1], "F64]", "F99]", 1)
	b, sb := authored("broken.fkc.md", []byte(strings.Join(lines, "\n")))
	if r := sb.AuthorResult(b); r.Errors != 1 || len(r.Lines[line-1].Findings) != 1 || !strings.Contains(r.Lines[line-1].Findings[0].Msg, `unknown dtype "F99"`) {
		t.Errorf("the broken line %d shows %+v (%d errors in the document)", line, r.Lines[line-1], r.Errors)
	}
	golden(t, "author-broken", func() (string, error) { return Render("author-result", sb.AuthorResult(b)) })
}

// web/static/index.html carries the catalog as the app draws it at
// start-up, and the list of prerendered routes (go generate ./web): a change to the contracts, the links or the
// templates shows here until it is regenerated.
func TestPrerenderedCatalogIsFresh(t *testing.T) {
	page, err := os.ReadFile("../web/static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Index(string(page))
	if err != nil {
		t.Fatal(err)
	}
	if string(page) != want {
		t.Fatal("web/static/index.html's catalog or route list is stale: run go generate ./web")
	}
}

// judge_summaries.json is what go generate ./web writes from the bundled
// reports now, and reads back as the reports' fits.
func TestJudgeSummariesAreFresh(t *testing.T) {
	want, err := JudgeSummaries()
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(judgeSummaries) {
		t.Fatal("playground/judge_summaries.json is stale: go generate ./web rewrites it")
	}
	sums, err := BundledSummaries()
	if err != nil {
		t.Fatal(err)
	}
	full, err := BundledReports()
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != len(full) || len(sums) == 0 {
		t.Fatalf("%d summaries, %d reports", len(sums), len(full))
	}
	for i, r := range full {
		s := sums[i]
		if s.Marked() != r.Marked() || len(s.Kernels) != len(r.Kernels) {
			t.Fatalf("summary %d: %s with %d kernels, report %s with %d", i, s.Marked(), len(s.Kernels), r.Marked(), len(r.Kernels))
		}
		for j, k := range r.Kernels {
			if sk := s.Kernels[j]; sk.ID() != k.ID() || sk.Variant != k.Variant || sk.Points != nil || sk.Measured() != k.Measured() {
				t.Errorf("%s %s: summary %q, report %q", k.ID(), k.Variant, sk.Measured(), k.Measured())
			}
		}
	}
}
