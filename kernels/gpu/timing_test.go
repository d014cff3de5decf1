//go:build !js

package gpu

import (
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// LastKernelTime comes from GPU timestamps around the compute passes: on an
// adapter with timestamp-query it is positive and no longer than the
// end-to-end LastGPUTime (submit -> results mapped).
func TestLastKernelTime(t *testing.T) {
	d := device(t)
	if d.Info().TimestampTickNs == 0 {
		t.Skip("adapter has no timestamp queries")
	}
	x := tensor.New(tensor.F32, []int{64, 256})
	if _, err := d.Pad(x, kernels.Reflect, pp(0, 0, 2, 2), nil); err != nil {
		t.Fatal(err)
	}
	k, e2e := d.LastKernelTime(), d.LastGPUTime()
	t.Logf("kernel %v, end-to-end %v, tick %g ns", k, e2e, d.Info().TimestampTickNs)
	if k <= 0 || k > e2e {
		t.Fatalf("LastKernelTime %v: want 0 < kernel <= end-to-end %v", k, e2e)
	}
}

// SetKernelRepeat re-runs a call's passes back to back for timing; results
// stay exact, multi-pass kernels included (reduction levels, the gather pad
// backward's continued chains), and accumulating kernels run once.
func TestKernelRepeatKeepsResults(t *testing.T) {
	d := device(t)
	d.SetKernelRepeat(3)
	defer d.SetKernelRepeat(1)
	r := rand.New(rand.NewSource(60))
	x := randFloat(r, tensor.F32, []int{3, 5000}, 1)
	got, err := d.MaxDim(x, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cpu.MaxDim(x, 1)
	sameBits(t, "max_dim, repeated", got, want)
	g := tensor.New(tensor.F32, []int{2 * 20000})
	for i := range g.NumElems() {
		g.Set(i, float64(r.Intn(9)-4))
	}
	for _, c := range []struct {
		run  func(*tensor.Tensor, kernels.Mode, []kernels.Pad) (*tensor.Tensor, error)
		mode kernels.Mode
		pads []kernels.Pad
	}{
		{d.PadBackwardGather, kernels.Replicate, pp(19999, 19999)}, // continued over 2 passes
		{d.PadBackward, kernels.Reflect, pp(3, 3)},                 // CAS into a zeroed buffer: run once
	} {
		got, err := c.run(g, c.mode, c.pads)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := cpu.PadBackward(g, c.mode, c.pads)
		sameBits(t, "pad backward, repeated", got, want) // small integers: exact in any order
	}
}

// WarmClocks keeps the device busy for the asked time and leaves results
// alone; SetSteadyClocks warms before calls a second after the last warm.
func TestWarmClocks(t *testing.T) {
	d := device(t)
	t0 := time.Now()
	if err := d.WarmClocks(30 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el < 30*time.Millisecond {
		t.Errorf("WarmClocks(30ms) returned after %v", el)
	}
	d.SetSteadyClocks(20 * time.Millisecond)
	defer d.SetSteadyClocks(0)
	d.lastWarm = time.Time{}
	x := randFloat(rand.New(rand.NewSource(61)), tensor.F32, []int{5, 300}, 1)
	got, err := d.Pad(x, kernels.Reflect, pp(0, 0, 2, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(d.lastWarm) > time.Second {
		t.Errorf("no warm-up before the call in steady mode")
	}
	want, _ := cpu.Pad(x, kernels.Reflect, pp(0, 0, 2, 2), nil)
	sameBits(t, "pad after a warm-up", got, want)
}

// SetKernelRepeat is bounded (a million repeats of a 4x4 pad took 2m46s
// and 12.7 GB of driver memory with the device locked), and the map
// timeout is set through a method that takes the device's lock (the
// exported field it replaces was read by every call unlocked). A call
// with the largest repeat returns the right bits and a per-repeat time.
func TestDeviceKnobsBounded(t *testing.T) {
	d := device(t)
	defer d.SetKernelRepeat(1)
	for _, c := range []struct{ n, want int }{{0, 1}, {-5, 1}, {7, 7}, {maxKernelRepeat, maxKernelRepeat}, {1 << 20, maxKernelRepeat}} {
		d.SetKernelRepeat(c.n)
		if d.repeat != c.want {
			t.Errorf("SetKernelRepeat(%d): repeat %d, want %d", c.n, d.repeat, c.want)
		}
	}
	d.SetKernelRepeat(1 << 30)
	x := randFloat(rand.New(rand.NewSource(62)), tensor.F32, []int{4, 4}, 1)
	got, err := d.Pad(x, kernels.Reflect, pp(1, 1, 1, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cpu.Pad(x, kernels.Reflect, pp(1, 1, 1, 1), nil)
	sameBits(t, "pad at the largest repeat", got, want)
	d.SetKernelRepeat(1)

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			d.SetMapTimeout(time.Duration(60+i) * time.Second)
		}
	}()
	for range 5 {
		if _, err := d.Pad(x, kernels.Reflect, pp(1, 1, 1, 1), nil); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	d.SetMapTimeout(0)
	if d.mapTimeout != defaultMapTimeout {
		t.Errorf("SetMapTimeout(0): %v, want the default %v", d.mapTimeout, defaultMapTimeout)
	}
}

// Close cuts a running warm-up short (it waited out a 5 s WarmClocks).
func TestCloseStopsWarmUp(t *testing.T) {
	device(t) // skips without an adapter
	d, err := OpenNative()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.WarmClocks(20 * time.Second) }()
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	d.Close()
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("Close took %v during a 20 s warm-up", el)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("WarmClocks still running 10 s after Close")
	}
}

// Opening and closing devices over and over keeps native memory bounded:
// the timestamp tick is calibrated once per adapter (calibrating each
// device leaked about 3.5 MiB a cycle on lavapipe: 79 -> 221 MiB of RSS
// over 40 cycles), and a later device keeps the first one's tick.
func TestReopenKeepsMemoryBounded(t *testing.T) {
	first := device(t)
	rss := func() int {
		b, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			t.Skip("no /proc/self/statm")
		}
		f := strings.Fields(string(b))
		p, _ := strconv.Atoi(f[1])
		return p * os.Getpagesize() >> 20
	}
	cycle := func() {
		d, err := OpenNative()
		if err != nil {
			t.Fatal(err)
		}
		if d.Info().TimestampTickNs != first.Info().TimestampTickNs {
			t.Errorf("tick %v, the first device's %v", d.Info().TimestampTickNs, first.Info().TimestampTickNs)
		}
		d.Close()
	}
	for range 10 { // warm: allocator pools, the driver's first-use state
		cycle()
	}
	runtime.GC()
	before := rss()
	for range 30 {
		cycle()
	}
	runtime.GC()
	if grew := rss() - before; grew > 40 {
		t.Errorf("30 open/close cycles grew the resident set by %d MiB", grew)
	}
}
