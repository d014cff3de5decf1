package lab

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The loop budget: a GPU without a watchdog (lavapipe: an endless loop
// spins until the process dies) must not be handed a loop that never
// ends. Every loop body of the user's module — loop, for, while — starts
// with a tick of one counter per invocation; past the budget the tick sets
// the budget binding's flag and the loop breaks, so every loop after it
// breaks at once too and the dispatch ends.

// tick is what the rewrite puts after the opening brace of every loop body.
const tick = " if (lab_tick()) { break; }"

// uniformTick is the tick of a loop that a barrier must be able to follow
// or sit in (its body holds a barrier, or one comes after it in the same
// function): the counter is per invocation, so its break would make the
// barrier's control flow non-uniform, which WGSL refuses. lab_tick_uniform
// ends the loop for the whole workgroup at once, through a workgroup flag
// read with workgroupUniformLoad (itself a barrier: such a loop must be in
// uniform control flow, as a barrier loop is).
const uniformTick = " if (lab_tick_uniform()) { break; }"

// barrierCalls are the calls that need uniform control flow.
var barrierCalls = regexp.MustCompile(`\b(workgroupBarrier|storageBarrier|textureBarrier|workgroupUniformLoad)\s*\(`)

// needsUniform reports whether the loop body opening at src[open] ('{')
// holds a barrier, or one follows it in the same function. code is src
// with its comments blanked out (the same length).
func needsUniform(code string, open int) bool {
	end := matching(code, open)
	if barrierCalls.MatchString(code[open:end]) {
		return true
	}
	// the enclosing function's end: where the brace depth, counted from
	// the module's start, returns to 0
	depth := 0
	for i := 0; i < open; i++ {
		switch code[i] {
		case '{':
			depth++
		case '}':
			depth--
		}
	}
	fnEnd := end
	for d := depth; fnEnd < len(code) && d > 0; fnEnd++ {
		switch code[fnEnd] {
		case '{':
			d++
		case '}':
			d--
		}
	}
	return barrierCalls.MatchString(code[end:min(fnEnd, len(code))])
}

// matching is the index just past the brace that closes code[open].
func matching(code string, open int) int {
	d := 0
	for i := open; i < len(code); i++ {
		switch code[i] {
		case '{':
			d++
		case '}':
			d--
			if d == 0 {
				return i + 1
			}
		}
	}
	return len(code)
}

// blankComments is src with every comment's bytes (but newlines) turned
// into spaces.
func blankComments(src string) string {
	b := []byte(src)
	for i := 0; i < len(b); {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(b) && b[i] != '\n' {
				b[i] = ' '
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			nest := 0
			for i < len(b) {
				if strings.HasPrefix(src[i:], "/*") {
					nest++
					b[i], b[i+1] = ' ', ' '
					i += 2
				} else if strings.HasPrefix(src[i:], "*/") {
					nest--
					b[i], b[i+1] = ' ', ' '
					i += 2
					if nest == 0 {
						break
					}
				} else {
					if b[i] != '\n' {
						b[i] = ' '
					}
					i++
				}
			}
		default:
			i++
		}
	}
	return string(b)
}

// insertion is one tick put into the source: where (1-based line and
// column of the brace it follows) and how long.
type insertion struct{ line, col, n int }

// Module is a user's source made ready to run: the budget ticks inserted,
// the prelude appended.
type Module struct {
	Source    string
	userLines int
	ticks     []insertion
	Loops     int // loops the rewrite found
}

// Build rewrites the user's WGSL for the budget and appends the prelude.
func Build(user string, l *Layout) (*Module, error) {
	src, ticks, err := addTicks(user)
	if err != nil {
		return nil, err
	}
	m := &Module{Source: src + "\n" + l.Prelude(), userLines: strings.Count(user, "\n") + 1, ticks: ticks, Loops: len(ticks)}
	return m, nil
}

// addTicks finds the loop statements of a WGSL source (outside comments)
// and inserts tick after each body's opening brace.
func addTicks(src string) (string, []insertion, error) {
	var out strings.Builder
	var ticks []insertion
	line, col := 1, 1
	advance := func(s string) {
		for _, r := range s {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
	}
	emit := func(s string) {
		out.WriteString(s)
		advance(s)
	}
	// pending: a loop keyword was seen; the next '{' at bracket depth 0
	// opens its body (for: after its parenthesised header).
	pending, depth := "", 0
	kwLine, kwCol := 0, 0
	code := blankComments(src)
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			emit(src[i : i+j])
			i += j
		case strings.HasPrefix(src[i:], "/*"):
			j, nest := i+2, 1
			for j < len(src) && nest > 0 {
				switch {
				case strings.HasPrefix(src[j:], "/*"):
					nest, j = nest+1, j+2
				case strings.HasPrefix(src[j:], "*/"):
					nest, j = nest-1, j+2
				default:
					j++
				}
			}
			if nest > 0 {
				return "", nil, &CompileError{Line: line, Col: col, Msg: "unterminated block comment"}
			}
			emit(src[i:j])
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			w := src[i:j]
			if (w == "loop" || w == "for" || w == "while") && pending == "" {
				pending, depth, kwLine, kwCol = w, 0, line, col
			}
			emit(w)
			i = j
		case c == '(' || c == '[':
			depth++
			emit(string(c))
			i++
		case c == ')' || c == ']':
			depth--
			emit(string(c))
			i++
		case c == '{':
			emit("{")
			i++
			if pending != "" && depth == 0 {
				t := tick
				if needsUniform(code, i-1) {
					t = uniformTick
				}
				ticks = append(ticks, insertion{line, col, len(t)})
				out.WriteString(t) // not advanced: positions stay the user's
				pending = ""
			}
		case c == ';' && pending != "" && depth == 0:
			// 'for' headers hold ';' only inside their parentheses
			return "", nil, &CompileError{Line: kwLine, Col: kwCol, Msg: fmt.Sprintf("'%s' has no body before ';'", pending)}
		default:
			emit(string(c))
			i++
		}
	}
	if pending != "" {
		return "", nil, &CompileError{Line: kwLine, Col: kwCol, Msg: fmt.Sprintf("'%s' has no body", pending)}
	}
	return out.String(), ticks, nil
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

// CompileError is a WGSL module that did not compile, at the user's line
// and column (0 when the compiler gave none).
type CompileError struct {
	Line, Col int
	Msg       string
	Prelude   bool   // the position is in the lab's prelude (a name the user also declares)
	Raw       string // the compiler's whole text
}

func (e *CompileError) Error() string {
	switch {
	case e.Prelude:
		return fmt.Sprintf("WGSL compile error in the lab's prelude (line %d of the module: does the kernel declare a name the prelude reserves? docs/lab.md lists them): %s", e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("WGSL compile error at %d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return "WGSL compile error: " + e.Msg
}

var (
	// naga: "  ┌─ wgsl:4:15" (parse) or "┌─ LABEL:10:30" (validation)
	nagaPos = regexp.MustCompile(`┌─ \S*?:(\d+):(\d+)`)
	// naga: "Shader 'x' parsing error: expected expression, found ';'"
	nagaParse = regexp.MustCompile(`parsing error: (.*)`)
	// Chrome/Tint: ":4:15 error: expected expression"
	tintPos = regexp.MustCompile(`:(\d+):(\d+) error: (.*)`)
)

// CompileErr reads a compiler's text into a CompileError at the user's
// position (ticks removed from the column).
func (m *Module) CompileErr(raw string) *CompileError {
	e := &CompileError{Raw: raw, Msg: strings.TrimSpace(raw)}
	if t := tintPos.FindStringSubmatch(raw); t != nil {
		e.Line, _ = strconv.Atoi(t[1])
		e.Col, _ = strconv.Atoi(t[2])
		e.Msg = strings.TrimSpace(t[3])
	} else if p := nagaPos.FindStringSubmatch(raw); p != nil {
		e.Line, _ = strconv.Atoi(p[1])
		e.Col, _ = strconv.Atoi(p[2])
		if q := nagaParse.FindStringSubmatch(raw); q != nil {
			e.Msg = strings.TrimSpace(q[1])
		} else {
			e.Msg = validationMsg(raw)
		}
	}
	return m.place(e)
}

// At is a compiler message at a line and column of the module's text
// (getCompilationInfo's), placed at the user's position.
func (m *Module) At(line, col int, msg string) *CompileError {
	return m.place(&CompileError{Line: line, Col: col, Msg: msg, Raw: msg})
}

func (m *Module) place(e *CompileError) *CompileError {
	if e.Line > m.userLines {
		e.Prelude = true
		return e
	}
	shift := 0
	for _, t := range m.ticks {
		if t.line == e.Line && t.col < e.Col {
			shift += t.n
		}
	}
	e.Col = max(1, e.Col-shift)
	return e
}

// validationMsg is the explanation naga prints after a validation error's
// code frame: its last lines ("Operation Multiply can't work with …").
func validationMsg(raw string) string {
	lines := strings.Split(raw, "\n")
	last := -1
	for i, l := range lines {
		if strings.Contains(l, "│") {
			last = i
		}
	}
	var msg []string
	for _, l := range lines[last+1:] {
		if l = strings.TrimSpace(l); l != "" {
			msg = append(msg, l)
		}
	}
	if len(msg) == 0 {
		return strings.TrimSpace(raw)
	}
	return strings.Join(msg, "; ")
}
