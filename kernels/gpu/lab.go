package gpu

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"strings"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/shaders/wgsl"
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
// Pipes in keep (a batch's) are not evicted.
func (d *Device) labPipe(r *kernels.LabRun, keep map[*pipe]bool) (*pipe, error) {
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
	for i := 0; len(d.labPipes) >= labPipeCap && i < len(d.labPipes); {
		if old := d.labPipes[i]; !keep[old] {
			old.pipeline.Release()
			old.layout.Release()
			d.labPipes = append(d.labPipes[:i:i], d.labPipes[i+1:]...)
			continue
		}
		i++
	}
	d.labPipes = append(d.labPipes, p)
	return p, nil
}

// RunLab runs one lab module (kernels.LabRun says the bindings).
func (d *Device) RunLab(r *kernels.LabRun) (*kernels.LabResult, error) {
	res, err := d.RunLabBatch([]*kernels.LabRun{r})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// RunLabBatch runs several lab modules in one submission (kernels.LabBatcher):
// their dispatches share one command buffer and their outputs come back in
// one round of maps, which in a browser costs one trip through the JS event
// loop instead of one per run. Each run has its own buffers, so no run sees
// another's writes (WebGPU's robust access keeps an out-of-bounds write in
// its own binding). A Repeat above 1 applies to the whole batch.
func (d *Device) RunLabBatch(rs []*kernels.LabRun) ([]*kernels.LabResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(rs) == 0 {
		return nil, nil
	}
	// Every module first: one that does not compile fails the batch before
	// anything is allocated. The pipes of this batch stay cached until it
	// has run.
	inUse := map[*pipe]bool{}
	pipes := make([]*pipe, len(rs))
	for i, r := range rs {
		if r.Workgroups == 0 {
			return nil, fmt.Errorf("gpu: lab: no workgroups to run")
		}
		for _, v := range r.Views {
			if v < -1 || v >= len(r.Inputs) {
				return nil, fmt.Errorf("gpu: lab: view of binding %d: no such input", v)
			}
		}
		p, err := d.labPipe(r, inUse)
		if err != nil {
			return nil, err
		}
		pipes[i], inUse[p] = p, true
	}
	maxX := uint64(d.info.MaxComputeWorkgroupsPerDimension)
	if maxX == 0 {
		maxX = 65535
	}
	for _, r := range rs {
		row := maxX
		if r.RowGroups > 0 {
			row = min(row, uint64(r.RowGroups))
		}
		if (r.Workgroups+row-1)/row > maxX || r.Workgroups*LabWG > 1<<32 {
			return nil, &kernels.Unavailable{Kernel: "lab", Need: fmt.Sprintf("%d workgroups: more than this adapter's grid (%d x %d) or the interface's 32-bit invocation index", r.Workgroups, maxX, maxX)}
		}
	}
	guard := 4 * guardWords
	j := d.begin("lab " + rs[0].Label)
	reps := 1
	if rs[0].Repeat > 1 {
		j.reps = min(rs[0].Repeat, maxKernelRepeat)
		reps = j.reps
	}
	type pending struct{ out, loops *outBuf }
	ps := make([]pending, len(rs))
	for i, r := range rs {
		row := maxX
		if r.RowGroups > 0 {
			row = min(row, uint64(r.RowGroups))
		}
		gx, gy := min(r.Workgroups, row), (r.Workgroups+row-1)/row
		size := round4(r.OutBytes) + guard
		bufs := make([]*buffer, 0, len(r.Inputs)+3)
		for k, in := range r.Inputs {
			bufs = append(bufs, j.input(fmt.Sprintf("input %d", k), in))
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
			for k, b := range bufs {
				if b == nil {
					j.fail("gpu: lab: binding %d has no buffer", k)
				}
			}
		}
		if j.err == nil {
			j.labDispatch(pipes[i], uint32(gx), uint32(gy), bufs)
		}
		ps[i] = pending{out, loops}
	}
	if err := j.run(); err != nil {
		return nil, err
	}
	n := time.Duration(reps * len(rs))
	res := make([]*kernels.LabResult, len(rs))
	for i, r := range rs {
		out, loops := ps[i].out, ps[i].loops
		x := &kernels.LabResult{Out: out.data[:r.OutBytes], Overrun: -1, GuardBytes: guard,
			Exhausted: getU32(loops.data) != 0, Kernel: d.lastKernel / time.Duration(len(rs)), Wall: d.last / n}
		for k, v := range out.data[round4(r.OutBytes):] {
			if v != r.Marker {
				x.Overrun = round4(r.OutBytes) - r.OutBytes + k
				break
			}
		}
		res[i] = x
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

func init() { families = append(families, labLinks) }

// labEP prefixes the kernel lab's plain kernels (contracts/project/fkc-lab.fkc.md).
const labEP = "fkc::lab::"

// labLinks: the lab's plain kernels are describe-only, run by package lab
// with a user's WGSL beside them.
func labLinks(*Device) []kernels.Link {
	var links []kernels.Link
	for _, f := range wgsl.LabNames() {
		name := strings.TrimSuffix(f, ".wgsl")
		links = append(links, kernels.Link{EntryPoint: labEP + name,
			Where: "shaders/wgsl/lab/" + f + ": the lab's plain kernel, run by package lab (fkc lab check)"})
	}
	return links
}
