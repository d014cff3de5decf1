package contract

import (
	"fmt"
	"strings"
)

// The line-level canonicalizer. It computes, for every line of a YAML region
// (the front matter or one ```fkc block), the indentation that line has in
// the canonical 2-space style of the intact seeds:
//
//	accept:
//	  inputs:
//	    - name: data
//	      dtypes: [F32]
//	  op_params:
//	    variant: Pad
//	    fields:
//	      dim: { kind: usize }
//
// Both the loader (canonicalize, then decode with yaml.v3) and the formatter
// (rewrite leading whitespace only) use it, so a formatted file decodes to
// exactly the text the loader decoded from the original.
//
// Two modes. An indented region keeps the nesting its author wrote: the
// source indentation decides the structure and only the widths are
// normalized. A flattened region (every line at column 0, yet some key opens
// a nested section) has lost its nesting; it is rebuilt from the schema
// (schema.go, seen through canonSchema):
// section keys open contexts, `- ` starts a list item, inside `fields` every
// `name: {flow map}` is a field, and a key known to an enclosing context (a
// top-level key such as `return:` or `determinism:`) closes the inner ones.

// lineKind classifies one line of a YAML region.
type lineKind int

const (
	lkBlank lineKind = iota
	lkComment
	lkKey   // key: value
	lkDash  // - item
	lkOther // anything else: a continuation line
)

type yline struct {
	kind    lineKind
	indent  int    // width of the leading whitespace (a TAB counts as one)
	text    string // the line without its leading whitespace (and without a trailing \r)
	cr      bool   // the line ended in \r\n
	tab     int    // 1-based column of the first TAB in the line, 0 if none
	key     string // lkKey, or lkDash whose content is a key
	value   string // the key's value, comment stripped and trimmed ("" = opens a nested block)
	dashOff int    // lkDash: offset of the content from the dash ("- name" → 2)
	dashKey bool   // lkDash: the content is `key: value`
	dashNil bool   // lkDash: nothing after the dash
}

func classify(raw string) yline {
	l := yline{}
	if strings.HasSuffix(raw, "\r") {
		raw = raw[:len(raw)-1]
		l.cr = true
	}
	if i := strings.IndexByte(raw, '\t'); i >= 0 {
		l.tab = i + 1
	}
	t := strings.TrimLeft(raw, " \t")
	l.indent = len(raw) - len(t)
	l.text = t
	switch {
	case strings.TrimSpace(t) == "":
		l.kind = lkBlank
	case t[0] == '#':
		l.kind = lkComment
	case t == "-" || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "-\t"):
		l.kind = lkDash
		rest := strings.TrimLeft(t[1:], " \t")
		l.dashOff = len(t) - len(rest)
		if rest == "" || rest[0] == '#' {
			l.dashNil = true
			l.dashOff = 2
		} else if k, v, ok := splitKey(rest); ok {
			l.dashKey, l.key, l.value = true, k, v
		}
	default:
		if k, v, ok := splitKey(t); ok {
			l.kind, l.key, l.value = lkKey, k, v
		} else {
			l.kind = lkOther
		}
	}
	return l
}

// splitKey splits "key: value # comment" into key and value (comment
// stripped, trimmed). Keys are plain identifiers (letters, digits, _ - .).
func splitKey(s string) (key, value string, ok bool) {
	i := 0
	for i < len(s) && isKeyByte(s[i], i == 0) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	j := i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j >= len(s) || s[j] != ':' {
		return "", "", false
	}
	if j+1 < len(s) && s[j+1] != ' ' && s[j+1] != '\t' {
		return "", "", false // "a:b" is a plain scalar, not a key
	}
	return s[:i], strings.TrimSpace(stripComment(s[j+1:])), true
}

func isKeyByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-', c == '.':
		return !first
	}
	return false
}

