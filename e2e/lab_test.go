package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/lab"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

const reflectID = "fuel-vulkan-kernels/pad_reflect_b4"

func labEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	eng.AddEntries(gpu.Links(nil))
	return eng
}

// labTemplate is the plain kernel the lab opens with for id.
func labTemplate(t *testing.T, id string) string {
	t.Helper()
	k, err := lab.Find(labEngine(t), id)
	if err != nil {
		t.Fatal(err)
	}
	src, err := k.Template()
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// setCode puts code in the lab's editor as typing would (an input event).
func setCode(t *testing.T, ctx context.Context, code string) {
	t.Helper()
	b, _ := json.Marshal(code)
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const ta = document.getElementById("lab-code"); ta.value = %s; ta.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, b))
}

// labRun presses a button and waits for the result; it returns the
// summary line and how long the page took.
func labRun(t *testing.T, ctx context.Context) (string, time.Duration) {
	t.Helper()
	t0 := time.Now()
	eval[bool](t, ctx, `(() => { document.getElementById("lab-result").innerHTML = ""; document.getElementById("lab-check").click(); return true; })()`)
	waitFor(t, ctx, `document.getElementById("lab-summary") || document.querySelector("#lab-compile .violation") || document.querySelector("#lab-result .err")`)
	return eval[string](t, ctx, `(document.getElementById("lab-summary") || document.getElementById("lab-compile") || document.getElementById("lab-result")).textContent`), time.Since(t0)
}

