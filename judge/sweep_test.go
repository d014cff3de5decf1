package judge

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// fakeClock is the budget's clock in these tests: only the fake timer and
// the fake ceiling move it, so the sweeps are fast and deterministic.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time         { return c.t }
func (c *fakeClock) advance(ns float64)     { c.t = c.t.Add(time.Duration(ns)) }
func newFakeClock() *fakeClock              { return &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)} }
func (f *fakeTimer) batches() bool          { return true }
func (f *fakeCeiling) method(int) string    { return "fake copy" }
func (f *fakeCeiling) limit() uint64        { return 64 << 20 }
func (f *fakeCeiling) release()             {}
func (d fakeDevice) MaxBufferBytes() uint64 { return d.maxBuf }
func (d fakeDevice) String() string         { return "fake GPU" }
func (d fakeDevice) Driver() string         { return "fake driver 1.0" }
func (f *fakeCeiling) modes(uint64) []bool  { return []bool{false} }
func (f *fakeCeiling) copyNs(n uint64, _ bool, batch int) ([]float64, error) {
	ns := 2 * float64(n) / f.gbps
	f.clock.advance(float64(max(1, batch)) * ns)
	return []float64{ns}, nil
}

// fakeTimer times a call as overhead + bytes_moved / bandwidth exactly,
// from the serving contract's own formula, and records the largest
// buffer and the largest footprint it was handed.
type fakeTimer struct {
	clock              *fakeClock
	overhead, gbps     float64
	maxBuffer, maxHost float64
	runs               int
	// split > 0: calls moving that many bytes or more run on two threads
	// (the caller's CPU time is half the run, the other thread's the
	// other half); smaller ones on the caller alone, whose CPU time is
	// half the wall time (as if preempted for the rest).
	split float64
	// noise: multipliers of the time, one per sample in turn (none: exact).
	noise   []float64
	samples int
	// unavailAbove > 0: calls moving more bytes are refused as the device
	// refuses a buffer past its limit (kernels.Unavailable).
	unavailAbove float64
}

type fakeCeiling struct {
	clock *fakeClock
	gbps  float64
}

type fakeDevice struct{ maxBuf uint64 }

func (f *fakeTimer) time(b *registry.Binding, c *kernels.Call, k int) (timing, error) {
	o, err := ops.Of(c)
	if err != nil {
		return timing{}, err
	}
	out, dt, err := o.Out(c)
	if err != nil {
		return timing{}, err
	}
	sym, err := ops.CostSymbols(c, out)
	if err != nil {
		return timing{}, err
	}
	ex, err := contract.ParseExpr(b.Kernel.Cost.BytesMoved)
	if err != nil {
		return timing{}, err
	}
	bytes, err := ex.Eval(sym)
	if err != nil {
		return timing{}, err
	}
	if f.unavailAbove > 0 && bytes > f.unavailAbove {
		return timing{}, &kernels.Unavailable{Kernel: b.Kernel.Name, Need: "a larger buffer"}
	}
	outB := float64(tensor.NumElems(out) * dt.Size())
	host, big := outB, outB
	for _, t := range c.Inputs {
		host += float64(len(t.Data))
		big = max(big, float64(len(t.Data)))
	}
	f.maxBuffer, f.maxHost = max(f.maxBuffer, big), max(f.maxHost, host)
	ns := f.overhead + bytes/f.gbps
	if len(f.noise) > 0 {
		ns *= f.noise[f.samples%len(f.noise)]
		f.samples++
	}
	f.clock.advance(float64(k) * ns)
	f.runs += k
	tm := timing{run: ns, wall: ns, clock: "fake"}
	if f.split > 0 {
		tm.thread = ns / 2
		if bytes >= f.split {
			tm.others = ns / 2
		}
	}
	return tm, nil
}

