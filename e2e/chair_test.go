package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// setField sets a Try-it control's value and sends the events a user's
// edit sends (input, then change).
func setField(t *testing.T, ctx context.Context, name, value string) {
	t.Helper()
	eval[bool](t, ctx, fmt.Sprintf(`(() => { const el = document.querySelector('form.tryform [name=%q]'); if (!el) throw new Error("no field %s");
		el.value = %q; el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`, name, name, value))
}

func outShape(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `(document.querySelector("#visual .gridbox.out .ghead .muted") || {innerText: ""}).innerText`)
}

// A changed Try-it field marks the shown result stale (dimmed, with a
// status line) until the next run: after 1:1,3:3 the page still showed the
// F32[8, 9] of 2:2,2:2, and "Constant pad" after a switch to replicate.
func TestStaleResult(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	if s := outShape(t, ctx); s != "F32[8, 9]" {
		t.Fatalf("the first run's output is %q, want F32[8, 9]", s)
	}
	stale := func() (bool, string) {
		return eval[bool](t, ctx, `document.getElementById("results").classList.contains("stale") && document.getElementById("visual").classList.contains("stale") && !document.getElementById("stale").hidden`),
			eval[string](t, ctx, `(document.getElementById("stale") || {innerText: ""}).innerText`)
	}
	if s, _ := stale(); s {
		t.Fatal("a fresh run is marked stale")
	}
	setField(t, ctx, "padding", "1:1,3:3")
	s, note := stale()
	if !s || !strings.Contains(note, "Stale") || !strings.Contains(note, "press Run") {
		t.Errorf("after a padding change: stale %v, note %q", s, note)
	}
	if live := eval[string](t, ctx, `document.getElementById("stale").getAttribute("aria-live")`); live != "polite" {
		t.Errorf("the stale note's aria-live is %q", live)
	}
	screenshot(t, ctx, "stale-result")
	// Back to what ran: current again; the mode changed: stale again.
	setField(t, ctx, "padding", "2:2,2:2")
	if s, _ := stale(); s {
		t.Error("the form changed back to what ran, and the result is still marked stale")
	}
	setField(t, ctx, "mode", "replicate")
	if s, _ := stale(); !s {
		t.Error("after a mode change the result is not marked stale")
	}
	setField(t, ctx, "padding", "1:1,3:3")
	eval[bool](t, ctx, `(document.getElementById("run-cpu").click(), true)`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .ghead") && document.querySelector("#visual .gridbox.out .ghead").innerText.includes("[6, 11]")`)
	if s, _ := stale(); s {
		t.Error("a new run is still marked stale")
	}
	if ex := eval[string](t, ctx, `document.querySelector("#visual .explain").innerText`); strings.Contains(ex, "onstant") {
		t.Errorf("after running replicate the explanation says %q", ex)
	}
}
