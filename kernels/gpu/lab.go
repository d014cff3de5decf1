package gpu

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/fkc-playground/fkc/kernels"
)

// The kernel lab's runner (kernels.LabDevice; package lab, docs/lab.md): a
// user's complete WGSL module with the lab's bindings, on this device,
// native or in the browser. The output is poisoned with the run's marker
// and followed by this package's guard words (guardWords, as every
// production output), which come back with the payload so that an overrun
// is reported, not hidden.

// LabWG is the lab interface's workgroup size.
const LabWG = 64

// labPipeCap is how many compiled lab modules a device keeps (a page that
// edits a kernel compiles a new one at every check).
const labPipeCap = 8

// LabAdapter describes the adapter for the lab.
func (d *Device) LabAdapter() kernels.LabAdapter {
	return kernels.LabAdapter{Name: d.info.Name, ShaderF64: d.info.ShaderF64, MaxGroups: d.info.MaxComputeWorkgroupsPerDimension}
}

// SetLabTimeout bounds the wait for a lab run's results (SetMapTimeout).
func (d *Device) SetLabTimeout(t time.Duration) { d.SetMapTimeout(t) }

// labPipe compiles (or finds) a lab module. Call with d.mu held.
func (d *Device) labPipe(r *kernels.LabRun) (*pipe, error) {
	h := sha256.Sum256([]byte(r.Source))
	key := fmt.Sprintf("%s:%s:%d:%v", hex.EncodeToString(h[:12]), r.Entry, len(r.Inputs), r.Views)
	for i, p := range d.labPipes {
		if p.name == key {
			d.labPipes = append(append(d.labPipes[:i:i], d.labPipes[i+1:]...), p) // most recent last
			return p, nil
		}
	}
	rw := make([]bool, len(r.Inputs)+3, len(r.Inputs)+3+len(r.Views))
	rw[len(r.Inputs)] = true   // out
	rw[len(r.Inputs)+2] = true // the loop budget
	for _, v := range r.Views {
		rw = append(rw, v < 0)
	}
	// A user's module that does not compile is the caller's to report (at
	// the user's line); wgpu-native would log it to stderr as well.
	wgpu.SetLogLevel(wgpu.LogLevelOff)
	p, err := d.build(kernelSpec{name: key, entry: r.Entry, src: r.Source, rw: rw})
	wgpu.SetLogLevel(wgpu.LogLevelError) // quietDrivers' level
	if err != nil {
		return nil, &kernels.WGSLError{Msg: err.Error()}
	}
	if len(d.labPipes) >= labPipeCap {
		old := d.labPipes[0]
		old.pipeline.Release()
		old.layout.Release()
		d.labPipes = d.labPipes[1:]
	}
	d.labPipes = append(d.labPipes, p)
	return p, nil
}

// RunLab runs one lab module (kernels.LabRun says the bindings).
func (d *Device) RunLab(r *kernels.LabRun) (*kernels.LabResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.Workgroups == 0 {
		return nil, fmt.Errorf("gpu: lab: no workgroups to run")
	}
	for _, v := range r.Views {
		if v < -1 || v >= len(r.Inputs) {
			return nil, fmt.Errorf("gpu: lab: view of binding %d: no such input", v)
		}
	}
	p, err := d.labPipe(r)
	if err != nil {
		return nil, err
	}
	maxX := uint64(d.info.MaxComputeWorkgroupsPerDimension)
	if maxX == 0 {
		maxX = 65535
	}
	row := maxX
	if r.RowGroups > 0 {
		row = min(row, uint64(r.RowGroups))
	}
	gx, gy := min(r.Workgroups, row), (r.Workgroups+row-1)/row
	if gy > maxX || r.Workgroups*LabWG > 1<<32 {
		return nil, &kernels.Unavailable{Kernel: "lab", Need: fmt.Sprintf("%d workgroups: more than this adapter's grid (%d x %d) or the interface's 32-bit invocation index", r.Workgroups, maxX, maxX)}
	}
	guard := 4 * guardWords
	size := round4(r.OutBytes) + guard
	j := d.begin("lab " + r.Label)
	if r.Repeat > 1 {
		j.reps = min(r.Repeat, maxKernelRepeat)
	}
	bufs := make([]*buffer, 0, len(r.Inputs)+3)
	for i, in := range r.Inputs {
		bufs = append(bufs, j.input(fmt.Sprintf("input %d", i), in))
	}
	out := j.outputInit("out", size, bytes.Repeat([]byte{r.Marker}, size), false, false)
	budget := make([]byte, 8)
	putU32(budget[4:], r.Budget)
	loops := j.outputInit("loop budget", 8, budget, false, false)
	bufs = append(bufs, out.buf, j.input("params", r.Params), loops.buf)
	for _, v := range r.Views {
		if v < 0 {
			bufs = append(bufs, out.buf)
		} else {
			bufs = append(bufs, bufs[v])
		}
	}
	if j.err == nil {
		for i, b := range bufs {
			if b == nil {
				j.fail("gpu: lab: binding %d has no buffer", i)
			}
		}
	}
	if j.err == nil {
		j.labDispatch(p, uint32(gx), uint32(gy), bufs)
	}
	if err := j.run(); err != nil {
		return nil, err
	}
	res := &kernels.LabResult{Out: out.data[:r.OutBytes], Overrun: -1, GuardBytes: guard,
		Exhausted: getU32(loops.data) != 0, Kernel: d.lastKernel, Wall: d.last / time.Duration(max(1, j.reps))}
	for k, v := range out.data[round4(r.OutBytes):] {
		if v != r.Marker {
			res.Overrun = round4(r.OutBytes) - r.OutBytes + k
			break
		}
	}
	return res, nil
}

// labDispatch records the lab's one pass over a gx × gy grid.
func (j *job) labDispatch(p *pipe, gx, gy uint32, bufs []*buffer) {
	entries := make([]wgpu.BindGroupEntry, len(bufs))
	for i, b := range bufs {
		entries[i] = wgpu.BindGroupEntry{Binding: uint32(i), Buffer: b.b, Size: b.size}
	}
	bg, err := j.d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: p.name, Layout: p.layout, Entries: entries})
	if err != nil {
		j.fail("gpu: lab: bind group: %v", err)
		return
	}
	j.passes = append(j.passes, pass{p: p, bg: bg, x: gx, y: gy})
}
