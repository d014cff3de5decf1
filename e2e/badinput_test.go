package e2e

import (
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
	}
	for name, call := range cases {
		got := eval[string](t, ctx, `(async () => { try { await `+call+`; return "resolved"; } catch (e) { return (e instanceof Error ? "Error:" : "non-Error:") + e.message; } })()`)
		if !strings.HasPrefix(got, "Error:fkc: ") {
			t.Errorf("%s: %s rejected with %q, want an Error starting \"fkc: \"", name, call, got)
		}
	}
	// Still alive: a valid run works.
	r := fkcRun(t, ctx, "cpu", "pad", []string{"--mode", "constant", "--padding", "1:1"}, map[string]*tensor.Tensor{"x": tensorOf(t, tensor.F32, []int{2})})
	if r.Err != "" || r.Kernel != "pad" {
		t.Errorf("after the bad calls a valid run gave %+v", r)
	}
}
