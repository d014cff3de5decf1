package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/tensor"
)

// paste replaces the editor's text the way a paste does: focused, all
// selected, the text inserted (one input event).
func paste(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	js, _ := json.Marshal(text)
	eval[bool](t, ctx, `(() => { const ta = document.getElementById("author-src"); ta.focus(); ta.select();
		return document.execCommand("insertText", false, `+string(js)+`); })()`)
}

// dropFile drops a file (bytes given as a JS array expression) on the editor.
func dropFile(t *testing.T, ctx context.Context, name, bytesJS string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const dt = new DataTransfer();
		dt.items.add(new File([new Uint8Array(%s)], %q, {type: "text/markdown"}));
		const ta = document.getElementById("author-src");
		return !ta.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true})); })()`, bytesJS, name))
}

func authorStatus(t *testing.T, ctx context.Context) string {
	return eval[string](t, ctx, `document.getElementById("author-status").innerText`)
}

// Your own contract: a seed with one broken line shows the loader's
// finding at that line; fmt downloads what `fkc fmt` writes; input the
// loader refuses says why; a valid seed dropped on the editor lists its
// kernels, whose pages run them, and a reload keeps the document.
func TestAuthorContract(t *testing.T) {
	seed, err := os.ReadFile("../contracts/seeds/fuel-cpu-backend.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	const line = 76 // dtypes: [U8, U32, BF16, F16, F32, F64]
	lines := strings.Split(string(seed), "\n")
	if !strings.HasPrefix(lines[line-1], "dtypes: [") {
		t.Fatalf("line %d of the seed is %q, not its dtypes", line, lines[line-1])
	}
	lines[line-1] = strings.Replace(lines[line-1], "F64]", "F99]", 1)
	broken := strings.Join(lines, "\n")

	ctx := tab(t, nil)
	open(t, ctx, "#/author")
	waitFor(t, ctx, `document.getElementById("author-src")`)
	eval[bool](t, ctx, `(() => { document.getElementById("author-name").value = "broken.fkc.md"; return true; })()`)
	paste(t, ctx, broken)
	waitFor(t, ctx, `document.getElementById("src-L76")`)
	row := eval[[]string](t, ctx, `[...document.getElementById("src-L76").children].map(c => c.innerText)`)
	if len(row) != 3 || row[0] != "76" || row[1] != lines[line-1] || !strings.Contains(row[2], `unknown dtype "F99"`) || !strings.Contains(row[2], "ERROR") {
		t.Errorf("line %d of the listing reads %q; want its number, its text and the loader's error", line, row)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll(".srclist tr.has").length`); n != 2 {
		t.Errorf("%d lines marked with findings, want 2 (the RebuiltNesting info at line 1, the error at line %d)", n, line)
	}
	if s := authorStatus(t, ctx); !strings.Contains(s, "1 error, 0 warnings, 1 info") {
		t.Errorf("status %q", s)
	}
	if !strings.Contains(eval[string](t, ctx, `document.querySelector(".rebuilt").innerText`), "RebuiltNesting") {
		t.Error("no RebuiltNesting note for a flattened seed")
	}
	// The finding's button brings its line into view, focused.
	eval[bool](t, ctx, `(() => { document.querySelector('button[data-action="author-line"][data-line="76"]').click(); return true; })()`)
	waitFor(t, ctx, `document.activeElement && document.activeElement.id === "src-L76"`)
	screenshot(t, ctx, "author")
	if _, err := os.Stat("node_modules/axe-core/axe.min.js"); err == nil {
		checkAxe(t, ctx, axe(t), "your contract, with findings")
	}

	// fkc fmt: the downloaded file is what the native formatter writes.
	want, err := contract.Format([]byte(broken))
	if err != nil {
		t.Fatal(err)
	}
	got := eval[map[string]string](t, ctx, `(async () => {
		let blob, name;
		const create = URL.createObjectURL, click = HTMLAnchorElement.prototype.click;
		URL.createObjectURL = (b) => { blob = b; return create.call(URL, b); };
		HTMLAnchorElement.prototype.click = function () { name = this.download; };
		try { document.getElementById("author-fmt").click(); } finally { URL.createObjectURL = create; HTMLAnchorElement.prototype.click = click; }
		return {name, type: blob.type, text: await blob.text()}; })()`)
	if got["name"] != "broken.fkc.md" || got["text"] != string(want) || !strings.HasPrefix(got["type"], "text/markdown") {
		t.Errorf("fmt downloaded %q (%s, %d bytes), want broken.fkc.md with contract.Format's %d bytes (equal: %v)", got["name"], got["type"], len(got["text"]), len(want), got["text"] == string(want))
	}
	if note := eval[string](t, ctx, `document.getElementById("author-fmt-note").innerText`); !strings.Contains(note, "would re-indent") {
		t.Errorf("fmt note %q for a flattened seed", note)
	}

	// Input the loader refuses: a paste over its 8 MiB cap, a binary file.
	eval[bool](t, ctx, `(() => { const ta = document.getElementById("author-src"); ta.value = "x".repeat(9 << 20);
		ta.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	waitFor(t, ctx, `document.getElementById("author-status").innerText.includes("not loaded")`)
	if s := eval[string](t, ctx, `document.getElementById("author-result").innerText`); !strings.Contains(s, "more than 8388608 bytes; an FKC document may be at most 8388608 bytes") {
		t.Errorf("a 9 MiB paste shows %.300q", s)
	}
	// Binary garbage pasted as text (1 Mi characters, about 1.5 MiB of
	// UTF-8): the loader's findings and fmt's refusal, never a hang.
	ms := eval[float64](t, ctx, `(async () => { const ta = document.getElementById("author-src"); let s = 1;
		const junk = Array.from({length: 1 << 20}, () => String.fromCharCode((s = (s * 1103515245 + 12345) >>> 0) >>> 24)).join("");
		const t0 = performance.now(); ta.value = junk; ta.dispatchEvent(new Event("input", {bubbles: true}));
		while (!document.getElementById("author-status").innerText.includes("kernels")) await new Promise(r => setTimeout(r, 20));
		return performance.now() - t0; })()`)
	t.Logf("1 Mi characters of binary garbage pasted: the status answered in %.0f ms (the browser taking the text into the textarea, the 250 ms pause after an edit, the lint and the drawing)", ms)
	if s := eval[string](t, ctx, `document.getElementById("author-result").innerText`); !strings.Contains(s, "no YAML front matter") || !strings.Contains(s, "fkc fmt: not a text file (contains NUL bytes)") {
		t.Errorf("pasted binary garbage shows %.300q", s)
	}
	// A file the loader refuses (binary, then over the line cap) is named
	// in the status line and leaves the editor and its stored copy alone
	// (it emptied the editor, and the next keystroke stored nothing; a
	// 300,000-line file went into the textarea before it was refused).
	before := eval[int](t, ctx, `document.getElementById("author-src").value.length`)
	dropFile(t, ctx, "garbage.bin", `[0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x00, 0x01]`)
	waitFor(t, ctx, `document.getElementById("author-status").innerText.includes("not loaded: garbage.bin")`)
	if s := eval[string](t, ctx, `document.getElementById("author-status").innerText`); !strings.Contains(s, "not loaded: garbage.bin is not a text file: byte 6 is NUL") || !strings.Contains(s, "the editor keeps its text") {
		t.Errorf("a binary file: status %.300q", s)
	}
	dropFile(t, ctx, "lines.fkc.md", `new TextEncoder().encode("---\n" + "a\n".repeat(300000))`)
	waitFor(t, ctx, `document.getElementById("author-status").innerText.includes("not loaded: lines.fkc.md")`)
	if s := eval[string](t, ctx, `document.getElementById("author-status").innerText`); !strings.Contains(s, "not loaded: lines.fkc.md has 300001 lines") {
		t.Errorf("a 300,001-line file: status %.300q", s)
	}
	if after := eval[int](t, ctx, `document.getElementById("author-src").value.length`); after != before {
		t.Errorf("the editor held %d characters before the refused files, %d after", before, after)
	}

	// The valid seed, dropped as a file: no error, its kernels listed.
	seedJS, _ := json.Marshal(seed)
	dropFile(t, ctx, "fuel-cpu-backend.fkc.md", `Uint8Array.from(atob(`+string(seedJS)+`), c => c.charCodeAt(0))`)
	waitFor(t, ctx, `document.getElementById("author-status").innerText.includes("fuel-cpu-backend.fkc.md: 0 errors")`)
	if v := eval[string](t, ctx, `document.getElementById("author-src").value`); v != string(seed) {
		t.Errorf("the editor holds %d bytes after the drop, want the seed's %d", len(v), len(seed))
	}
	links := eval[[]string](t, ctx, `[...document.querySelectorAll("#author-result tr.krow a")].map(a => a.getAttribute("href"))`)
	if len(links) != 9 || links[0] != "#/author/k/pad" {
		t.Fatalf("kernel links %q, want 9 starting with #/author/k/pad", links)
	}

	// Its pad kernel's page runs it: the output is the native engine's.
	eval[bool](t, ctx, `(() => { document.querySelector('#author-result a[href="#/author/k/pad"]').click(); return true; })()`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell") && location.hash.startsWith("#/author/k/pad?")`)
	if crumb := eval[string](t, ctx, `document.querySelector(".crumbs a").getAttribute("href")`); crumb != "#/author" {
		t.Errorf("the kernel page's breadcrumb goes to %q", crumb)
	}
	eval[bool](t, ctx, `(() => { const f = document.querySelector("form.tryform"), el = f.elements;
		el["x.shape"].value = "3,4"; el["x.kind"].value = "arange"; el["mode"].value = "reflect"; el["padding"].value = "1:1,2:2";
		f.dispatchEvent(new Event("input"));
		document.getElementById("results").innerHTML = "";
		document.getElementById("run-cpu").click(); return true; })()`)
	waitFor(t, ctx, `document.querySelector('.served[data-backend="cpu"]') && location.hash.includes("--padding%201:1,2:2")`)
	served := eval[[]string](t, ctx, `(() => { const a = document.querySelector(".served a"); return [a.innerText, a.getAttribute("href"), document.querySelector(".served").innerText]; })()`)
	if served[0] != "pad" || served[1] != "#/author/k/pad" || !strings.Contains(served[2], "fuel-cpu-backend") {
		t.Errorf("served by %q", served)
	}
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	x := tensorOf(t, tensor.F32, []int{3, 4})
	out := mustRun(t, eng, "pad", []string{"--mode", "reflect", "--padding", "1:1,2:2"}, map[string]*tensor.Tensor{"x": x})
	checkCells(t, "authored pad reflect", cells(t, ctx, "#visual .gridbox.out"), out)
	if cli := eval[string](t, ctx, `document.getElementById("cli").innerText`); !strings.Contains(cli, "--mode reflect --padding 1:1,2:2") {
		t.Errorf("the command line reads %q", cli)
	}
	screenshot(t, ctx, "author-kernel")

	// A reload keeps the document (localStorage) and reruns the page.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `fkc.ready.then(() => true)`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	checkCells(t, "authored pad after a reload", cells(t, ctx, "#visual .gridbox.out"), out)
	open(t, ctx, "#/author")
	if v := eval[string](t, ctx, `document.getElementById("author-src").value`); v != string(seed) {
		t.Errorf("after a reload the editor holds %d bytes, want the seed's %d", len(v), len(seed))
	}

	// A document of GPU kernels, reloaded on this page: once WebGPU has
	// answered, its kernels say they run here.
	wgsl, err := os.ReadFile("../contracts/project/fkc-wgsl-kernels.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `(() => { document.getElementById("author-name").value = "gpu.fkc.md"; return true; })()`)
	paste(t, ctx, string(wgsl))
	// Its only errors are the shared registry keys of its per-mode pads
	// (DuplicateKernelRef, as in the seeds: dispatch tells them apart by
	// the variant each link serves); `fkc lint` reports the same.
	waitFor(t, ctx, `document.getElementById("author-status").innerText.includes("gpu.fkc.md: ")`)
	if st := eval[string](t, ctx, `document.getElementById("author-status").innerText`); !strings.Contains(st, "gpu.fkc.md: 0 errors") && !strings.Contains(st, "DuplicateKernelRef") {
		if n := eval[int](t, ctx, `[...document.querySelectorAll("ul.findings li.sev-error")].filter(d => !d.innerText.includes("DuplicateKernelRef")).length`); n > 0 {
			t.Errorf("the GPU document has %d errors besides DuplicateKernelRef: %q", n, st)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `fkc.ready.then(() => true)`)
	needGPU(t, ctx)
	waitFor(t, ctx, `document.querySelectorAll("#author-result .badge.run-gpu").length > 0`)
	if name := eval[string](t, ctx, `document.getElementById("author-name").value`); name != "gpu.fkc.md" {
		t.Errorf("after a reload the file name is %q", name)
	}
	// Its sum kernel runs on this tab's WebGPU device.
	eval[bool](t, ctx, `(() => { document.querySelector('#author-result a[href="#/author/k/sum"]').click(); return true; })()`)
	waitFor(t, ctx, `document.querySelector('.served[data-backend="webgpu"]') || document.querySelector(".violation")`)
	eval[bool](t, ctx, `(() => { const f = document.querySelector("form.tryform"), el = f.elements;
		el["x.shape"].value = "3,4"; el["x.kind"].value = "arange"; el["x.dtype"].value = "F32"; el["dim"].value = "";
		f.dispatchEvent(new Event("input")); document.getElementById("results").innerHTML = "";
		document.getElementById("run-gpu").click(); return true; })()`)
	waitFor(t, ctx, `document.querySelector('.served[data-backend="webgpu"]') || document.querySelector(".violation")`)
	gpuRun := eval[[]string](t, ctx, `(() => { const a = document.querySelector('.served[data-backend="webgpu"] a');
		return a ? [a.getAttribute("href"), [...document.querySelectorAll("#visual .gridbox.out .cell .v")].map(c => c.innerText).join(" ")] : [document.getElementById("results").innerText]; })()`)
	if len(gpuRun) != 2 || gpuRun[0] != "#/author/k/sum" || gpuRun[1] != "66" {
		t.Errorf("sum of arange(12) on WebGPU from the pasted document: %q, want served by #/author/k/sum with 66", gpuRun)
	}
	open(t, ctx, "#/author")
	eval[bool](t, ctx, `(() => { document.querySelector('button[data-action="author-clear"]').click(); return true; })()`)
	// Clear forgets the pasted document; what other pages keep in this
	// browser (the lab's code and puzzle progress) is theirs to keep.
	if keys := eval[[]string](t, ctx, `Object.keys(localStorage).filter(k => k.startsWith("fkc.author"))`); len(keys) != 0 {
		t.Errorf("Clear left the author page's localStorage entries %q", keys)
	}
}
