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

// The copy ceiling: the bandwidth of a plain copy of a large buffer — on
// the CPU a memmove split across every thread, on a GPU a device buffer
// copy — which no kernel that moves its bytes_moved can beat. It counts
// read + write bytes, as the contracts' bytes_moved formulas do. The sizes
// double from 1 MiB while its share of the budget lasts (so the largest
// lies well past the caches); the ceiling is the largest size's bandwidth.

// ceiling times copies on one device.
type ceiling interface {
	method(threads int) string
	// limit is the largest buffer worth copying.
	limit() uint64
	// copyNs takes samples: ns per copy of n bytes (single: on one
	// thread); one or several.
	copyNs(n uint64, single bool) ([]float64, error)
	release()
}

const (
	ceilingFrom   = 1 << 20
	ceilingReps   = 5
	ceilingSingle = 3 // samples of the one-thread copy
)

type ceilState struct {
	s        *Sweep
	c        ceiling
	deadline time.Time
	n        uint64
	samples  []float64
	single   bool
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

func (cs *ceilState) step() {
	s := cs.s
	if len(cs.samples) == 0 {
		if !cs.single && (cs.n > cs.c.limit() || (cs.lastCost > 0 && s.now().Add(2*cs.lastCost).After(cs.deadline))) {
			if len(s.rep.Ceiling.Points) == 0 || !cs.hasSingle() {
				cs.finish()
				return
			}
			cs.single, cs.n = true, cs.n/2 // the largest size, on one thread
		}
		cs.sizeFrom = s.now()
	}
	if len(cs.samples) == 0 && !cs.single {
		// Untimed: the first copy of a size faults its new pages in.
		if _, err := cs.c.copyNs(cs.n, false); err != nil {
			if len(s.rep.Ceiling.Points) == 0 {
				s.rep.Ceiling.Error = err.Error()
			}
			cs.finish()
			return
		}
	}
	ns, err := cs.c.copyNs(cs.n, cs.single)
	if err != nil {
		if len(s.rep.Ceiling.Points) == 0 {
			s.rep.Ceiling.Error = err.Error()
		}
		cs.finish()
		return
	}
	cs.samples = append(cs.samples, ns...)
	want := ceilingReps
	if cs.single {
		want = ceilingSingle
	}
	if len(cs.samples) < want {
		return
	}
	med := median(slices.Clone(cs.samples))
	if cs.single {
		s.rep.Ceiling.SingleThreadGBps = 2 * float64(cs.n) / med
		cs.finish()
		return
	}
	q := slices.Clone(cs.samples)
	slices.Sort(q)
	s.rep.Ceiling.Points = append(s.rep.Ceiling.Points, Point{Elems: int(cs.n), Bytes: 2 * float64(cs.n), Ns: med, MinNs: q[0],
		Spread: (quantile(q, 0.75) - quantile(q, 0.25)) / med, Samples: len(q), Batch: 1})
	cs.samples = nil
	cs.lastCost = s.now().Sub(cs.sizeFrom)
	cs.n *= 2
}

// hasSingle: the ceiling has a one-thread figure to add (the CPU's).
func (cs *ceilState) hasSingle() bool {
	_, ok := cs.c.(hostCopy)
	return ok && runtime.GOMAXPROCS(0) > 1
}

func (cs *ceilState) finish() {
	s := cs.s
	c := &s.rep.Ceiling
	c.Method = cs.c.method(runtime.GOMAXPROCS(0))
	if n := len(c.Points); n > 0 {
		// The best copy at the largest size: all threads, or one where
		// other processes hold the rest.
		p := c.Points[n-1]
		c.GBps, c.Bytes = max(p.Bytes/p.Ns, c.SingleThreadGBps), p.Bytes
		if lim := cs.c.limit(); uint64(p.Elems) < lim {
			c.Note = fmt.Sprintf("the budget stopped the copies at %s of the %s buffers planned: a copy that small may stay in a cache and run faster than memory does", fmtBytes(float64(p.Elems)), fmtBytes(float64(lim)))
		}
	} else if c.Error == "" {
		c.Error = "the budget left no time for the copy ceiling"
	}
	cs.c.release()
	cs.done = true
}

// hostCopy is the CPU's ceiling: copy(dst, src) of n bytes, split into one
// contiguous stretch per thread. Both buffers are allocated once at the
// limit and each size copies a prefix, so a size touches only the pages
// the last one did not: first touches are slow (on a VM that backs guest
// memory lazily, tens of µs a page) and are no part of a copy's speed.
type hostCopy struct{ bufs *[2][]byte }

func (hostCopy) method(threads int) string {
	return fmt.Sprintf("memmove split over %d goroutines", threads)
}

// limit: 64 MiB a buffer, twice the largest last-level cache per CPU die
// of the machines this runs on (the copy then runs at memory speed).
func (hostCopy) limit() uint64 { return 64 << 20 }

func (h hostCopy) copyNs(n uint64, single bool) ([]float64, error) {
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
	if single {
		// On the calling thread, timed by its CPU clock where the OS has
		// one, as the kernels are (engineTimer).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		th0, _, ok := cpuTimes()
		t0 := time.Now()
		copy(b[1][:n], b[0][:n])
		wall := float64(time.Since(t0).Nanoseconds())
		if th1, _, ok1 := cpuTimes(); ok && ok1 && th1 > th0 {
			return []float64{th1 - th0}, nil
		}
		return []float64{wall}, nil
	}
	t0 := time.Now()
	parallelCopy(b[1][:n], b[0][:n], runtime.GOMAXPROCS(0))
	return []float64{float64(time.Since(t0).Nanoseconds())}, nil
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

// deviceCopy is a GPU's ceiling: Device.CopyTime on one pair of buffers,
// submissions of 1 and of 1 + m copies taking turns; a sample is their
// difference over m, which cancels a submission's fixed latency. m is set
// from the last size so that the m copies last about 2 ms.
type deviceCopy struct {
	c      copier
	maxBuf uint64
	perB   *float64 // ns per byte of the last size's copies (0: none yet)
}

func (d deviceCopy) method(int) string {
	return "GPU compute copy (copy.wgsl: 16-byte loads and stores)"
}

func (d deviceCopy) limit() uint64 {
	if d.maxBuf == 0 {
		return 1 << 30
	}
	return min(1<<30, d.maxBuf)
}

func (d deviceCopy) copyNs(n uint64, _ bool) ([]float64, error) {
	if d.c == nil {
		return nil, fmt.Errorf("this device offers no buffer copy to time")
	}
	m := 8
	if *d.perB > 0 {
		m = int(min(256, max(4, math.Ceil(2e6/(*d.perB*float64(n))))))
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

func (deviceCopy) release() {}

func newDeviceCopy(c copier, maxBuf uint64) deviceCopy {
	return deviceCopy{c: c, maxBuf: maxBuf, perB: new(float64)}
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
// the median of deviceCopy's samples, read + write bytes over time.
func DeviceCopyGBps(c interface {
	CopyTime(bytes uint64, copies ...int) ([]time.Duration, error)
}, bytes uint64) (float64, error) {
	var perB float64
	d := deviceCopy{c: c, perB: &perB}
	if _, err := d.copyNs(bytes, false); err != nil { // sets the copy count m from a first round
		return 0, err
	}
	ns, err := d.copyNs(bytes, false)
	if err != nil {
		return 0, err
	}
	med := median(ns)
	if !(med > 0) {
		return 0, fmt.Errorf("copy of %d bytes timed at %v ns", bytes, med)
	}
	return 2 * float64(bytes) / med, nil
}
