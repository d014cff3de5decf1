package gpu

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// One kernel call: its buffers, dispatches and readback.

// job collects the buffers and passes of one kernel call. The first error
// sticks; later steps become no-ops, and run() returns it.
type job struct {
	d      *Device
	op     string
	t0     time.Time
	enc    *wgpu.CommandEncoder
	err    error
	bufs   []*buffer
	outs   []*outBuf
	passes []pass
	// once: the passes accumulate into their outputs (atomics into a
	// zeroed buffer), so they must not be repeated (Device.SetKernelRepeat).
	once bool
	// submitted: when the call's first work reached the queue (an upload
	// streamed ahead of its passes), or zero.
	submitted time.Time
	// soleInput: the call has one large input (a reduction's x), which may
	// stream in pieces at a smaller size (device_native.go).
	soleInput bool
	// reps, when set, is how many times the passes run (a lab bench),
	// whatever the device's SetKernelRepeat says.
	reps int
	// ch: the chain this job records into (the device is a recording
	// view, Device.rec): run() adds it there instead of submitting.
	ch *chain
	// afters are the host's checks of the call's results (an index error
	// word), run once its outputs are back: at the end of run(), or of
	// the chain's submission.
	afters []func() error
	// reads: the device tensors the call binds; made: those it writes
	// (a chain's outputs, Tensor).
	reads, made []*Tensor
	// quiet: a transfer (Read, Upload), which leaves the device's clocks
	// of its last call as they were.
	quiet bool
}

// pass is one recorded compute dispatch, encoded by run().
type pass struct {
	p    *pipe
	bg   *wgpu.BindGroup
	x, y uint32
}

// buffer is a wgpu buffer with its size (the JS binding has no GetSize):
// size is what the call binds and copies, capacity what was allocated
// (a pool size class, see Device.get).
type buffer struct {
	b        *wgpu.Buffer
	size     uint64
	capacity uint64
	usage    wgpu.BufferUsage
	pooledAt uint64 // when it was last returned to the pool (Device.poolSeq)
	// offset: where a view of another buffer (a device tensor's payload,
	// Tensor.view) starts; a view is in no job's bufs and never pooled.
	offset uint64
}

// outBuf is a buffer whose contents come back to the host. Guarded buffers
// carry guardWords poisoned words before and after the payload.
type outBuf struct {
	buf     *buffer
	payload int // bytes the caller asked for
	guarded bool
	stage   *buffer
	// stageOff: where the output starts in its staging buffer (several
	// small outputs share one, job.stageOuts).
	stageOff uint64
	size     uint64
	into     []byte // where the payload lands (len payload), or nil: a new slice
	data     []byte // payload after run()
	// result (outputTensor): the tensor whose Data is allocated while the
	// device runs, then receives the payload; ready closes once allocated.
	result *tensor.Tensor
	ready  chan struct{}
	// mapping: the staging buffer's map request, made right after the
	// submit where the platform does so (the browser's promise).
	mapping any
}

// begin starts a kernel call. Call with d.mu held. On a chain's
// recording view the call joins the chain's command encoder.
func (d *Device) begin(op string) *job {
	if d.rec == nil && d.steady > 0 && time.Since(d.lastWarm) > time.Second && op != "warm_clocks" {
		d.warm(d.steady) // best effort: a failure shows in the call itself
	}
	return d.start(op, false)
}

// transfer starts a job that moves a device tensor's bytes (Read, Upload):
// no warm-up, and the clocks of the last call stay as they were.
func (d *Device) transfer(op string) *job { return d.self.start(op, true) }

func (d *Device) start(op string, quiet bool) *job {
	j := &job{d: d, op: op, t0: time.Now(), ch: d.rec, quiet: quiet}
	if err := d.lostErr(); err != nil {
		j.err = err
		return j
	}
	d.plat.pushScopes(d)
	if j.ch != nil {
		j.enc, j.err = j.ch.encoder()
		return j
	}
	enc, err := d.dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: op})
	if err != nil {
		j.err = fmt.Errorf("gpu: %s: command encoder: %v", op, err)
		return j
	}
	j.enc = enc
	return j
}

func (j *job) fail(format string, args ...any) {
	if j.err == nil {
		j.err = fmt.Errorf(format, args...)
	}
}

func round4(n int) int { return (n + 3) &^ 3 }

// checkSize validates a buffer size against the adapter's limits before
// anything is allocated.
func (j *job) checkSize(what string, size uint64) bool {
	if err := j.d.limitErr(j.op, what, size); err != nil {
		if j.err == nil {
			j.err = err
		}
		return false
	}
	return true
}

