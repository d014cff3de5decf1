package e2e

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// Malformed calls of the scripting API are refused with an "fkc:" error —
// never a Go panic, a dead runtime or a hang — and the page keeps working.
func TestScriptingAPIBadInput(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	cases := map[string]string{
		"no argument":        `fkc.run()`,
		"null":               `fkc.run(null)`,
		"unknown op":         `fkc.run({op: "frobnicate", backend: "cpu", flags: [], inputs: {}})`,
		"unknown backend":    `fkc.run({op: "sum", backend: "tpu", flags: [], inputs: {x: "AAAA"}})`,
		"flags not a list":   `fkc.run({op: "sum", backend: "cpu", flags: "--dim 0", inputs: {}})`,
		"missing input":      `fkc.run({op: "pad", backend: "cpu", flags: ["--mode", "reflect", "--padding", "1:1"], inputs: {}})`,
		"not base64":         `fkc.run({op: "sum", backend: "cpu", flags: [], inputs: {x: "!!!"}})`,
		"not a .npy":         `fkc.run({op: "sum", backend: "cpu", flags: [], inputs: {x: btoa("hello world, not numpy")}})`,
		"input not a string": `fkc.run({op: "sum", backend: "cpu", flags: [], inputs: {x: 42}})`,
		"bad padding":        `fkc.run({op: "pad", backend: "cpu", flags: ["--mode", "reflect", "--padding", "x:y"], inputs: {x: "AAAA"}})`,
		// a flag the user gave is never ignored
		"dtype f32":               `fkc.run({op: "sum", backend: "cpu", flags: ["--dtype=f32"], inputs: {}})`,
		"dim leftovers":           `fkc.run({op: "sum", backend: "cpu", flags: ["--dim", "1abc"], inputs: {}})`,
		"bench reps":              `fkc.bench({op: "sum", backend: "cpu", flags: [], inputs: {x: {shape: [4], dtype: "F32", fill: 1}}, reps: -1})`,
		"bench fill":              `fkc.bench({op: "sum", backend: "cpu", flags: [], inputs: {x: {shape: [4], dtype: "F32", fill: "lots"}}})`,
		"bench size":              `fkc.bench({op: "sum", backend: "cpu", flags: [], inputs: {x: {shape: [1000000000], dtype: "F32", fill: 1}}})`,
		"bench kernel":            `fkc.bench({op: "sum", kernel: "no-such/kernel", backend: "cpu", flags: [], inputs: {x: {shape: [4], dtype: "F32", fill: 1}}})`,
		"bench kernel backend":    `fkc.bench({op: "sum", kernel: "fkc-cpu-kernels/sum_all_blocked", backend: "webgpu", flags: [], inputs: {x: {shape: [4], dtype: "F32", fill: 1}}})`,
		"bench gpu kernel on cpu": `fkc.bench({op: "pad", kernel: "fuel-vulkan-kernels/pad_reflect_b4", backend: "cpu", flags: ["--mode", "reflect", "--padding", "1:1"], inputs: {x: {shape: [4], dtype: "F32", fill: 1}}})`,
	}
	for name, call := range cases {
		got := eval[string](t, ctx, `(async () => { try { await `+call+`; return "resolved"; } catch (e) { return (e instanceof Error ? "Error:" : "non-Error:") + e.message; } })()`)
		if !strings.HasPrefix(got, "Error:fkc: ") {
			t.Errorf("%s: %s rejected with %q, want an Error starting \"fkc: \"", name, call, got)
		}
	}
	// What JSON cannot carry is refused by name: NaN and Infinity became
	// null (a shape [NaN] ran as [0], a fill NaN as zeros, reps NaN as the
	// default), a BigInt threw a TypeError, a missing shape meant rank 0,
	// and a string argument answered with Go's struct type.
	bench := func(x, rest string) string {
		return `fkc.bench({op: "sum", backend: "cpu", flags: [], inputs: {x: ` + x + `}` + rest + `})`
	}
	named := map[string]string{
		bench(`{shape: [NaN], dtype: "F32", fill: 1}`, ""):          "fkc: element 0 of a list is NaN",
		bench(`{shape: [Infinity], dtype: "F32", fill: 1}`, ""):     "fkc: element 0 of a list is Infinity",
		bench(`{shape: [4], dtype: "F32", fill: NaN}`, ""):          "fkc: fill is NaN",
		bench(`{shape: [4], dtype: "F32", fill: 1}`, ", reps: NaN"): "fkc: reps is NaN",
		bench(`{shape: [4], dtype: "F32", fill: 1}`, ", reps: 3n"):  "fkc: reps is a BigInt",
		bench(`{dtype: "F32", fill: 1}`, ""):                        "fkc: input x: shape is missing",
		`fkc.run("pad")`:                                            "fkc: run takes one object",
		// a getter that throws, a cycle: JSON.stringify's own errors
		`fkc.run({op: "pad", backend: "cpu", flags: [], inputs: {get x() { throw new Error("boom"); }}})`: "fkc: run: the request could not be serialised: boom",
		`fkc.run((() => { const o = {op: "pad"}; o.self = o; return o; })())`:                             "fkc: run: the request could not be serialised:",
		// A field a call does not take is refused by name: a misspelled
		// "flag" was blamed on a missing --mode, "case" ran 3 cases.
		`fkc.run({op: "pad", backend: "cpu", flag: ["--mode", "reflect"], inputs: {}})`: `fkc: run: the request is not {op, backend, kernel, flags, inputs: {name: base64 .npy or {shape, dtype, fill}}}: no field "flag"`,
		`fkc.verify({backend: "cpu", case: 1})`:                                         `fkc: verify: the request is not {backend, cases, seed}: no field "case"`,
		bench(`{shape: [4], dtype: "F32", fil: 1}`, ""):                                 `fkc: bench: the request is not {op, kernel, backend, flags, inputs: {name: {shape, dtype, fill}}, reps}: no field "fil"`,
		`fkc.verify({backend: "cpu", cases: 0})`:                                        "fkc: verify: cases 0: want 1 to 100",
		// after the object: json.Decoder.More() is false before a } or ]
		`__fkcGo.verify('{"backend": "cpu"}}')`: "fkc: verify: the request is not {backend, cases, seed}: more after the request object",
		`fkc.run({op: "sum", kernel: "fuel-vulkan-kernels/pad_reflect_b4", backend: "cpu", flags: [], inputs: {}})`: `fkc: run: kernel fuel-vulkan-kernels/pad_reflect_b4 is a Vulkan kernel; ask for backend "webgpu"`,
	}
	for call, want := range named {
		got := eval[string](t, ctx, `(async () => { try { await `+call+`; return "resolved"; } catch (e) { return (e instanceof Error ? "Error:" : "non-Error:") + e.message; } })()`)
		if !strings.HasPrefix(got, "Error:"+want) {
			t.Errorf("%s rejected with %q, want an Error starting %q", call, got, want)
		}
	}
	// The bridge takes any event a script sends: a Try-it run or share
	// with no kernel page open is refused by name (it panicked on a nil op).
	for _, action := range []string{"run", "share"} {
		got := eval[string](t, ctx, `(() => { try { const r = __fkcGo.event(JSON.stringify({type: "click", action: "`+action+`", data: {backends: "cpu"}})); return r && r.__fkcError ? r.__fkcError : "no error"; } catch (e) { return String(e.message || e); } })()`)
		if !strings.Contains(got, "no kernel page with a Try-it form is open") {
			t.Errorf("%s event on the catalog: %q", action, got)
		}
	}
	// fkc.run runs the kernel asked for (it ran dispatch's choice,
	// sum_all, without a word), as fkc run --kernel does.
	in := map[string]string{"x": b64npy(tensorOf(t, tensor.F32, []int{5000}))}
	req, _ := json.Marshal(map[string]any{"op": "sum", "backend": "cpu", "kernel": "fkc-cpu-kernels/sum_all_blocked", "flags": []string{}, "inputs": in})
	if got := eval[string](t, ctx, `fkc.run(`+string(req)+`).then(r => r.provider + "/" + r.kernel, e => "rejected: " + e.message)`); got != "fkc-cpu-kernels/sum_all_blocked" {
		t.Errorf("fkc.run with kernel sum_all_blocked: %s", got)
	}
	// Still alive: a valid run works.
	r := fkcRun(t, ctx, "cpu", "pad", []string{"--mode", "constant", "--padding", "1:1"}, map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{2})})
	if r.Err != "" || r.Kernel != "pad" {
		t.Errorf("after the bad calls a valid run gave %+v", r)
	}
}

