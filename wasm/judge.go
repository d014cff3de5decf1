//go:build js && wasm

package main

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/judge"
	"github.com/fkc-playground/fkc/playground"
)

// The Judge page (#/judge): a sweep run in this tab on its CPU (the
// WebAssembly build of the kernels) or its WebGPU device, with a progress
// bar and a Stop button, never freezing the page; the reports shipped with
// the app; another report loaded from a file to compare with.

var judgeS struct {
	sweep   *judge.Sweep
	tab     *judge.Report // the last sweep run here
	compare *judge.Report // loaded from a file
	shown   string        // a bundled report's file name, or "tab"
	pick    string        // the row whose plot is drawn
	// The form as the last Start read it, drawn again when the page is
	// (a visit during the sweep, its end): budget 0 = the default.
	budget           int
	backend, kernels string
}

// judgeMaxBytes caps one call's operands in a tab (a native sweep goes to
// 1 GiB; a tab's wasm memory is at most 4 GiB and never shrinks).
const judgeMaxBytes = 64 << 20

func init() {
	routes = append(routes, pageRoute{"/judge", func(string, url.Values) (string, string, func(), error) {
		html, err := playground.Render("judge", judgePage())
		return "The Judge", html, nil, err
	}})
	actions["judge"] = func(uiEvent) error { return nil } // the form's fields are read on Start
	actions["judge-start"] = judgeStart
	actions["judge-stop"] = func(uiEvent) error {
		if judgeS.sweep != nil {
			judgeS.sweep.Stop()
		}
		return nil
	}
	actions["judge-pick"] = func(e uiEvent) error {
		judgeS.pick = e.Data["key"]
		return judgeRedraw()
	}
	actions["judge-show"] = func(e uiEvent) error {
		if e.Type == "change" {
			judgeS.shown, judgeS.pick = e.Form["show"], ""
			return judgeRedraw()
		}
		return nil
	}
	actions["judge-load"] = judgeLoad
	actions["judge-download"] = func(uiEvent) error {
		if judgeS.tab == nil {
			return nil
		}
		b, err := judge.Marshal(judgeS.tab)
		if err != nil {
			return err
		}
		download("fkc-judge-"+judgeS.tab.Device.Backend+".json", "application/json", b)
		return nil
	}
}

// judgeReports are what kernel pages show beside their formulas: the
// shipped reports and this tab's sweep.
func judgeReports() []*judge.Report {
	rs, err := playground.BundledSummaries()
	if err != nil {
		println("fkc:", err.Error())
	}
	if judgeS.tab != nil {
		rs = append(append([]*judge.Report(nil), rs...), judgeS.tab)
	}
	return rs
}

func judgePage() *playground.JudgePage {
	bundled := contracts.JudgeReports()
	if judgeS.shown == "" {
		judgeS.shown = "tab"
		if judgeS.tab == nil && len(bundled) > 0 {
			judgeS.shown = bundled[0]
		}
	}
	var a *judge.Report
	if judgeS.shown == "tab" {
		a = judgeS.tab
	} else if rs, err := playground.BundledReports(); err == nil {
		for i, name := range bundled {
			if name == judgeS.shown && i < len(rs) {
				a = rs[i]
			}
		}
	}
	p := playground.NewJudgePage(a, judgeS.compare, judgeS.pick)
	p.GPU, p.Bundled, p.Shown, p.HasTabRun = app.gpu(), bundled, judgeS.shown, judgeS.tab != nil
	p.Running = judgeS.sweep != nil
	if judgeS.budget > 0 {
		p.Budget, p.Backend, p.Kernels = judgeS.budget, judgeS.backend, judgeS.kernels
	}
	return p
}

func judgeRedraw() error {
	html, err := playground.Render("judge-results", judgePage())
	if err != nil {
		return err
	}
	setHTML("judge-results", html)
	return nil
}

