// Package contract loads FKC kernel-contract documents (markdown with YAML
// front matter and one ```fkc block per kernel) into a typed model, lints
// them, formats them into canonical indentation and evaluates their cost
// formulas. See SPEC §2.
package contract

import (
	"fmt"
	"strings"

	"github.com/fkc-playground/fkc/tensor"
)

// Diagnostic is one finding, printed as "file:line: message".
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`       // "error", "warning" or "info"
	Code     string `json:"code,omitempty"` // e.g. "DuplicateKernelRef", "RebuiltNesting", "Unclosed"
	Msg      string `json:"message"`
	// Kernels are the kernel sections the finding concerns: the one whose
	// block holds it (loader findings), every kernel bound to a duplicated
	// key (DuplicateKernelRef), the kernel that cannot be fanned out.
	// Empty for a finding about the document as a whole.
	Kernels []KernelID `json:"kernels,omitempty"`
}

// KernelID names one kernel section.
type KernelID struct {
	Provider string `json:"provider"` // the document's provider.name
	Kernel   string `json:"kernel"`
	File     string `json:"file"`
	Line     int    `json:"line"` // of the section's heading
}

// String is "provider/kernel".
func (id KernelID) String() string { return id.Provider + "/" + id.Kernel }

// KernelID names kernel k of d.
func (d *Document) KernelID(k *Kernel) KernelID {
	return KernelID{Provider: d.Provider.Name, Kernel: k.Name, File: d.File, Line: k.Line}
}

func (d Diagnostic) String() string {
	code := ""
	if d.Code != "" {
		code = d.Code + ": "
	}
	return fmt.Sprintf("%s:%d: %s: %s%s", d.File, d.Line, d.Severity, code, d.Msg)
}

// Document is one FKC file.
type Document struct {
	File       string    `json:"file"`
	Preamble   []string  `json:"preamble,omitempty"` // lines before the front matter (e.g. "fuel-dispatch 0.22.4")
	FKCVersion int       `json:"fkc_version"`
	Provider   Provider  `json:"provider"`
	Title      string    `json:"title"`
	Prose      string    `json:"prose"` // markdown between the title and the first kernel section
	Kernels    []*Kernel `json:"kernels"`
	// Rebuilt lists what the loader re-nested from the schema because the
	// document's YAML indentation had been flattened ("front matter",
	// "block pad_const_b1", …). Empty for canonically indented files.
	Rebuilt []string     `json:"rebuilt,omitempty"`
	Diags   []Diagnostic `json:"-"`
}

// Provider is the front matter's provider map.
type Provider struct {
	Name         string `json:"name"`
	Backend      string `json:"backend"`
	KernelSource string `json:"kernel_source"`
	LinkRegistry string `json:"link_registry"`
	RevisionBase string `json:"revision_base"`
}

// Kernel is one `## name` section: its prose and its fkc block.
type Kernel struct {
	Name               string    `json:"kernel"`
	Heading            string    `json:"heading"`    // full "## …" heading text without the hashes
	Prose              string    `json:"prose"`      // markdown between the heading and the block
	Line               int       `json:"line"`       // heading line (1-based)
	BlockLine          int       `json:"block_line"` // line of the ```fkc fence
	OpKind             string    `json:"op_kind"`
	Registrable        bool      `json:"registrable"` // absent in the block → true
	Blurb              string    `json:"blurb"`
	Backend            string    `json:"backend"`
	KernelSource       string    `json:"kernel_source"`
	EntryPoint         string    `json:"entry_point"`
	KernelRevisionHash string    `json:"kernel_revision_hash"`
	Inputs             []Input   `json:"inputs"`
	OpParams           OpParams  `json:"op_params"`
	Outputs            []Output  `json:"outputs"`
	Caps               Caps      `json:"caps"`
	Cost               Cost      `json:"cost"`
	Precision          Precision `json:"precision"`
	Determinism        string    `json:"determinism"`
	// Comments holds the trailing YAML comments by dotted key path
	// ("op_kind", "registrable", "accept.inputs.0.dtypes", "cost.bytes_moved"):
	// the seeds put load-bearing explanations there.
	Comments map[string]string `json:"comments,omitempty"`

	// KeyLines: the source line (1-based) of each key of the block by
	// dotted path, as the loader found them (KeyLine).
	KeyLines map[string]int `json:"-"`
}

