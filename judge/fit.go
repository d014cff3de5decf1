package judge

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The model every cost block implies: a kernel call costs a fixed overhead
// plus its contract's bytes_moved at the device's bandwidth,
//
//	time_ns = overhead_ns + bytes_moved / bytes_per_ns.
//
// Sweep sizes are geometric, so times span five or more decades. An
// ordinary least-squares line would be decided by the largest sizes alone
// and say nothing of the overhead; in relative error every size counts
// alike, so the small ones fix the overhead and the large ones the
// bandwidth. Timing on a shared machine throws the odd wild sample, so the
// fit is iteratively reweighted with Tukey's bisquare: a size far off the
// line (a preemption, a cache edge) loses its weight instead of bending the
// line, and is reported as an outlier. Theil–Sen, the other robust choice,
// weighs pairs of tiny sizes — whose slope is noise — like any other.

// Model is a fitted time = OverheadNs + bytes / BytesPerNs.
type Model struct {
	OverheadNs float64
	BytesPerNs float64 // = GB/s; 0: time does not grow with bytes
}

// Predict is the model's time in ns for a call moving bytes.
func (m Model) Predict(bytes float64) float64 {
	if m.BytesPerNs <= 0 {
		return m.OverheadNs
	}
	return m.OverheadNs + bytes/m.BytesPerNs
}

const (
	// bisquareC is Tukey's constant (95 % efficiency under normal noise).
	bisquareC = 4.685
	// minScale floors the residual scale: timings never agree better
	// than a few percent, and near-perfect data must not make a point
	// 10 % off an outlier.
	minScale = 0.05
)

// fitLine fits Model to sizes xs (bytes) and times ts (ns, all > 0) in
// relative error with bisquare reweighting. It returns the model, each
// point's final weight (0: an outlier) and the robust scale of the
// relative residuals. ok is false when fewer than 3 distinct sizes remain.
func fitLine(xs, ts []float64) (m Model, w []float64, scale float64, ok bool) {
	n := len(xs)
	w = make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	if n < 3 {
		return Model{}, w, 0, false
	}
	r := make([]float64, n)
	for iter := 0; iter < 50; iter++ {
		if m, ok = solveRelative(xs, ts, w); !ok {
			return m, w, 0, false
		}
		for i := range r {
			r[i] = (ts[i] - m.Predict(xs[i])) / ts[i]
		}
		scale = max(minScale, 1.4826*medianAbs(r))
		changed := 0.0
		for i := range w {
			u := r[i] / (bisquareC * scale)
			nw := 0.0
			if math.Abs(u) < 1 {
				nw = (1 - u*u) * (1 - u*u)
			}
			changed = max(changed, math.Abs(nw-w[i]))
			w[i] = nw
		}
		if changed < 1e-6 {
			break
		}
	}
	return m, w, scale, true
}

// solveRelative minimises Σ w_i (1 − a/t_i − b·x_i/t_i)², the weighted
// squared relative error of t ≈ a + b·x, with a ≥ 0 and b ≥ 0 (the
// columns are scaled to 1 so that bytes near 1e9 and ns near 1e2 do not
// ruin the 2×2 normal equations).
func solveRelative(xs, ts, w []float64) (Model, bool) {
	var su, sv float64
	distinct := map[float64]bool{}
	for i := range xs {
		if w[i] > 0 {
			su = max(su, 1/ts[i])
			sv = max(sv, xs[i]/ts[i])
			distinct[xs[i]] = true
		}
	}
	if len(distinct) < 3 || su == 0 {
		return Model{}, false
	}
	if sv == 0 {
		sv = 1
	}
	var uu, uv, vv, u1, v1, w1 float64
	for i := range xs {
		u, v := 1/ts[i]/su, xs[i]/ts[i]/sv
		uu += w[i] * u * u
		uv += w[i] * u * v
		vv += w[i] * v * v
		u1 += w[i] * u
		v1 += w[i] * v
		w1 += w[i]
	}
	a, b := 0.0, 0.0
	if det := uu*vv - uv*uv; det > 1e-12*uu*vv {
		a, b = (u1*vv-v1*uv)/det, (v1*uu-u1*uv)/det
	}
	switch {
	case a < 0 || (a == 0 && b == 0 && vv > 0):
		a, b = 0, v1/vv
	}
	if b < 0 {
		a, b = u1/uu, 0
	}
	m := Model{OverheadNs: a / su}
	// A slope so small that the bandwidth passes maxGBps is noise on a
	// time that does not grow with bytes (0, as for a negative slope): a
	// report must not hold a bandwidth its reader refuses (a flat kernel's
	// noise can give absurd bandwidths).
	if b > 0 && 1/(b/sv) <= maxGBps {
		m.BytesPerNs = 1 / (b / sv)
	}
	return m, w1 > 0
}

