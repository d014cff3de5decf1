package commentcheck

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxFigureLines is how many comment lines of non-test code may hold a
// timing figure: the few that state a fixed interval or a browser's clock
// step as the reason for a choice. Measurements go to docs/perf.
const maxFigureLines = 15

// A rule is one kind of figure or citation, found by a regular expression.
type rule struct {
	name string
	re   *regexp.Regexp
}

// figureRules find a measured quantity: a time, a bandwidth, a clock rate,
// a speed-up, a percentage, a measured range (35.0-35.3) or a before/after
// pair of two-digit figures (1808 -> 678).
var figureRules = []rule{
	{"time", regexp.MustCompile(`\d(?:\s?(?:ns|us|µs|μs|ms)\b|\s+(?:s|sec|seconds?|minutes?)\b|\.\d+s\b|m\d+s\b)`)},
	{"bandwidth", regexp.MustCompile(`\d\s?(?:[kKMGT]i?B|B)/s\b|\d\s?ns/tick\b`)},
	{"clock", regexp.MustCompile(`\d\s?[MG]Hz\b`)},
	{"speed-up", regexp.MustCompile(`\d[×x](?:[\s),.;:]|$)`)},
	{"percent", regexp.MustCompile(`\d%`)},
	{"range", regexp.MustCompile(`\d\.\d+\s?[-–]\s?\d+\.\d+`)},
	{"before/after", regexp.MustCompile(`(?:\d\d|\d\.\d+)\s?(?:->|→)\s?\d\d`)},
}

// citationRules find what a reader of the repository cannot follow: an
// issue number, an audit, the history of a session, a file outside the
// tree. Uppercase .md names are checked against the tree separately.
var citationRules = []rule{
	{"issue", regexp.MustCompile(`(?i)\bissues?\s+#?\d+|(?:^|[\s(\[,;])#\d+\b`)},
	{"audit", regexp.MustCompile(`(?i)\baudits?\b`)},
	{"session", regexp.MustCompile(`(?i)\b(?:this|that|previous|earlier|last|another|a later|the lead's)\s+session\b`)},
	{"outside path", regexp.MustCompile(`\.\./shared\b|/work/|\bshared/(?:SPEC|STYLE|ANCHORS)`)},
}

// docName finds a bare document name (STYLE.md); one inside a path
// (contracts/seeds/NAME.md) names a placeholder or a file of the tree.
var docName = regexp.MustCompile(`(?:^|[^/\w])([A-Z][A-Z0-9_-]*\.md)\b`)

func match(rules []rule, text string) string {
	for _, r := range rules {
		if loc := r.re.FindStringIndex(text); loc != nil {
			i := loc[0] // from the figure's first digit, for the listing
			for i > 0 && strings.IndexByte("0123456789.", text[i-1]) >= 0 {
				i--
			}
			return r.name + " " + strings.TrimSpace(text[i:loc[1]])
		}
	}
	return ""
}

// commentLine is one line of a comment, with its file and line number.
type commentLine struct {
	file string
	line int
	text string
}

func (c commentLine) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text) }

// goComments returns the comment lines of a Go file, found by the Go
// scanner so that a string holding "//" is not taken for a comment.
func goComments(name string, src []byte) ([]commentLine, error) {
	fset := token.NewFileSet()
	f := fset.AddFile(name, -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(f, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, scanner.ScanComments)
	var out []commentLine
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT {
			continue
		}
		first := fset.Position(pos).Line
		for i, l := range strings.Split(lit, "\n") {
			out = append(out, commentLine{name, first + i, strings.TrimSpace(l)})
		}
	}
	return out, errs.Err()
}

