//go:build js && wasm

package main

import (
	"encoding/json"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/verify"
)

// scriptVerify is window.fkc.verify: `fkc verify` in the tab — every
// binding of a backend on random valid calls against the CPU oracle. On
// webgpu it also compiles every pipeline those calls reach with the
// browser's own WGSL compiler, whose checks (uniformity among them) are
// stricter than wgpu-native's.
func scriptVerify(reqJSON string) (any, error) {
	var req struct {
		Backend string `json:"backend"`
		Cases   int    `json:"cases"`
		Seed    int64  `json:"seed"`
	}
	if reqJSON != "" {
		if err := json.Unmarshal([]byte(reqJSON), &req); err != nil {
			return nil, surfaceError(kernels.Usagef("verify: the request is not {backend, cases, seed}: %v", err))
		}
	}
	if req.Cases == 0 {
		req.Cases = 3
	}
	if req.Seed == 0 {
		req.Seed = 1 // fkc verify's default
	}
	if req.Cases < 1 || req.Cases > 100 {
		return nil, surfaceError(kernels.Usagef("verify: cases %d: want 1 to 100", req.Cases))
	}
	backend, err := checkBackend(req.Backend)
	if err != nil {
		return nil, surfaceError(err)
	}
	var out strings.Builder
	app.mu.Lock()
	rep := verify.Run(app.eng, backend, req.Seed, req.Cases, &out)
	app.mu.Unlock()
	return jsonString(map[string]any{
		"passed":  rep.Passed,
		"failed":  rep.Failed,
		"skipped": rep.Skipped,
		"lines":   strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"),
	})
}