// An output far bigger than fkc.run can hand back (its base64
// must fit one JS string) is refused before it is built, with the numbers,
// and the page keeps working — before, the Go program died ("table index is
// out of bounds", then every call said the program had exited).
func TestScriptingAPIHugeOutput(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	x := tensorOf(t, tensor.F32, []int{5})
	r := fkcRun(t, ctx, "cpu", "pad", []string{"--mode", "constant", "--padding", "0:100999995"}, map[string]*tensor.Tensor{"x": x})
	if !strings.Contains(r.Err, "Error:fkc: pad: output F32[101000000] needs 404000000 bytes; fkc.run returns at most") {
		t.Errorf("a 101 M-element pad: %+v", r)
	}
	r = fkcRun(t, ctx, "cpu", "pad", []string{"--mode", "constant", "--padding", "0:1000000000"}, map[string]*tensor.Tensor{"x": x})
	if !strings.Contains(r.Err, "Error:fkc: pad: output") || !strings.Contains(r.Err, "at most 134217728 per tensor") {
		t.Errorf("a pad past the tab's cap: %+v", r)
	}
	r = fkcRun(t, ctx, "cpu", "pad", []string{"--mode", "constant", "--padding", "1:1"}, map[string]*tensor.Tensor{"x": x})
	if r.Err != "" || r.Kernel != "pad" {
		t.Errorf("after the refusals a valid run gave %+v", r)
	}
}

