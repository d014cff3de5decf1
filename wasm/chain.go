//go:build js && wasm

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// maxChainCalls bounds one fkc.chain request.
const maxChainCalls = 64

// scriptChain is window.fkc.chain: calls recorded into one WebGPU
// submission (engine.Chain), each input a .npy, an input spec or an
// earlier call's result, which stays on the GPU; every result is read
// back after the submission.
func scriptChain(reqJSON string) (any, error) {
	type chainCall struct {
		Op     string                     `json:"op"`
		Flags  []string                   `json:"flags"`
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	var req struct {
		Backend string      `json:"backend"`
		Calls   []chainCall `json:"calls"`
	}
	const shape = "{backend, calls: [{op, flags, inputs: {name: base64 .npy, {shape, dtype, fill} or {result: K}}}]}"
	if err := decodeRequest("chain", reqJSON, shape, &req); err != nil {
		return nil, surfaceError(err)
	}
	if req.Backend == "" {
		req.Backend = "webgpu"
	}
	backend, err := checkBackend(req.Backend)
	if err != nil {
		return nil, surfaceError(err)
	}
	if backend == engine.CPU {
		return nil, surfaceError(kernels.Usagef("chain: a chain records calls on the GPU: use backend webgpu (CPU calls run one by one with fkc.run)"))
	}
	if len(req.Calls) == 0 || len(req.Calls) > maxChainCalls {
		return nil, surfaceError(kernels.Usagef("chain: %d calls: a chain takes 1 to %d", len(req.Calls), maxChainCalls))
	}
	calls := make([]*kernels.Call, len(req.Calls))
	results := make([]*engine.Result, len(req.Calls))
	// placeholders[k] stands for call k's result until the chain records:
	// a host tensor of its dtype and shape, which the checks read.
	placeholders := make([]*tensor.Tensor, len(req.Calls))
	var total int64
	for i, rc := range req.Calls {
		where := fmt.Sprintf("chain: calls[%d] (%s)", i, rc.Op)
		flags, asBF16, err := ops.SplitDType(rc.Flags)
		if err != nil {
			return nil, surfaceError(fmt.Errorf("%s: %w", where, err))
		}
		c, err := ops.Parse(rc.Op, flags)
		if err != nil {
			return nil, surfaceError(fmt.Errorf("%s: %w", where, err))
		}
		// {result: K} names call K's result, bound when the chain records.
		ref := func(name string, in json.RawMessage) (*tensor.Tensor, bool, error) {
			var r struct {
				Result *int `json:"result"`
			}
			dec := json.NewDecoder(bytes.NewReader(in))
			dec.DisallowUnknownFields()
			if dec.Decode(&r) != nil || r.Result == nil {
				return nil, false, nil // not a reference: a .npy or an input spec
			}
			k := *r.Result
			if k < 0 || k >= i {
				return nil, false, kernels.Usagef("%s: input %s: {result: %d} must name an earlier call (0 to %d)", where, name, k, i-1)
			}
			return placeholders[k], true, nil
		}
		if c.Inputs, err = callInputs(where, rc.Inputs, asBF16, ref); err != nil {
			return nil, surfaceError(err)
		}
		_, outShape, dt, err := app.eng.Check(c)
		if err != nil {
			return nil, surfaceError(fmt.Errorf("%s: %w", where, err))
		}
		total += int64(tensor.NumElems(outShape)) * int64(dt.Size())
		if total > maxResultBytes {
			return nil, surfaceError(kernels.Usagef("chain: the results need %d bytes by calls[%d]; fkc.chain returns at most %d bytes (%d MiB) as base64", total, i, maxResultBytes, maxResultBytes>>20))
		}
		placeholders[i] = tensor.Empty(dt, outShape)
		calls[i] = c
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	t0 := time.Now()
	ch, err := app.eng.Chain(backend)
	if err != nil {
		return nil, surfaceError(err)
	}
	release := func() {
		for _, r := range results {
			if r != nil {
				r.Out.Release()
			}
		}
	}
	for i, c := range calls {
		for name, t := range c.Inputs {
			for k := range i {
				if t == placeholders[k] {
					c.Inputs[name] = results[k].Out
				}
			}
		}
		res, err := ch.Run(c)
		if err != nil {
			ch.Discard()
			release()
			return nil, surfaceError(fmt.Errorf("chain: calls[%d] (%s): %w", i, c.Op, err))
		}
		results[i] = res
	}
	if err := ch.Submit(); err != nil {
		release()
		return nil, surfaceError(err)
	}
	ms := float64(time.Since(t0).Microseconds()) / 1000
	out := make([]any, len(results))
	for i, r := range results {
		h, err := r.Out.Host()
		if err != nil {
			release()
			return nil, surfaceError(fmt.Errorf("chain: calls[%d]: read back: %w", i, err))
		}
		npy, err := tensor.NpyBytes(h)
		if err != nil {
			release()
			return nil, surfaceError(err)
		}
		out[i] = map[string]any{"kernel": r.Kernel, "provider": r.Provider, "npy": base64.StdEncoding.EncodeToString(npy)}
	}
	release()
	return map[string]any{"results": out, "ms": ms}, nil
}
