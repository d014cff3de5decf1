//go:build js && wasm

package main

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/lab"
	"github.com/fkc-playground/fkc/playground"
	"github.com/fkc-playground/fkc/tensor"
)

// The kernel lab's pages (playground/lab.go, docs/lab.md): #/lab, the
// editor #/lab/PROVIDER%2fNAME (#/lab/mine/NAME for a kernel of Your
// contract), #/lab/puzzles and #/lab/puzzles/NAME. A check runs package
// lab on the tab's WebGPU device, in a goroutine (the device's maps
// complete on the JS event loop); its cases go in batches, one submission
// each (lab.Check, kernels.LabBatcher).

// labState is the lab page on screen.
type labState struct {
	k       *lab.Kernel
	eng     *engine.Engine
	puzzle  *lab.Puzzle
	key     string // localStorage key of the code
	initial string // the plain kernel or the puzzle's stub
	seq     int
}

var labPage labState

// shareCap bounds the code a share link carries, compressed and encoded:
// longer addresses are cut by some browsers, servers and chat clients.
const shareCap = 8000

func init() {
	routes = append(routes,
		pageRoute{"/lab/", labRoute},
		pageRoute{"/lab", func(string, url.Values) (string, string, func(), error) {
			mine := authorSite()
			html, err := playground.Render("lab-index", app.site().LabIndex(mine))
			return "Kernel lab", html, nil, err
		}})
	actions["lab-edit"] = labEdit
	actions["lab-check"] = func(uiEvent) error { go labCheck(); return nil }
	actions["lab-bench"] = func(uiEvent) error { go labBench(); return nil }
	actions["lab-reset"] = labReset
	actions["lab-share"] = labShare
	actions["lab-hint"] = labHint
	actions["lab-goto"] = labGoto
}

func labRoute(rest string, q url.Values) (string, string, func(), error) {
	labPage = labState{seq: labPage.seq + 1}
	fail := func(err error) (string, string, func(), error) {
		return "Kernel lab", fmt.Sprintf(`<p class="err">fkc: %s</p><a href="#/lab">← back to the kernel lab</a>`, htmlEscape(err.Error())), nil, nil
	}
	if rest == "puzzles" {
		return "Kernel puzzles", mustRender("lab-puzzles", playground.PuzzleList()), showPuzzleProgress, nil
	}
	site := app.site()
	var id string
	if name, ok := strings.CutPrefix(rest, "puzzles/"); ok {
		z, err := lab.PuzzleNamed(name)
		if err != nil {
			return fail(err)
		}
		labPage.puzzle, id = z, z.Kernels[0]
	} else if name, ok := strings.CutPrefix(rest, "mine/"); ok {
		site = authorSite()
		name, _ = url.PathUnescape(name)
		id = name
		if d := author.a.Doc; d != nil {
			id = d.Provider.Name + "/" + name
		}
	} else {
		var err error
		if id, err = url.PathUnescape(rest); err != nil {
			return fail(fmt.Errorf("the link's kernel %q is not valid percent-encoding: %v", rest, err))
		}
	}
	k, err := lab.Find(site.Eng, id)
	if err != nil {
		return fail(err)
	}
	labPage.k, labPage.eng = k, site.Eng
	var p *playground.LabPage
	if z := labPage.puzzle; z != nil {
		labPage.key, labPage.initial = "fkc-lab-puzzle:"+z.Name, z.Stub()
	} else {
		labPage.key = "fkc-lab:" + k.ID
		if labPage.initial, err = k.Template(); err != nil {
			return fail(err)
		}
	}
	code, shared := labPage.initial, false
	if s := q.Get("code"); s != "" {
		c, err := unshare(s)
		if err != nil {
			linkNote("This link's code could not be read (" + err.Error() + "); the editor shows your own.")
		} else {
			code, shared = c, true
		}
	}
	if !shared {
		if kept := lsGet(labPage.key); kept != "" {
			code = kept
		}
	}
	if z := labPage.puzzle; z != nil {
		p = playground.NewPuzzlePage(z, site.Eng, k, code)
	} else {
		p = playground.NewLabPage(site.HomeLink(), k, site.KernelHref(k.Ref.Doc.Provider.Name, k.Ref.Kernel.Name), code, shared)
	}
	html, err := playground.Render("lab", p)
	after := func() {
		if z := labPage.puzzle; z != nil {
			n, _ := strconv.Atoi(lsGet("fkc-lab-hints:" + z.Name))
			showHints(n)
		}
	}
	return p.Title, html, after, err
}

