package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/fkc-playground/fkc/playground"
	"github.com/fkc-playground/fkc/tensor"
)

// upload sets a Try-it input's file control to path, as choosing the file
// does (the browser sends its change event).
func upload(t *testing.T, ctx context.Context, input, path string) {
	t.Helper()
	if !eval[bool](t, ctx, fmt.Sprintf(`!!document.getElementById("try-file-%s")`, input)) {
		t.Fatalf("Try it has no file input for %s", input)
	}
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#try-file-"+input), []string{path})); err != nil {
		t.Fatalf("choosing %s for %s: %v", path, input, err)
	}
}

// catchClipboard makes the page's clipboard writes land in window.__copied.
func catchClipboard(t *testing.T, ctx context.Context) {
	t.Helper()
	eval[bool](t, ctx, `(window.__copied = [], navigator.clipboard.writeText = (s) => { window.__copied.push(s); return Promise.resolve(); }, true)`)
}

// copied clicks a copy button and answers what it put on the clipboard.
func copied(t *testing.T, ctx context.Context, button string) string {
	t.Helper()
	n := eval[int](t, ctx, `window.__copied.length`)
	eval[bool](t, ctx, fmt.Sprintf(`(document.getElementById(%q).click(), true)`, button))
	waitFor(t, ctx, fmt.Sprintf(`window.__copied.length > %d`, n))
	return eval[string](t, ctx, `window.__copied[window.__copied.length - 1]`)
}

// downloadsTo saves the browser's downloads in a new directory.
func downloadsTo(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir}); err != nil {
		t.Fatalf("download behaviour: %v", err)
	}
	return dir
}

// downloaded clicks a download button and answers the saved file's bytes.
func downloaded(t *testing.T, ctx context.Context, dir, selector, name string) []byte {
	t.Helper()
	path := filepath.Join(dir, name)
	os.Remove(path)
	eval[bool](t, ctx, fmt.Sprintf(`(document.querySelector(%q).click(), true)`, selector))
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path + ".crdownload"); err == nil {
			continue
		}
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return b
		}
	}
	entries, _ := os.ReadDir(dir)
	t.Fatalf("%s was not downloaded as %s (the directory holds %v)", selector, name, entries)
	return nil
}

func fkcBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("FKC_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../bin/fkc")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no fkc binary (FKC_BIN, or make fkc): %v", err)
	}
	return bin
}

