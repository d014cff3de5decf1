package gpu

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/fkc-playground/fkc/tensor"
)

// Tensors on the device: a call's inputs and outputs that stay in GPU
// buffers, so that a program pays for the transfer once (Upload, Read)
// rather than on every call.

// A device tensor's buffer: devGuardBytes of poison, the payload padded
// with zeros to whole 16-byte units (inBytes: the vec4 views of an input
// read its last unit whole), devGuardBytes of poison. A kernel writes it
// as an output through pipelines whose GUARD is devGuardWords (a chain's,
// Device.pipeline); another binds the payload as an input at offset
// devGuardBytes, which is 256 — the largest minStorageBufferOffsetAlignment
// WebGPU allows — so no copy is needed between the two. The guards and the
// zero tail are checked when the chain that wrote them ends.
const (
	devGuardBytes = 256
	devGuardWords = devGuardBytes / 4
)

// residentSize is a device tensor's buffer size for n payload bytes.
func residentSize(n int) uint64 { return 2*devGuardBytes + inBytes(n) }

// Tensor is a tensor in a device's memory: the Storage of a *tensor.Tensor
// whose Data is nil (Device.Upload, a chain's results). Its bytes never
// change once written; Read copies them back. Release gives the memory
// back. Its state is guarded by the device's tmu.
type Tensor struct {
	d     *Device // the device itself, never a recording view
	dtype tensor.DType
	shape []int
	n     int     // payload bytes
	buf   *buffer // nil once released, failed or its device closed
	// pend is the chain whose submission writes it, until that ends.
	pend *chain
	// pins counts the chains, recorded and not yet ended, that read it:
	// its buffer is kept until the last one ends, even once released.
	pins     int
	err      error  // why it cannot be read (its chain failed)
	host     []byte // its bytes, once read back for a kernel's host tables
	released bool
}

// Resident is the device tensor behind t (nil, false for a tensor in Go
// memory or on another kind of storage).
func Resident(t *tensor.Tensor) (*Tensor, bool) {
	g, ok := t.Storage().(*Tensor)
	return g, ok
}

// DType and Shape describe the tensor.
func (g *Tensor) DType() tensor.DType { return g.dtype }
func (g *Tensor) Shape() []int        { return append([]int{}, g.shape...) }

// Device is the device that holds the tensor.
func (g *Tensor) Device() *Device { return g.d }

// String names where the bytes are (tensor.Storage).
func (g *Tensor) String() string { return "the " + g.d.String() }

// Err says why the bytes cannot be read, or nil (tensor.Storage).
func (g *Tensor) Err() error {
	g.d.tmu.Lock()
	defer g.d.tmu.Unlock()
	return g.errLocked()
}

func (g *Tensor) errLocked() error {
	switch {
	case g.released:
		return tensor.ErrReleased
	case g.err != nil:
		return g.err
	}
	if err := g.d.lostErr(); err != nil {
		return err
	}
	return nil
}

// Read copies the tensor back into a new tensor in Go memory (waiting for
// the chain that writes it, which must have been submitted).
func (g *Tensor) Read() (*tensor.Tensor, error) {
	if err := tensor.CheckAlloc(fmt.Sprintf("%s%v read back from %s", g.dtype, g.shape, g), g.n); err != nil {
		return nil, err
	}
	h := tensor.Empty(g.dtype, g.shape)
	if err := g.ReadInto(h.Data); err != nil {
		return nil, err
	}
	return h, nil
}

// ReadInto copies the tensor's bytes into dst, which holds exactly as many
// (tensor.Storage).
func (g *Tensor) ReadInto(dst []byte) error {
	if len(dst) != g.n {
		return fmt.Errorf("gpu: read %s%v: %d bytes given for its %d", g.dtype, g.shape, len(dst), g.n)
	}
	d := g.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return g.readLocked(dst)
}

// readLocked reads the payload back (d.mu held).
func (g *Tensor) readLocked(dst []byte) error {
	d := g.d
	d.tmu.Lock()
	err := g.errLocked()
	if err == nil && g.pend != nil {
		err = fmt.Errorf("it is written by a chain that was not submitted yet (Submit it first)")
	}
	buf, host := g.buf, g.host
	d.tmu.Unlock()
	if err != nil {
		return fmt.Errorf("gpu: read %s%v: %w", g.dtype, g.shape, err)
	}
	if host != nil {
		copy(dst, host)
		return nil
	}
	if g.n == 0 {
		return nil
	}
	j := d.self.transfer("read")
	size := uint64(round4(g.n))
	j.outs = append(j.outs, &outBuf{buf: &buffer{b: buf.b, offset: devGuardBytes, size: size}, payload: g.n, size: size, into: dst})
	return j.run()
}

