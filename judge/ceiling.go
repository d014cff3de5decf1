package judge

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/tensor"
)

// The copy ceiling: the bandwidth of a plain copy — on the CPU a memmove
// on one thread and, from parallelFrom up, split across every thread; on
// a GPU a device buffer copy — which no kernel that moves its bytes_moved
// can beat. It counts read + write bytes, as the contracts' bytes_moved
// formulas do. It is a curve, not one number: a kernel's speed depends on
// whether its bytes fit in a cache, and so does a copy's. The sizes double
// from ceilingFrom, as the sweep's do, while the ceiling's share of the
// budget lasts; each kernel point is compared with the copy of its own
// bytes (Ceiling.Curve: the copies on either side, interpolated), and
// Ceiling.GBps is the largest size's, past the caches.

// ceiling times copies on one device.
type ceiling interface {
	method(threads int) string
	// limit is the largest buffer worth copying.
	limit() uint64
	// modes are the ways of copying n bytes to time: false on one thread
	// (or the device's own copy), true split over every thread.
	modes(n uint64) []bool
	// copyNs takes samples: ns per copy of n bytes, each the mean of
	// batch back-to-back copies (a device batches on its own); one or
	// several.
	copyNs(n uint64, split bool, batch int) ([]float64, error)
	release()
}

const (
	ceilingFrom  = 64
	ceilingReps  = 5
	parallelFrom = 256 << 10 // a split copy of less pays more to start its goroutines than it saves
)

type ceilState struct {
	s        *Sweep
	c        ceiling
	deadline time.Time
	n        uint64
	modes    []bool    // the size's modes left to time, the current first
	samples  []float64 // of the current mode
	batch    int
	best     float64 // the size's best median so far (ns)
	single   float64 // the size's one-thread median
	split    bool    // the best median was the split copy's
	sizeFrom time.Time
	lastCost time.Duration
	done     bool
}

// newCeilState gives the ceiling a twentieth of the budget (at least two
// seconds where the budget is at least eight).
func newCeilState(s *Sweep) *ceilState {
	share := max(s.opt.Budget/20, min(2*time.Second, s.opt.Budget/4))
	return &ceilState{s: s, c: s.ceil, deadline: s.now().Add(share), n: ceilingFrom}
}

func (cs *ceilState) fail(err error) {
	if len(cs.s.rep.Ceiling.Points) == 0 {
		cs.s.rep.Ceiling.Error = err.Error()
	}
	cs.finish()
}

// step takes one sample of the size in progress (starting the next size
// first, with an untimed copy that faults its pages in and sets the batch).
func (cs *ceilState) step() {
	s := cs.s
	if len(cs.modes) == 0 {
		if cs.n > cs.c.limit() || (cs.lastCost > 0 && s.now().Add(2*cs.lastCost).After(cs.deadline)) {
			cs.finish()
			return
		}
		cs.sizeFrom, cs.modes, cs.best, cs.single = s.now(), cs.c.modes(cs.n), math.Inf(1), 0
	}
	if len(cs.samples) == 0 {
		if _, err := cs.c.copyNs(cs.n, cs.modes[0], 1); err != nil {
			cs.fail(err)
			return
		}
		// The batch: copies enough for a sample of minSample, from a
		// first few (a 64-byte copy takes nanoseconds).
		warm, err := cs.c.copyNs(cs.n, cs.modes[0], int(max(1, min(1024, (1<<20)/cs.n))))
		if err != nil {
			cs.fail(err)
			return
		}
		cs.batch = 1
		if w := median(warm); w > 0 {
			cs.batch = int(min(1e6, math.Ceil(s.minSample/w)))
		}
	}
	ns, err := cs.c.copyNs(cs.n, cs.modes[0], cs.batch)
	if err != nil {
		cs.fail(err)
		return
	}
	cs.samples = append(cs.samples, ns...)
	if len(cs.samples) < ceilingReps {
		return
	}
	med := median(slices.Clone(cs.samples))
	if !cs.modes[0] {
		cs.single = med
	}
	if med < cs.best {
		cs.best, cs.split = med, cs.modes[0]
	}
	cs.samples, cs.modes = nil, cs.modes[1:]
	if len(cs.modes) > 0 {
		return
	}
	p := Point{Elems: int(cs.n), Bytes: 2 * float64(cs.n), Ns: cs.best, MinNs: cs.best, Samples: ceilingReps, Batch: cs.batch, Workers: 1}
	if cs.split {
		p.Workers = runtime.GOMAXPROCS(0)
	}
	c := &s.rep.Ceiling
	c.Points = append(c.Points, p)
	if _, ok := cs.c.(hostCopy); ok && cs.single > 0 {
		c.SingleThreadGBps = p.Bytes / cs.single
	}
	cs.lastCost = s.now().Sub(cs.sizeFrom)
	cs.n *= 2
}