// cliRun runs a copied `fkc run …` line (no quoted words) in dir.
func cliRun(t *testing.T, dir, line string) []byte {
	t.Helper()
	args := strings.Fields(line)
	if len(args) < 2 || args[0] != "fkc" || args[1] != "run" {
		t.Fatalf("not an fkc run line: %q", line)
	}
	cmd := exec.Command(fkcBin(t), args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.npy"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A .npy chosen for a Try-it input is read by the reader fkc run uses: a
// bad one gets that reader's error at the file's field; a good one is
// what the run reads, the command line names it, and a share link says
// it cannot carry it (opened, the page asks for the file).
func TestTryFileIn(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	dir := t.TempDir()
	if eval[bool](t, ctx, `!!document.querySelector("form.tryform input[type=file][name]")`) {
		t.Error("a file input in the Try-it form has a name: the form is read as text")
	}

	garbage := []byte("\x93NUMPY\x01\x00garbage")
	_, readerErr := tensor.ReadNpyBytes(garbage, false)
	os.WriteFile(filepath.Join(dir, "bad.npy"), garbage, 0o644)
	upload(t, ctx, "x", filepath.Join(dir, "bad.npy"))
	waitFor(t, ctx, `document.getElementById("err-x-file")`)
	if msg := eval[string](t, ctx, `document.getElementById("err-x-file").textContent`); readerErr == nil || !strings.Contains(msg, "fkc: input x: file bad.npy: "+readerErr.Error()) {
		t.Errorf("a bad file's message %q; the reader says %v", msg, readerErr)
	}
	if eval[string](t, ctx, `document.getElementById("try-file-x").getAttribute("aria-invalid") + " " + document.querySelector('[name="x.kind"]').value`) != "true arange" {
		t.Error("a bad file: the file field is not marked invalid, or the input changed")
	}

	x := tensor.New(tensor.F64, []int{3, 4})
	for i := range x.NumElems() {
		x.Set(i, 1.5*float64(i)-4)
	}
	b, err := tensor.NpyBytes(x)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "mine.npy"), b, 0o644)
	upload(t, ctx, "x", filepath.Join(dir, "mine.npy"))
	waitFor(t, ctx, `document.getElementById("try-filenote-x").textContent.includes("mine.npy: F64[3, 4]")`)
	if eval[bool](t, ctx, `!!document.getElementById("err-x-file")`) {
		t.Error("the bad file's message stayed after a good file")
	}
	if k := eval[string](t, ctx, `document.querySelector('[name="x.kind"]').value`); k != "file" {
		t.Errorf("x's fill is %q after choosing a file", k)
	}
	if cli := eval[string](t, ctx, `document.getElementById("cli").textContent`); !strings.Contains(cli, "-i x=mine.npy") {
		t.Errorf("the command line does not name the file: %q", cli)
	}
	eval[bool](t, ctx, `(document.getElementById("run-cpu").click(), true)`)
	waitFor(t, ctx, `document.querySelector('#visual .gridbox[data-grid="x"] .ghead') && document.querySelector('#visual .gridbox[data-grid="x"] .ghead').innerText.includes("F64[3, 4]")`)
	cells := eval[[]string](t, ctx, `[...document.querySelectorAll('#visual .gridbox[data-grid="x"] .cell .v')].map(c => c.textContent)`)
	var want []string
	for i := range x.NumElems() {
		want = append(want, playground.Format(x, i))
	}
	if !slices.Equal(cells, want) {
		t.Errorf("the run's x is %v, the file's %v", cells, want)
	}
	if s := outShape(t, ctx); s != "F64[7, 8]" {
		t.Errorf("the output is %s, want F64[7, 8] (the file's [3, 4] padded 2:2,2:2)", s)
	}
	eval[bool](t, ctx, `(document.getElementById("peers").open = true, window.scrollTo(0, document.getElementById("try").getBoundingClientRect().top + window.scrollY - 50), true)`)
	screenshot(t, ctx, "kernel-files")
	if src, err := os.ReadFile("node_modules/axe-core/axe.min.js"); err == nil {
		checkAxe(t, ctx, string(src), "kernel page with a file input and its programs shown")
	} else {
		t.Logf("axe-core is not installed (cd e2e && npm ci): the page with a file input is not checked by it")
	}

	catchClipboard(t, ctx)
	eval[bool](t, ctx, `(document.getElementById("share").click(), true)`)
	waitFor(t, ctx, `document.getElementById("share-note").textContent.startsWith("link copied")`)
	if note := eval[string](t, ctx, `document.getElementById("share-note").textContent`); !strings.Contains(note, "cannot carry your file for x (from mine.npy)") {
		t.Errorf("the share note does not say the link cannot carry the file: %q", note)
	}
	link := eval[string](t, ctx, `window.__copied[0]`)
	if !strings.Contains(link, "x=3,4|F64|file|mine.npy") {
		t.Errorf("the link does not name the file: %s", link)
	}

	// A file dropped on the row is read as a chosen one.
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const d = new DataTransfer(); d.items.add(new File([Uint8Array.from(atob(%q), c => c.charCodeAt(0))], "dropped.npy"));
		document.querySelector('.inrow[data-input="x"]').dispatchEvent(new DragEvent("drop", {dataTransfer: d, bubbles: true, cancelable: true})); return true; })()`, base64.StdEncoding.EncodeToString(b)))
	waitFor(t, ctx, `document.getElementById("try-filenote-x").textContent.includes("dropped.npy: F64[3, 4]")`)
	if cli := eval[string](t, ctx, `document.getElementById("cli").textContent`); !strings.Contains(cli, "-i x=dropped.npy") {
		t.Errorf("after a drop the command line reads %q", cli)
	}

	other := tab(t, nil)
	open(t, other, link[strings.Index(link, "#"):])
	waitFor(t, other, `document.getElementById("err-x-file")`)
	if msg := eval[string](t, other, `document.getElementById("err-x-file").textContent + " | " + document.getElementById("try-filenote-x").textContent`); !strings.Contains(msg, "mine.npy is not loaded in this page") || !strings.Contains(msg, "choose it") {
		t.Errorf("the linked page does not ask for the file: %q", msg)
	}
	if eval[bool](t, other, `!!document.querySelector("#visual .gridbox")`) {
		t.Error("the linked page ran something without the file")
	}

	// Indices of a dtype the contract refuses: the message, about the
	// input's dtype, sits at the file (the dtype control is hidden, the
	// dtype being the file's).
	g := tab(t, nil)
	open(t, g, "#/k/"+escape("fuel-reference-backend/gather"))
	waitFor(t, g, `document.querySelector("#visual .gridbox.out .cell")`)
	idx := tensor.New(tensor.F32, []int{4, 3})
	if b, err = tensor.NpyBytes(idx); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "idx.npy"), b, 0o644)
	upload(t, g, "indices", filepath.Join(dir, "idx.npy"))
	waitFor(t, g, `document.getElementById("try-filenote-indices").textContent.includes("idx.npy: F32[4, 3]")`)
	eval[bool](t, g, `(document.getElementById("run-cpu").click(), true)`)
	waitFor(t, g, `document.querySelector("#results .violation")`)
	if msg := eval[string](t, g, `(document.getElementById("err-indices-file") || {textContent: ""}).textContent`); !strings.Contains(msg, "indices has dtype F32") {
		t.Errorf("F32 indices from a file: the message at the file is %q; the results say %q", msg, eval[string](t, g, `document.getElementById("results").innerText`))
	}
}

// A run's inputs and output download as .npy: valid files, and the output
// byte for byte what `fkc run` writes when the copied command line runs on
// the downloaded inputs.
func TestTryFilesOut(t *testing.T) {
	ctx := tab(t, nil)
	dl := downloadsTo(t, ctx)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	setField(t, ctx, "mode", "reflect")
	setField(t, ctx, "padding", "1:2,2:1")
	setField(t, ctx, "x.dtype", "F16")
	setField(t, ctx, "x.kind", "uniform")
	eval[bool](t, ctx, `(document.getElementById("run-cpu").click(), true)`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .ghead") && document.querySelector("#visual .gridbox.out .ghead").innerText.includes("F16[7, 8]")`)

	in := downloaded(t, ctx, dl, `#in-files button[data-input="x"]`, "x.npy")
	out := downloaded(t, ctx, dl, `#results .served[data-backend="cpu"] button[data-action="try-download"]`, "out.npy")
	for name, b := range map[string][]byte{"x.npy": in, "out.npy": out} {
		if _, err := tensor.ReadNpyBytes(b, false); err != nil {
			t.Fatalf("the downloaded %s is not a valid .npy (%d bytes, % x…): %v", name, len(b), b[:min(len(b), 12)], err)
		}
	}
	xt, _ := tensor.ReadNpyBytes(in, false)
	if xt.DType != tensor.F16 || !slices.Equal(xt.Shape, []int{4, 5}) {
		t.Errorf("the downloaded x is %s%v", xt.DType, xt.Shape)
	}

	catchClipboard(t, ctx)
	line := copied(t, ctx, "copy-cli")
	if line != strings.TrimPrefix(eval[string](t, ctx, `document.getElementById("cli").textContent`), "$ ") {
		t.Errorf("Copy as fkc run copied %q, the page shows another line", line)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.npy"), in, 0o644)
	if want := cliRun(t, dir, line); !bytes.Equal(out, want) {
		t.Errorf("the downloaded out.npy (%d bytes) is not what %q writes (%d bytes)", len(out), line, len(want))
	}
}

