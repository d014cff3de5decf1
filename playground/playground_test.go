package playground

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

func mk(t *testing.T, g ops.Gen) *tensor.Tensor {
	t.Helper()
	x, err := g.Make()
	if err != nil {
		t.Fatal(err)
	}
	return x
}

type Gen = ops.Gen

func TestCompare(t *testing.T) {
	a := mk(t, Gen{Shape: "4", DType: "F32", Kind: "values", Values: "1 -0 nan 2"})
	b := a.Clone()
	if d := Compare(a, b); d.BitEqual != 4 || d.Summary != "bitwise identical (4 elements)" {
		t.Fatalf("%+v", d)
	}
	b.Set(1, 0)                               // +0 vs -0: bits differ, 0 ULP apart
	b.Set(3, float64(math.Nextafter32(2, 3))) // 1 ULP
	if d := Compare(a, b); d.BitEqual != 2 || d.MaxULP != 1 || len(d.Mismatch) != 2 {
		t.Fatalf("%+v", d)
	} else if m := d.Mismatch[1]; m.A != "2" || m.B != "2.0000002" || m.ABits != "0x40000000" || m.BBits != "0x40000001" {
		t.Fatalf("a 1-ULP mismatch is shown as %+v; it must tell the two apart", m)
	}
	h := mk(t, Gen{Shape: "2", DType: "BF16", Kind: "values", Values: "1 1"})
	h2 := h.Clone()
	h2.U16()[1]++ // next bf16
	if d := Compare(h, h2); d.MaxULP != 1 {
		t.Fatalf("bf16 %+v", d)
	}
	if d := Compare(a, h); d.Summary == "" || d.Elems != 0 {
		t.Fatalf("%+v", d)
	}
}

// A share link's or the form's seed, lo or hi that does not parse makes
// the run fail with the field named, instead of running with 0 (a seed of
// "abc" ran as seed 0 and the link was rewritten to seed=0).
func TestGenFieldsThatDoNotParse(t *testing.T) {
	for _, c := range []struct {
		g    ops.Gen
		want string
	}{
		{DecodeGen("4|F32|random|seed=abc|lo=0|hi=3"), `seed "abc" is not a non-negative integer`},
		{DecodeGen("4|F32|random|seed=-1|lo=0|hi=3"), `seed "-1" is not a non-negative integer`},
		{DecodeGen("4|F32|uniform|seed=1|lo=0|hi=zz"), `hi "zz" is not a number`},
		{DecodeGen("4|F32|random|seed=1|lo=nan|hi=3"), "finite ends"},
	} {
		if _, err := c.g.Make(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.g, err, c.want)
		}
	}
	if g := DecodeGen("4|F32|random|seed=7|lo=-2|hi=3"); g.Bad != "" || g.Seed != 7 || g.Lo != -2 || g.Hi != 3 {
		t.Errorf("a good link: %+v", g)
	}
	// Written back (the page rewrites the address after a run, and Share
	// copies it), a bad link keeps the user's text and so its error: it was
	// rewritten to seed=0 (hi=1e400 to hi=+Inf), which then ran silently.
	for _, link := range []string{"4|F32|random|seed=abc|lo=0|hi=3", "4|F32|uniform|seed=1|lo=x|hi=1e400", "4|F32|random|seed=7|lo=-2|hi=3"} {
		if got := EncodeGen(DecodeGen(link)); got != link {
			t.Errorf("EncodeGen(DecodeGen(%q)) = %q", link, got)
		}
	}
	// A form's seed "1|2" (no number) written into a link stays no number:
	// its '|' would have ended the field, leaving seed=1 to run silently.
	g := FromForm(KernelRow{Op: "sum"}, map[string]string{"x.shape": "4", "x.dtype": "F32", "x.kind": "random", "x.seed": "1|2", "x.lo": "0", "x.hi": "3"}).Inputs["x"]
	if back := DecodeGen(EncodeGen(g)); back.Bad == "" {
		t.Errorf("seed 1|2 written as %q read back as %+v", EncodeGen(g), back)
	}
}

// A picker event's values come from the page, which a script can set to
// anything: Fit keeps a slice inside its tensor (a fixed coordinate of
// 99999 on a rank-4 result panicked when the grid was drawn).
func TestSliceFit(t *testing.T) {
	shape := []int{2, 3, 4, 5}
	for _, c := range []struct{ in, want Slice }{
		{Slice{RowAx: 2, ColAx: 3, Fixed: []int{1, 99999, 0, 0}}, Slice{RowAx: 2, ColAx: 3, Fixed: []int{1, 2, 0, 0}}},
		{Slice{RowAx: 0, ColAx: 1, Fixed: []int{-7, 0, 3, 4}}, Slice{RowAx: 0, ColAx: 1, Fixed: []int{0, 0, 3, 4}}},
		{Slice{RowAx: 9, ColAx: 3, Fixed: []int{0, 0, 0, 0}}, Slice{RowAx: 2, ColAx: 3, Fixed: []int{0, 0, 0, 0}}},
		{Slice{RowAx: 1, ColAx: 1, Fixed: []int{0, 0, 0, 0}}, Slice{RowAx: 2, ColAx: 3, Fixed: []int{0, 0, 0, 0}}},
		{Slice{RowAx: 2, ColAx: 3, Fixed: []int{0}}, DefaultSlice(4)},
	} {
		if got := c.in.Fit(shape); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%+v.Fit: %+v, want %+v", c.in, got, c.want)
		}
	}
	if got := (Slice{RowAx: -1, ColAx: 0, Fixed: []int{5}}).Fit([]int{0}); fmt.Sprint(got) != fmt.Sprint(Slice{RowAx: -1, ColAx: 0, Fixed: []int{0}}) {
		t.Errorf("an empty axis: %+v", got)
	}
}

