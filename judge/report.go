package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/tensor"
)

// Format names the report's schema; a reader refuses any other major
// version. Adding optional fields keeps the version; changing or removing
// one bumps it.
const Format = "fkc-judge/1"

// Report is what a sweep found on one device: the device, the copy
// ceiling, and per kernel binding × variant the measured sizes, the fitted
// cost and its check. It is a file of its own (fkc judge -o); the
// contracts stay as they are, and `fkc contracts --judge FILE` shows the
// two side by side.
type Report struct {
	Format string `json:"format"`
	// Date is when the sweep started, RFC 3339 in UTC.
	Date    string  `json:"date"`
	Device  Device  `json:"device"`
	Host    Host    `json:"host"`
	Clock   Clock   `json:"clock"`
	BudgetS float64 `json:"budget_s"`
	// ElapsedS is how long the sweep ran; Cancelled: it was stopped
	// before it finished (the kernels measured so far are reported).
	ElapsedS  float64 `json:"elapsed_s"`
	Cancelled bool    `json:"cancelled,omitempty"`
	Ceiling   Ceiling `json:"ceiling"`
	// PointFields names the columns of every points array.
	PointFields []string `json:"point_fields"`
	Kernels     []Kernel `json:"kernels"`
}

// Device is what ran the kernels.
type Device struct {
	Name    string `json:"name"`    // "AMD EPYC", "llvmpipe (LLVM 15.0.6, 256 bits) (vulkan, cpu)", "NVIDIA H200 …"
	Backend string `json:"backend"` // cpu, vulkan, webgpu
	Driver  string `json:"driver,omitempty"`
	// MaxBufferBytes is the largest buffer a GPU kernel may bind: no
	// operand of the sweep was larger.
	MaxBufferBytes uint64 `json:"max_buffer_bytes,omitempty"`
}

