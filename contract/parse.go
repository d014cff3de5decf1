package contract

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/tensor"
	"gopkg.in/yaml.v3"
)

// Determinisms are the accepted values of a block's `determinism:`.
var Determinisms = []string{"bitwise", "same_hardware_bitwise", "nondeterministic"}

// LoadFile reads and parses one FKC document. A read error is returned as a
// diagnostic at line 0 with a nil document.
// A document over the size caps (MaxFileBytes, MaxLines) is not read.
func LoadFile(path string) (*Document, []Diagnostic) {
	src, err := ReadFile(path)
	if err != nil {
		code := "Read"
		if tl := (*TooLarge)(nil); errors.As(err, &tl) {
			code = "TooLarge"
		}
		return nil, []Diagnostic{{File: path, Severity: "error", Code: code, Msg: err.Error()}}
	}
	return Parse(path, src)
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == "error" {
			return true
		}
	}
	return false
}

// Parse loads an FKC document as given: preamble, front matter, title,
// prose and one ```fkc block per `## kernel` section. Flattened YAML (seeds
// 000 and 001) is re-nested from the schema and reported with an info
// diagnostic (Code "RebuiltNesting"). Everything not understood is a
// diagnostic "file:line: message" naming the key; Parse never panics and
// never returns a kernel whose block failed to decode as YAML. The returned
// diagnostics are also stored in Document.Diags, sorted by line.
//
// A document over the size caps (MaxFileBytes, MaxLines) is not parsed: it
// gets one error diagnostic (Code "TooLarge") and a nil document; a block
// over MaxBlockBytes is not decoded, and its section is not loaded.
func Parse(file string, src []byte) (*Document, []Diagnostic) {
	if err := checkSize(file, src); err != nil {
		return nil, []Diagnostic{{File: file, Line: 1, Severity: "error", Code: "TooLarge", Msg: err.Error()}}
	}
	p := &parser{file: file, doc: &Document{File: file}}
	L := scanDoc(src)
	p.layout(L)
	sort.SliceStable(p.diags, func(i, j int) bool { return p.diags[i].Line < p.diags[j].Line })
	p.summarizeDropped(len(L.lines))
	p.doc.Diags = p.diags
	return p.doc, p.diags
}

type parser struct {
	file  string
	doc   *Document
	diags []Diagnostic

	dropped    int    // findings over MaxDiagnostics
	droppedSev string // the gravest of them
}

func (p *parser) add(line int, sev, code, format string, args ...any) {
	if len(p.diags) >= MaxDiagnostics {
		p.dropped++
		if severityRank[sev] > severityRank[p.droppedSev] {
			p.droppedSev = sev
		}
		return
	}
	p.diags = append(p.diags, Diagnostic{File: p.file, Line: line, Severity: sev, Code: code, Msg: fmt.Sprintf(format, args...)})
}

var severityRank = map[string]int{"info": 1, "warning": 2, "error": 3}

// summarizeDropped adds, after the sorted findings, one that counts those
// over MaxDiagnostics, with the gravest severity among them.
func (p *parser) summarizeDropped(lines int) {
	if p.dropped > 0 {
		p.diags = append(p.diags, Diagnostic{File: p.file, Line: lines, Severity: p.droppedSev, Code: "TooMany",
			Msg: fmt.Sprintf("%d more findings are not listed (at most %d per document, contract.MaxDiagnostics)", p.dropped, MaxDiagnostics)})
	}
}

