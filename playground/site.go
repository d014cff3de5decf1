package playground

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/judge"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// GPUState is what the page knows about WebGPU.
type GPUState struct {
	Done      bool   `json:"done"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	Adapter   string `json:"adapter,omitempty"`
}

// Word is the state in a few words, for the catalog's legend.
func (g GPUState) Word() string {
	switch {
	case g.Available:
		return "available"
	case g.Done:
		return "not available in this browser"
	}
	return "starting…"
}

// Site is the playground's view model: what every page shows, computed from
// the engine (contracts, registry, link table) and the browser's GPU state.
// The same code runs natively (golden tests, `fkc contracts --json`) and in
// the page.
type Site struct {
	Eng *engine.Engine
	GPU GPUState
	// Reports are the Judge's measurements shown beside the cost formulas.
	Reports []*judge.Report
	// Home is the page listing this site's kernels: "" for the catalog of
	// the built-in contracts, AuthorHome for the document pasted on the
	// authoring page. It decides where the kernel pages live (KernelHref).
	Home string
	// Static: the site is drawn at build time, natively, where the GPU
	// kernels' links are unknown (kernels/gpu needs cgo outside the
	// browser): a GPU kernel says its link and this browser's WebGPU are
	// being checked (RunsHere "checking") instead of "not linked".
	Static bool
}

// KernelHref is the address of a kernel's page: #/k/PROVIDER%2fNAME for
// the built-in contracts, AuthorHome/k/NAME for the pasted document (one
// document, one provider). The name is escaped as html/template escapes a
// URL fragment, so a link reads the same whether Go or a template wrote it.
func (s *Site) KernelHref(provider, name string) string {
	if s.Home == "" {
		return "#/k/" + fragEscape(provider+"/"+name)
	}
	return s.Home + "/k/" + fragEscape(name)
}

// HomeLink is the page listing the site's kernels: its title (Key) and
// address (Value).
func (s *Site) HomeLink() KV {
	if s.Home == AuthorHome {
		return KV{Key: "Your contract", Value: AuthorHome}
	}
	return KV{Key: "Catalog", Value: "#/"}
}

// fragEscape percent-escapes every byte but RFC 3986's unreserved ones,
// in lower-case hex (html/template's way).
func fragEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// KernelRow is one kernel of the catalog.
type KernelRow struct {
	ID          string   `json:"id"` // provider/kernel: names repeat across providers
	Href        string   `json:"-"`  // its page (Site.KernelHref)
	Name        string   `json:"name"`
	Provider    string   `json:"provider"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
	Backend     string   `json:"backend"`
	OpKind      string   `json:"op_kind"`
	Registrable bool     `json:"registrable"`
	DTypes      []string `json:"dtypes"` // the first input's dtypes (the fan-out)
	Determinism string   `json:"determinism"`
	Blurb       string   `json:"blurb"`
	EntryPoint  string   `json:"entry_point"`
	Linked      bool     `json:"linked"`
	Where       string   `json:"where"`
	// Op is the `fkc run` op that exercises the kernel ("" for docs only),
	// Form its variant (a pad mode the kernel fixes, a reduction's form).
	Op      string       `json:"op,omitempty"`
	Form    kernels.Form `json:"-"`
	Command string       `json:"command,omitempty"` // "fkc run pad --mode reflect"
	Lint    int          `json:"lint"`
	// RunsHere: "cpu" / "webgpu" (Try it runs this very kernel in this page),
	// "adapter" (linked, but this GPU lacks a feature it needs), "nogpu" (a
	// GPU kernel, no WebGPU here), "docs" (nothing exercises it),
	// "checking" (a GPU kernel drawn at build time: see Site.Static).
	RunsHere    string `json:"runs_here"`
	Unavailable string `json:"unavailable,omitempty"` // why, for "adapter"
}

// Rows lists every kernel of every loaded document, in document order.
func (s *Site) Rows() []KernelRow {
	lint := map[string]int{}
	for _, d := range s.Findings() {
		for _, k := range d.Kernels {
			lint[k.String()]++
		}
	}
	var rows []KernelRow
	for _, r := range s.Eng.Reg.Kernels() {
		rows = append(rows, s.row(r, lint))
	}
	return rows
}

