//go:build js && wasm

package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// md renders contract prose. Raw HTML in a contract is not passed through
// (goldmark's default): a contract is data, not markup we trust.
var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

func markdown(src string) string {
	var b bytes.Buffer
	if err := md.Convert([]byte(src), &b); err != nil {
		return "<pre>" + htmlEscape(src) + "</pre>"
	}
	return b.String()
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// The catalog: everything the list page needs, small enough to build at
// start (prose is rendered per kernel page, on demand).
type catalog struct {
	Providers []providerJSON `json:"providers"`
	Kernels   []kernelJSON   `json:"kernels"`
	Specs     []specJSON     `json:"specs"`
	Lint      []lintJSON     `json:"lint"`
	DTypes    []string       `json:"dtypes"` // every dtype, in SPEC §3 order
	// Roles explains the trace's cell roles, for the legend.
	Roles map[string]string `json:"roles"`
}

type providerJSON struct {
	contract.Provider
	File     string   `json:"file"`
	Title    string   `json:"title"`
	Preamble []string `json:"preamble,omitempty"`
	Rebuilt  []string `json:"rebuilt,omitempty"`
	Kernels  int      `json:"kernel_count"`
}

type kernelJSON struct {
	ID          string   `json:"id"` // provider/kernel: names repeat across providers
	Name        string   `json:"name"`
	Provider    string   `json:"provider"`
	Backend     string   `json:"backend"`
	OpKind      string   `json:"op_kind"`
	Registrable bool     `json:"registrable"`
	DTypes      []string `json:"dtypes"` // the first input's dtypes (the fan-out)
	Determinism string   `json:"determinism"`
	Blurb       string   `json:"blurb"`
	EntryPoint  string   `json:"entry_point"`
	Linked      bool     `json:"linked"`
	Where       string   `json:"where"`
	Op          string   `json:"op,omitempty"` // the `fkc run` op that exercises it
	Mode        string   `json:"mode,omitempty"`
	AllDims     bool     `json:"all_dims,omitempty"` // sum_all rather than sum_dim
	Lint        int      `json:"lint"`
	File        string   `json:"file"`
	Line        int      `json:"line"`
}

// specJSON is one op of the op table, as the page's Try-it form needs it.
type specJSON struct {
	Name    string     `json:"name"`
	Inputs  []string   `json:"inputs"`
	Flags   []flagJSON `json:"flags"`
	Doc     string     `json:"doc"`
	Explain string     `json:"explain"`
	// FixedDTypes: operands whose dtype does not follow the data's.
	FixedDTypes map[string]string `json:"fixed_dtypes"`
}

type flagJSON struct {
	Name     string   `json:"name"` // "--mode"
	Arg      string   `json:"arg"`
	Help     string   `json:"help"`
	Choices  []string `json:"choices,omitempty"`
	Required bool     `json:"required"`
	Note     string   `json:"note,omitempty"`
}

type lintJSON struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Severity string   `json:"severity"`
	Code     string   `json:"code,omitempty"`
	Msg      string   `json:"message"`
	Kernels  []string `json:"kernels,omitempty"` // ids the finding concerns
	Text     string   `json:"text"`
}

// lintFindings gathers the loader's and the registry's diagnostics, each
// with the kernels it concerns (the finding says which: Diagnostic.Kernels).
func lintFindings() []lintJSON {
	var all []contract.Diagnostic
	seen := map[*contract.Document]bool{}
	for _, r := range eng.Reg.Kernels() {
		if !seen[r.Doc] {
			seen[r.Doc] = true
			all = append(all, r.Doc.Diags...)
		}
	}
	all = append(all, eng.Reg.Diags...)
	var out []lintJSON
	for _, d := range all {
		l := lintJSON{File: d.File, Line: d.Line, Severity: d.Severity, Code: d.Code, Msg: d.Msg, Text: d.String()}
		for _, k := range d.Kernels {
			l.Kernels = append(l.Kernels, k.String())
		}
		out = append(out, l)
	}
	return out
}

