package gpu

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Chains: several calls recorded into one command buffer and run in one
// compute pass (WebGPU orders the dispatches of a pass: each sees the
// writes of those before it), so that the fixed cost of a pass, a submit
// and a map is paid once per chain. Every result is a device tensor that
// the next call binds in place.
//
// A chain records through a view of its device (Device.rec set to the
// chain while it records a call; one view per device, core.recView),
// whose kernel methods are the device's own: begin joins the chain's encoder,
// outputTensor makes a device tensor, run() adds the job to the chain,
// and the host's checks of a call's results (an index error word, the
// guards) wait for the submission, which reads back only those words.

// chain is a Recording of one device (kernels.Recording).
type chain struct {
	d   *Device // the device itself
	enc *wgpu.CommandEncoder
	// What the recorded calls leave for the submission: their passes in
	// order, their buffers (given back after it), the control words to
	// read back and the checks to run on them, call by call.
	passes []pass
	bufs   []*buffer
	ctl    []*outBuf
	checks []callCheck
	once   bool
	outs   []*Tensor // the tensors the chain writes
	reads  []*Tensor // the device tensors it reads (pinned until it ends)
	calls  []string  // the recorded calls' ops
	call   int       // the call being recorded
	// made maps a kernel method's result tensor to the device tensor
	// outputTensor made for it (the call being recorded).
	made   map[*tensor.Tensor]*Tensor
	broken error // a failure that leaves the chain unable to run
	state  chainState
}

type chainState uint8

const (
	recording chainState = iota
	submitted
	discarded
)

// callCheck is a host check of one call's results.
type callCheck struct {
	call int
	f    func() error
}

// ChainError says which call of a chain failed when the chain ran (an
// index out of range found by a kernel, an overwritten guard). The chain's
// results are then all unreadable.
type ChainError struct {
	Call  int // the failed call's position, from 0
	Calls int // the chain's calls
	Op    string
	Err   error
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("call %d of %d in the chain (%s) failed: %v", e.Call+1, e.Calls, e.Op, e.Err)
}

func (e *ChainError) Unwrap() error { return e.Err }

// FailedCall is the failed call's position (from 0) and op.
func (e *ChainError) FailedCall() (int, string) { return e.Call, e.Op }

// Record starts a chain on the device (kernels.Recording): its Links run a
// call by recording it — checked as the device's kernel methods check it,
// its result a device tensor of the chain — and Submit runs every recorded
// call in one submission. A chain is for one goroutine at a time; while it
// records a call it holds the device, as a call does.
func (d *Device) Record() kernels.Recording {
	return &chain{d: d.self}
}

// encoder is the chain's command encoder, made with its first call.
func (ch *chain) encoder() (*wgpu.CommandEncoder, error) {
	if ch.enc == nil {
		enc, err := ch.d.dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: "fkc-chain"})
		if err != nil {
			return nil, fmt.Errorf("gpu: chain: command encoder: %v", err)
		}
		ch.enc = enc
	}
	return ch.enc, nil
}

// Links is the device's link table recording into this chain.
func (ch *chain) Links() []kernels.Link {
	d := ch.d
	d.mu.Lock()
	if d.recView == nil {
		d.recView = &Device{core: d.core}
		d.recLinks = Links(d.recView)
	}
	links := slices.Clone(d.recLinks)
	d.mu.Unlock()
	for i := range links {
		impl := links[i].Impl
		links[i].Impl = func(c *kernels.Call) (*tensor.Tensor, error) { return ch.record(c, impl) }
	}
	return links
}

// record runs one linked implementation on the recording view.
func (ch *chain) record(c *kernels.Call, impl kernels.Impl) (*tensor.Tensor, error) {
	d := ch.d
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case ch.state != recording:
		return nil, errors.New("gpu: the chain was submitted or discarded already: start another")
	case ch.broken != nil:
		return nil, ch.broken
	}
	ch.call, ch.made = len(ch.calls), map[*tensor.Tensor]*Tensor{}
	passes := len(ch.passes)
	d.recView.rec = ch
	out, err := impl(c)
	d.recView.rec = nil
	if err != nil {
		if len(ch.passes) != passes {
			ch.broken = fmt.Errorf("gpu: chain: call %d (%s) failed after it was recorded: %v", ch.call+1, c.Op, err)
		}
		return nil, err
	}
	ch.calls = append(ch.calls, c.Op)
	if g, ok := ch.made[out]; ok {
		return tensor.OnStorage(g.dtype, g.shape, g), nil
	}
	if len(ch.made) > 0 || len(ch.passes) != passes {
		ch.broken = fmt.Errorf("gpu: chain: internal: call %d (%s) returned a result it did not record", ch.call+1, c.Op)
		return nil, ch.broken
	}
	if out.Storage() != nil {
		return out, nil
	}
	// a result the kernel method answered on the host (an empty output)
	return d.upload(out)
}