// pythonPeers is /usr/bin/python3 when it has NumPy and PyTorch.
func pythonPeers(t *testing.T) (string, bool) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Logf("no %s: the copied programs are not run", py)
		return "", false
	}
	if out, err := exec.Command(py, "-c", "import numpy, torch").CombinedOutput(); err != nil {
		t.Logf("python3 lacks numpy or torch (%s): the copied programs are not run", out)
		return "", false
	}
	return py, true
}

// runPeer runs a copied program in a directory holding the inputs and
// holds its out.npy to want (dtype, shape and bits).
func runPeer(t *testing.T, py, lib, prog string, inputs map[string][]byte, want []byte) {
	t.Helper()
	dir := t.TempDir()
	for n, b := range inputs {
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "peer.py"), []byte(prog), 0o644)
	cmd := exec.Command(py, "-W", "ignore", "peer.py")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the copied %s program failed: %v\n%s\n%s", lib, err, out, prog)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.npy"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tensor.ReadNpyBytes(b, false)
	if err != nil {
		t.Fatalf("%s's out.npy: %v", lib, err)
	}
	w, _ := tensor.ReadNpyBytes(want, false)
	if got.DType != w.DType || !slices.Equal(got.Shape, w.Shape) || !bytes.Equal(got.Data, w.Data) {
		t.Errorf("the copied %s program saved %s%v; fkc run writes %s%v\n%s", lib, got.DType, got.Shape, w.DType, w.Shape, prog)
		return
	}
	t.Logf("the copied %s program saved what fkc run writes: %s%v", lib, got.DType, got.Shape)
}

