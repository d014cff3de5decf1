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
	file      string
	doc       *Document
	diags     []Diagnostic
	rebuiltAt []int // source lines of the regions rebuilt from the schema

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
		p.diags = append(p.diags, tooMany(p.file, lines, p.droppedSev, p.dropped))
	}
}

func tooMany(file string, line int, sev string, n int) Diagnostic {
	return Diagnostic{File: file, Line: line, Severity: sev, Code: "TooMany",
		Msg: fmt.Sprintf("%d more findings are not listed (at most %d per document, contract.MaxDiagnostics)", n, MaxDiagnostics)}
}

// CapFindings bounds the findings listed per document when the loader's
// are joined by others (the registry's, one per kernel that cannot be
// fanned out, say): for each file, the first MaxDiagnostics in the given
// order, then one TooMany finding that counts the rest — the loader's
// own count included — with the gravest severity among them. A pasted
// document of 30,000 empty sections listed 31,001 findings without it.
func CapFindings(ds []Diagnostic) []Diagnostic {
	kept := map[string]int{}
	dropped := map[string]int{}
	sev := map[string]string{}
	last := map[string]int{}
	var order []string
	out := ds[:0:0]
	for _, d := range ds {
		if _, ok := kept[d.File]; !ok {
			kept[d.File] = 0
			order = append(order, d.File)
		}
		last[d.File] = max(last[d.File], d.Line)
		n := 1
		if d.Code == "TooMany" {
			fmt.Sscanf(d.Msg, "%d more findings", &n)
		} else if kept[d.File] < MaxDiagnostics {
			kept[d.File]++
			out = append(out, d)
			continue
		}
		dropped[d.File] += n
		if severityRank[d.Severity] > severityRank[sev[d.File]] {
			sev[d.File] = d.Severity
		}
	}
	for _, f := range order {
		if dropped[f] > 0 {
			out = append(out, tooMany(f, last[f], sev[f], dropped[f]))
		}
	}
	return out
}