// limitErr says (as *kernels.Unavailable) that a size-byte buffer exceeds
// this adapter's limits; nil if it fits.
func (d *Device) limitErr(op, what string, size uint64) error {
	lim := d.info
	switch {
	case size > lim.MaxStorageBufferBindingSize:
		return &kernels.Unavailable{Kernel: op, Need: fmt.Sprintf("%s: a %d-byte storage buffer; this adapter allows %d, maxStorageBufferBindingSize", what, size, lim.MaxStorageBufferBindingSize)}
	case size > lim.MaxBufferSize:
		return &kernels.Unavailable{Kernel: op, Need: fmt.Sprintf("%s: a %d-byte buffer; this adapter allows %d, maxBufferSize", what, size, lim.MaxBufferSize)}
	}
	return nil
}

// sized is a buffer a call will need: its name and its size in bytes,
// computed arithmetically (in uint64, from shapes) before anything exists.
type sized struct {
	what  string
	bytes uint64
}

// fits checks every buffer of a call against the adapter's limits before
// any host table, host tensor or device buffer is built, so an oversized
// call fails at once instead of allocating first.
func (d *Device) fits(op string, bufs ...sized) error {
	for _, b := range bufs {
		if err := d.limitErr(op, b.what, b.bytes); err != nil {
			return err
		}
	}
	return nil
}

// outBytes is the size of a guarded output buffer with a payload of n
// bytes (outputInit's layout), computed without overflow for any n >= 0.
func outBytes(n int) uint64 {
	return 4 * (max(1, (uint64(n)+3)/4) + 2*guardWords)
}

// outSized is a guarded output of n payload bytes, for fits: its name
// says the guard words are in its size (an output of exactly the binding
// limit was refused with a size 128 bytes over it, and no word why).
func outSized(what string, n int) sized {
	return sized{what + guardNote, outBytes(n)}
}

// guardNote follows a guarded output's name in a limit error.
var guardNote = fmt.Sprintf(" (its data and %d guard bytes)", 4*2*guardWords)

// inBytes is the size of an input buffer of n bytes (input's layout):
// whole 16-byte units, so that a vec4 view of it (reduce.wgsl's x4) covers
// the last, partial unit too — past the binding's end robust access reads
// zeros or clamps (NVIDIA dropped the tail of a ragged sum that way).
func inBytes(n int) uint64 {
	return max(16, (uint64(n)+15)&^15)
}

// ---- buffers and the pool ----

// region is a stretch of a new buffer's initial content.
type region struct {
	offset uint64
	data   []byte // a whole number of words, except an input's last region
}

// filled returns a buffer of size bytes holding the given regions; the
// rest is zero when zero is set, and unspecified otherwise (a pooled
// buffer keeps an earlier call's bytes: only for bodies that the kernel
// overwrites). How the bytes get there is the platform's business (fill
// in device_native.go / device_js.go).
func (j *job) filled(what string, size uint64, usage wgpu.BufferUsage, zero bool, regions ...region) *buffer {
	if j.err != nil || !j.checkSize(what, size) {
		return nil
	}
	b, err := j.fill(what, size, usage, zero, regions)
	if err != nil {
		j.fail("gpu: %s: %s buffer (%d bytes): %v", j.op, what, size, err)
		return nil
	}
	return b
}

// guards is the guard words at each end of the call's outputs: GUARD in
// its pipelines (Device.pipeline), larger for a chain's device tensors.
func (j *job) guards() int {
	if j.ch != nil {
		return devGuardWords
	}
	return guardWords
}

// input uploads read-only data (zero-padded to whole words).
func (j *job) input(what string, data []byte) *buffer {
	return j.filled(what, inBytes(len(data)), wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst, false, region{0, data})
}

// sole uploads a call's only large input (input, marked soleInput).
func (j *job) sole(what string, data []byte) *buffer {
	j.soleInput = true
	return j.input(what, data)
}

// words uploads u32 parameters.
func (j *job) words(what string, w []uint32) *buffer {
	b := make([]byte, 4*max(1, len(w)))
	for i, v := range w {
		putU32(b[4*i:], v)
	}
	return j.input(what, b)
}

// output allocates a read-back buffer that the kernel overwrites element by
// element. Guarded outputs get guardWords poisoned words at both ends and
// poisoned tail lanes; init (if non-nil, len == payload) is the payload's
// initial content — else the body is unspecified (the kernel writes all of
// it), and poison when the device's poisonBodies is set (tests), so an
// element a kernel forgets to write cannot pass for a correct value.
func (j *job) output(what string, payload int, init []byte, guarded bool) *outBuf {
	if init == nil && guarded && j.d.poisonBodies {
		init = bytes.Repeat([]byte{poison}, payload)
	}
	return j.outputInit(what, payload, init, guarded, false)
}

