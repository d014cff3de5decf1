package playground

import (
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// The diff of two runs says whether each output is what the contract
// allows, naming the bound (verify.Bound, as fkc verify compares): "27 of
// 40 differ; max 14 ULP" said nothing of whether that was allowed.
func TestDiffVerdict(t *testing.T) {
	s := site(t)
	pad, ok := rowNamed(s, "fuel-cpu-backend/pad")
	if !ok {
		t.Fatal("no fuel-cpu-backend/pad")
	}
	cs, _ := DefaultCase(pad, tensor.F32)
	r := s.Try(pad, cs, []string{"cpu", "cpu"}, fixedClock{}, noLock)
	t.Log(r.Diff.Verdict)
	if r.Diff == nil || !r.Diff.Within || !strings.Contains(r.Diff.Verdict, "Within the contract") || !strings.Contains(r.Diff.Verdict, "bit for bit") || !strings.Contains(r.Diff.Verdict, "cpu's pad: bitwise") {
		t.Fatalf("pad on the CPU twice: %+v", r.Diff)
	}
	// A mover one bit off is outside; a sum a few ULP off is within the
	// any-order bound, and far off is outside it.
	flip := func(x *tensor.Tensor, i int, by float64) *tensor.Tensor {
		y := x.Clone()
		y.Set(i, by)
		return y
	}
	c := *r.Call
	c.Inputs = r.Inputs
	runs := []RunResult{r.Runs[0], r.Runs[1]}
	runs[1].Backend, runs[1].Out = "webgpu", flip(runs[0].Out, 3, 1)
	if v, within := s.verdict(&c, runs); within || !strings.Contains(v, "Outside the contract") || !strings.Contains(v, "webgpu: [3]") {
		t.Errorf("pad one element off: %v %q", within, v)
	}

	sum, ok := rowNamed(s, "/sum_dim")
	if !ok {
		t.Skip("no fuel-cpu-backend/sum_dim")
	}
	cs, _ = DefaultCase(sum, tensor.F32)
	x := cs.Inputs["x"]
	x.Kind, x.Lo, x.Hi = "uniform", -1, 1
	cs.Inputs["x"] = x
	r = s.Try(sum, cs, []string{"cpu", "cpu"}, fixedClock{}, noLock)
	if r.Diff == nil || !r.Diff.Within {
		t.Fatalf("sum on the CPU twice: %+v %+v", r.Diff, r.Runs)
	}
	c = *r.Call
	c.Inputs = r.Inputs
	runs = []RunResult{r.Runs[0], r.Runs[1]}
	v0 := runs[0].Out.At(0)
	runs[1].Backend, runs[1].Out = "webgpu", flip(runs[0].Out, 0, float64(math.Nextafter32(float32(v0), float32(math.Inf(1)))))
	if v, within := s.verdict(&c, runs); !within || !strings.Contains(v, "within |got − ref| ≤ m·2^-24·Σ|terms|") {
		t.Errorf("sum one ULP off: %v %q", within, v)
	}
	runs[1].Out = flip(runs[0].Out, 0, v0+0.5)
	if v, within := s.verdict(&c, runs); within || !strings.Contains(v, "Outside the contract") {
		t.Errorf("sum 0.5 off: %v %q", within, v)
	}
}

// rowNamed is the first kernel whose ID ends in id.
func rowNamed(s *Site, id string) (KernelRow, bool) {
	for _, r := range s.Rows() {
		if strings.HasSuffix(r.ID, id) && r.Backend == "Cpu" {
			return r, true
		}
	}
	return KernelRow{}, false
}

// The picture says how it knows each cell's source, in words a reader can
// follow: "Provenance: ran pad on a U32 tensor of flat indices" appeared
// under every run of an F32 input and said nothing of why.
func TestProvenanceSaysWhatItMeans(t *testing.T) {
	s := site(t)
	pad, ok := rowNamed(s, "fuel-cpu-backend/pad")
	if !ok {
		t.Fatal("no fuel-cpu-backend/pad")
	}
	cs, _ := DefaultCase(pad, tensor.F32)
	html, err := Render("visual", s.Try(pad, cs, []string{"cpu"}, fixedClock{}, noLock).Visual(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := "How the page knows where each cell came from: pad ran a second time, on a U32 tensor holding each x cell&#39;s own flat index (0, 1, 2, …), so each output cell names the x cell it copied."
	if !strings.Contains(html, want) || strings.Contains(html, "Provenance:") {
		t.Errorf("the picture's note:\n%s\nwant %q", html[:min(len(html), 600)], want)
	}
}

// A run's error names the Try-it field to fix: the page marks it and puts
// the message beside it (it sat under the buttons).
func TestErrorField(t *testing.T) {
	s := site(t)
	pad, ok := rowNamed(s, "fuel-cpu-backend/pad")
	if !ok {
		t.Fatal("no fuel-cpu-backend/pad")
	}
	try := func(q string) *TryResult {
		vals, _ := url.ParseQuery(q)
		p, err := s.KernelPage(pad.ID, vals)
		if err != nil {
			t.Fatal(err)
		}
		return s.Try(pad, p.Try.Case, []string{"cpu"}, fixedClock{}, noLock)
	}
	for q, want := range map[string]string{
		"flags=--mode reflect --padding 5:5,0:0&x=4,5|F32|arange":             "padding", // past reflect's n − 1
		"flags=--mode constant --padding 1:1&x=4,5|F32|arange":                "padding", // one axis for rank 2
		"flags=--mode constant --padding 1:1,1:1 --value 300&x=4,5|U8|arange": "value",
		"flags=--mode constant --padding 1:1,1:1&x=4,5|Q8|arange":             "x.dtype",
	} {
		r := try(q)
		got := r.ErrField
		if len(r.Runs) > 0 {
			got = r.Runs[0].Field
		}
		if got != want {
			t.Errorf("%s: the error (%q %+v) is about field %q, want %q", q, r.Err, r.Runs, got, want)
		}
	}
	r := try("flags=--mode constant --padding 1:1,1:1&x=4,5|F32|random|seed=abc|lo=0|hi=3")
	if r.ErrField != "x.seed" {
		t.Errorf("a bad seed (%q) is about field %q", r.Err, r.ErrField)
	}
}
