//go:build js && wasm

package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/playground"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// surfaceError is what `fkc run` prints: "fkc: " and the error. The prefix
// is added here, once, at the surface; Go code below never adds it.
func surfaceError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("fkc: %w", err)
}

func gpuMissing() (string, bool) {
	gpuState.Lock()
	defer gpuState.Unlock()
	if !gpuState.Done {
		return "WebGPU is still starting", true
	}
	return gpuState.Reason, !gpuState.Available
}

// checkBackend parses a backend name: the playground runs cpu and webgpu
// (and takes vulkan or gpu to mean webgpu, the same WGSL kernels).
func checkBackend(backend string) (engine.Backend, error) {
	b, err := engine.ParseBackend(backend)
	if err != nil {
		return "", kernels.Usagef("unknown backend %q (the playground runs cpu or webgpu)", backend)
	}
	if b == engine.CPU {
		return b, nil
	}
	if why, missing := gpuMissing(); missing {
		return "", &kernels.Unavailable{Kernel: "backend webgpu", Msg: fmt.Sprintf("WebGPU is not available in this browser (%s); the cpu backend works", why)}
	}
	return engine.WebGPU, nil
}

// scriptRun is window.fkc.run: the `fkc run` contract for scripts.
func scriptRun(reqJSON string) (any, error) {
	var req struct {
		Op      string            `json:"op"`
		Backend string            `json:"backend"`
		Flags   []string          `json:"flags"`
		Inputs  map[string]string `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(reqJSON), &req); err != nil {
		return nil, surfaceError(kernels.Usagef("run: the request is not {op, backend, flags, inputs}: %v", err))
	}
	backend, err := checkBackend(req.Backend)
	if err != nil {
		return nil, surfaceError(err)
	}
	// --dtype bf16 is a run-line flag of its own: it says how to read <u2 files.
	flags, asBF16, err := ops.SplitDType(req.Flags)
	if err != nil {
		return nil, surfaceError(err)
	}
	call, err := ops.Parse(req.Op, flags)
	if err != nil {
		return nil, surfaceError(err)
	}
	call.Inputs = map[string]*tensor.Tensor{}
	anyBF16 := false
	for name, b64 := range req.Inputs {
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, surfaceError(fmt.Errorf("input %s: not base64: %v", name, err))
		}
		t, err := tensor.ReadNpyBytes(raw, asBF16)
		if err != nil {
			return nil, surfaceError(fmt.Errorf("input %s: %v", name, err))
		}
		anyBF16 = anyBF16 || t.DType == tensor.BF16
		call.Inputs[name] = t
	}
	if asBF16 && !anyBF16 {
		return nil, surfaceError(kernels.Usagef("--dtype bf16 reads <u2 .npy inputs as bf16, but no input of this call is a <u2 file"))
	}
	// The answer travels back as base64 in one JS string: refuse, before
	// anything runs, an output whose encoding would not fit (the page
	// keeps working, as the issue asks).
	if _, shape, dt, err := eng.Check(call); err != nil {
		return nil, surfaceError(err)
	} else if b := int64(tensor.NumElems(shape)) * int64(dt.Size()); b > maxResultBytes {
		return nil, surfaceError(kernels.Violatef(req.Op, "output %s%v needs %d bytes; fkc.run returns at most %d bytes (%d MiB) as base64 — use fkc.bench to time larger calls",
			dt, shape, b, maxResultBytes, maxResultBytes>>20))
	}
	mu.Lock()
	res, err := eng.Run(backend, call)
	mu.Unlock()
	if err != nil {
		return nil, surfaceError(err)
	}
	return map[string]any{
		"kernel":   res.Kernel,
		"provider": res.Provider,
		"backend":  res.Backend,
		"npy":      base64.StdEncoding.EncodeToString(tensor.NpyBytes(res.Out)),
	}, nil
}

// maxResultBytes bounds fkc.run's output: its base64 (4/3 of it) must fit a
// JS string (V8: under 2^29 characters), beside the Go copies of it in the
// tab's wasm memory.
const maxResultBytes = 256 << 20

// tryRequest is what the kernel page's Try it sends.
type tryRequest struct {
	ID       string             `json:"id"` // provider/kernel of the page
	Op       string             `json:"op"`
	Flags    []string           `json:"flags"`
	Inputs   map[string]ops.Gen `json:"inputs"`
	Backends []string           `json:"backends"` // "cpu", "webgpu"
}

type tensorView struct {
	Shape  []int    `json:"shape"`
	DType  string   `json:"dtype"`
	Values []string `json:"values,omitempty"` // absent when too large to draw
	Bits   []string `json:"bits,omitempty"`   // hex bit patterns, for float cells' tooltips
	N      int      `json:"n"`
}

// maxDraw bounds what is sent to the page per tensor.
const maxDraw = 1 << 14

func view(t *tensor.Tensor) tensorView {
	v := tensorView{Shape: t.Shape, DType: t.DType.String(), N: t.NumElems()}
	if v.N > maxDraw {
		return v
	}
	v.Values = make([]string, v.N)
	w := t.DType.Size()
	if t.DType.IsFloat() {
		v.Bits = make([]string, v.N)
	}
	for i := range v.N {
		v.Values[i] = playground.Format(t, i)
		if v.Bits != nil {
			var u uint64
			for b := w - 1; b >= 0; b-- {
				u = u<<8 | uint64(t.Data[i*w+b])
			}
			v.Bits[i] = fmt.Sprintf("0x%0*x", 2*w, u)
		}
	}
	return v
}

type costValue struct {
	Name    string  `json:"name"`
	Formula string  `json:"formula"`
	Value   float64 `json:"value"`
	Error   string  `json:"error,omitempty"`
}

type runJSON struct {
	Backend   string `json:"backend"` // as asked: cpu / webgpu
	Error     string `json:"error,omitempty"`
	Violation bool   `json:"violation,omitempty"` // the error is a contract violation
	// Unavailable: the kernel exists but this adapter cannot run it (e.g.
	// f64 atomics on WebGPU); the CPU path can.
	Unavailable bool `json:"unavailable,omitempty"`
	// Ms is the mean time of Reps warm runs; ResolutionUs is the browser
	// clock's step, so the page can say "< resolution" instead of 0.
	Reps         int         `json:"reps"`
	ResolutionUs float64     `json:"resolution_us"`
	Kernel       string      `json:"kernel,omitempty"`
	KernelID     string      `json:"kernel_id,omitempty"`
	Provider     string      `json:"provider,omitempty"`
	Contract     string      `json:"contract_backend,omitempty"`
	Ms           float64     `json:"ms"`
	BytesMoved   float64     `json:"bytes_moved"`
	GBps         float64     `json:"gbps"`
	Costs        []costValue `json:"costs,omitempty"`
	// PageCosts are the page kernel's formulas evaluated for this call, when
	// another kernel served it (e.g. the CPU run on a Vulkan kernel's page).
	PageCosts []costValue `json:"page_costs,omitempty"`
	Out       *tensorView `json:"out,omitempty"`
	out       *tensor.Tensor
	backend   engine.Backend
}

// tryIt builds the inputs, runs the call on each backend asked for, diffs
// the outputs and traces where each output element came from.
func tryIt(reqJSON string) (any, error) {
	var req tryRequest
	if err := json.Unmarshal([]byte(reqJSON), &req); err != nil {
		return nil, surfaceError(kernels.Usagef("tryit: bad request: %v", err))
	}
	o, err := ops.Get(req.Op)
	if err != nil {
		return nil, surfaceError(err)
	}
	inputs := map[string]*tensor.Tensor{}
	views := map[string]tensorView{}
	for _, name := range o.InputNames() {
		g, ok := req.Inputs[name]
		if !ok {
			return nil, surfaceError(kernels.Usagef("%s needs input %s", req.Op, name))
		}
		t, err := g.Make()
		if err != nil {
			return nil, surfaceError(fmt.Errorf("input %s: %v", name, err))
		}
		inputs[name] = t
		views[name] = view(t)
	}
	resp := map[string]any{"inputs": views, "order": o.InputNames()}
	call, perr := o.Parse(req.Flags)
	var runs []*runJSON
	for _, b := range req.Backends {
		if perr != nil {
			runs = append(runs, failed(b, perr))
			continue
		}
		c := *call
		c.Inputs = inputs
		runs = append(runs, runOne(req.ID, b, &c))
	}
	resp["runs"] = runs
	var ok2 []*runJSON
	for _, r := range runs {
		if r.Error == "" {
			ok2 = append(ok2, r)
		}
	}
	if len(ok2) == 2 {
		resp["diff"] = playground.Compare(ok2[0].out, ok2[1].out)
	}
	if len(ok2) > 0 && ok2[0].out.NumElems() <= maxDraw {
		// Trace on the backend that produced the first output, so the
		// picture shows what that kernel did.
		backend := ok2[0].backend
		run := func(c *kernels.Call) (*tensor.Tensor, error) {
			mu.Lock()
			defer mu.Unlock()
			res, err := eng.Run(backend, c)
			if err != nil {
				return nil, err
			}
			return res.Out, nil
		}
		c := *call
		c.Inputs = inputs
		tr, err := o.Trace(run, &c)
		if err != nil {
			resp["trace_error"] = err.Error()
		} else {
			resp["trace"] = tr
		}
	}
	return jsonString(resp)
}

// failed is a run that could not start, with its error classified.
func failed(backend string, err error) *runJSON {
	r := &runJSON{Backend: backend, Error: surfaceError(err).Error()}
	var u *kernels.Unavailable
	var us *kernels.Usage
	r.Unavailable = errors.As(err, &u)
	r.Violation = !errors.As(err, &us) && !r.Unavailable
	return r
}

// runOne runs the call on one backend. When the page's kernel lives on that
// backend and has a binding for these dtypes, that very binding runs (so a
// kernel that is not the op's default target is still what you try);
// otherwise the call is dispatched as `fkc run` would.
func runOne(pageID, backendName string, call *kernels.Call) (r *runJSON) {
	defer func() {
		if p := recover(); p != nil {
			r = &runJSON{Backend: backendName, Error: panicError(p).Error()}
		}
	}()
	backend, err := checkBackend(backendName)
	if err != nil {
		return failed(backendName, err)
	}
	r = &runJSON{Backend: backendName, backend: backend}
	mu.Lock()
	defer mu.Unlock()
	o, _ := ops.Of(call)
	var b *registry.Binding
	ref, onPage := eng.FindKernel(pageID)
	if onPage && ref.Kernel.Registrable && ref.Kernel.Backend == backend.Contract() && eng.Runnable(ref.Kernel.EntryPoint) {
		primary := o.Primary(call)
		for _, cand := range eng.Reg.Of(ref.Kernel) {
			if cand.InputDTypes[0] == primary.DType {
				b = cand
				break
			}
		}
	}
	once := func() (*engine.Result, error) {
		if b != nil {
			return eng.RunBinding(b, call)
		}
		return eng.Run(backend, call)
	}
	res, err := once() // the first call also compiles a GPU pipeline: not timed
	if err != nil {
		return failed(backendName, err)
	}
	// Time a batch of warm repetitions: a browser's clock is coarse (5 µs
	// when the page is cross-origin isolated, 100 µs otherwise), so one
	// run of a small kernel reads 0. The batch runs for at least timeBudget
	// (or maxReps runs) and the mean per run is reported.
	budget, maxReps := 5*time.Millisecond, 2000
	if backend != engine.CPU {
		budget, maxReps = 30*time.Millisecond, 50
	}
	reps := 0
	start := time.Now()
	var elapsed time.Duration
	for reps < 3 || (elapsed < budget && reps < maxReps) {
		res2, err2 := once()
		if err2 != nil {
			break
		}
		res = res2
		reps++
		elapsed = time.Since(start)
	}
	r.Reps = reps
	if reps > 0 {
		elapsed /= time.Duration(reps)
	}
	r.Ms = float64(elapsed.Nanoseconds()) / 1e6
	r.ResolutionUs = clockResolutionUs()
	r.Kernel, r.Provider, r.Contract = res.Kernel, res.Provider, res.Backend
	r.KernelID = res.Provider + "/" + res.Kernel
	r.out = res.Out
	v := view(res.Out)
	r.Out = &v
	syms := engine.CostSymbols(res)
	r.Costs = evalCosts(res.Binding.Kernel.Cost, syms)
	for _, c := range r.Costs {
		if c.Name == "bytes_moved" && c.Error == "" {
			r.BytesMoved = c.Value
			if elapsed > 0 {
				r.GBps = c.Value / elapsed.Seconds() / 1e9
			}
		}
	}
	if onPage && ref.Kernel != res.Binding.Kernel {
		r.PageCosts = evalCosts(ref.Kernel.Cost, syms)
	}
	return r
}

// costRows are a contract's cost block, field by field, as the page's cost
// table shows them (provenance and class, then the formulas).
func costRows(cost contract.Cost) []struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`
} {
	rows := []struct {
		Name    string `json:"name"`
		Formula string `json:"formula"`
	}{{"provenance", cost.Provenance}, {"class", cost.Class}}
	for _, f := range costFormulas(cost) {
		rows = append(rows, struct {
			Name    string `json:"name"`
			Formula string `json:"formula"`
		}{f.name, f.formula})
	}
	return rows
}

// costFormulas lists a cost block's formulas in contract.CostFields order.
func costFormulas(cost contract.Cost) []namedFormula {
	out := make([]namedFormula, len(contract.CostFields))
	for i, f := range contract.CostFields {
		out[i] = namedFormula{f.Name, f.Get(cost)}
	}
	return out
}

type namedFormula struct{ name, formula string }

// evalCosts evaluates a contract's cost formulas with a call's symbols.
func evalCosts(cost contract.Cost, syms map[string]float64) []costValue {
	var out []costValue
	for _, f := range costFormulas(cost) {
		if strings.TrimSpace(f.formula) == "" {
			continue
		}
		cv := costValue{Name: f.name, Formula: f.formula}
		if ex, err := contract.ParseExpr(f.formula); err != nil {
			cv.Error = err.Error()
		} else if cv.Value, err = ex.Eval(syms); err != nil {
			cv.Error = err.Error()
		}
		if math.IsInf(cv.Value, 0) || math.IsNaN(cv.Value) {
			cv.Value = 0
		}
		out = append(out, cv)
	}
	return out
}

// clockResolutionUs measures the smallest step of time.Now (performance.now
// underneath), in µs.
func clockResolutionUs() float64 {
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		a := time.Now()
		b := time.Now()
		for n := 0; b.Sub(a) == 0 && n < 1e6; n++ {
			b = time.Now()
		}
		if d := b.Sub(a); d > 0 && d < best {
			best = d
		}
	}
	return float64(best.Nanoseconds()) / 1e3
}