// outputTensor is a guarded output whose payload lands in t (dtype and
// shape set, no Data yet): t.Data is allocated — and zeroed by Go, a
// memory-bound pass as long as the result — on another goroutine while the
// device runs the call, then receives the payload straight from the
// mapping.
func (j *job) outputTensor(what string, t *tensor.Tensor) *outBuf {
	if j.ch != nil {
		return j.residentOutput(what, t)
	}
	o := j.output(what, tensor.NumElems(t.Shape)*t.DType.Size(), nil, true)
	o.result = t
	return o
}

// accumulator allocates a read-back buffer that starts zeroed because the
// kernel adds into it (pad backward's CAS accumulation, counters).
func (j *job) accumulator(what string, payload int, guarded bool) *outBuf {
	j.once = true
	return j.outputInit(what, payload, nil, guarded, true)
}

func (j *job) outputInit(what string, payload int, init []byte, guarded, zero bool) *outBuf {
	if guarded && j.ch != nil {
		// a chain's results are device tensors (residentOutput); a guarded
		// buffer the host reads back has no place in one
		j.fail("gpu: %s: its %s is read back as it is made, which a chain cannot do (run the call on its own)", j.op, what)
	}
	words := max(1, round4(payload)/4)
	g := 0
	if guarded {
		g = guardWords
	}
	size := uint64(4 * (words + 2*g))
	// Only the guard words, the last (possibly partial) payload word with
	// its poisoned tail lanes, and an explicit init are uploaded: the body
	// is the kernel's to write (or zero, for an accumulator), which keeps
	// the end-to-end time free of an output-sized copy.
	var regions []region
	if init != nil {
		regions = append(regions, region{uint64(4 * g), init[:payload&^3]})
	}
	if guarded {
		head := bytes.Repeat([]byte{poison}, 4*g)
		from := 4*g + payload&^3
		tail := make([]byte, int(size)-from)
		if init != nil {
			copy(tail, init[payload&^3:])
		}
		for i := payload & 3; i < len(tail); i++ {
			tail[i] = poison
		}
		regions = append(regions, region{0, head}, region{uint64(from), tail})
	} else if init != nil && payload&3 != 0 {
		tail := make([]byte, 4)
		copy(tail, init[payload&^3:])
		regions = append(regions, region{uint64(payload &^ 3), tail})
	}
	if guarded && !j.checkSize(what+guardNote, size) {
		return &outBuf{}
	}
	b := j.filled(what, size, wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc|wgpu.BufferUsageCopyDst, zero, regions...)
	if b == nil {
		return &outBuf{}
	}
	o := &outBuf{buf: b, payload: payload, guarded: guarded, size: size}
	j.outs = append(j.outs, o)
	return o
}

// scratch allocates a device-only read-write buffer whose content the
// kernels write before they read it.
func (j *job) scratch(what string, bytes int) *buffer {
	return j.filled(what, inBytes(bytes), wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst, false)
}

// zeros allocates a device-only read-write buffer that starts zeroed
// (counters that kernels add into atomically).
func (j *job) zeros(what string, bytes int) *buffer {
	j.once = true
	return j.zeroedReset(what, bytes)
}

// zeroedReset is zeros for a kernel that leaves the buffer zeroed again
// when it finishes, so the call's passes may be repeated.
func (j *job) zeroedReset(what string, bytes int) *buffer {
	return j.filled(what, inBytes(bytes), wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst, true)
}

// groups converts a thread count to workgroups.
func groupsFor(threads uint64) uint64 { return (threads + wgSize - 1) / wgSize }

// grid lays `groups` workgroups out as x × y: one row, or rows of
// maxComputeWorkgroupsPerDimension past it (the shaders bound-check the
// flat id group_id, so the grid's tail is harmless).
func (d *Device) grid(groups uint64) (x, y uint32, err error) {
	maxX := uint64(d.info.MaxComputeWorkgroupsPerDimension)
	if maxX == 0 {
		maxX = 65535
	}
	gx, gy := groups, uint64(1)
	if groups > maxX {
		gx = maxX
		gy = (groups + maxX - 1) / maxX
	}
	if gy > maxX || groups*wgSize > 1<<32 {
		return 0, 0, fmt.Errorf("%d workgroups exceed this adapter's grid (%d x %d) or the kernels' 32-bit thread index", groups, maxX, maxX)
	}
	return uint32(gx), uint32(gy), nil
}

