package engine

import (
	"errors"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// Chain records calls on the attached GPU device into one submission:
// every result stays in the device's memory (a *tensor.Tensor whose
// Storage is a kernels/gpu.Tensor) and may be the input of the next call,
// and Submit runs them all in one command buffer, so that a program that
// pads, sums and takes an argmax pays for one submission and no transfer
// in between. Calls are checked and dispatched as Run does them (the op's
// shape rules and the binding's dtypes, from the inputs' dtypes and shapes);
// an input in Go memory is uploaded as part of its call.
//
//	ch, _ := eng.Chain(engine.Vulkan)
//	p, _ := ch.Run(ops.Pad(x, kernels.Reflect, pads...))
//	s, _ := ch.Run(ops.Sum(p.Out, 1))
//	err := ch.Submit()   // one submission; names the call that failed
//	host, _ := s.Out.Host()
//
// The results are readable once Submit returns nil. A call a kernel finds
// wrong (an index out of range) fails the whole chain: Submit's error
// (a *gpu.ChainError) names it, and none of the chain's results can be
// read. A Chain is for one goroutine at a time.
type Chain struct {
	e     *Engine
	b     Backend
	rec   kernels.Recording
	links map[string]kernels.Link
}

// Upload copies t into the memory of backend b's device (gpu.Device.Upload):
// the result is a device tensor that Run and Chain read in place.
func (e *Engine) Upload(b Backend, t *tensor.Tensor) (*tensor.Tensor, error) {
	if err := e.ready(b); err != nil {
		return nil, err
	}
	u, ok := e.dev.(interface {
		Upload(*tensor.Tensor) (*tensor.Tensor, error)
	})
	if b == CPU || b == "" || !ok {
		return nil, kernels.Usagef("upload: backend %s keeps no tensors of its own (tensors in Go memory are the CPU's)", b)
	}
	return u.Upload(t)
}

// recorder is a device that records calls into one submission
// (kernels/gpu.Device).
type recorder interface{ Record() kernels.Recording }

// Chain starts a chain of calls on backend b's device.
func (e *Engine) Chain(b Backend) (*Chain, error) {
	if err := e.ready(b); err != nil {
		return nil, err
	}
	if b == CPU || b == "" {
		return nil, kernels.Usagef("a chain records calls on a GPU device: use engine.Vulkan or engine.WebGPU (CPU calls run as they are made)")
	}
	r, ok := e.dev.(recorder)
	if !ok {
		return nil, &kernels.Unavailable{Kernel: "chain", Msg: "the attached device records no chains"}
	}
	rec := r.Record()
	links := map[string]kernels.Link{}
	for _, l := range rec.Links() {
		links[l.EntryPoint] = l
	}
	return &Chain{e: e, b: b, rec: rec, links: links}, nil
}

// Run records a call, dispatched as Engine.Run does; its Result's Out is a
// device tensor, readable once the chain is submitted. A call refused here
// (a contract violation) is not recorded, and the chain goes on.
func (ch *Chain) Run(c *kernels.Call) (*Result, error) {
	ck, err := ch.e.check(c)
	if err != nil {
		return nil, err
	}
	bd, err := ch.e.selectChecked(ch.b, ck)
	if err != nil {
		return nil, err
	}
	if ck.call.Out != nil {
		return nil, kernels.Usagef("%s: a chain's results stay on the device: run it without an output tensor (Call.Out), then copy the result back with Tensor.Host", c.Op)
	}
	return ch.run(bd, ck)
}

func (ch *Chain) run(bd *registry.Binding, ck *checked) (*Result, error) {
	l, ok := ch.links[bd.Kernel.EntryPoint]
	if !ok {
		return nil, &kernels.Unavailable{Kernel: bd.Kernel.Name, Msg: "it has no implementation on this device"}
	}
	return ch.e.runLink(bd, ck, l)
}

// Submit runs every recorded call in one submission and waits for it.
func (ch *Chain) Submit() error { return ch.rec.Submit() }

// Discard drops the recorded calls without running them; their results
// cannot be read.
func (ch *Chain) Discard() { ch.rec.Discard() }

// failedCall is a chain's error naming its failed call (gpu.ChainError).
type failedCall interface {
	error
	FailedCall() (call int, op string)
}

// onDevice reports whether a call has an input on a device.
func onDevice(c *kernels.Call) bool {
	for _, t := range c.Inputs {
		if t.Storage() != nil {
			return true
		}
	}
	return false
}

// runOnDevice runs one call with inputs on the device as a chain of one
// (RunBinding): its error is the call's own.
func (e *Engine) runOnDevice(b *registry.Binding, ck *checked) (*Result, error) {
	ch, err := e.Chain(backendOf(b))
	if err != nil {
		return nil, err
	}
	c := ck.call
	w, wc := *ck, *c
	wc.Out = nil
	w.call = &wc
	res, err := ch.run(b, &w)
	if err != nil {
		ch.Discard()
		return nil, err
	}
	if err := ch.Submit(); err != nil {
		var ce failedCall
		if errors.As(err, &ce) {
			return nil, errors.Unwrap(ce)
		}
		return nil, err
	}
	res.Call = c
	if c.Out != nil {
		err := res.Out.Storage().ReadInto(c.Out.Data)
		res.Out.Release()
		if err != nil {
			return nil, err
		}
		res.Out = c.Out
	}
	return res, nil
}

// backendOf is the backend a GPU binding runs on with the attached device.
func backendOf(b *registry.Binding) Backend {
	if b.Backend == CPU.Contract() {
		return CPU
	}
	return Vulkan
}
