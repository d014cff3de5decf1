// Package judge measures what every kernel costs on the device in front of
// it ("the Judge"). For each linked binding of a backend and each
// variant its link runs, it sweeps input sizes geometrically from tiny to
// the largest the device and the time budget allow, times warm runs
// (median of batched samples, so the clock's resolution never matters),
// evaluates the contract's own bytes_moved and flops for each size, and
// fits time = overhead_ns + bytes_moved / bandwidth (fit.go). In the same
// run it measures the device's copy ceiling and reports each kernel's
// bandwidth as a fraction of it. The fit is checked, not trusted: every
// other size ≥ 1 MiB is held out and predicted, and a kernel whose time is
// not linear in its bytes is flagged.
//
// A sweep runs step by step, so that a caller can show progress and stop
// it at any point — a terminal's progress bar, or a browser page that
// must yield to its event loop between steps:
//
//	s, err := judge.New(eng, judge.Options{Backend: engine.CPU, Budget: time.Minute})
//	for s.Step() {
//		show(s.Progress()) // and yield; stop calling Step to cancel
//	}
//	rep := s.Report()
//
// Run does that loop with a context. The package is pure Go: it builds for
// the browser (GOOS=js), where the page passes its WebGPU device.
package judge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/internal/par"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// Options say what a sweep measures and for how long.
type Options struct {
	Backend engine.Backend
	// Kernels limits the sweep to these "PROVIDER/NAME" kernels (none:
	// every binding linked on Backend); DType to bindings whose first
	// input has this dtype (Invalid: all).
	Kernels []string
	DType   tensor.DType
	// Budget is the whole sweep's time, ceiling included (0: DefaultBudget).
	Budget time.Duration
	// Device is the GPU device attached to the engine (kernels/gpu.Device
	// natively or in the browser): its copy ceiling, buffer limit and name.
	// nil on the CPU.
	Device any
	// MaxBytes caps the bytes of one call's operands and output (0:
	// DefaultMaxBytes); a size must also leave three times that free for
	// this process (tensor.CheckAlloc).
	MaxBytes int64
	Seed     int64
	// Clock: "wall" times CPU kernels on the wall clock; "" (auto) on the
	// calling thread's CPU clock where the OS has one (Linux), falling
	// back to the wall for a kernel that runs on other threads too.
	Clock string
	// Now is the clock the budget is kept by (nil: time.Now).
	Now func() time.Time

	timer   timer   // how calls are timed (tests fake it)
	ceiling ceiling // how the ceiling is measured (tests fake it)
}

// DefaultBudget is fkc judge's --budget.
const DefaultBudget = 60 * time.Second

// DefaultMaxBytes caps a call's operands and output: sizes past a few
// hundred megabytes add nothing to a bandwidth fit, and a sweep shares
// the machine.
const DefaultMaxBytes = 1 << 30

// What a GPU device may offer; kernels/gpu.Device offers all of them.
type (
	copier interface {
		CopyTime(bytes uint64, copies ...int) ([]time.Duration, error)
	}
	bufferLimit interface{ MaxBufferBytes() uint64 }
	driverName  interface{ Driver() string }
	// repeater runs a call's passes n times between the kernel-time
	// stamps and reports their mean: GPU batching.
	repeater interface{ SetKernelRepeat(n int) }
)

// Unit is one thing a sweep measures: a binding running one variant.
type Unit struct {
	Binding *registry.Binding
	Variant kernels.Variant
	op      *ops.Op
}

// Name is "provider/kernel[dtypes] variant".
func (u Unit) Name() string { return u.Binding.Name() + " " + u.Variant.String() }

// Progress is where a sweep stands.
type Progress struct {
	Done, Units int    // units finished, in all
	Current     string // what is being measured ("" when done)
	Elapsed     time.Duration
	Budget      time.Duration
	Fraction    float64 // of the work, 0 to 1
}

// Sweep is a sweep in progress.
type Sweep struct {
	eng   *engine.Engine
	opt   Options
	units []Unit
	rep   Report
	now   func() time.Time
	start time.Time
	end   time.Time // the budget's end
	rng   *rand.Rand

	ceil      ceiling
	ceilState *ceilState
	cur       int
	us        *unitState
	done      bool
	gpu       bool
	maxBuf    uint64
	minSample float64
}

