package playground

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/registry"
)

// AuthorHome is the authoring page ("Your contract"): an FKC document
// pasted or dropped there is loaded by the same loader, linter and registry
// as the built-in contracts, and its kernels get pages under
// AuthorHome/k/NAME, rendered from a Site over that document alone.
const AuthorHome = "#/author"

// DefaultAuthorFile names a pasted document until the user names it.
const DefaultAuthorFile = "contract.fkc.md"

// Source listing bounds: the page lists every line of a document up to
// maxListed lines (the largest seed has 1,700); past that, the lines with
// findings and a little context around them. A line shows at most
// maxLineRunes characters. So a document at the loader's caps (262,144
// lines, 8 MiB on one line) renders in bounded time and markup.
const (
	maxListed    = 5000
	listContext  = 2
	maxLineRunes = 400
)

// Authored is one pasted document, loaded.
type Authored struct {
	File  string
	Src   []byte
	Doc   *contract.Document    // nil: the loader refused it (over its size caps)
	Reg   *registry.Registry    // over Doc alone
	Diags []contract.Diagnostic // the loader's, then the registry's
	Canon []byte                // what `fkc fmt` writes (nil when FmtErr)
	// FmtErr is why `fkc fmt` refuses the text (not UTF-8, NUL bytes,
	// over the caps).
	FmtErr string
}

// Author loads src as the document file, as `fkc lint` and `fkc fmt` would.
func Author(file string, src []byte) *Authored {
	a := &Authored{File: file, Src: src}
	a.Doc, a.Diags = contract.Parse(file, src)
	docs := []*contract.Document{}
	if a.Doc != nil {
		docs = append(docs, a.Doc)
	}
	a.Reg = registry.Build(docs)
	a.Diags = append(append(append([]contract.Diagnostic(nil), a.Diags...), a.Reg.Diags...), contracts.UnknownOpKinds(docs)...)
	a.Diags = contract.CapFindings(a.Diags)
	if c, err := contract.Format(src); err != nil {
		a.FmtErr = err.Error()
	} else {
		a.Canon = c
	}
	return a
}

// Refused is a document the page did not read, with the reason as a
// finding coded as contract.LoadFile codes it: TooLarge (a paste over
// contract.MaxFileBytes is refused before a byte of it is copied into Go),
// or Read (a file that is not text: TextOf).
func Refused(file string, err error) *Authored {
	code := "Read"
	if tl := (*contract.TooLarge)(nil); errors.As(err, &tl) {
		code = "TooLarge"
	}
	return &Authored{File: file, Reg: registry.Build(nil), FmtErr: err.Error(),
		Diags: []contract.Diagnostic{{File: file, Line: 1, Severity: "error", Code: code, Msg: err.Error()}}}
}

// TextOf checks an opened file before it goes into the editor: within the
// loader's size cap, UTF-8, no NUL byte (an FKC document is markdown text;
// a binary file is refused with where it stops being text).
func TextOf(file string, b []byte) (string, error) {
	// Over the caps (bytes or lines) before the text goes anywhere: a huge
	// file in the editor costs the browser seconds of layout before the
	// loader would refuse it.
	if err := contract.CheckSize(file, b); err != nil {
		return "", err
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return "", fmt.Errorf("%s is not a text file: byte %d is NUL (an FKC document is markdown)", file, i)
	}
	if !utf8.Valid(b) {
		n := 0
		for n < len(b) {
			r, w := utf8.DecodeRune(b[n:])
			if r == utf8.RuneError && w == 1 {
				break
			}
			n += w
		}
		return "", fmt.Errorf("%s is not UTF-8 text: byte %d is not UTF-8 (an FKC document is markdown)", file, n)
	}
	return string(b), nil
}

// AuthorPage is the authoring page: the editor and what the loader says.
type AuthorPage struct {
	File, Text string
	Result     AuthorResult
}

// AuthorResult is the part of the page that follows the text: the
// findings line by line, fmt's verdict and the document's kernels.
type AuthorResult struct {
	File                    string
	Empty                   bool // nothing pasted yet
	Loaded                  bool // the loader read the document (not refused)
	Errors, Warnings, Infos int
	Findings                []Finding
	Rebuilt                 string // what the loader re-nested (RebuiltNesting): "the front matter and 9 fkc blocks"
	Lines                   []SourceLine
	Listed, Total           int // source lines shown, in the document
	After                   int // lines left out after the last one shown
	Kernels                 Catalog
	// Erring are the kernels a finding of severity error concerns (their
	// sections may not run as written); the kernel list says so.
	Erring   []string
	FmtErr   string
	FmtLines int // lines `fkc fmt` would re-indent
	// Marks are the editor's gutter: one per line with findings, in order.
	Marks []GutterMark
}

// GutterMark marks a line of the editor that has findings: its gravest
// severity and the findings in words (the mark's tooltip).
type GutterMark struct {
	N     int
	Sev   string
	Title string
}

// Top is the mark's offset in the editor: lines of editorLineEm each,
// past the editor's top border and padding.
func (m GutterMark) Top() template.CSS {
	return template.CSS(fmt.Sprintf("calc(1px + 0.5em + %d * %gem)", m.N-1, editorLineEm))
}

// editorLineEm is the editor's line height in its own em (style.css's
// #author-src font: 0.85em/1.4): the gutter sets its marks by it.
const editorLineEm = 1.4

