package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/playground"
	"github.com/fkc-playground/fkc/tensor"
)

// ---------- helpers for kernel pages ----------

type cellJSON struct {
	I    int    `json:"i"`
	V    string `json:"v"`
	Bits string `json:"bits"`
	Lab  string `json:"lab"`
	Cls  string `json:"cls"`
}

// cells reads the drawn cells of the grids matching sel (flat index, the
// value shown, its bit pattern, its label and classes).
func cells(t *testing.T, ctx context.Context, sel string) []cellJSON {
	t.Helper()
	s := eval[string](t, ctx, fmt.Sprintf(`JSON.stringify([...document.querySelectorAll(%q)].map(c => ({
		i: Number(c.dataset.i), v: c.querySelector(".v").innerText, bits: c.title,
		lab: [...c.querySelectorAll(".lab")].map(l => l.innerText).join(" "), cls: c.className })))`, sel+" .cell"))
	var out []cellJSON
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// bitsOf is the hex bit pattern the page shows in a float cell's tooltip.
func bitsOf(x *tensor.Tensor, i int) string {
	w := x.DType.Size()
	var u uint64
	for b := w - 1; b >= 0; b-- {
		u = u<<8 | uint64(x.Data[i*w+b])
	}
	return fmt.Sprintf("0x%0*x", 2*w, u)
}

// checkCells compares drawn cells with a tensor computed in Go: the value
// text (and, for floats, the bit pattern) of every drawn cell.
func checkCells(t *testing.T, what string, got []cellJSON, want *tensor.Tensor) {
	t.Helper()
	if len(got) == 0 {
		t.Errorf("%s: no cells drawn", what)
	}
	bad := 0
	for _, c := range got {
		if c.I < 0 || c.I >= want.NumElems() {
			t.Errorf("%s: cell index %d outside %v", what, c.I, want.Shape)
			continue
		}
		w := playground.Format(want, c.I)
		if c.V != w || (want.DType.IsFloat() && c.Bits != bitsOf(want, c.I)) {
			if bad++; bad <= 5 {
				t.Errorf("%s: cell %d shows %q (%s), Go's ops give %q (%s)", what, c.I, c.V, c.Bits, w, bitsOf(want, c.I))
			}
		}
	}
}

func hoverCell(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const c = document.querySelector(%q); if (!c) throw new Error("no cell " + %q); c.dispatchEvent(new MouseEvent("mouseover", {bubbles: true})); return true; })()`, sel, sel))
}

func srcCells(t *testing.T, ctx context.Context, grid string) []int {
	t.Helper()
	v := eval[[]int](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('#visual .gridbox[data-grid=%q]:not(.out) .cell.src')].map(c => Number(c.dataset.i))`, grid))
	sort.Ints(v)
	return v
}