// A catalog link whose op, backend, dtype or determinism is none of the
// choices says so and leaves that filter out (it showed "0 of 75" while
// every select read "any").
func TestCatalogIgnoresUnknownFilterValues(t *testing.T) {
	s := site(t)
	c := s.CatalogPage(ParseFilter(url.Values{"op": {"nonexistent"}, "dtype": {"F99"}, "backend": {"Cpu"}}))
	if c.Filter.Op != "" || c.Filter.DType != "" || c.Filter.Backend != "Cpu" || len(c.Ignored) != 2 {
		t.Fatalf("filter %+v, ignored %q", c.Filter, c.Ignored)
	}
	all := s.CatalogPage(ParseFilter(url.Values{"backend": {"Cpu"}}))
	if c.Shown == 0 || c.Shown != all.Shown {
		t.Errorf("%d shown, want the backend filter's %d", c.Shown, all.Shown)
	}
	html, err := Render("catalog", c)
	if err != nil || !strings.Contains(html, `This link's op &#34;nonexistent&#34;, dtype &#34;F99&#34; match none of the choices; those filters are not applied.`) {
		t.Errorf("no note in the page (%v)", err)
	}
}

// The page takes what a NumPy user types: a negative --dim and I64
// indices. The form's values become a share link that restores them as
// written; the run converts and resolves (said beside the kernel line);
// the picture traces the axis -1 names, as the kernel read it.
func TestTryNegativeDimAndI64Indices(t *testing.T) {
	s := site(t)
	p, err := s.KernelPage("fuel-reference-backend/gather", nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := FromForm(p.Row, map[string]string{"dim": "-1",
		"data.shape": "3,4", "data.dtype": "F32", "data.kind": "arange",
		"indices.shape": "3,2", "indices.dtype": "I64", "indices.kind": "values", "indices.values": "3 0 1 2 0 0"})
	q, err := url.ParseQuery(ShareQuery(cs, []string{"cpu"}))
	if err != nil {
		t.Fatal(err)
	}
	p, err = s.KernelPage("fuel-reference-backend/gather", q)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Try.Case.Flags, " "); got != "--dim -1" {
		t.Errorf("share link restores flags %q", got)
	}
	r := s.Try(p.Row, p.Try.Case, []string{"cpu"}, fixedClock{}, noLock)
	if r.Err != "" || len(r.Runs) != 1 || r.Runs[0].Error != "" {
		t.Fatalf("run: %q %+v", r.Err, r.Runs)
	}
	run := r.Runs[0]
	if want := []float32{3, 0, 5, 6, 8, 8}; fmt.Sprint(run.Out.F32()) != fmt.Sprint(want) { // np.take_along_axis(arange(12).reshape(3,4), idx, -1)
		t.Errorf("out %v, want %v", run.Out.F32(), want)
	}
	if got := strings.Join(run.Resolved, "; "); got != "dim -1 → 1; indices I64 → U32" {
		t.Errorf("resolved %q", got)
	}
	html, err := Render("results", r)
	if err != nil || !strings.Contains(html, "; dim -1 → 1</span>") || !strings.Contains(html, "; indices I64 → U32</span>") {
		t.Errorf("the served line does not say what was resolved (%v):\n%s", err, html)
	}
	if r.Trace == nil || r.TraceError != "" {
		t.Fatalf("trace: %q", r.TraceError)
	}
	// Output cell [1,1] reads data[1,2]: the axis is 1, the index 2.
	if got := r.Trace.Sources[3]; fmt.Sprint(got) != "[{data 6} {indices 3}]" {
		t.Errorf("out[1,1] traced to %v", got)
	}
}

// A reduction's picture marks the axis a negative dim names (traced as
// written, --dim -1 was refused by the trace's own dim check).
func TestTraceNegativeDim(t *testing.T) {
	s := site(t)
	p, err := s.KernelPage("fuel-reference-backend/sum_dim", nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := FromForm(p.Row, map[string]string{"dim": "-1", "x.shape": "2,3", "x.dtype": "F32", "x.kind": "arange"})
	r := s.Try(p.Row, cs, []string{"cpu"}, fixedClock{}, noLock)
	if r.Err != "" || len(r.Runs) != 1 || r.Runs[0].Error != "" || fmt.Sprint(r.Runs[0].Out.F32()) != "[3 12]" {
		t.Fatalf("run: %q %+v", r.Err, r.Runs)
	}
	if r.Trace == nil || fmt.Sprint(r.Trace.Reduced) != "[1]" {
		t.Errorf("trace %+v (%q): want axis 1 reduced", r.Trace, r.TraceError)
	}
}

// Try it and the scripting-API page describe a fill in the same words, from
// ops.Fills: the API page said fkc.bench's "random" was quarter steps in
// [-8, 8) while Try it's drew integers in [lo, hi] (by default [0, 0]).
func TestFillsDescribedOnce(t *testing.T) {
	s := site(t)
	p, err := s.KernelPage("fuel-cpu-backend/pad", nil)
	if err != nil {
		t.Fatal(err)
	}
	kernel, err := Render("kernel", p)
	if err != nil {
		t.Fatal(err)
	}
	api, err := Render("api", APIPage(1<<28, 1<<28))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ops.Fills {
		if f.Form && !strings.Contains(kernel, "<dd>"+f.Help+"</dd>") {
			t.Errorf("Try it does not describe fill %s as %q", f.Name, f.Help)
		}
		if f.Script && !strings.Contains(api, f.Help) {
			t.Errorf("the API page does not describe fill %s as %q", f.Name, f.Help)
		}
	}
	if strings.Contains(api, "quarter steps") {
		t.Error("the API page still describes another random fill")
	}
}
