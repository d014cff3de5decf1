package e2e

import (
	"strings"
	"testing"
)

// fkc.verify on webgpu walks every GPU binding on random valid calls in the
// tab, so every pipeline those calls reach is compiled by the browser's own
// WGSL compiler and checked against the CPU oracle. wgpu-native does not run
// WGSL's uniformity analysis: a reduce shader that passed every native test
// was refused by Chromium ("workgroupBarrier must only be called from
// uniform control flow"), and only the few Try-it defaults showed it.
func TestVerifyWebGPU(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	needGPU(t, ctx)
	type reply struct {
		Passed, Failed, Skipped int
		Lines                   []string
	}
	r := eval[reply](t, ctx, `fkc.verify({backend: "webgpu", cases: 1})`)
	for _, l := range r.Lines {
		// A failure's message may run over several lines: show them all.
		if !strings.HasPrefix(l, "ok") && !strings.HasPrefix(l, "SKIP") {
			t.Error(l)
		}
		// Without shader-f64 the F64 bindings say so; nothing else may skip.
		if strings.HasPrefix(l, "SKIP") && !strings.Contains(l, "F64") {
			t.Errorf("skipped: %s", l)
		}
	}
	// As many bindings as `fkc verify --backend vulkan` walks, less the F64 ones.
	if r.Failed != 0 || r.Passed < 100 {
		t.Errorf("fkc.verify webgpu: %d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped)
	}
	t.Logf("fkc.verify webgpu, 1 case each: %d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped)

	c := eval[reply](t, ctx, `fkc.verify({backend: "cpu", cases: 1, seed: 7})`)
	if c.Failed != 0 || c.Skipped != 0 || c.Passed < 100 {
		t.Errorf("fkc.verify cpu: %d passed, %d failed, %d skipped: %q", c.Passed, c.Failed, c.Skipped, c.Lines)
	}
	for _, bad := range []string{`fkc.verify({backend: "cpu", cases: 0.5})`, `fkc.verify({backend: "cpu", cases: 101})`, `fkc.verify({backend: "tpu"})`, `fkc.verify("x")`} {
		got := eval[string](t, ctx, `(async () => { try { await `+bad+`; return "resolved"; } catch (e) { return e.message; } })()`)
		if !strings.HasPrefix(got, "fkc: ") {
			t.Errorf("%s: %q, want an fkc: error", bad, got)
		}
	}
}