func fakeSweep(t *testing.T, opt Options) (*Sweep, *fakeTimer) {
	t.Helper()
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	ft := &fakeTimer{clock: clk, overhead: 1200, gbps: 10}
	opt.Now, opt.timer, opt.ceiling = clk.Now, ft, &fakeCeiling{clock: clk, gbps: 20}
	s, err := New(eng, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s, ft
}

// A sweep keeps to its budget, never hands a kernel a buffer larger than
// the device binds or operands larger than its memory cap, fits the
// timer's exact line, and reports the ceiling.
func TestSweepPlanning(t *testing.T) {
	opt := Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32,
		Budget: 3 * time.Second, Device: fakeDevice{maxBuf: 2 << 20}, MaxBytes: 3 << 20}
	s, ft := fakeSweep(t, opt)
	if len(s.Units()) != 3 { // constant, reflect, replicate
		t.Fatalf("units %v", s.Units())
	}
	// The budget's clock starts at the first Step, not when planned.
	if p := s.Progress(); p.Elapsed != 0 || p.Current != "copy ceiling" || p.Units != 3 || s.Report().Date != "" {
		t.Errorf("before the first step: %+v, date %q", p, s.Report().Date)
	}
	var last Progress
	steps := 0
	for s.Step() {
		p := s.Progress()
		if p.Fraction < last.Fraction || p.Fraction < 0 || p.Fraction > 1 || p.Done < last.Done {
			t.Fatalf("progress went from %+v to %+v", last, p)
		}
		last = p
		steps++
	}
	r := s.Report()
	if r.Date != "2025-01-02T03:04:05Z" {
		t.Errorf("date %q: want the first step's", r.Date)
	}
	if p := s.Progress(); p.Fraction != 1 || p.Done != 3 || p.Current != "" {
		t.Errorf("final progress %+v", p)
	}
	if r.ElapsedS > opt.Budget.Seconds() {
		t.Errorf("ran %.3fs of a %v budget", r.ElapsedS, opt.Budget)
	}
	if ft.maxBuffer > 2<<20 || ft.maxHost > 3<<20 {
		t.Errorf("largest buffer %v, largest footprint %v: past the device's 2 MiB or the 3 MiB cap", ft.maxBuffer, ft.maxHost)
	}
	if r.Ceiling.GBps != 20 || r.Ceiling.Method != "fake copy" || len(r.Ceiling.Points) != 21 || r.Ceiling.Note != "" {
		t.Errorf("ceiling %+v", r.Ceiling)
	}
	if len(r.Kernels) != 3 {
		t.Fatalf("%d kernels", len(r.Kernels))
	}
	for _, k := range r.Kernels {
		if k.Fit == nil || !near(k.Fit.GBps, 10, 1e-3) || !near(k.Fit.OverheadNs, 1200, 1e-3) || !near(k.Fit.CeilingFraction, 0.5, 1e-3) {
			t.Errorf("%s %s: fit %+v, flags %v", k.ID(), k.Variant, k.Fit, k.Flags)
		}
		if !strings.HasPrefix(k.Stop, "device:") && !strings.HasPrefix(k.Stop, "memory:") {
			t.Errorf("%s: stopped by %q, want the device's buffer or the memory cap", k.Variant, k.Stop)
		}
		if k.Points[0].Elems > 64 || len(k.Points) < 10 {
			t.Errorf("%s: sizes %v: want a sweep from tiny up", k.Variant, k.Points)
		}
		for _, p := range k.Points {
			if p.Samples < minReps || p.Batch < 1 || p.Ns*float64(p.Batch) < s.minSample {
				t.Errorf("%s: point %+v: too few samples, or a sample shorter than %v ns", k.Variant, p, s.minSample)
			}
		}
	}
	if r.Device.Name != "AMD EPYC" && r.Device.Backend != "cpu" {
		t.Errorf("device %+v", r.Device)
	}
}

