package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// ---------- inputs ----------

func tensorOf(t *testing.T, dt tensor.DType, shape []int, vals ...float64) *tensor.Tensor {
	t.Helper()
	x := tensor.New(dt, shape)
	for i := range x.NumElems() {
		if len(vals) == 0 {
			x.Set(i, float64(i))
		} else {
			x.Set(i, vals[i%len(vals)])
		}
	}
	return x
}

type runCase struct {
	name   string
	op     string
	flags  []string
	inputs func(t *testing.T) map[string]*tensor.Tensor
}

// Integer-valued data throughout: every sum is exact, so CPU, WebGPU and
// the native CPU kernels must agree bit for bit, whatever the order.
var runCases = []runCase{
	{"pad/constant", "pad", []string{"--mode", "constant", "--padding", "1:2,2:1", "--value", "7"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{3, 4})}
	}},
	// a fill just past an F16 tie, rounded once from its text (2050, not 2048)
	{"pad/constant-F16-fill", "pad", []string{"--mode", "constant", "--padding", "1:1,0:1", "--value", "2049.0000001"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F16, []int{2, 3})}
	}},
	{"pad/reflect", "pad", []string{"--mode", "reflect", "--padding", "2:2,1:3"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{3, 4})}
	}},
	{"pad/replicate", "pad", []string{"--mode", "replicate", "--padding", "3:1,0:5"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{3, 4})}
	}},
	{"pad/reflect-U32", "pad", []string{"--mode", "reflect", "--padding", "1:1,2:0,0:2"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.U32, []int{2, 3, 4})}
	}},
	{"pad_backward/reflect", "pad_backward", []string{"--mode", "reflect", "--padding", "2:2,1:3"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"grad_out": tensorOf(t, tensor.F32, []int{7, 8})}
	}},
	{"pad_backward/replicate", "pad_backward", []string{"--mode", "replicate", "--padding", "2:1,3:3"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"grad_out": tensorOf(t, tensor.F32, []int{6, 10})}
	}},
	{"pad_backward/constant", "pad_backward", []string{"--mode", "constant", "--padding", "1:1,1:1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"grad_out": tensorOf(t, tensor.F32, []int{5, 6})}
	}},
	{"masked_fill", "masked_fill", []string{"--value", "-1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{3, 4}), "mask": tensorOf(t, tensor.BOOL, []int{3, 4}, 1, 0, 0, 1, 1)}
	}},
	{"sum/dim", "sum", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{3, 5}, 3, -1, 4, 1, -5, 9, 2, -6)}
	}},
	{"sum/all", "sum", nil, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{4, 6}, 3, -1, 4, 1, -5, 9, 2)}
	}},
	{"argmax", "argmax", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{3, 5}, 3, 7, 7, 1, -5, 9, 2, -6, 9)}
	}},
	// Shapes that take other kernels than the small ones: on SwiftShader
	// (threadsOverTrees) a thread per row for 1,024 rows and more, and a
	// gather by element instead of staged rows.
	{"sum/dim-many-rows", "sum", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{1100, 37})}
	}},
	{"max/dim-many-rows-F16", "max", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F16, []int{1031, 40}, 3, -1, 4, 1, -5, 9, 2, -6, 0, 11, 7)}
	}},
	{"argmax/many-rows", "argmax", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{1100, 37}, 3, 7, 7, 1, -5, 9, 2, -6, 9)}
	}},
	// NaN (skipped), -0 beside +0 (the first one's sign is kept), ±inf and
	// ties, with 7 columns against a 9-value cycle so every row differs.
	{"max/dim-many-rows-specials", "max", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{1100, 7}, math.NaN(), math.Copysign(0, -1), 0, math.Inf(-1), -3, math.NaN(), 0, math.Copysign(0, -1), math.Inf(-1))}
	}},
	{"argmin/many-rows-specials", "argmin", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F16, []int{1100, 7}, 2, math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), 2, math.Inf(1), 0, -1)}
	}},
	{"gather/rows", "gather", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"data": tensorOf(t, tensor.F32, []int{128, 300}), "indices": tensorOf(t, tensor.U32, []int{128, 300}, 299, 0, 17, 150, 3)}
	}},
	{"scatter_add/rows", "scatter_add", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{
			"base":    tensorOf(t, tensor.F32, []int{128, 300}, 1, -2),
			"indices": tensorOf(t, tensor.U32, []int{128, 300}, 299, 0, 17, 17, 150, 3, 0),
			"src":     tensorOf(t, tensor.F32, []int{128, 300}),
		}
	}},
	// 1100 rows: on SwiftShader one thread per row (scatter_add_seq).
	{"scatter_add/many-rows", "scatter_add", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{
			"base":    tensorOf(t, tensor.F16, []int{1100, 6}, 1, -2),
			"indices": tensorOf(t, tensor.U32, []int{1100, 9}, 5, 0, 3, 3, 1, 3, 0),
			"src":     tensorOf(t, tensor.F16, []int{1100, 9}),
		}
	}},
	// Whole 16-byte units per slice (index_rows.wgsl): 3 units a row (the
	// division path, whose dead shift by 32 Tint refused to compile while
	// naga took it), 4 (the shift path), and an embedding of 3-unit rows.
	{"index_select/rows-of-3-units", "index_select", []string{"--dim", "0"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"data": tensorOf(t, tensor.F32, []int{4, 12}), "indices": tensorOf(t, tensor.U32, []int{5}, 3, 0, 2, 2, 1)}
	}},
	{"index_select/rows-of-4-units", "index_select", []string{"--dim", "0"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"data": tensorOf(t, tensor.F32, []int{4, 16}), "indices": tensorOf(t, tensor.U32, []int{5}, 3, 0, 2, 2, 1)}
	}},
	{"embedding/rows-of-3-units", "embedding", nil, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"table": tensorOf(t, tensor.F64, []int{6, 6}), "ids": tensorOf(t, tensor.U32, []int{4}, 5, 0, 5, 2)}
	}},
	// reduce_max_to_backward's cell maxima in one pass (on SwiftShader a
	// thread per cell: a workgroup per cell took minutes for 98,688
	// cells): many cells of one element, many of three (ties among them).
	{"reduce_max_to_backward/one-element-cells", "reduce_max_to_backward", []string{"--shape", "64,6,9"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{64, 6, 9}, 3, -1, 4, 1), "upstream": tensorOf(t, tensor.F32, []int{64, 6, 9}, 1, 2, 3)}
	}},
	{"reduce_max_to_backward/many-cells-F16", "reduce_max_to_backward", []string{"--shape", "1100,1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F16, []int{1100, 3}, 3, 3, -1, 4, 4, 1, 0, 2), "upstream": tensorOf(t, tensor.F16, []int{1100, 1}, 1, 2, 3, 6)}
	}},
	{"gather", "gather", []string{"--dim", "1"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{"data": tensorOf(t, tensor.F32, []int{3, 4}), "indices": tensorOf(t, tensor.U32, []int{3, 2}, 3, 0, 1, 1, 2, 0)}
	}},
	{"index_add", "index_add", []string{"--dim", "0"}, func(t *testing.T) map[string]*tensor.Tensor {
		return map[string]*tensor.Tensor{
			"base":    tensorOf(t, tensor.F32, []int{4, 3}, 1),
			"indices": tensorOf(t, tensor.U32, []int{3}, 0, 2, 0),
			"src":     tensorOf(t, tensor.F32, []int{3, 3}),
		}
	}},
}

