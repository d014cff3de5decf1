package lab

import (
	"strconv"
	"strings"
	"testing"
)

// Every loop body gets the budget tick, wherever the loop is and however
// it is written; nothing in comments or names that merely contain a
// keyword does; positions stay the user's.
func TestAddTicks(t *testing.T) {
	src := `// for while loop in a comment
/* a block /* nested loop { */ for { */
fn f(n: u32) -> u32 {
    var for_each = 0u; var loops = 1u;
    for (var i = 0u; i < n; i = i + 1u) { for_each += i; }
    while (loops < n) { loops *= 2u; }
    while loops < (n + 1u) { loops += 1u; }
    loop {
        if (loops > 9u) { break; }
        continuing { loops += 1u; }
    }
    return for_each + loops;
}
`
	out, ticks, err := addTicks(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(ticks) != 4 || strings.Count(out, tick) != 4 {
		t.Fatalf("%d ticks (%d in the text), want 4:\n%s", len(ticks), strings.Count(out, tick), out)
	}
	if strings.Count(out, "\n") != strings.Count(src, "\n") {
		t.Error("the rewrite changed the line count")
	}
	lines := strings.Split(src, "\n")
	var want []insertion // after the first '{' of lines 5 to 8 (1-based columns)
	for l := 5; l <= 8; l++ {
		want = append(want, insertion{l, strings.Index(lines[l-1], "{") + 2, len(tick)})
	}
	for i, w := range want {
		if ticks[i] != w {
			t.Errorf("tick %d at %+v, want %+v", i, ticks[i], w)
		}
	}
	if strings.Contains(strings.Split(out, "\n")[1], tick) {
		t.Error("a tick inside a block comment")
	}
	// A compile error after a tick on its line keeps the user's column.
	m := &Module{userLines: 13, ticks: ticks}
	e := m.CompileErr("Shader 'x' parsing error: bad\n  ┌─ wgsl:5:" + strconv.Itoa(50+len(tick)) + "\n")
	if e.Line != 5 || e.Col != 50 || e.Msg != "bad" {
		t.Errorf("compile error at %d:%d %q, want 5:50 \"bad\"", e.Line, e.Col, e.Msg)
	}
	if e := m.CompileErr("┌─ wgsl:40:1\n"); !e.Prelude {
		t.Errorf("an error past the user's lines is not the prelude's: %+v", e)
	}
	for _, bad := range []string{"fn f() { loop }", "fn f() { for (;;); }", "/* open"} {
		if _, _, err := addTicks(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A loop that holds a barrier, or that a barrier follows in the same
// function, takes the uniform tick; other loops the per-invocation one.
func TestUniformTicks(t *testing.T) {
	src := `fn f(lid: u32) {
    for (var s = 32u; s > 0u; s = s / 2u) { if (lid < s) { } workgroupBarrier(); }
}
fn g(n: u32) -> u32 {
    var a = 0u;
    for (var i = 0u; i < n; i = i + 1u) { a = a + i; } // workgroupBarrier() in a comment
    return a;
}
fn h() {
    loop { break; }
    storageBarrier();
}
`
	out, ticks, err := addTicks(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(ticks) != 3 {
		t.Fatalf("%d ticks, want 3", len(ticks))
	}
	if got := strings.Count(out, uniformTick); got != 2 {
		t.Errorf("%d uniform ticks, want 2 (f's barrier loop, h's loop before a barrier):\n%s", got, out)
	}
	if got := strings.Count(out, tick); got != 1 {
		t.Errorf("%d plain ticks, want 1 (g's loop):\n%s", got, out)
	}
}