func (p *parser) layout(L *layout) {
	d := p.doc
	for _, ld := range L.diags {
		p.add(ld.line+1, ld.severity, "", "%s", ld.msg)
	}
	end := L.preambleTo
	for end > 0 && strings.TrimSpace(L.lines[end-1]) == "" {
		end--
	}
	for _, l := range L.lines[:end] {
		d.Preamble = append(d.Preamble, trimCR(l))
	}
	var rebuilt []int // source lines of rebuilt regions
	if L.fmOpen < 0 {
		p.add(1, "error", "", "no YAML front matter (--- … ---) with fkc_version and provider")
	} else if n := regionBytes(L.lines[L.fmOpen+1 : L.fmClose]); n > MaxBlockBytes {
		p.add(L.fmOpen+1, "error", "TooLarge", "the front matter is %d bytes; it may be at most %d (contract.MaxBlockBytes); it is not loaded", n, MaxBlockBytes)
	} else {
		c := canonicalize(L.lines[L.fmOpen+1:L.fmClose], frontMatterSchema)
		p.lineDiags(c, L.fmOpen+1)
		if c.flat {
			d.Rebuilt = append(d.Rebuilt, "front matter")
			rebuilt = append(rebuilt, L.fmOpen+1)
		}
		p.frontMatter(c, L.fmOpen+1, L.fmOpen+1)
	}
	if L.title >= 0 {
		d.Title = strings.TrimSpace(strings.TrimPrefix(trimCR(L.lines[L.title]), "#"))
	} else {
		p.add(L.proseFrom+1, "warning", "", "no `# title` line before the first kernel section")
	}
	d.Prose = L.text(L.proseFrom, L.proseTo)
	for _, s := range L.sections {
		if s.fence < 0 {
			p.add(s.heading+1, "info", "", "section ## %s has no ```fkc block; it is prose only", s.headingText)
			continue
		}
		for _, f := range s.extraFences {
			p.add(f+1, "error", "", "a second ```fkc block in section ## %s; only the first block of a section is loaded", s.headingText)
		}
		if s.heading < 0 {
			p.add(s.fence+1, "error", "", "```fkc block outside a `## kernel` section")
		}
		if n := regionBytes(L.lines[s.blockFrom:s.blockTo]); n > MaxBlockBytes {
			p.add(s.fence+1, "error", "TooLarge", "```fkc block of section ## %s is %d bytes; a block may be at most %d (contract.MaxBlockBytes); the section is not loaded", s.headingText, n, MaxBlockBytes)
			continue
		}
		c := canonicalize(L.lines[s.blockFrom:s.blockTo], blockSchema)
		p.lineDiags(c, s.blockFrom)
		if s.truncated {
			why := "the file ends mid-block"
			if s.blockTo < len(L.lines) {
				why = fmt.Sprintf("no closing ``` before line %d", s.blockTo+1)
			}
			p.add(s.fence+1, "error", "", "```fkc block is never closed (%s); section ## %s is not loaded", why, s.headingText)
			continue
		}
		k := &Kernel{Heading: s.headingText, BlockLine: s.fence + 1, Line: s.heading + 1, Registrable: true}
		if s.heading < 0 {
			k.Line = s.fence + 1
		}
		k.Prose = L.text(s.proseFrom, s.fence)
		if !p.kernel(k, c, s.blockFrom) {
			continue
		}
		if c.flat {
			d.Rebuilt = append(d.Rebuilt, "block "+k.Name)
			rebuilt = append(rebuilt, s.fence+1)
		}
		if h := headingName(s.headingText); s.heading >= 0 && k.Name != "" && h != k.Name {
			p.add(s.heading+1, "warning", "", "heading ## %s does not match the block's kernel: %s", h, k.Name)
		}
		if k.Name == "" {
			k.Name = headingName(s.headingText)
		}
		d.Kernels = append(d.Kernels, k)
	}
	if len(rebuilt) > 0 {
		what := strings.Join(d.Rebuilt, ", ")
		if len(d.Rebuilt) > 3 {
			nb := len(d.Rebuilt)
			fm := ""
			if d.Rebuilt[0] == "front matter" {
				nb--
				fm = "the front matter and "
			}
			what = fm + plural(nb, "fkc block", "fkc blocks")
		}
		p.add(rebuilt[0], "info", "RebuiltNesting",
			"YAML indentation was lost; rebuilt the nesting of %s from the FKC schema (`fkc fmt -w` rewrites the file canonically)", what)
	}
}