// The lab in the page: the plain kernel passes within 3 s; a reflect
// kernel off by one at the far edge fails with exactly the cells that
// edge makes wrong marked, and a repro line that fails the same way with
// bin/fkc on lavapipe; an endless loop, an overrun and a kernel that
// never writes are reported, and the next correct run passes in the
// same tab; a share link's code waits for Run.
func TestLab(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/fuel-vulkan-kernels%2Fpad_reflect_b4")
	needGPU(t, ctx)
	waitFor(t, ctx, `document.getElementById("write-your-own")`)
	if h := eval[string](t, ctx, `document.getElementById("write-your-own").getAttribute("href")`); h != "#/lab/fuel-vulkan-kernels%2fpad_reflect_b4" {
		t.Fatalf("Write your own links to %q", h)
	}
	eval[bool](t, ctx, `(() => { localStorage.clear(); document.getElementById("write-your-own").click(); return true; })()`)
	waitFor(t, ctx, `document.getElementById("lab-code")`)
	plain := labTemplate(t, reflectID)
	if got := eval[string](t, ctx, `document.getElementById("lab-code").value`); got != plain {
		t.Fatalf("the editor opened with %d bytes, not the plain kernel's %d", len(got), len(plain))
	}

	t.Run("plain kernel passes", func(t *testing.T) {
		sum, took := labRun(t, ctx)
		ms := eval[float64](t, ctx, `fkc.timing.labCheckMs`)
		t.Logf("pad_reflect_b4 check in the page: %.0f ms (%s): %s", ms, took.Round(time.Millisecond), sum)
		if !strings.Contains(sum, "passed") || strings.Contains(sum, "failed") {
			t.Fatalf("the plain kernel: %s", sum)
		}
		// The goal is 3 s on an idle 2-core machine (docs/lab.md quotes the
		// figure); a test sharing the machine with others only bounds it,
		// well above, against a check that has lost its batching.
		if ms > 12000 {
			t.Errorf("checking a pad kernel took %.0f ms, more than 12 s", ms)
		}
		screenshot(t, ctx, "lab-page")
	})

	t.Run("off by one at the far edge", func(t *testing.T) {
		bad := strings.Replace(plain, "j = 2 * (n - 1) - j;", "j = 2 * n - 1 - j;", 1)
		if bad == plain {
			t.Fatal("the plain kernel has no far-edge line to break")
		}
		setCode(t, ctx, bad)
		sum, _ := labRun(t, ctx)
		if !strings.Contains(sum, "failed") {
			t.Fatalf("the broken kernel: %s", sum)
		}
		why := eval[string](t, ctx, `document.getElementById("lab-why").textContent`)
		if !strings.HasPrefix(why, "wrong values") {
			t.Fatalf("why: %s", why)
		}
		repro := eval[string](t, ctx, `document.getElementById("lab-repro").textContent`)
		xURL := eval[string](t, ctx, `document.querySelector('a[download="x.npy"]').href`)
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(xURL, "data:application/octet-stream;base64,"))
		if err != nil {
			t.Fatal(err)
		}
		x, err := tensor.ReadNpyBytes(raw, false)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Fields(repro)
		if len(args) < 3 || args[0] != "fkc" || args[1] != "run" {
			t.Fatalf("repro line %q", repro)
		}
		// The wrong cells, worked out here: the oracle against the same
		// kernel's rule, off by one past the far edge.
		c, err := ops.Parse("pad", flagsOf(args))
		if err != nil {
			t.Fatal(err)
		}
		c.Inputs = map[string]*tensor.Tensor{"x": x}
		want, err := ops.Oracle(c)
		if err != nil {
			t.Fatal(err)
		}
		wrong := farEdgeWrong(c, x, want)
		if len(wrong) == 0 {
			t.Fatal("the failing case has no far-edge cell")
		}
		var drawn []struct {
			I     int  `json:"i"`
			Wrong bool `json:"wrong"`
		}
		if err := json.Unmarshal([]byte(eval[string](t, ctx, `JSON.stringify([...document.querySelectorAll('.gridbox[data-key="got"] .cell')].map(c => ({i: +c.dataset.i, wrong: c.classList.contains("wrong")})))`)), &drawn); err != nil {
			t.Fatal(err)
		}
		if len(drawn) == 0 {
			t.Fatal("no got grid drawn")
		}
		marked := 0
		for _, d := range drawn {
			if d.Wrong != wrong[d.I] {
				t.Errorf("cell %d: marked wrong %v, wrong by the far-edge rule %v", d.I, d.Wrong, wrong[d.I])
			}
			if d.Wrong {
				marked++
			}
		}
		if marked == 0 {
			t.Error("no cell marked wrong")
		}
		hoverCell(t, ctx, `.gridbox[data-key="got"] .cell.wrong`)
		info := eval[string](t, ctx, `document.getElementById("hoverinfo").textContent`)
		if !strings.Contains(info, "expected") || !strings.Contains(info, "0x") || !strings.Contains(info, "ULP") {
			t.Errorf("hover on a wrong cell: %q", info)
		}
		t.Logf("%d of %d drawn cells marked wrong; repro: %s", marked, len(drawn), repro)
		screenshot(t, ctx, "lab-failing-case")

		// The repro line natively, on lavapipe: it fails the same way.
		bin := os.Getenv("FKC_BIN")
		if bin == "" {
			bin, _ = filepath.Abs("../bin/fkc")
		}
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("no fkc binary to run the repro line (FKC_BIN, or make fkc): %v", err)
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "mine.wgsl"), []byte(bad), 0o644)
		os.WriteFile(filepath.Join(dir, "x.npy"), raw, 0o644)
		cmd := exec.Command(bin, args[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("native repro: want exit 1, got %v:\n%s", err, out)
		}
		pageWrong := eval[string](t, ctx, `document.getElementById("lab-why").textContent`)
		if !strings.Contains(string(out), pageWrong) {
			t.Errorf("native repro says\n%s\nthe page says %q", out, pageWrong)
		}
		t.Logf("native repro (exit 1): %s", firstLines(string(out), 4))
	})

	t.Run("endless loop, then a correct run", func(t *testing.T) {
		endless := strings.Replace(plain, "    if (t >= P.units) {", "    loop { }\n    if (t >= P.units) {", 1)
		setCode(t, ctx, endless)
		sum, took := labRun(t, ctx)
		why := eval[string](t, ctx, `(document.getElementById("lab-why") || {}).textContent || ""`)
		t.Logf("endless loop: %s (%s) — %s", sum, took.Round(time.Millisecond), why)
		if !strings.HasPrefix(why, "timed out") {
			t.Fatalf("an endless loop: %s / %q", sum, why)
		}
		if got := eval[string](t, ctx, `document.getElementById("lab-code").value`); got != endless {
			t.Error("the editor lost the user's code")
		}
		setCode(t, ctx, plain)
		sum, took = labRun(t, ctx)
		if !strings.Contains(sum, "passed") || strings.Contains(sum, "failed") || took > 10*time.Second {
			t.Fatalf("the next correct run: %s in %s", sum, took)
		}
		t.Logf("next correct run: %s in %s", sum, took.Round(time.Millisecond))
	})

	t.Run("write past the output", func(t *testing.T) {
		over := strings.Replace(plain, "        out[t] = elem(t).x;\n", "        out[t] = elem(t).x;\n        out[P.units + 3u] = 7u;\n", 1)
		if over == plain {
			t.Fatal("no line to add the overrun after")
		}
		setCode(t, ctx, over)
		labRun(t, ctx)
		if why := eval[string](t, ctx, `document.getElementById("lab-why").textContent`); !strings.HasPrefix(why, "wrote past its output") {
			t.Fatalf("an overrun: %q", why)
		}
	})

	t.Run("never writes", func(t *testing.T) {
		never := strings.Replace(plain, "        out[t] = elem(t).x;\n", "", 1)
		setCode(t, ctx, never)
		labRun(t, ctx)
		if why := eval[string](t, ctx, `document.getElementById("lab-why").textContent`); !strings.HasPrefix(why, "never wrote") {
			t.Fatalf("a kernel that never writes: %q", why)
		}
	})

	t.Run("compile error at its line", func(t *testing.T) {
		lines := strings.Split(plain, "\n")
		at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "fn elem(") }) + 2
		lines[at-1] = "    let oops = ;"
		setCode(t, ctx, strings.Join(lines, "\n"))
		labRun(t, ctx)
		msg := eval[string](t, ctx, `document.getElementById("lab-compile").textContent`)
		if !strings.Contains(msg, fmt.Sprintf("line %d:", at)) {
			t.Fatalf("compile error: want line %d, got %q", at, msg)
		}
		if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#lab-gutter .ln.err[data-line="%d"]').length`, at)); n != 1 {
			t.Errorf("the gutter does not mark line %d", at)
		}
	})

	t.Run("share link waits for Run", func(t *testing.T) {
		mine := strings.Replace(plain, "// Plain pad", "// My pad", 1)
		setCode(t, ctx, mine)
		eval[bool](t, ctx, `(() => { document.getElementById("lab-share").click(); return true; })()`)
		waitFor(t, ctx, `location.hash.includes("?code=")`)
		link := eval[string](t, ctx, `location.href`)
		eval[bool](t, ctx, `(() => { localStorage.clear(); return true; })()`)
		open(t, ctx, "#/")
		if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.getElementById("lab-code")`)
		if got := eval[string](t, ctx, `document.getElementById("lab-code").value`); got != mine {
			t.Fatal("the link's code is not in the editor")
		}
		if !eval[bool](t, ctx, `!!document.getElementById("lab-shared")`) || eval[string](t, ctx, `document.getElementById("lab-result").textContent`) != "" {
			t.Error("a shared link's code should be flagged and not run")
		}
		big := strings.Repeat(fmt.Sprintf("// %x\n", time.Now().UnixNano()), 1) + randomText(40000)
		setCode(t, ctx, big)
		eval[bool](t, ctx, `(() => { document.getElementById("lab-share").click(); return true; })()`)
		if note := eval[string](t, ctx, `document.getElementById("lab-note").textContent`); !strings.Contains(note, "Too long to share") {
			t.Errorf("an oversized share: %q", note)
		}
	})
}

// randomText is n bytes that do not compress (a share link over the cap).
func randomText(n int) string {
	var b strings.Builder
	x := uint32(2463534242)
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789"[x%36])
	}
	return b.String()
}

// flagsOf is the op flags of an fkc run line (after the op, without the
// lab's own: --backend, --kernel, --wgsl, --rows, -i, -o).
func flagsOf(args []string) []string {
	var out []string
	for i := 3; i < len(args); i++ {
		switch args[i] {
		case "--backend", "--kernel", "--wgsl", "--rows", "-i", "-o":
			i++
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// farEdgeWrong lists the output cells a reflect pad gets wrong when its
// far-edge source is 2n-1-j instead of 2(n-1)-j.
func farEdgeWrong(c *kernels.Call, x, want *tensor.Tensor) map[int]bool {
	shape := want.Shape
	pads := c.Params.Padding
	wrong := map[int]bool{}
	strides := tensor.Strides(x.Shape)
	coord := make([]int, len(shape))
	for o := range want.NumElems() {
		rest := o
		for a := len(shape) - 1; a >= 0; a-- {
			coord[a] = rest % shape[a]
			rest /= shape[a]
		}
		src := 0
		for a := range shape {
			n := x.Shape[a]
			j := coord[a] - pads[a].Before
			switch {
			case j < 0:
				j = -j
			case j >= n:
				j = 2*n - 1 - j
			}
			src += j * strides[a]
		}
		es := x.DType.Size()
		if string(x.Data[src*es:(src+1)*es]) != string(want.Data[o*es:(o+1)*es]) {
			wrong[o] = true
		}
	}
	return wrong
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], " | ")
}

// Every puzzle fails with its stub and passes with its reference answer
// in the page; the puzzles page shows the progress.
func TestLabPuzzles(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/lab/puzzles")
	needGPU(t, ctx)
	eval[bool](t, ctx, `(() => { localStorage.clear(); return true; })()`)
	for _, z := range lab.Puzzles {
		t.Run(z.Name, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(baseURL+"#/lab/puzzles/"+z.Name)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, fmt.Sprintf(`document.getElementById("lab-code") && document.title.startsWith(%q)`, "Puzzle: "+z.Title))
			if got := eval[string](t, ctx, `document.getElementById("lab-code").value`); got != z.Stub() {
				t.Fatal("the editor does not open with the stub")
			}
			sum, _ := labRun(t, ctx)
			if !strings.Contains(sum, "failed") {
				t.Fatalf("the stub: %s", sum)
			}
			if z.Name == "reflect" {
				screenshot(t, ctx, "lab-puzzle-stub")
			}
			eval[bool](t, ctx, `(() => { document.getElementById("lab-hint").click(); return true; })()`)
			waitFor(t, ctx, `!document.querySelector('#lab-hints [data-hint="0"]').hidden`)
			setCode(t, ctx, z.Answer())
			sum, took := labRun(t, ctx)
			if !strings.Contains(sum, "passed") || strings.Contains(sum, "failed") {
				t.Fatalf("the answer: %s", sum)
			}
			t.Logf("%s: %s (%s)", z.Name, sum, took.Round(time.Millisecond))
		})
	}
	open(t, ctx, "#/lab/puzzles")
	waitFor(t, ctx, `document.querySelector('[data-progress="row_sum"]')`)
	if n := eval[int](t, ctx, `[...document.querySelectorAll("[data-progress]")].filter(e => e.textContent.includes("solved")).length`); n != len(lab.Puzzles) {
		t.Errorf("%d puzzles shown solved, want %d", n, len(lab.Puzzles))
	}
}

// Every family's plain kernel passes its derived cases in Chromium
// (Tint, SwiftShader), through the console API fkc.lab.check: the
// browser's compiler refuses some WGSL that naga accepts, and SwiftShader
// flushes f32 subnormals. One kernel per family and element size.
func TestLabPlainKernelsInChromium(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/lab")
	needGPU(t, ctx)
	for _, id := range []string{
		"fuel-vulkan-kernels/pad_const_b1", "fuel-vulkan-kernels/pad_reflect_b2", "fuel-vulkan-kernels/pad_replicate_b8", "fkc-cpu-kernels/pad_circular",
		"fuel-vulkan-kernels/pad_backward_const_b1", "fuel-vulkan-kernels/pad_backward_reflect_f16", "fkc-cpu-kernels/pad_backward_symmetric",
		"fkc-cpu-kernels/masked_fill", "fuel-reference-backend/sum_all", "fuel-reference-backend/mean_dim", "fuel-reference-backend/argmax_dim",
		"fuel-reference-backend/reduce_sum_to", "fuel-reference-backend/reduce_max_to_backward", "fuel-reference-backend/index_select_tensor",
		"fuel-reference-backend/embedding", "fuel-reference-backend/gather", "fuel-reference-backend/index_add", "fuel-reference-backend/scatter_add",
	} {
		b, _ := json.Marshal(id)
		var r struct {
			Cases, Passed, Skipped int
			OK                     bool
			MS                     float64
			Failed                 struct{ Report string }
		}
		js := fmt.Sprintf(`fkc.lab.template({kernel: %s}).then(w => fkc.lab.check({kernel: %s, wgsl: w, cases: 2})).then(r => JSON.stringify(r))`, b, b)
		if err := json.Unmarshal([]byte(eval[string](t, ctx, js)), &r); err != nil {
			t.Fatal(err)
		}
		if !r.OK {
			t.Errorf("%s: %d of %d passed, then:\n%s", id, r.Passed, r.Cases, r.Failed.Report)
			continue
		}
		t.Logf("%s: %d passed, %d skipped of %d, %.0f ms", id, r.Passed, r.Skipped, r.Cases, r.MS)
	}
}

// TestLabBenchBesideBench times the built-in kernel twice on one call: by
// fkc.lab.bench (beside the template kernel) and by fkc.bench, which must
// take the very call the lab line describes (same operands, same bytes) and
// report it on the clock the lab used. The two medians are logged side by
// side; timings on a shared machine are figures, not assertions.
func TestLabBenchBesideBench(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/lab")
	needGPU(t, ctx)
	const id = "fuel-vulkan-kernels/pad_reflect_b4"
	b, _ := json.Marshal(id)
	type line struct {
		Op, Clock, Error string
		Flags            []string
		Inputs           map[string]struct {
			Shape []int
			DType string
		}
		OK        bool
		Bytes     float64
		BuiltinMS float64 `json:"builtin_ms"`
	}
	var lines []line
	js := fmt.Sprintf(`fkc.lab.template({kernel: %s}).then(w => fkc.lab.bench({kernel: %s, wgsl: w, elems: 1 << 20, reps: 9})).then(r => JSON.stringify(r))`, b, b)
	if err := json.Unmarshal([]byte(eval[string](t, ctx, js)), &lines); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatal("fkc.lab.bench gave no lines")
	}
	l := lines[0]
	if !l.OK || l.Op != "pad" || len(l.Inputs["x"].Shape) == 0 || len(l.Flags) == 0 {
		t.Fatalf("lab bench line: %+v", l)
	}
	inputs := map[string]any{}
	for n, in := range l.Inputs {
		inputs[n] = map[string]any{"shape": in.Shape, "dtype": in.DType, "fill": "random"}
	}
	req, _ := json.Marshal(map[string]any{"op": l.Op, "flags": l.Flags, "inputs": inputs, "kernel": id, "backend": "webgpu", "reps": 9})
	var r struct {
		Kernel      string
		TensorBytes float64 `json:"tensor_bytes"`
		MedianMS    float64 `json:"median_ms"`
		DeviceMS    float64 `json:"device_ms"`
		KernelMS    float64 `json:"kernel_ms"`
	}
	if err := json.Unmarshal([]byte(eval[string](t, ctx, fmt.Sprintf(`fkc.bench(%s).then(r => JSON.stringify(r))`, req))), &r); err != nil {
		t.Fatal(err)
	}
	if r.Kernel != "pad_reflect_b4" || r.TensorBytes != l.Bytes {
		t.Fatalf("fkc.bench ran %s on %.0f tensor bytes; the lab line timed %s on %.0f", r.Kernel, r.TensorBytes, id, l.Bytes)
	}
	same := map[string]float64{"device": r.DeviceMS, "kernel": r.KernelMS}[l.Clock]
	if same == 0 {
		t.Fatalf("the lab timed on the %q clock; fkc.bench reported none on it (%+v)", l.Clock, r)
	}
	t.Logf("%s %s %v on %v: lab built-in %.3f ms, fkc.bench %.3f ms (%s clock; ratio %.3f); fkc.bench host to host %.3f ms",
		id, l.Op, l.Flags, l.Inputs["x"].Shape, l.BuiltinMS, same, l.Clock, l.BuiltinMS/same, r.MedianMS)
}
