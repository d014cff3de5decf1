package playground

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/judge"
)

// The Judge's pages: its measurements (fkc judge natively, or a sweep run
// in this tab) beside the contracts' cost formulas, a table of every kernel
// by its fraction of the device's copy ceiling, and per kernel a log-log
// plot of time against bytes moved with the fitted line and the ceiling,
// drawn here as SVG.

// Measured is one report's figures for one binding of a kernel.
type Measured struct {
	Report          string // the report's label: device and date
	DTypes, Variant string
	Overhead, GBps  string
	OfCeil, HeldOut string
	Flags           string
	Skipped         string
}

// MeasuredFor lists what the reports say of kernel id ("provider/name").
func MeasuredFor(id string, reports []*judge.Report) []Measured {
	var out []Measured
	for _, r := range reports {
		for i := range r.Kernels {
			k := &r.Kernels[i]
			if k.ID() != id {
				continue
			}
			m := Measured{Report: ReportLabel(r), DTypes: strings.Join(k.DTypes, ","), Variant: k.Variant, Skipped: k.Skipped + k.Error}
			if f := k.Fit; f != nil {
				m.Overhead, m.GBps = fmtNsShort(f.OverheadNs), judge.FormatGBps(f.GBps)
				if f.CeilingFraction > 0 {
					m.OfCeil = fmt.Sprintf("%.0f%%", 100*f.CeilingFraction)
				}
				if f.HeldOut > 0 {
					m.HeldOut = fmt.Sprintf("%.0f%% (%d sizes)", 100*f.HeldOutError, f.HeldOut)
				}
			}
			var codes []string
			for _, fl := range k.Flags {
				codes = append(codes, fl.Code)
			}
			m.Flags = strings.Join(codes, ", ")
			out = append(out, m)
		}
	}
	return out
}

// ReportLabel names a report by its device and date: "AMD EPYC (cpu), 2026-12-01".
func ReportLabel(r *judge.Report) string { return r.Marked() }

func fmtNsShort(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}

// JudgePage is the Judge page's model.
type JudgePage struct {
	GPU       GPUState
	Bundled   []string // the reports shipped with the app, by file name
	Shown     string   // which report the table shows: a bundled file, or "tab"
	A, B      *judge.Report
	ALabel    string
	BLabel    string
	Rows      []JudgeRow
	Pick      string // the kernel row whose plot is drawn
	Plot      *Plot
	PlotB     *Plot
	Running   bool
	Budget    int    // seconds: the form's default, or the last sweep's
	Backend   string // the backend picked for the last sweep ("" = cpu)
	Kernels   string // the kernels field as the last sweep had it
	Note      string
	HasTabRun bool
}

// JudgeRow is one binding × variant of the shown report (and, when a
// second report is loaded, the same binding there).
type JudgeRow struct {
	Key                 string // provider/kernel[dtypes] variant
	ID, DTypes, Variant string
	Overhead, GBps      string
	OfCeil, HeldOut     string
	Frac                float64
	Flags               []judge.Flag
	BGBps, BOfCeil      string
	Skipped             string
}

func rowKey(k *judge.Kernel) string {
	return k.ID() + "[" + strings.Join(k.DTypes, ",") + "] " + k.Variant
}

// NewJudgePage builds the page for report a (and b to compare), the plot
// of kernel row pick (the best-performing row when empty).
func NewJudgePage(a, b *judge.Report, pick string) *JudgePage {
	p := &JudgePage{A: a, B: b, Pick: pick, Budget: 20}
	if a == nil {
		return p
	}
	p.ALabel = ReportLabel(a)
	bykey := map[string]*judge.Kernel{}
	if b != nil {
		p.BLabel = ReportLabel(b)
		for i := range b.Kernels {
			bykey[rowKey(&b.Kernels[i])] = &b.Kernels[i]
		}
	}
	for i := range a.Kernels {
		k := &a.Kernels[i]
		r := JudgeRow{Key: rowKey(k), ID: k.ID(), DTypes: strings.Join(k.DTypes, ","), Variant: k.Variant, Flags: k.Flags, Skipped: k.Skipped + k.Error}
		if f := k.Fit; f != nil {
			r.Overhead, r.GBps, r.Frac = fmtNsShort(f.OverheadNs), fmt.Sprintf("%.3g", f.GBps), f.CeilingFraction
			if f.CeilingFraction > 0 {
				r.OfCeil = fmt.Sprintf("%.0f%%", 100*f.CeilingFraction)
			}
			if f.HeldOut > 0 {
				r.HeldOut = fmt.Sprintf("%.0f%%", 100*f.HeldOutError)
			}
		}
		if bk := bykey[r.Key]; bk != nil && bk.Fit != nil {
			r.BGBps = fmt.Sprintf("%.3g", bk.Fit.GBps)
			if bk.Fit.CeilingFraction > 0 {
				r.BOfCeil = fmt.Sprintf("%.0f%%", 100*bk.Fit.CeilingFraction)
			}
		}
		p.Rows = append(p.Rows, r)
	}
	slices.SortStableFunc(p.Rows, func(x, y JudgeRow) int { return cmp.Compare(y.Frac, x.Frac) })
	if p.Pick == "" && len(p.Rows) > 0 {
		p.Pick = p.Rows[0].Key
	}
	for i := range a.Kernels {
		if rowKey(&a.Kernels[i]) == p.Pick {
			p.Plot = NewPlot(&a.Kernels[i], &a.Ceiling, ReportLabel(a))
		}
	}
	if b != nil && bykey[p.Pick] != nil {
		p.PlotB = NewPlot(bykey[p.Pick], &b.Ceiling, ReportLabel(b))
	}
	return p
}

