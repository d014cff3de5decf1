package contract

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The document scanner: it splits an FKC document into its preamble, front
// matter, title, prose and kernel sections. Line indices here are 0-based;
// diagnostics add 1.

type section struct {
	heading     int    // line of "## …" (-1: a block outside any section)
	headingText string // without the hashes
	proseFrom   int    // first prose line
	fence       int    // line of the ```fkc fence (-1: none)
	blockFrom   int    // first block line
	blockTo     int    // one past the last block line (the closing fence, or EOF)
	truncated   bool   // no closing fence
	extraFences []int  // further ```fkc fences in the same section
}

type layout struct {
	lines      []string
	preambleTo int // preamble is lines[:preambleTo]
	fmOpen     int // line of the opening "---" (-1: no front matter)
	fmClose    int // line of the closing "---" (-1: unclosed)
	title      int // line of "# title" (-1: none)
	proseFrom  int // document prose starts here …
	proseTo    int // … and ends before the first section
	sections   []*section
	diags      []lineDiag
}

func splitLines(src []byte) []string {
	s := string(src)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func trimCR(s string) string { return strings.TrimSuffix(s, "\r") }

// fence reads a backtick fence line: its info string and its length (3 or
// more backticks). As in CommonMark, a code block closes only at a bare
// fence at least as long as the one that opened it, so a ```` block can
// show a ``` example inside it.
func fence(s string) (info string, n int, ok bool) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return "", 0, false
	}
	rest := strings.TrimLeft(t, "`")
	return strings.TrimSpace(rest), len(t) - len(rest), true
}

func isHeading2(s string) bool { return strings.HasPrefix(trimCR(s), "## ") || trimCR(s) == "##" }

// utf8BOM is the UTF-8 byte order mark some editors put first in a file.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

func scanDoc(src []byte) *layout {
	bom := bytes.HasPrefix(src, utf8BOM)
	lines := splitLines(bytes.TrimPrefix(src, utf8BOM))
	L := &layout{lines: lines, fmOpen: -1, fmClose: -1, title: -1}
	L.diags = encodingDiags(lines, bom, bytes.HasSuffix(src, []byte("\n")))
	n := len(lines)
	i := 0
	// Preamble and front matter: the first "---" before any heading or fence.
	for j := 0; j < n; j++ {
		t := strings.TrimSpace(lines[j])
		if t == "---" {
			L.fmOpen = j
			break
		}
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "```") {
			break
		}
	}
	if L.fmOpen >= 0 {
		L.preambleTo = L.fmOpen
		for j := L.fmOpen + 1; j < n; j++ {
			t := strings.TrimSpace(lines[j])
			if t == "---" {
				L.fmClose = j
				break
			}
			// (decisions about front-matter and block lines look at the
			// trimmed text only: Format changes their leading whitespace)
			if strings.HasPrefix(t, "```") || isHeading2(t) {
				break
			}
		}
		if L.fmClose < 0 {
			L.diags = append(L.diags, lineDiag{L.fmOpen, "error", "front matter opened by --- is never closed by a second ---", "Unclosed"})
			// the front matter ends where the markdown starts
			end := L.fmOpen + 1
			for end < n && !strings.HasPrefix(strings.TrimSpace(lines[end]), "#") && !strings.HasPrefix(strings.TrimSpace(lines[end]), "```") {
				end++
			}
			L.fmClose = end // treated as the (missing) closing line
			i = end
		} else {
			i = L.fmClose + 1
		}
	}
	L.proseFrom, L.proseTo = i, n
	var cur *section
	inCode := 0 // the fence length of a non-fkc fenced code block in prose (0: none)
	for ; i < n; i++ {
		line := lines[i]
		if info, flen, ok := fence(line); ok {
			if inCode > 0 {
				if info == "" && flen >= inCode {
					inCode = 0
				}
				continue
			}
			if info != "fkc" {
				inCode = flen
				continue
			}
			// a ```fkc block
			if cur == nil {
				cur = &section{heading: -1, proseFrom: i, fence: -1}
				L.sections = append(L.sections, cur)
				if L.proseTo == n {
					L.proseTo = i
				}
			}
			if cur.fence >= 0 {
				cur.extraFences = append(cur.extraFences, i)
			}
			open := flen
			j := i + 1
			for ; j < n; j++ {
				if info, flen, ok := fence(lines[j]); ok {
					if info == "" && flen >= open {
						break
					}
					if info == "fkc" {
						break // an opening fence: this block was never closed
					}
				}
			}
			if cur.fence < 0 {
				cur.fence, cur.blockFrom, cur.blockTo = i, i+1, j
			}
			if j >= n {
				if cur.fence == i {
					cur.truncated = true
				}
				i = n
				break
			}
			if info, _, _ := fence(lines[j]); info == "fkc" {
				// unclosed: end the block before the section heading that
				// the missing fence swallowed, and resume there
				end := j
				for k := i + 1; k < j; k++ {
					if isHeading2(strings.TrimSpace(lines[k])) {
						end = k
						break
					}
				}
				if cur.fence == i {
					cur.truncated = true
					cur.blockTo = end
				}
				i = end - 1
				continue
			}
			i = j
			continue
		}
		if inCode > 0 {
			continue
		}
		if L.title < 0 && cur == nil && strings.HasPrefix(trimCR(line), "# ") {
			L.title = i
			L.proseFrom = i + 1
			continue
		}
		if isHeading2(line) {
			cur = &section{heading: i, headingText: strings.TrimSpace(strings.TrimPrefix(trimCR(line), "##")), proseFrom: i + 1, fence: -1}
			L.sections = append(L.sections, cur)
			if L.proseTo == n {
				L.proseTo = i
			}
		}
	}
	return L
}

