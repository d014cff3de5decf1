package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// The contract editor's gutter marks each line with findings beside that
// line of the text, scrolled with it: a shape_rule naming an operand the
// kernel does not have (same_as(inptu)) is an error at its line, a
// misspelt op_kind a warning at the op_kind line (it sat on the block's
// fence); the kernels of a document with errors are listed with a note
// that names the kernels the errors concern, and the status says to fix
// them before running.
func TestAuthorGutter(t *testing.T) {
	seed, err := os.ReadFile("../contracts/seeds/fuel-cpu-backend.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	const opLine, ruleLine = 136, 163
	lines := strings.Split(string(seed), "\n")
	if !strings.HasPrefix(lines[opLine-1], "op_kind: Pad") || !strings.HasPrefix(lines[ruleLine-1], "shape_rule: ") {
		t.Fatalf("the seed's lines %d and %d: %q, %q", opLine, ruleLine, lines[opLine-1], lines[ruleLine-1])
	}
	lines[opLine-1] = "op_kind: Padd"
	lines[ruleLine-1] = "shape_rule: same_as(inptu)"
	ctx := tab(t, nil)
	open(t, ctx, "#/author")
	waitFor(t, ctx, `document.getElementById("author-src")`)
	paste(t, ctx, strings.Join(lines, "\n"))
	waitFor(t, ctx, `document.querySelector("#author-gutter .gm-error")`)
	type mark struct {
		N, Sev, Title string
	}
	marks := eval[[]mark](t, ctx, `[...document.querySelectorAll("#author-gutter .gm")].map(m => ({n: m.textContent, sev: m.className, title: m.title}))`)
	want := map[string]string{"1": "gm-info", "136": "gm-warning", "163": "gm-error"}
	if len(marks) != len(want) {
		t.Errorf("gutter marks %+v, want lines 1, %d and %d", marks, opLine, ruleLine)
	}
	for _, m := range marks {
		if w, ok := want[m.N]; !ok || !strings.Contains(m.Sev, w) {
			t.Errorf("gutter mark %+v: want one of %v", m, want)
		}
		if m.N == "163" && !strings.Contains(m.Title, "same_as(inptu …) names no input of this kernel") {
			t.Errorf("the shape_rule mark says %q", m.Title)
		}
		if m.N == "136" && !strings.Contains(m.Title, "op_kind Padd is none of the kinds") {
			t.Errorf("the op_kind mark says %q", m.Title)
		}
	}
	// Each mark beside its line: scrolled to each, the mark's top is the
	// line's (the textarea's top, border and padding, N-1 lines, less
	// its scroll), and its line is in view.
	for _, n := range []int{ruleLine, opLine, 1} {
		got := eval[[]float64](t, ctx, `(async () => { const ta = document.getElementById("author-src"), cs = getComputedStyle(ta);
			const lh = parseFloat(cs.lineHeight);
			ta.scrollTop = Math.max(0, (`+strconv.Itoa(n)+` - 5) * lh);
			await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
			const m = [...document.querySelectorAll("#author-gutter .gm")].find(m => m.textContent === "`+strconv.Itoa(n)+`");
			const r = ta.getBoundingClientRect();
			const line = r.top + ta.clientTop + parseFloat(cs.paddingTop) + (`+strconv.Itoa(n)+` - 1) * lh - ta.scrollTop;
			const mr = m.getBoundingClientRect();
			return [mr.top, line, r.top, r.bottom, lh]; })()`)
		if d := got[0] - got[1]; d < -2 || d > 2 || got[1] < got[2] || got[1]+got[4] > got[3] {
			t.Errorf("line %d: its mark at y=%.1f, the line at y=%.1f (editor %.1f to %.1f)", n, got[0], got[1], got[2], got[3])
		}
		if n == ruleLine {
			screenshot(t, ctx, "author-gutter")
		}
	}
	kernel := ""
	for i := ruleLine - 1; i >= 0 && kernel == ""; i-- {
		if h, ok := strings.CutPrefix(lines[i], "## "); ok {
			kernel = strings.Trim(strings.Fields(h)[0], "`")
		}
	}
	note := eval[string](t, ctx, `(document.querySelector(".author-erring") || {}).innerText || ""`)
	if !strings.Contains(note, "1 error") || !strings.Contains(note, "the errors concern "+kernel+".") {
		t.Errorf("the kernel list's note: %q", note)
	}
	if s := authorStatus(t, ctx); !strings.Contains(s, "1 error, 1 warning") || !strings.Contains(s, "fix the errors before running them") {
		t.Errorf("status %q", s)
	}
	t.Logf("marks %+v; note %q", marks, note)
}