func (s *Site) row(r registry.KernelRef, lint map[string]int) KernelRow {
	k := r.Kernel
	where, linked := s.Eng.LinkFor(k.EntryPoint)
	row := KernelRow{ID: engine.KernelID(r.Doc, k), Name: k.Name, Provider: r.Doc.Provider.Name, File: r.Doc.File, Line: k.Line,
		Backend: k.Backend, OpKind: k.OpKind, Registrable: k.Registrable, Determinism: k.Determinism, Blurb: k.Blurb,
		EntryPoint: k.EntryPoint, Linked: linked, Where: where, DTypes: []string{}, Href: s.KernelHref(r.Doc.Provider.Name, k.Name)}
	if len(k.Inputs) > 0 {
		row.DTypes = k.Inputs[0].DTypeNames
	}
	row.Lint = lint[row.ID]
	if vs := s.Eng.Exercised(k.EntryPoint); len(vs) > 0 {
		row.Op, row.Form = vs[0].Op, pageForm(vs)
		row.Command = ops.Command(kernels.Variant{Op: row.Op, Form: row.Form})
		if row.Form == kernels.FormDim || row.Form == kernels.FormOnly {
			row.Command = "fkc run " + row.Op
		}
	}
	switch {
	case s.Static && k.Backend != engine.CPU.Contract():
		row.RunsHere = "checking"
	case row.Op == "" || !linked:
		row.RunsHere = "docs"
	case k.Backend == engine.CPU.Contract():
		row.RunsHere = "cpu"
	case s.GPU.Available && s.Eng.UnavailableHere(k.EntryPoint) != "":
		row.RunsHere, row.Unavailable = "adapter", s.Eng.UnavailableHere(k.EntryPoint)
	case s.GPU.Available:
		row.RunsHere = "webgpu"
	default:
		row.RunsHere = "nogpu"
	}
	return row
}

// pageForm is the form a kernel page's Try it opens with: the one its
// kernel serves (a pad mode it fixes; all elements for an _all
// reduction); one axis for a kernel serving both reduction forms; none
// (FormOnly: the mode is the user's) for one serving every pad mode.
func pageForm(vs []kernels.Variant) kernels.Form {
	switch {
	case len(vs) == 1:
		return vs[0].Form
	case vs[0].Form == kernels.FormAll:
		return kernels.FormDim
	}
	return kernels.FormOnly
}

// Findings are the loader's and the registry's diagnostics.
func (s *Site) Findings() []contract.Diagnostic {
	var all []contract.Diagnostic
	seen := map[*contract.Document]bool{}
	for _, r := range s.Eng.Reg.Kernels() {
		if !seen[r.Doc] {
			seen[r.Doc] = true
			all = append(all, r.Doc.Diags...)
		}
	}
	return append(all, s.Eng.Reg.Diags...)
}

// Filter is the catalog's search form (it lives in the URL).
type Filter struct {
	Q, Op, Backend, DType, Det string
	Registrable, Runnable      bool
}

// ParseFilter reads a filter from the catalog URL's query.
func ParseFilter(q url.Values) Filter {
	return Filter{Q: q.Get("q"), Op: q.Get("op"), Backend: q.Get("backend"), DType: q.Get("dtype"), Det: q.Get("det"),
		Registrable: q.Get("reg") == "1", Runnable: q.Get("runs") == "1"}
}

// Query is the filter as a catalog URL query.
func (f Filter) Query() string {
	v := url.Values{}
	for k, s := range map[string]string{"q": f.Q, "op": f.Op, "backend": f.Backend, "dtype": f.DType, "det": f.Det} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Registrable {
		v.Set("reg", "1")
	}
	if f.Runnable {
		v.Set("runs", "1")
	}
	return v.Encode()
}

func (f Filter) match(k KernelRow) bool {
	q := strings.ToLower(strings.TrimSpace(f.Q))
	op := k.Op
	if op == "" {
		op = k.OpKind
	}
	return (q == "" || matchQuery(q, strings.ToLower(strings.Join([]string{k.Name, k.Blurb, k.OpKind, k.EntryPoint, k.Provider, k.Op}, " "))+" "+searchWords(k))) &&
		(f.Op == "" || op == f.Op) && (f.Backend == "" || k.Backend == f.Backend) &&
		(f.DType == "" || slices.Contains(k.DTypes, f.DType)) && (f.Det == "" || k.Determinism == f.Det) &&
		(!f.Registrable || k.Registrable) && (!f.Runnable || k.RunsHere == "cpu" || k.RunsHere == "webgpu")
}

