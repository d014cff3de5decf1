//go:build js && wasm

package main

import (
	"strings"
	"syscall/js"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/verify"
)

// scriptVerify is window.fkc.verify: `fkc verify` in the tab — every
// binding of a backend on random valid calls against the CPU oracle. On
// webgpu it also compiles every pipeline those calls reach with the
// browser's own WGSL compiler, whose checks (uniformity among them) are
// stricter than wgpu-native's. progress, when a function, is called after
// each binding with {done, total, line}.
func scriptVerify(reqJSON string, progress js.Value) (any, error) {
	// Absent fields take the defaults (cases 3, seed 1 as fkc verify's);
	// a seed of 0 is a seed like any other, as on the command line.
	var req struct {
		Backend string `json:"backend"`
		Cases   *int   `json:"cases"`
		Seed    *int64 `json:"seed"`
	}
	if reqJSON != "" {
		if err := decodeRequest("verify", reqJSON, "{backend, cases, seed}", &req); err != nil {
			return nil, surfaceError(err)
		}
	}
	cases, seed := 3, int64(1)
	if req.Cases != nil {
		cases = *req.Cases
	}
	if req.Seed != nil {
		seed = *req.Seed
	}
	if cases < 1 || cases > 100 {
		return nil, surfaceError(kernels.Usagef("verify: cases %d: want 1 to 100", cases))
	}
	backend, err := checkBackend(req.Backend)
	if err != nil {
		return nil, surfaceError(err)
	}
	var out strings.Builder
	app.mu.Lock()
	var report func(done, total int, line string)
	if progress.Type() == js.TypeFunction {
		report = func(done, total int, line string) {
			progress.Invoke(map[string]any{"done": done, "total": total, "line": line})
		}
	}
	rep := verify.RunProgress(app.eng, backend, seed, cases, &out, report)
	app.mu.Unlock()
	return jsonString(map[string]any{
		"passed":  rep.Passed,
		"failed":  rep.Failed,
		"skipped": rep.Skipped,
		"lines":   strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"),
	})
}
