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

// The catalog's search answers to the words other libraries use for the
// pad modes and offers Learn padding; every pad kernel page links to it.
// "reflect padding" found 0 of 75.
func TestFindLearnPadding(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	for _, q := range []string{"reflect padding", "mirror", "edge", "numpy", "torch", "wrap"} {
		eval[bool](t, ctx, fmt.Sprintf(`(() => { const i = document.querySelector('form.filters input[name="q"]'); i.value = %q; i.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`, q))
		waitFor(t, ctx, fmt.Sprintf(`new URLSearchParams(location.hash.split("?")[1] || "").get("q") === %q`, q))
		n := eval[int](t, ctx, `document.querySelectorAll("#catalog tr.krow").length`)
		learn := eval[bool](t, ctx, `!!document.querySelector('#catalog #suggest-learn a[href="#/learn/padding"]')`)
		if (n == 0 && q != "wrap") || !learn {
			t.Errorf("search %q: %d kernels, Learn padding offered: %v", q, n, learn)
		}
		if q == "reflect padding" {
			screenshot(t, ctx, "search-reflect-padding")
		}
	}
	for _, id := range []string{"fuel-vulkan-kernels/pad_reflect_b4", "fuel-cpu-backend/pad", "fuel-cpu-backend/pad_backward_f32"} {
		open(t, ctx, "#/k/"+escape(id))
		waitFor(t, ctx, `document.querySelector("#main h1")`)
		if !eval[bool](t, ctx, `!!document.querySelector('.khead a[href="#/learn/padding"]')`) {
			t.Errorf("%s: no link to Learn padding", id)
		}
	}
}

// Keys: Enter in a Try-it field runs it, "/" focuses the catalog's search
// from any page, "?" lists the keys.
func TestKeys(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/k/"+escape("fuel-cpu-backend/pad"))
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .cell")`)
	setField(t, ctx, "padding", "1:1,3:3")
	eval[bool](t, ctx, `document.querySelector('form.tryform [name="padding"]').dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true, cancelable: true}))`)
	waitFor(t, ctx, `document.querySelector("#visual .gridbox.out .ghead") && document.querySelector("#visual .gridbox.out .ghead").innerText.includes("[6, 11]")`)
	key := func(k string) {
		eval[bool](t, ctx, fmt.Sprintf(`(document.activeElement && document.activeElement.blur && document.activeElement.blur(), document.body.dispatchEvent(new KeyboardEvent("keydown", {key: %q, bubbles: true, cancelable: true})), true)`, k))
	}
	key("?")
	if !eval[bool](t, ctx, `document.getElementById("keys").open`) {
		t.Fatal(`"?" did not open the list of keys`)
	}
	keys := eval[string](t, ctx, `document.getElementById("keys").innerText`)
	for _, k := range []string{"/", "Enter", "?"} {
		if !strings.Contains(keys, k) {
			t.Errorf("the list of keys does not name %q: %q", k, keys)
		}
	}
	screenshot(t, ctx, "keys")
	eval[bool](t, ctx, `(document.getElementById("keys").close(), true)`)
	key("/")
	waitFor(t, ctx, `document.activeElement && document.activeElement.name === "q" && document.activeElement.closest("form.filters") !== null`)
}
