//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/bench"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// benchInput describes one fkc.bench input: built in the page, any size up
// to the tab's cap (Try it draws, so it stops at 2^20 elements; this does not).
type benchInput struct {
	Shape []int  `json:"shape"`
	DType string `json:"dtype"`
	// Fill: one of ops.Fills' script fills — a number (every element),
	// "random", "arange", or "indices:N" (U32 values in [0, N)).
	Fill json.RawMessage `json:"fill"`
}

// kernelOnBackend refuses a kernel (PROVIDER/NAME, "" for dispatch's
// choice) of another backend than the call's, in the page's words (the
// engine's would say --backend vulkan).
func kernelOnBackend(call, kernel string, backend engine.Backend) error {
	if ref, ok := app.eng.FindKernel(kernel); kernel != "" && ok && ref.Kernel.Backend != backend.Contract() {
		want := map[string]string{"Cpu": "cpu", "Vulkan": "webgpu"}[ref.Kernel.Backend]
		return kernels.Usagef("%s: kernel %s is a %s kernel; ask for backend %q", call, kernel, ref.Kernel.Backend, want)
	}
	return nil
}

// scriptBench is window.fkc.bench: times warm runs of one call.
func scriptBench(reqJSON string) (any, error) {
	var req struct {
		Op      string                `json:"op"`
		Kernel  string                `json:"kernel"` // PROVIDER/NAME; empty: dispatch's choice
		Backend string                `json:"backend"`
		Flags   []string              `json:"flags"`
		Inputs  map[string]benchInput `json:"inputs"`
		Reps    int                   `json:"reps"`
	}
	if err := decodeRequest("bench", reqJSON, "{op, kernel, backend, flags, inputs: {name: {shape, dtype, fill}}, reps}", &req); err != nil {
		return nil, surfaceError(err)
	}
	if req.Reps == 0 {
		req.Reps = 5
	}
	if req.Reps < 1 || req.Reps > 1000 {
		return nil, surfaceError(kernels.Usagef("bench: reps %d: want 1 to 1000", req.Reps))
	}
	backend, err := checkBackend(req.Backend)
	if err != nil {
		return nil, surfaceError(err)
	}
	if err := kernelOnBackend("bench", req.Kernel, backend); err != nil {
		return nil, surfaceError(err)
	}
	call, err := ops.Parse(req.Op, req.Flags)
	if err != nil {
		return nil, surfaceError(err)
	}
	if call.Inputs, err = buildInputs(req.Inputs); err != nil {
		return nil, surfaceError(err)
	}
	app.mu.Lock()
	r := bench.Measure(app.eng, backend, req.Op, req.Kernel, call, req.Reps)
	app.mu.Unlock()
	if r.Error != "" {
		return nil, fmt.Errorf("fkc: %s", r.Error)
	}
	if r.Skipped != "" {
		return nil, fmt.Errorf("fkc: %s", r.Skipped)
	}
	times := make([]float64, len(r.TimesNs))
	for i, t := range r.TimesNs {
		times[i] = float64(t) / 1e6
	}
	out := map[string]any{
		"kernel": r.Kernel, "provider": r.Provider, "backend": r.Backend,
		"median_ms": float64(r.MedianNs) / 1e6, "times_ms": times,
		"tensor_bytes": r.TensorBytes, "bytes_moved": r.BytesMoved, "gb_per_s": r.GBps, "reps": r.Reps, "settle_runs": r.Settle,
	}
	// A GPU call's time on the device (submit to results mapped) and, where
	// the adapter has timestamps, its kernels' time: the clocks fkc.lab.bench
	// reports the built-in kernel by.
	if r.DeviceNs > 0 {
		out["device_ms"], out["device_gb_per_s"] = float64(r.DeviceNs)/1e6, r.DeviceGBps
	}
	if r.KernelNs > 0 {
		out["kernel_ms"], out["kernel_gb_per_s"] = float64(r.KernelNs)/1e6, r.KernelGBps
	}
	return jsonString(out)
}