func (p *parser) layout(L *layout) {
	d := p.doc
	for _, ld := range L.diags {
		p.add(ld.line+1, ld.severity, ld.code, "%s", ld.msg)
	}
	end := L.preambleTo
	for end > 0 && strings.TrimSpace(L.lines[end-1]) == "" {
		end--
	}
	for _, l := range L.lines[:end] {
		d.Preamble = append(d.Preamble, trimCR(l))
	}
	if L.fmOpen < 0 {
		p.add(1, "error", "", "no YAML front matter (--- … ---) with fkc_version and provider")
	} else if n := regionBytes(L.lines[L.fmOpen+1 : L.fmClose]); n > MaxBlockBytes {
		p.add(L.fmOpen+1, "error", "TooLarge", "the front matter is %d bytes; it may be at most %d (contract.MaxBlockBytes); it is not loaded", n, MaxBlockBytes)
	} else {
		c := canonicalize(L.lines[L.fmOpen+1:L.fmClose], frontMatterSchema)
		p.lineDiags(c, L.fmOpen+1)
		if c.flat {
			d.Rebuilt = append(d.Rebuilt, "front matter")
			p.rebuiltAt = append(p.rebuiltAt, L.fmOpen+1)
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
		mark := len(p.diags)
		k := &Kernel{Heading: s.headingText, BlockLine: s.fence + 1, Line: s.heading + 1, Registrable: true}
		if s.heading < 0 {
			k.Line = s.fence + 1
		}
		if p.block(L, s, k) {
			d.Kernels = append(d.Kernels, k)
		}
		if k.Name == "" {
			k.Name = headingName(s.headingText)
		}
		if k.Name != "" {
			// every finding of the section concerns its kernel (loaded or not)
			for i := mark; i < len(p.diags); i++ {
				p.diags[i].Kernels = []KernelID{d.KernelID(k)}
			}
		}
	}
	if len(p.rebuiltAt) > 0 {
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
		p.add(p.rebuiltAt[0], "info", "RebuiltNesting",
			"YAML indentation was lost; rebuilt the nesting of %s from the FKC schema (`fkc fmt -w` rewrites the file canonically)", what)
	}
}

// block loads the fkc block of section s into k; it reports false when the
// kernel is not loaded (an unclosed block, or one that is not YAML).
func (p *parser) block(L *layout, s *section, k *Kernel) bool {
	for _, f := range s.extraFences {
		p.add(f+1, "error", "", "a second ```fkc block in section ## %s; only the first block of a section is loaded", s.headingText)
	}
	if s.heading < 0 {
		p.add(s.fence+1, "error", "", "```fkc block outside a `## kernel` section")
	}
	if n := regionBytes(L.lines[s.blockFrom:s.blockTo]); n > MaxBlockBytes {
		p.add(s.fence+1, "error", "TooLarge", "```fkc block of section ## %s is %d bytes; a block may be at most %d (contract.MaxBlockBytes); the section is not loaded", s.headingText, n, MaxBlockBytes)
		return false
	}
	c := canonicalize(L.lines[s.blockFrom:s.blockTo], blockSchema)
	p.lineDiags(c, s.blockFrom)
	if s.truncated {
		why := "the file ends mid-block"
		if s.blockTo < len(L.lines) {
			why = fmt.Sprintf("no closing ``` before line %d", s.blockTo+1)
		}
		p.add(s.fence+1, "error", "Unclosed", "```fkc block is never closed (%s); section ## %s is not loaded", why, s.headingText)
		return false
	}
	k.Prose = L.text(s.proseFrom, s.fence)
	if !p.kernel(k, c, s.blockFrom) {
		return false
	}
	if c.flat {
		p.doc.Rebuilt = append(p.doc.Rebuilt, "block "+k.Name)
		p.rebuiltAt = append(p.rebuiltAt, s.fence+1)
	}
	if h := headingName(s.headingText); s.heading >= 0 && k.Name != "" && h != k.Name {
		p.add(s.heading+1, "warning", "", "heading ## %s does not match the block's kernel: %s", h, k.Name)
	}
	return true
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
				// yaml.v3 numbers a parser error ("did not find expected
				// ',' or ']'") by its context's 0-based line, the line
				// where the unclosed '[' or '{' opened; scanner errors
				// come 1-based.
				if strings.HasPrefix(m[2], "did not find expected") {
					line++
				}
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

// dec walks one decoded region along its schema (schema.go).
type dec struct {
	p        *parser
	base     int               // source line = base + node.Line
	comments map[string]string // nil: comments are not kept (the front matter)
	seen     map[string]bool   // dotted paths of the known keys decoded
	kernel   *Kernel           // the block's kernel; nil in the front matter
	later    []func()          // checks that need the whole block (dtype_rule → inputs)
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
		if isNull(n) {
			return "nothing"
		}
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

// decodeMap decodes the entries of mapping n into target (the model value
// of the schema node sc): a key sc knows decodes by its node, any other is a
// warning. what names such a key in the message ("key", "top-level key").
func (d *dec) decodeMap(n *yaml.Node, path string, sc *keyDef, target any, what string) {
	for _, e := range d.pairs(n, path) {
		c := findKey(sc.children, e.key)
		if c == nil {
			d.warnf(e.k, "unknown %s %s", what, e.path)
			continue
		}
		d.seen[e.path] = true
		if d.kernel != nil {
			d.kernel.KeyLines[e.path] = d.line(e.k)
		}
		c.decode(d, target, e)
	}
}

// requireKeys reports every required key of sc (through nested sections)
// that was not decoded under path, at line; what names the mapping.
func (d *dec) requireKeys(sc *keyDef, path string, line int, what string) {
	var walk func(sc *keyDef, rel string)
	walk = func(sc *keyDef, rel string) {
		for _, c := range sc.children {
			r := join(rel, c.key)
			if c.required && !d.seen[join(path, r)] {
				d.p.add(line, "error", "", "%s has no required key %s", what, r)
			}
			if c.kind == kMap {
				walk(c, r)
			}
		}
	}
	walk(sc, "")
}

// region decodes a region's root mapping into target along sc, then runs
// the checks that need the whole region and the required-key checks.
// unknown names a key sc does not know in the message.
func (d *dec) region(root *yaml.Node, sc *keyDef, target any, line int, unknown string) {
	d.seen = map[string]bool{}
	d.decodeMap(root, "", sc, target, unknown)
	for _, f := range d.later {
		f()
	}
	d.requireKeys(sc, "", line, sc.key)
}

// sequence is the entries of list node n's value; a `~` value is an absent
// list unless the list is required, anything else but a list an error.
func (d *dec) sequence(n *keyDef, e pair) ([]*yaml.Node, bool) {
	if isNull(e.v) && !n.required {
		return nil, false
	}
	if e.v.Kind != yaml.SequenceNode {
		d.errf(e.v, "%s: expected a list of %ss, found %s", e.path, n.noun, kindName(e.v))
		return nil, false
	}
	return e.v.Content, true
}

// named is " NAME" for a list entry with a scalar name key, else "".
func named(it *yaml.Node) string {
	if it.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(it.Content); i += 2 {
			if k, v := it.Content[i], it.Content[i+1]; k.Value == "name" && v.Kind == yaml.ScalarNode && v.Value != "" {
				return " " + v.Value
			}
		}
	}
	return ""
}

func (p *parser) frontMatter(c *canonResult, from, openLine int) {
	root := p.decodeYAML(c, from, openLine, "the front matter")
	if root == nil {
		return
	}
	d := &dec{p: p, base: from}
	d.region(root, frontMatterKeys, p.doc, openLine, "front-matter key")
}

// kernel decodes one canonicalized block into k. It reports false when the
// block is not valid YAML (the kernel is then not loaded).
func (p *parser) kernel(k *Kernel, c *canonResult, from int) bool {
	root := p.decodeYAML(c, from, k.BlockLine, "the fkc block")
	if root == nil {
		return false
	}
	k.Comments, k.KeyLines = map[string]string{}, map[string]int{}
	d := &dec{p: p, base: from, comments: k.Comments, kernel: k}
	d.region(root, blockKeys, k, k.BlockLine, "top-level key")
	if len(k.Comments) == 0 {
		k.Comments = nil
	}
	return true
}

// decodeDTypes decodes an input's dtypes: [F32, F64].
func decodeDTypes(d *dec, t any, e pair) {
	in := t.(*Input)
	if e.v.Kind != yaml.SequenceNode {
		d.errf(e.v, "%s: expected a list of dtypes such as [F32, F64], found %s", e.path, kindName(e.v))
		return
	}
	repeated := map[tensor.DType]bool{}
	for _, it := range e.v.Content {
		if it.Kind != yaml.ScalarNode {
			d.errf(it, "%s: expected a dtype name, found %s", e.path, kindName(it))
			continue
		}
		dt, err := tensor.ParseDType(it.Value)
		if err != nil {
			d.errf(it, "%s: %v", e.path, err)
			continue
		}
		// The registry binds once per listed dtype: a repeat would bind a
		// dtype twice (and a long list of repeats, millions of times from
		// one small file).
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
}

// decodeDTypeRule parses an output's dtype_rule; that a passthrough names
// an input of the kernel is checked once the whole block is decoded.
func decodeDTypeRule(d *dec, t any, e pair) {
	o := t.(*Output)
	r, err := ParseDTypeRule(d.str(e))
	if err != nil {
		d.errf(e.v, "%s: %v", e.path, err)
		return
	}
	o.DTypeRule = r
	if k := d.kernel; k != nil && r.Passthrough != "" {
		d.later = append(d.later, func() {
			if !slices.ContainsFunc(k.Inputs, func(in Input) bool { return in.Name == r.Passthrough }) {
				d.errf(e.v, "%s: %s names no input of this kernel (%s)", e.path, r, inputNames(k.Inputs))
			}
		})
	}
}

// shapeRuleOperands are the shape_rule forms whose first argument is an
// input of the kernel: same_as(x), reduce(x, dims, keepdim), pad(x,
// padding), pad_backward(grad_out, padding), index_select(data, dim, n).
// Other forms (from_params(FIELD), prose) are not checked here.
var shapeRuleOperands = []string{"same_as", "reduce", "pad", "pad_backward", "index_select"}

var reShapeRule = regexp.MustCompile(`^\s*([a-z_]+)\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*[,)]`)

// decodeShapeRule keeps an output's shape_rule as written; that a rule of
// shapeRuleOperands names an input of the kernel is checked once the
// whole block is decoded (same_as(inptu) is an error at its line).
func decodeShapeRule(d *dec, t any, e pair) {
	o := t.(*Output)
	o.ShapeRule = d.str(e)
	m := reShapeRule.FindStringSubmatch(o.ShapeRule)
	if k := d.kernel; k != nil && m != nil && slices.Contains(shapeRuleOperands, m[1]) {
		d.later = append(d.later, func() {
			if !slices.ContainsFunc(k.Inputs, func(in Input) bool { return in.Name == m[2] }) {
				d.errf(e.v, "%s: %s(%s …) names no input of this kernel (%s)", e.path, m[1], m[2], inputNames(k.Inputs))
			}
		})
	}
}

// inputNames says what a kernel's inputs are called, for a message.
func inputNames(ins []Input) string {
	var names []string
	for _, in := range ins {
		if in.Name != "" {
			names = append(names, in.Name)
		}
	}
	switch len(names) {
	case 0:
		return "it has no named input"
	case 1:
		return "its input is " + names[0]
	}
	return "its inputs are " + strings.Join(names, ", ")
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