// New plans a sweep: the units it will measure, in registry order. An
// unknown --kernel or a dtype no binding takes is an error
// (*kernels.Usage for the former).
func New(eng *engine.Engine, opt Options) (*Sweep, error) {
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	s := &Sweep{eng: eng, opt: opt, now: opt.Now, rng: rand.New(rand.NewSource(opt.Seed)), gpu: opt.Backend != engine.CPU}
	units, err := Plan(eng, opt.Backend, opt.Kernels, opt.DType)
	if err != nil {
		return nil, err
	}
	s.units = units
	if l, ok := opt.Device.(bufferLimit); ok {
		s.maxBuf = l.MaxBufferBytes()
	}
	res := clockResolution()
	s.minSample = max(200e3, 100*res)
	if s.opt.timer == nil {
		rp, _ := opt.Device.(repeater)
		s.opt.timer = &engineTimer{eng: eng, gpu: s.gpu, rep: rp}
	}
	s.ceil = opt.ceiling
	if s.ceil == nil {
		s.ceil = newHostCopy()
		if s.gpu {
			c, _ := opt.Device.(copier)
			s.ceil = newDeviceCopy(c, s.maxBuf)
		}
	}
	s.rep = Report{Format: Format, Device: describe(opt.Backend, opt.Device, s.maxBuf),
		Host: host(), BudgetS: opt.Budget.Seconds(), PointFields: PointFields, Kernels: []Kernel{},
		Clock: Clock{ResolutionNs: res, MinSampleNs: s.minSample}}
	if !s.gpu {
		s.rep.Clock.Source = "wall"
		if _, _, ok := cpuTimes(); ok && opt.Clock != "wall" {
			s.rep.Clock.Source = "thread-cpu"
		}
	}
	return s, nil
}

// Plan lists the units a sweep of backend b measures: every linked binding
// (of the named kernels, of dtype dt when valid) × every variant its link
// runs that the op allows for the binding's dtype.
func Plan(eng *engine.Engine, b engine.Backend, ids []string, dt tensor.DType) ([]Unit, error) {
	want := map[string]bool{}
	for _, id := range ids {
		ref, ok := eng.FindKernel(id)
		if !ok {
			return nil, eng.NoSuchKernel(id, "fuel-cpu-backend/pad")
		}
		if kb := ref.Kernel.Backend; kb != b.Contract() {
			return nil, kernels.Usagef("--kernel %s is a %s kernel, and this sweep's backend is %s", id, kb, b)
		}
		want[id] = true
	}
	var units []Unit
	found := map[string]bool{}
	for _, bd := range eng.BindingsOn(b) {
		id := engine.KernelID(bd.Doc, bd.Kernel)
		if len(want) > 0 && !want[id] {
			continue
		}
		found[id] = true
		if dt != tensor.Invalid && (len(bd.InputDTypes) == 0 || bd.InputDTypes[0] != dt) {
			continue
		}
		for _, v := range eng.Exercised(bd.Kernel.EntryPoint) {
			o, ok := ops.Lookup(v.Op)
			if !ok || o.Sized == nil || !o.Accepts(bd.InputDTypes[0]) {
				continue
			}
			units = append(units, Unit{Binding: bd, Variant: v, op: o})
		}
	}
	for _, id := range ids {
		if !found[id] {
			return nil, fmt.Errorf("--kernel %s: no binding of it is linked on %s in this build", id, b)
		}
	}
	if len(units) == 0 {
		what := "no binding is linked"
		if dt != tensor.Invalid {
			what = "no linked binding takes " + dt.String()
		}
		return nil, fmt.Errorf("nothing to measure on %s: %s", b, what)
	}
	return units, nil
}

// begin starts the budget's clock: at the first Step, so that a sweep
// planned ahead of time loses none of it.
func (s *Sweep) begin() {
	s.start = s.now()
	s.end = s.start.Add(s.opt.Budget)
	s.rep.Date = s.start.UTC().Format(time.RFC3339)
}

// elapsed is the time since the first Step (0 before it).
func (s *Sweep) elapsed() time.Duration {
	if s.start.IsZero() {
		return 0
	}
	return s.now().Sub(s.start)
}

// Units lists what the sweep measures, in order.
func (s *Sweep) Units() []Unit { return s.units }