// cComments returns the comment lines of a file with C-style comments:
// /* … */ blocks (nested when nest is set, as in WGSL), // lines when line
// is set, and strings opened by one of quotes skipped to their close.
func cComments(name string, src []byte, line, nest bool, quotes string) []commentLine {
	var out []commentLine
	n := 1
	var cur strings.Builder
	flush := func() {
		out = append(out, commentLine{name, n, strings.TrimSpace(cur.String())})
		cur.Reset()
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			n++
		case strings.IndexByte(quotes, c) >= 0:
			for i++; i < len(src) && src[i] != c; i++ {
				if src[i] == '\\' {
					i++
				} else if src[i] == '\n' {
					n++
				}
			}
		case line && c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i += 2; i < len(src) && src[i] != '\n'; i++ {
				cur.WriteByte(src[i])
			}
			flush()
			i-- // the newline is counted by the loop
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			depth := 1
			for i += 2; i < len(src) && depth > 0; i++ {
				switch {
				case src[i] == '*' && i+1 < len(src) && src[i+1] == '/':
					depth--
					i++
				case nest && src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
					depth++
					i++
				case src[i] == '\n':
					flush()
					n++
				default:
					cur.WriteByte(src[i])
				}
			}
			flush()
			i--
		}
	}
	return out
}

// comments returns the comment lines of one source file by its extension
// (nil for a file of another kind).
func comments(name string, src []byte) ([]commentLine, error) {
	switch filepath.Ext(name) {
	case ".go":
		return goComments(name, src)
	case ".wgsl":
		return cComments(name, src, true, true, ""), nil
	case ".js":
		return cComments(name, src, true, false, "'\"`"), nil
	case ".css":
		return cComments(name, src, false, false, "'\""), nil
	}
	return nil, nil
}

// repoRoot is the directory holding go.mod, above this package.
func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// isTest reports whether a file (a path relative to the root) is test code:
// a _test.go file, or anything under a testdata directory.
func isTest(rel string) bool {
	if strings.HasSuffix(rel, "_test.go") {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "testdata" {
			return true
		}
	}
	return false
}

// walk calls f with every source file of the tree (relative path and
// comment lines), skipping dot directories and installed node_modules.
func walk(t *testing.T, root string, f func(rel string, lines []commentLine)) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".wgsl", ".js", ".css":
		default:
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		lines, err := comments(filepath.ToSlash(rel), src)
		if err != nil {
			return err
		}
		f(filepath.ToSlash(rel), lines)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestComments holds the tree's comments to what and why: at most
// maxFigureLines comment lines of non-test code hold a timing figure, and
// no comment, test code included, cites an issue, an audit, a session or a
// file outside the repository. FKC_COMMENTS_LIST=1 logs every line found.
func TestComments(t *testing.T) {
	root := repoRoot(t)
	list := os.Getenv("FKC_COMMENTS_LIST") != ""
	var figures, citations []string
	walk(t, root, func(rel string, lines []commentLine) {
		// This package's own comments name what it looks for.
		self := strings.HasPrefix(rel, "internal/commentcheck/")
		for _, l := range lines {
			if !isTest(rel) {
				if m := match(figureRules, l.text); m != "" {
					figures = append(figures, fmt.Sprintf("%v  [%s]", l, m))
				}
			}
			if self {
				continue
			}
			if m := match(citationRules, l.text); m != "" {
				citations = append(citations, fmt.Sprintf("%v  [%s]", l, m))
			}
			for _, m := range docName.FindAllStringSubmatch(l.text, -1) {
				if name := m[1]; !exists(root, rel, name) {
					citations = append(citations, fmt.Sprintf("%v  [%s is not in the repository]", l, name))
				}
			}
		}
	})
	t.Logf("%d comment lines of non-test code hold timing figures (at most %d); %d comment lines cite an issue, an audit, a session or a file outside the repository",
		len(figures), maxFigureLines, len(citations))
	if list || len(figures) > maxFigureLines {
		for _, f := range figures {
			t.Log("figure: " + f)
		}
	}
	if len(figures) > maxFigureLines {
		t.Errorf("%d comment lines of non-test code hold timing figures, more than %d: move measurement logs to docs/perf and point to them", len(figures), maxFigureLines)
	}
	for _, c := range citations {
		t.Error("citation: " + c)
	}
}