// add takes a recorded job into the chain (job.run on a recording view).
func (ch *chain) add(j *job) error {
	d := ch.d
	err := j.err
	if perr := d.plat.popScopes(d); err == nil && perr != nil {
		err = fmt.Errorf("gpu: %s: %v", j.op, perr)
	}
	if err != nil {
		// What the job encoded (staged uploads) runs with the chain: its
		// buffers stay out of the pool until the chain ends.
		ch.bufs = append(ch.bufs, j.bufs...)
		for _, g := range j.made {
			ch.bufs = append(ch.bufs, g.buf)
			g.buf, g.pend = nil, nil
		}
		for _, ps := range j.passes {
			ps.bg.Release()
		}
		return err
	}
	ch.passes = append(ch.passes, j.passes...)
	ch.bufs = append(ch.bufs, j.bufs...)
	ch.ctl = append(ch.ctl, j.outs...)
	ch.once = ch.once || j.once
	for _, f := range j.afters {
		ch.checks = append(ch.checks, callCheck{ch.call, f})
	}
	d.tmu.Lock()
	for _, g := range j.reads {
		g.pins++
	}
	d.tmu.Unlock()
	ch.reads = append(ch.reads, j.reads...)
	for _, g := range j.made {
		ch.outs = append(ch.outs, g)
		d.track(g)
		// the guards and the zero tail come back with the control words
		from := uint64(devGuardBytes + g.n&^15)
		head := &outBuf{buf: &buffer{b: g.buf.b, size: devGuardBytes}, payload: devGuardBytes, size: devGuardBytes}
		tail := &outBuf{buf: &buffer{b: g.buf.b, offset: from, size: residentSize(g.n) - from}}
		tail.payload, tail.size = int(tail.buf.size), tail.buf.size
		ch.ctl = append(ch.ctl, head, tail)
		ch.checks = append(ch.checks, callCheck{ch.call, func() error { return g.checkGuards(head.data, tail.data) }})
	}
	return nil
}

// Submit runs every recorded call: one command buffer, one compute pass,
// then the control words back; it waits for them. On success the chain's
// results are readable. If a call fails (a bad index, an overrun), every
// result of the chain is unreadable and the error, a *ChainError, names
// the call. A chain is submitted once.
func (ch *chain) Submit() error {
	d := ch.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if ch.state != recording {
		return errors.New("gpu: the chain was submitted or discarded already")
	}
	ch.state = submitted
	if ch.broken != nil {
		ch.drop()
		ch.end(ch.broken)
		return ch.broken
	}
	if ch.enc == nil { // nothing recorded: every result was answered on the host
		ch.end(nil)
		return nil
	}
	if d.steady > 0 && time.Since(d.lastWarm) > time.Second {
		d.warm(d.steady) // best effort, as begin does
	}
	j := &job{d: d, op: "chain", t0: time.Now(), enc: ch.enc, passes: ch.passes, bufs: ch.bufs, outs: ch.ctl, once: ch.once}
	ch.enc, ch.passes, ch.bufs, ch.ctl = nil, nil, nil, nil
	if err := d.lostErr(); err != nil {
		j.err = err
	}
	d.plat.pushScopes(d)
	if err := j.run(); err != nil {
		err = fmt.Errorf("gpu: a chain of %d calls: %w", len(ch.calls), err)
		ch.end(err)
		return err
	}
	// Written: the checks may read the chain's own tensors back (an
	// index error names the bad index's value).
	d.tmu.Lock()
	for _, g := range ch.outs {
		g.pend = nil
	}
	d.tmu.Unlock()
	for _, c := range ch.checks {
		if err := c.f(); err != nil {
			cerr := &ChainError{Call: c.call, Calls: len(ch.calls), Op: ch.calls[c.call], Err: err}
			ch.end(cerr)
			return cerr
		}
	}
	ch.end(nil)
	return nil
}

// Discard drops a chain that was not submitted: its results are
// unreadable, its buffers go back. It does nothing after Submit.
func (ch *chain) Discard() {
	d := ch.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if ch.state != recording {
		return
	}
	ch.state = discarded
	ch.drop()
	ch.end(errors.New("the chain that was to write it was discarded"))
}

// drop releases what a chain recorded and will never run (d.mu held).
func (ch *chain) drop() {
	for _, ps := range ch.passes {
		ps.bg.Release()
	}
	if !ch.d.wedged {
		ch.d.recycle(ch.bufs)
	}
	if ch.enc != nil {
		ch.enc.Release()
	}
	ch.enc, ch.passes, ch.bufs, ch.ctl = nil, nil, nil, nil
}

// end settles the chain's tensors (d.mu held): its results readable, or,
// on err, failed with their buffers given back; the tensors it read
// unpinned, and freed where they were released meanwhile.
func (ch *chain) end(err error) {
	d := ch.d
	var free []*Tensor
	d.tmu.Lock()
	for _, g := range ch.outs {
		g.pend = nil
		if err != nil {
			g.err = fmt.Errorf("not written: %w", err)
		}
		if err != nil || g.released && g.pins == 0 {
			free = append(free, g)
		}
	}
	for _, g := range ch.reads {
		g.pins--
		if g.released && g.pins == 0 && g.pend == nil {
			free = append(free, g)
		}
	}
	d.tmu.Unlock()
	for _, g := range free {
		d.free(g)
	}
	ch.outs, ch.reads, ch.checks, ch.made = nil, nil, nil, nil
}