// Copy as NumPy / PyTorch put the call's programs on the clipboard (and in
// the page): the pad modes under those libraries' names, a comment where
// max skips NaN; run on the downloaded inputs they save what `fkc run`
// writes.
func TestCopyAsNumPyTorch(t *testing.T) {
	py, canRun := pythonPeers(t)
	check := func(page string, fields [][2]string, np, torch []string) {
		t.Helper()
		ctx := tab(t, nil) // a fresh page: the same hash again would not load it again
		dl := downloadsTo(t, ctx)
		open(t, ctx, "#/k/"+escape(page))
		waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
		catchClipboard(t, ctx)
		for _, f := range fields {
			setField(t, ctx, f[0], f[1])
		}
		progs := map[string]string{}
		for _, c := range []struct {
			lib, button, pre string
			has              []string
		}{{"NumPy", "copy-numpy", "peer-numpy", np}, {"PyTorch", "copy-torch", "peer-torch", torch}} {
			text := copied(t, ctx, c.button)
			waitFor(t, ctx, fmt.Sprintf(`document.getElementById("copy-note").textContent.startsWith("the %s program copied")`, c.lib))
			if shown := eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).textContent`, c.pre)); shown != text {
				t.Errorf("%s: the page shows another %s program than it copied:\n%s\n---\n%s", page, c.lib, shown, text)
			}
			for _, s := range c.has {
				if !strings.Contains(text, s) {
					t.Errorf("%s: the %s program lacks %q:\n%s", page, c.lib, s, text)
				}
			}
			progs[c.lib] = text
		}
		if !eval[bool](t, ctx, `document.getElementById("peers").open`) {
			t.Errorf("%s: the programs are not shown", page)
		}
		if !canRun {
			return
		}
		eval[bool](t, ctx, `(document.getElementById("run-cpu").click(), true)`)
		waitFor(t, ctx, `!document.getElementById("results").classList.contains("stale") && (document.querySelector("#results .served") || document.querySelector("#results .violation"))`)
		if msg := eval[string](t, ctx, `[...document.querySelectorAll("#results .violation")].map(v => v.innerText).join("; ")`); msg != "" {
			t.Fatalf("%s: the run failed: %s", page, msg)
		}
		inputs := map[string][]byte{}
		for _, n := range eval[[]string](t, ctx, `[...document.querySelectorAll("#in-files button")].map(b => b.dataset.input)`) {
			inputs[n+".npy"] = downloaded(t, ctx, dl, fmt.Sprintf(`#in-files button[data-input=%q]`, n), n+".npy")
		}
		dir := t.TempDir()
		for n, b := range inputs {
			os.WriteFile(filepath.Join(dir, n), b, 0o644)
		}
		want := cliRun(t, dir, copied(t, ctx, "copy-cli"))
		for lib, prog := range progs {
			runPeer(t, py, lib, prog, inputs, want)
		}
	}
	check("fuel-cpu-backend/pad", [][2]string{{"mode", "replicate"}, {"padding", "1:2,3:0"}, {"x.kind", "random"}},
		[]string{`mode="edge"`}, []string{`mode="replicate"`})
	check("fkc-cpu-kernels/pad_circular", [][2]string{{"padding", "1:1,2:2"}},
		[]string{`mode="wrap"`}, []string{`mode="circular"`})
	check("fuel-reference-backend/max_dim", [][2]string{{"x.kind", "random"}},
		[]string{"skip NaN", "np.max("}, []string{"skip NaN", "torch.amax("})
}
