//go:build !js

package gpu

import (
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// A readback that times out abandons the device: the call and every later
// call return errors, Close does not release it, and the late map callback
// never runs (it would crash the process through webgpu v0.23.0's cgo
// handle). stallForTest makes the device look hung (readBack stops polling).
func TestReadbackTimeoutAbandonsDevice(t *testing.T) {
	device(t) // skips without an adapter
	d, err := OpenNative()
	if err != nil {
		t.Fatal(err)
	}
	d.SetMapTimeout(50 * time.Millisecond)
	d.stallForTest = true
	x := tensor.New(tensor.F32, []int{64, 1024})
	pads := []kernels.Pad{{Before: 1, After: 1}, {Before: 3, After: 3}}
	_, err = d.Pad(x, kernels.Reflect, pads, nil)
	if err == nil || !strings.Contains(err.Error(), "results not ready") {
		t.Fatalf("pad on a device that never answers: %v", err)
	}
	d.SetMapTimeout(time.Minute)
	d.stallForTest = false
	if _, err := d.Pad(x, kernels.Reflect, pads, nil); err == nil || !strings.Contains(err.Error(), "abandoned after a readback timeout") {
		t.Errorf("the next call: %v", err)
	}
	d.Close()
	// The shared device still works (its own queue is polled, not this one's).
	if _, err := device(t).Pad(x, kernels.Reflect, pads, nil); err != nil {
		t.Errorf("another device after the abandoned one: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
}

// After Close a call builds nothing on the released device (no pipeline
// is made: it would go through released wgpu objects) and returns "device
// closed"; a second Close does nothing.
func TestCloseIsFinal(t *testing.T) {
	device(t) // skips without a Vulkan adapter
	d, err := OpenNative()
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.F32, []int{4, 8})
	pads := []kernels.Pad{{Before: 1, After: 1}, {Before: 2, After: 2}}
	if _, err := d.Pad(x, kernels.Reflect, pads, nil); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d.Close()
	for _, call := range []func() error{
		func() error { _, err := d.Pad(x, kernels.Replicate, pads, nil); return err },
		func() error { _, err := d.SumDim(x, 1); return err },
		func() error { _, err := d.PadBackwardGather(x, kernels.Replicate, pads); return err },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "device closed") {
			t.Errorf("a call after Close: %v, want \"device closed\"", err)
		}
	}
	if len(d.pipes) != 0 {
		t.Errorf("%d pipelines were built after Close", len(d.pipes))
	}
}
