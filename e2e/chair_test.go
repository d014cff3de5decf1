package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/fkc-playground/fkc/tensor"
)

// setField sets a Try-it control's value and sends the events a user's
// edit sends (input, then change).
func setField(t *testing.T, ctx context.Context, name, value string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const el = document.querySelector('form.tryform [name=%q]'); if (!el) throw new Error("no field %s");
		el.value = %q; el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, name, name, value))
}

func outShape(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `(document.querySelector("#visual .gridbox.out .ghead .muted") || {innerText: ""}).innerText`)
}

// A changed Try-it field marks the shown result stale (dimmed, with a
// status line) until the next run: after 1:1,3:3 the page still showed the
// F32[8, 9] of 2:2,2:2, and "Constant pad" after a switch to replicate.
func TestStaleResult(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	if s := outShape(t, ctx); s != "F32[8, 9]" {
		t.Fatalf("the first run's output is %q, want F32[8, 9]", s)
	}
	stale := func() (bool, string) {
		return eval[bool](t, ctx, `document.getElementById("results").classList.contains("stale") && document.getElementById("visual").classList.contains("stale") && !document.getElementById("stale").hidden`),
			eval[string](t, ctx, `(document.getElementById("stale") || {innerText: ""}).innerText`)
	}
	if s, _ := stale(); s {
		t.Fatal("a fresh run is marked stale")
	}
	setField(t, ctx, "padding", "1:1,3:3")
	s, note := stale()
	if !s || !strings.Contains(note, "Stale") || !strings.Contains(note, "press Run") {
		t.Errorf("after a padding change: stale %v, note %q", s, note)
	}
	if live := eval[string](t, ctx, `document.getElementById("stale").getAttribute("aria-live")`); live != "polite" {
		t.Errorf("the stale note's aria-live is %q", live)
	}
	screenshot(t, ctx, "stale-result")
	// Back to what ran: current again; the mode changed: stale again.
	setField(t, ctx, "padding", "2:2,2:2")
	if s, _ := stale(); s {
		t.Error("the form changed back to what ran, and the result is still marked stale")
	}
	setField(t, ctx, "mode", "replicate")
	if s, _ := stale(); !s {
		t.Error("after a mode change the result is not marked stale")
	}
	setField(t, ctx, "padding", "1:1,3:3")
	eval[bool](t, ctx, `(document.getElementById("run-cpu").click(), true)`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .ghead") && document.querySelector("#visual .gridbox.out .ghead").innerText.includes("[6, 11]")`)
	if s, _ := stale(); s {
		t.Error("a new run is still marked stale")
	}
	if ex := eval[string](t, ctx, `document.querySelector("#visual .explain").innerText`); strings.Contains(ex, "onstant") {
		t.Errorf("after running replicate the explanation says %q", ex)
	}
}

// The catalog's search answers to the words other libraries use for the
// pad modes and offers Learn padding; every pad kernel page links to it.
// "reflect padding" found 0 of 75.
func TestFindLearnPadding(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	for _, q := range []string{"reflect padding", "mirror", "edge", "numpy", "torch", "wrap"} {
		eval[bool](t, ctx, fmt.Sprintf(`(() => { const i = document.querySelector('form.filters input[name="q"]'); i.value = %q; i.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, q))
		waitFor(t, ctx, fmt.Sprintf(`new URLSearchParams(location.hash.split("?")[1] || "").get("q") === %q`, q))
		n := eval[int](t, ctx, `document.querySelectorAll("#catalog tr.krow").length`)
		learn := eval[bool](t, ctx, `!!document.querySelector('#catalog #suggest-learn a[href="#/learn/padding"]')`)
		if (n == 0 && q != "wrap") || !learn {
			t.Errorf("search %q: %d kernels, Learn padding offered: %v", q, n, learn)
		}
		if q == "reflect padding" {
			screenshot(t, ctx, "search-reflect-padding")
		}
	}
	for _, id := range []string{"fuel-vulkan-kernels/pad_reflect_b4", "fuel-cpu-backend/pad", "fuel-cpu-backend/pad_backward_f32"} {
		open(t, ctx, "#/k/"+escape(id))
		waitFor(t, ctx, `document.querySelector("#main h1")`)
		if !eval[bool](t, ctx, `!!document.querySelector('.khead a[href="#/learn/padding"]')`) {
			t.Errorf("%s: no link to Learn padding", id)
		}
	}
}

// Keys: Enter in a Try-it field runs it, "/" focuses the catalog's search
// from any page, "?" lists the keys.
func TestKeys(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	setField(t, ctx, "padding", "1:1,3:3")
	eval[bool](t, ctx, `document.querySelector('form.tryform [name="padding"]').dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true, cancelable: true}))`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .ghead") && document.querySelector("#visual .gridbox.out .ghead").innerText.includes("[6, 11]")`)
	key := func(k string) {
		eval[bool](t, ctx, fmt.Sprintf(`(document.activeElement && document.activeElement.blur && document.activeElement.blur(), document.body.dispatchEvent(new KeyboardEvent("keydown", {key: %q, bubbles: true, cancelable: true})), true)`, k))
	}
	key("?")
	if !eval[bool](t, ctx, `document.getElementById("keys").open`) {
		t.Fatal(`"?" did not open the list of keys`)
	}
	keys := eval[string](t, ctx, `document.getElementById("keys").innerText`)
	for _, k := range []string{"/", "Enter", "?"} {
		if !strings.Contains(keys, k) {
			t.Errorf("the list of keys does not name %q: %q", k, keys)
		}
	}
	screenshot(t, ctx, "keys")
	eval[bool](t, ctx, `(document.getElementById("keys").close(), true)`)
	key("/")
	waitFor(t, ctx, `document.activeElement && document.activeElement.name === "q" && document.activeElement.closest("form.filters") !== null`)
}

