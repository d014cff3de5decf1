package tensor

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The .npy header is a Python dict literal, written by numpy.save as
//
//	{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//
// and read back by numpy with ast.literal_eval. It is parsed here with a
// small strict grammar rather than searched with patterns, so that a key
// inside a string value, a repeated key or a malformed tuple is refused
// instead of silently read some other way:
//
//	header := ws dict ws                       (numpy pads with spaces and '\n')
//	dict   := '{' ws [ item { ws ',' ws item } ws [','] ] ws '}'
//	item   := str ws ':' ws value
//	value  := str | 'True' | 'False' | tuple
//	tuple  := '(' ws ')'                        ()       rank 0
//	        | '(' ws int ws ',' ws ')'          (3,)     one element needs the comma, as in Python
//	        | '(' ws int { ws ',' ws int }+ ws [','] ws ')'
//	int    := '0' | [1-9][0-9]* ['L']           ('L': Python 2 headers)
//	str    := "'" chars "'" | '"' chars '"'     (no escapes, no newline)
//	ws     := { ' ' | '\t' | '\r' | '\n' }
//
// The dict holds exactly the keys descr, fortran_order and shape, each once
// (Python would let a repeated key's last value win; a file that repeats
// one is refused here), with a str, a bool and a tuple as values.

// npyHeader is a parsed header dict.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// npyKeys are the keys a header must have, in numpy's order.
var npyKeys = []string{"descr", "fortran_order", "shape"}

type hdrParser struct {
	s []byte
	i int
}

// hdrError is a header syntax or schema error at a byte offset.
func (p *hdrParser) errorf(format string, args ...any) error {
	return fmt.Errorf("npy: header: %s (at byte %d of %s)", fmt.Sprintf(format, args...), p.i, clip(p.s))
}

// clip quotes a header for a message, without numpy's padding, shortened
// when long.
func clip(b []byte) string {
	const max = 120
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}

func (p *hdrParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end.
func (p *hdrParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// what names the next byte for a message.
func (p *hdrParser) what() string {
	if p.i >= len(p.s) {
		return "the end of the header"
	}
	// The character there (a v3 header is UTF-8), or the byte if it starts
	// none.
	if r, n := utf8.DecodeRune(p.s[p.i:]); r != utf8.RuneError || n > 1 {
		return strconv.QuoteRune(r)
	}
	return strconv.Quote(string(p.s[p.i : p.i+1]))
}

func (p *hdrParser) expect(c byte, context string) error {
	if p.peek() != c {
		return p.errorf("want %q %s, found %s", c, context, p.what())
	}
	p.i++
	return nil
}

func (p *hdrParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("want a quoted string, found %s", p.what())
	}
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case q:
			p.i++
			return string(p.s[start+1 : p.i-1]), nil
		case '\\', '\n', '\r':
			return "", p.errorf("string %s holds %q: escapes and line breaks are not part of a numpy header", strconv.Quote(string(p.s[start:p.i])), c)
		}
		p.i++
	}
	p.i = start
	return "", p.errorf("unterminated string")
}