func buildCatalog() *catalog {
	mu.Lock()
	defer mu.Unlock()
	c := &catalog{}
	lint := lintFindings()
	c.Lint = lint
	perKernel := map[string]int{}
	for _, l := range lint {
		for _, id := range l.Kernels {
			perKernel[id]++
		}
	}
	counts := map[*contract.Document]int{}
	var docs []*contract.Document
	for _, r := range eng.Reg.Kernels() {
		if counts[r.Doc] == 0 {
			docs = append(docs, r.Doc)
		}
		counts[r.Doc]++
		c.Kernels = append(c.Kernels, kernelSummary(r, perKernel))
	}
	for _, d := range docs {
		c.Providers = append(c.Providers, providerJSON{Provider: d.Provider, File: d.File, Title: d.Title,
			Preamble: d.Preamble, Rebuilt: d.Rebuilt, Kernels: counts[d]})
	}
	for _, o := range ops.Table {
		sp := specJSON{Name: o.Name, Inputs: o.InputNames(), Flags: []flagJSON{}, Doc: o.Summary, Explain: o.Explain, FixedDTypes: map[string]string{}}
		for _, in := range o.Inputs {
			if in.Fixed != tensor.Invalid {
				sp.FixedDTypes[in.Name] = in.Fixed.String()
			}
		}
		for _, u := range o.Flags {
			sp.Flags = append(sp.Flags, flagJSON{Name: "--" + u.Name, Arg: u.Arg, Help: u.Help, Choices: u.Choices, Required: u.Required, Note: u.Note})
		}
		c.Specs = append(c.Specs, sp)
	}
	for _, d := range tensor.All {
		c.DTypes = append(c.DTypes, d.String())
	}
	c.Roles = ops.RoleLegend
	return c
}

func kernelSummary(r registry.KernelRef, lint map[string]int) kernelJSON {
	k := r.Kernel
	where, linked := eng.LinkFor(k.EntryPoint)
	op, mode, all := pageOp(eng.Exercised(k.EntryPoint))
	var dts []string
	if len(k.Inputs) > 0 {
		dts = k.Inputs[0].DTypeNames
	}
	id := engine.KernelID(r.Doc, k)
	return kernelJSON{ID: id, Name: k.Name, Provider: r.Doc.Provider.Name, Backend: k.Backend, OpKind: k.OpKind,
		Registrable: k.Registrable, DTypes: dts, Determinism: k.Determinism, Blurb: k.Blurb, EntryPoint: k.EntryPoint,
		Linked: linked, Where: where, Op: op, Mode: mode, AllDims: all, Lint: lint[id], File: r.Doc.File, Line: k.Line}
}

// pageOp is what a kernel page's Try it runs, from the variants that
// exercise its kernel: the op, the pad mode the kernel fixes ("" when it
// serves every mode), and whether a reduction is the all-elements form.
func pageOp(vs []kernels.Variant) (op, mode string, allDims bool) {
	if len(vs) == 0 {
		return "", "", false
	}
	v := vs[0]
	if len(vs) == 1 && v.Form != kernels.FormOnly && v.Form != kernels.FormAll && v.Form != kernels.FormDim {
		mode = v.Form.String()
	}
	return v.Op, mode, v.Form == kernels.FormAll
}

func findKernel(id string) (registry.KernelRef, bool) { return eng.FindKernel(id) }

// defaultCase is the page's Try-it case for a kernel whose op is op.
func defaultCase(op, mode, dtype string, all bool) (ops.Case, error) {
	o, err := ops.Get(op)
	if err != nil {
		return ops.Case{}, err
	}
	dt, err := tensor.ParseDType(dtype)
	if err != nil {
		return ops.Case{}, err
	}
	f := kernels.FormOnly
	if o.Forms != nil {
		f = o.Forms[0] // pad: constant; a reduction: all elements
		for _, cand := range o.Forms {
			if cand.String() == mode {
				f = cand
			}
		}
		if f == kernels.FormAll && !all {
			f = kernels.FormDim
		}
	}
	return o.DefaultCase(f, dt), nil
}