// Host is the machine and toolchain that drove the device.
type Host struct {
	GoVersion string `json:"go_version"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	CPU       string `json:"cpu,omitempty"` // the CPU model, where the OS says
	CPUs      int    `json:"cpus"`          // logical CPUs
	Threads   int    `json:"threads"`       // GOMAXPROCS: goroutines that run at once
}

// Clock says how the times were taken.
type Clock struct {
	// Source: "thread-cpu" (the CPU time of the thread that runs the
	// kernel: what other processes take meanwhile does not count; a
	// kernel that also runs on other threads is timed on the wall and its
	// Kernel.Clock says so), "wall" (runs back to back on the host clock),
	// "gpu-timestamps" (GPU timestamp queries around the kernel's passes)
	// or "gpu-submit-to-mapped" (submit to results mapped: transfers
	// included).
	Source       string  `json:"source"`
	ResolutionNs float64 `json:"resolution_ns"` // of the host clock, measured
	// MinSampleNs: a sample lasts at least this long (runs are batched),
	// so the clock's resolution is under 1 % of it.
	MinSampleNs float64 `json:"min_sample_ns"`
}

// Ceiling is the device's copy bandwidth: what a kernel that only moves
// its bytes_moved could reach.
type Ceiling struct {
	Method string `json:"method"`
	// GBps: read + write bytes per ns at the largest size, the better of
	// all threads and one.
	GBps  float64 `json:"gb_per_s"`
	Bytes float64 `json:"bytes"` // read + write bytes of that copy
	// SingleThreadGBps: the same copy on one thread (CPU only), timed
	// like the kernels (by the thread's CPU clock where the OS has one).
	SingleThreadGBps float64 `json:"single_thread_gb_per_s,omitempty"`
	Points           []Point `json:"points,omitempty"`
	// Note says why the ceiling may read high (its largest copy was small).
	Note  string `json:"note,omitempty"`
	Error string `json:"error,omitempty"`
}

// Kernel is one binding × variant.
type Kernel struct {
	Provider   string   `json:"provider"`
	Kernel     string   `json:"kernel"`
	DTypes     []string `json:"dtypes"`  // the binding's input dtypes
	Variant    string   `json:"variant"` // pad/reflect, sum/all, gather, …
	Class      string   `json:"class,omitempty"`
	BytesMoved string   `json:"bytes_moved"` // the contract's formulas
	Flops      string   `json:"flops,omitempty"`
	Clock      string   `json:"clock,omitempty"`
	Fit        *Fit     `json:"fit,omitempty"`
	Flags      []Flag   `json:"flags,omitempty"`
	// Stop says why the sweep stopped growing the size (budget, memory,
	// the device's buffer limit).
	Stop string `json:"stop,omitempty"`
	// Skipped: the binding cannot run on this device (kernels.Unavailable).
	Skipped string  `json:"skipped,omitempty"`
	Error   string  `json:"error,omitempty"`
	Points  []Point `json:"points"`
}

// ID is "PROVIDER/NAME", as --kernel and `fkc contracts` name it.
func (k *Kernel) ID() string { return k.Provider + "/" + k.Kernel }

// Point is one size of a sweep.
type Point struct {
	Elems   int     // elements of the call's first operand
	Bytes   float64 // the contract's bytes_moved for the call
	Flops   float64 // the contract's flops for the call
	Ns      float64 // median time of one run
	MinNs   float64 // the fastest sample's (contention only ever adds time)
	Spread  float64 // interquartile range of the samples over their median
	Samples int     // samples taken
	Batch   int     // runs per sample
	// Workers is the most goroutines the kernel's loops split over (0:
	// not recorded — a GPU, the ceiling, or a report from before).
	Workers int
	HeldOut bool // left out of the fit and predicted
	Outlier bool // given no weight by the robust fit
	// CopyNs is the copy ceiling's time for the same bytes, measured in
	// the same run (Ceiling.Curve; 0: no ceiling). AboveCopy: the point
	// ran faster than that copy — the clock, a cache the copy missed or a
	// bytes_moved that counts more than the kernel moves — and is shown
	// but kept out of the fit.
	CopyNs    float64
	AboveCopy bool
}

// PointFields are the columns of a point in JSON (role: 0 fitted, 1 held
// out, 2 outlier, 3 above the copy of its size). A report written before
// workers or copy_ns was added has the first nine or ten, and reads as
// workers 0, copy_ns 0.
var PointFields = []string{"elems", "bytes_moved", "flops", "median_ns", "min_ns", "spread", "samples", "batch", "role", "workers", "copy_ns"}

// MarshalJSON writes a point as one compact array (PointFields).
func (p Point) MarshalJSON() ([]byte, error) {
	role := 0
	switch {
	case p.HeldOut:
		role = 1
	case p.Outlier:
		role = 2
	case p.AboveCopy:
		role = 3
	}
	return []byte(fmt.Sprintf("[%d,%s,%s,%s,%s,%s,%d,%d,%d,%d,%s]", p.Elems, num(p.Bytes, -1), num(p.Flops, -1),
		num(roundNs(p.Ns), 6), num(roundNs(p.MinNs), 6), num(p.Spread, 3), p.Samples, p.Batch, role, p.Workers, num(roundNs(p.CopyNs), 6))), nil
}

// num writes a whole number as one, anything else with at most digits
// significant digits (-1: as many as it takes); NaN and ±Inf as null.
func num(v float64, digits int) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "null"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// roundNs keeps a time to the ns from 100 ns up: no clock here is finer,
// and the report stays small.
func roundNs(ns float64) float64 {
	if ns >= 100 {
		return math.Round(ns)
	}
	return ns
}

// UnmarshalJSON reads the array MarshalJSON writes. It splits the array
// itself (encoding/json has checked the document's syntax before calling
// it): a report holds thousands of points, and the page reads the bundled
// ones when it opens its first kernel.
func (p *Point) UnmarshalJSON(b []byte) error {
	body, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("["))
	if body, ok = bytes.CutSuffix(body, []byte("]")); !ok {
		return fmt.Errorf("point %s: want an array of %d numbers (%s)", b, len(PointFields), strings.Join(PointFields, ", "))
	}
	var v [11]float64
	n := 0
	for f := range bytes.SplitSeq(body, []byte(",")) {
		if n == len(v) {
			n++
			break
		}
		f = bytes.TrimSpace(f)
		if string(f) == "null" {
			v[n] = math.NaN()
		} else {
			x, err := strconv.ParseFloat(string(f), 64)
			if err != nil {
				return fmt.Errorf("point %s: field %d (%s) is not a number", b, n, PointFields[n])
			}
			v[n] = x
		}
		n++
	}
	if n < len(PointFields)-2 || n > len(PointFields) {
		return fmt.Errorf("point %s: want %d fields (%s)", b, len(PointFields), strings.Join(PointFields, ", "))
	}
	role := int(v[8])
	if v[8] != 0 && v[8] != 1 && v[8] != 2 && v[8] != 3 {
		return fmt.Errorf("point %s: role %v is not 0, 1, 2 or 3", b, v[8])
	}
	if c := v[10]; c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("point %s: copy_ns %v is not a time", b, c)
	}
	if w := v[9]; w < 0 || w > 1<<16 || w != math.Trunc(w) {
		return fmt.Errorf("point %s: workers %v is not a whole number from 0 to 65536", b, w)
	}
	*p = Point{Elems: int(v[0]), Bytes: v[1], Flops: v[2], Ns: v[3], MinNs: v[4], Spread: v[5], Samples: int(v[6]), Batch: int(v[7]),
		Workers: int(v[9]), HeldOut: role == 1, Outlier: role == 2, AboveCopy: role == 3, CopyNs: v[10]}
	return nil
}

// Marshal writes the report as indented JSON with each point on one line.
func Marshal(r *Report) ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(compactLeaves(b), '\n'), nil
}

// compactLeaves puts every array that holds only scalars on one line.
func compactLeaves(b []byte) []byte {
	var out bytes.Buffer
	open := -1 // start of the innermost '[' seen since the last bracket
	inStr, esc := false, false
	last := 0
	for i, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[':
			open = i
		case c == '{' || c == '}':
			open = -1
		case c == ']':
			if open >= 0 {
				out.Write(b[last:open])
				json.Compact(&out, b[open:i+1])
				last = i + 1
			}
			open = -1
		}
	}
	out.Write(b[last:])
	return out.Bytes()
}

// Read reads a report, refusing another format.
func Read(rd io.Reader) (*Report, error) {
	data, err := readCapped(rd)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(data); err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("judge report: %v", err)
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// MaxReportBytes caps a report read back: the shipped ones are about 0.3
// MB for 130-150 kernels. Without it `fkc contracts --judge /dev/zero`
// read until the process ran out of memory.
const MaxReportBytes = 16 << 20

func readCapped(rd io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxReportBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxReportBytes {
		return nil, fmt.Errorf("judge report: more than %d bytes (judge.MaxReportBytes; a sweep of every kernel writes about 0.3 MB)", MaxReportBytes)
	}
	return data, nil
}

// maxGBps bounds any bandwidth a report may hold: 10 PB/s, past every
// memory system (cached figures stay within a small multiple of the
// fastest HBM's).
const maxGBps = 1e7

// check refuses a report whose figures no sweep writes: texts past a
// line's length (a 50 MB device name was printed beside every kernel),
// negative or non-finite fits and ceilings, bandwidths past maxGBps,
// a share of the ceiling that is not the fit's, unknown dtypes, a kernel
// listed twice.
func (r *Report) check() error {
	for what, v := range map[string]string{"device.name": r.Device.Name, "device.backend": r.Device.Backend, "device.driver": r.Device.Driver, "date": r.Date} {
		if len(v) > 256 {
			return fmt.Errorf("judge report: %s is %d bytes long (at most 256)", what, len(v))
		}
	}
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	// A bandwidth past maxGBps is no measurement (an edited report's huge
	// figure would be printed digit by digit).
	badBW := func(v float64) bool { return bad(v) || v > maxGBps }
	if badBW(r.Ceiling.GBps) || badBW(r.Ceiling.SingleThreadGBps) {
		return fmt.Errorf("judge report: copy ceiling %v / %v GB/s is not a bandwidth", r.Ceiling.GBps, r.Ceiling.SingleThreadGBps)
	}
	seen := map[string]bool{}
	for i := range r.Kernels {
		k := &r.Kernels[i]
		id := fmt.Sprintf("%s %v %s", k.ID(), k.DTypes, k.Variant)
		if seen[id] {
			return fmt.Errorf("judge report: kernel %s is listed twice", id)
		}
		seen[id] = true
		for _, dt := range k.DTypes {
			if d, err := tensor.ParseDType(dt); err != nil || d.String() != dt {
				return fmt.Errorf("judge report: kernel %s: %q is not a dtype (known: %s)", id, dt, tensor.KnownDTypes())
			}
		}
		if f := k.Fit; f != nil {
			if bad(f.OverheadNs) || badBW(f.GBps) || bad(f.CeilingFraction) {
				return fmt.Errorf("judge report: kernel %s: fit overhead %v ns, %v GB/s is not a cost", id, f.OverheadNs, f.GBps)
			}
			// The share of the ceiling is Fit's own (ceilingShare), to
			// the half percent it is shown to (an edited report must not
			// show a share its bandwidth does not give).
			// The ceiling is the copy at the kernel's largest fitted size
			// where the fit says (CeilingGBps), else the report's one figure.
			ceil := r.Ceiling.GBps
			if f.CeilingGBps != 0 {
				ceil = f.CeilingGBps
			}
			if badBW(f.CeilingGBps) {
				return fmt.Errorf("judge report: kernel %s: copy ceiling %v GB/s is not a bandwidth", id, f.CeilingGBps)
			}
			want := ceilingShare(f.GBps, ceil)
			if math.Abs(f.CeilingFraction-want) > 0.005 {
				return fmt.Errorf("judge report: kernel %s: %v GB/s is %v of the copy ceiling (%v GB/s), not the %v the report says", id, f.GBps, want, ceil, f.CeilingFraction)
			}
			for _, g := range f.Regimes {
				if bad(g.OverheadNs) || badBW(g.GBps) || bad(g.FromBytes) || g.Workers < 1 {
					return fmt.Errorf("judge report: kernel %s: a regime of %d workers from %v bytes, overhead %v ns, %v GB/s is not a cost", id, g.Workers, g.FromBytes, g.OverheadNs, g.GBps)
				}
			}
		}
		for _, p := range k.Points {
			if p.Elems < 0 || bad(p.Bytes) || bad(p.Ns) {
				return fmt.Errorf("judge report: kernel %s: a point of %d elements, %v bytes, %v ns is not a measurement", id, p.Elems, p.Bytes, p.Ns)
			}
		}
	}
	return nil
}

// ReadSummary reads a report as Read does, less its kernels' points
// (Kernel.Points is nil): what a page that shows only the fits needs
// (playground's judge_summaries.json is the bundled reports read so).
func ReadSummary(rd io.Reader) (*Report, error) {
	data, err := readCapped(rd)
	if err != nil {
		return nil, err
	}
	var s struct {
		Report
		Kernels []struct {
			Kernel
			Points json.RawMessage `json:"points"` // shadows Kernel.Points: kept as bytes, never decoded
		} `json:"kernels"`
	}
	if err := checkFormat(data); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("judge report: %v", err)
	}
	r := s.Report
	r.Kernels = make([]Kernel, len(s.Kernels))
	for i, k := range s.Kernels {
		r.Kernels[i] = k.Kernel
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// checkFormat refuses a document that is not a report of this format.
func checkFormat(data []byte) error {
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("not a judge report: %v", err)
	}
	if head.Format != Format {
		if strings.HasPrefix(head.Format, "fkc-judge/") {
			return fmt.Errorf("judge report format %q: this build reads %q", head.Format, Format)
		}
		return fmt.Errorf("not a judge report (format %q, want %q)", head.Format, Format)
	}
	return nil
}

// Marked is how a measured figure is attributed: "on DEVICE (BACKEND), DATE".
func (r *Report) Marked() string {
	date := r.Date
	if len(date) >= 10 {
		date = date[:10]
	}
	name := r.Device.Name
	if !strings.Contains(strings.ToLower(name), "("+strings.ToLower(r.Device.Backend)) {
		name += " (" + r.Device.Backend + ")"
	}
	m := name + ", " + date
	if r.Cancelled {
		m += ", a sweep interrupted after " + strconv.Itoa(len(r.Kernels)) + " kernels"
	}
	return m
}

// Text writes the report as a table.
func Text(w io.Writer, r *Report) {
	fmt.Fprintf(w, "judge: %s — %s %s/%s, %d of %d CPUs; budget %ss, ran %.1fs; clock %s (min sample %s)\n",
		r.Marked(), r.Host.GoVersion, r.Host.GOOS, r.Host.GOARCH, r.Host.Threads, r.Host.CPUs, strconv.FormatFloat(r.BudgetS, 'g', 4, 64), r.ElapsedS,
		r.Clock.Source, fmtNs(r.Clock.MinSampleNs))
	if r.Cancelled {
		fmt.Fprintln(w, "cancelled: the kernels measured so far")
	}
	c := r.Ceiling
	if c.Error != "" {
		fmt.Fprintf(w, "ceiling: not measured: %s\n", c.Error)
	} else {
		one := ""
		if c.SingleThreadGBps > 0 {
			one = fmt.Sprintf("; one thread %s", FormatGBps(c.SingleThreadGBps))
		}
		fmt.Fprintf(w, "ceiling: %s (%s, %s moved per copy%s)\n", FormatGBps(c.GBps), c.Method, fmtBytes(c.Bytes), one)
		if len(c.Points) > 1 {
			peak := c.Points[0]
			for _, p := range c.Points {
				if p.Ns > 0 && p.Bytes/p.Ns > peak.Bytes/peak.Ns {
					peak = p
				}
			}
			fmt.Fprintf(w, "  a curve of %d sizes from %s, fastest %s at %s: each kernel size is compared with the copy of its own bytes\n",
				len(c.Points), fmtBytes(c.Points[0].Bytes), FormatGBps(peak.Bytes/peak.Ns), fmtBytes(peak.Bytes))
		}
		if c.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", c.Note)
		}
	}
	fmt.Fprintf(w, "%-46s %-13s %-22s %10s %11s %8s %14s  %s\n", "kernel", "dtypes", "variant", "overhead", "bandwidth", "ceiling", "held-out err", "flags")
	for _, k := range r.Kernels {
		fmt.Fprintf(w, "%-46s %-13s %-22s %s\n", k.ID(), strings.Join(k.DTypes, ","), k.Variant, k.Summary())
	}
}

// Summary is the kernel's row after its name: the fit, or why none.
func (k *Kernel) Summary() string {
	switch {
	case k.Skipped != "":
		return "skipped: " + k.Skipped
	case k.Error != "":
		return "error: " + k.Error
	case k.Fit == nil && len(k.Points) == 0 && strings.HasPrefix(k.Stop, "budget: the sweep's"):
		return "not measured: " + k.Stop
	case k.Fit == nil:
		return fmt.Sprintf("%10s %11s %8s %14s  %s", "—", "—", "—", "—", flagCodes(k.Flags))
	}
	f := k.Fit
	frac, held := "—", "—"
	if f.CeilingFraction > 0 {
		frac = fmt.Sprintf("%.0f%%", 100*f.CeilingFraction)
	}
	if f.HeldOut > 0 {
		held = fmt.Sprintf("%.1f%% (%d)", 100*f.HeldOutError, f.HeldOut)
	}
	return fmt.Sprintf("%10s %11s %8s %14s  %s", fmtNs(f.OverheadNs), FormatGBps(f.GBps), frac, held, flagCodes(k.Flags))
}

// Measured is the kernel's fit in words, for a line beside its contract:
// "overhead 1.64 µs, 49 GB/s (142% of the copy ceiling), held-out error
// 35% over 2 sizes; flags held_out, nonlinear".
func (k *Kernel) Measured() string {
	switch {
	case k.Skipped != "":
		return "skipped: " + k.Skipped
	case k.Error != "":
		return "error: " + k.Error
	}
	var b strings.Builder
	if f := k.Fit; f == nil {
		b.WriteString("no fit")
	} else {
		fmt.Fprintf(&b, "overhead %s, %s", fmtNs(f.OverheadNs), FormatGBps(f.GBps))
		if f.CeilingFraction > 0 {
			fmt.Fprintf(&b, " (%.0f%% of the copy ceiling)", 100*f.CeilingFraction)
		}
		if n := len(f.Regimes); n > 1 {
			last := f.Regimes[n-1]
			fmt.Fprintf(&b, "; from %s on split over %d workers: overhead %s", fmtBytes(last.FromBytes), last.Workers, fmtNs(last.OverheadNs))
		}
		if f.HeldOut > 0 {
			fmt.Fprintf(&b, ", held-out error %.1f%% over %d sizes", 100*f.HeldOutError, f.HeldOut)
		}
	}
	if len(k.Flags) > 0 {
		b.WriteString("; flags " + strings.ReplaceAll(flagCodes(k.Flags), ",", ", "))
	}
	return b.String()
}

func flagCodes(fs []Flag) string {
	var c []string
	for _, f := range fs {
		c = append(c, f.Code)
	}
	return strings.Join(c, ",")
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	}
	return fmt.Sprintf("%.3g ns", ns)
}