// A unit whose small sizes ran on one thread (timed by its CPU time) and
// large ones on two (wall time) is re-timed by the wall clock throughout:
// one line, one clock.
func TestSweepOneClockPerUnit(t *testing.T) {
	opt := Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32,
		Budget: 3 * time.Second, Device: fakeDevice{maxBuf: 2 << 20}, MaxBytes: 3 << 20}
	s, ft := fakeSweep(t, opt)
	ft.split = 64 << 10
	for s.Step() {
	}
	for _, k := range s.Report().Kernels {
		if k.Clock != "fake" || k.Fit == nil || !near(k.Fit.GBps, 10, 1e-3) || !near(k.Fit.OverheadNs, 1200, 1e-3) {
			t.Errorf("%s: clock %q, fit %+v, flags %v", k.Variant, k.Clock, k.Fit, k.Flags)
		}
		for _, p := range k.Points {
			if want := ft.overhead + p.Bytes/ft.gbps; !near(p.Ns, want, 1e-9) {
				t.Errorf("%s: %v bytes timed %v ns, want the wall clock's %v", k.Variant, p.Bytes, p.Ns, want)
			}
		}
	}
}

// A short budget stops the sizes early, and still within the budget.
func TestSweepShortBudget(t *testing.T) {
	s, _ := fakeSweep(t, Options{Backend: engine.CPU, Kernels: []string{"fuel-reference-backend/sum_all", "fkc-cpu-kernels/masked_fill"},
		DType: tensor.F32, Budget: 5 * time.Millisecond})
	r := Run(t.Context(), s, nil)
	if r.ElapsedS > 0.005 || len(r.Kernels) != 2 {
		t.Fatalf("ran %.4fs, %d kernels", r.ElapsedS, len(r.Kernels))
	}
	if !strings.Contains(r.Ceiling.Note, "may stay in a cache") {
		t.Errorf("a ceiling cut short by the budget, without a note: %+v", r.Ceiling)
	}
	for _, k := range r.Kernels {
		if !strings.HasPrefix(k.Stop, "budget:") || len(k.Points) == 0 {
			t.Errorf("%s: stop %q, %d points", k.ID(), k.Stop, len(k.Points))
		}
	}
}

// A size the device cannot take (a buffer past its limit) ends the sweep
// of a kernel that has points already; only a kernel refused at its first
// size is skipped.
func TestSweepUnavailableLaterStops(t *testing.T) {
	s, ft := fakeSweep(t, Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32, Budget: time.Minute})
	ft.unavailAbove = 1 << 20
	r := Run(t.Context(), s, nil)
	if len(r.Kernels) == 0 {
		t.Fatal("no kernels")
	}
	for _, k := range r.Kernels {
		if k.Skipped != "" || len(k.Points) == 0 || !strings.Contains(k.Stop, "not available") || k.Fit == nil {
			t.Errorf("%s: skipped %q, stop %q, %d points, fit %v", k.ID(), k.Skipped, k.Stop, len(k.Points), k.Fit != nil)
		}
	}
	s, ft = fakeSweep(t, Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32, Budget: time.Minute})
	ft.unavailAbove = 1
	for _, k := range Run(t.Context(), s, nil).Kernels {
		if k.Skipped == "" || len(k.Points) != 0 {
			t.Errorf("%s refused at every size: skipped %q, %d points", k.ID(), k.Skipped, len(k.Points))
		}
	}
}

// Stopping a sweep reports what it has, and says it was cancelled.
func TestSweepStop(t *testing.T) {
	s, _ := fakeSweep(t, Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32,
		Budget: time.Second, MaxBytes: 1 << 20})
	for i := 0; i < 200 && s.Step(); i++ {
	}
	s.Stop()
	r := s.Report()
	if !r.Cancelled || len(r.Kernels) == 0 || len(r.Kernels) > 3 || s.Step() {
		t.Fatalf("cancelled %v, %d kernels", r.Cancelled, len(r.Kernels))
	}
	if k := r.Kernels[len(r.Kernels)-1]; k.Stop != "cancelled" {
		t.Errorf("last kernel stop %q", k.Stop)
	}
	// stopped at once, before the ceiling's first copy: the report says
	// so (it blamed the budget)
	s0, _ := fakeSweep(t, Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32,
		Budget: time.Second, MaxBytes: 1 << 20})
	s0.Stop()
	if r := s0.Report(); len(r.Ceiling.Points) == 0 && r.Ceiling.Error != "the sweep was stopped before the copy ceiling was measured" {
		t.Errorf("a sweep stopped at once: ceiling error %q", r.Ceiling.Error)
	}
}

