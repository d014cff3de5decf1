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
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/playground"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// cliError is what `fkc run` prints: "fkc: " and the error.
func cliError(err error) error {
	if err == nil {
		return nil
	}
	if strings.HasPrefix(err.Error(), "fkc:") {
		return err
	}
	return fmt.Errorf("fkc: %v", err)
}

func gpuMissing() (string, bool) {
	gpuState.Lock()
	defer gpuState.Unlock()
	if !gpuState.Done {
		return "WebGPU is still starting", true
	}
	return gpuState.Reason, !gpuState.Available
}

func checkBackend(backend string) error {
	switch strings.ToLower(backend) {
	case "", "cpu":
		return nil
	case "webgpu", "gpu":
		if why, missing := gpuMissing(); missing {
			return fmt.Errorf("fkc: backend webgpu: WebGPU is not available in this browser (%s); the cpu backend works", why)
		}
		return nil
	}
	return fmt.Errorf("fkc: unknown backend %q (the playground runs cpu or webgpu)", backend)
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
		return nil, fmt.Errorf("fkc: run: the request is not {op, backend, flags, inputs}: %v", err)
	}
	if err := checkBackend(req.Backend); err != nil {
		return nil, err
	}
	// --dtype bf16 is a CLI flag of its own: it says how to read <u2 files.
	var flags []string
	asBF16 := false
	for i := 0; i < len(req.Flags); i++ {
		f := req.Flags[i]
		switch {
		case f == "--dtype" && i+1 < len(req.Flags):
			if !strings.EqualFold(req.Flags[i+1], "bf16") {
				return nil, fmt.Errorf("fkc: --dtype %s: only --dtype bf16 is meaningful (other dtypes come from the .npy files)", req.Flags[i+1])
			}
			asBF16 = true
			i++
		case strings.HasPrefix(f, "--dtype="):
			asBF16 = strings.EqualFold(strings.TrimPrefix(f, "--dtype="), "bf16")
		default:
			flags = append(flags, f)
		}
	}
	inputs := map[string]*tensor.Tensor{}
	for name, b64 := range req.Inputs {
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("fkc: input %s: not base64: %v", name, err)
		}
		t, err := tensor.ReadNpyBytes(raw, asBF16)
		if err != nil {
			return nil, fmt.Errorf("fkc: input %s: %v", name, err)
		}
		inputs[name] = t
	}
	mu.Lock()
	res, err := eng.Run(req.Backend, req.Op, flags, inputs)
	mu.Unlock()
	if err != nil {
		return nil, cliError(err)
	}
	return map[string]any{
		"kernel":   res.Kernel,
		"provider": res.Provider,
		"backend":  res.Backend,
		"npy":      base64.StdEncoding.EncodeToString(tensor.NpyBytes(res.Out)),
	}, nil
}

// tryRequest is what the kernel page's Try it sends.
type tryRequest struct {
	ID       string                    `json:"id"` // provider/kernel of the page
	Op       string                    `json:"op"`
	Flags    []string                  `json:"flags"`
	Inputs   map[string]playground.Gen `json:"inputs"`
	Backends []string                  `json:"backends"` // "cpu", "webgpu"
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
}

// tryIt builds the inputs, runs the call on each backend asked for, diffs
// the outputs and traces where each output element came from.
func tryIt(reqJSON string) (any, error) {
	var req tryRequest
	if err := json.Unmarshal([]byte(reqJSON), &req); err != nil {
		return nil, fmt.Errorf("fkc: tryit: bad request: %v", err)
	}
	spec, ok := ops.SpecFor(req.Op)
	if !ok {
		return nil, fmt.Errorf("fkc: unknown op %q", req.Op)
	}
	inputs := map[string]*tensor.Tensor{}
	views := map[string]tensorView{}
	for _, name := range spec.Inputs {
		g, ok := req.Inputs[name]
		if !ok {
			return nil, fmt.Errorf("fkc: %s needs input %s", req.Op, name)
		}
		t, err := g.Make()
		if err != nil {
			return nil, fmt.Errorf("fkc: input %s: %v", name, err)
		}
		inputs[name] = t
		views[name] = view(t)
	}
	resp := map[string]any{"inputs": views, "order": spec.Inputs}
	var runs []*runJSON
	for _, b := range req.Backends {
		runs = append(runs, runOne(req, b, inputs))
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
		backend := ok2[0].Backend
		run := func(op string, flags []string, in map[string]*tensor.Tensor) (*tensor.Tensor, error) {
			mu.Lock()
			defer mu.Unlock()
			res, err := eng.Run(backend, op, flags, in)
			if err != nil {
				return nil, err
			}
			return res.Out, nil
		}
		tr, err := playground.TraceCall(run, req.Op, req.Flags, inputs)
		if err != nil {
			resp["trace_error"] = err.Error()
		} else {
			resp["trace"] = tr
		}
	}
	return jsonString(resp)
}