func medianAbs(r []float64) float64 {
	a := make([]float64, len(r))
	for i, v := range r {
		a[i] = math.Abs(v)
	}
	return median(a)
}

// median of a (sorted in place); NaN when empty.
func median(a []float64) float64 {
	if len(a) == 0 {
		return math.NaN()
	}
	slices.Sort(a)
	if n := len(a); n%2 == 1 {
		return a[n/2]
	} else {
		return (a[n/2-1] + a[n/2]) / 2
	}
}

// HeldOutFrom: sizes moving at least this many bytes take turns between
// the fit and the check (the check the issue asks for: sizes ≥ 1 MB).
const HeldOutFrom = 1 << 20

// Thresholds of the flags.
const (
	MaxHeldOutError = 0.25 // held-out sizes predicted within 25 %
	maxFitError     = 0.10 // the fit's median miss on its own sizes
	maxSpread       = 0.25 // a size's samples spread (IQR / median)
	maxSlopeRatio   = 1.5  // mid sizes' bandwidth over the largest's: a cache
)

// Fit is a kernel's fitted cost and how well it holds.
type Fit struct {
	OverheadNs float64 `json:"overhead_ns"`
	GBps       float64 `json:"gb_per_s"` // bytes_moved per ns: 0 when time does not grow with bytes
	// CeilingFraction is GBps over CeilingGBps, the copy ceiling at the
	// kernel's largest fitted size, measured in the same run (0: no
	// ceiling; a report from before the ceiling was a curve has no
	// CeilingGBps and compares with Ceiling.GBps).
	CeilingFraction float64 `json:"ceiling_fraction,omitempty"`
	CeilingGBps     float64 `json:"ceiling_gb_per_s,omitempty"`
	// AboveCopy counts the sizes that ran faster than a copy of their
	// own bytes (Point.AboveCopy): left out of the fit.
	AboveCopy int `json:"above_copy,omitempty"`
	FitPoints int `json:"fit_points"`
	// FitError is the median |relative error| on the fitted sizes.
	FitError float64 `json:"fit_error"`
	// HeldOut sizes (every other one ≥ HeldOutFrom, never the largest)
	// were left out of the fit and predicted: HeldOutError is the largest
	// |relative error| among them, HeldOutMedian the median.
	HeldOut       int     `json:"held_out"`
	HeldOutError  float64 `json:"held_out_error,omitempty"`
	HeldOutMedian float64 `json:"held_out_median,omitempty"`
	Outliers      int     `json:"outliers,omitempty"`
	// Regimes: where the sizes on one worker and those split over several
	// lie on two lines, each line (OverheadNs is then the one-worker
	// line's, GBps the several workers'); empty for one line.
	Regimes []Regime `json:"regimes,omitempty"`
}

// Regime is the line through the sizes that ran on one number of workers,
// when a kernel's loops split above some size (Fit.Regimes).
type Regime struct {
	Workers    int     `json:"workers"`    // the most goroutines a loop split over
	FromBytes  float64 `json:"from_bytes"` // the regime's smallest size
	OverheadNs float64 `json:"overhead_ns"`
	GBps       float64 `json:"gb_per_s"`
}

// regime is one line of a fit: the points (indices, by size) and model.
type regime struct {
	workers int
	idx     []int
	m       Model
}

// regimes splits the sizes (order: indices by bytes) where the kernel's
// worker count changes: nil unless the sizes fall into two runs — the
// smaller ones on one worker, the larger on several — with at least three
// fitted sizes each, enough for a line of their own.
func regimes(points []Point, order []int) []*regime {
	cut := -1
	for k, i := range order {
		if points[i].Workers > 1 {
			cut = k
			break
		}
	}
	if cut <= 0 {
		return nil
	}
	one, many := &regime{workers: 1, idx: order[:cut]}, &regime{idx: order[cut:]}
	for _, g := range []*regime{one, many} {
		fitted := 0
		for _, i := range g.idx {
			if points[i].Workers > 1 != (g == many) {
				return nil // the worker count changes back and forth
			}
			many.workers = max(many.workers, points[i].Workers)
			if !points[i].HeldOut {
				fitted++
			}
		}
		if fitted < 3 {
			return nil
		}
	}
	return []*regime{one, many}
}

// Predict is the fit's time for a call moving bytes on workers (the
// regime whose worker count it is; one line when there are no regimes).
func (f *Fit) Predict(bytes float64, workers int) float64 {
	m := Model{OverheadNs: f.OverheadNs, BytesPerNs: f.GBps}
	if len(f.Regimes) > 0 {
		g := f.Regimes[0]
		if workers > 1 {
			g = f.Regimes[len(f.Regimes)-1]
		}
		m = Model{OverheadNs: g.OverheadNs, BytesPerNs: g.GBps}
	}
	return m.Predict(bytes)
}