// SourceLine is one line of the listing with the findings at it.
type SourceLine struct {
	N        int
	Text     string
	Cut      int // characters past maxLineRunes, not shown
	Gap      int // lines left out just before this one
	Sev      string
	Findings []contract.Diagnostic
}

// Summary is the findings counted, in words.
func (r AuthorResult) Summary() string {
	return fmt.Sprintf("%s, %s, %s", count(r.Errors, "error"), count(r.Warnings, "warning"), count(r.Infos, "info"))
}

// Status is the page's one-line live summary.
func (r AuthorResult) Status() string {
	switch {
	case r.Empty:
		return "Nothing pasted yet."
	case !r.Loaded:
		return r.File + ": not loaded — " + r.Summary()
	}
	st := fmt.Sprintf("%s: %s; %s", r.File, r.Summary(), count(r.Kernels.Total, "kernel"))
	if r.Errors > 0 && r.Kernels.Total > 0 {
		st += " — fix the errors before running them"
	}
	return st
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// AuthorPage builds the page for a (s is the Site over a's registry).
func (s *Site) AuthorPage(a *Authored) AuthorPage {
	return AuthorPage{File: a.File, Text: string(a.Src), Result: s.AuthorResult(a)}
}

// AuthorResult builds the findings, listing, fmt verdict and kernel list.
func (s *Site) AuthorResult(a *Authored) AuthorResult {
	r := AuthorResult{File: a.File, Loaded: a.Doc != nil, FmtErr: a.FmtErr}
	if a.Doc != nil && len(bytes.TrimSpace(a.Src)) == 0 {
		r.Empty = true
		return r
	}
	lines := strings.Split(string(a.Src), "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the final newline ends the last line
	}
	at := map[int][]contract.Diagnostic{} // by line; one past the end (a count of the rest) on the last
	for _, d := range a.Diags {
		switch d.Severity {
		case "error":
			r.Errors++
		case "warning":
			r.Warnings++
		default:
			r.Infos++
		}
		f := Finding{Diagnostic: d}
		for _, k := range d.Kernels {
			f.Kernels = append(f.Kernels, k.String())
		}
		r.Findings = append(r.Findings, f)
		at[min(max(d.Line, 1), len(lines))] = append(at[min(max(d.Line, 1), len(lines))], d)
	}
	if a.Doc == nil {
		return r
	}
	r.Rebuilt = rebuiltWhat(a.Doc.Rebuilt)
	r.Total = len(lines)
	show := func(int) bool { return true }
	if len(lines) > maxListed {
		near := map[int]bool{}
		for n := range at {
			for i := n - listContext; i <= n+listContext; i++ {
				near[i] = true
			}
		}
		show = func(n int) bool { return n <= 20 || near[n] }
	}
	last := 0
	for i, text := range lines {
		n := i + 1
		if !show(n) {
			continue
		}
		l := SourceLine{N: n, Gap: n - last - 1, Findings: at[n]}
		last = n
		l.Text, l.Cut = cutRunes(strings.TrimSuffix(text, "\r"), maxLineRunes)
		for _, d := range l.Findings {
			if severityRank(d.Severity) > severityRank(l.Sev) {
				l.Sev = d.Severity
			}
		}
		r.Lines = append(r.Lines, l)
	}
	r.Listed, r.After = len(r.Lines), r.Total-last
	r.Marks = gutterMarks(at)
	seen := map[string]bool{}
	for _, d := range a.Diags {
		for _, k := range d.Kernels {
			if d.Severity == "error" && !seen[k.Kernel] {
				seen[k.Kernel] = true
				r.Erring = append(r.Erring, k.Kernel)
			}
		}
	}
	if a.Canon != nil {
		canon := strings.Split(string(a.Canon), "\n")
		for i, l := range strings.Split(string(a.Src), "\n") {
			if i < len(canon) && canon[i] != l {
				r.FmtLines++
			}
		}
	}
	r.Kernels = s.CatalogPage(Filter{})
	return r
}

// gutterMarks are the editor's marks for the findings by line.
func gutterMarks(at map[int][]contract.Diagnostic) []GutterMark {
	var ms []GutterMark
	for n, ds := range at {
		m := GutterMark{N: n}
		var words []string
		for _, d := range ds {
			if severityRank(d.Severity) > severityRank(m.Sev) {
				m.Sev = d.Severity
			}
			words = append(words, d.Severity+": "+d.Msg)
		}
		m.Title = fmt.Sprintf("line %d: %s", n, strings.Join(words, "; "))
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b GutterMark) int { return a.N - b.N })
	return ms
}

// rebuiltWhat says what the loader re-nested, from Document.Rebuilt
// ("front matter", "block pad", …).
func rebuiltWhat(regions []string) string {
	var parts []string
	blocks := 0
	for _, r := range regions {
		if strings.HasPrefix(r, "block ") {
			blocks++
		} else {
			parts = append(parts, "the "+r)
		}
	}
	if blocks > 0 {
		parts = append(parts, count(blocks, "fkc block"))
	}
	return strings.Join(parts, " and ")
}

func severityRank(sev string) int {
	switch sev {
	case "error":
		return 3
	case "warning":
		return 2
	case "info":
		return 1
	}
	return 0
}

// cutRunes keeps the first max characters of s, and says how many it cut.
func cutRunes(s string, max int) (string, int) {
	if len(s) <= max {
		return s, 0
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, 0
	}
	i, k := 0, 0
	for k < max {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		k++
	}
	return s[:i], n - max
}
