package gpu

import (
	"fmt"
	"slices"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// What the Judge (package judge) asks of a device beyond its kernels: the
// memory ceiling to compare them with, the largest buffer it may size a
// sweep to, and the driver to name in its report.

// CopyTime times submissions of back-to-back compute copies (copy.wgsl:
// 16-byte loads and stores, one dispatch a copy) of a bytes-long storage
// buffer into another, alternating direction so that no copy is redundant:
// for each count, the wall time from submit to the queue's work done of one
// submission of that many copies. Both buffers are made once and first
// copied untimed, so the driver's initialisation of new buffers is no part
// of any time. Two counts give the time of one copy without a submission's
// fixed latency: the device's copy ceiling.
//
// A compute copy, not CopyBufferToBuffer: the kernels it is the ceiling
// for are compute dispatches, and a driver may run buffer copies on a
// narrower engine (the H200's Vulkan driver copies buffers at a quarter of
// its pad kernels' rate; docs/perf/gpu-device.md).
func (d *Device) CopyTime(bytes uint64, copies ...int) ([]time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.lostErr(); err != nil {
		return nil, err
	}
	if bytes == 0 || len(copies) == 0 || slices.Min(copies) < 1 {
		return nil, fmt.Errorf("gpu: copy: %d bytes, copies %v: want bytes and every count ≥ 1", bytes, copies)
	}
	bytes, p, err := d.copySetup(bytes)
	if err != nil {
		return nil, err
	}
	var bufs [2]*wgpu.Buffer
	var groups [2]*wgpu.BindGroup
	defer func() {
		for _, g := range groups {
			if g != nil {
				g.Release()
			}
		}
		for _, b := range bufs {
			if b != nil {
				b.Destroy()
				b.Release()
			}
		}
	}()
	d.plat.pushScopes(d)
	for i := range bufs {
		b, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: "fkc-copy-ceiling", Size: bytes,
			Usage: wgpu.BufferUsageStorage | wgpu.BufferUsageCopyDst})
		if err != nil {
			d.plat.popScopes(d)
			return nil, fmt.Errorf("gpu: copy: create a %d-byte buffer: %v", bytes, err)
		}
		bufs[i] = b
	}
	for i := range groups {
		g, err := d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: "fkc-copy-ceiling", Layout: p.layout, Entries: []wgpu.BindGroupEntry{
			{Binding: 0, Buffer: bufs[i], Size: bytes}, {Binding: 1, Buffer: bufs[1-i], Size: bytes}}})
		if err != nil {
			d.plat.popScopes(d)
			return nil, fmt.Errorf("gpu: copy: bind group: %v", err)
		}
		groups[i] = g
	}
	if err := d.plat.popScopes(d); err != nil {
		return nil, fmt.Errorf("gpu: copy: %d-byte buffers: %v", bytes, err)
	}
	x, y, err := d.grid(copyGroups(bytes))
	if err != nil {
		return nil, fmt.Errorf("gpu: copy: %v", err)
	}
	// encode records n copies; the timed part is the submission alone, so a
	// copy costs what the GPU spends on it (its pass and barrier included),
	// not the host's encoding of one more pass.
	encode := func(n int) (*wgpu.CommandBuffer, error) {
		enc, err := d.dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: "fkc-copy-ceiling"})
		if err != nil {
			return nil, err
		}
		defer enc.Release()
		for i := 0; i < n; i++ {
			cp := enc.BeginComputePass(nil)
			cp.SetPipeline(p.pipeline)
			cp.SetBindGroup(0, groups[i%2], nil)
			cp.DispatchWorkgroups(x, y, 1)
			cp.End()
			cp.Release()
		}
		return enc.Finish(nil)
	}
	submit := func(cmd *wgpu.CommandBuffer) error {
		d.queue.Submit(cmd)
		cmd.Release()
		return d.waitIdle()
	}
	cmd, err := encode(2)
	if err == nil {
		err = submit(cmd)
	}
	if err != nil {
		return nil, fmt.Errorf("gpu: copy: %v", err)
	}
	if d.steady > 0 { // SetSteadyClocks: time the copies at a busy GPU's clocks
		d.warm(d.steady)
	}
	times := make([]time.Duration, len(copies))
	for i, n := range copies {
		cmd, err := encode(n)
		if err != nil {
			return nil, fmt.Errorf("gpu: copy: %v", err)
		}
		t0 := time.Now()
		if err := submit(cmd); err != nil {
			return nil, fmt.Errorf("gpu: copy: %v", err)
		}
		times[i] = time.Since(t0)
	}
	return times, nil
}

