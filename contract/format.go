package contract

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf8"
)

// Format rewrites an FKC document into canonical indentation: the leading
// whitespace of every front-matter and ```fkc block line is recomputed by
// the same canonicalizer the loader uses (flattened regions are re-nested
// from the schema; indented ones keep their nesting with 2-space levels and
// indented lists). Nothing else changes but a leading UTF-8 byte order
// mark, which is dropped: preamble, prose, comments, values, blank lines
// and line endings are kept byte for byte, so line numbers never shift. Format is idempotent, and its output loads to the same model as
// its input. It fails only on input that is not UTF-8 text, or over the
// document size caps (MaxFileBytes, MaxLines).
func Format(src []byte) ([]byte, error) {
	if err := checkSize("the document", src); err != nil {
		return nil, err
	}
	if !utf8.Valid(src) {
		return nil, errors.New("not UTF-8 text")
	}
	if bytes.IndexByte(src, 0) >= 0 {
		return nil, errors.New("not a text file (contains NUL bytes)")
	}
	L := scanDoc(src)
	out := append([]string(nil), L.lines...)
	for _, r := range L.regions() {
		c := canonicalize(L.lines[r.from:r.to], r.sc)
		for i := range c.lines {
			out[r.from+i] = c.text(i)
		}
	}
	var b strings.Builder
	b.Grow(len(src) + 1024)
	for i, l := range out {
		b.WriteString(l)
		if i < len(out)-1 || bytes.HasSuffix(src, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String()), nil
}