// Step does one bounded piece of the sweep — one sample of the ceiling or
// of one size of one unit — and reports whether there is more to do.
func (s *Sweep) Step() bool {
	if s.done {
		return false
	}
	if s.ceilState == nil {
		s.begin()
		s.ceilState = newCeilState(s)
	}
	if !s.ceilState.done {
		s.ceilState.step()
		return true
	}
	if s.cur >= len(s.units) {
		s.finish(false)
		return false
	}
	if s.us == nil {
		s.us = s.newUnit(s.units[s.cur])
		if over := -s.remaining(); over > overrun(s.opt.Budget) {
			// Past the budget and its grace, the kernels left are listed
			// unmeasured: each would still run its smallest size, and the
			// sweep would overrun its budget by far
			// (docs/perf/bench-and-judge.md).
			s.us.stop = fmt.Sprintf("budget: the sweep's %v ran out %v before this kernel; raise the budget to measure it", s.opt.Budget, over.Round(time.Millisecond))
			s.us.finished = true
		}
	}
	if s.us.step() {
		return true
	}
	s.rep.Kernels = append(s.rep.Kernels, s.us.result())
	s.us, s.cur = nil, s.cur+1
	return true
}

// Run steps the sweep until it is done, or until ctx is cancelled (then
// it stops early: see Stop), calling progress (if not nil) after each step.
func Run(ctx context.Context, s *Sweep, progress func(Progress)) *Report {
	for s.Step() {
		if progress != nil {
			progress(s.Progress())
		}
		if ctx.Err() != nil {
			s.Stop()
			break
		}
	}
	return s.Report()
}

// Stop ends the sweep early: Report then holds the kernels measured so
// far (the one in progress fitted on the sizes it has) and says so.
func (s *Sweep) Stop() {
	if !s.done {
		s.finish(true)
	}
}

func (s *Sweep) finish(cancelled bool) {
	if s.ceilState == nil || !s.ceilState.done {
		if cancelled && len(s.rep.Ceiling.Points) == 0 && s.rep.Ceiling.Error == "" {
			// not the budget's doing, as ceilState.finish would say
			s.rep.Ceiling.Error = "the sweep was stopped before the copy ceiling was measured"
		}
		if s.ceilState != nil {
			s.ceilState.finish()
		}
	}
	if s.us != nil {
		s.us.stop = "cancelled"
		s.rep.Kernels = append(s.rep.Kernels, s.us.result())
		s.us = nil
	}
	s.rep.Cancelled = cancelled
	s.rep.ElapsedS = s.elapsed().Seconds()
	s.done = true
}

// Report is the report so far: the finished kernels while the sweep runs,
// all of them once Step has returned false or Stop was called.
func (s *Sweep) Report() *Report {
	r := s.rep
	if !s.done {
		r.ElapsedS = s.elapsed().Seconds()
	}
	r.Kernels = slices.Clone(r.Kernels)
	return &r
}

// Progress says where the sweep stands.
func (s *Sweep) Progress() Progress {
	p := Progress{Done: len(s.rep.Kernels), Units: len(s.units), Elapsed: s.elapsed(), Budget: s.opt.Budget}
	switch {
	case s.done:
		p.Fraction, p.Elapsed = 1, time.Duration(s.rep.ElapsedS*float64(time.Second))
	case s.ceilState == nil || !s.ceilState.done:
		p.Current = "copy ceiling"
	case s.us != nil:
		p.Current = s.us.u.Name()
	case s.cur < len(s.units):
		p.Current = s.units[s.cur].Name()
	}
	if !s.done {
		// Budget-driven: time is the measure of the work; units finishing
		// early only move it faster.
		p.Fraction = min(0.999, max(float64(p.Done)/float64(max(1, p.Units)), p.Elapsed.Seconds()/s.opt.Budget.Seconds()))
	}
	return p
}

// overrun is how far past its budget a sweep still starts a kernel: a
// tenth of the budget, at least a second (every kernel's smallest size
// runs, whatever its share: on a CPU sweeps end within about a second of
// their budget).
func overrun(budget time.Duration) time.Duration { return max(time.Second, budget/10) }

// remaining is the budget left.
func (s *Sweep) remaining() time.Duration { return s.end.Sub(s.now()) }

// ---- one unit ----