// hostBytes is t's bytes in Go memory for a kernel that builds host tables
// from them (index_add's buckets): t.Data, or a device tensor's bytes read
// back once and kept (its bytes never change). Call with d.mu held.
func (j *job) hostBytes(what string, t *tensor.Tensor) []byte {
	if j.err != nil {
		return nil
	}
	if t.Storage() == nil {
		return t.Data
	}
	g := j.resident(what, t)
	if g == nil {
		return nil
	}
	d := g.d
	d.tmu.Lock()
	host, pend := g.host, g.pend
	d.tmu.Unlock()
	if host != nil {
		return host
	}
	if pend != nil {
		j.fail("gpu: %s: %s is made by this chain, and %s builds its tables from its values on the host: Submit the chain before this call", j.op, what, j.op)
		return nil
	}
	b := tensor.Empty(g.dtype, g.shape).Data
	if err := g.readLocked(b); err != nil {
		j.fail("gpu: %s: %s: %v", j.op, what, err)
		return nil
	}
	d.tmu.Lock()
	g.host = b
	d.tmu.Unlock()
	return b
}

// hostU32 is hostBytes of a U32 tensor, as words.
func (j *job) hostU32(what string, t *tensor.Tensor) []uint32 {
	b := j.hostBytes(what, t)
	if b == nil {
		return nil
	}
	return (&tensor.Tensor{DType: tensor.U32, Shape: t.Shape, Data: b}).U32()
}

// resident is the device tensor behind t, refused (nil, the job failed)
// when it is on another device, released, failed, or written by a chain
// this call cannot follow.
func (j *job) resident(what string, t *tensor.Tensor) *Tensor {
	g, ok := Resident(t)
	if !ok {
		j.fail("gpu: %s: %s %s is on %s, which this device cannot read", j.op, what, t, t.Storage())
		return nil
	}
	if g.d.core != j.d.core {
		j.fail("gpu: %s: %s %s is on another device (%s), not on %s: upload it to this one", j.op, what, t, g.d, j.d)
		return nil
	}
	d := g.d
	d.tmu.Lock()
	defer d.tmu.Unlock()
	if err := g.errLocked(); err != nil {
		j.fail("gpu: %s: %s %s: %v", j.op, what, t, err)
		return nil
	}
	if g.pend != nil && g.pend != j.ch {
		j.fail("gpu: %s: %s %s is written by a chain that was not submitted yet (Submit it first)", j.op, what, t)
		return nil
	}
	return g
}

// operand binds a call's operand: a device tensor's payload in place, or
// a tensor in Go memory uploaded as input does.
func (j *job) operand(what string, t *tensor.Tensor) *buffer {
	if t.Storage() == nil {
		return j.input(what, t.Data)
	}
	if j.err != nil {
		return nil
	}
	g := j.resident(what, t)
	if g == nil {
		return nil
	}
	j.reads = append(j.reads, g)
	return &buffer{b: g.buf.b, offset: devGuardBytes, size: inBytes(g.n)}
}

// soleOperand is operand for a call's only large input (sole).
func (j *job) soleOperand(what string, t *tensor.Tensor) *buffer {
	if t.Storage() == nil {
		return j.sole(what, t.Data)
	}
	return j.operand(what, t)
}

// newResident makes the buffer of a device tensor of n payload bytes with
// its guards and zero tail set and the payload's initial content, if any
// (else unspecified, or poison when the device poisons bodies). It is no
// job's buffer: the tensor owns it.
func (j *job) newResident(what string, n int, payload []byte) *buffer {
	size := residentSize(n)
	if j.err != nil || !j.checkSize(what, size) {
		return nil
	}
	if payload == nil && j.d.poisonBodies {
		payload = bytes.Repeat([]byte{poison}, n)
	}
	// The payload's whole words, then its last partial word, its zero
	// tail and the guard after it (whole words: the uploads take those).
	head := bytes.Repeat([]byte{poison}, devGuardBytes)
	from := n &^ 3
	tail := make([]byte, int(size)-devGuardBytes-from)
	copy(tail, payload[min(from, len(payload)):])
	for i := int(inBytes(n)) - from; i < len(tail); i++ {
		tail[i] = poison
	}
	regions := []region{{0, head}, {uint64(devGuardBytes + from), tail}}
	if len(payload) > 0 {
		regions = append(regions, region{devGuardBytes, payload[:from]})
	}
	b := j.filled(what, size, wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc|wgpu.BufferUsageCopyDst, false, regions...)
	if b == nil {
		return nil
	}
	j.keep(b)
	return b
}

// keep takes b out of the job's buffers, which run() gives back: its
// tensor owns it.
func (j *job) keep(b *buffer) {
	for i, x := range j.bufs {
		if x == b {
			j.bufs = append(j.bufs[:i], j.bufs[i+1:]...)
			return
		}
	}
}