func mustGen(t *testing.T, g ops.Gen) *tensor.Tensor {
	t.Helper()
	x, err := g.Make()
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func mustRun(t *testing.T, eng *engine.Engine, op string, flags []string, in map[string]*tensor.Tensor) *tensor.Tensor {
	t.Helper()
	r, err := eng.RunArgs(engine.CPU, op, flags, in)
	if err != nil {
		t.Fatalf("native %s %v: %v", op, flags, err)
	}
	return r.Out
}

func needGPU(t *testing.T, ctx context.Context) {
	t.Helper()
	if !eval[bool](t, ctx, `fkc.gpu().available`) {
		t.Fatalf("WebGPU is not available in the test browser: %s", eval[string](t, ctx, `fkc.gpu().reason`))
	}
}

func flat(shape []int, coord ...int) int {
	o := 0
	for a := range shape {
		o = o*shape[a] + coord[a]
	}
	return o
}

// ordered maps a float32 bit pattern onto a line where adjacent floats are 1 apart.
func ordered32(u uint32) int64 {
	if u&0x80000000 != 0 {
		return -int64(u &^ 0x80000000)
	}
	return int64(u)
}

// ---------- tests ----------

// "Both + diff": CPU and WebGPU side by side, the diff panel's verdict
// agrees with the bits the page shows, and both outputs match Go's ops.
func TestBothAndDiff(t *testing.T) {
	ctx := tab(t, nil)
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}

	// A data mover: bitwise equal by contract.
	open(t, ctx, "#/k/"+escape("fuel-vulkan-kernels/pad_reflect_b4"))
	needGPU(t, ctx)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	eval[bool](t, ctx, `(document.getElementById("run-both").click(), true)`)
	waitFor(t, ctx, `document.getElementById("diff") && document.querySelectorAll("#visual .gridbox.out").length === 2`)
	diff := eval[string](t, ctx, `document.getElementById("diff").innerText`)
	if !strings.Contains(diff, "bitwise identical (72 elements)") {
		t.Errorf("pad reflect diff panel says %q, want bitwise identical (72 elements)", diff)
	}
	// The verdict: within the contract, naming the bound (bit for bit).
	if v := eval[string](t, ctx, `(document.getElementById("verdict") || {innerText: ""}).innerText`); !strings.Contains(v, "Within the contract") || !strings.Contains(v, "bit for bit") || !strings.Contains(v, "pad_reflect_b4: bitwise") {
		t.Errorf("pad reflect diff verdict %q: want within the contract, bit for bit, with the kernel's determinism", v)
	}
	x := tensorOf(t, tensor.F32, []int{4, 5})
	want := mustRun(t, eng, "pad", []string{"--mode", "reflect", "--padding", "2:2,2:2"}, map[string]*tensor.Tensor{"x": x})
	for _, be := range []string{"cpu", "webgpu"} {
		if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('.served[data-backend=%q]').length`, be)); n != 1 {
			t.Errorf("%d result lines for %s", n, be)
		}
		got := cells(t, ctx, fmt.Sprintf(`#visual .gridbox.out[data-backend=%q]`, be))
		if len(got) != 72 {
			t.Errorf("%s output grid draws %d cells, want 72", be, len(got))
		}
		checkCells(t, "pad reflect "+be, got, want)
		if n := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#visual .gridbox.out[data-backend=%q] .deco.mirror').length`, be)); n != 4 {
			t.Errorf("%s output: %d mirror lines, want 4", be, n)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#visual .cell.differs").length`); n != 0 {
		t.Errorf("%d cells marked as differing on a bitwise-equal run", n)
	}
	// Timing: a batch of warm runs, so never "0 µs" nor "below the clock"; a rate with units.
	t.Logf("timings: %v", eval[[]string](t, ctx, `[...document.querySelectorAll(".served")].map(e => e.innerText + " | " + e.querySelector(".stat.time").title)`))
	for _, s := range eval[[]string](t, ctx, `[...document.querySelectorAll(".served .stat.time")].map(e => e.innerText)`) {
		if !regexp.MustCompile(`^[0-9.]+ (µs|ms) ×[0-9]+$`).MatchString(s) || regexp.MustCompile(`^0(\.0+)? `).MatchString(s) {
			t.Errorf("timing %q", s)
		}
	}
	// GB/s from the tensors' bytes, the same on both backends (4·(20+72)
	// bytes); each contract's own bytes_moved beside it, labelled.
	for _, s := range eval[[]string](t, ctx, `[...document.querySelectorAll(".served .stat.rate")].map(e => e.innerText)`) {
		if !regexp.MustCompile(`^368 B read \+ written → [0-9.]+ (GB|MB|kB|B)/s$`).MatchString(s) {
			t.Errorf("rate %q, want the tensors' 368 B read + written", s)
		}
	}
	if c := eval[[]string](t, ctx, `[...document.querySelectorAll(".served .stat.contract-bytes")].map(e => e.innerText)`); len(c) != 2 || !strings.HasPrefix(c[0], "contract's bytes_moved: ") {
		t.Errorf("the contracts' own bytes_moved beside the rate: %q", c)
	}
	screenshot(t, ctx, "both-diff-pad")

	// A reduction of non-integer data: the two backends may round apart;
	// the panel's figure must match the bits shown.
	xg := ops.Gen{Shape: "40,33", DType: "F32", Kind: "uniform", Seed: 5, Lo: -1, Hi: 1}
	open(t, ctx, "#/k/"+escape("fkc-wgsl-kernels/sum")+"?flags=--dim%201&x=40,33|F32|uniform|seed=5|lo=-1|hi=1&run=cpu,webgpu")
	waitFor(t, ctx, `document.getElementById("diff") && document.querySelectorAll("#visual .gridbox.out").length === 2`)
	diff = eval[string](t, ctx, `document.getElementById("diff").innerText`)
	wantSum := mustRun(t, eng, "sum", []string{"--dim", "1"}, map[string]*tensor.Tensor{"x": mustGen(t, xg)})
	cpu := cells(t, ctx, `#visual .gridbox.out[data-backend="cpu"]`)
	gpu := cells(t, ctx, `#visual .gridbox.out[data-backend="webgpu"]`)
	checkCells(t, "sum cpu", cpu, wantSum)
	if len(cpu) != 40 || len(gpu) != 40 {
		t.Fatalf("sum: %d cpu cells, %d webgpu cells, want 40 each", len(cpu), len(gpu))
	}
	var maxULP int64
	differ := 0
	for i := range cpu {
		a, _ := strconv.ParseUint(strings.TrimPrefix(cpu[i].Bits, "0x"), 16, 32)
		b, _ := strconv.ParseUint(strings.TrimPrefix(gpu[i].Bits, "0x"), 16, 32)
		if a != b {
			differ++
			d := ordered32(uint32(a)) - ordered32(uint32(b))
			maxULP = max(maxULP, max(d, -d))
			if !strings.Contains(gpu[i].Cls, "differs") {
				t.Errorf("sum: webgpu cell %d differs (%s vs %s) but is not marked", i, cpu[i].Bits, gpu[i].Bits)
			}
		}
		fa, _ := strconv.ParseFloat(cpu[i].V, 64)
		fb, _ := strconv.ParseFloat(gpu[i].V, 64)
		if math.Abs(fa-fb) > 1e-3*max(1, math.Abs(fa)) {
			t.Errorf("sum: cell %d cpu %s webgpu %s", i, cpu[i].V, gpu[i].V)
		}
	}
	wantDiff := "bitwise identical (40 elements)"
	if differ > 0 {
		wantDiff = fmt.Sprintf("%d of 40 elements differ; max %d ULP", differ, maxULP)
	}
	if !strings.Contains(diff, wantDiff) {
		t.Errorf("sum diff panel says %q; the bits shown give %q", diff, wantDiff)
	}
	// A sum may add in any order: the verdict names the bound it holds to.
	if v := eval[string](t, ctx, `(document.getElementById("verdict") || {innerText: ""}).innerText`); !strings.Contains(v, "Within the contract") || !strings.Contains(v, "|got − ref| ≤ m·2^-24·Σ|terms|") {
		t.Errorf("sum diff verdict %q: want within the contract's any-order bound, named", v)
	}
	// The mismatch table names the same elements with the same bits.
	rows := eval[[][]string](t, ctx, `[...document.querySelectorAll("#diff table tr")].slice(1).map(tr => [...tr.children].map(td => td.innerText))`)
	if differ > 0 && len(rows) != min(differ, 8) {
		t.Errorf("the diff table lists %d rows for %d differing elements", len(rows), differ)
	}
	for _, r := range rows {
		i, _ := strconv.Atoi(r[0])
		if len(r) != 6 || i >= len(cpu) || r[3] != cpu[i].Bits || r[4] != gpu[i].Bits || r[1] == r[2] {
			t.Errorf("diff table row %q; the grids show %s and %s at %d", r, cpu[min(i, len(cpu)-1)].Bits, gpu[min(i, len(gpu)-1)].Bits, i)
		}
	}
	t.Logf("sum_dim CPU vs WebGPU: %s", wantDiff)
	eval[bool](t, ctx, `(document.getElementById("try").scrollIntoView(), true)`) // the -top shot shows the diff
	screenshot(t, ctx, "both-diff-sum")
}

