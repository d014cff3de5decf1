package playground

import (
	"fmt"
	"html/template"
	"net/url"
	"regexp"
	"strings"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// KernelPage is one kernel as interactive documentation.
type KernelPage struct {
	Home      KV // the breadcrumb's first step: the page listing the kernel (title, address)
	Row       KernelRow
	K         *contract.Kernel
	Doc       *contract.Document
	ProseHTML template.HTML
	Dispatch  template.HTML
	Bindings  []BindingView
	Lint      []Finding
	Inputs    []InputView
	CostRows  []CostRow
	Precision []KV
	Caps      []KV
	Try       *TryForm // nil: no `fkc run` op exercises the kernel
	GPU       GPUState
	// Measured is what the Judge's reports (shipped, or made in this tab)
	// measured of this kernel.
	Measured []Measured
	// LearnPadding: a pad kernel's page links to Learn padding.
	LearnPadding bool
	// Lab is the kernel lab's page for the kernel ("" when the lab has no
	// plain kernel for it): write your own kernel for this contract.
	Lab string
}

// BindingView is one registry binding of the kernel.
type BindingView struct {
	Key, Out string
	Inputs   []string
	Shared   []string // other kernels on the same key
}

// InputView is one accepted operand.
type InputView struct {
	contract.Input
	Note   string // the YAML comment on its dtypes
	Layout []KV
}

// CostRow is one row of the cost table; Value is filled after a run.
type CostRow struct {
	Name, Formula, Note, Value string
}

// KV is a labelled value.
type KV struct {
	Key, Value string
	Code       bool
}

var inlineCode = regexp.MustCompile("`([^`]+)`")

// KernelPage builds the page of kernel id ("provider/name"); q is the
// page URL's query (a share link's Try-it state).
func (s *Site) KernelPage(id string, q url.Values) (*KernelPage, error) {
	ref, ok := s.Eng.FindKernel(id)
	if !ok {
		return nil, fmt.Errorf("no kernel %q in the loaded contracts", id)
	}
	k, d := ref.Kernel, ref.Doc
	p := &KernelPage{K: k, Doc: d, GPU: s.GPU, Lint: s.findings(&id), Home: s.HomeLink()}
	p.Row = s.row(ref, map[string]int{id: len(p.Lint)})
	p.LearnPadding = padKernel(p.Row)
	p.Lab = s.LabHref(p.Row.Provider, p.Row.Name)
	p.ProseHTML = template.HTML(Markdown(k.Prose))
	p.Dispatch = template.HTML(inlineCode.ReplaceAllString(template.HTMLEscapeString(s.Eng.DispatchNote(k, d.Provider.Name)), "<code>$1</code>"))
	if p.Row.RunsHere == "checking" { // the dispatch note reads the GPU links, unknown here
		p.Dispatch = "How dispatch reaches this GPU kernel: checking this browser's WebGPU…"
	}
	for _, b := range s.Eng.Reg.Of(k) {
		bv := BindingView{Key: b.Key.String(), Out: b.OutDType.String()}
		for _, t := range b.InputDTypes {
			bv.Inputs = append(bv.Inputs, t.String())
		}
		for _, o := range s.Eng.Reg.LookupKey(b.Key) {
			if o != b {
				bv.Shared = append(bv.Shared, engine.KernelID(o.Doc, o.Kernel))
			}
		}
		p.Bindings = append(p.Bindings, bv)
	}
	for n, in := range k.Inputs {
		iv := InputView{Input: in, Note: k.Comments[fmt.Sprintf("accept.inputs.%d.dtypes", n)]}
		for _, l := range in.Layout {
			iv.Layout = append(iv.Layout, KV{Key: l.Key, Value: l.Value})
		}
		p.Inputs = append(p.Inputs, iv)
	}
	p.CostRows = []CostRow{{Name: "provenance", Formula: k.Cost.Provenance, Note: k.Comments["cost.provenance"]},
		{Name: "class", Formula: k.Cost.Class, Note: k.Comments["cost.class"]}}
	for _, f := range contract.CostFields {
		p.CostRows = append(p.CostRows, CostRow{Name: f.Name, Formula: f.Get(k.Cost), Note: k.Comments["cost."+f.Name]})
	}
	pr := k.Precision
	p.Precision = []KV{{Key: "determinism", Value: k.Determinism}, {Key: "bit-stable on same hardware", Value: yesNo(pr.BitStableOnSameHardware)},
		{Key: "max ULP", Value: pr.MaxULP, Code: true}, {Key: "max relative", Value: pr.MaxRelative, Code: true},
		{Key: "max absolute", Value: pr.MaxAbsolute, Code: true}, {Key: "audited", Value: yesNo(pr.Audited)}, {Key: "notes", Value: pr.Notes}}
	c := k.Caps
	var fps []string
	for _, fp := range c.FastPaths {
		var parts []string
		for _, kv := range fp {
			parts = append(parts, kv.Key+": "+kv.Value)
		}
		fps = append(fps, strings.Join(parts, ", "))
	}
	if len(fps) == 0 {
		fps = []string{"none"}
	}
	p.Caps = []KV{{Key: "awkward layouts", Value: c.AwkwardLayoutStrategy, Code: true}, {Key: "in place", Value: yesNo(c.InPlace)},
		{Key: "alignment", Value: fmt.Sprintf("%d B", c.AlignmentBytes)}, {Key: "access granularity", Value: fmt.Sprintf("%d bits", c.AccessGranularityBits)},
		{Key: "fast paths", Value: strings.Join(fps, "; ")}, {Key: "backend / source", Value: k.Backend + " · " + k.KernelSource},
		{Key: "entry point", Value: k.EntryPoint, Code: true}}
	p.Measured = MeasuredFor(id, s.Reports)
	if p.Row.Op != "" {
		t, err := s.TryForm(p.Row, k, q)
		if err != nil {
			return nil, err
		}
		p.Try = t
	}
	return p, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// DTypeClass is a dtype chip's colour class.
func DTypeClass(dt string) string {
	switch {
	case strings.HasPrefix(dt, "F"), strings.HasPrefix(dt, "BF"):
		return "dt-f"
	case dt == tensor.BOOL.String():
		return "dt-b"
	}
	return "dt-i"
}

// DetClass is a determinism badge's class.
func DetClass(d string) string {
	switch d {
	case "bitwise":
		return "ok"
	case "nondeterministic":
		return "warn"
	}
	return "info"
}

// opOf is the descriptor of a row's op.
func opOf(row KernelRow) *ops.Op {
	o, _ := ops.Lookup(row.Op)
	return o
}