// buildInputs checks every input's shape, dtype and fill, then the bytes
// of all of them together against the tab's memory, before it allocates
// any; it fills them in name order, so a "random" fill is the same on
// every call.
func buildInputs(ins map[string]benchInput) (map[string]*tensor.Tensor, error) {
	names := slices.Sorted(maps.Keys(ins))
	type planned struct {
		dt   tensor.DType
		fill func(*rand.Rand, *tensor.Tensor)
	}
	plan := make([]planned, len(names))
	var total int
	var what []string
	for i, name := range names {
		in := ins[name]
		dt, fill, err := planInput(in)
		if err != nil {
			return nil, fmt.Errorf("input %s: %v", name, err)
		}
		plan[i] = planned{dt, fill}
		total += tensor.NumElems(in.Shape) * dt.Size()
		what = append(what, fmt.Sprintf("%s %s%v", name, dt, in.Shape))
	}
	if err := tensor.CheckAlloc("the input set ("+strings.Join(what, ", ")+")", total); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(1))
	out := make(map[string]*tensor.Tensor, len(names))
	for i, name := range names {
		t, err := tensor.Alloc(plan[i].dt, ins[name].Shape)
		if err != nil {
			return nil, fmt.Errorf("input %s: %v", name, err)
		}
		plan[i].fill(rng, t)
		out[name] = t
	}
	return out, nil
}

// planInput validates one input and returns its dtype and how to fill it.
func planInput(in benchInput) (tensor.DType, func(*rand.Rand, *tensor.Tensor), error) {
	dt, err := tensor.ParseDType(in.DType)
	if err != nil {
		return 0, nil, err
	}
	if in.Shape == nil { // absent or null (JSON's NaN and Infinity)
		return 0, nil, fmt.Errorf("shape is missing (a list of sizes; [] for a rank-0 tensor)")
	}
	if err := tensor.CheckShape(in.Shape); err != nil {
		return 0, nil, err
	}
	if n := tensor.NumElems(in.Shape); n > tabLimits.MaxElems {
		return 0, nil, fmt.Errorf("%s%v has %d elements; a tab holds at most %d per tensor", dt, in.Shape, n, tabLimits.MaxElems)
	}
	var num float64
	var word string
	switch {
	case len(in.Fill) == 0:
		return dt, func(*rand.Rand, *tensor.Tensor) {}, nil // zeros
	case json.Unmarshal(in.Fill, &num) == nil:
		// the number as written, rounded once (a JSON number is a decimal
		// ParseScalar reads)
		v, err := tensor.ParseScalar(strings.TrimSpace(string(in.Fill)))
		if err != nil {
			return 0, nil, fmt.Errorf("fill %s: %v", in.Fill, err)
		}
		s, err := v.Encode(dt)
		if err != nil {
			return 0, nil, err
		}
		return dt, func(_ *rand.Rand, t *tensor.Tensor) {
			for i := 0; i < len(t.Data); i += len(s) {
				copy(t.Data[i:], s)
			}
		}, nil
	case json.Unmarshal(in.Fill, &word) != nil:
		return 0, nil, fmt.Errorf("fill %s: want a number, \"random\", \"arange\" or \"indices:N\"", in.Fill)
	}
	switch n, isIdx := strings.CutPrefix(word, "indices:"); {
	case word == "random" || word == "arange":
		// the Try-it form's fills, in its words (ops.Fills): "random" is
		// integers in RandomRange, its seed drawn from the call's stream
		lo, hi := ops.RandomRange(dt)
		g := ops.Gen{Kind: word, Lo: lo, Hi: hi}
		if word == "arange" {
			if n := tensor.NumElems(in.Shape); n > 0 { // as Fill checks it, before the allocation
				if _, err := tensor.FloatScalar(float64(n - 1)).Encode(dt); err != nil {
					return 0, nil, fmt.Errorf("arange: %v", err)
				}
			}
		}
		return dt, func(rng *rand.Rand, t *tensor.Tensor) {
			g.Seed = rng.Uint64()
			g.Fill(t) // cannot fail: checked above, and RandomRange fits every dtype
		}, nil
	case isIdx && dt == tensor.U32:
		bound, err := strconv.Atoi(n)
		if err != nil || bound < 1 || bound > 1<<32 {
			return 0, nil, fmt.Errorf("fill %q: N must be a whole number in [1, 2^32]", word)
		}
		return dt, func(rng *rand.Rand, t *tensor.Tensor) { ops.FillIndices(rng, t, bound) }, nil
	}
	return 0, nil, fmt.Errorf("fill %q: want a number, \"random\", \"arange\" or (U32) \"indices:N\"", word)
}