// dispatch records one compute pass running p over `groups` workgroups
// (split into a 2-D grid past maxComputeWorkgroupsPerDimension; the shaders
// bound-check the flat id, so the grid's tail is harmless). The pass is
// encoded by run(), after every upload of the call.
func (j *job) dispatch(p *pipe, groups uint64, bufs ...*buffer) {
	if j.err != nil || groups == 0 {
		return
	}
	if len(bufs) != len(p.rw) {
		j.fail("gpu: %s: internal: %s takes %d bindings, got %d", j.op, p.name, len(p.rw), len(bufs))
		return
	}
	x, y, err := j.d.grid(groups)
	if err != nil {
		j.fail("gpu: %s: %v", j.op, err)
		return
	}
	entries := make([]wgpu.BindGroupEntry, len(bufs))
	for i, b := range bufs {
		if b == nil {
			j.fail("gpu: %s: internal: nil buffer for binding %d of %s", j.op, i, p.name)
			return
		}
		entries[i] = wgpu.BindGroupEntry{Binding: uint32(i), Buffer: b.b, Offset: b.offset, Size: b.size}
	}
	bg, err := j.d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: p.name, Layout: p.layout, Entries: entries})
	if err != nil {
		j.fail("gpu: %s: bind group for %s: %v", j.op, p.name, err)
		return
	}
	j.passes = append(j.passes, pass{p: p, bg: bg, x: x, y: y})
}

// encodePasses records the call's passes between the two kernel-time
// stamps, `repeat` times over when the device is timing repeats and the
// passes can be repeated (they overwrite what they write).
func (j *job) encodePasses() int {
	reps := max(1, j.d.repeat)
	if j.reps > 0 {
		reps = j.reps
	}
	if j.once {
		reps = 1
	}
	j.d.plat.stampBegin(j)
	// One compute pass for all of the call's dispatches (WebGPU makes
	// each dispatch of a pass see the writes of those before it): a pass
	// per dispatch cost more per extra dispatch. A timing repeat gets a
	// pass of its own, as a call of its own would: repeats in one pass
	// under-measured the Judge's per-call overhead. Measurements:
	// docs/perf/gpu-device.md.
	for range reps {
		cp := j.enc.BeginComputePass(nil)
		for _, ps := range j.passes {
			cp.SetPipeline(ps.p.pipeline)
			cp.SetBindGroup(0, ps.bg, nil)
			cp.DispatchWorkgroups(ps.x, ps.y, 1)
		}
		cp.End()
		cp.Release()
	}
	return reps
}