func b64npy(x *tensor.Tensor) string { return base64.StdEncoding.EncodeToString(mustNpy(x)) }

type runReply struct {
	Kernel   string   `json:"kernel"`
	Provider string   `json:"provider"`
	Resolved []string `json:"resolved"`
	NPY      string   `json:"npy"`
	Err      string   `json:"err"`
}

// fkcRun calls window.fkc.run and returns its reply, or the rejection's message.
func fkcRun(t *testing.T, ctx context.Context, backend, op string, flags []string, in map[string]*tensor.Tensor) runReply {
	t.Helper()
	inputs := map[string]string{}
	for k, v := range in {
		inputs[k] = b64npy(v)
	}
	if flags == nil {
		flags = []string{}
	}
	req, _ := json.Marshal(map[string]any{"op": op, "backend": backend, "flags": flags, "inputs": inputs})
	expr := fmt.Sprintf(`fkc.run(%s).then(r => JSON.stringify(r), e => JSON.stringify({err: (e instanceof Error ? "Error:" : "not an Error:") + e.message}))`, req)
	s := eval[string](t, ctx, expr)
	var r runReply
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("fkc.run reply %q: %v", s, err)
	}
	return r
}

func decodeNpy(t *testing.T, b64 string) *tensor.Tensor {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	x, err := tensor.ReadNpyBytes(raw, false)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func sameTensor(a, b *tensor.Tensor) string {
	if a.DType != b.DType || fmt.Sprint(a.Shape) != fmt.Sprint(b.Shape) {
		return fmt.Sprintf("%s vs %s", a, b)
	}
	if !bytes.Equal(a.Data, b.Data) {
		for i := range a.NumElems() {
			if a.At(i) != b.At(i) {
				return fmt.Sprintf("element %d: %v vs %v", i, a.At(i), b.At(i))
			}
		}
		return "bit patterns differ"
	}
	return ""
}

// ---------- tests ----------

// The catalog lists every kernel of every contract, in fkc.kernels() and on the page.
func TestCatalogListsEveryKernel(t *testing.T) {
	ctx := tab(t, nil)
	start := time.Now()
	open(t, ctx, "")
	waitFor(t, ctx, `document.querySelectorAll("tr.krow").length > 0`)
	wall := time.Since(start)

	docs, _ := contracts.LoadAll()
	reg := registry.Build(docs)
	var want []string
	for _, r := range reg.Kernels() {
		want = append(want, r.Doc.Provider.Name+"/"+r.Kernel.Name)
	}
	sort.Strings(want)

	var api []struct {
		Name, Provider, Backend string
		OpKind                  string `json:"op_kind"`
		Registrable             bool
		DTypes                  []string
	}
	if err := json.Unmarshal([]byte(eval[string](t, ctx, `JSON.stringify(fkc.kernels())`)), &api); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range api {
		got = append(got, k.Provider+"/"+k.Name)
		if k.Backend == "" || k.OpKind == "" {
			t.Errorf("fkc.kernels(): %s/%s lacks backend or op_kind", k.Provider, k.Name)
		}
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fkc.kernels() lists %d kernels, the contracts have %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll("tr.krow")].map(r => r.dataset.id)`)
	sort.Strings(rows)
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("the catalog page shows %d kernel rows, the contracts have %d", len(rows), len(want))
	}
	providers := eval[int](t, ctx, `document.querySelectorAll("section.provider").length`)
	if providers != len(docs) {
		t.Errorf("%d provider sections, %d documents", providers, len(docs))
	}
	// The filters narrow the list.
	n := eval[int](t, ctx, `(() => { const f = document.querySelector("form.filters"); f.elements.backend.value = "Vulkan"; f.elements.dtype.value = "I32"; f.dispatchEvent(new Event("input")); return document.querySelectorAll("tr.krow").length; })()`)
	if n == 0 || n >= len(want) {
		t.Errorf("filtering backend=Vulkan dtype=I32 leaves %d of %d rows", n, len(want))
	}
	eval[bool](t, ctx, `(() => { const f = document.querySelector("form.filters"); f.elements.backend.value = ""; f.elements.dtype.value = ""; f.dispatchEvent(new Event("input")); return true; })()`)

	timing := eval[map[string]float64](t, ctx, `fkc.timing`)
	t.Logf("timing breakdown (ms): %v", timing)
	t.Logf("time to interactive catalog: %.0f ms after navigation start (wasm instantiated at %.0f ms; fkc.ready incl. WebGPU at %.0f ms); wall clock from Navigate: %v",
		timing["catalogMs"], timing["wasmLoadedMs"], timing["readyMs"], wall.Round(time.Millisecond))
	screenshot(t, ctx, "catalog")
}

// fkc.run on cpu and on webgpu gives what the CPU kernels give natively.
func TestRunMatchesNativeCPU(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	gpuOK := eval[bool](t, ctx, `fkc.gpu().available`)
	if !gpuOK {
		t.Errorf("WebGPU is not available in the test browser: %s", eval[string](t, ctx, `fkc.gpu().reason`))
	}
	for _, c := range runCases {
		t.Run(c.name, func(t *testing.T) {
			in := c.inputs(t)
			want, err := eng.RunArgs(engine.CPU, c.op, c.flags, in)
			if err != nil {
				t.Fatalf("native: %v", err)
			}
			for _, backend := range []string{"cpu", "webgpu"} {
				if backend == "webgpu" && !gpuOK {
					continue
				}
				r := fkcRun(t, ctx, backend, c.op, c.flags, in)
				if r.Err != "" {
					t.Errorf("%s: %s", backend, r.Err)
					continue
				}
				got := decodeNpy(t, r.NPY)
				if d := sameTensor(got, want.Out); d != "" {
					t.Errorf("%s (kernel %s, %s): differs from native %s: %s", backend, r.Kernel, r.Provider, want.Kernel, d)
				}
				if backend == "cpu" && (r.Kernel != want.Kernel || r.Provider != want.Provider) {
					t.Errorf("cpu served by %s (%s), native by %s (%s)", r.Kernel, r.Provider, want.Kernel, want.Provider)
				}
				if backend == "webgpu" && r.Provider != "fuel-vulkan-kernels" && r.Provider != "fkc-wgsl-kernels" {
					t.Errorf("webgpu served by %s (%s), not by a GPU contract", r.Kernel, r.Provider)
				}
				t.Logf("%-6s kernel %s (%s)", backend, r.Kernel, r.Provider)
			}
		})
	}
}

// fkc.run takes what NumPy writes and PyTorch users type: I64 indices and
// a negative dim give, on cpu and on webgpu, the native U32 call's output,
// and the reply says what was resolved; a negative index is refused with
// the CLI's words.
func TestRunNumPyConventions(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	data := tensorOf(t, tensor.F32, []int{3, 4})
	want, err := eng.Run(engine.CPU, ops.Gather(data, tensorOf(t, tensor.U32, []int{3, 2}, 3, 0, 1, 1, 2, 0), 1))
	if err != nil {
		t.Fatal(err)
	}
	backends := []string{"cpu"}
	if eval[bool](t, ctx, `fkc.gpu().available`) {
		backends = append(backends, "webgpu")
	}
	flags := []string{"--dim", "-1"}
	for _, b := range backends {
		r := fkcRun(t, ctx, b, "gather", flags, map[string]*tensor.Tensor{"data": data, "indices": tensorOf(t, tensor.I64, []int{3, 2}, 3, 0, 1, 1, 2, 0)})
		if r.Err != "" {
			t.Errorf("%s: %s", b, r.Err)
			continue
		}
		if d := sameTensor(decodeNpy(t, r.NPY), want.Out); d != "" {
			t.Errorf("%s: differs from the native U32 call: %s", b, d)
		}
		if got := strings.Join(r.Resolved, "; "); got != "dim -1 → 1; indices I64 → U32" {
			t.Errorf("%s: resolved %q", b, got)
		}
	}
	neg := map[string]*tensor.Tensor{"data": data, "indices": tensorOf(t, tensor.I64, []int{3, 2}, 3, 0, 1, -1, 2, 0)}
	_, nerr := eng.RunArgs(engine.CPU, "gather", flags, neg)
	if nerr == nil {
		t.Fatal("native gather took index -1")
	}
	if r := fkcRun(t, ctx, "cpu", "gather", flags, neg); r.Err != "Error:fkc: "+nerr.Error() {
		t.Errorf("fkc.run rejected with %q, want an Error %q", r.Err, "fkc: "+nerr.Error())
	}
}

// A too-wide reflect pad is refused with the CLI's words, in the API and in the UI.
func TestReflectPreconditionError(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	x := tensorOf(t, tensor.F32, []int{3, 4})
	flags := []string{"--mode", "reflect", "--padding", "3:0,1:1"}
	_, nerr := eng.RunArgs(engine.CPU, "pad", flags, map[string]*tensor.Tensor{"x": x})
	if nerr == nil {
		t.Fatal("native pad accepted reflect padding 3 on an axis of 3")
	}
	want := "fkc: " + nerr.Error()
	r := fkcRun(t, ctx, "cpu", "pad", flags, map[string]*tensor.Tensor{"x": x})
	if r.Err != "Error:"+want {
		t.Errorf("fkc.run rejected with %q, want an Error %q", r.Err, want)
	}

	open(t, ctx, "#/k/"+escape("fuel-vulkan-kernels/pad_reflect_b4")+"?flags=--mode%20reflect%20--padding%203:0,1:1&x=3,4|F32|arange&run=cpu")
	waitFor(t, ctx, `document.querySelector(".violation")`)
	text := eval[string](t, ctx, `document.querySelector(".violation").innerText`)
	if !strings.Contains(text, "Contract violation") || !strings.Contains(text, strings.TrimPrefix(want, "fkc: ")) {
		t.Errorf("the page shows %q, want the violation %q", text, want)
	}
	screenshot(t, ctx, "pad-reflect-violation")
}

// A share URL restores kernel, params and inputs, and reruns.
func TestShareURLRoundTrip(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out")`)
	// Change every kind of field, then run.
	eval[bool](t, ctx, `(() => {
		const f = document.querySelector("form.tryform"), el = f.elements;
		el["x.shape"].value = "3,3";
		el["x.kind"].value = "random"; el["x.seed"].value = "42"; el["x.lo"].value = "-5"; el["x.hi"].value = "5";
		el["mode"].value = "replicate"; el["padding"].value = "1:2,0:3"; el["value"].value = "";
		f.dispatchEvent(new Event("input"));
		document.getElementById("run-cpu").click();
		return true; })()`)
	// The run is over when its buttons are no longer busy (it starts after
	// a frame, so the page's earlier run may still be on screen before).
	waitFor(t, ctx, `location.hash.includes("run=cpu") && document.querySelector("#visual .gridbox.out") && !document.querySelector("form.tryform button.busy")`)
	before := eval[string](t, ctx, `[...document.querySelectorAll("#visual .gridbox.out .cell")].map(c => c.innerText).join(" ")`)
	// Copy share link where the page may not write the clipboard (no
	// focus, no permission; stood in for here): the note says so. It said
	// "link copied", and the rejected promise was an uncaught error.
	eval[bool](t, ctx, `(navigator.clipboard.writeText = () => Promise.reject(new DOMException("Write permission denied.", "NotAllowedError")),
		document.querySelector('[data-action="share"]').click(), true)`)
	waitFor(t, ctx, `document.getElementById("share-note").textContent == "link in the address bar (copying it was refused: Write permission denied.)"`)
	url := eval[string](t, ctx, `location.href`)
	if !strings.Contains(url, "--padding%201:2,0:3") || !strings.Contains(url, "x=3,3|F32|random|seed=42|lo=-5|hi=5") {
		t.Fatalf("share URL lacks the state: %s", url)
	}

	ctx2 := tab(t, nil)
	if err := chromedp.Do(ctx2, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx2, `fkc.ready.then(() => true)`)
	waitFor(t, ctx2, `document.querySelector("#visual .gridbox.out")`)
	got := eval[map[string]string](t, ctx2, `(() => { const el = document.querySelector("form.tryform").elements;
		return {shape: el["x.shape"].value, kind: el["x.kind"].value, seed: el["x.seed"].value, lo: el["x.lo"].value, hi: el["x.hi"].value, mode: el["mode"].value, padding: el["padding"].value}; })()`)
	want := map[string]string{"shape": "3,3", "kind": "random", "seed": "42", "lo": "-5", "hi": "5", "mode": "replicate", "padding": "1:2,0:3"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("restored %v, want %v", got, want)
	}
	after := eval[string](t, ctx2, `[...document.querySelectorAll("#visual .gridbox.out .cell")].map(c => c.innerText).join(" ")`)
	if after != before || after == "" {
		t.Errorf("the shared page computed a different output:\n%s\nvs\n%s", after, before)
	}
}

