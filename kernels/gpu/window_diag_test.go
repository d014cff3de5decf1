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