// run submits the job, waits for every output to come back, checks guards
// and releases everything. It returns the first error of the whole call.
// A job of a chain is added to the chain instead (chain.add): its outputs
// stay on the device and its checks wait for the chain's submission.
func (j *job) run() error {
	if j.ch != nil {
		return j.ch.add(j)
	}
	d := j.d
	defer func() {
		if d.wedged {
			return // a map is still pending: destroying its buffer would run the callback
		}
		for _, ps := range j.passes {
			ps.bg.Release()
		}
		d.recycle(j.bufs)
		if j.enc != nil {
			j.enc.Release()
		}
	}()
	if j.enc == nil {
		if j.err == nil {
			j.err = fmt.Errorf("gpu: %s: no command encoder", j.op)
		}
		return j.err
	}
	if !j.quiet {
		d.lastKernel = 0
	}
	if j.err != nil {
		d.plat.popScopes(d)
		return j.err
	}
	// A transfer has no passes: nothing to time (and no stamp to resolve
	// that was never written).
	reps, stamps := 1, (*outBuf)(nil)
	if len(j.passes) > 0 {
		reps = j.encodePasses()
		stamps = d.plat.stampEnd(j)
	}
	j.stageOuts()
	cmd, err := j.enc.Finish(nil)
	if err != nil {
		j.fail("gpu: %s: encode: %v", j.op, err)
	}
	if j.err != nil {
		d.plat.popScopes(d)
		return j.err
	}
	t0 := time.Now()
	if !j.submitted.IsZero() {
		t0 = j.submitted // the device has been busy since the first upload
	}
	if !j.quiet {
		d.lastSetup = t0.Sub(j.t0)
	}
	d.queue.Submit(cmd)
	cmd.Release()
	for _, o := range j.outs {
		if o.result != nil {
			o.ready = make(chan struct{})
			go func(o *outBuf) {
				o.result.Data = tensor.New(o.result.DType, o.result.Shape).Data
				close(o.ready)
			}(o)
		}
	}
	d.plat.startMaps(j)
	if err := d.plat.popScopes(d); err != nil {
		return fmt.Errorf("gpu: %s: %v", j.op, err)
	}
	err = d.plat.readBack(d, j)
	if !j.quiet {
		d.last = time.Since(t0)
	}
	if err != nil {
		return fmt.Errorf("gpu: %s: %v", j.op, err)
	}
	if err := d.lostErr(); err != nil {
		return fmt.Errorf("gpu: %s: %v", j.op, err)
	}
	if !j.quiet {
		d.lastKernel = d.plat.kernelTime(stamps) / time.Duration(reps)
	}
	for _, f := range j.afters {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// sharedStageMax: readbacks up to this size (control words, guards, small
// results) share one staging buffer, so a call or a chain maps once
// however many of them it has; a larger one has its own.
const sharedStageMax = 64 << 10

// stageOuts copies every output into a staging buffer the host can map:
// the small ones side by side into one, each large one into its own.
func (j *job) stageOuts() {
	const mapRead = wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst
	var shared *buffer
	var total uint64
	for _, o := range j.outs {
		if o.size <= sharedStageMax {
			total += (o.size + 15) &^ 15
		}
	}
	for _, o := range j.outs {
		if j.err != nil {
			return
		}
		if o.size <= sharedStageMax {
			if shared == nil {
				if shared = j.get("readback", total, mapRead, false); shared == nil {
					return
				}
				shared.size = 0 // grows to the offset past each output staged in it
			}
			o.stage, o.stageOff = shared, shared.size
			shared.size += (o.size + 15) &^ 15
		} else if o.stage = j.get("readback", o.size, mapRead, false); o.stage == nil {
			return
		}
		if err := j.enc.CopyBufferToBuffer(o.buf.b, o.buf.offset, o.stage.b, o.stageOff, o.size); err != nil {
			j.fail("gpu: %s: copy to readback: %v", j.op, err)
		}
	}
}

// stages lists the distinct staging buffers of the job's outputs, in order.
func (j *job) stages() []*buffer {
	var out []*buffer
	for _, o := range j.outs {
		if o.stage != nil && !slices.Contains(out, o.stage) {
			out = append(out, o.stage)
		}
	}
	return out
}

// after adds a check of the call's results, run once they are back
// (index.go: the error word).
func (j *job) after(f func() error) { j.afters = append(j.afters, f) }

// mapped is a staging buffer's bytes as read back: natively the mapped
// range itself (goBytes); in the browser the mapped ArrayBuffer, copied
// out of only where take needs its bytes.
type mapped interface {
	read(off, n int) []byte       // bytes [off, off+n) (a guard, a tail: small)
	copyInto(dst []byte, off int) // bytes [off, off+len(dst)) into dst
}

// goBytes is a mapped range already in Go memory.
type goBytes []byte

func (m goBytes) read(off, n int) []byte       { return m[off : off+n] }
func (m goBytes) copyInto(dst []byte, off int) { pcopy(dst, m[off:off+len(dst)]) }

// take checks a mapped readback (guard words, tail lanes) and copies its
// payload to o.into (or a new slice) as o.data.
func (j *job) take(o *outBuf, m mapped) error {
	if !o.guarded {
		if o.into == nil {
			o.into = make([]byte, o.payload)
		}
		m.copyInto(o.into[:o.payload], 0)
		o.data = o.into
		return nil
	}
	for k, v := range m.read(0, 4*guardWords) {
		if v != poison {
			return fmt.Errorf("internal: guard word before the output was overwritten (byte %d = %#x)", k, v)
		}
	}
	if o.ready != nil {
		<-o.ready
		o.into = o.result.Data
	}
	body := 4 * guardWords
	for k, v := range m.read(body+o.payload, int(o.size)-body-o.payload) {
		if v != poison {
			return fmt.Errorf("internal: output overrun: byte %d past the %d-byte payload was overwritten (%#x)", k, o.payload, v)
		}
	}
	if o.into == nil {
		o.into = make([]byte, o.payload)
	}
	m.copyInto(o.into, body)
	o.data = o.into
	return nil
}

// pcopy copies src into dst (equal lengths) with several goroutines when
// it is large: a readback or upload of tens of megabytes is host-memory
// bound, and first-touch page faults of a new result run in parallel.
// Pieces from 512 KiB to 4 MiB gave the same wall time within noise on a
// 16-core host (docs/perf/gpu-device.md).
func pcopy(dst, src []byte) {
	const piece = 4 << 20
	n := len(src)
	workers := min(runtime.GOMAXPROCS(0), 16, n/piece)
	if workers < 2 {
		copy(dst, src)
		return
	}
	var wg sync.WaitGroup
	per := (n/workers + 63) &^ 63
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	wg.Wait()
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