// A rank-3 input: the grids show 2-D slices with an axis picker; moving the
// slice or changing the axes keeps cells and hover → source right.
func TestAxisPickerRank3(t *testing.T) {
	ctx := tab(t, nil)
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	inShape, pads := []int{2, 3, 4}, [][2]int{{1, 1}, {1, 2}, {2, 1}}
	x := tensorOf(t, tensor.F32, inShape)
	want := mustRun(t, eng, "pad", []string{"--mode", "reflect", "--padding", "1:1,1:2,2:1"}, map[string]*tensor.Tensor{"x": x})
	outShape := want.Shape
	if fmt.Sprint(outShape) != "[4 6 7]" {
		t.Fatalf("native out shape %v", outShape)
	}
	// reflect: the input element an output coordinate reads (the contract's index map).
	source := func(o []int) (int, []int) {
		c := make([]int, 3)
		for a := range c {
			i, n := o[a]-pads[a][0], inShape[a]
			if i < 0 {
				i = -i
			} else if i >= n {
				i = 2*(n-1) - i
			}
			c[a] = i
		}
		return flat(inShape, c...), c
	}

	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad")+"?flags=--mode%20reflect%20--padding%201:1,1:2,2:1&x=2,3,4|F32|arange&run=cpu")
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	out := `#visual .gridbox.out`
	pick := eval[map[string]string](t, ctx, `(() => { const g = document.querySelector("#visual .gridbox.out");
		const r = g.querySelector('select[data-pick="rows"]'), c = g.querySelector('select[data-pick="cols"]'), s = g.querySelector('input[type=range][data-axis]');
		return {rows: r ? r.value : "", cols: c ? c.value : "", slider: s ? s.dataset.axis : "", max: s ? s.max : ""}; })()`)
	if fmt.Sprint(pick) != "map[cols:2 max:3 rows:1 slider:0]" {
		t.Fatalf("rank-3 output picker %v, want rows axis 1, cols axis 2, a slider for axis 0 (0..3)", pick)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#visual .gridbox[data-grid="x"] input[type=range][data-axis="0"]').length`); n != 1 {
		t.Errorf("the rank-3 input has %d sliders for axis 0", n)
	}

	// sliceCheck: the drawn cells are exactly the slice with `fixed` at axis fa, rows ra, cols ca.
	sliceCheck := func(name string, ra, ca, fa, fixed int) []cellJSON {
		t.Helper()
		got := cells(t, ctx, out)
		checkCells(t, name, got, want)
		wantIdx := map[int]bool{}
		for r := 0; r < outShape[ra]; r++ {
			for c := 0; c < outShape[ca]; c++ {
				co := make([]int, 3)
				co[ra], co[ca], co[fa] = r, c, fixed
				wantIdx[flat(outShape, co...)] = true
			}
		}
		ok := len(got) == len(wantIdx)
		for _, c := range got {
			ok = ok && wantIdx[c.I]
		}
		if !ok {
			t.Errorf("%s: drawn cells %d are not the slice axis %d = %d (%d cells)", name, len(got), fa, fixed, len(wantIdx))
		}
		return got
	}
	hoverCheck := func(name string, o []int) {
		t.Helper()
		i := flat(outShape, o...)
		hoverCell(t, ctx, fmt.Sprintf(`%s .cell[data-i="%d"]`, out, i))
		wantSrc, wantCo := source(o)
		if got := srcCells(t, ctx, "x"); fmt.Sprint(got) != fmt.Sprint([]int{wantSrc}) {
			t.Errorf("%s: hovering out%v highlights x cells %v, want [%d] = x%v", name, o, got, wantSrc, wantCo)
		}
		if float64(wantSrc) != want.At(i) {
			t.Errorf("%s: Go's pad gives out%v = %v, the index map says x%v (arange: %d)", name, o, want.At(i), wantCo, wantSrc)
		}
		// The input grid shows the source's slice, and the cell there shows its value.
		v := eval[string](t, ctx, `(() => { const c = document.querySelector('#visual .gridbox[data-grid="x"] .cell.src'); return c ? c.querySelector(".v").innerText : ""; })()`)
		if v != playground.Format(x, wantSrc) {
			t.Errorf("%s: highlighted x cell shows %q, want %q", name, v, playground.Format(x, wantSrc))
		}
		slider := eval[string](t, ctx, `document.querySelector('#visual .gridbox[data-grid="x"] input[type=range][data-axis="0"]').value`)
		if slider != strconv.Itoa(wantCo[0]) {
			t.Errorf("%s: x's axis-0 slider at %s, the source is at %d", name, slider, wantCo[0])
		}
		info := eval[string](t, ctx, `document.getElementById("hoverinfo").innerText`)
		if !strings.Contains(info, fmt.Sprintf("x[%d,%d,%d]", wantCo[0], wantCo[1], wantCo[2])) {
			t.Errorf("%s: hover info %q lacks x%v", name, info, wantCo)
		}
	}

	sliceCheck("slice 0", 1, 2, 0, 0)
	hoverCheck("slice 0", []int{0, 0, 0})
	// Move the slice: axis 0 = 3 (the bottom reflected plane).
	eval[bool](t, ctx, `(() => { const s = document.querySelector('#visual .gridbox.out input[type=range][data-axis="0"]'); s.value = 3; s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	sliceCheck("slice 3", 1, 2, 0, 3)
	hoverCheck("slice 3", []int{3, 5, 6})
	screenshot(t, ctx, "axis-picker")

	// Rows = axis 0, cols = axis 2: axis 1 gets the slider.
	eval[bool](t, ctx, `(() => { const s = document.querySelector('#visual .gridbox.out select[data-pick="rows"]'); s.value = "0"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
	if n := eval[int](t, ctx, `document.querySelectorAll('#visual .gridbox.out input[type=range][data-axis="1"]').length`); n != 1 {
		t.Fatalf("after rows = axis 0, %d sliders for axis 1", n)
	}
	sliceCheck("rows 0 cols 2, axis 1 = 0", 0, 2, 1, 0)
	eval[bool](t, ctx, `(() => { const s = document.querySelector('#visual .gridbox.out input[type=range][data-axis="1"]'); s.value = 4; s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	sliceCheck("rows 0 cols 2, axis 1 = 4", 0, 2, 1, 4)
	hoverCheck("rows 0 cols 2, axis 1 = 4", []int{2, 4, 6})
	hoverCheck("rows 0 cols 2, axis 1 = 4", []int{0, 4, 1})

	// A slider a script pushes past its axis draws the last plane (it
	// panicked: "slice bounds out of range"), as does a rows picker set to
	// an axis the tensor lacks; reveal without an index is an error.
	eval[bool](t, ctx, `(() => { const s = document.querySelector('#visual .gridbox.out input[type=range][data-axis="1"]'); s.max = 99999; s.value = 99999; s.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	sliceCheck("axis 1 pushed to 99999", 0, 2, 1, 5)
	eval[bool](t, ctx, `(() => { const s = document.querySelector('#visual .gridbox.out select[data-pick="rows"]'); s.add(new Option("9", "9")); s.value = "9"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
	sliceCheck("rows axis 9: the default axes, axis 0 still at 3", 1, 2, 0, 3)
	if got := eval[string](t, ctx, `(() => { try { const r = __fkcGo.reveal("x"); return r && r.__fkcError ? r.__fkcError : "no error"; } catch (e) { return String(e.message || e); } })()`); !strings.Contains(got, "reveal takes a grid key and a cell index") {
		t.Errorf("reveal without an index: %q", got)
	}
}

// --dtype bf16 through window.fkc.run: <u2 .npy inputs read as bf16, on
// cpu and webgpu, the same bits as Go's ops.
func TestBF16ScriptingAPI(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	needGPU(t, ctx)
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	x := tensorOf(t, tensor.BF16, []int{3, 5}, 3, -1, 4, 1, -5, 9, 2, -6, 0.5, 1.5)
	if raw := mustNpy(x); !bytes.Contains(raw, []byte("'<u2'")) {
		t.Fatalf("NpyBytes of a BF16 tensor does not write <u2: %q", raw[:64])
	}
	cases := []struct {
		op    string
		flags []string
	}{
		{"pad", []string{"--mode", "reflect", "--padding", "1:1,2:2"}},
		{"pad", []string{"--mode", "constant", "--padding", "0:1,1:0", "--value", "2.5"}},
		{"sum", []string{"--dim", "1"}},
		{"sum", nil},
	}
	for _, c := range cases {
		want, err := eng.RunArgs(engine.CPU, c.op, c.flags, map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatalf("native %s %v: %v", c.op, c.flags, err)
		}
		for _, be := range []string{"cpu", "webgpu"} {
			r := fkcRun(t, ctx, be, c.op, append([]string{"--dtype", "bf16"}, c.flags...), map[string]*tensor.Tensor{"x": x})
			if r.Err != "" {
				t.Errorf("%s %v on %s: %s", c.op, c.flags, be, r.Err)
				continue
			}
			raw := decodeRaw(t, r.NPY)
			if want.Out.DType == tensor.BF16 && !bytes.Contains(raw, []byte("'<u2'")) {
				t.Errorf("%s %v on %s: a bf16 output is not written as <u2", c.op, c.flags, be)
			}
			got, err := tensor.ReadNpyBytes(raw, true)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameTensor(got, want.Out); d != "" {
				t.Errorf("%s %v on %s (kernel %s): differs from Go's %s: %s", c.op, c.flags, be, r.Kernel, want.Kernel, d)
			}
			t.Logf("bf16 %s %v on %-6s: kernel %s (%s)", c.op, c.flags, be, r.Kernel, r.Provider)
		}
	}
	// Without --dtype bf16 a <u2 file is U16 data, as in the CLI.
	r := fkcRun(t, ctx, "cpu", "sum", []string{"--dim", "1"}, map[string]*tensor.Tensor{"x": x})
	if r.Err == "" {
		got := decodeNpy(t, r.NPY)
		if got.DType == tensor.BF16 {
			t.Errorf("sum of a <u2 input without --dtype bf16 came back as bf16")
		}
	} else if !strings.HasPrefix(r.Err, "Error:fkc: ") {
		t.Errorf("sum of U16 without --dtype bf16: %q", r.Err)
	}
}

func decodeRaw(t *testing.T, b64 string) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// masked_fill, embedding and index_add pages: fill cells, row sources, and
// which src rows accumulate into each output row.
func TestIndexingVisuals(t *testing.T) {
	ctx := tab(t, nil)
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}

	// masked_fill (the WGSL kernel on WebGPU; its default case).
	open(t, ctx, "#/k/"+escape("fuel-vulkan-kernels/masked_fill_b4"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	x := mustGen(t, ops.Gen{Shape: "4,5", DType: "F32", Kind: "arange"})
	mask := mustGen(t, ops.Gen{Shape: "4,5", DType: "BOOL", Kind: "random", Seed: 3, Lo: 0, Hi: 1})
	want := mustRun(t, eng, "masked_fill", []string{"--value", "-1"}, map[string]*tensor.Tensor{"x": x, "mask": mask})
	got := cells(t, ctx, "#visual .gridbox.out")
	checkCells(t, "masked_fill", got, want)
	var fillWant, fillGot, trueGot []int
	for i := range mask.NumElems() {
		if mask.At(i) != 0 {
			fillWant = append(fillWant, i)
		}
	}
	for _, c := range got {
		if strings.Contains(c.Cls, "r-fill") {
			fillGot = append(fillGot, c.I)
		}
	}
	for _, c := range cells(t, ctx, `#visual .gridbox[data-grid="mask"]`) {
		if strings.Contains(c.Cls, "true") {
			trueGot = append(trueGot, c.I)
		}
	}
	if len(fillWant) == 0 || len(fillWant) == mask.NumElems() {
		t.Fatalf("the default mask is all %v: no picture to check", mask.At(0))
	}
	if fmt.Sprint(fillGot) != fmt.Sprint(fillWant) || fmt.Sprint(trueGot) != fmt.Sprint(fillWant) {
		t.Errorf("fill cells %v, true mask cells %v; the mask is true at %v", fillGot, trueGot, fillWant)
	}
	// A true mask cell is readable: its "T" is not white on white.
	if c := eval[string](t, ctx, `(() => { const v = document.querySelector('#visual .gridbox[data-grid="mask"] .cell.true .v'); const s = getComputedStyle(v); return s.color + " on " + s.backgroundColor; })()`); strings.HasPrefix(c, "rgb(255, 255, 255) on rgba(255, 255, 255") {
		t.Errorf("a true mask cell's text is %s", c)
	}
	hoverCell(t, ctx, fmt.Sprintf(`#visual .gridbox.out .cell[data-i="%d"]`, fillWant[0]))
	if s := srcCells(t, ctx, "mask"); fmt.Sprint(s) != fmt.Sprint([]int{fillWant[0]}) {
		t.Errorf("hovering fill cell %d highlights mask cells %v", fillWant[0], s)
	}
	if s := srcCells(t, ctx, "x"); len(s) != 0 {
		t.Errorf("hovering fill cell %d highlights x cells %v", fillWant[0], s)
	}
	if info := eval[string](t, ctx, `document.getElementById("hoverinfo").innerText`); !strings.Contains(info, "constant fill") {
		t.Errorf("hover info on a fill cell: %q", info)
	}
	copyAt := 0
	for copyAt < mask.NumElems() && mask.At(copyAt) != 0 {
		copyAt++
	}
	hoverCell(t, ctx, fmt.Sprintf(`#visual .gridbox.out .cell[data-i="%d"]`, copyAt))
	if s := srcCells(t, ctx, "x"); fmt.Sprint(s) != fmt.Sprint([]int{copyAt}) {
		t.Errorf("hovering copied cell %d highlights x cells %v", copyAt, s)
	}
	screenshot(t, ctx, "masked-fill")

	// embedding: output row i is table row ids[i].
	open(t, ctx, "#/k/"+escape("fuel-reference-backend/embedding"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell .lab")`)
	table := mustGen(t, ops.Gen{Shape: "6,4", DType: "F32", Kind: "arange"})
	ids := mustGen(t, ops.Gen{Shape: "3", DType: "U32", Kind: "values", Values: "4 1 4"})
	want = mustRun(t, eng, "embedding", nil, map[string]*tensor.Tensor{"table": table, "ids": ids})
	got = cells(t, ctx, "#visual .gridbox.out")
	checkCells(t, "embedding", got, want)
	for _, c := range got {
		row, col := int(ids.At(c.I/4)), c.I%4
		if w := fmt.Sprintf("←[%d,%d]", row, col); c.Lab != w {
			t.Errorf("embedding out cell %d labelled %q, want %q", c.I, c.Lab, w)
		}
	}
	hoverCell(t, ctx, `#visual .gridbox.out .cell[data-i="9"]`) // out[2,1] ← table[4,1]
	if s, i := srcCells(t, ctx, "table"), srcCells(t, ctx, "ids"); fmt.Sprint(s) != "[17]" || fmt.Sprint(i) != "[2]" {
		t.Errorf("hovering out[2,1] highlights table %v, ids %v; want table [17] (= [4,1]), ids [2]", s, i)
	}
	screenshot(t, ctx, "embedding")

	// index_add along dim 0: out row r = base row r + the src rows k with indices[k] = r.
	open(t, ctx, "#/k/"+escape("fuel-reference-backend/index_add"))
	waitFor(t, ctx, `document.querySelector("#trace-notes")`)
	base := mustGen(t, ops.Gen{Shape: "4,5", DType: "F32", Kind: "values", Values: "0"})
	idx := mustGen(t, ops.Gen{Shape: "3", DType: "U32", Kind: "values", Values: "0 2 0"})
	src := mustGen(t, ops.Gen{Shape: "3,5", DType: "F32", Kind: "arange"})
	want = mustRun(t, eng, "index_add", []string{"--dim", "0"}, map[string]*tensor.Tensor{"base": base, "indices": idx, "src": src})
	got = cells(t, ctx, "#visual .gridbox.out")
	checkCells(t, "index_add", got, want)
	into := make([][]string, 4)
	for k := range idx.NumElems() {
		r := int(idx.At(k))
		into[r] = append(into[r], strconv.Itoa(k))
	}
	for _, c := range got {
		w := ""
		if ks := into[c.I/5]; len(ks) > 0 {
			w = "+src " + strings.Join(ks, ",")
		}
		if c.Lab != w {
			t.Errorf("index_add out cell %d labelled %q, want %q", c.I, c.Lab, w)
		}
	}
	notes := eval[[]string](t, ctx, `[...document.querySelectorAll("#trace-notes li")].map(l => l.innerText)`)
	if len(notes) != 4 || notes[0] != "out[0,:] = base[0,:] + src[0,:] + src[2,:]" || notes[2] != "out[2,:] = base[2,:] + src[1,:]" || !strings.Contains(notes[1], "copy of base") {
		t.Errorf("index_add notes %q", notes)
	}
	hoverCell(t, ctx, `#visual .gridbox.out .cell[data-i="3"]`) // out[0,3] = base[0,3] + src[0,3] + src[2,3]
	if s, i, b := srcCells(t, ctx, "src"), srcCells(t, ctx, "indices"), srcCells(t, ctx, "base"); fmt.Sprint(s) != "[3 13]" || fmt.Sprint(i) != "[0 2]" || fmt.Sprint(b) != "[3]" {
		t.Errorf("hovering out[0,3] highlights src %v, indices %v, base %v; want src [3 13], indices [0 2], base [3]", s, i, b)
	}
	screenshot(t, ctx, "index-add")
}

// A GPU kernel the adapter cannot run: an inline message on its page (the
// page keeps working, the CPU runs it), and fkc.run rejects with "fkc: …".
func TestGPUErrorIsAMessage(t *testing.T) {
	ctx := tab(t, nil)
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	open(t, ctx, "#/k/"+escape("fuel-vulkan-kernels/pad_backward_reflect_f64"))
	needGPU(t, ctx)
	// The page runs its own kernel on WebGPU by itself.
	waitFor(t, ctx, `document.querySelector('.violation[data-backend="webgpu"]')`)
	text := eval[string](t, ctx, `document.querySelector('.violation[data-backend="webgpu"]').innerText`)
	if !strings.Contains(text, "not available on this adapter") || strings.Contains(text, "Contract violation") {
		t.Errorf("the page says %q; want an adapter message, not a contract violation", text)
	}
	screenshot(t, ctx, "gpu-unavailable")
	// The page is alive: the offered CPU run works and gives Go's answer.
	eval[bool](t, ctx, `(document.querySelector('.violation[data-backend="webgpu"] button').click(), true)`)
	waitFor(t, ctx, `document.querySelector('.served[data-backend="cpu"]') && document.querySelector("#visual .gridbox.out .cell")`)
	g := mustGen(t, ops.Gen{Shape: "8,9", DType: "F64", Kind: "values", Values: "1"})
	want := mustRun(t, eng, "pad_backward", []string{"--mode", "reflect", "--padding", "2:2,2:2"}, map[string]*tensor.Tensor{"grad_out": g})
	checkCells(t, "pad_backward f64 on cpu", cells(t, ctx, "#visual .gridbox.out"), want)

	r := fkcRun(t, ctx, "webgpu", "pad_backward", []string{"--mode", "reflect", "--padding", "2:2,2:2"}, map[string]*tensor.Tensor{"grad_out": g})
	if !strings.HasPrefix(r.Err, "Error:fkc: ") || !strings.Contains(r.Err, "not available on this adapter") {
		t.Errorf("fkc.run pad_backward f64 on webgpu: %q, want an Error starting \"fkc:\" saying not available on this adapter", r.Err)
	}
	// And the API still answers afterwards.
	if r := fkcRun(t, ctx, "webgpu", "pad", []string{"--mode", "reflect", "--padding", "1:1,1:1"}, map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{2, 3})}); r.Err != "" {
		t.Errorf("after the GPU error, pad on webgpu: %s", r.Err)
	}
}

// The catalog says which kernels run here: every linked CPU kernel, and
// the GPU kernels this WebGPU adapter can run (the f64 atomics ones not).
func TestCatalogRunsHere(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	needGPU(t, ctx)
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	rows := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("tr.krow")].map(r => [r.dataset.id, r.querySelector("td.link").innerText]))`)
	cpuN, gpuN := 0, 0
	for _, r := range eng.Reg.Kernels() {
		id := r.Doc.Provider.Name + "/" + r.Kernel.Name
		got := rows[id]
		switch {
		case r.Kernel.Backend == "Cpu":
			want := "docs only"
			if len(eng.Exercised(r.Kernel.EntryPoint)) > 0 {
				want, cpuN = "▶ CPU", cpuN+1
			}
			if got != want {
				t.Errorf("%s (CPU): runs-here column %q, want %q", id, got, want)
			}
		case !r.Kernel.Registrable: // describe-only (the kernel lab's interface): nothing runs it
			if got != "docs only" {
				t.Errorf("%s (describe-only): runs-here column %q, want docs only", id, got)
			}
		case strings.HasSuffix(r.Kernel.Name, "_f64") && strings.HasPrefix(r.Kernel.Name, "pad_backward_"):
			if got != "WebGPU: not on this adapter" && got != "▶ WebGPU" {
				t.Errorf("%s: runs-here column %q", id, got)
			}
			if r.Kernel.Name == "pad_backward_reflect_f64" && got != "WebGPU: not on this adapter" {
				t.Errorf("%s: runs-here column %q, want the adapter warning", id, got)
			}
			if got == "▶ WebGPU" {
				gpuN++
			}
		default:
			if got != "▶ WebGPU" {
				t.Errorf("%s (GPU): runs-here column %q, want ▶ WebGPU", id, got)
			}
			gpuN++
		}
	}
	n := eval[int](t, ctx, `(() => { const f = document.querySelector("form.filters"); f.elements.runs.checked = true; f.dispatchEvent(new Event("input")); return document.querySelectorAll("tr.krow").length; })()`)
	if n != cpuN+gpuN {
		t.Errorf("'runnable here' leaves %d rows, want %d CPU + %d WebGPU", n, cpuN, gpuN)
	}
	if legend := eval[string](t, ctx, `document.querySelector(".runs-legend").innerText`); !strings.Contains(legend, "(available)") {
		t.Errorf("runs-here legend %q", legend)
	}
}

// The Learn padding page: the three modes side by side on the real kernels;
// moving a reflect pad past n−1 shows the precondition, and moving it back
// draws the mirror again.
func TestLearnPadding(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/learn/padding?n=5&b=3&a=2&rows=4&cols=5&rb=1&ra=2&cb=2&ca=2")
	waitFor(t, ctx, `document.querySelector('.mode[data-mode="reflect"] .cell')`)
	strip := func(mode string) string {
		return eval[string](t, ctx, `(() => { const m = document.querySelectorAll('.strips:not(.folds) .mode[data-mode="`+mode+`"] .cell .v'); return [...m].map(c => c.textContent).join(" "); })()`)
	}
	for mode, want := range map[string]string{
		"constant":  "0 0 0 0 1 2 3 4 0 0",
		"reflect":   "3 2 1 0 1 2 3 4 3 2",
		"replicate": "0 0 0 0 1 2 3 4 4 4",
		"symmetric": "2 1 0 0 1 2 3 4 4 3",
		"circular":  "2 3 4 0 1 2 3 4 0 1",
	} {
		if got := strip(mode); got != want {
			t.Errorf("%s strip = %q, want %q", mode, got, want)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.strips:not(.folds) .mode[data-mode="reflect"] .deco.mirror').length`); n != 2 {
		t.Errorf("reflect strip draws %d mirror lines, want 2", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.strips:not(.folds) .mode[data-mode="circular"] .deco.wrap').length`); n != 2 {
		t.Errorf("circular strip draws %d wrap seams, want 2", n)
	}
	// symmetric's mirror lines sit on the box's border (the edge repeats)
	if n := eval[int](t, ctx, `document.querySelectorAll('.strips:not(.folds) .mode[data-mode="symmetric"] .deco.mirror.start, .strips:not(.folds) .mode[data-mode="symmetric"] .deco.mirror.end').length`); n != 2 {
		t.Errorf("symmetric strip draws %d mirror lines on the border, want 2", n)
	}
	// every mode is a kernel of these contracts, named as the libraries name it
	if n := eval[int](t, ctx, `document.querySelectorAll('.modes .badge, .mode.outside').length`); n != 0 {
		t.Errorf("%d modes drawn as outside these contracts", n)
	}
	names := eval[string](t, ctx, `document.querySelector('table.names').innerText`)
	for _, want := range []string{"circular\twrap\tcircular\twrap", "symmetric\tsymmetric\t—\t—\tSYMMETRIC", "replicate\tedge\treplicate\tedge"} {
		if !strings.Contains(names, want) {
			t.Errorf("the names table lacks %q: %q", want, names)
		}
	}
	// Past n−1: the precondition, in the contract's words, and the way out.
	move := func(name, v string) {
		eval[bool](t, ctx, `(() => { const el = document.querySelector('form.padctl input[name="`+name+`"]'); el.value = "`+v+`"; el.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	}
	move("b", "5")
	waitFor(t, ctx, `document.querySelector('.strips:not(.folds) .mode[data-mode="reflect"] .violation')`)
	text := eval[string](t, ctx, `document.querySelector('.strips:not(.folds) .mode[data-mode="reflect"] .violation').innerText`)
	for _, want := range []string{"reflect padding (5, 2) on axis 0 exceeds in_shape[0]-1 = 4", "before <= in_shape[i]-1", "widest reflect pad on that axis is 4"} {
		if !strings.Contains(text, want) {
			t.Errorf("the precondition message %q lacks %q", text, want)
		}
	}
	if got := strip("replicate"); got != "0 0 0 0 0 0 1 2 3 4 4 4" {
		t.Errorf("replicate goes on past n−1: %q", got)
	}
	if !strings.Contains(eval[string](t, ctx, `location.hash`), "b=5") {
		t.Error("the URL does not keep the widths")
	}
	screenshot(t, ctx, "learn-padding")
	move("b", "4")
	waitFor(t, ctx, `!document.querySelector('.strips:not(.folds) .mode[data-mode="reflect"] .violation')`)
	// The fold: replicate piles the padding onto the edge (2-D, corner cell).
	corner := eval[string](t, ctx, `document.querySelector('.mode[data-mode="replicate"] .gridbox[data-grid="fold-replicate"] .cell .v').textContent`)
	if corner != "6" { // (1 row before + 1) × (2 cols before + 1)
		t.Errorf("replicate fold at [0,0] = %s, want 6", corner)
	}
}