// regionBytes is the size of a region of lines, newlines included.
func regionBytes(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

func (p *parser) lineDiags(c *canonResult, first int) {
	for _, ld := range c.diags {
		p.add(first+ld.line+1, ld.severity, "", "%s", ld.msg)
	}
}

var reYAMLLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// decodeYAML decodes a canonicalized region; from is the 0-based source
// line of the region's first line. It reports a syntax error and returns nil.
func (p *parser) decodeYAML(c *canonResult, from, errLine int, what string) *yaml.Node {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(c.yamlText()), &n); err != nil {
		msg := err.Error()
		line := errLine
		if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
			if l, e := strconv.Atoi(m[1]); e == nil {
				line = from + l
			}
			msg = m[2]
		} else {
			msg = strings.TrimPrefix(msg, "yaml: ")
		}
		p.add(line, "error", "", "%s is not valid YAML: %s", what, msg)
		return nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return n.Content[0]
	}
	return &yaml.Node{Kind: yaml.MappingNode, Line: 1}
}

// dec walks one decoded region.
type dec struct {
	p        *parser
	base     int // source line = base + node.Line
	comments map[string]string
	rules    map[int]*yaml.Node // return.outputs index → its dtype_rule value
}

type pair struct {
	key  string
	k, v *yaml.Node
	path string
}

func (d *dec) line(n *yaml.Node) int { return d.base + n.Line }

func (d *dec) errf(n *yaml.Node, format string, args ...any) {
	d.p.add(d.line(n), "error", "", format, args...)
}

func (d *dec) warnf(n *yaml.Node, format string, args ...any) {
	d.p.add(d.line(n), "warning", "", format, args...)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func cleanComment(c string) string {
	var out []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "#"))
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func (d *dec) comment(path string, ns ...*yaml.Node) {
	if d.comments == nil {
		return
	}
	var parts []string
	for _, n := range ns {
		for _, c := range []string{n.HeadComment, n.LineComment} {
			if c = cleanComment(c); c != "" {
				parts = append(parts, c)
			}
		}
	}
	if len(parts) > 0 {
		d.comments[path] = strings.Join(parts, "\n")
	}
}

// pairs lists a mapping's entries, reporting duplicate keys (the later one
// is dropped) and collecting comments.
func (d *dec) pairs(n *yaml.Node, path string) []pair {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errf(n, "%s: expected a mapping, found %s", path, kindName(n))
		return nil
	}
	seen := map[string]int{}
	var out []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		kp := join(path, key)
		if first, dup := seen[key]; dup {
			d.errf(k, "duplicate key %s (first at line %d); the second is ignored", kp, first)
			continue
		}
		seen[key] = d.line(k)
		d.comment(kp, k, v)
		out = append(out, pair{key, k, v, kp})
	}
	return out
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") || n.Kind == 0
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// str is a scalar as text; "~" (null) is "".
func (d *dec) str(pr pair) string {
	if isNull(pr.v) {
		return ""
	}
	if pr.v.Kind != yaml.ScalarNode {
		d.errf(pr.v, "%s: expected a single value, found %s", pr.path, kindName(pr.v))
		return ""
	}
	return pr.v.Value
}

func (d *dec) boolean(pr pair) bool {
	s := d.str(pr)
	switch s {
	case "true":
		return true
	case "false", "":
		return false
	}
	d.errf(pr.v, "%s: expected true or false, found %q", pr.path, s)
	return false
}

func (d *dec) integer(pr pair) int {
	s := d.str(pr)
	if s == "" {
		return 0
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		d.errf(pr.v, "%s: expected an integer, found %q", pr.path, s)
	}
	return v
}

func (d *dec) kvs(pr pair) []KV {
	var out []KV
	for _, e := range d.pairs(pr.v, pr.path) {
		out = append(out, KV{e.key, d.str(e)})
	}
	return out
}

func (d *dec) unknown(pr pair) {
	d.warnf(pr.k, "unknown key %s", pr.path)
}

