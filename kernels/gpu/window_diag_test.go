//go:build !js

package gpu

import (
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// windowTime is the kernel-time window (the two timestamps LastKernelTime
// reads) around `passes` empty compute passes and nothing else: the floor
// of every figure LastKernelTime reports (diag plan `window`).
func (d *Device) windowTime(passes int) (time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := &d.plat
	if p.stamps == nil {
		return 0, fmt.Errorf("no timestamps")
	}
	enc, err := d.dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: "fkc-window"})
	if err != nil {
		return 0, err
	}
	defer enc.Release()
	j := &job{d: d, op: "window", enc: enc}
	defer d.recycle(j.bufs)
	p.stampBegin(j)
	for range passes {
		cp := enc.BeginComputePass(nil)
		cp.End()
		cp.Release()
	}
	o := p.stampEnd(j)
	if j.err != nil || o == nil {
		return 0, fmt.Errorf("stamps: %v", j.err)
	}
	o.stage = j.get("readback", 16, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst, false)
	if j.err != nil {
		return 0, j.err
	}
	if err := enc.CopyBufferToBuffer(o.buf.b, 0, o.stage.b, 0, 16); err != nil {
		return 0, err
	}
	cmd, err := enc.Finish(nil)
	if err != nil {
		return 0, err
	}
	d.queue.Submit(cmd)
	cmd.Release()
	if err := p.readBack(d, j); err != nil {
		return 0, err
	}
	return p.kernelTime(o), nil
}

// uploadPhases times the steps of one staged upload of n bytes as fill
// takes them (diag plan `host`): mapping a pooled staging buffer, the
// host's copy into it, the unmap, and encoding + submitting its copy.
func (d *Device) uploadPhases(data []byte) (mapT, copyT, unmapT, submitT time.Duration, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	j := d.begin("host-diag")
	if j.err != nil {
		return 0, 0, 0, 0, j.err
	}
	defer func() {
		d.plat.popScopes(d)
		d.recycle(j.bufs)
		j.enc.Release()
	}()
	size := inBytes(len(data))
	dst := j.get("input", size, wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst, false)
	st := j.get("upload", size, wgpu.BufferUsageMapWrite|wgpu.BufferUsageCopySrc, false)
	if j.err != nil {
		return 0, 0, 0, 0, j.err
	}
	t0 := time.Now()
	if err := d.mapAll([]*buffer{st}, wgpu.MapModeWrite); err != nil {
		return 0, 0, 0, 0, err
	}
	t1 := time.Now()
	m := st.b.GetMappedRange(0, uint(st.size))
	pcopy(m[:len(data)], data)
	t2 := time.Now()
	st.b.Unmap()
	t3 := time.Now()
	if err := j.enc.CopyBufferToBuffer(st.b, 0, dst.b, 0, size); err != nil {
		return 0, 0, 0, 0, err
	}
	cmd, err := j.enc.Finish(nil)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	d.queue.Submit(cmd)
	cmd.Release()
	t4 := time.Now()
	d.dev.Poll(true, nil)
	return t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), nil
}