// copySetup is a copy's buffer size — bytes rounded up to whole vec4s,
// within the adapter's largest storage buffer — and copy.wgsl's pipeline.
func (d *Device) copySetup(bytes uint64) (uint64, *pipe, error) {
	bytes = (bytes + 15) &^ 15
	if bytes > d.MaxBufferBytes() {
		return 0, nil, fmt.Errorf("gpu: copy: a %d-byte buffer exceeds this adapter's largest storage buffer (%d bytes: maxBufferSize %d, maxStorageBufferBindingSize %d)",
			bytes, d.MaxBufferBytes(), d.info.MaxBufferSize, d.info.MaxStorageBufferBindingSize)
	}
	p, err := d.pipeline(copySpec)
	return bytes, p, err
}

// copySpec is copy.wgsl's pipeline; copyGroups its workgroups for a
// copy of bytes (a multiple of 16): 4 vec4s a thread.
var copySpec = kernelSpec{name: "copy_ceiling", file: "copy.wgsl", entry: "main", rw: []bool{false, true}}

func copyGroups(bytes uint64) uint64 { return (bytes/16 + 4*wgSize - 1) / (4 * wgSize) }

// waitIdle blocks until the queue's submitted work is done. In the browser
// OnSubmittedWorkDone awaits the promise itself; natively the callback
// fires from a blocking Poll. Call with d.mu held.
func (d *Device) waitIdle() error {
	done := false
	d.queue.OnSubmittedWorkDone(func(wgpu.QueueWorkDoneStatus) { done = true })
	for i := 0; !done; i++ {
		if i == 1000 {
			return fmt.Errorf("the queue never reported its work done")
		}
		d.dev.Poll(true, nil)
	}
	return d.lostErr()
}

// MaxBufferBytes is the largest buffer a kernel may bind on this adapter:
// the smaller of maxBufferSize and maxStorageBufferBindingSize.
func (d *Device) MaxBufferBytes() uint64 {
	return min(d.info.MaxBufferSize, d.info.MaxStorageBufferBindingSize)
}

// Driver is the adapter's driver description.
func (d *Device) Driver() string { return d.info.Driver }

// CopyKernelTime times copies of a bytes-long storage buffer on the GPU's
// own clock, as LastKernelTime times a kernel call: each of the samples is
// one call whose passes — passes copies back to back, each a compute pass
// of its own as a repeated kernel's are — sit between the two timestamps,
// divided by passes. It is the copy ceiling for kernels timed by
// timestamps: both times then hold the same fixed costs of a pass and
// none of the host's. An error where the adapter has no timestamps (the
// browser, FKC_NO_TIMESTAMPS).
func (d *Device) CopyKernelTime(bytes uint64, passes, samples int) ([]time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.lostErr(); err != nil {
		return nil, err
	}
	if d.info.TimestampTickNs == 0 {
		return nil, fmt.Errorf("gpu: copy: this adapter offers no timestamps to time a copy by")
	}
	if bytes == 0 || passes < 1 || passes > maxKernelRepeat || samples < 1 {
		return nil, fmt.Errorf("gpu: copy: %d bytes, %d passes, %d samples: want bytes ≥ 1, 1 to %d passes and a sample", bytes, passes, samples, maxKernelRepeat)
	}
	bytes, p, err := d.copySetup(bytes)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, samples)
	for i := 0; i <= samples; i++ { // the first, untimed: the buffers' first touch
		j := d.begin("copy_ceiling")
		src, dst := j.scratch("src", int(bytes)), j.scratch("dst", int(bytes))
		j.dispatch(p, copyGroups(bytes), src, dst)
		j.reps = passes
		if err := j.run(); err != nil {
			return nil, fmt.Errorf("gpu: copy: %v", err)
		}
		if d.lastKernel <= 0 {
			return nil, fmt.Errorf("gpu: copy: the timestamps gave no time")
		}
		if i > 0 {
			out = append(out, d.lastKernel)
		}
	}
	return out, nil
}