func mustRender(name string, v any) string {
	html, err := playground.Render(name, v)
	if err != nil {
		return `<p class="err">` + htmlEscape(err.Error()) + `</p>`
	}
	return html
}

// ---- local storage ----

func lsGet(key string) (v string) {
	ls, err := localStorage()
	if err != nil {
		return ""
	}
	defer func() { recover() }()
	if x := ls.Call("getItem", key); x.Type() == js.TypeString {
		return x.String()
	}
	return ""
}

// lsSet keeps a value ("" removes it); false when the browser refused.
func lsSet(key, v string) (ok bool) {
	ls, err := localStorage()
	if err != nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if v == "" {
		ls.Call("removeItem", key)
	} else {
		ls.Call("setItem", key, v)
	}
	return true
}

// showPuzzleProgress marks the puzzles list with what this browser solved.
func showPuzzleProgress() {
	for _, z := range lab.Puzzles {
		if el := doc.Call("querySelector", `[data-progress="`+z.Name+`"]`); el.Truthy() {
			switch lsGet("fkc-lab-progress:" + z.Name) {
			case "solved":
				el.Set("textContent", "✓ solved")
				el.Set("className", "pstate ok small")
			case "tried":
				el.Set("textContent", "tried")
			}
		}
	}
}

// ---- the editor ----

func labCode() string {
	if el := byID("lab-code"); el.Truthy() {
		return el.Get("value").String()
	}
	return ""
}

// labEdit keeps the code and the gutter's line numbers in step with the
// text; the compiler's marks are about the text that was compiled.
func labEdit(e uiEvent) error {
	if labPage.k == nil || e.Type != "input" {
		return nil
	}
	code := labCode()
	note := ""
	if code == labPage.initial {
		lsSet(labPage.key, "")
	} else if !lsSet(labPage.key, code) {
		note = "this browser refused to keep the code (local storage); it stays while the tab is open"
	}
	setText("lab-note", note)
	drawGutter(code, nil)
	if b := byID("lab-shared"); b.Truthy() {
		b.Call("remove") // edited: the visitor's own now
	}
	return nil
}

// drawGutter writes the gutter's line numbers, marking the lines with a
// compiler message.
func drawGutter(code string, marks map[int]string) {
	var b strings.Builder
	n := strings.Count(code, "\n") + 1
	for i := 1; i <= n; i++ {
		if m, ok := marks[i]; ok {
			fmt.Fprintf(&b, `<span class="ln err" data-line="%d" title="%s">%d</span>`+"\n", i, htmlEscape(m), i)
		} else {
			fmt.Fprintf(&b, `<span class="ln" data-line="%d">%d</span>`+"\n", i, i)
		}
	}
	setHTML("lab-gutter", b.String())
	if ta := byID("lab-code"); ta.Truthy() {
		byID("lab-gutter").Set("scrollTop", ta.Get("scrollTop"))
	}
}

func labReset(uiEvent) error {
	if labPage.k == nil {
		return nil
	}
	byID("lab-code").Set("value", labPage.initial)
	lsSet(labPage.key, "")
	drawGutter(labPage.initial, nil)
	setHTML("lab-compile", "")
	setHTML("lab-result", "")
	setText("lab-note", "back to the "+map[bool]string{true: "stub", false: "plain kernel"}[labPage.puzzle != nil])
	return nil
}

// labGoto puts the caret at a compiler message's line and column.
func labGoto(e uiEvent) error {
	ta := byID("lab-code")
	line, _ := strconv.Atoi(e.Data["line"])
	col, _ := strconv.Atoi(e.Data["col"])
	if !ta.Truthy() || line < 1 {
		return nil
	}
	code := ta.Get("value").String()
	off := 0
	for i := 1; i < line; i++ {
		j := strings.IndexByte(code[off:], '\n')
		if j < 0 {
			break
		}
		off += j + 1
	}
	off += max(0, col-1)
	off = len([]rune(code[:min(off, len(code))])) // the textarea counts UTF-16 units; WGSL is ASCII in practice
	ta.Call("focus")
	ta.Call("setSelectionRange", off, off)
	return nil
}

func labHint(uiEvent) error {
	z := labPage.puzzle
	if z == nil {
		return nil
	}
	n, _ := strconv.Atoi(lsGet("fkc-lab-hints:" + z.Name))
	n = min(n+1, len(z.Hints))
	lsSet("fkc-lab-hints:"+z.Name, strconv.Itoa(n))
	showHints(n)
	return nil
}