// kernelDetail is one kernel page: the whole contract, its prose as HTML,
// bindings, lint findings and the Try-it defaults.
func kernelDetail(id string) (string, error) {
	mu.Lock()
	r, ok := findKernel(id)
	mu.Unlock()
	if !ok {
		return "", fmt.Errorf("fkc: no kernel %q in the loaded contracts", id)
	}
	k := r.Kernel
	type bindingJSON struct {
		Key    string   `json:"key"`
		Inputs []string `json:"inputs"`
		Out    string   `json:"out"`
		Shared []string `json:"shared,omitempty"` // other kernels on the same key
	}
	var bs []bindingJSON
	mu.Lock()
	for _, b := range eng.Reg.Of(k) {
		j := bindingJSON{Key: b.Key.String(), Out: b.OutDType.String()}
		for _, d := range b.InputDTypes {
			j.Inputs = append(j.Inputs, d.String())
		}
		for _, o := range eng.Reg.LookupKey(b.Key) {
			if o != b {
				j.Shared = append(j.Shared, engine.KernelID(o.Doc, o.Kernel))
			}
		}
		bs = append(bs, j)
	}
	var lint []lintJSON
	for _, l := range lintFindings() {
		for _, kid := range l.Kernels {
			if kid == id {
				lint = append(lint, l)
				break
			}
		}
	}
	sum := kernelSummary(r, nil)
	dispatch := eng.DispatchNote(k, r.Doc.Provider.Name)
	mu.Unlock()
	sum.Lint = len(lint)
	comments := make([]struct{ Key, Text string }, 0, len(k.Comments))
	keys := make([]string, 0, len(k.Comments))
	for key := range k.Comments {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		comments = append(comments, struct{ Key, Text string }{key, k.Comments[key]})
	}
	detail := map[string]any{
		"summary":    sum,
		"contract":   k,
		"prose_html": markdown(k.Prose),
		"cost_rows":  costRows(k.Cost),
		"dispatch":   dispatch,
		"bindings":   bs,
		"lint":       lint,
		"comments":   comments,
		"doc":        map[string]any{"file": r.Doc.File, "title": r.Doc.Title, "provider": r.Doc.Provider, "rebuilt": r.Doc.Rebuilt},
	}
	if sum.Op != "" {
		dt := "F32"
		if len(sum.DTypes) > 0 && !contains(sum.DTypes, "F32") {
			dt = sum.DTypes[0]
		}
		cs, err := defaultCase(sum.Op, sum.Mode, dt, sum.AllDims)
		if err != nil {
			return "", err
		}
		detail["defaults"] = cs
	}
	return jsonString(detail)
}

// defaultsFor is the default case of an op for another dtype or mode.
func defaultsFor(id, dtype string) (string, error) {
	mu.Lock()
	r, ok := findKernel(id)
	mu.Unlock()
	if !ok {
		return "", fmt.Errorf("fkc: no kernel %q", id)
	}
	mu.Lock()
	op, mode, all := pageOp(eng.Exercised(r.Kernel.EntryPoint))
	mu.Unlock()
	if op == "" {
		return "", fmt.Errorf("fkc: no `fkc run` op exercises %s (entry_point %s is not linked)", r.Kernel.Name, r.Kernel.EntryPoint)
	}
	cs, err := defaultCase(op, mode, dtype, all)
	if err != nil {
		return "", surfaceError(err)
	}
	return jsonString(cs)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// providerProse renders a document's prose (the catalog asks on demand).
func providerProse(file string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	for _, r := range eng.Reg.Kernels() {
		if r.Doc.File == file {
			return markdown(r.Doc.Prose), nil
		}
	}
	return "", fmt.Errorf("fkc: no contract document %q", file)
}