// Plan covers every linked CPU binding, and every unit's sized call runs
// on its binding with a positive bytes_moved: the walk of the registry.
func TestPlanCoversEveryCPUBinding(t *testing.T) {
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	units, err := Plan(eng, engine.CPU, nil, tensor.Invalid)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[*registry.Binding]bool{}
	rng := rand.New(rand.NewSource(1))
	for _, u := range units {
		covered[u.Binding] = true
		c := u.op.Sized(rng, u.Variant.Form, u.Binding.InputDTypes[0], 100)
		res, err := eng.RunBinding(u.Binding, c)
		if err != nil {
			t.Errorf("%s: %v", u.Name(), err)
			continue
		}
		if b, err := engine.BytesMoved(res); err != nil || b <= 0 {
			t.Errorf("%s: bytes_moved %v, %v", u.Name(), b, err)
		}
	}
	for _, b := range eng.BindingsOn(engine.CPU) {
		if !covered[b] {
			t.Errorf("%s: linked on the CPU, but no unit measures it", b.Name())
		}
	}
}

func TestPlanErrors(t *testing.T) {
	eng, _ := engine.New()
	var u *kernels.Usage
	if _, err := Plan(eng, engine.CPU, []string{"nobody/nothing"}, tensor.Invalid); !errors.As(err, &u) {
		t.Errorf("unknown kernel: %v", err)
	}
	if _, err := Plan(eng, engine.CPU, []string{"fuel-vulkan-kernels/pad_reflect_b4"}, tensor.Invalid); !errors.As(err, &u) || !strings.Contains(err.Error(), "Vulkan kernel") {
		t.Errorf("a Vulkan kernel on the CPU: %v", err)
	}
	if _, err := Plan(eng, engine.CPU, []string{"fuel-reference-backend/sum_all"}, tensor.U8); err == nil || !strings.Contains(err.Error(), "takes U8") {
		t.Errorf("a dtype no binding takes: %v", err)
	}
	if _, err := Plan(eng, engine.Vulkan, nil, tensor.Invalid); err == nil {
		t.Error("Vulkan without a device: no error")
	}
}