// exists reports whether a document named in a comment of file rel is in
// the tree: beside the file or at the root.
func exists(root, rel, name string) bool {
	for _, p := range []string{filepath.Join(root, filepath.Dir(rel), name), filepath.Join(root, name)} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// The rules find what they are meant to and pass the figures that are not
// measurements (shapes, ones, counts of status codes, the modulo operator).
func TestRules(t *testing.T) {
	figures := []string{
		"took 3.77-3.84 ms", "12.5 µs per 4 KiB page", "1 unit 35.2-35.6 us, 2 33.3-33.9",
		"Close waited 4.8 s for a 5 s", "took 2m46s and 12.7 GB", "at 843 GB/s", "1 ns/tick",
		"drops from 1980 to 345 MHz", "(≈ 3× slower)", "1.5-4.3x their", "within 1% with it",
		"argmax 1808 / 2725 / 1950 -> 678", "wins from 64 MiB on (42 → 59", "ran 17 s on WebGPU",
		"0.5 s cold", "the 5 us when", "100× more", "1734 -> 460", "98.9 -> 94.8",
	}
	for _, s := range figures {
		if match(figureRules, s) == "" {
			t.Errorf("%q: no figure found", s)
		}
	}
	plain := []string{
		"left-padded with 1s to x's rank", "the 404s and 405s below", "a 4x4 pad",
		"ruin the 2×2 normal equations", "i32 % of a negative j", "binding × variant",
		"LLVM 15.0.6, 256 bits", "j → i", "every GB/s figure here", "f32[8,3,512,512] pad 2",
		"u8 x 4 lanes", "OP (0 sum, 1 max, 2 min)", `"dim -1 → 1"`, "2^-25 -> 0",
	}
	for _, s := range plain {
		if m := match(figureRules, s); m != "" {
			t.Errorf("%q: found %q, which is no timing figure", s, m)
		}
	}
	cited := []string{"(issue 9, row 4)", "Issue 9 row 15:", "issue 10's table", "see #26", "from a GPU audit", "in the previous session", "../shared/SPEC.md"}
	for _, s := range cited {
		if match(citationRules, s) == "" {
			t.Errorf("%q: no citation found", s)
		}
	}
	for _, s := range []string{"numpy/numpy#22464", "%#04x", "the audited flag", "an onnxruntime session", "#fff"} {
		if m := match(citationRules, s); m != "" {
			t.Errorf("%q: found %q, which cites nothing outside", s, m)
		}
	}
}

// The comment readers find comments, not strings that look like them.
func TestCommentReaders(t *testing.T) {
	goSrc := "package p\n\n// one 3 ms\nvar s = \"// not 4 ms\" /* two\nthree */\n"
	got, err := goComments("p.go", []byte(goSrc))
	if err != nil {
		t.Fatal(err)
	}
	want := []commentLine{{"p.go", 3, "// one 3 ms"}, {"p.go", 4, "/* two"}, {"p.go", 5, "three */"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Go comments %v, want %v", got, want)
	}
	js := "const a = '// no'; // yes\nlet b = `/* no */`; /* one\ntwo */ x();\n"
	got = cComments("a.js", []byte(js), true, false, "'\"`")
	want = []commentLine{{"a.js", 1, "yes"}, {"a.js", 2, "one"}, {"a.js", 3, "two"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("JS comments %v, want %v", got, want)
	}
	wgsl := "/* a /* nested */ still */ fn f() {} // end\n"
	got = cComments("a.wgsl", []byte(wgsl), true, true, "")
	want = []commentLine{{"a.wgsl", 1, "a  nested  still"}, {"a.wgsl", 1, "end"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("WGSL comments %v, want %v", got, want)
	}
}