// Plot is a log-log picture of one kernel's sweep: time against bytes
// moved, the fitted line and the device's copy ceiling.
type Plot struct {
	Title, Device string
	W, H          int
	SVG           template.HTML
	Summary       string // the figures in words (the SVG's text alternative)
}

const (
	plotW, plotH = 440, 300
	// padR leaves room for half the widest x tick ("100 MB"), centred on
	// the frame's right edge.
	padL, padR, padT, padB = 58, 26, 14, 40
)

// NewPlot draws kernel k's points, fit and the copy ceiling of its
// report: a curve, the copy of each size's bytes (a report from before
// it was one: a line of its one bandwidth).
func NewPlot(k *judge.Kernel, ceil *judge.Ceiling, device string) *Plot {
	p := &Plot{Title: rowKey(k), Device: device, W: plotW, H: plotH, Summary: k.Measured()}
	var xs, ys []float64
	for _, pt := range k.Points {
		if pt.Bytes > 0 && pt.Ns > 0 {
			xs, ys = append(xs, pt.Bytes), append(ys, pt.Ns)
		}
	}
	if len(xs) == 0 {
		p.SVG = template.HTML(fmt.Sprintf(`<svg viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="no points"><text x="20" y="40">no points measured</text></svg>`, plotW, plotH, plotW, plotH))
		return p
	}
	x0, x1 := decade(slices.Min(xs), false), decade(slices.Max(xs), true)
	y0, y1 := decade(slices.Min(ys), false), decade(slices.Max(ys), true)
	if f := k.Fit; f != nil && f.OverheadNs > 0 {
		y0 = math.Min(y0, decade(f.OverheadNs, false))
	}
	X := func(v float64) float64 {
		return padL + (math.Log10(v)-math.Log10(x0))/(math.Log10(x1)-math.Log10(x0))*float64(plotW-padL-padR)
	}
	Y := func(v float64) float64 {
		return float64(plotH-padB) - (math.Log10(v)-math.Log10(y0))/(math.Log10(y1)-math.Log10(y0))*float64(plotH-padT-padB)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="plot" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s: time against bytes moved, log-log">`, plotW, plotH, plotW, plotH, template.HTMLEscapeString(p.Title))
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" class="frame"/>`, padL, padT, plotW-padL-padR, plotH-padT-padB)
	for v := x0; v <= x1*1.0001; v *= 10 {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="grid"/><text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`,
			X(v), X(v), padT, plotH-padB, X(v), plotH-padB+14, bytesTick(v))
	}
	for v := y0; v <= y1*1.0001; v *= 10 {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`,
			padL, plotW-padR, Y(v), Y(v), padL-4, Y(v)+4, fmtNsShort(v))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="axis" text-anchor="middle">bytes moved (the contract's bytes_moved)</text>`, (plotW+padL)/2, plotH-6)
	// The ceiling: time = bytes / the copy's bandwidth at that size.
	if cv := ceil.Curve(); cv != nil {
		fmt.Fprintf(&b, `<polyline class="ceiling" points="%s"><title>a copy of the same bytes, measured in the same run</title></polyline>`,
			curve(x0, x1, func(x float64) float64 { return x / cv(x) }, X, Y, y0, y1))
	}
	if f := k.Fit; f != nil && (f.GBps > 0 || f.OverheadNs > 0) {
		// One line, or one per regime over its sizes (one worker, then
		// several).
		if len(f.Regimes) == 0 {
			fmt.Fprintf(&b, `<polyline class="fit" points="%s"/>`, curve(x0, x1, func(x float64) float64 { return f.Predict(x, 1) }, X, Y, y0, y1))
		}
		for i, g := range f.Regimes {
			lo, hi := x0, x1
			if i > 0 {
				lo = g.FromBytes
			}
			if i+1 < len(f.Regimes) {
				hi = f.Regimes[i+1].FromBytes
			}
			fmt.Fprintf(&b, `<polyline class="fit" points="%s"><title>%d worker(s): %s + bytes / %s</title></polyline>`,
				curve(lo, hi, func(x float64) float64 { return f.Predict(x, g.Workers) }, X, Y, y0, y1), g.Workers, fmtNsShort(g.OverheadNs), judge.FormatGBps(g.GBps))
		}
	}
	labelled := false
	for _, pt := range k.Points {
		if pt.Bytes <= 0 || pt.Ns <= 0 {
			continue
		}
		cls := "pt"
		switch {
		case pt.Outlier:
			cls = "pt outlier"
		case pt.HeldOut:
			cls = "pt held"
		case pt.AboveCopy:
			cls = "pt above"
		}
		of := ""
		if pt.CopyNs > 0 {
			of = fmt.Sprintf(", %.0f%% of a copy of its bytes", 100*pt.CopyNs/pt.Ns)
		}
		fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="3.5"><title>%s moved: %s%s</title></circle>`, cls, X(pt.Bytes), Y(pt.Ns), bytesTick(pt.Bytes), fmtNsShort(pt.Ns), of)
		if pt.AboveCopy && !labelled {
			// Flagged in place, beside the first such point (the others
			// share its mark): out of the fit.
			labelled = true
			lx, anchor := X(pt.Bytes)+6, "start"
			if lx > plotW/2 {
				lx, anchor = X(pt.Bytes)-6, "end"
			}
			fmt.Fprintf(&b, `<text class="flag" x="%.1f" y="%.1f" text-anchor="%s">above copy — timer resolution?</text>`, lx, max(float64(padT)+10, Y(pt.Ns)-6), anchor)
		}
	}
	b.WriteString(`</svg>`)
	p.SVG = template.HTML(b.String())
	return p
}

// curve samples f over [x0, x1] on a log scale, clipped to [y0, y1].
func curve(x0, x1 float64, f func(float64) float64, X, Y func(float64) float64, y0, y1 float64) string {
	var pts []string
	for i := 0; i <= 64; i++ {
		x := x0 * math.Pow(x1/x0, float64(i)/64)
		y := f(x)
		if y < y0 || y > y1 {
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", X(x), Y(y)))
	}
	return strings.Join(pts, " ")
}

// decade rounds v down (or up) to a power of ten.
func decade(v float64, up bool) float64 {
	e := math.Floor(math.Log10(v))
	if up {
		e = math.Ceil(math.Log10(v))
		if e == math.Floor(math.Log10(v)) {
			e++
		}
	}
	return math.Pow(10, e)
}

func bytesTick(v float64) string {
	for _, u := range []struct {
		s string
		f float64
	}{{"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if v >= u.f {
			return fmt.Sprintf("%.3g %s", v/u.f, u.s)
		}
	}
	return fmt.Sprintf("%.0f B", v)
}

// BundledReports are the Judge's reports shipped with the app
// (contracts/judge/*.json), read on first use.
var BundledReports = sync.OnceValues(func() ([]*judge.Report, error) { return readBundled(judge.Read) })

// BundledSummaries are the same reports without their points
// (judge.ReadSummary): what the kernel pages show. They are read from
// judge_summaries.json, which go generate ./web writes from the reports
// (TestJudgeSummariesAreFresh checks it): in the browser the first kernel
// page reads them in a fraction of the reports' time
// (docs/perf/browser-page.md).
var BundledSummaries = sync.OnceValues(func() ([]*judge.Report, error) {
	var rs []*judge.Report
	if err := json.Unmarshal(judgeSummaries, &rs); err != nil {
		return nil, fmt.Errorf("playground/judge_summaries.json: %v (go generate ./web rewrites it)", err)
	}
	return rs, nil
})

//go:embed judge_summaries.json
var judgeSummaries []byte

// JudgeSummaries is what judge_summaries.json holds: the bundled reports
// read by judge.ReadSummary, as JSON.
func JudgeSummaries() ([]byte, error) {
	rs, err := readBundled(judge.ReadSummary)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(rs)
	return append(b, '\n'), err
}

func readBundled(read func(io.Reader) (*judge.Report, error)) ([]*judge.Report, error) {
	var out []*judge.Report
	for _, name := range contracts.JudgeReports() {
		f, err := contracts.JudgeFS.Open("judge/" + name)
		if err != nil {
			return nil, err
		}
		r, err := read(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("contracts/judge/%s: %v", name, err)
		}
		out = append(out, r)
	}
	return out, nil
}