// A real sweep of one kernel on a tiny budget: the engine's timer and the
// host copy ceiling run, and every figure is positive. (How many sizes fit
// in the budget depends on the machine's load: no count is asserted.)
func TestSweepReal(t *testing.T) {
	eng, _ := engine.New()
	s, err := New(eng, Options{Backend: engine.CPU, Kernels: []string{"fkc-cpu-kernels/masked_fill"}, DType: tensor.U8,
		Budget: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := Run(t.Context(), s, nil)
	if len(r.Kernels) != 1 || r.Ceiling.GBps <= 0 || (r.Clock.Source != "wall" && r.Clock.Source != "thread-cpu") || r.Clock.ResolutionNs <= 0 {
		t.Fatalf("report %+v", r)
	}
	k := r.Kernels[0]
	if k.Error != "" || len(k.Points) == 0 {
		t.Fatalf("kernel %+v", k)
	}
	// A kernel's clock is the report's, or "thread-cpu+wall" where its
	// larger sizes ran on several threads (pick).
	for _, c := range strings.Split(k.Clock, "+") {
		if c != "thread-cpu" && c != "wall" {
			t.Errorf("kernel clock %q: want thread-cpu, wall or both", k.Clock)
		}
	}
	for _, p := range k.Points {
		if !(p.Ns > 0) || !(p.MinNs > 0) || p.MinNs > p.Ns || !(p.Bytes > 0) {
			t.Errorf("point %+v", p)
		}
	}
}

// A GPU device names itself and its driver in the report.
func TestDescribeDevice(t *testing.T) {
	d := describe(engine.Vulkan, fakeDevice{maxBuf: 1 << 27}, 1<<27)
	if d.Name != "fake GPU" || d.Driver != "fake driver 1.0" || d.Backend != "vulkan" || d.MaxBufferBytes != 1<<27 {
		t.Errorf("%+v", d)
	}
	if c := describe(engine.CPU, nil, 0); c.Backend != "cpu" || c.Name == "" {
		t.Errorf("%+v", c)
	}
}

// A size's samples count by the kernel thread's CPU time, unless the
// kernel ran on other threads too (in the median sample), or the wall
// clock was asked for.
func TestPickClock(t *testing.T) {
	s := &Sweep{}
	one := func(thread, others float64) timing {
		return timing{run: 2 * thread, wall: 2 * thread, clock: "wall", thread: thread, others: others}
	}
	single := []timing{one(100, 0), one(110, 90), one(100, 1), one(105, 0), one(100, 2)} // one sample with the runtime's noise
	if v, c := s.pick(single); c != "thread-cpu" || v[1] != 110 {
		t.Errorf("single-threaded: %v %s", v, c)
	}
	multi := []timing{one(100, 300), one(100, 290), one(100, 310)}
	if v, c := s.pick(multi); c != "wall" || v[0] != 200 {
		t.Errorf("multi-threaded: %v %s", v, c)
	}
	if v, c := s.pick([]timing{{run: 50, clock: "gpu-timestamps"}}); c != "gpu-timestamps" || v[0] != 50 {
		t.Errorf("no CPU clock: %v %s", v, c)
	}
	s.opt.Clock = "wall"
	if _, c := s.pick(single); c != "wall" {
		t.Errorf("--clock wall: %s", c)
	}
}

// A size whose samples spread more than maxSpread takes more of them (up
// to noisyReps, while the unit's budget lasts), so that the busy runs of a
// shared machine do not decide its median; quiet sizes keep to maxReps.
func TestSweepNoisySizesTakeMoreSamples(t *testing.T) {
	opt := Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32, Budget: 30 * time.Second}
	s, _ := fakeSweep(t, opt)
	quiet := Run(t.Context(), s, nil)
	for _, p := range quiet.Kernels[0].Points {
		if p.Samples > maxReps {
			t.Errorf("quiet: a size took %d samples", p.Samples)
		}
	}
	s, ft := fakeSweep(t, opt)
	ft.noise = []float64{1, 1, 3} // every third sample three times slower
	noisy := Run(t.Context(), s, nil)
	more := 0
	for _, p := range noisy.Kernels[0].Points {
		if p.Samples > maxReps {
			more++
		}
		if p.Samples > noisyReps {
			t.Errorf("a size took %d samples, past noisyReps", p.Samples)
		}
	}
	if more == 0 {
		t.Errorf("noisy: no size took more than %d samples: %v", maxReps, noisy.Kernels[0].Points)
	}
}

// Past its budget and a grace of a tenth of it (at least a second), a
// sweep lists the kernels left unmeasured instead of running each one's
// smallest size (on the browser's WebGPU 148 kernels took 11.9 s of an
// 8 s budget).
func TestSweepOverBudgetListsTheRest(t *testing.T) {
	s, ft := fakeSweep(t, Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad"}, DType: tensor.F32, Budget: 2 * time.Second})
	ft.overhead = 5e8 // half a second a run: the first kernel's smallest size alone passes the budget
	r := Run(t.Context(), s, nil)
	if len(r.Kernels) != 3 {
		t.Fatalf("%d kernels, want pad's 3 modes", len(r.Kernels))
	}
	if len(r.Kernels[0].Points) == 0 {
		t.Errorf("the first kernel has no points: stop %q", r.Kernels[0].Stop)
	}
	for _, k := range r.Kernels[1:] {
		if len(k.Points) != 0 || !strings.Contains(k.Stop, "ran out") || k.Fit != nil {
			t.Errorf("%s %s: %d points, stop %q", k.ID(), k.Variant, len(k.Points), k.Stop)
		}
	}
	if got := r.Kernels[2].Summary(); !strings.HasPrefix(got, "not measured: budget: the sweep's 2s ran out") {
		t.Errorf("the table row of an unmeasured kernel: %q", got)
	}
	if data, err := Marshal(r); err != nil {
		t.Fatal(err)
	} else if _, err := Read(bytes.NewReader(data)); err != nil {
		t.Errorf("the report does not read back: %v", err)
	}
}

// A real CPU sweep against its copy curve: the ceiling is measured from
// 128 bytes up in the same run, every point is compared with the copy of
// its own bytes, and no point is both faster than that copy and unflagged
// (such points are flagged above_copy and left out of the fit). The
// figures are logged: the largest share of its copy of any unflagged
// point, and how many points ran faster than theirs.
func TestSweepRealAgainstCopyCurve(t *testing.T) {
	if testing.Short() {
		t.Skip("a 4 s sweep")
	}
	eng, _ := engine.New()
	s, err := New(eng, Options{Backend: engine.CPU, Kernels: []string{"fuel-cpu-backend/pad", "fkc-cpu-kernels/masked_fill"},
		DType: tensor.F32, Budget: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := Run(t.Context(), s, nil)
	c := r.Ceiling
	if len(c.Points) < 10 || c.Points[0].Bytes != 2*ceilingFrom || c.GBps <= 0 {
		t.Fatalf("ceiling %+v: want a curve from %d bytes up", c, 2*ceilingFrom)
	}
	curve := c.Curve()
	worst, above, n := 0.0, 0, 0
	for _, k := range r.Kernels {
		if k.Error != "" || k.Fit == nil {
			t.Errorf("%s %s: error %q, fit %v", k.ID(), k.Variant, k.Error, k.Fit)
			continue
		}
		for _, p := range k.Points {
			n++
			if want := p.Bytes / curve(p.Bytes); !near(p.CopyNs, want, 1e-9) {
				t.Errorf("%s %s: %v bytes compared with a %v ns copy, want %v", k.ID(), k.Variant, p.Bytes, p.CopyNs, want)
			}
			share := p.CopyNs / p.Ns // the point's bandwidth over its copy's
			if p.AboveCopy {
				above++
				if share <= 1 || p.HeldOut || p.Outlier {
					t.Errorf("%s %s: %v bytes at %.0f%% of its copy, flagged above it (held out %v, outlier %v)", k.ID(), k.Variant, p.Bytes, 100*share, p.HeldOut, p.Outlier)
				}
				continue
			}
			worst = max(worst, share)
			if share > 1 {
				t.Errorf("%s %s: %v bytes at %.0f%% of its copy, not flagged", k.ID(), k.Variant, p.Bytes, 100*share)
			}
		}
		has := slices.ContainsFunc(k.Flags, func(f Flag) bool { return f.Code == "above_copy" })
		if has != (k.Fit.AboveCopy > 0) {
			t.Errorf("%s %s: %d sizes above their copy, flags %v", k.ID(), k.Variant, k.Fit.AboveCopy, k.Flags)
		}
		t.Logf("%s %s: %s", k.ID(), k.Variant, k.Measured())
	}
	t.Logf("copy curve %s to %s: %s to %s; %d points, %d above their copy (flagged), the rest at most %.0f%% of theirs",
		fmtBytes(c.Points[0].Bytes), fmtBytes(c.Bytes), FormatGBps(c.Points[0].Bytes/c.Points[0].Ns), FormatGBps(c.GBps), n, above, 100*worst)
}
