//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
	"time"

	"github.com/fkc-playground/fkc/kernels/gpu"
)

// openGPU asks the browser for a WebGPU device and, if it gets one, links
// the WGSL kernels. Without WebGPU the page shows a banner and the CPU path
// works as before.
func openGPU() {
	set := func(ok bool, reason string) {
		app.gpuMu.Lock()
		app.gpuS.Done, app.gpuS.Available, app.gpuS.Reason = true, ok, reason
		app.gpuMu.Unlock()
		showGPU()
	}
	if nav := js.Global().Get("navigator"); nav.Get("gpu").IsUndefined() {
		set(false, "this browser has no navigator.gpu (WebGPU is disabled or unsupported)")
		return
	}
	type opened struct {
		dev *gpu.Device
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- opened{nil, fmt.Errorf("panic while opening the device: %v", r)}
			}
		}()
		d, err := gpu.OpenBrowser()
		ch <- opened{d, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			set(false, o.err.Error())
			return
		}
		app.mu.Lock()
		app.eng.Attach(o.dev)
		app.dev = o.dev
		app.mu.Unlock()
		set(true, "")
	case <-time.After(15 * time.Second):
		set(false, "the WebGPU adapter did not answer within 15 s")
	}
}

// showGPU tells the page what WebGPU can do now: the header's pill, a
// banner when it is missing, the catalog's runs-here column and a kernel
// page's GPU buttons.
func showGPU() {
	g := app.gpu()
	pill := byID("gpu-pill")
	if pill.Truthy() {
		text, cls := "WebGPU: not available", "pill warn"
		if g.Available {
			text, cls = "WebGPU: available", "pill ok"
		}
		pill.Set("textContent", text)
		pill.Set("className", cls)
		pill.Set("title", g.Reason)
	}
	if !g.Available && !byID("no-webgpu").Truthy() {
		b := doc.Call("createElement", "div")
		b.Set("id", "no-webgpu")
		b.Set("className", "banner warn")
		b.Call("setAttribute", "role", "alert")
		b.Set("textContent", "WebGPU is not available in this browser ("+g.Reason+"). Everything else works: the CPU kernels run here too. "+
			"For the GPU path use a WebGPU browser (Chrome/Edge ≥ 113; on Linux start Chromium with --enable-unsafe-webgpu).")
		byID("banners").Call("append", b)
	}
	switch {
	case app.page.path == "/" || app.page.path == "":
		event(`{"type":"input","action":"filter","form":` + mustJSON(formOf("form.filters")) + `}`)
		setText("runs-gpu-state", g.Word())
	case !g.Available:
		// Drawn before WebGPU answered, these said it was being checked.
		if b := byID("run-gpu"); b.Truthy() {
			b.Set("title", "WebGPU is not available in this browser")
		}
		if o := doc.Call("querySelector", `select[name="backend"] option[value="webgpu"][disabled]`); o.Truthy() {
			o.Set("textContent", "webgpu (not available)")
		}
	case g.Available:
		for _, id := range []string{"run-gpu", "run-both"} {
			if b := byID(id); b.Truthy() {
				b.Set("disabled", false)
				b.Call("removeAttribute", "title")
			}
		}
		// The Judge's backend picker, drawn before WebGPU answered (it
		// stayed "webgpu (not available)" on a page opened at #/judge).
		if o := doc.Call("querySelector", `select[name="backend"] option[value="webgpu"][disabled]`); o.Truthy() {
			o.Set("disabled", false)
			o.Set("textContent", "webgpu")
		}
	}
}

func mustJSON(v any) string {
	s, _ := jsonString(v)
	return s
}