// stripComment drops a trailing " # comment", respecting quotes.
func stripComment(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '"' && c == '\\':
			i++
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			if i == 0 || s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '[' || s[i-1] == '{' || s[i-1] == ',' || s[i-1] == ':' {
				q = c
			}
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

// canonResult is the canonicalizer's answer for one region.
type canonResult struct {
	lines  []yline
	indent []int // canonical indentation per line (blank lines: 0, written empty)
	flat   bool  // the region had lost its indentation and was rebuilt from the schema
	diags  []lineDiag
}

// lineDiag is a finding at a line index of the region (0-based).
type lineDiag struct {
	line     int
	severity string
	msg      string
	code     string // the Diagnostic's Code ("" for most)
}

// text renders line i canonically.
func (r *canonResult) text(i int) string {
	l := r.lines[i]
	s := ""
	if l.kind != lkBlank {
		s = strings.Repeat(" ", r.indent[i]) + l.text
	}
	if l.cr {
		s += "\r"
	}
	return s
}

// yamlText is the canonical region as YAML source for the decoder; TABs
// (already reported) become spaces so that one stray TAB is one finding.
func (r *canonResult) yamlText() string {
	var b strings.Builder
	for i := range r.lines {
		b.WriteString(strings.ReplaceAll(strings.TrimSuffix(r.text(i), "\r"), "\t", " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func canonicalize(raw []string, sc *schema) *canonResult {
	r := &canonResult{lines: make([]yline, len(raw)), indent: make([]int, len(raw))}
	for i, s := range raw {
		r.lines[i] = classify(s)
		if c := r.lines[i].tab; c > 0 {
			what := "inside the line"
			if c <= r.lines[i].indent {
				what = "in the indentation (YAML indents with spaces only)"
			}
			r.diags = append(r.diags, lineDiag{i, "error", fmt.Sprintf("stray TAB character at column %d %s", c, what), ""})
		}
	}
	r.flat = isFlat(r.lines)
	if !r.flat {
		r.nestedIndents()
		// Indentation so inconsistent that nothing nests is flattened
		// YAML too; deciding on the result keeps Format idempotent.
		canon := make([]yline, len(r.lines))
		for i, l := range r.lines {
			canon[i] = l
			canon[i].indent, canon[i].tab = r.indent[i], 0
		}
		r.flat = isFlat(canon)
	}
	if r.flat {
		clear(r.indent)
		r.flatIndents(sc)
	}
	// A full-line comment takes the indentation of the next content line.
	next := 0
	for i := len(r.lines) - 1; i >= 0; i-- {
		switch r.lines[i].kind {
		case lkBlank:
			r.indent[i] = 0
		case lkComment:
			r.indent[i] = next
		default:
			next = r.indent[i]
		}
	}
	return r
}

// isFlat reports whether a region lost its indentation: no content line is
// indented, yet some key opens a nested block and is followed by content.
func isFlat(lines []yline) bool {
	opener := false
	for _, l := range lines {
		switch l.kind {
		case lkBlank, lkComment:
			continue
		}
		if l.tab > 0 && l.tab <= l.indent {
			continue // a TAB in the indentation is reported; it says nothing about nesting
		}
		if l.indent > 0 {
			return false
		}
		if opener {
			return true
		}
		opener = (l.kind == lkKey && l.value == "") || (l.kind == lkDash && l.dashKey && l.value == "")
	}
	return false
}

// frame is an open context of the flat-mode rebuild.
type frame struct {
	sc     *schema // nil: unknown, accepts anything
	list   bool
	item   bool
	indent int // canonical indentation of the context's children
}

func (f *frame) knows(key, value string) bool {
	if f.sc == nil {
		return false
	}
	if f.sc.fields {
		return strings.HasPrefix(value, "{")
	}
	_, ok := f.sc.children[key]
	return ok
}

// flatIndents rebuilds the nesting of a flattened region from the schema.
func (r *canonResult) flatIndents(root *schema) {
	stack := []*frame{{sc: root}}
	last := 0        // indentation of the content of the last key/dash line
	started := false // a key or dash line was seen (an earlier line has nothing to continue)
	open := func(parent *schema, key string, indent int) {
		var sc *schema
		if parent != nil && !parent.fields {
			sc = parent.children[key]
		}
		f := &frame{sc: sc, indent: indent + 2}
		if sc != nil && sc.list {
			f.list = true
		}
		stack = append(stack, f)
	}
	placeKey := func(key, value string) *frame {
		// the innermost context that knows the key wins; a key nobody knows
		// stays in the innermost context that can hold it
		for j := len(stack) - 1; j >= 0; j-- {
			if stack[j].knows(key, value) {
				stack = stack[:j+1]
				return stack[j]
			}
		}
		for len(stack) > 1 {
			top := stack[len(stack)-1]
			if (top.sc != nil && top.sc.fields) || top.list {
				stack = stack[:len(stack)-1]
				continue
			}
			break
		}
		return stack[len(stack)-1]
	}
	for i, l := range r.lines {
		switch l.kind {
		case lkKey:
			f := placeKey(l.key, l.value)
			r.indent[i] = f.indent
			last = f.indent
			if l.value == "" {
				open(f.sc, l.key, f.indent)
			}
		case lkDash:
			// the innermost list (or unknown) context takes the item; with
			// none open, the item goes under the innermost context
			j := len(stack) - 1
			for k := j; k > 0; k-- {
				if stack[k].list || (stack[k].sc == nil && !stack[k].item) {
					j = k
					break
				}
			}
			stack = stack[:j+1]
			lf := stack[j]
			r.indent[i] = lf.indent
			var isc *schema
			if lf.sc != nil {
				isc = lf.sc.item
			}
			if l.dashKey || l.dashNil {
				it := &frame{sc: isc, item: true, indent: lf.indent + l.dashOff}
				stack = append(stack, it)
				last = it.indent
				if l.dashNil {
					last = lf.indent // what follows a bare dash nests under it
				}
				if l.dashKey && l.value == "" {
					open(isc, l.key, it.indent)
				}
			} else {
				last = lf.indent + l.dashOff
			}
		case lkOther:
			if started {
				r.indent[i] = last + 2 // continues the previous value
			}
		}
		started = started || l.kind == lkKey || l.kind == lkDash
	}
}

// nframe is an open level of the indentation-driven re-indent.
type nframe struct {
	src, canon int
	compact    bool // a sequence written at its parent key's indentation
}

// nestedIndents keeps the author's nesting and normalizes its widths.
func (r *canonResult) nestedIndents() {
	var stack []nframe
	opener := false              // the previous content line opens a nested block
	openerKey := false           // … and it is a `key:` line (not a bare `-`)
	openerCanon := 0             // canonical indentation of that opener's key
	ownerSrc, ownerCanon := 0, 0 // the last key/dash line, for continuation lines
	for i, l := range r.lines {
		if l.kind == lkBlank || l.kind == lkComment {
			continue
		}
		if stack == nil {
			stack = []nframe{{src: l.indent}}
		}
		top := &stack[len(stack)-1]
		if l.tab > 0 && l.tab <= l.indent {
			// A TAB in the indentation (reported) has no width: take the
			// line as the first child of an opener, else as a sibling.
			l.indent = top.src
			if opener {
				l.indent = top.src + 2
			}
		}
		switch {
		case l.indent > top.src:
			if !opener {
				// a continuation of the previous scalar or flow collection
				r.indent[i] = ownerCanon + (l.indent - ownerSrc)
				if r.indent[i] < ownerCanon+1 {
					r.indent[i] = ownerCanon + 1
				}
				continue
			}
			stack = append(stack, nframe{src: l.indent, canon: openerCanon + 2})
		default:
			for len(stack) > 1 {
				t := stack[len(stack)-1]
				if t.src > l.indent || (t.compact && t.src == l.indent && l.kind != lkDash) {
					stack = stack[:len(stack)-1]
					continue
				}
				break
			}
			if t := stack[len(stack)-1]; t.src != l.indent {
				r.diags = append(r.diags, lineDiag{i, "error", fmt.Sprintf(
					"inconsistent indentation: %d spaces matches no enclosing level", l.indent), ""})
			}
			if l.kind == lkDash && opener && openerKey {
				// a sequence written at its key's indentation (a bare `-`
				// followed by a `-` at its own indentation is a sibling)
				stack = append(stack, nframe{src: l.indent, canon: openerCanon + 2, compact: true})
			}
		}
		top = &stack[len(stack)-1]
		c := top.canon
		r.indent[i] = c
		ownerSrc, ownerCanon = l.indent, c
		opener, openerKey = false, false
		switch l.kind {
		case lkKey:
			opener, openerKey, openerCanon = l.value == "", l.value == "", c
		case lkDash:
			if l.dashKey {
				stack = append(stack, nframe{src: l.indent + l.dashOff, canon: c + l.dashOff})
				opener, openerKey, openerCanon = l.value == "", l.value == "", c+l.dashOff
			} else if l.dashNil {
				opener, openerCanon = true, c
			}
		case lkOther:
			opener = false
		}
	}
}