// fkc.bench builds its inputs in the page at sizes Try it refuses, times
// warm runs and reports GB/s from the tensors' bytes, the contract's
// bytes_moved beside.
func TestScriptingAPIBench(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	type reply struct {
		Kernel     string    `json:"kernel"`
		MedianMs   float64   `json:"median_ms"`
		TimesMs    []float64 `json:"times_ms"`
		BytesMoved float64   `json:"bytes_moved"`
		Tensor     float64   `json:"tensor_bytes"`
		GBps       float64   `json:"gb_per_s"`
		Settle     *int      `json:"settle_runs"`
	}
	r := eval[reply](t, ctx, `fkc.bench({op: "pad", backend: "cpu", flags: ["--mode", "reflect", "--padding", "0:0,2:2,2:2"],
		inputs: {x: {shape: [3, 512, 512], dtype: "F32", fill: "random"}}, reps: 3})`)
	// seed 001 pad: bytes_moved (2·out + 2·in)·4 = (2·3·516·516 + 2·3·512·512)·4
	// settle_runs: the untimed runs while the tab's memory grew (at most 10)
	if r.Kernel != "pad" || len(r.TimesMs) != 3 || r.BytesMoved != 12681600 || !(r.MedianMs > 0) || !(r.GBps > 0) || r.Settle == nil || *r.Settle < 0 || *r.Settle > 10 {
		t.Errorf("fkc.bench pad: %+v", r)
	}
	// GB/s: the tensors' bytes, (3·516·516 + 3·512·512)·4, over the median
	if want := float64(4 * (3*516*516 + 3*512*512)); r.Tensor != want || math.Abs(r.GBps-want/(r.MedianMs*1e6)) > 1e-9*r.GBps {
		t.Errorf("fkc.bench pad: tensor_bytes %g (want %g), gb_per_s %g (want tensor_bytes / median = %g)", r.Tensor, want, r.GBps, want/(r.MedianMs*1e6))
	}
	g := eval[reply](t, ctx, `fkc.bench({op: "gather", backend: "cpu", flags: ["--dim", "1"],
		inputs: {data: {shape: [1024, 1024], dtype: "F32", fill: "arange"}, indices: {shape: [1024, 1024], dtype: "U32", fill: "indices:1024"}}})`)
	if g.Kernel != "gather" || len(g.TimesMs) != 5 || !(g.GBps > 0) {
		t.Errorf("fkc.bench gather: %+v", g)
	}
	// a kernel by name: this project's blocked sum, not dispatch's oracle
	s := eval[reply](t, ctx, `fkc.bench({op: "sum", kernel: "fkc-cpu-kernels/sum_all_blocked", backend: "cpu", flags: [],
		inputs: {x: {shape: [1048576], dtype: "F32", fill: "random"}}, reps: 2})`)
	if s.Kernel != "sum_all_blocked" || len(s.TimesMs) != 2 {
		t.Errorf("fkc.bench sum_all_blocked: %+v", s)
	}
	t.Logf("in this tab: pad reflect F32[3,512,512] %.2f ms (%.2f GB/s); gather [1024,1024] %.2f ms (%.2f GB/s)", r.MedianMs, r.GBps, g.MedianMs, g.GBps)
}

// A call whose tensors do not fit in the tab's WebAssembly memory is
// refused with the numbers, and the page keeps working. Before, fkc.bench
// of an index_add on three 2^27-element tensors stopped the Go program
// ("fatal error: out of memory"), and every later call failed.
func TestScriptingAPIOutOfMemory(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	got := eval[string](t, ctx, `(async () => { try { await fkc.bench({op: "index_add", backend: "cpu", flags: ["--dim", "0"],
		inputs: {base: {shape: [134217728], dtype: "F64", fill: 1}, indices: {shape: [134217728], dtype: "U32", fill: "indices:100"}, src: {shape: [134217728], dtype: "F64", fill: 1}}, reps: 1});
		return "resolved"; } catch (e) { return e.message; } })()`)
	// All three inputs are checked together before any is allocated
	// (1 + 0.5 + 1 GiB); if the Go heap is small enough for them, the
	// output's 1 GiB is refused instead. Either way no allocation may reach
	// the runtime's fatal error or a recovered panic (CI once saw
	// "internal error (a Go panic, recovered)" when the inputs were built
	// one by one in map order and the U32 indices came last).
	inputs := strings.HasPrefix(got, "fkc: the input set (base F64[134217728], indices U32[134217728], src F64[134217728]) needs 2684354560 bytes")
	output := strings.HasPrefix(got, "fkc: index_add: output F64[134217728] needs 1073741824 bytes")
	if !(inputs || output) || !strings.Contains(got, "the tab's 3 GiB of WebAssembly memory") {
		t.Errorf("three 1 GiB tensors: %q, want a refusal naming the tab's memory", got)
	}
	t.Logf("refused: %s", got)
	ok := eval[string](t, ctx, `fkc.bench({op: "sum", backend: "cpu", flags: [], inputs: {x: {shape: [16], dtype: "F32", fill: 1}}, reps: 1}).then(r => r.kernel, e => e.message)`)
	if ok != "sum_all" {
		t.Errorf("after the refusal a small bench gave %q", ok)
	}
}
