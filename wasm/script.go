//go:build js && wasm

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/playground"
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
	g := app.gpu()
	if !g.Done {
		return "WebGPU is still starting", true
	}
	return g.Reason, !g.Available
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

// decodeRequest reads a console call's JSON request into req, strictly: a
// field the call does not take is refused by name (a misspelled "flag" or a
// "kernel" fkc.run did not read went unnoticed: another kernel ran, or the
// error blamed a missing flag), as is anything after the object. shape
// names the fields the call takes, for the message.
func decodeRequest(call, reqJSON, shape string, req any) error {
	dec := json.NewDecoder(strings.NewReader(reqJSON))
	dec.DisallowUnknownFields()
	err := dec.Decode(req)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF { // More() is false before a stray } or ]
			err = errors.New("more after the request object")
		}
	}
	if err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			msg = "no field " + f
		}
		return kernels.Usagef("%s: the request is not %s: %s", call, shape, msg)
	}
	return nil
}

// scriptRun is window.fkc.run: the `fkc run` contract for scripts.
func scriptRun(reqJSON string) (any, error) {
	var req struct {
		Op      string   `json:"op"`
		Backend string   `json:"backend"`
		Kernel  string   `json:"kernel"` // PROVIDER/NAME; empty: dispatch's choice
		Flags   []string `json:"flags"`
		// Inputs: per operand, a base64 .npy file, or an input spec
		// {shape, dtype, fill} built in the page as fkc.bench's are.
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := decodeRequest("run", reqJSON, "{op, backend, kernel, flags, inputs: {name: base64 .npy or {shape, dtype, fill}}}", &req); err != nil {
		return nil, surfaceError(err)
	}
	backend, err := checkBackend(req.Backend)
	if err != nil {
		return nil, surfaceError(err)
	}
	if err := kernelOnBackend("run", req.Kernel, backend); err != nil {
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
	if call.Inputs, err = callInputs("run", req.Inputs, asBF16, nil); err != nil {
		return nil, surfaceError(err)
	}
	// The answer travels back as base64 in one JS string: refuse, before
	// anything runs, an output whose encoding would not fit (the page
	// keeps working, as the issue asks).
	if _, shape, dt, err := app.eng.Check(call); err != nil {
		return nil, surfaceError(err)
	} else if b := int64(tensor.NumElems(shape)) * int64(dt.Size()); b > maxResultBytes {
		return nil, surfaceError(kernels.Violatef(req.Op, "output %s%v needs %d bytes; fkc.run returns at most %d bytes (%d MiB) as base64 — use fkc.bench to time larger calls",
			dt, shape, b, maxResultBytes, maxResultBytes>>20))
	}
	app.mu.Lock()
	var res *engine.Result
	if req.Kernel != "" {
		res, err = app.eng.RunKernel(backend, req.Kernel, call)
	} else {
		res, err = app.eng.Run(backend, call)
	}
	app.mu.Unlock()
	if err != nil {
		return nil, surfaceError(err)
	}
	npy, err := tensor.NpyBytes(res.Out)
	if err != nil {
		return nil, surfaceError(err)
	}
	resolved := make([]any, len(res.Resolved)) // what resolving the call changed, as `fkc run` prints it
	for i, n := range res.Resolved {
		resolved[i] = n
	}
	return map[string]any{
		"kernel":   res.Kernel,
		"provider": res.Provider,
		"backend":  res.Backend,
		"resolved": resolved,
		"npy":      base64.StdEncoding.EncodeToString(npy),
	}, nil
}

// maxResultBytes bounds fkc.run's output (playground.TabMaxResultBytes).
const maxResultBytes = playground.TabMaxResultBytes

// callInputs reads a console call's inputs: per operand a base64 .npy
// file, an input spec {shape, dtype, fill}, or — where ref is not nil — a
// reference ref reads (an earlier result of fkc.chain).
func callInputs(call string, ins map[string]json.RawMessage, asBF16 bool, ref func(name string, in json.RawMessage) (*tensor.Tensor, bool, error)) (map[string]*tensor.Tensor, error) {
	out := map[string]*tensor.Tensor{}
	anyBF16 := false
	specs := map[string]benchInput{}
	for name, in := range ins {
		if ref != nil {
			t, ok, err := ref(name, in)
			if err != nil {
				return nil, err
			}
			if ok {
				out[name] = t
				continue
			}
		}
		var b64 string
		if err := json.Unmarshal(in, &b64); err != nil {
			var spec benchInput
			dec := json.NewDecoder(bytes.NewReader(in))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&spec); err != nil {
				return nil, kernels.Usagef("%s: input %s is neither a base64 .npy string nor an input spec {shape, dtype, fill}: %s", call, name, strings.TrimPrefix(err.Error(), "json: "))
			}
			specs[name] = spec
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("input %s: not base64: %v", name, err)
		}
		t, err := tensor.ReadNpyBytes(raw, asBF16)
		if err != nil {
			return nil, fmt.Errorf("input %s: %v", name, err)
		}
		anyBF16 = anyBF16 || t.DType == tensor.BF16
		out[name] = t
	}
	if len(specs) > 0 {
		built, err := buildInputs(specs)
		if err != nil {
			return nil, err
		}
		for name, t := range built {
			out[name] = t
		}
	}
	if asBF16 && !anyBF16 {
		return nil, kernels.Usagef("--dtype bf16 reads <u2 .npy inputs as bf16, but no input of this call is a <u2 file")
	}
	return out, nil
}
