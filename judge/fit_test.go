package judge

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// sweepPoints is a synthetic sweep: geometric sizes from 64 B to 256 MiB
// timed by f.
func sweepPoints(f func(bytes float64) float64) []Point {
	var ps []Point
	for b := 64.0; b <= 256<<20; b *= 2 {
		ps = append(ps, Point{Elems: int(b / 4), Bytes: b, Ns: f(b), Samples: 7, Batch: 1})
	}
	return ps
}

func line(overhead, gbps float64) func(float64) float64 {
	return func(b float64) float64 { return overhead + b/gbps }
}

func codes(fs []Flag) []string {
	var c []string
	for _, f := range fs {
		c = append(c, f.Code)
	}
	return c
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Exact data: the fit gives back the overhead and bandwidth, predicts the
// held-out sizes exactly, and flags nothing.
func TestFitExact(t *testing.T) {
	ps := sweepPoints(line(1500, 12.5))
	f, flags := Analyze(ps, Flat(25))
	if f == nil || !near(f.OverheadNs, 1500, 1e-6) || !near(f.GBps, 12.5, 1e-6) {
		t.Fatalf("fit %+v", f)
	}
	if !near(f.CeilingFraction, 0.5, 1e-6) || f.HeldOutError > 1e-6 || f.FitError > 1e-6 || len(flags) != 0 {
		t.Errorf("fit %+v, flags %v", f, flags)
	}
	// Every other size ≥ 1 MiB is held out, never the largest.
	var held []float64
	for _, p := range ps {
		if p.HeldOut {
			held = append(held, p.Bytes)
		}
	}
	want := []float64{1 << 21, 1 << 23, 1 << 25, 1 << 27}
	if !slices.Equal(held, want) || f.HeldOut != len(want) || f.FitPoints != len(ps)-len(want) {
		t.Errorf("held out %v (fit on %d), want %v", held, f.FitPoints, want)
	}
}

// ±8 % noise: the bandwidth within a few percent, the overhead within
// 15 %, the held-out sizes within 25 %.
func TestFitNoise(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 20; trial++ {
		ps := sweepPoints(func(b float64) float64 { return line(800, 40)(b) * (1 + 0.08*(2*rng.Float64()-1)) })
		f, flags := Analyze(ps, Flat(0))
		if f == nil || !near(f.GBps, 40, 0.05) || !near(f.OverheadNs, 800, 0.15) {
			t.Fatalf("trial %d: fit %+v", trial, f)
		}
		if f.HeldOutError > MaxHeldOutError || slices.Contains(codes(flags), "held_out") {
			t.Errorf("trial %d: held-out error %.3f, flags %v", trial, f.HeldOutError, flags)
		}
	}
}

// A few sizes hit by preemption (3× their time) lose their weight: the fit
// stays on the line and says which sizes it ignored.
func TestFitOutliers(t *testing.T) {
	ps := sweepPoints(line(2000, 8))
	for _, i := range []int{2, 9, 16} {
		ps[i].Ns *= 3
	}
	f, flags := Analyze(ps, Flat(0))
	if f == nil || !near(f.GBps, 8, 0.01) || !near(f.OverheadNs, 2000, 0.02) {
		t.Fatalf("fit %+v", f)
	}
	if f.Outliers != 3 || !slices.Contains(codes(flags), "outliers") {
		t.Errorf("outliers %d, flags %v", f.Outliers, flags)
	}
	for _, i := range []int{2, 9, 16} {
		if !ps[i].Outlier {
			t.Errorf("point %d (%v B) not marked as an outlier", i, ps[i].Bytes)
		}
	}
}

// Time that is not linear in bytes is flagged, never fitted silently: a
// cache cliff (3× slower past 8 MiB), a power law, and time that does
// not grow at all.
func TestFitNonlinearFlagged(t *testing.T) {
	cases := map[string]func(float64) float64{
		"cache cliff": func(b float64) float64 {
			if b > 8<<20 {
				return 500 + b/10
			}
			return 500 + b/30
		},
		"power law": func(b float64) float64 { return 300 + math.Pow(b, 1.25)/20 },
		"contention": func(b float64) float64 { // every other size twice as slow
			t := 1000 + b/20
			if int(math.Log2(b))%2 == 0 {
				t *= 2
			}
			return t
		},
		"flat": func(float64) float64 { return 5000 },
	}
	for name, tf := range cases {
		f, flags := Analyze(sweepPoints(tf), Flat(0))
		c := codes(flags)
		if !slices.Contains(c, "held_out") && !slices.Contains(c, "nonlinear") {
			t.Errorf("%s: not flagged (fit %+v, flags %v)", name, f, flags)
		}
	}
}

// Too few sizes: no fit, and a flag that says so; too few large sizes:
// a fit without a held-out check, flagged.
func TestFitTooFew(t *testing.T) {
	ps := []Point{{Bytes: 100, Ns: 10}, {Bytes: 200, Ns: 12}}
	if f, flags := Analyze(ps, Flat(0)); f != nil || !slices.Equal(codes(flags), []string{"no_fit"}) {
		t.Errorf("fit %+v, flags %v", f, flags)
	}
	var small []Point
	for _, p := range sweepPoints(line(100, 10)) {
		if p.Bytes <= 2<<20 {
			small = append(small, p)
		}
	}
	f, flags := Analyze(small, Flat(0))
	if f == nil || f.HeldOut != 0 || !slices.Contains(codes(flags), "no_held_out") {
		t.Errorf("fit %+v, flags %v", f, flags)
	}
}

// Noisy samples (a wide interquartile range at most sizes) are flagged
// as contention; a kernel whose fitted bandwidth passes the copy of its
// largest size is flagged too (its sizes each within their own copy: the
// line through them runs steeper than the copy's mean).
func TestFitNoisyAndAboveCeiling(t *testing.T) {
	ps := sweepPoints(line(20000, 50))
	for i := range ps {
		ps[i].Spread = 0.6
	}
	// The copy: no overhead, 40 GB/s. Every size is slower than its copy
	// (20 µs + b/50 > b/40 up to 4 MB), except the largest two.
	_, flags := Analyze(ps, Flat(40))
	c := codes(flags)
	if !slices.Contains(c, "noisy") || !slices.Contains(c, "above_copy") {
		t.Errorf("flags %v", flags)
	}
	ps = sweepPoints(line(100e3, 50))[:18] // to 8 MiB: 100 µs + b/50 stays slower than b/40
	f, flags := Analyze(ps, Flat(40))
	if c := codes(flags); !slices.Contains(c, "above_ceiling") || slices.Contains(c, "above_copy") || !near(f.CeilingFraction, 1.25, 1e-6) {
		t.Errorf("fit %+v, flags %v", f, flags)
	}
}

// The ceiling is a curve: each size is compared with a copy of its own
// bytes. Synthetic timings of a copy that runs at 200 GB/s while its bytes
// fit in a 1 MiB cache and at 40 GB/s past it; a kernel at 20 GB/s plus
// 1 µs, except two sizes whose times are below their copies' (a clock
// that ticked too coarsely): those two are flagged in place, kept out of
// the fit, and the fit is the kernel's own line; the kernel's share of the
// ceiling is its bandwidth over the copy at its largest size (50%), not
// over the one figure of a flat ceiling.
func TestFitAgainstCopyOfOwnSize(t *testing.T) {
	var cp Ceiling
	for b := 128.0; b <= 1<<28; b *= 2 {
		gbps := 40.0
		if b <= 1<<20 {
			gbps = 200
		}
		cp.Points = append(cp.Points, Point{Elems: int(b / 2), Bytes: b, Ns: b / gbps})
	}
	curve := cp.Curve()
	// Between two copies, their bandwidths interpolated on log-log axes;
	// outside them, the nearest's.
	for _, c := range []struct{ bytes, want float64 }{
		{1 << 10, 200}, {1 << 27, 40}, {math.Sqrt(2) * (1 << 20), math.Sqrt(200 * 40)}, {16, 200}, {1 << 32, 40}} {
		if got := curve(c.bytes); !near(got, c.want, 1e-9) {
			t.Errorf("copy curve at %v bytes: %v GB/s, want %v", c.bytes, got, c.want)
		}
	}
	ps := sweepPoints(line(1000, 20))
	fast := map[float64]bool{1 << 16: true, 1 << 24: true}
	for i := range ps {
		if fast[ps[i].Bytes] {
			ps[i].Ns = 0.9 * ps[i].Bytes / curve(ps[i].Bytes) // 111% of its copy
		}
	}
	f, flags := Analyze(ps, curve)
	if f == nil || !near(f.GBps, 20, 1e-6) || !near(f.OverheadNs, 1000, 1e-6) {
		t.Fatalf("fit %+v (flags %v): want the line without the two fast sizes", f, flags)
	}
	for _, p := range ps {
		if p.AboveCopy != fast[p.Bytes] || (p.AboveCopy && (p.HeldOut || p.Outlier)) {
			t.Errorf("%v bytes: above copy %v, held out %v, outlier %v", p.Bytes, p.AboveCopy, p.HeldOut, p.Outlier)
		}
		if want := p.Bytes / curve(p.Bytes); !near(p.CopyNs, want, 1e-9) {
			t.Errorf("%v bytes: copy %v ns, want %v", p.Bytes, p.CopyNs, want)
		}
		if !p.AboveCopy && p.Ns < p.CopyNs {
			t.Errorf("%v bytes: %v ns, faster than its copy's %v, not flagged", p.Bytes, p.Ns, p.CopyNs)
		}
	}
	if f.AboveCopy != 2 || f.FitPoints+f.HeldOut != len(ps)-2 || !near(f.CeilingGBps, 40, 1e-9) || !near(f.CeilingFraction, 0.5, 1e-9) {
		t.Errorf("fit %+v", f)
	}
	c := codes(flags)
	if !slices.Equal(c, []string{"above_copy"}) || !strings.Contains(flags[0].Detail, "64 KiB at 111%") || !strings.Contains(flags[0].Detail, "16 MiB at 111%") {
		t.Errorf("flags %v", flags)
	}
	// A flat ceiling of the largest copy's figure (the old one) would put
	// the cached sizes of a real kernel far above it: with the curve
	// they are not.
	for i := range ps {
		ps[i].Ns = line(1000, 20)(ps[i].Bytes)
	}
	if _, flags := Analyze(ps, curve); len(flags) != 0 {
		t.Errorf("a kernel slower than its copy at every size: flags %v", flags)
	}
}

// The fit never returns a negative overhead or bandwidth.
func TestFitConstrained(t *testing.T) {
	// Pure bandwidth with a touch of noise that would pull an
	// unconstrained intercept below zero.
	ps := sweepPoints(func(b float64) float64 { return b / 5 })
	ps[0].Ns *= 0.9
	ps[1].Ns *= 0.9
	f, _ := Analyze(ps, Flat(0))
	if f == nil || f.OverheadNs < 0 || !near(f.GBps, 5, 0.02) {
		t.Errorf("fit %+v", f)
	}
}

// A kernel that splits over two workers from 4 MiB on: the split sizes pay
// a wake-up of 100 µs and run at twice the bandwidth. One line through
// both misses the held-out sizes (the judge flagged most of the CPU data
// movers so on a 2-core machine); the worker count recorded with each
// size gives each regime its line, and both are predicted exactly.
func TestFitRegimes(t *testing.T) {
	one, two := line(1500, 30), line(100000, 60)
	timeOf := func(b float64) float64 {
		if b >= 4<<20 {
			return two(b)
		}
		return one(b)
	}
	ps := sweepPoints(timeOf)
	if f, flags := Analyze(ps, Flat(70)); f == nil || f.HeldOutError < MaxHeldOutError || !slices.Contains(codes(flags), "held_out") {
		t.Fatalf("without worker counts: fit %+v, flags %v; want a held_out flag", f, flags)
	}
	for i := range ps {
		ps[i].Workers = 1
		if ps[i].Bytes >= 4<<20 {
			ps[i].Workers = 2
		}
	}
	f, flags := Analyze(ps, Flat(70))
	if f == nil || len(f.Regimes) != 2 || f.HeldOutError > 1e-6 || len(flags) != 0 {
		t.Fatalf("fit %+v, flags %v", f, flags)
	}
	r0, r1 := f.Regimes[0], f.Regimes[1]
	if r0.Workers != 1 || r0.FromBytes != 64 || !near(r0.OverheadNs, 1500, 1e-6) || !near(r0.GBps, 30, 1e-6) ||
		r1.Workers != 2 || r1.FromBytes != 4<<20 || !near(r1.OverheadNs, 100000, 1e-6) || !near(r1.GBps, 60, 1e-6) {
		t.Errorf("regimes %+v", f.Regimes)
	}
	// The kernel's figures: the one-worker overhead (what a small call
	// costs), the split bandwidth (what a large one moves at).
	if !near(f.OverheadNs, 1500, 1e-6) || !near(f.GBps, 60, 1e-6) || !near(f.Predict(8<<20, 2), two(8<<20), 1e-9) || !near(f.Predict(1<<20, 1), one(1<<20), 1e-9) {
		t.Errorf("fit %+v", f)
	}
	// A worker count that changes back and forth is not two regimes.
	ps[3].Workers = 2
	if f, _ := Analyze(ps, Flat(70)); f == nil || len(f.Regimes) != 0 {
		t.Errorf("interleaved worker counts: fit %+v", f)
	}
}
