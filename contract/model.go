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
	Code     string `json:"code,omitempty"` // e.g. "DuplicateKernelRef", "RebuiltNesting"
	Msg      string `json:"message"`
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
	Name            string `json:"name"`
	DTypeRule       string `json:"dtype_rule"`
	ShapeRule       string `json:"shape_rule"`
	LayoutGuarantee string `json:"layout_guarantee"`
	Aliasing        string `json:"aliasing"`
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

// Output dtype of a binding whose first input has dtype in, per DTypeRule:
// passthrough(x) keeps it; fixed(U32) forces U32.
func (o Output) DType(in tensor.DType) (tensor.DType, error) {
	if r, ok := strings.CutPrefix(o.DTypeRule, "fixed("); ok {
		return tensor.ParseDType(strings.TrimSuffix(strings.TrimSpace(r), ")"))
	}
	return in, nil
}