// Catalog is the catalog page.
type Catalog struct {
	Filter    Filter
	Providers []ProviderView
	Shown     int
	Total     int
	Options   map[string][]string // op, backend, dtype, det: the filter's choices
	GPU       GPUState
	Lint      []Finding
	Docs      int
	// Ignored names the filter values (from a link) that match none of
	// the choices, which the filter then leaves out.
	Ignored []string
	// LearnPadding: the search is about padding; the list offers the
	// Learn padding page first.
	LearnPadding bool
}

// ProviderView is one document of the catalog.
type ProviderView struct {
	Name, Backend, File, Title string
	Rebuilt                    string
	Count                      int
	Rows                       []KernelRow
}

// Finding is one lint finding as pages show it.
type Finding struct {
	contract.Diagnostic
	Kernels []string
}

// CatalogPage builds the catalog with the filter applied.
func (s *Site) CatalogPage(f Filter) Catalog {
	rows := s.Rows()
	c := Catalog{Filter: f, Total: len(rows), GPU: s.GPU, Options: map[string][]string{}}
	for _, k := range rows {
		op := k.Op
		if op == "" {
			op = k.OpKind
		}
		c.Options["op"] = addOpt(c.Options["op"], op)
		c.Options["backend"] = addOpt(c.Options["backend"], k.Backend)
		c.Options["det"] = addOpt(c.Options["det"], k.Determinism)
		for _, d := range k.DTypes {
			c.Options["dtype"] = addOpt(c.Options["dtype"], d)
		}
	}
	for _, o := range c.Options {
		sort.Strings(o)
	}
	// A link's op, backend, dtype or determinism that is none of the
	// choices is said and left out: the list showed "0 of 75" while every
	// select showed "any" (and a fresh load of the same link showed 75).
	for _, sel := range []struct {
		key string
		v   *string
	}{{"op", &f.Op}, {"backend", &f.Backend}, {"dtype", &f.DType}, {"det", &f.Det}} {
		if *sel.v != "" && !slices.Contains(c.Options[sel.key], *sel.v) {
			c.Ignored = append(c.Ignored, fmt.Sprintf("%s %q", sel.key, *sel.v))
			*sel.v = ""
		}
	}
	c.Filter = f
	for _, r := range s.Eng.Reg.Kernels() {
		d := r.Doc
		if len(c.Providers) == 0 || c.Providers[len(c.Providers)-1].File != d.File {
			pv := ProviderView{Name: d.Provider.Name, Backend: d.Provider.Backend, File: d.File, Title: d.Title}
			if len(d.Rebuilt) > 0 {
				pv.Rebuilt = strings.Join(d.Rebuilt, ", ")
			}
			c.Providers = append(c.Providers, pv)
			c.Docs++
		}
		c.Providers[len(c.Providers)-1].Count++
	}
	i := 0
	for p := range c.Providers {
		for ; i < len(rows) && rows[i].File == c.Providers[p].File; i++ {
			if f.match(rows[i]) {
				c.Providers[p].Rows = append(c.Providers[p].Rows, rows[i])
				c.Shown++
			}
		}
	}
	c.Lint = s.findings(nil)
	c.LearnPadding = aboutPadding(f.Q)
	return c
}