func (cs *ceilState) finish() {
	if cs.done {
		return
	}
	s := cs.s
	c := &s.rep.Ceiling
	c.Method = cs.c.method(runtime.GOMAXPROCS(0))
	if n := len(c.Points); n > 0 {
		// The best copy at the largest size: all threads, or one where
		// other processes hold the rest.
		p := c.Points[n-1]
		c.GBps, c.Bytes = p.Bytes/p.Ns, p.Bytes
		if lim := cs.c.limit(); uint64(p.Elems) < lim {
			c.Note = fmt.Sprintf("the budget stopped the copies at %s of the %s buffers planned: a copy that small may stay in a cache and run faster than memory does", fmtBytes(float64(p.Elems)), fmtBytes(float64(lim)))
		}
	} else if c.Error == "" {
		c.Error = "the budget left no time for the copy ceiling"
	}
	cs.c.release()
	cs.done = true
}

// Curve is the copy ceiling as a function of size: the GB/s of a copy
// that moves bytes (read + write), 0 where there is none to compare with.
type Curve func(bytes float64) float64

// Flat is a ceiling of one bandwidth at every size (0: none).
func Flat(gbps float64) Curve {
	if gbps <= 0 {
		return nil
	}
	return func(float64) float64 { return gbps }
}

// Curve is the ceiling at each size: between two measured copies their
// bandwidths interpolated on log-log axes (the sizes double, as the
// sweep's do), below the smallest copy its bandwidth, above the largest
// the largest's (memory speed). A report without points (written before
// the ceiling was a curve) has one bandwidth, GBps, at every size.
func (c *Ceiling) Curve() Curve {
	type bw struct{ lx, ly float64 }
	var pts []bw
	for _, p := range c.Points {
		if p.Bytes > 0 && p.Ns > 0 {
			pts = append(pts, bw{math.Log(p.Bytes), math.Log(p.Bytes / p.Ns)})
		}
	}
	slices.SortFunc(pts, func(a, b bw) int { return cmpFloat(a.lx, b.lx) })
	if len(pts) == 0 {
		return Flat(c.GBps)
	}
	return func(bytes float64) float64 {
		if !(bytes > 0) {
			return 0
		}
		lx := math.Log(bytes)
		i, _ := slices.BinarySearchFunc(pts, lx, func(p bw, x float64) int { return cmpFloat(p.lx, x) })
		switch {
		case i == 0:
			return math.Exp(pts[0].ly)
		case i == len(pts):
			return math.Exp(pts[len(pts)-1].ly)
		}
		a, b := pts[i-1], pts[i]
		return math.Exp(a.ly + (lx-a.lx)/(b.lx-a.lx)*(b.ly-a.ly))
	}
}

// hostCopy is the CPU's ceiling: copy(dst, src) of n bytes on the calling
// thread, or split into one contiguous stretch per thread. Both buffers
// are allocated once at the limit and each size copies a prefix, so a
// size touches only the pages the last one did not: first touches are
// slow (on a VM that backs guest memory lazily, tens of µs a page) and are
// no part of a copy's speed.
type hostCopy struct{ bufs *[2][]byte }

func (hostCopy) method(threads int) string {
	if threads <= 1 {
		return "memmove on one thread"
	}
	return fmt.Sprintf("memmove on one thread, and from %s split over %d goroutines; the better at each size", fmtBytes(parallelFrom), threads)
}