// judgeStart runs a sweep in a goroutine that hands the event loop back
// between steps (so the page stays live and Stop is heard).
func judgeStart(uiEvent) error {
	if judgeS.sweep != nil {
		return nil
	}
	form := formOf("form.judgectl")
	b, err := engine.ParseBackend(form["backend"])
	if err != nil {
		return err
	}
	budget, err := strconv.Atoi(strings.TrimSpace(form["budget"]))
	if err != nil || budget < 2 || budget > 600 {
		setText("judge-status", "fkc: budget: want a whole number of seconds from 2 to 600")
		return nil
	}
	judgeS.budget, judgeS.backend, judgeS.kernels = budget, form["backend"], form["kernel"]
	opt := judge.Options{Backend: b, Budget: time.Duration(budget) * time.Second, MaxBytes: judgeMaxBytes}
	for _, k := range strings.FieldsFunc(form["kernel"], func(r rune) bool { return r == ',' || r == ' ' }) {
		opt.Kernels = append(opt.Kernels, k)
	}
	if b != engine.CPU {
		if !app.gpu().Available || app.dev == nil {
			setText("judge-status", "fkc: WebGPU is not available in this browser; the cpu backend works")
			return nil
		}
		b, opt.Backend, opt.Device = engine.WebGPU, engine.WebGPU, app.dev
	}
	s, err := judge.New(app.eng, opt)
	if err != nil {
		setText("judge-status", "fkc: "+err.Error())
		return nil
	}
	judgeS.sweep = s
	setButtons(true)
	go func() {
		defer recoverPanic()
		defer func() { judgeS.sweep = nil; setButtons(false) }()
		last := time.Now()
		for {
			app.mu.Lock()
			more := s.Step()
			app.mu.Unlock()
			if !more {
				break
			}
			if time.Since(last) > 50*time.Millisecond {
				showProgress(s.Progress())
				time.Sleep(time.Millisecond) // the event loop runs: input, Stop, other pages
				last = time.Now()
			}
		}
		judgeS.tab, judgeS.shown, judgeS.pick = s.Report(), "tab", ""
		p := s.Progress()
		showProgress(p)
		note := fmt.Sprintf("done: %d of %d kernels in %.1f s", p.Done, p.Units, p.Elapsed.Seconds())
		if judgeS.tab.Cancelled {
			note = fmt.Sprintf("stopped: %d of %d kernels measured", p.Done, p.Units)
		}
		if app.page.path == "/judge" {
			route("#/judge")
			setText("judge-status", note)
			byID("judge-bar").Set("value", 1)
		}
	}()
	return nil
}

func setButtons(running bool) {
	if b := byID("judge-start"); b.Truthy() {
		b.Set("disabled", running)
	}
	if b := byID("judge-stop"); b.Truthy() {
		b.Set("disabled", !running)
	}
}

func showProgress(p judge.Progress) {
	if bar := byID("judge-bar"); bar.Truthy() {
		bar.Set("value", p.Fraction)
	}
	setText("judge-status", fmt.Sprintf("%d of %d · %.0f / %.0f s · %s", p.Done, p.Units, p.Elapsed.Seconds(), p.Budget.Seconds(), p.Current))
}

// judgeLoad reads a report file to compare with the shown one.
func judgeLoad(e uiEvent) error {
	in := byID("judge-file")
	if e.Type != "change" || !in.Truthy() || in.Get("files").Length() == 0 {
		return nil
	}
	f := in.Get("files").Index(0)
	if f.Get("size").Int() > 64<<20 {
		setText("judge-status", "fkc: a report of more than 64 MiB is not one fkc judge wrote")
		return nil
	}
	go func() {
		defer recoverPanic()
		buf, err := await(f.Call("arrayBuffer"))
		var r *judge.Report
		if err == nil {
			b := make([]byte, buf.Get("byteLength").Int())
			js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(buf))
			r, err = judge.Read(bytes.NewReader(b))
		}
		if err != nil {
			setText("judge-status", "fkc: "+f.Get("name").String()+": "+err.Error())
			return
		}
		judgeS.compare = r
		judgeRedraw()
		setText("judge-status", "comparing with "+playground.ReportLabel(r))
	}()
	return nil
}