func (p *parser) frontMatter(c *canonResult, from, openLine int) {
	root := p.decodeYAML(c, from, openLine, "the front matter")
	if root == nil {
		return
	}
	d := &dec{p: p, base: from}
	doc := p.doc
	hasProvider := false
	for _, pr := range d.pairs(root, "") {
		switch pr.key {
		case "fkc_version":
			doc.FKCVersion = d.integer(pr)
		case "provider":
			hasProvider = true
			for _, e := range d.pairs(pr.v, pr.path) {
				switch e.key {
				case "name":
					doc.Provider.Name = d.str(e)
				case "backend":
					doc.Provider.Backend = d.str(e)
				case "kernel_source":
					doc.Provider.KernelSource = d.str(e)
				case "link_registry":
					doc.Provider.LinkRegistry = d.str(e)
				case "revision_base":
					doc.Provider.RevisionBase = d.str(e)
				default:
					d.unknown(e)
				}
			}
			if doc.Provider.Name == "" {
				d.errf(pr.k, "provider: missing required key provider.name")
			}
		default:
			d.warnf(pr.k, "unknown front-matter key %s", pr.path)
		}
	}
	if !hasProvider {
		p.add(openLine, "error", "", "front matter: missing required key provider")
	}
}

// kernel decodes one canonicalized block into k. It reports false when the
// block is not valid YAML (the kernel is then not loaded).
func (p *parser) kernel(k *Kernel, c *canonResult, from int) bool {
	root := p.decodeYAML(c, from, k.BlockLine, "the fkc block")
	if root == nil {
		return false
	}
	k.Comments = map[string]string{}
	d := &dec{p: p, base: from, comments: k.Comments}
	seen := map[string]bool{}
	var detLine *yaml.Node
	for _, pr := range d.pairs(root, "") {
		seen[pr.key] = true
		switch pr.key {
		case "kernel":
			k.Name = d.str(pr)
		case "op_kind":
			k.OpKind = d.str(pr)
		case "registrable":
			k.Registrable = d.boolean(pr)
			if isNull(pr.v) {
				k.Registrable = true
			}
		case "blurb":
			k.Blurb = d.str(pr)
		case "backend":
			k.Backend = d.str(pr)
		case "kernel_source":
			k.KernelSource = d.str(pr)
		case "entry_point":
			k.EntryPoint = d.str(pr)
		case "kernel_revision_hash":
			k.KernelRevisionHash = d.str(pr)
		case "determinism":
			k.Determinism = d.str(pr)
			detLine = pr.v
		case "accept":
			d.accept(k, pr, seen)
		case "return":
			d.ret(k, pr, seen)
		case "caps":
			d.caps(k, pr)
		case "cost":
			d.cost(k, pr)
		case "precision":
			d.precision(k, pr)
		default:
			d.warnf(pr.k, "unknown top-level key %s", pr.key)
		}
	}
	for _, req := range []string{"kernel", "op_kind", "backend", "entry_point", "accept.inputs", "return.outputs", "determinism"} {
		if !seen[req] {
			p.add(k.BlockLine, "error", "", "fkc block has no required key %s", req)
		}
	}
	if detLine != nil && k.Determinism != "" {
		ok := false
		for _, v := range Determinisms {
			ok = ok || v == k.Determinism
		}
		if !ok {
			d.errf(detLine, "determinism: %q is not one of %s", k.Determinism, strings.Join(Determinisms, ", "))
		}
	}
	d.checkOutputs(k)
	if len(k.Comments) == 0 {
		k.Comments = nil
	}
	return true
}

func (d *dec) accept(k *Kernel, pr pair, seen map[string]bool) {
	for _, e := range d.pairs(pr.v, pr.path) {
		switch e.key {
		case "inputs":
			seen["accept.inputs"] = true
			if e.v.Kind != yaml.SequenceNode {
				d.errf(e.v, "%s: expected a list of inputs, found %s", e.path, kindName(e.v))
				continue
			}
			for i, it := range e.v.Content {
				k.Inputs = append(k.Inputs, d.input(it, fmt.Sprintf("%s.%d", e.path, i)))
			}
		case "op_params":
			for _, o := range d.pairs(e.v, e.path) {
				switch o.key {
				case "variant":
					k.OpParams.Variant = d.str(o)
				case "fields":
					for _, f := range d.pairs(o.v, o.path) {
						fl := Field{Name: f.key}
						for _, a := range d.pairs(f.v, f.path) {
							switch a.key {
							case "kind":
								fl.Kind = d.str(a)
							case "constraint":
								fl.Constraint = d.str(a)
							case "note":
								fl.Note = d.str(a)
							default:
								d.unknown(a)
							}
						}
						k.OpParams.Fields = append(k.OpParams.Fields, fl)
					}
				default:
					d.unknown(o)
				}
			}
		default:
			d.unknown(e)
		}
	}
}