// Flag marks a kernel whose cost the line does not describe, or whose
// figures are not to be trusted as they stand.
type Flag struct {
	Code   string `json:"code"` // held_out, nonlinear, cache, noisy, outliers, above_copy, above_ceiling, no_held_out, no_fit
	Detail string `json:"detail"`
}

func (f Flag) String() string { return f.Code + ": " + f.Detail }

// Analyze fits points (marking the held-out and outlier ones), checks the
// fit on the held-out sizes and flags what does not hold. ceiling is the
// device's copy bandwidth at each size (nil: unknown): a point faster than
// the copy of its own bytes is marked AboveCopy and left out of the fit,
// which a kernel whose figures are real never is.
func Analyze(points []Point, ceiling Curve) (*Fit, []Flag) {
	var flags []Flag
	order := make([]int, 0, len(points))
	var above []string
	for i := range points {
		p := &points[i]
		p.HeldOut, p.Outlier, p.AboveCopy, p.CopyNs = false, false, false, 0
		if !(p.Ns > 0 && p.Bytes > 0) {
			continue
		}
		if ceiling != nil {
			if g := ceiling(p.Bytes); g > 0 {
				p.CopyNs = p.Bytes / g
			}
		}
		if p.Ns < p.CopyNs {
			p.AboveCopy = true
			above = append(above, fmt.Sprintf("%s at %.0f%%", fmtBytes(p.Bytes), 100*p.CopyNs/p.Ns))
			continue
		}
		order = append(order, i)
	}
	if len(above) > 0 {
		flags = append(flags, Flag{"above_copy", fmt.Sprintf("%d of %d sizes ran faster than a copy of their own bytes in this run (timer resolution? a cache the copy missed? a bytes_moved that counts more than the kernel moves), shown and kept out of the fit: %s",
			len(above), len(above)+len(order), strings.Join(above, ", "))})
	}
	slices.SortFunc(order, func(a, b int) int { return cmpFloat(points[a].Bytes, points[b].Bytes) })
	var big []int
	for _, i := range order {
		if points[i].Bytes >= HeldOutFrom {
			big = append(big, i)
		}
	}
	// From the largest down: fit, hold out, fit, … so the check predicts
	// within the fitted range and the largest size fixes the bandwidth.
	for k := len(big) - 2; k >= 0; k -= 2 {
		if k == 0 && len(big) < 3 {
			break
		}
		points[big[k]].HeldOut = true
	}
	// One line per regime: where a kernel's loops split over several
	// workers above some size, the split sizes pay a wake-up of their own
	// and move bytes at the workers' joint bandwidth — a second line, not
	// noise about the first (docs/perf/bench-and-judge.md has a pad's two
	// regimes).
	lines := regimes(points, order)
	if lines == nil {
		lines = []*regime{{idx: order}}
	}
	var res []float64
	fitted := 0
	for _, g := range lines {
		var xs, ts []float64
		var fitIdx []int
		for _, i := range g.idx {
			if !points[i].HeldOut {
				xs, ts = append(xs, points[i].Bytes), append(ts, points[i].Ns)
				fitIdx = append(fitIdx, i)
			}
		}
		m, w, _, ok := fitLine(xs, ts)
		if !ok {
			return nil, append(flags, Flag{"no_fit", fmt.Sprintf("%d sizes with a time and bytes_moved: too few to fit a line (the budget or the device's limits stopped the sweep early)", len(order))})
		}
		g.m = m
		fitted += len(xs)
		for k, i := range fitIdx {
			if w[k] == 0 {
				points[i].Outlier = true
				continue
			}
			res = append(res, (ts[k]-m.Predict(xs[k]))/ts[k])
		}
	}
	small, large := lines[0].m, lines[len(lines)-1].m
	f := &Fit{OverheadNs: small.OverheadNs, GBps: large.BytesPerNs, FitPoints: fitted}
	if len(lines) > 1 {
		for _, g := range lines {
			f.Regimes = append(f.Regimes, Regime{Workers: g.workers, FromBytes: points[g.idx[0]].Bytes, OverheadNs: g.m.OverheadNs, GBps: g.m.BytesPerNs})
		}
	}
	if ceiling != nil && f.GBps > 0 {
		f.CeilingGBps = ceiling(points[order[len(order)-1]].Bytes)
	}
	f.CeilingFraction = ceilingShare(f.GBps, f.CeilingGBps)
	f.AboveCopy = len(above)
	var outliers []string
	for _, i := range order {
		if points[i].Outlier {
			f.Outliers++
			outliers = append(outliers, fmtBytes(points[i].Bytes))
		}
	}
	f.FitError = medianAbs(res)
	var held []float64
	for _, g := range lines {
		for _, i := range g.idx {
			if points[i].HeldOut {
				held = append(held, math.Abs(g.m.Predict(points[i].Bytes)-points[i].Ns)/points[i].Ns)
			}
		}
	}
	f.HeldOut = len(held)
	if len(held) > 0 {
		f.HeldOutError = slices.Max(held)
		f.HeldOutMedian = median(held)
	}

	switch {
	case f.GBps == 0:
		flags = append(flags, Flag{"nonlinear", "time does not grow with bytes_moved: no bandwidth to fit"})
	case len(held) == 0:
		flags = append(flags, Flag{"no_held_out", fmt.Sprintf("%d sizes moved ≥ %s: too few to hold one out and check the fit", len(big), fmtBytes(HeldOutFrom))})
	case f.HeldOutError > MaxHeldOutError:
		flags = append(flags, Flag{"held_out", fmt.Sprintf("held-out sizes ≥ %s predicted within %.0f%% (median %.0f%%), worse than %.0f%%: time is not linear in bytes_moved",
			fmtBytes(HeldOutFrom), 100*f.HeldOutError, 100*f.HeldOutMedian, 100*MaxHeldOutError)})
	}
	if f.FitError > maxFitError {
		flags = append(flags, Flag{"nonlinear", fmt.Sprintf("the line misses its own sizes by a median %.0f%%", 100*f.FitError)})
	}
	if mid, top, ok := cacheEdge(points, lines[len(lines)-1].idx, large.OverheadNs); ok {
		flags = append(flags, Flag{"cache", fmt.Sprintf("sizes of %s to %s run at %s, the largest at %s: the smaller ones stay in a cache, and no one line fits both",
			fmtBytes(mid[0]), fmtBytes(mid[1]), FormatGBps(mid[2]), FormatGBps(top))})
	}
	if f.Outliers > 0 {
		flags = append(flags, Flag{"outliers", fmt.Sprintf("%d of %d fitted sizes lie far off the line and were given no weight: %v", f.Outliers, fitted, outliers)})
	}
	noisy := 0
	for _, i := range order {
		if points[i].Spread > maxSpread {
			noisy++
		}
	}
	if noisy*3 > len(order) {
		flags = append(flags, Flag{"noisy", fmt.Sprintf("the samples of %d of %d sizes spread more than %.0f%% (interquartile range / median): contention from other processes?", noisy, len(order), 100*maxSpread)})
	}
	if f.CeilingFraction > 1.1 {
		flags = append(flags, Flag{"above_ceiling", fmt.Sprintf("%s is %.0f%% of a copy of the largest size's bytes: the data stays in a cache, or bytes_moved counts more than the kernel moves", FormatGBps(f.GBps), 100*f.CeilingFraction)})
	}
	return f, flags
}