// The sizes: first-operand element counts from startElems, doubling
// (quadrupling while a call moves less than growFastBelow bytes).
const (
	startElems    = 16
	growth        = 2
	growFastBelow = 256 << 10
	// maxReps / minReps: samples per size (the median of them is the
	// size's time); fewer only when the budget is short.
	maxReps = 11
	minReps = 5
	// noisyReps: a size whose samples spread more than maxSpread (a busy
	// core on a shared machine) takes more, while the unit's share of the
	// budget lasts, so that its median is the quiet runs' time.
	noisyReps = 3 * maxReps
)

type unitState struct {
	s        *Sweep
	u        Unit
	k        Kernel
	deadline time.Time
	n        int // the next size
	stop     string
	finished bool
	clocks   map[string]bool // the clocks its samples were taken by
	taken    [][]timing      // each point's samples, to re-time them by one clock (result)
	bytesEx  *contract.Expr
	flopsEx  *contract.Expr

	// the size in progress
	call    *kernels.Call
	pt      Point
	samples []timing
	walls   []float64 // ns per run, host wall time
	reps    int

	// the last size, for planning the next one
	lastN         int
	lastBuild     time.Duration
	lastWallRun   float64 // ns of the budget's clock per run
	lastRun       float64 // ns per run, as timed
	hostPerElem   float64 // operand + output bytes per first-operand element
	bufferPerElem float64 // the largest operand or output, per element
}

func (s *Sweep) newUnit(u Unit) *unitState {
	left := len(s.units) - s.cur
	share := s.remaining() / time.Duration(left)
	us := &unitState{s: s, u: u, n: startElems, deadline: s.now().Add(share), clocks: map[string]bool{}}
	b := u.Binding
	ds := make([]string, len(b.InputDTypes))
	for i, d := range b.InputDTypes {
		ds[i] = d.String()
	}
	c := b.Kernel.Cost
	us.k = Kernel{Provider: b.Doc.Provider.Name, Kernel: b.Kernel.Name, DTypes: ds, Variant: u.Variant.String(),
		Class: c.Class, BytesMoved: c.BytesMoved, Flops: c.Flops, Clock: s.rep.Clock.Source, Points: []Point{}}
	var err error
	if us.bytesEx, err = contract.ParseExpr(c.BytesMoved); err != nil || strings.TrimSpace(c.BytesMoved) == "" {
		us.k.Error = fmt.Sprintf("bytes_moved %q: no formula to fit against", c.BytesMoved)
		us.finished = true
	}
	if strings.TrimSpace(c.Flops) != "" {
		us.flopsEx, _ = contract.ParseExpr(c.Flops)
	}
	return us
}

// step builds and warms the next size, or takes one sample of the size in
// progress; false when the unit is finished.
func (us *unitState) step() bool {
	if us.finished {
		return false
	}
	if us.call == nil {
		if !us.begin() {
			us.finished = true
			return false
		}
		return true
	}
	tm, err := us.s.opt.timer.time(us.u.Binding, us.call, us.pt.Batch)
	if err != nil {
		us.k.Error = err.Error()
		us.finished = true
		return false
	}
	us.samples = append(us.samples, tm)
	us.walls = append(us.walls, tm.wall)
	if len(us.samples) < us.reps {
		return true
	}
	q, clock := us.s.pick(us.samples)
	us.pt.setTimes(q)
	if us.pt.Spread > maxSpread && len(us.samples) < noisyReps &&
		us.s.now().Add(time.Duration(2*median(slices.Clone(us.walls))*float64(us.pt.Batch))).Before(us.deadline) {
		us.reps++
		return true
	}
	us.clocks[clock] = true
	for _, t := range us.samples {
		us.pt.Workers = max(us.pt.Workers, t.workers)
	}
	us.k.Points = append(us.k.Points, us.pt)
	us.taken = append(us.taken, us.samples)
	// The next size is planned from this one's samples, not its warm-up
	// (which faults fresh pages in).
	us.lastWallRun, us.lastRun = max(1, median(us.walls)), us.pt.Ns
	us.call, us.samples, us.walls = nil, nil, nil
	us.n *= growth
	if us.pt.Bytes < growFastBelow {
		us.n *= growth // the overhead needs few tiny sizes
	}
	return true
}

