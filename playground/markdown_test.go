package playground

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// deepProse is prose nested past maxProseDepth in each way goldmark
// recurses on: quotes, bullet and ordered lists on one line, lists by
// indentation, quoted lists, and an emphasis run (inline nodes).
func deepProse() map[string]string {
	var indent strings.Builder
	for i := range 3000 {
		indent.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	return map[string]string{
		"quote":     strings.Repeat(">", 12000) + " deep",
		"list":      strings.Repeat("- ", 12000) + "x",
		"olist":     strings.Repeat("1. ", 12000) + "x",
		"indent":    indent.String(),
		"quotelist": strings.Repeat("> - ", 6000) + "x",
		"emph":      strings.Repeat("*", 20000) + "x" + strings.Repeat("*", 20000),
	}
}

// Prose nested past maxProseDepth is shown as plain text instead of
// overflowing the stack (in the browser, the JavaScript stack Go's WASM
// runs on: 12,000 quote levels stopped the app). The rendering runs in a
// child process with a 256 KiB goroutine stack, where each case overflowed
// before (a fatal error no recover catches); ordinary nesting still
// renders as Markdown.
func TestMarkdownDepth(t *testing.T) {
	if os.Getenv("FKC_MARKDOWN_CHILD") == "1" {
		debug.SetMaxStack(256 << 10)
		for name, src := range deepProse() {
			out := Markdown(src)
			if !strings.Contains(out, "shown as plain text") || strings.Contains(out, "<blockquote>") {
				t.Errorf("%s: not plain text: %.200s", name, out)
			}
		}
		nested := strings.Repeat(">", 20) + " a\n\n" + strings.Repeat("- ", 20) + "b\n\n***c*** and a rule\n\n" + strings.Repeat("-", 300) + "\n"
		out := Markdown(nested)
		if strings.Contains(out, "plain text") || strings.Count(out, "<blockquote>") != 20 || strings.Count(out, "<ul>") != 20 || !strings.Contains(out, "<hr") {
			t.Errorf("ordinary nesting: %.300s", out)
		}
		// Prose that looks deep to a naive count but is not: spaced rules,
		// dots, a fenced line of tabs, ASCII art indented 210 columns, 67
		// quote levels written "> > >".
		for name, src := range map[string]string{
			"spaced rule":   strings.Repeat("- ", 120) + "\n\ntext\n",
			"starred rule":  strings.Repeat("* ", 120) + "\n",
			"dots":          strings.Repeat(". ", 120) + "\n",
			"fenced tabs":   "```\n" + strings.Repeat("\t", 51) + "x\n```\n",
			"indented art":  "text\n\n" + strings.Repeat(" ", 210) + "/\\_/\\\n",
			"67 quotes":     strings.Repeat("> ", 67) + "q\n",
			"numbered text": "1999. was a year; 2. items\n",
		} {
			if out := Markdown(src); strings.Contains(out, "plain text") {
				t.Errorf("%s: shown as plain text", name)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMarkdownDepth$", "-test.v")
	cmd.Env = append(os.Environ(), "FKC_MARKDOWN_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, tail(string(out), 2000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