// limit: 64 MiB a buffer, twice the largest last-level cache per CPU die
// of the machines this runs on (the copy then runs at memory speed).
func (hostCopy) limit() uint64 { return 64 << 20 }

func (hostCopy) modes(n uint64) []bool {
	if n >= parallelFrom && runtime.GOMAXPROCS(0) > 1 {
		return []bool{false, true}
	}
	return []bool{false}
}

func (h hostCopy) copyNs(n uint64, split bool, batch int) ([]float64, error) {
	b := h.bufs
	if b[0] == nil {
		if err := tensor.CheckAlloc("the copy ceiling's buffers", int(2*h.limit())); err != nil {
			return nil, err
		}
		b[0], b[1] = make([]byte, h.limit()), make([]byte, h.limit())
	}
	if n > uint64(len(b[0])) {
		return nil, fmt.Errorf("copy ceiling: %d bytes past the %d-byte buffers", n, len(b[0]))
	}
	batch = max(1, batch)
	dst, src := b[1][:n], b[0][:n]
	if split {
		t0 := time.Now()
		for range batch {
			parallelCopy(dst, src, runtime.GOMAXPROCS(0))
		}
		return []float64{float64(time.Since(t0).Nanoseconds()) / float64(batch)}, nil
	}
	// On the calling thread, timed by its CPU clock where the OS has
	// one, as the kernels are (engineTimer).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	th0, _, ok := cpuTimes()
	t0 := time.Now()
	for range batch {
		copy(dst, src)
	}
	wall := float64(time.Since(t0).Nanoseconds())
	if th1, _, ok1 := cpuTimes(); ok && ok1 && th1 > th0 {
		return []float64{(th1 - th0) / float64(batch)}, nil
	}
	return []float64{wall / float64(batch)}, nil
}

func (h hostCopy) release() { h.bufs[0], h.bufs[1] = nil, nil; runtime.GC() }

func newHostCopy() hostCopy { return hostCopy{bufs: &[2][]byte{}} }

// parallelCopy copies src to dst in `threads` contiguous, cache-line
// aligned stretches at once.
func parallelCopy(dst, src []byte, threads int) {
	n := len(src)
	chunk := (n/threads + 63) &^ 63
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	wg.Wait()
}

// deviceCopy is a GPU's ceiling. Where the device has timestamps
// (Device.CopyKernelTime) it times copies as the kernels are timed: m
// copies back to back between two timestamps, a pass each, as a kernel's
// repeated passes, their mean a sample. Elsewhere Device.CopyTime on one
// pair of buffers: submissions of 1 and of 1 + m copies taking turns; a
// sample is their difference over m, which cancels a submission's fixed
// latency. m is set from the last size so that the m copies last about 2 ms.
type deviceCopy struct {
	c       copier
	maxBuf  uint64
	perB    *float64 // ns per byte of the last size's copies (0: none yet)
	stamped *bool    // the copies are timed by timestamps (set by the first size)
}

// kernelCopier is a device that times a copy by its timestamps.
type kernelCopier interface {
	CopyKernelTime(bytes uint64, passes, samples int) ([]time.Duration, error)
}

func (d deviceCopy) method(int) string {
	if d.stamped != nil && *d.stamped {
		return "GPU compute copy (copy.wgsl: 16-byte loads and stores), timed by GPU timestamps as the kernels"
	}
	return "GPU compute copy (copy.wgsl: 16-byte loads and stores)"
}

func (d deviceCopy) limit() uint64 {
	if d.maxBuf == 0 {
		return 1 << 30
	}
	return min(1<<30, d.maxBuf)
}

func (deviceCopy) modes(uint64) []bool { return []bool{false} }