// residentOutput is outputTensor in a chain: the result is a device tensor
// the chain writes (t's dtype and shape; the chain maps t to it).
func (j *job) residentOutput(what string, t *tensor.Tensor) *outBuf {
	n := tensor.NumElems(t.Shape) * t.DType.Size()
	b := j.newResident(what, n, nil)
	if b == nil {
		return &outBuf{}
	}
	g := &Tensor{d: j.d.self, dtype: t.DType, shape: append([]int{}, t.Shape...), n: n, buf: b, pend: j.ch}
	j.made = append(j.made, g)
	j.ch.made[t] = g
	return &outBuf{buf: b, payload: n, size: b.size}
}

// checkGuards checks a device tensor's guards and zero tail as read back
// (head: its first devGuardBytes; tail: from the payload's last whole
// 16-byte unit to the end).
func (g *Tensor) checkGuards(head, tail []byte) error {
	for k, v := range head {
		if v != poison {
			return fmt.Errorf("internal: guard word before the output was overwritten (byte %d = %#x)", k, v)
		}
	}
	from := g.n &^ 15
	body := int(inBytes(g.n)) - from
	for k, v := range tail {
		switch {
		case k < g.n-from:
		case k < body && v != 0:
			return fmt.Errorf("internal: output overrun: byte %d past the %d-byte payload was overwritten (%#x)", from+k-g.n, g.n, v)
		case k >= body && v != poison:
			return fmt.Errorf("internal: output overrun: guard byte %d after the output was overwritten (%#x)", k-body, v)
		}
	}
	return nil
}

// Upload copies t into a new tensor on the device: a *tensor.Tensor whose
// Data is nil and whose Storage is a *Tensor, which the device's calls
// read in place — through engine.Run, a chain (engine.Chain) or a kernel
// method — and Tensor.Host (or Read) copies back. t is not kept.
func (d *Device) Upload(t *tensor.Tensor) (*tensor.Tensor, error) {
	if err := t.Check(); err != nil {
		return nil, fmt.Errorf("gpu: upload: %v", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.upload(t)
}

// upload is Upload with d.mu held. The copy is queued (a submission of its
// own, not waited for): the queue runs every later call after it.
func (d *Device) upload(t *tensor.Tensor) (*tensor.Tensor, error) {
	j := d.self.transfer("upload")
	b := j.newResident("tensor", len(t.Data), t.Data)
	if b == nil {
		err := j.err
		j.run() // pops the scopes, gives the staging buffers back
		return nil, err
	}
	if err := j.submitOnly(); err != nil {
		b.b.Destroy()
		b.b.Release()
		return nil, err
	}
	g := &Tensor{d: d.self, dtype: t.DType, shape: append([]int{}, t.Shape...), n: len(t.Data), buf: b}
	d.track(g)
	return tensor.OnStorage(t.DType, t.Shape, g), nil
}

// submitOnly submits a job that reads nothing back (an upload's staging
// copies) without waiting for it, and gives its buffers back: the queue
// runs whatever later reuses them after it.
func (j *job) submitOnly() error {
	d := j.d
	defer func() {
		d.recycle(j.bufs)
		if j.enc != nil {
			j.enc.Release()
		}
	}()
	if j.err != nil {
		d.plat.popScopes(d)
		return j.err
	}
	cmd, err := j.enc.Finish(nil)
	if err != nil {
		d.plat.popScopes(d)
		return fmt.Errorf("gpu: %s: encode: %v", j.op, err)
	}
	d.queue.Submit(cmd)
	cmd.Release()
	if err := d.plat.popScopes(d); err != nil {
		return fmt.Errorf("gpu: %s: %v", j.op, err)
	}
	return d.lostErr()
}

// track records a live device tensor, whose buffer Close destroys.
func (d *Device) track(g *Tensor) {
	d.tmu.Lock()
	defer d.tmu.Unlock()
	if d.live == nil {
		d.live = map[*Tensor]struct{}{}
	}
	d.live[g] = struct{}{}
}

// Release gives the tensor's device memory back for reuse (tensor.Storage;
// Tensor.Release calls it). A chain that was recorded and not yet ended
// keeps the buffer until it ends. Releasing twice is an error.
func (g *Tensor) Release() error {
	d := g.d
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tmu.Lock()
	if g.released {
		d.tmu.Unlock()
		return errors.New("gpu: release: the tensor was released already")
	}
	g.released = true
	free := g.pins == 0 && g.pend == nil
	d.tmu.Unlock()
	if free {
		d.free(g)
	}
	return nil
}

// free gives g's buffer back to the pool (d.mu held), once nothing can
// read it or write it.
func (d *Device) free(g *Tensor) {
	d.tmu.Lock()
	b := g.buf
	g.buf = nil
	delete(d.live, g)
	d.tmu.Unlock()
	if b == nil || d.closed || d.wedged {
		return
	}
	d.recycle([]*buffer{b})
}

// dropTensors destroys every live tensor's buffer (Close).
func (d *Device) dropTensors() {
	d.tmu.Lock()
	defer d.tmu.Unlock()
	for g := range d.live {
		if g.buf != nil {
			g.buf.b.Destroy()
			g.buf.b.Release()
			g.buf = nil
		}
	}
	d.live = nil
}