func (p *hdrParser) integer() (int, error) {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	digits := string(p.s[start:p.i])
	switch {
	case digits == "":
		if p.peek() == '-' {
			return 0, p.errorf("shape entries are sizes: a negative size is not one")
		}
		return 0, p.errorf("want a shape entry (a non-negative integer), found %s", p.what())
	case len(digits) > 1 && digits[0] == '0':
		p.i = start
		return 0, p.errorf("shape entry %s has a leading zero (not a Python integer literal)", digits)
	}
	if p.peek() == 'L' { // Python 2's long suffix, as old numpy wrote it
		p.i++
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || v > math.MaxInt {
		p.i = start
		return 0, p.errorf("shape entry %s is larger than %d", digits, math.MaxInt)
	}
	return int(v), nil
}

func (p *hdrParser) tuple() ([]int, error) {
	open := p.i
	p.i++ // '('
	shape := []int{}
	p.ws()
	if p.peek() == ')' {
		p.i++
		return shape, nil
	}
	for {
		d, err := p.integer()
		if err != nil {
			return nil, err
		}
		shape = append(shape, d)
		p.ws()
		switch p.peek() {
		case ')':
			if len(shape) == 1 {
				return nil, p.errorf("(%d) is an integer in Python, not a tuple: a rank-1 shape is written (%d,)", d, d)
			}
			p.i++
			return shape, nil
		case ',':
			p.i++
			p.ws()
			if p.peek() == ')' {
				p.i++
				return shape, nil
			}
		case 0:
			p.i = open
			return nil, p.errorf("unterminated tuple")
		default:
			return nil, p.errorf("want ',' or ')' in the shape tuple, found %s", p.what())
		}
	}
}

// value parses one dict value into v: a string, a bool or a []int.
func (p *hdrParser) value() (any, error) {
	switch c := p.peek(); {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(':
		return p.tuple()
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		start := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] == '_') {
			p.i++
		}
		switch w := string(p.s[start:p.i]); w {
		case "True":
			return true, nil
		case "False":
			return false, nil
		default:
			p.i = start
			return nil, p.errorf("%s is not a value a numpy header holds (a string, True, False or a tuple)", strconv.Quote(w))
		}
	default:
		return nil, p.errorf("want a value (a string, True, False or a tuple), found %s", p.what())
	}
}

// parseNpyHeader parses and checks a header dict (see the grammar above).
func parseNpyHeader(h []byte) (npyHeader, error) {
	p := &hdrParser{s: h}
	var hd npyHeader
	p.ws()
	if p.peek() != '{' {
		return hd, p.errorf("not a Python dict literal: want '{', found %s", p.what())
	}
	p.i++
	seen := map[string]bool{}
	for {
		p.ws()
		if p.peek() == '}' {
			p.i++
			break
		}
		keyAt := p.i
		key, err := p.str()
		if err != nil {
			return hd, err
		}
		if !slices.Contains(npyKeys, key) {
			p.i = keyAt
			return hd, p.errorf("unknown key %s (a numpy header has exactly 'descr', 'fortran_order' and 'shape')", strconv.Quote(key))
		}
		if seen[key] {
			p.i = keyAt
			return hd, p.errorf("duplicate key %s", strconv.Quote(key))
		}
		seen[key] = true
		p.ws()
		if err := p.expect(':', "after key "+strconv.Quote(key)); err != nil {
			return hd, err
		}
		p.ws()
		valAt := p.i
		v, err := p.value()
		if err != nil {
			return hd, err
		}
		ok := false
		switch key {
		case "descr":
			hd.descr, ok = v.(string)
		case "fortran_order":
			hd.fortran, ok = v.(bool)
		case "shape":
			hd.shape, ok = v.([]int)
		}
		if !ok {
			p.i = valAt
			return hd, p.errorf("%s must be %s", strconv.Quote(key), map[string]string{
				"descr": "a string such as '<f4'", "fortran_order": "True or False", "shape": "a tuple of sizes"}[key])
		}
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
		case '}':
		default:
			return hd, p.errorf("want ',' or '}' after the value of %s, found %s", strconv.Quote(key), p.what())
		}
	}
	p.ws()
	if p.i != len(p.s) {
		return hd, p.errorf("%s after the dict", p.what())
	}
	var missing []string
	for _, k := range npyKeys {
		if !seen[k] {
			missing = append(missing, "'"+k+"'")
		}
	}
	if len(missing) > 0 {
		return hd, fmt.Errorf("npy: header has no %s (a numpy header has exactly 'descr', 'fortran_order' and 'shape')", strings.Join(missing, ", "))
	}
	return hd, nil
}

// formatNpyHeader writes a header dict as numpy.save does:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
func formatNpyHeader(h npyHeader) string {
	dims := make([]string, len(h.shape))
	for i, d := range h.shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	fortran := "False"
	if h.fortran {
		fortran = "True"
	}
	q := "'" // as Python's repr: double quotes around a string holding a single one
	if strings.Contains(h.descr, "'") {
		q = `"`
	}
	return fmt.Sprintf("{'descr': %s%s%s, 'fortran_order': %s, 'shape': (%s), }", q, h.descr, q, fortran, shape)
}