// fkc.run takes fkc.bench's input specs beside base64 .npy strings ("json:
// cannot unmarshal object into Go struct field .inputs of type string"),
// and fkc.verify reports its progress.
func TestScriptingAPIInputSpecsAndProgress(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	r := eval[map[string]string](t, ctx, `fkc.run({op: "pad", backend: "cpu", flags: ["--mode", "reflect", "--padding", "1:1,1:1"],
		inputs: {x: {shape: [2, 3], dtype: "F32", fill: "arange"}}}).then(r => ({kernel: r.kernel, npy: r.npy}))`)
	out, err := tensor.ReadNpyBytes(mustB64(t, r["npy"]), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{4, 3, 4, 5, 4, 1, 0, 1, 2, 1, 4, 3, 4, 5, 4, 1, 0, 1, 2, 1}
	if fmt.Sprint(out.Shape) != "[4 5]" {
		t.Fatalf("pad of a spec'd F32[2,3]: %v", out)
	}
	for i, w := range want {
		if out.At(i) != w {
			t.Fatalf("pad of arange F32[2,3] reflect 1:1,1:1: element %d is %v, want %v (%v)", i, out.At(i), w, out)
		}
	}
	// a random spec fills the form's default range, not zeros
	r = eval[map[string]string](t, ctx, `fkc.run({op: "sum", backend: "cpu", flags: ["--dim", "0"], inputs: {x: {shape: [64, 2], dtype: "F32", fill: "random"}}}).then(r => ({npy: r.npy}))`)
	s, err := tensor.ReadNpyBytes(mustB64(t, r["npy"]), false)
	if err != nil {
		t.Fatal(err)
	}
	if s.At(0) == 0 && s.At(1) == 0 {
		t.Errorf("sum of a random F32[64,2] spec is %v", s)
	}
	// a bad spec names the field
	msg := eval[string](t, ctx, `fkc.run({op: "pad", backend: "cpu", flags: ["--mode", "constant", "--padding", "1:1"], inputs: {x: {shape: [3], dtype: "F32", fil: 1}}}).then(() => "resolved", e => e.message)`)
	if !strings.HasPrefix(msg, "fkc: ") || !strings.Contains(msg, "fil") {
		t.Errorf("a misspelled spec field: %q", msg)
	}
	type progress struct {
		Calls, Last, Total, Events, Reported int
		Line                                 string
	}
	p := eval[progress](t, ctx, `(async () => {
		const seen = []; let events = 0;
		window.addEventListener("fkc-verify-progress", () => events++);
		const r = await fkc.verify({backend: "cpu", cases: 1, onProgress: (p) => seen.push(p)});
		const last = seen[seen.length - 1] || {};
		return {calls: seen.length, last: last.done, total: last.total, events, reported: r.passed + r.failed + r.skipped, line: last.line || ""};
	})()`)
	if p.Calls == 0 || p.Calls != p.Total || p.Last != p.Total || p.Events != p.Calls || p.Reported != p.Total || p.Line == "" {
		t.Errorf("fkc.verify progress: %+v", p)
	}
	api := func() string {
		open(t, ctx, "#/api")
		waitFor(t, ctx, `document.querySelector("#main h1")`)
		return eval[string](t, ctx, `document.getElementById("main").innerText`)
	}()
	if !strings.Contains(api, "fkc.verify") || !strings.Contains(api, "onProgress") || !strings.Contains(api, `shape: [4, 5], dtype: "F32", fill: "random"`) {
		t.Errorf("the API page does not describe fkc.verify's progress and fkc.run's input specs")
	}
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A violated parameter's field is marked (aria-invalid) and the message
// sits beside it, described by it; the next good run clears it.
func TestErrorAtField(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad")+"?flags=--mode%20reflect%20--padding%205:5,0:0&x=4,5|F32|arange&run=cpu")
	waitFor(t, ctx, `document.querySelector("#results .violation")`)
	type mark struct {
		Invalid, Described, Beside string
	}
	m := eval[mark](t, ctx, `(() => { const f = document.querySelector('form.tryform [name="padding"]'); const d = f.getAttribute("aria-describedby");
		const next = f.closest("label").nextElementSibling;
		return {invalid: f.getAttribute("aria-invalid") || "", described: d ? (document.getElementById(d) || {textContent: ""}).textContent : "",
			beside: next && next.classList.contains("field-err") ? next.textContent : ""}; })()`)
	if m.Invalid != "true" || !strings.Contains(m.Described, "reflect padding (5, 5)") || m.Beside != m.Described {
		t.Errorf("the padding field after a reflect violation: %+v", m)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('form.tryform [aria-invalid="true"]').length`); n != 1 {
		t.Errorf("%d fields marked, want 1 (padding)", n)
	}
	eval[bool](t, ctx, `(document.getElementById("try").scrollIntoView(), true)`)
	screenshot(t, ctx, "error-at-field")
	setField(t, ctx, "padding", "3:3,0:0")
	eval[bool](t, ctx, `(document.getElementById("run-cpu").click(), true)`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	if n := eval[int](t, ctx, `document.querySelectorAll('form.tryform [aria-invalid="true"], form.tryform .field-err').length`); n != 0 {
		t.Errorf("after a good run %d marks remain", n)
	}
}

// At a phone's 390 px the catalog keeps its key columns, a kernel page's
// grids say they scroll, and the command line wraps.
func TestPhoneWidth(t *testing.T) {
	ctx := tab(t, nil)
	if _, err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, "")
	// each row a card of its key fields: kernel (with its blurb), op, dtypes, runs here
	cells := eval[[]int](t, ctx, `[...document.querySelectorAll("table.kt tr.krow")].slice(0, 5).map(tr => [...tr.children].filter(td => getComputedStyle(td).display !== "none").map(td => td.cellIndex).join("") | 0)`)
	for _, c := range cells {
		if c != 125 { // td 0, 1, 2, 5 (the leading 0 drops)
			t.Errorf("a catalog card shows the cells %d, want 0125 (kernel, op, dtypes, runs here)", c)
		}
	}
	if w := eval[int](t, ctx, `Math.max(...[...document.querySelectorAll("table.kt")].map(t => t.scrollWidth))`); w > 390 {
		t.Errorf("a catalog table is %d px wide at 390 px", w)
	}
	eval[bool](t, ctx, `(document.querySelector("table.kt").scrollIntoView(), true)`)
	screenshot(t, ctx, "phone-catalog")
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	hint := eval[string](t, ctx, `(() => { const b = [...document.querySelectorAll("#visual .gridbox.out .gbody")].find(b => b.scrollWidth > b.clientWidth); if (!b) return "no grid overflows";
		const h = b.querySelector(".scroll-hint"); return h && getComputedStyle(h).display !== "none" ? h.innerText : "no visible hint"; })()`)
	if !strings.Contains(hint, "scrolls sideways") {
		t.Errorf("an overflowing output grid at 390 px: %q", hint)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll("#visual .gbody")].filter(b => b.scrollWidth <= b.clientWidth && getComputedStyle(b.querySelector(".scroll-hint")).display !== "none").length`); n != 0 {
		t.Errorf("%d grids that fit say they scroll", n)
	}
	if w := eval[[]int](t, ctx, `(() => { const c = document.getElementById("cli"); return [c.scrollWidth, c.clientWidth]; })()`); w[0] > w[1] {
		t.Errorf("the command line is %d px wide in a %d px box: it does not wrap", w[0], w[1])
	}
	eval[bool](t, ctx, `(document.getElementById("cli").scrollIntoView(), true)`)
	screenshot(t, ctx, "phone-kernel")
}