// copyNs batches on its own (m copies a submission): batch is not used.
func (d deviceCopy) copyNs(n uint64, _ bool, _ int) ([]float64, error) {
	if d.c == nil {
		return nil, fmt.Errorf("this device offers no buffer copy to time")
	}
	m := 8
	if *d.perB > 0 {
		m = int(min(256, max(4, math.Ceil(2e6/(*d.perB*float64(n))))))
	}
	if kc, ok := d.c.(kernelCopier); ok && d.stamped != nil && *d.stamped {
		out, err := stampedNs(kc, n, min(m, 4096), ceilingReps)
		if err == nil {
			*d.perB = median(slices.Clone(out)) / float64(n)
			return out, nil
		}
		*d.stamped = false // no timestamps after all: the submissions' differences
	}
	counts := make([]int, 0, 2*ceilingReps)
	for range ceilingReps {
		counts = append(counts, 1, 1+m)
	}
	ts, err := d.c.CopyTime(n, counts...)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, ceilingReps)
	for i := 0; i+1 < len(ts); i += 2 {
		per := float64((ts[i+1] - ts[i]).Nanoseconds()) / float64(m)
		if per <= 0 { // jitter larger than m copies: the long submission's own time
			per = float64(ts[i+1].Nanoseconds()) / float64(1+m)
		}
		out = append(out, per)
	}
	*d.perB = median(slices.Clone(out)) / float64(n)
	return out, nil
}

// stampedNs is CopyKernelTime's samples in ns: passes copies of n bytes
// a sample, their mean.
func stampedNs(kc kernelCopier, n uint64, passes, samples int) ([]float64, error) {
	ts, err := kc.CopyKernelTime(n, passes, samples)
	if err != nil {
		return nil, err
	}
	ns := make([]float64, len(ts))
	for i, t := range ts {
		ns[i] = float64(t.Nanoseconds())
	}
	return ns, nil
}

func (deviceCopy) release() {}

func newDeviceCopy(c copier, maxBuf uint64) deviceCopy {
	_, stamped := c.(kernelCopier)
	return deviceCopy{c: c, maxBuf: maxBuf, perB: new(float64), stamped: &stamped}
}

// describe names the device a sweep runs on.
func describe(b engine.Backend, dev any, maxBuf uint64) Device {
	if b == engine.CPU {
		name := cpuModel()
		if name == "" {
			name = runtime.GOARCH + " CPU"
		}
		return Device{Name: name, Backend: string(b)}
	}
	d := Device{Name: "GPU", Backend: string(b), MaxBufferBytes: maxBuf}
	if st, ok := dev.(fmt.Stringer); ok {
		d.Name = st.String()
	}
	if dn, ok := dev.(driverName); ok {
		d.Driver = dn.Driver()
	}
	return d
}

func host() Host {
	return Host{GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPU: cpuModel(),
		CPUs: runtime.NumCPU(), Threads: runtime.GOMAXPROCS(0)}
}

// DeviceCopyGBps is the Judge's GPU copy ceiling at one size, for a
// caller that needs only that figure (fkc lab bench's physical floor):
// the median of deviceCopy's samples, read + write bytes over time. With
// stamped, the copies are timed by the GPU's timestamps (the device must
// offer CopyKernelTime), one copy a call, as a kernel call is timed.
func DeviceCopyGBps(c interface {
	CopyTime(bytes uint64, copies ...int) ([]time.Duration, error)
}, bytes uint64, stamped bool) (float64, error) {
	if stamped {
		kc, ok := c.(kernelCopier)
		if !ok {
			return 0, fmt.Errorf("this device offers no timestamped copy")
		}
		ns, err := stampedNs(kc, bytes, 1, 2*ceilingReps-1)
		if err != nil {
			return 0, err
		}
		return 2 * float64(bytes) / median(ns), nil
	}
	var perB float64
	no := false
	d := deviceCopy{c: c, perB: &perB, stamped: &no}
	if _, err := d.copyNs(bytes, false, 1); err != nil { // sets the copy count m from a first round
		return 0, err
	}
	ns, err := d.copyNs(bytes, false, 1)
	if err != nil {
		return 0, err
	}
	med := median(ns)
	if !(med > 0) {
		return 0, fmt.Errorf("copy of %d bytes timed at %v ns", bytes, med)
	}
	return 2 * float64(bytes) / med, nil
}