// The teaching pictures: pad reflect (mirror lines, hover → source),
// gather (source labels), pad backward (heat map), argmax (winners).
func TestVisualsAndScreenshots(t *testing.T) {
	ctx := tab(t, nil)
	hover := func(sel string) {
		eval[bool](t, ctx, fmt.Sprintf(`(() => { const c = document.querySelector(%q); c.dispatchEvent(new MouseEvent("mouseover", {bubbles: true})); return true; })()`, sel))
	}

	open(t, ctx, "#/k/"+escape("fuel-vulkan-kernels/pad_reflect_b4"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	waitFor(t, ctx, `document.querySelector("#visual .deco.mirror")`)
	backend := eval[string](t, ctx, `document.querySelector(".served").dataset.backend`)
	// out[0,0] of reflect 2:2 on a 4x5 arange is x[2,2] = 12.
	hover(`#visual .gridbox.out .cell[data-i="0"]`)
	src := eval[[]string](t, ctx, `[...document.querySelectorAll("#visual .gridbox:not(.out) .cell.src")].map(c => c.dataset.i)`)
	if fmt.Sprint(src) != "[12]" {
		t.Errorf("hovering out[0,0] highlights input cells %v, want [12]", src)
	}
	info := eval[string](t, ctx, `document.getElementById("hoverinfo").innerText`)
	if !strings.Contains(info, "x[2,2]") || !strings.Contains(info, "reflected") {
		t.Errorf("hover info %q", info)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#visual .cell.r-mirror").length`); n != 8*9-4*5 {
		t.Errorf("%d mirrored cells, want %d", n, 8*9-4*5)
	}
	t.Logf("pad_reflect_b4 page ran on %s", backend)
	screenshot(t, ctx, "pad-reflect")

	open(t, ctx, "#/k/"+escape("fuel-vulkan-kernels/pad_replicate_b4"))
	waitFor(t, ctx, `document.querySelector("#visual .deco.clamp")`)
	if n := eval[int](t, ctx, `document.querySelectorAll("#visual .cell.r-clamp").length`); n != 8*9-4*5 {
		t.Errorf("%d clamped cells, want %d", n, 8*9-4*5)
	}

	open(t, ctx, "#/k/"+escape("fuel-reference-backend/gather"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell .lab")`)
	labels := eval[[]string](t, ctx, `[...document.querySelectorAll("#visual .gridbox.out .cell .lab")].map(c => c.innerText)`)
	if len(labels) != 12 || !strings.HasPrefix(labels[0], "←[0,") {
		t.Errorf("gather source labels %v", labels)
	}
	hover(`#visual .gridbox.out .cell[data-i="4"]`)
	screenshot(t, ctx, "gather")

	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad_backward_f32"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell .lab")`)
	heat := eval[[]string](t, ctx, `[...document.querySelectorAll("#visual .gridbox.out .cell")].map(c => c.querySelector(".v").innerText)`)
	if len(heat) != 20 || heat[0] != "1" { // constant backward of ones: each grad_in cell gets 1
		t.Errorf("pad_backward (constant) of ones gives %v", heat)
	}
	// Reflect backward of ones: grad_in shows the fold counts, the heat labels agree.
	eval[bool](t, ctx, `(() => { const el = document.querySelector("form.tryform").elements; el["mode"].value = "reflect"; document.querySelector("form.tryform").dispatchEvent(new Event("input")); document.getElementById("run-cpu").click(); return true; })()`)
	// reflect 2:2 on 4x5: the fold counts per axis are [1,3,3,1] and [1,2,3,2,1], so 9 at most.
	waitFor(t, ctx, `[...document.querySelectorAll("#visual .gridbox.out .cell .lab")].some(l => l.innerText === "×9")`)
	screenshot(t, ctx, "pad-backward-heat")

	open(t, ctx, "#/k/"+escape("fuel-reference-backend/argmax_dim"))
	waitFor(t, ctx, `document.querySelectorAll("#visual .cell.win").length === 3`)
	screenshot(t, ctx, "argmax")
}

// Without WebGPU the banner shows and the CPU path works.
func TestNoWebGPU(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	alloc, cancel := chromedp.NewExecAllocator(t.Context(), chromeFlags(t.TempDir(), false)...)
	defer cancel()
	bctx, cancelB := chromedp.NewContext(alloc)
	defer cancelB()
	ctx := tab(t, bctx)
	open(t, ctx, "")
	waitFor(t, ctx, `document.getElementById("no-webgpu")`)
	text := eval[string](t, ctx, `document.getElementById("no-webgpu").innerText`)
	if !strings.Contains(text, "WebGPU is not available") || !strings.Contains(text, "CPU") {
		t.Errorf("banner %q", text)
	}
	x := tensorOf(t, tensor.F32, []int{2, 3})
	r := fkcRun(t, ctx, "cpu", "pad", []string{"--mode", "reflect", "--padding", "1:1,2:2"}, map[string]*tensor.Tensor{"x": x})
	if r.Err != "" {
		t.Fatalf("cpu without WebGPU: %s", r.Err)
	}
	if got := decodeNpy(t, r.NPY); fmt.Sprint(got.Shape) != "[4 7]" {
		t.Errorf("out shape %v", got.Shape)
	}
	r = fkcRun(t, ctx, "webgpu", "pad", []string{"--mode", "reflect", "--padding", "1:1,2:2"}, map[string]*tensor.Tensor{"x": x})
	if !strings.HasPrefix(r.Err, "Error:fkc: ") || !strings.Contains(r.Err, "WebGPU is not available") {
		t.Errorf("webgpu without WebGPU: %q", r.Err)
	}
	// The catalog says GPU kernels need WebGPU, CPU ones run.
	open(t, ctx, "")
	waitFor(t, ctx, `document.querySelectorAll("tr.krow").length > 0`)
	cols := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("tr.krow")].map(r => [r.dataset.id, r.querySelector("td.link").innerText]))`)
	if cols["fkc-wgsl-kernels/sum"] != "needs WebGPU" || cols["fuel-cpu-backend/pad"] != "▶ CPU" {
		t.Errorf("without WebGPU the catalog says sum (WGSL) %q, pad (CPU) %q", cols["fkc-wgsl-kernels/sum"], cols["fuel-cpu-backend/pad"])
	}
	// A kernel page still runs on the CPU; its WebGPU button is disabled.
	open(t, ctx, "#/k/"+escape("fuel-vulkan-kernels/pad_reflect_b4"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	if !eval[bool](t, ctx, `document.getElementById("run-gpu").disabled`) {
		t.Error("the Run on WebGPU button is enabled without WebGPU")
	}
	screenshot(t, ctx, "no-webgpu")
}

// The WASM binary's size, raw and gzip.
func TestWasmSize(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	b, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("app.wasm: %.2f MiB raw, %.2f MiB gzip -9", float64(len(b))/(1<<20), float64(gzipSize(b))/(1<<20))
}

func escape(id string) string { return strings.ReplaceAll(id, "/", "%2F") }

// A share link the page cannot read whole says what it dropped: a kernel
// name that is not valid percent-encoding (it said `no kernel ""`), a
// query with a bad escape (dropped without a word, the default case ran),
// a run= backend that does not exist (nothing ran, nothing said).
func TestBadShareLinks(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/fuel-cpu-backend%ZZpad")
	waitFor(t, ctx, `document.querySelector("#main .err")`)
	if got := eval[string](t, ctx, `document.querySelector("#main .err").textContent`); !strings.Contains(got, `the link's kernel "fuel-cpu-backend%ZZpad" is not valid percent-encoding`) {
		t.Errorf("a bad kernel escape: %q", got)
	}
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad")+"?flags=--mode%20constant%20--padding%201:1&x=4|F32|arange&run=tpu&junk=%ZZ")
	waitFor(t, ctx, `document.querySelectorAll("#banners .banner.warn").length >= 2`)
	got := eval[string](t, ctx, `[...document.querySelectorAll("#banners .banner.warn")].map(b => b.textContent).join("\n")`)
	for _, want := range []string{`This link's query is not all valid percent-encoding`, `asks to run on "tpu", which is not a backend here`} {
		if !strings.Contains(got, want) {
			t.Errorf("banners lack %q:\n%s", want, got)
		}
	}
	// what could be read was kept: the padding from the link
	if v := eval[string](t, ctx, `document.querySelector("form.tryform").elements["padding"].value`); v != "1:1" {
		t.Errorf("padding %q, want the link's 1:1", v)
	}
	// The notes are about that link: the next page clears them (they
	// stayed on every page after it).
	eval[bool](t, ctx, `(() => { location.hash = "#/api"; return true; })()`)
	waitFor(t, ctx, `document.querySelectorAll("#banners .linknote").length === 0`)
}

// mustNpy is tensor.NpyBytes of a tensor the test built valid.
func mustNpy(x *tensor.Tensor) []byte {
	b, err := tensor.NpyBytes(x)
	if err != nil {
		panic(err)
	}
	return b
}