func (d *dec) input(n *yaml.Node, path string) Input {
	var in Input
	hasDTypes := false
	for _, e := range d.pairs(n, path) {
		switch e.key {
		case "name":
			in.Name = d.str(e)
		case "dtypes":
			hasDTypes = true
			items := []*yaml.Node{e.v}
			if e.v.Kind == yaml.SequenceNode {
				items = e.v.Content
			} else {
				d.errf(e.v, "%s: expected a list of dtypes such as [F32, F64], found %s", e.path, kindName(e.v))
				continue
			}
			repeated := map[tensor.DType]bool{}
			for _, it := range items {
				if it.Kind != yaml.ScalarNode {
					d.errf(it, "%s: expected a dtype name, found %s", e.path, kindName(it))
					continue
				}
				dt, err := tensor.ParseDType(it.Value)
				if err != nil {
					d.errf(it, "%s: unknown dtype %q (known: BOOL, U8, I8, I16, U32, I32, I64, F16, BF16, F32, F64)", e.path, it.Value)
					continue
				}
				// The registry binds once per listed dtype: a repeat would
				// bind a dtype twice (and a long list of repeats, millions
				// of times from one small file).
				if slices.Contains(in.DTypes, dt) {
					if !repeated[dt] {
						repeated[dt] = true
						d.errf(it, "%s: dtype %s is listed more than once (the registry binds each listed dtype once)", e.path, dt)
					}
					continue
				}
				in.DTypes = append(in.DTypes, dt)
				in.DTypeNames = append(in.DTypeNames, dt.String())
			}
			if len(e.v.Content) == 0 {
				d.errf(e.v, "%s: the dtype list is empty", e.path)
			}
		case "dtype_class":
			in.DTypeClass = d.str(e)
		case "layout":
			in.Layout = d.kvs(e)
		case "rank":
			in.Rank = d.str(e)
		case "shape_constraint":
			in.ShapeConstraint = d.str(e)
		default:
			d.unknown(e)
		}
	}
	if in.Name == "" {
		d.errf(n, "%s: input has no name", path)
	}
	if !hasDTypes {
		d.errf(n, "%s: input %s has no dtypes", path, in.Name)
	}
	return in
}

func (d *dec) ret(k *Kernel, pr pair, seen map[string]bool) {
	for _, e := range d.pairs(pr.v, pr.path) {
		if e.key != "outputs" {
			d.unknown(e)
			continue
		}
		seen["return.outputs"] = true
		if e.v.Kind != yaml.SequenceNode {
			d.errf(e.v, "%s: expected a list of outputs, found %s", e.path, kindName(e.v))
			continue
		}
		for i, it := range e.v.Content {
			var o Output
			path := fmt.Sprintf("%s.%d", e.path, i)
			for _, a := range d.pairs(it, path) {
				switch a.key {
				case "name":
					o.Name = d.str(a)
				case "dtype_rule":
					o.DTypeRule = d.str(a)
					d.ruleLine(k, len(k.Outputs), a.v)
				case "shape_rule":
					o.ShapeRule = d.str(a)
				case "layout_guarantee":
					o.LayoutGuarantee = d.str(a)
				case "aliasing":
					o.Aliasing = d.str(a)
				default:
					d.unknown(a)
				}
			}
			k.Outputs = append(k.Outputs, o)
		}
	}
}

// ruleLine remembers a dtype_rule node so checkOutputs can point at it.
func (d *dec) ruleLine(k *Kernel, i int, n *yaml.Node) {
	if d.rules == nil {
		d.rules = map[int]*yaml.Node{}
	}
	d.rules[i] = n
}