// runOne runs the call on one backend. When the page's kernel lives on that
// backend and has a binding for these dtypes, that very binding runs (so a
// kernel that is not the op's default target is still what you try);
// otherwise the op is dispatched as `fkc run` would.
func runOne(req tryRequest, backend string, inputs map[string]*tensor.Tensor) (r *runJSON) {
	r = &runJSON{Backend: backend}
	defer func() {
		if p := recover(); p != nil {
			r.Error = panicError(p).Error()
		}
	}()
	if err := checkBackend(backend); err != nil {
		r.Error = err.Error()
		return r
	}
	call, err := ops.ParseFlags(req.Op, req.Flags)
	if err != nil {
		r.Error = cliError(err).Error()
		return r
	}
	call.Inputs = inputs
	mu.Lock()
	defer mu.Unlock()
	var b *registry.Binding
	if ref, ok := findKernel(req.ID); ok && ref.Kernel.Registrable {
		cb, _ := ops.ContractBackend(backend)
		if strings.EqualFold(ref.Kernel.Backend, cb) {
			spec, _ := ops.SpecFor(req.Op)
			primary := inputs[spec.Inputs[0]]
			for _, cand := range eng.Reg.ByKernel(ref.Doc.Provider.Name, ref.Kernel.Name) {
				if len(cand.InputDTypes) > 0 && cand.InputDTypes[0] == primary.DType {
					b = cand
					break
				}
			}
		}
	}
	if b != nil {
		if _, linked := eng.LinkFor(b.Kernel.EntryPoint); !linked {
			b = nil
		}
	}
	once := func() (*ops.Result, error) {
		if b != nil {
			return eng.RunBinding(b, call)
		}
		return eng.Dispatch(backend, call)
	}
	res, err := once() // the first call also compiles a GPU pipeline: not timed
	if err != nil {
		r.Error = cliError(err).Error()
		var uerr *ops.UsageError
		r.Unavailable = ops.IsUnavailable(err)
		r.Violation = !errors.As(err, &uerr) && !r.Unavailable
		return r
	}
	// Time a batch of warm repetitions: a browser's clock is coarse (5 µs
	// when the page is cross-origin isolated, 100 µs otherwise), so one
	// run of a small kernel reads 0. The batch runs for at least timeBudget
	// (or maxReps runs) and the mean per run is reported.
	budget, maxReps := 5*time.Millisecond, 2000
	if backend == "webgpu" {
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
	syms := ops.CostSymbols(res)
	r.Costs = evalCosts(res.Binding.Kernel.Cost, syms)
	for _, c := range r.Costs {
		if c.Name == "bytes_moved" && c.Error == "" {
			r.BytesMoved = c.Value
			if elapsed > 0 {
				r.GBps = c.Value / elapsed.Seconds() / 1e9
			}
		}
	}
	if ref, ok := findKernel(req.ID); ok && ref.Kernel != res.Binding.Kernel {
		r.PageCosts = evalCosts(ref.Kernel.Cost, syms)
	}
	return r
}

// evalCosts evaluates a contract's cost formulas with a call's symbols.
func evalCosts(cost contract.Cost, syms map[string]float64) []costValue {
	var out []costValue
	for _, f := range []struct{ name, formula string }{
		{"bytes_moved", cost.BytesMoved}, {"flops", cost.Flops},
		{"memory.device_bytes", cost.Memory.DeviceBytes}, {"memory.host_bytes", cost.Memory.HostBytes},
		{"memory.disk_bytes", cost.Memory.DiskBytes},
	} {
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
