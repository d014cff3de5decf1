package playground

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
)

func authorSite(a *Authored) *Site {
	return &Site{Eng: engine.NewWith(a.Reg, engine.Limits{}), Home: AuthorHome}
}

// Every finding of a seed sits on its line in the listing, and the counts
// add up: the registry's findings (DuplicateKernelRef) as well as the
// loader's.
func TestAuthorFindingsAtTheirLines(t *testing.T) {
	src, err := contracts.FS.ReadFile("seeds/fuel-reference-reduce.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	a := Author("reduce.md", src)
	r := authorSite(a).AuthorResult(a)
	if r.Errors == 0 || r.Errors+r.Warnings+r.Infos != len(a.Diags) || len(a.Reg.Diags) == 0 {
		t.Fatalf("counts %d/%d/%d for %d findings (%d from the registry)", r.Errors, r.Warnings, r.Infos, len(a.Diags), len(a.Reg.Diags))
	}
	if n := len(strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")); r.Listed != r.Total || r.Total != n {
		t.Errorf("listed %d of %d lines; the document has %d", r.Listed, r.Total, n)
	}
	placed := 0
	for _, l := range r.Lines {
		for _, d := range l.Findings {
			if d.Line != l.N {
				t.Errorf("finding of line %d listed at line %d", d.Line, l.N)
			}
			placed++
		}
		if (l.Sev != "") != (len(l.Findings) > 0) {
			t.Errorf("line %d: severity %q with %d findings", l.N, l.Sev, len(l.Findings))
		}
	}
	if placed != len(a.Diags) {
		t.Errorf("%d of %d findings placed on lines", placed, len(a.Diags))
	}
	if r.FmtErr != "" || r.FmtLines != 0 {
		t.Errorf("a canonically indented seed: fmt would change %d lines (%s)", r.FmtLines, r.FmtErr)
	}
	if r.Kernels.Total != len(a.Doc.Kernels) || !strings.HasPrefix(r.Kernels.Providers[0].Rows[0].Href, AuthorHome+"/k/") {
		t.Errorf("kernels %d (document has %d), first link %q", r.Kernels.Total, len(a.Doc.Kernels), r.Kernels.Providers[0].Rows[0].Href)
	}
}

// Input the loader refuses or that is not text gets its error, and a huge
// document lists a bounded number of lines.
func TestAuthorBadInput(t *testing.T) {
	big := Refused("big.md", &contract.TooLarge{File: "big.md", Size: contract.MaxFileBytes, MoreThan: true})
	r := authorSite(big).AuthorResult(big)
	if r.Loaded || r.Errors != 1 || !strings.Contains(r.Findings[0].Msg, "at most 8388608 bytes") || big.FmtErr == "" {
		t.Errorf("a refused paste: %+v", r)
	}
	over := Author("over.md", []byte(strings.Repeat("x\n", contract.MaxLines+1)))
	if r := authorSite(over).AuthorResult(over); r.Loaded || r.Findings[0].Code != "TooLarge" {
		t.Errorf("a document over MaxLines: %+v", r.Findings)
	}
	// 30,000 sections with no inputs: the loader's findings (capped) and
	// one FanOut finding each from the registry, which the loader's cap
	// did not bound (31,001 findings listed, a frozen tab). At most MaxDiagnostics are listed, then one counts the
	// rest, the loader's own count included.
	var many strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&many, "## k%d\n\n```fkc\nkernel: k%d\nop_kind: Pad\nregistrable: true\nbackend: Cpu\n```\n", i, i)
	}
	a := Author("many.md", []byte(many.String()))
	var rest int
	if len(a.Diags) == contract.MaxDiagnostics+1 {
		fmt.Sscanf(a.Diags[len(a.Diags)-1].Msg, "%d more findings", &rest)
	}
	if rest < 30000 {
		t.Errorf("30,000 sections: %d findings, the last %+v", len(a.Diags), a.Diags[len(a.Diags)-1])
	}
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{[]byte("---\nfkc_version: 1\x00\n"), "byte 18 is NUL"},
		{[]byte("# title\n\xff\xfe"), "byte 8 is not UTF-8"},
		{make([]byte, contract.MaxFileBytes+1), "8 MiB"},
	} {
		if _, err := TextOf("f.md", c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("TextOf(%.12q…) = %v, want an error saying %q", c.b, err, c.want)
		}
	}
	var tl *contract.TooLarge
	if _, err := TextOf("f.md", make([]byte, contract.MaxFileBytes+1)); !errors.As(err, &tl) {
		t.Errorf("an oversized file: %v, want a *contract.TooLarge", err)
	}
	if s, err := TextOf("f.md", []byte("é\n")); err != nil || s != "é\n" {
		t.Errorf("TextOf(text) = %q, %v", s, err)
	}

	// 200,000 lines: findings at the start (no front matter) and at a
	// broken block far down, next to a line 1 MB long.
	lines := make([]string, 200000)
	for i := range lines {
		lines[i] = "prose"
	}
	copy(lines[150000:], []string{"## broken", "```fkc", "kernel: [", "```", strings.Repeat("é", 1<<19)})
	huge := Author("huge.md", []byte(strings.Join(lines, "\n")))
	hr := authorSite(huge).AuthorResult(huge)
	if !hr.Loaded || hr.Listed > 100 || hr.Total != len(lines) || hr.After == 0 {
		t.Fatalf("a 200,000-line document lists %d lines (of %d, %d after)", hr.Listed, hr.Total, hr.After)
	}
	far, gap, cut := false, false, false
	for _, l := range hr.Lines {
		if len([]rune(l.Text)) > maxLineRunes {
			t.Errorf("line %d shows %d characters", l.N, len([]rune(l.Text)))
		}
		far = far || (l.N > 150000 && len(l.Findings) > 0)
		gap = gap || l.Gap > 100000
		cut = cut || l.Cut == 1<<19-maxLineRunes
	}
	if !far || !gap || !cut {
		t.Errorf("the listing lacks the far finding (%v), the gap before it (%v) or the cut long line (%v): %+v", far, gap, cut, huge.Diags)
	}
	if _, err := Render("author-result", hr); err != nil {
		t.Fatal(err)
	}
}

func TestCutRunes(t *testing.T) {
	for _, c := range []struct {
		s       string
		max     int
		want    string
		wantCut int
	}{{"abc", 3, "abc", 0}, {"abcd", 3, "abc", 1}, {"ééé", 3, "ééé", 0}, {"éééé", 2, "éé", 2}, {"", 1, "", 0}} {
		if got, cut := cutRunes(c.s, c.max); got != c.want || cut != c.wantCut {
			t.Errorf("cutRunes(%q, %d) = %q, %d; want %q, %d", c.s, c.max, got, cut, c.want, c.wantCut)
		}
	}
}