// begin plans, builds and warms up the next size; false when the sweep of
// this unit stops (us.stop says why).
func (us *unitState) begin() bool {
	s := us.s
	if why := us.tooBig(); why != "" {
		us.stop = why
		return false
	}
	runtime.GC() // the last size's garbage: not the next one's timing
	t0 := s.now()
	c, err := us.build()
	if err != nil {
		us.stop = err.Error()
		if len(us.k.Points) == 0 {
			us.k.Error = err.Error()
		}
		return false
	}
	_, out, _, err := s.eng.Check(c)
	if err != nil {
		us.stop = err.Error()
		if len(us.k.Points) == 0 {
			us.k.Error = err.Error()
		}
		return false
	}
	sym, err := ops.CostSymbols(c, out)
	if err == nil {
		us.pt = Point{Elems: us.u.op.Primary(c).NumElems()}
		if us.pt.Bytes, err = us.bytesEx.Eval(sym); err == nil && us.flopsEx != nil {
			us.pt.Flops, err = us.flopsEx.Eval(sym)
		}
	}
	if err != nil {
		us.k.Error = fmt.Sprintf("cost formulas: %v", err)
		return false
	}
	us.footprint(c, out)
	build := s.now().Sub(t0)
	// The warm-up run: pipelines built, pages faulted in; its time sets
	// the batch and says what the next size will cost.
	t1 := s.now()
	tm, err := s.opt.timer.time(us.u.Binding, c, 1)
	q, _ := s.pick([]timing{tm})
	run := q[0]
	wall := float64(s.now().Sub(t1).Nanoseconds())
	if err != nil {
		var un *kernels.Unavailable
		if errors.As(err, &un) && len(us.k.Points) == 0 {
			us.k.Skipped = err.Error()
		} else if len(us.k.Points) == 0 {
			us.k.Error = err.Error()
		} else {
			us.stop = err.Error()
		}
		return false
	}
	us.pt.Batch = 1
	if s.opt.timer.batches() && run > 0 {
		us.pt.Batch = int(min(1e6, math.Ceil(s.minSample/run)))
	}
	// As many samples as fit before the unit's deadline, minReps to maxReps.
	left := float64(us.deadline.Sub(s.now()).Nanoseconds())
	perSample := max(wall, 1) * float64(us.pt.Batch)
	us.reps = int(min(maxReps, max(minReps, left/perSample)))
	us.call = c
	us.lastN, us.lastBuild, us.lastWallRun, us.lastRun = us.n, build, max(wall, 1), run
	return true
}

// build runs the op's Sized builder, turning a panic (an allocation past
// the memory limit) into an error.
func (us *unitState) build() (c *kernels.Call, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("building %d elements: %v", us.n, r)
		}
	}()
	return us.u.op.Sized(us.s.rng, us.u.Variant.Form, us.u.Binding.InputDTypes[0], us.n), nil
}

// footprint records the call's bytes per first-operand element.
func (us *unitState) footprint(c *kernels.Call, out []int) {
	n := float64(max(1, us.u.op.Primary(c).NumElems()))
	_, dt, _ := us.u.op.Out(c)
	outB := float64(tensor.NumElems(out) * dt.Size())
	total, big := outB, outB
	for _, t := range c.Inputs {
		total += float64(len(t.Data))
		big = max(big, float64(len(t.Data)))
	}
	us.hostPerElem, us.bufferPerElem = total/n, big/n
}

// tooBig says why the next size should not be run: past the memory this
// process may use, the device's largest buffer, the tensor size cap, or
// the unit's share of the budget. "" to go on.
func (us *unitState) tooBig() string {
	if us.lastN == 0 {
		return ""
	}
	s := us.s
	n := float64(us.n)
	ratio := n / float64(us.lastN)
	if n > tensor.MaxElems/4 {
		return fmt.Sprintf("size: %d elements is past the tensor cap", us.n)
	}
	host := us.hostPerElem * n
	limit := float64(s.opt.MaxBytes)
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if host > limit {
		return fmt.Sprintf("memory: the next size needs %s of operands; the cap is %s", fmtBytes(host), fmtBytes(limit))
	}
	// Three times the operands: the batch's outputs await the collector.
	if err := tensor.CheckAlloc("the next size", int(3*host)); err != nil {
		return "memory: " + err.Error()
	}
	if buf := us.bufferPerElem * n; s.maxBuf > 0 && buf > float64(s.maxBuf) {
		return fmt.Sprintf("device: the next size needs a %s buffer; the adapter binds at most %s", fmtBytes(buf), fmtBytes(float64(s.maxBuf)))
	}
	// Its cost: building (as the last size, scaled), a warm-up and the
	// fewest samples; each run's wall time scaled from the last size's.
	wall := us.lastWallRun * ratio
	batch := 1.0
	if s.opt.timer.batches() && us.lastRun > 0 {
		batch = math.Ceil(s.minSample / (us.lastRun * ratio))
	}
	cost := time.Duration(float64(us.lastBuild)*ratio + wall*(1+minReps*max(1, batch)))
	if s.now().Add(cost).After(us.deadline) {
		return fmt.Sprintf("budget: the next size (%d elements) would take about %v, past this kernel's share", us.n, cost.Round(time.Millisecond))
	}
	return ""
}

