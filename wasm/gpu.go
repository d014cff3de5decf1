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
		gpuState.Lock()
		gpuState.Done, gpuState.Available, gpuState.Reason = true, ok, reason
		gpuState.Unlock()
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
		mu.Lock()
		eng.Attach(o.dev)
		mu.Unlock()
		set(true, "")
	case <-time.After(15 * time.Second):
		set(false, "the WebGPU adapter did not answer within 15 s")
	}
}