// KeyLine is the source line of the block's key at a dotted path
// ("op_kind", "return.outputs.0.shape_rule"), so that a finding about a
// key sits at its line: for a list entry ("accept.inputs.1") its first
// key's; for a key the block does not have, its nearest enclosing key's,
// and the fence's (BlockLine) when none is there.
func (k *Kernel) KeyLine(path string) int {
	for p := path; p != ""; {
		if l, ok := k.KeyLines[p]; ok {
			return l
		}
		first := 0
		for q, l := range k.KeyLines {
			if strings.HasPrefix(q, p+".") && (first == 0 || l < first) {
				first = l
			}
		}
		if first > 0 {
			return first
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return k.BlockLine
}

// Input is one accepted operand.
type Input struct {
	Name            string         `json:"name"`
	DTypes          []tensor.DType `json:"-"`
	DTypeNames      []string       `json:"dtypes"`
	DTypeClass      string         `json:"dtype_class,omitempty"`
	Layout          []KV           `json:"layout"` // in document order
	Rank            string         `json:"rank"`   // "any", "1", "1..=8", …
	ShapeConstraint string         `json:"shape_constraint,omitempty"`
}

// KV is an ordered key/value pair (flow maps keep their order for display).
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// OpParams is accept.op_params.
type OpParams struct {
	Variant string  `json:"variant"`
	Fields  []Field `json:"fields"` // in document order
}

// Field is one op_params field.
type Field struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	Constraint string `json:"constraint,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Output is one return.outputs entry.
type Output struct {
	Name            string    `json:"name"`
	DTypeRule       DTypeRule `json:"dtype_rule"`
	ShapeRule       string    `json:"shape_rule"`
	LayoutGuarantee string    `json:"layout_guarantee"`
	Aliasing        string    `json:"aliasing"`
}

// DTypeRule is an output's dtype_rule, parsed once by the loader:
// passthrough(INPUT) gives the output, in each binding, the dtype of the
// named input; fixed(DTYPE) always gives DTYPE. The zero value is "no rule"
// (the key was absent, or its text was reported as a loader error). In JSON
// it is the rule's text.
type DTypeRule struct {
	Passthrough string       // passthrough(INPUT): the input's name
	Fixed       tensor.DType // fixed(DTYPE); tensor.Invalid for a passthrough rule
}

// ParseDTypeRule parses "passthrough(INPUT)" or "fixed(DTYPE)".
func ParseDTypeRule(s string) (DTypeRule, error) {
	r := strings.TrimSpace(s)
	if a, ok := strings.CutPrefix(r, "passthrough("); ok && strings.HasSuffix(a, ")") {
		name := strings.TrimSpace(strings.TrimSuffix(a, ")"))
		if name == "" {
			return DTypeRule{}, fmt.Errorf("%s names no input", r)
		}
		return DTypeRule{Passthrough: name}, nil
	}
	if a, ok := strings.CutPrefix(r, "fixed("); ok && strings.HasSuffix(a, ")") {
		dt, err := tensor.ParseDType(strings.TrimSuffix(a, ")"))
		if err != nil {
			return DTypeRule{}, fmt.Errorf("%v in %s", err, r)
		}
		return DTypeRule{Fixed: dt}, nil
	}
	return DTypeRule{}, fmt.Errorf("%q is neither passthrough(INPUT) nor fixed(DTYPE)", r)
}

// String is the rule as a contract writes it; "" for the zero rule.
func (r DTypeRule) String() string {
	switch {
	case r.Passthrough != "":
		return "passthrough(" + r.Passthrough + ")"
	case r.Fixed != tensor.Invalid:
		return "fixed(" + r.Fixed.String() + ")"
	}
	return ""
}

// MarshalText writes the rule's text.
func (r DTypeRule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses the rule's text; "" is the zero rule.
func (r *DTypeRule) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = DTypeRule{}
		return nil
	}
	v, err := ParseDTypeRule(string(b))
	*r = v
	return err
}

// DType is the output dtype in a binding whose inputs (in contract order)
// have the dtypes ins.
func (r DTypeRule) DType(inputs []Input, ins []tensor.DType) (tensor.DType, error) {
	switch {
	case r.Passthrough != "":
		for i, in := range inputs {
			if in.Name == r.Passthrough && i < len(ins) {
				return ins[i], nil
			}
		}
		return tensor.Invalid, fmt.Errorf("dtype_rule %s names no input", r)
	case r.Fixed != tensor.Invalid:
		return r.Fixed, nil
	}
	return tensor.Invalid, fmt.Errorf("no dtype_rule")
}

// Caps is the caps map.
type Caps struct {
	AwkwardLayoutStrategy string `json:"awkward_layout_strategy"`
	FastPaths             [][]KV `json:"fast_paths"`
	InPlace               bool   `json:"in_place"`
	AlignmentBytes        int    `json:"alignment_bytes"`
	AccessGranularityBits int    `json:"access_granularity_bits"`
}

// Cost holds the cost formulas as written; "~" (left for the Judge) is "".
// CostFields lists the formulas.
type Cost struct {
	Provenance string `json:"provenance"`
	Class      string `json:"class"`
	Flops      string `json:"flops"`
	BytesMoved string `json:"bytes_moved"`
	OverheadNs string `json:"overhead_ns,omitempty"`
	Memory     Memory `json:"memory"`
}

// Memory is cost.memory; each entry is a formula ("0" when literal zero).
type Memory struct {
	DeviceBytes string `json:"device_bytes"`
	HostBytes   string `json:"host_bytes"`
	DiskBytes   string `json:"disk_bytes"`
}

// Precision is the precision map; "~" values are "".
type Precision struct {
	BitStableOnSameHardware bool   `json:"bit_stable_on_same_hardware"`
	MaxULP                  string `json:"max_ulp,omitempty"`
	MaxRelative             string `json:"max_relative,omitempty"`
	MaxAbsolute             string `json:"max_absolute,omitempty"`
	Audited                 bool   `json:"audited"`
	Notes                   string `json:"notes"`
}

// CostField is one cost formula of a kernel's cost map.
type CostField struct {
	Name string // its key under cost: "bytes_moved", "memory.device_bytes"
	at   func(*Cost) *string
}

// Get is the field's formula in c, as written ("" when absent or ~).
func (f CostField) Get(c Cost) string { return *f.at(&c) }

// CostFields lists the cost formulas once, in the order a page shows them:
// the decoder (cost's formula keys, each checked by ParseExpr),
// Kernel.Formulas and every evaluation of a run's costs iterate it.
var CostFields = []CostField{
	{"bytes_moved", func(c *Cost) *string { return &c.BytesMoved }},
	{"flops", func(c *Cost) *string { return &c.Flops }},
	{"overhead_ns", func(c *Cost) *string { return &c.OverheadNs }},
	{"memory.device_bytes", func(c *Cost) *string { return &c.Memory.DeviceBytes }},
	{"memory.host_bytes", func(c *Cost) *string { return &c.Memory.HostBytes }},
	{"memory.disk_bytes", func(c *Cost) *string { return &c.Memory.DiskBytes }},
}