// pick says what a size's samples count as, and by which clock: on the
// CPU the calling thread's CPU time, which other processes on a shared
// machine cannot inflate — unless the kernel ran on other threads as well
// (their CPU time passed a fifth of the caller's in the median sample;
// the runtime's own background work shows up in a few samples only), or
// Options.Clock is "wall": then the wall time.
func (s *Sweep) pick(ts []timing) ([]float64, string) {
	out := make([]float64, len(ts))
	ratio := make([]float64, 0, len(ts))
	for _, t := range ts {
		if t.thread <= 0 {
			ratio = nil
			break
		}
		ratio = append(ratio, t.others/t.thread)
	}
	if s.opt.Clock != "wall" && len(ratio) > 0 && median(ratio) <= 0.2 {
		for i, t := range ts {
			out[i] = t.thread
		}
		return out, "thread-cpu"
	}
	for i, t := range ts {
		out[i] = t.run
	}
	return out, ts[0].clock
}

// result fits the unit's points and returns its report entry.
func (us *unitState) result() Kernel {
	k := us.k
	k.Stop = us.stop
	// One clock for the whole line: where some sizes ran on one thread
	// (timed by its CPU time) and others on several (wall time), every
	// size is re-timed by the wall clock from the same samples. Mixed, the
	// small sizes came out cheaper than the line through the large ones
	// allows, and a thread's CPU time for a kernel that split over two
	// counted half its run (a kernel came out faster than the copy
	// ceiling).
	if len(us.clocks) > 1 { // us.taken[i] are the samples of k.Points[i]
		us.clocks = map[string]bool{}
		for i, ts := range us.taken {
			q := make([]float64, len(ts))
			for j, t := range ts {
				q[j] = t.run
			}
			k.Points[i].setTimes(q)
			us.clocks[ts[0].clock] = true
		}
	}
	var cs []string
	for c := range us.clocks {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	if len(cs) > 0 {
		k.Clock = strings.Join(cs, "+")
	}
	if k.Error == "" && k.Skipped == "" {
		k.Fit, k.Flags = Analyze(k.Points, us.s.rep.Ceiling.Curve())
	}
	if us.s.rep.Clock.Source == "" && len(k.Points) > 0 {
		us.s.rep.Clock.Source = k.Clock // a GPU's: timestamps, or submit to mapped
	}
	return k
}

// setTimes sets a point's median, minimum and spread from its samples
// (ns per run; sorted here).
func (p *Point) setTimes(q []float64) {
	slices.Sort(q)
	p.Ns, p.MinNs = median(q), q[0]
	p.Samples = len(q)
	p.Spread = 0
	if p.Ns > 0 {
		p.Spread = (quantile(q, 0.75) - quantile(q, 0.25)) / p.Ns
	}
}

// quantile of sorted q, interpolated.
func quantile(q []float64, p float64) float64 {
	if len(q) == 0 {
		return math.NaN()
	}
	x := p * float64(len(q)-1)
	i := int(x)
	if i+1 >= len(q) {
		return q[len(q)-1]
	}
	return q[i] + (x-float64(i))*(q[i+1]-q[i])
}

// clockResolution is the smallest step of the host clock, in ns.
func clockResolution() float64 {
	best := math.Inf(1)
	for i := 0; i < 200; i++ {
		t0 := time.Now()
		t1 := time.Now()
		for t1.Equal(t0) {
			t1 = time.Now()
		}
		best = min(best, float64(t1.Sub(t0).Nanoseconds()))
	}
	return best
}

// ---- timing ----

// timer times a call: one sample of k runs.
type timer interface {
	// time runs the call k times and says how long one run took.
	time(b *registry.Binding, c *kernels.Call, k int) (timing, error)
	// batches: k > 1 makes a sample longer (the host clock, or a GPU
	// that repeats passes); false: each run is timed on its own.
	batches() bool
}

// timing is one sample.
type timing struct {
	run   float64 // ns per run, by the clock
	wall  float64 // ns per run of the host's wall time (what the budget pays)
	clock string  // Clock.Source
	// On the CPU where the OS says (cpuTimes): the calling thread's CPU
	// time per run, and that of the process's other threads meanwhile.
	thread, others float64
	// workers: the most goroutines a kernel loop split over (1 where no
	// loop split; 0 on a GPU, where it is not recorded).
	workers int
}

// engineTimer runs calls through the engine: on the CPU k runs back to
// back on the wall clock, and on the calling thread's CPU clock where the
// OS has one; on a GPU the device's clocks (timestamps around the passes
// where the adapter has them), the passes repeated k times where the
// device can.
//
// The collector is off inside a sample: every run allocates its output,
// and a collection inside a sample is the process's noise, not the
// kernel's cost. The garbage is collected before a sample once it passes
// gcEvery, so the sample's outputs reuse warm memory, as a loop of calls
// does in a process that collects as usual: with the collector off
// throughout, every output would be fresh pages from the OS, whose first
// touch costs more than the kernel (far more on a VM that backs guest
// memory lazily).
//
// The calling goroutine is locked to its thread for the thread's CPU clock —
// unless the call's loops split over several workers (its last sample said
// so): a locked goroutine that waits for a worker is handed back to its own
// thread on wake-up, a detour through the scheduler
// (docs/perf/bench-and-judge.md), and the thread's CPU time does not measure
// a split call anyway (pick takes the wall).
type engineTimer struct {
	eng     *engine.Engine
	gpu     bool
	rep     repeater
	garbage int           // output bytes allocated since the last collection
	split   *kernels.Call // the last call timed, if its loops split
}

// gcEvery: collect before a sample once the outputs pass this many bytes.
const gcEvery = 1 << 20

func (t *engineTimer) batches() bool { return !t.gpu || t.rep != nil }

func (t *engineTimer) time(b *registry.Binding, c *kernels.Call, k int) (timing, error) {
	k = max(1, k)
	runs := k
	if t.gpu && t.rep != nil {
		t.rep.SetKernelRepeat(k)
		defer t.rep.SetKernelRepeat(1)
		runs = 1
	}
	if t.garbage > gcEvery {
		runtime.GC()
		t.garbage = 0
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	lock := !t.gpu && t.split != c
	if lock {
		runtime.LockOSThread() // the thread whose CPU clock is read
		defer runtime.UnlockOSThread()
	}
	var dev float64
	clock := "wall"
	par.Peak()
	th0, pr0, cpuOK := cpuTimes()
	t0 := time.Now()
	for i := 0; i < runs; i++ {
		res, err := t.eng.RunBinding(b, c)
		if err != nil {
			return timing{}, err
		}
		t.garbage += len(res.Out.Data)
		if !t.gpu {
			continue
		}
		switch e2e, kern := t.eng.LastDeviceTimes(); {
		case kern > 0:
			dev, clock = dev+float64(kern.Nanoseconds()), "gpu-timestamps"
		case e2e > 0: // no timestamps: transfers included (Kernel.Clock says so)
			dev, clock = dev+float64(e2e.Nanoseconds()), "gpu-submit-to-mapped"
		}
	}
	wall := float64(time.Since(t0).Nanoseconds()) / float64(runs)
	if t.gpu && t.rep != nil {
		wall /= float64(k) // a repeated call's wall time covers k passes
	}
	if dev == 0 {
		tm := timing{run: wall, wall: wall, clock: "wall", workers: par.Peak()}
		if t.split = nil; tm.workers > 1 {
			t.split = c
		}
		if th1, pr1, ok := cpuTimes(); ok && cpuOK && lock {
			tm.thread, tm.others = (th1-th0)/float64(k), (pr1-pr0-(th1-th0))/float64(k)
		}
		return tm, nil
	}
	return timing{run: dev / float64(runs), wall: wall, clock: clock}, nil
}
