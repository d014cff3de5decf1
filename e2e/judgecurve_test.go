package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// plotTextOutside lists the plot's texts whose box is not inside its
// SVG's drawing area (the last x tick, "10 GB", ran 1 px past it).
const plotTextOutside = `[...document.querySelectorAll(".plotbox svg")].flatMap(svg => {
	const vb = svg.viewBox.baseVal;
	return [...svg.querySelectorAll("text")].filter(t => { const b = t.getBBox();
		return b.x < vb.x || b.y < vb.y || b.x + b.width > vb.x + vb.width || b.y + b.height > vb.y + vb.height; })
		.map(t => t.textContent + " " + JSON.stringify(t.getBBox()));
})`

// The Judge's copy ceiling is a curve: a sweep in this tab compares each
// size with a copy of its own bytes, measured in the same run, and a point
// faster than its copy is marked in place and kept out of the fit; no
// other point is above its copy. Every plot's labels lie inside the plot.
// A sweep on WebGPU names its adapter from what the browser says of it.
func TestJudgeCopyCurve(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "#/judge")
	waitFor(t, ctx, `document.querySelector(".plotbox svg text")`)
	if out := eval[[]string](t, ctx, plotTextOutside); len(out) > 0 {
		t.Errorf("the bundled plot's texts outside it: %q", out)
	}
	run := func(backend, kernels, budget string) {
		t.Helper()
		eval[bool](t, ctx, `(() => { const f = document.querySelector("form.judgectl");
			f.elements.backend.value = "`+backend+`"; f.elements.budget.value = "`+budget+`"; f.elements.kernel.value = "`+kernels+`";
			document.getElementById("judge-status").textContent = ""; document.getElementById("judge-start").click(); return true; })()`)
		waitFor(t, ctx, `document.getElementById("judge-stop").disabled === false`)
		waitFor(t, ctx, `/^(done|stopped)/.test(document.getElementById("judge-status").textContent)`)
		waitFor(t, ctx, `document.querySelector(".plotbox svg circle")`)
	}
	run("cpu", "fuel-cpu-backend/pad", "4")
	type pt struct {
		Cls, Title string
	}
	pts := eval[[]pt](t, ctx, `[...document.querySelectorAll(".plotbox svg circle")].map(c => ({cls: c.getAttribute("class"), title: c.querySelector("title").textContent}))`)
	above := 0
	for _, p := range pts {
		i := strings.Index(p.Title, "% of a copy of its bytes")
		if i < 0 {
			t.Errorf("point %q says nothing of its copy", p.Title)
			continue
		}
		j := strings.LastIndex(p.Title[:i], " ")
		share, err := strconv.ParseFloat(p.Title[j+1:i], 64)
		if err != nil {
			t.Errorf("point %q: %v", p.Title, err)
			continue
		}
		isAbove := strings.Contains(p.Cls, "above")
		if isAbove {
			above++
		}
		if isAbove != (share > 100) {
			t.Errorf("point %q (class %q): above its copy and marked so must agree", p.Title, p.Cls)
		}
	}
	flagText := eval[int](t, ctx, `document.querySelectorAll(".plotbox svg text.flag").length`)
	if (above > 0) != (flagText == 1) {
		t.Errorf("%d points above their copy, %d flag labels", above, flagText)
	}
	if !eval[bool](t, ctx, `!!document.querySelector(".plotbox svg polyline.ceiling")`) {
		t.Error("no copy curve drawn")
	}
	if out := eval[[]string](t, ctx, plotTextOutside); len(out) > 0 {
		t.Errorf("the tab sweep's plot texts outside it: %q", out)
	}
	t.Logf("cpu sweep: %d points, %d above their copy; %s", len(pts), above, eval[string](t, ctx, `document.querySelector(".plotbox p.small").textContent`))
	screenshot(t, ctx, "judge-curve")

	waitFor(t, ctx, `fkc.gpu().done`)
	needGPU(t, ctx)
	info := eval[string](t, ctx, `navigator.gpu.requestAdapter().then(a => { const i = a.info || {}; return [i.vendor, i.architecture, i.device, i.description].join("|"); })`)
	run("webgpu", "fuel-vulkan-kernels/pad_const_b4", "3")
	label := eval[string](t, ctx, `document.querySelector("#judge-results h2").textContent`)
	var want []string
	parts := strings.Split(info, "|")
	if parts[3] != "" {
		want = []string{parts[3]}
	} else {
		for _, p := range parts[:3] {
			if p != "" {
				want = append(want, p)
			}
		}
	}
	name := strings.Join(want, " ")
	if name == "" {
		name = "unnamed adapter"
	}
	if !strings.Contains(label, name+" (WebGPU)") || strings.Contains(label, ", )") {
		t.Errorf("the WebGPU report is labelled %q; the adapter says %q (want %q)", label, info, name)
	}
	if out := eval[[]string](t, ctx, plotTextOutside); len(out) > 0 {
		t.Errorf("the WebGPU plot's texts outside it: %q", out)
	}
	t.Logf("webgpu report: %q", label)
}