// cacheEdge compares the bandwidth (bytes over time less overhead) of
// the mid sizes — from HeldOutFrom to a sixteenth of the largest — with
// that of the two largest: ok when the mid sizes run maxSlopeRatio times
// faster, the mark of data that fits in a cache. mid is their byte range
// and median bandwidth.
func cacheEdge(points []Point, order []int, overhead float64) (mid [3]float64, top float64, ok bool) {
	if len(order) < 4 {
		return mid, 0, false
	}
	largest := points[order[len(order)-1]].Bytes
	bw := func(p Point) float64 { return p.Bytes / max(p.Ns-overhead, p.Ns/100) }
	var m, t []float64
	for k, i := range order {
		p := points[i]
		switch {
		case k >= len(order)-2:
			t = append(t, bw(p))
		case p.Bytes >= HeldOutFrom && p.Bytes <= largest/16:
			if len(m) == 0 {
				mid[0] = p.Bytes
			}
			mid[1] = p.Bytes
			m = append(m, bw(p))
		}
	}
	if len(m) < 2 {
		return mid, 0, false
	}
	mid[2], top = median(m), median(t)
	return mid, top, mid[2] > maxSlopeRatio*top
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.3g KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// FormatGBps writes a bandwidth: "843 GB/s", "3530 GB/s", "12.4 GB/s".
func FormatGBps(g float64) string {
	if g >= 100 {
		return fmt.Sprintf("%.0f GB/s", g)
	}
	return fmt.Sprintf("%.3g GB/s", g)
}

// ceilingShare is a bandwidth over the copy ceiling, 0 without a ceiling
// (Fit.CeilingFraction; a report read back is checked against it).
func ceilingShare(gbps, ceiling float64) float64 {
	if ceiling <= 0 {
		return 0
	}
	return gbps / ceiling
}