func showHints(n int) {
	z := labPage.puzzle
	for i := range z.Hints {
		if el := doc.Call("querySelector", `#lab-hints [data-hint="`+strconv.Itoa(i)+`"]`); el.Truthy() {
			el.Set("hidden", i >= n)
		}
	}
	if b := byID("lab-hint"); b.Truthy() {
		b.Set("disabled", n >= len(z.Hints))
		if n >= len(z.Hints) {
			b.Set("textContent", "No more hints")
		}
	}
}

// ---- share links ----

// share is code as a link's parameter: raw deflate, base64url.
func share(code string) string {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write([]byte(code))
	w.Close()
	return base64.RawURLEncoding.EncodeToString(b.Bytes())
}

// unshare reads a share link's code, refusing more than 1 MiB of text.
func unshare(s string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("not base64url: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), 1<<20+1))
	if err != nil {
		return "", fmt.Errorf("not deflate data: %v", err)
	}
	if len(out) > 1<<20 {
		return "", errors.New("more than 1 MiB of code")
	}
	return string(out), nil
}

func labShare(uiEvent) error {
	if labPage.k == nil {
		return nil
	}
	enc := share(labCode())
	if len(enc) > shareCap {
		setText("lab-note", fmt.Sprintf("Too long to share as a link: %d characters compressed, the cap is %d. Save the file instead (fkc lab check --wgsl FILE runs it natively).", len(enc), shareCap))
		return nil
	}
	path := strings.SplitN(strings.TrimPrefix(js.Global().Get("location").Get("hash").String(), "#"), "?", 2)[0]
	hash := "#" + path + "?code=" + enc
	replaceURL(hash)
	setText("lab-note", "link in the address bar")
	return nil
}

// ---- check ----

// labBusy marks the buttons while a run is under way.
func labBusy(on bool) {
	for _, id := range []string{"lab-check", "lab-bench"} {
		if b := byID(id); b.Truthy() {
			b.Set("disabled", on)
		}
	}
}

// labReady waits for WebGPU; false (with a message) when there is none.
func labReady() bool {
	<-app.gpuDone
	if why, missing := gpuMissing(); missing {
		setHTML("lab-result", `<p class="err" role="alert">The lab runs kernels on WebGPU, which this browser does not offer (`+htmlEscape(why)+`). Natively: <code>fkc lab check --wgsl FILE --kernel `+htmlEscape(labPage.k.ID)+`</code>.</p>`)
		return false
	}
	return true
}

// compileFirst compiles the code as the first case's module with the
// browser's compiler and shows its messages at the user's lines; false
// when it refused the code.
func compileFirst(code string) bool {
	var l *lab.Layout
	for _, c := range labPage.k.Derive(1, 0) {
		if x, err := lab.Plan(c.Call, app.dev.LabAdapter().ShaderF64); err == nil {
			l = x
			break
		}
	}
	if l == nil {
		return true // nothing to compile against: the check says why
	}
	m, err := lab.Build(code, l)
	view := &playground.LabCompile{}
	marks := map[int]string{}
	var ce *lab.CompileError
	if errors.As(err, &ce) {
		view.Errors = append(view.Errors, playground.LabMessage{Line: ce.Line, Col: ce.Col, Text: ce.Msg})
		marks[ce.Line] = ce.Msg
	} else if err != nil {
		setHTML("lab-compile", `<p class="err">`+htmlEscape(err.Error())+`</p>`)
		return false
	} else {
		msgs, err := app.dev.CompileInfo(m.Source)
		if err != nil {
			setHTML("lab-compile", `<p class="err">`+htmlEscape(err.Error())+`</p>`)
			return false
		}
		for _, x := range msgs {
			e := m.At(x.Line, x.Col, x.Text)
			lm := playground.LabMessage{Line: e.Line, Col: e.Col, Text: e.Msg}
			switch {
			case x.Type != "error":
				if !e.Prelude {
					view.Warnings = append(view.Warnings, lm)
				}
			case e.Prelude:
				view.Prelude = append(view.Prelude, lm)
			default:
				view.Errors = append(view.Errors, lm)
				if marks[e.Line] == "" {
					marks[e.Line] = fmt.Sprintf("%d:%d %s", e.Line, e.Col, e.Msg)
				}
			}
		}
	}
	setHTML("lab-compile", mustRender("lab-compile", view))
	drawGutter(code, marks)
	return len(view.Errors) == 0 && len(view.Prelude) == 0
}

// labCheck compiles the editor's code and runs it on the derived cases.
func labCheck() {
	defer recoverPanic()
	if labPage.k == nil {
		return
	}
	seq, code := labPage.seq, labCode()
	labBusy(true)
	defer labBusy(false)
	setHTML("lab-result", `<p class="muted">checking…</p>`)
	afterPaint()
	if !labReady() {
		return
	}
	t0 := time.Now()
	if !compileFirst(code) {
		setHTML("lab-result", "")
		return
	}
	kernels := []*lab.Kernel{labPage.k}
	opt := lab.CheckOptions{Seed: 1, Random: playground.LabRandom}
	if z := labPage.puzzle; z != nil {
		opt.Random, opt.DType = 5, z.DType
		for _, id := range z.Kernels[1:] {
			k, err := lab.Find(labPage.eng, id)
			if err != nil {
				setHTML("lab-result", `<p class="err">`+htmlEscape(err.Error())+`</p>`)
				return
			}
			kernels = append(kernels, k)
		}
	}
	rep := &lab.Report{Kernel: kernels[0]}
	for _, k := range kernels {
		r := lab.Check(app.dev, k, code, opt)
		rep.Kernel = k
		rep.Cases += r.Cases
		rep.Passed += r.Passed
		rep.Skipped += r.Skipped
		rep.Verdicts = append(rep.Verdicts, r.Verdicts...)
		if r.Failed != nil {
			rep.Failed = r.Failed
			break
		}
	}
	elapsed := time.Since(t0)
	if seq != labPage.seq {
		return // the page moved on
	}
	repro, files := "", []playground.LabFile(nil)
	if v := rep.Failed; v != nil && v.Compile == nil {
		line, err := lab.ReproLine(v, "mine.wgsl", rep.Kernel.ID, "", func(p string, t *tensor.Tensor) error {
			b, err := tensor.NpyBytes(t)
			if err == nil {
				files = append(files, playground.LabFile{Name: p, Href: dataURL(b)})
			}
			return err
		})
		if err == nil {
			repro = line
		}
	}
	res := playground.NewLabResult(rep, elapsed, repro, files)
	if z := labPage.puzzle; z != nil {
		res.Puzzle = true
		state := "tried"
		if rep.Failed == nil && rep.Passed > 0 {
			state, res.Solved = "solved", true
		}
		if lsGet("fkc-lab-progress:"+z.Name) != "solved" {
			lsSet("fkc-lab-progress:"+z.Name, state)
		}
	}
	setHTML("lab-result", mustRender("lab-result", res))
	js.Global().Get("fkc").Get("timing").Set("labCheckMs", float64(elapsed.Microseconds())/1000)
}

func dataURL(b []byte) template.URL {
	return template.URL("data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(b))
}

// ---- bench ----

func labBench() {
	defer recoverPanic()
	if labPage.k == nil {
		return
	}
	seq, code := labPage.seq, labCode()
	labBusy(true)
	defer labBusy(false)
	setHTML("lab-bench-out", `<p class="muted">timing…</p>`)
	afterPaint()
	if !labReady() || !compileFirst(code) {
		setHTML("lab-bench-out", "")
		return
	}
	unlock := app.lock()
	lines := lab.Bench(app.dev, labPage.eng, labPage.k, code, lab.BenchOptions{Elems: 1 << 18, Reps: 9, Seed: 1})
	unlock()
	if seq != labPage.seq {
		return
	}
	setHTML("lab-bench-out", mustRender("lab-bench", playground.NewLabBench(lines)))
}

// ---- the console API: fkc.lab.template, fkc.lab.check, fkc.lab.bench ----

// labKernel finds the request's kernel for the console API.
func labKernel(call, id string) (*lab.Kernel, error) {
	if id == "" {
		return nil, fmt.Errorf("lab.%s: the request names no kernel (kernel: \"PROVIDER/NAME\", e.g. %q)", call, "fuel-vulkan-kernels/pad_reflect_b4")
	}
	return lab.Find(app.eng, id)
}

// scriptLabTemplate is fkc.lab.template({kernel}): the plain kernel.
func scriptLabTemplate(reqJSON string) (any, error) {
	var req struct {
		Kernel string `json:"kernel"`
	}
	if err := decodeRequest("lab.template", reqJSON, "{kernel}", &req); err != nil {
		return nil, surfaceError(err)
	}
	k, err := labKernel("template", req.Kernel)
	if err != nil {
		return nil, surfaceError(err)
	}
	src, err := k.Template()
	return src, surfaceError(err)
}

// labDevice waits for WebGPU for the console API.
func labDevice() error {
	<-app.gpuDone
	if why, missing := gpuMissing(); missing {
		return fmt.Errorf("the lab runs on WebGPU, which this browser does not offer (%s)", why)
	}
	return nil
}

// scriptLabCheck is fkc.lab.check({kernel, wgsl, cases, seed}): fkc lab
// check in the tab.
func scriptLabCheck(reqJSON string) (any, error) {
	var req struct {
		Kernel string `json:"kernel"`
		WGSL   string `json:"wgsl"`
		Cases  *int   `json:"cases"`
		Seed   *int64 `json:"seed"`
	}
	if err := decodeRequest("lab.check", reqJSON, "{kernel, wgsl, cases, seed}", &req); err != nil {
		return nil, surfaceError(err)
	}
	k, err := labKernel("check", req.Kernel)
	if err != nil {
		return nil, surfaceError(err)
	}
	opt := lab.CheckOptions{Seed: 1, Random: playground.LabRandom}
	if req.Cases != nil {
		if *req.Cases < 0 || *req.Cases > 1000 {
			return nil, surfaceError(fmt.Errorf("lab.check: cases %d: want 0 to 1000 random cases per dtype and variant", *req.Cases))
		}
		opt.Random = *req.Cases
	}
	if req.Seed != nil {
		opt.Seed = *req.Seed
	}
	if err := labDevice(); err != nil {
		return nil, surfaceError(err)
	}
	t0 := time.Now()
	rep := lab.Check(app.dev, k, req.WGSL, opt)
	out := map[string]any{"kernel": k.ID, "cases": rep.Cases, "passed": rep.Passed, "skipped": rep.Skipped,
		"ok": rep.OK(), "ms": float64(time.Since(t0).Microseconds()) / 1000}
	if v := rep.Failed; v != nil {
		var b strings.Builder
		v.Print(&b)
		out["failed"] = map[string]any{"case": v.Case.N, "why": v.Why, "wrong": v.Wrong, "report": b.String()}
		if v.Compile == nil {
			if line, err := lab.ReproLine(v, "mine.wgsl", k.ID, "", func(string, *tensor.Tensor) error { return nil }); err == nil {
				out["repro"] = line
			}
		}
	}
	return jsonString(out)
}

// scriptLabBench is fkc.lab.bench({kernel, wgsl, elems, reps}): fkc lab
// bench in the tab.
func scriptLabBench(reqJSON string) (any, error) {
	var req struct {
		Kernel string `json:"kernel"`
		WGSL   string `json:"wgsl"`
		Elems  int    `json:"elems"`
		Reps   int    `json:"reps"`
	}
	if err := decodeRequest("lab.bench", reqJSON, "{kernel, wgsl, elems, reps}", &req); err != nil {
		return nil, surfaceError(err)
	}
	k, err := labKernel("bench", req.Kernel)
	if err != nil {
		return nil, surfaceError(err)
	}
	if req.Elems == 0 {
		req.Elems = 1 << 18
	}
	if req.Reps == 0 {
		req.Reps = 9
	}
	if req.Elems < 1 || req.Elems > tabLimits.MaxElems/4 || req.Reps < 1 || req.Reps > 100 {
		return nil, surfaceError(fmt.Errorf("lab.bench: elems %d, reps %d: want 1 to %d elements and 1 to 100 runs", req.Elems, req.Reps, tabLimits.MaxElems/4))
	}
	if err := labDevice(); err != nil {
		return nil, surfaceError(err)
	}
	unlock := app.lock()
	lines := lab.Bench(app.dev, app.eng, k, req.WGSL, lab.BenchOptions{Elems: req.Elems, Reps: req.Reps, Seed: 1})
	unlock()
	var out []map[string]any
	for _, l := range lines {
		m := map[string]any{"variant": l.Variant.String(), "dtype": l.DType.String(), "call": l.Call, "ok": l.OK(), "text": l.String(),
			"op": l.Op, "flags": l.Flags, "inputs": l.Inputs}
		if l.Err == "" {
			m["mine_ms"] = float64(l.Mine.Nanoseconds()) / 1e6
			m["builtin_ms"] = float64(l.Builtin.Nanoseconds()) / 1e6
			m["mine_gbps"], m["builtin_gbps"], m["copy_gbps"] = l.MineGBps, l.BuiltinGBps, l.CopyGBps
			m["floor_ms"], m["credible"], m["clock"], m["bytes"] = l.FloorNs/1e6, l.MineCredible, l.Clock, l.Bytes
		} else {
			m["error"] = l.Err
		}
		out = append(out, m)
	}
	return jsonString(out)
}