// checkOutputs validates dtype_rule: passthrough(INPUT) or fixed(DTYPE).
func (d *dec) checkOutputs(k *Kernel) {
	for i, o := range k.Outputs {
		n := d.rules[i]
		if n == nil {
			continue
		}
		path := fmt.Sprintf("return.outputs.%d.dtype_rule", i)
		r := strings.TrimSpace(o.DTypeRule)
		switch {
		case strings.HasPrefix(r, "fixed(") && strings.HasSuffix(r, ")"):
			if _, err := tensor.ParseDType(r[6 : len(r)-1]); err != nil {
				d.errf(n, "%s: unknown dtype %q in %s", path, r[6:len(r)-1], r)
			}
		case strings.HasPrefix(r, "passthrough(") && strings.HasSuffix(r, ")"):
			name := strings.TrimSpace(r[12 : len(r)-1])
			found := false
			for _, in := range k.Inputs {
				found = found || in.Name == name
			}
			if !found {
				d.errf(n, "%s: %s names no input of this kernel", path, r)
			}
		default:
			d.errf(n, "%s: %q is neither passthrough(INPUT) nor fixed(DTYPE)", path, r)
		}
	}
}

func (d *dec) caps(k *Kernel, pr pair) {
	for _, e := range d.pairs(pr.v, pr.path) {
		switch e.key {
		case "awkward_layout_strategy":
			k.Caps.AwkwardLayoutStrategy = d.str(e)
		case "fast_paths":
			if isNull(e.v) {
				continue
			}
			if e.v.Kind != yaml.SequenceNode {
				d.errf(e.v, "%s: expected a list, found %s", e.path, kindName(e.v))
				continue
			}
			k.Caps.FastPaths = [][]KV{}
			for i, it := range e.v.Content {
				k.Caps.FastPaths = append(k.Caps.FastPaths, d.kvs(pair{"", it, it, fmt.Sprintf("%s.%d", e.path, i)}))
			}
		case "in_place":
			k.Caps.InPlace = d.boolean(e)
		case "alignment_bytes":
			k.Caps.AlignmentBytes = d.integer(e)
		case "access_granularity_bits":
			k.Caps.AccessGranularityBits = d.integer(e)
		default:
			d.unknown(e)
		}
	}
}

func (d *dec) formula(e pair) string {
	s := d.str(e)
	if s == "" {
		return ""
	}
	if _, err := ParseExpr(s); err != nil {
		d.errf(e.v, "%s: cannot parse cost formula %q: %v", e.path, s, err)
	}
	return s
}

func (d *dec) cost(k *Kernel, pr pair) {
	for _, e := range d.pairs(pr.v, pr.path) {
		switch e.key {
		case "provenance":
			k.Cost.Provenance = d.str(e)
		case "class":
			k.Cost.Class = d.str(e)
		case "flops":
			k.Cost.Flops = d.formula(e)
		case "bytes_moved":
			k.Cost.BytesMoved = d.formula(e)
		case "overhead_ns":
			k.Cost.OverheadNs = d.formula(e)
		case "memory":
			for _, m := range d.pairs(e.v, e.path) {
				switch m.key {
				case "device_bytes":
					k.Cost.Memory.DeviceBytes = d.formula(m)
				case "host_bytes":
					k.Cost.Memory.HostBytes = d.formula(m)
				case "disk_bytes":
					k.Cost.Memory.DiskBytes = d.formula(m)
				default:
					d.unknown(m)
				}
			}
		default:
			d.unknown(e)
		}
	}
}

func (d *dec) precision(k *Kernel, pr pair) {
	for _, e := range d.pairs(pr.v, pr.path) {
		switch e.key {
		case "bit_stable_on_same_hardware":
			k.Precision.BitStableOnSameHardware = d.boolean(e)
		case "max_ulp":
			k.Precision.MaxULP = d.str(e)
		case "max_relative":
			k.Precision.MaxRelative = d.str(e)
		case "max_absolute":
			k.Precision.MaxAbsolute = d.str(e)
		case "audited":
			k.Precision.Audited = d.boolean(e)
		case "notes":
			k.Precision.Notes = d.str(e)
		default:
			d.unknown(e)
		}
	}
}