func addOpt(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// findings lists the findings (of one kernel, when id is set).
func (s *Site) findings(id *string) []Finding {
	var out []Finding
	for _, d := range s.Findings() {
		f := Finding{Diagnostic: d}
		hit := id == nil
		for _, k := range d.Kernels {
			f.Kernels = append(f.Kernels, k.String())
			hit = hit || k.String() == *id
		}
		if hit {
			out = append(out, f)
		}
	}
	return out
}

// md renders contract prose as CommonMark. Raw HTML in a contract is not
// passed through (goldmark's default): a contract is data, not markup we
// trust. (No GFM extensions: no contract uses tables or autolinks, and
// their package compiles large regexps at start-up, which the browser app
// pays before its first screen.)
var md = goldmark.New()

// maxProseDepth bounds how deeply prose may nest: goldmark parses nested
// blocks (quotes, lists) and renders every node recursively, and in the
// browser a few thousand levels overflow the JavaScript stack that Go's
// WASM runs on — a pasted contract whose prose held 12,000 '>' stopped the
// app, and, kept in the tab's storage, every reload of that page. Deeper
// prose is shown as plain text, with a note saying why.
const maxProseDepth = 100

// Markdown renders prose as HTML.
func Markdown(src string) string {
	b := []byte(src)
	if containerDepth(src) > maxProseDepth {
		return plainProse(src)
	}
	doc := md.Parser().Parse(text.NewReader(b))
	if treeDepth(doc) > maxProseDepth {
		return plainProse(src)
	}
	var out bytes.Buffer
	if err := md.Renderer().Render(&out, b, doc); err != nil {
		return "<pre>" + htmlEscape(src) + "</pre>"
	}
	return out.String()
}

func plainProse(src string) string {
	return fmt.Sprintf("<p class=\"note\">This prose nests quotes, lists or emphasis more than %d deep; it is shown as plain text.</p><pre>%s</pre>", maxProseDepth, htmlEscape(src))
}

// containerDepth bounds from above the block nesting of any line that
// opens a container: its leading indentation (two columns a level) and,
// after it, each quote marker and each list marker followed by a blank
// (at most four blanks after each marker: more start a code block). Lines
// inside a fenced code block and thematic breaks ("- - -", "* * *") open
// no level.
// Read before parsing, whose block walk recurses once a level.
func containerDepth(src string) int {
	deepest, fence := 0, ""
	for line := range strings.Lines(src) {
		t := strings.TrimRight(strings.TrimLeft(line, " \t"), " \t\r\n")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(t); f != "" {
			fence = f
			continue
		}
		if thematicBreak(t) {
			continue
		}
		cols, i := 0, 0
		for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
			if line[i] == '\t' {
				cols += 4
			} else {
				cols++
			}
		}
		// Indentation nests only under list items, so it counts on a
		// line that opens a container itself; a deeper continuation or
		// code line sits under markers counted on earlier lines.
		d, opened := cols/2, false
		for i < len(line) {
			c := line[i]
			switch {
			case c == '>':
				i++
			case (c == '-' || c == '+' || c == '*') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
				i++
			case c >= '0' && c <= '9':
				j := i
				for j < len(line) && line[j] >= '0' && line[j] <= '9' {
					j++
				}
				if j >= len(line) || (line[j] != '.' && line[j] != ')') || j+1 >= len(line) || (line[j+1] != ' ' && line[j+1] != '\t') {
					i = len(line) // a number in the text
					continue
				}
				i = j + 1
			default:
				i = len(line) // the line's text: no more markers
				continue
			}
			d, opened = d+1, true
			for k := 0; k < 4 && i < len(line) && (line[i] == ' ' || line[i] == '\t'); k++ {
				i++
			}
		}
		if opened {
			deepest = max(deepest, d)
		}
	}
	return deepest
}

// fenceOpen is the fence a line opens (``` or ~~~, three or more), or "".
func fenceOpen(t string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(t, c+c+c) {
			n := len(t) - len(strings.TrimLeft(t, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// thematicBreak: three or more of one of - * _ and blanks only.
func thematicBreak(t string) bool {
	if t == "" {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// treeDepth is the depth of a parsed document's node tree (emphasis runs
// nest inline nodes too), walked without recursion.
func treeDepth(root ast.Node) int {
	type at struct {
		n ast.Node
		d int
	}
	deepest, stack := 0, []at{{root, 1}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, top.d)
		for c := top.n.FirstChild(); c != nil; c = c.NextSibling() {
			stack = append(stack, at{c, top.d + 1})
		}
	}
	return deepest
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// ProviderProse is a document's prose, rendered.
func (s *Site) ProviderProse(file string) (string, error) {
	for _, r := range s.Eng.Reg.Kernels() {
		if r.Doc.File == file {
			return Markdown(r.Doc.Prose), nil
		}
	}
	return "", fmt.Errorf("no contract document %q", file)
}

// DefaultCase is the Try-it case a kernel page opens with, for dtype dt.
func DefaultCase(row KernelRow, dt tensor.DType) (ops.Case, bool) {
	o, ok := ops.Lookup(row.Op)
	if !ok {
		return ops.Case{}, false
	}
	f := row.Form
	if o.Forms != nil && f == kernels.FormOnly {
		f = o.Forms[0]
		if f == kernels.FormAll {
			f = kernels.FormDim
		}
	}
	return o.DefaultCase(f, dt), true
}