// regions lists the YAML regions [from, to) the canonicalizer rewrites, with
// their schema: the front matter, then every fkc block.
type region struct {
	from, to int
	sc       *schema
}

func (L *layout) regions() []region {
	var rs []region
	if L.fmOpen >= 0 {
		rs = append(rs, region{L.fmOpen + 1, L.fmClose, frontMatterSchema})
	}
	for _, s := range L.sections {
		if s.fence >= 0 {
			rs = append(rs, region{s.blockFrom, s.blockTo, blockSchema})
		}
	}
	return rs
}

// text joins lines [from, to) trimming blank lines at both ends.
func (L *layout) text(from, to int) string {
	for from < to && strings.TrimSpace(L.lines[from]) == "" {
		from++
	}
	for to > from && strings.TrimSpace(L.lines[to-1]) == "" {
		to--
	}
	var b strings.Builder
	for i := from; i < to; i++ {
		b.WriteString(trimCR(L.lines[i]))
		b.WriteByte('\n')
	}
	return b.String()
}

func headingName(h string) string {
	f := strings.Fields(h)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], "`*")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// encodingDiags names what in a document's bytes is not the UTF-8 text
// with LF or CRLF line endings that the loader reads: a byte order mark
// (ignored, info), a carriage return not followed by a line feed (classic
// Mac line endings: the whole file reads as one line, so the front matter
// and sections are not found; error), lines that are not UTF-8 (a Latin-1
// file, say; warning). The line-ending and encoding findings come once,
// at the first line concerned, with the count of the others.
func encodingDiags(lines []string, bom, endsLF bool) []lineDiag {
	var ds []lineDiag
	if bom {
		ds = append(ds, lineDiag{0, "info", "the file opens with a UTF-8 byte order mark; it is ignored (`fkc fmt -w` removes it)", "ByteOrderMark"})
	}
	cr, crFirst, bad, badFirst := 0, -1, 0, -1
	for i, l := range lines {
		// A line's closing \r is its CRLF's, unless the file's last line
		// ends there without a \n (a CR-only file, whose one line ends
		// in its last \r).
		body := l
		if i < len(lines)-1 || endsLF {
			body = trimCR(l)
		}
		if n := strings.Count(body, "\r"); n > 0 {
			if cr += n; crFirst < 0 {
				crFirst = i
			}
		}
		if !utf8.ValidString(l) {
			if bad++; badFirst < 0 {
				badFirst = i
			}
		}
	}
	if cr > 0 {
		ds = append(ds, lineDiag{crFirst, "error", fmt.Sprintf("a carriage return (\\r) not followed by a line feed ends a line here (%d in the file): FKC documents take LF or CRLF line endings, and a CR-only file reads as one line", cr), "LineEndings"})
	}
	if bad > 0 {
		ds = append(ds, lineDiag{badFirst, "warning", fmt.Sprintf("this line is not UTF-8 text (%d such line(s); a Latin-1 or other legacy encoding?): save the document as UTF-8", bad), "NotUTF8"})
	}
	return ds
}
