package contract

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Cost formulas (`flops`, `bytes_moved`, `overhead_ns`, `memory.*`) are
// arithmetic over named symbols: numbers, identifiers (n, n_in, n_out,
// in_elem, out_elems, base_n, src_n, ids_len, d, dtype_bytes, …), + - * /,
// parentheses and unary minus, with the usual precedence.

// Expr is a parsed cost formula.
type Expr struct {
	src  string
	root node
}

type node interface {
	eval(env map[string]float64) (float64, error)
	syms(m map[string]bool)
}

type num float64
type sym string
type neg struct{ x node }
type bin struct {
	op   byte
	l, r node
}

func (n num) eval(map[string]float64) (float64, error) { return float64(n), nil }
func (n num) syms(map[string]bool)                     {}

func (s sym) eval(env map[string]float64) (float64, error) {
	v, ok := env[string(s)]
	if !ok {
		return 0, fmt.Errorf("unknown symbol %q", string(s))
	}
	return v, nil
}
func (s sym) syms(m map[string]bool) { m[string(s)] = true }

func (n neg) eval(env map[string]float64) (float64, error) {
	v, err := n.x.eval(env)
	return -v, err
}
func (n neg) syms(m map[string]bool) { n.x.syms(m) }

func (b bin) eval(env map[string]float64) (float64, error) {
	l, err := b.l.eval(env)
	if err != nil {
		return 0, err
	}
	r, err := b.r.eval(env)
	if err != nil {
		return 0, err
	}
	switch b.op {
	case '+':
		return l + r, nil
	case '-':
		return l - r, nil
	case '*':
		return l * r, nil
	}
	if r == 0 {
		return 0, fmt.Errorf("division by zero")
	}
	return l / r, nil
}
func (b bin) syms(m map[string]bool) { b.l.syms(m); b.r.syms(m) }

// ParseExpr parses a cost formula. The error names the offending token and
// its 1-based column.
func ParseExpr(s string) (*Expr, error) {
	p := &exprParser{s: s}
	p.next()
	if p.tok == tEOF {
		return nil, fmt.Errorf("empty formula")
	}
	n, err := p.sum(0)
	if err != nil {
		return nil, err
	}
	if p.tok != tEOF {
		return nil, p.errUnexpected()
	}
	return &Expr{src: s, root: n}, nil
}

// String is the formula as written.
func (e *Expr) String() string { return e.src }

// Eval evaluates the formula; a symbol missing from env is an error naming it.
// A cost is a count of bytes or operations: a result that is not finite
// (a formula such as "n * 1e308 * 1e308", or 0/0) is an error, not a
// figure the page shows as "+Inf GB/s".
func (e *Expr) Eval(env map[string]float64) (float64, error) {
	v, err := e.root.eval(env)
	if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
		return 0, fmt.Errorf("evaluates to %v here (an overflow or an undefined operation), not a count", v)
	}
	return v, err
}

// Symbols lists the identifiers the formula uses, sorted.
func (e *Expr) Symbols() []string {
	m := map[string]bool{}
	e.root.syms(m)
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Formulas lists a kernel's non-empty cost formulas in CostFields order,
// keyed by their dotted path (cost.bytes_moved, cost.flops, …,
// cost.memory.device_bytes, …).
func (k *Kernel) Formulas() []KV {
	var out []KV
	for _, f := range CostFields {
		if v := f.Get(k.Cost); v != "" {
			out = append(out, KV{"cost." + f.Name, v})
		}
	}
	return out
}

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tIdent
	tOp
	tBad
)

type exprParser struct {
	s     string
	pos   int // position after the current token
	start int // start of the current token
	tok   tokKind
	text  string
	depth int
}

func (p *exprParser) next() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
	p.start = p.pos
	if p.pos >= len(p.s) {
		p.tok, p.text = tEOF, ""
		return
	}
	c := p.s[p.pos]
	switch {
	case c >= '0' && c <= '9' || c == '.':
		for p.pos < len(p.s) && (isDigit(p.s[p.pos]) || p.s[p.pos] == '.' || p.s[p.pos] == '_') {
			p.pos++
		}
		if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
			q := p.pos + 1
			if q < len(p.s) && (p.s[q] == '+' || p.s[q] == '-') {
				q++
			}
			if q < len(p.s) && isDigit(p.s[q]) {
				for q < len(p.s) && isDigit(p.s[q]) {
					q++
				}
				p.pos = q
			}
		}
		p.tok = tNum
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		for p.pos < len(p.s) && (p.s[p.pos] == '_' || isDigit(p.s[p.pos]) || p.s[p.pos] >= 'a' && p.s[p.pos] <= 'z' || p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z') {
			p.pos++
		}
		p.tok = tIdent
	case strings.IndexByte("+-*/()", c) >= 0:
		p.pos++
		p.tok = tOp
	default:
		p.pos++
		p.tok = tBad
	}
	p.text = p.s[p.start:p.pos]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *exprParser) errUnexpected() error {
	if p.tok == tEOF {
		return fmt.Errorf("unexpected end of formula")
	}
	return fmt.Errorf("unexpected %q at column %d", p.text, p.start+1)
}

const maxExprDepth = 200

// sum := product { (+|-) product }
func (p *exprParser) sum(depth int) (node, error) {
	if depth > maxExprDepth {
		return nil, fmt.Errorf("formula nested too deeply")
	}
	l, err := p.product(depth)
	if err != nil {
		return nil, err
	}
	for p.tok == tOp && (p.text == "+" || p.text == "-") {
		op := p.text[0]
		p.next()
		r, err := p.product(depth)
		if err != nil {
			return nil, err
		}
		l = bin{op, l, r}
	}
	return l, nil
}

// product := unary { (*|/) unary }
func (p *exprParser) product(depth int) (node, error) {
	l, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for p.tok == tOp && (p.text == "*" || p.text == "/") {
		op := p.text[0]
		p.next()
		r, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l = bin{op, l, r}
	}
	return l, nil
}

// unary := - unary | ( sum ) | number | identifier
func (p *exprParser) unary(depth int) (node, error) {
	if depth > maxExprDepth {
		return nil, fmt.Errorf("formula nested too deeply")
	}
	switch p.tok {
	case tOp:
		switch p.text {
		case "-":
			p.next()
			x, err := p.unary(depth + 1)
			if err != nil {
				return nil, err
			}
			return neg{x}, nil
		case "+":
			p.next()
			return p.unary(depth + 1)
		case "(":
			open := p.start
			p.next()
			x, err := p.sum(depth + 1)
			if err != nil {
				return nil, err
			}
			if p.tok != tOp || p.text != ")" {
				if p.tok == tEOF {
					return nil, fmt.Errorf("unclosed ( at column %d", open+1)
				}
				return nil, p.errUnexpected()
			}
			p.next()
			return x, nil
		}
	case tNum:
		v, err := strconv.ParseFloat(strings.ReplaceAll(p.text, "_", ""), 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q at column %d", p.text, p.start+1)
		}
		p.next()
		return num(v), nil
	case tIdent:
		s := p.text
		p.next()
		if p.tok == tOp && p.text == "(" {
			return nil, fmt.Errorf("function calls such as %s(…) are not supported (column %d)", s, p.start+1)
		}
		return sym(s), nil
	}
	return nil, p.errUnexpected()
}
