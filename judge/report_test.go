package judge

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleReport() *Report {
	pts := []Point{
		{Elems: 16, Bytes: 640, Ns: 95.5, MinNs: 90.25, Spread: 0.125, Samples: 11, Batch: 133, Workers: 1},
		{Elems: 1 << 20, Bytes: 1 << 23, Flops: 1 << 20, Ns: 250000, MinNs: 240000, Spread: 0.5, Samples: 5, Batch: 1, HeldOut: true},
		{Elems: 1 << 21, Bytes: 1 << 24, Flops: 1 << 21, Ns: 900000, MinNs: 800000, Samples: 5, Batch: 1, Outlier: true},
	}
	return &Report{Format: Format, Date: "2025-01-02T03:04:05Z",
		Device:  Device{Name: "NVIDIA H200", Backend: "vulkan", Driver: "NVIDIA 570.1", MaxBufferBytes: 1 << 31},
		Host:    Host{GoVersion: "go1.26", GOOS: "linux", GOARCH: "amd64", CPU: "AMD EPYC", CPUs: 16, Threads: 16},
		Clock:   Clock{Source: "gpu-timestamps", ResolutionNs: 30, MinSampleNs: 200000},
		BudgetS: 120, ElapsedS: 119.5,
		Ceiling:     Ceiling{Method: "GPU buffer copy (CopyBufferToBuffer)", GBps: 3900, Bytes: 1 << 31, Points: pts[:1]},
		PointFields: PointFields,
		Kernels: []Kernel{{Provider: "fuel-vulkan-kernels", Kernel: "pad_reflect_b4", DTypes: []string{"F32"}, Variant: "pad/reflect",
			Class: "cheap_elementwise", BytesMoved: "(out_elem + in_elem) * 4", Flops: "0", Clock: "gpu-timestamps",
			Fit:   &Fit{OverheadNs: 4000, GBps: 2500, CeilingFraction: 0.641, FitPoints: 20, FitError: 0.02, HeldOut: 4, HeldOutError: 0.08, HeldOutMedian: 0.03, Outliers: 1},
			Flags: []Flag{{"outliers", "1 of 20 fitted sizes …"}}, Stop: "budget: …", Points: pts},
			{Provider: "fuel-vulkan-kernels", Kernel: "pad_backward_reflect_f64", DTypes: []string{"F64"}, Variant: "pad_backward/reflect",
				Skipped: "needs 64-bit atomics", Points: []Point{}}},
	}
}

// A report reads back as it was written, points and all; a second write
// is byte-identical.
func TestReportRoundTrip(t *testing.T) {
	r := sampleReport()
	data, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("read back:\n%+v\nwant\n%+v", back, r)
	}
	again, _ := Marshal(back)
	if !bytes.Equal(again, data) {
		t.Error("a second Marshal differs from the first")
	}
	// Each point on one line, in PointFields order.
	if !strings.Contains(string(data), "\n        [16,640,0,95.5,90.25,0.125,11,133,0,1,0],\n") ||
		!strings.Contains(string(data), `"point_fields": ["elems","bytes_moved","flops","median_ns","min_ns","spread","samples","batch","role","workers","copy_ns"]`) {
		t.Errorf("points not one per line:\n%s", data)
	}
}

// Times are kept to the ns from 100 ns up, whole numbers written whole.
func TestPointCompact(t *testing.T) {
	b, _ := Point{Elems: 3, Bytes: 1 << 30, Flops: 0.5, Ns: 1234.56, MinNs: 99.25, Spread: 1.0 / 3, Samples: 5, Batch: 1, Outlier: true, Workers: 2}.MarshalJSON()
	if string(b) != "[3,1073741824,0.5,1235,99.25,0.333,5,1,2,2,0]" {
		t.Errorf("%s", b)
	}
	b, _ = Point{Elems: 3, Bytes: 64, Ns: 10, AboveCopy: true, CopyNs: 12.25}.MarshalJSON()
	if string(b) != "[3,64,0,10,0,0,0,0,3,0,12.25]" {
		t.Errorf("%s", b)
	}
}

func TestReadRefuses(t *testing.T) {
	// A point with null fields (a NaN spread) and spaces reads back; so
	// does one from before the workers column, one with it, and one with
	// the copy of its size (role 3: above it).
	r, err := Read(strings.NewReader(`{"format": "fkc-judge/1", "kernels": [{"points": [[ 1, 2, 0, 4.5, 4, null, 5, 1, 1 ], [1,2,3,4,5,6,7,8,0,2], [1,2,3,4,5,6,7,8,3,2,4.5]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Kernels[0].Points[0]; p.Elems != 1 || p.Ns != 4.5 || !math.IsNaN(p.Spread) || !p.HeldOut || p.Outlier || p.Workers != 0 {
		t.Errorf("point %+v", p)
	}
	if p := r.Kernels[0].Points[1]; p.Workers != 2 {
		t.Errorf("point %+v", p)
	}
	if p := r.Kernels[0].Points[2]; !p.AboveCopy || p.HeldOut || p.Outlier || p.CopyNs != 4.5 {
		t.Errorf("point %+v", p)
	}
	for _, bad := range []string{
		`{"format": "fkc-judge/2", "kernels": []}`,
		`{"format": "something-else"}`,
		`[1, 2]`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1, 2, 3]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,9]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,0,0,0,0]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,0,0,-1]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,4,0,1]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,0,-1]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,0,1.5]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,null]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,1.5]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,"2",3,4,5,6,7,8,0]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,[2],3,4,5,6,7,8,0]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[]]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [{"elems": 1}]}]}`,
		`{"format": "fkc-judge/1", "kernels": [{"points": [[1,2,3,4,5,6,7,8,1e400]]}]}`,
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// WriteFile replaces a report whole, keeps an existing file's mode, and
// on failure leaves no file and no temporary behind.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := sampleReport()
	if err := WriteFile(p, r); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	back, err := ReadFile(p)
	if err != nil || st.Mode().Perm() != 0o600 || !reflect.DeepEqual(back, r) {
		t.Errorf("mode %v, %v", st.Mode(), err)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "r.json"), r); err == nil {
		t.Error("a missing directory: no error")
	}
	if err := WriteFile(dir, r); err == nil {
		t.Error("a directory: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// The table names each kernel with its fit, or why it has none.
func TestText(t *testing.T) {
	var b bytes.Buffer
	Text(&b, sampleReport())
	out := b.String()
	for _, want := range []string{"NVIDIA H200 (vulkan), 2025-01-02", "ceiling: 3900 GB/s", "fuel-vulkan-kernels/pad_reflect_b4",
		"4 µs", "2500 GB/s", "64%", "8.0% (4)", "outliers", "skipped: needs 64-bit atomics"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// ReadSummary is Read less the kernels' points, and refuses what Read does.
func TestReadSummary(t *testing.T) {
	r := sampleReport()
	data, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadSummary(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := sampleReport()
	for i := range want.Kernels {
		want.Kernels[i].Points = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary:\n%+v\nwant\n%+v", got, want)
	}
	for _, bad := range []string{`{"format": "fkc-judge/2", "kernels": []}`, `[1, 2]`, `{"format": "fkc-judge/1", "kernels": [{"points": [[1, 2,`} {
		if _, err := ReadSummary(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// A report read back is bounded and sane (each case ran through fkc
// contracts --judge and was accepted, or ran out of memory, before): at
// most MaxReportBytes, texts of a line's length, fits and ceilings that
// are costs, no kernel twice.
func TestReadRefusesWhatNoSweepWrites(t *testing.T) {
	if _, err := Read(io.LimitReader(zeros{}, MaxReportBytes+100)); err == nil || !strings.Contains(err.Error(), "more than 16777216 bytes") {
		t.Errorf("an endless stream: %v", err)
	}
	for name, mutate := range map[string]func(r *Report){
		"a 50 MB device name": func(r *Report) { r.Device.Name = strings.Repeat("x", 1000) },
		"a negative ceiling":  func(r *Report) { r.Ceiling.GBps = -1 },
		"a negative overhead": func(r *Report) { r.Kernels[0].Fit.OverheadNs = -1e9 },
		"a kernel twice":      func(r *Report) { r.Kernels[1] = r.Kernels[0] },
		"a negative size":     func(r *Report) { r.Kernels[0].Points[0].Elems = -5 },
		"an empty regime":     func(r *Report) { r.Kernels[0].Fit.Regimes = []Regime{{}} },
	} {
		r := sampleReport()
		mutate(r)
		data, err := Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
		// ReadSummary leaves the points undecoded, and so unchecked
		if _, err := ReadSummary(bytes.NewReader(data)); err == nil && name != "a negative size" {
			t.Errorf("%s: ReadSummary without an error", name)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A report read back holds figures a measurement can give: a bandwidth up
// to maxGBps, a share of the ceiling that is the fit's bandwidth over the
// report's ceiling, dtypes by their contract names. Each edit below was
// read and printed before ("0 GB/s (133% of the copy ceiling)", a
// 309-digit bandwidth, a "Q" dtype row).
func TestReportFiguresAreSane(t *testing.T) {
	for name, edit := range map[string]func(r *Report){
		"fit 1e308 GB/s":      func(r *Report) { r.Kernels[0].Fit.GBps = 1e308 },
		"fit 0 GB/s at 64%":   func(r *Report) { r.Kernels[0].Fit.GBps = 0 },
		"share of 133%":       func(r *Report) { r.Kernels[0].Fit.CeilingFraction = 1.33 },
		"ceiling 1e300 GB/s":  func(r *Report) { r.Ceiling.GBps = 1e300 },
		"regime 1e9 GB/s":     func(r *Report) { r.Kernels[0].Fit.Regimes = []Regime{{Workers: 1, GBps: 1e9}} },
		"dtype Q":             func(r *Report) { r.Kernels[0].DTypes = []string{"Q"} },
		"dtype in lower case": func(r *Report) { r.Kernels[0].DTypes = []string{"f32"} },
	} {
		r := sampleReport()
		edit(r)
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: read back", name)
		}
	}
	// A fit whose time does not grow with bytes (0 GB/s) is a fit.
	r := sampleReport()
	r.Kernels[0].Fit.GBps, r.Kernels[0].Fit.CeilingFraction = 0, 0
	data, _ := json.Marshal(r)
	if _, err := Read(bytes.NewReader(data)); err != nil {
		t.Errorf("0 GB/s, 0 of the ceiling: %v", err)
	}
}

// A kernel whose time does not grow with bytes, fitted with a slope of
// noise, gets no bandwidth rather than one past maxGBps (a report holding
// 2e7 GB/s was written and then refused by its reader).
func TestFlatFitStaysReadable(t *testing.T) {
	var pts []Point
	for i, b := 0, 1024.0; b <= 1<<27; i, b = i+1, b*2 {
		pts = append(pts, Point{Elems: int(b / 4), Bytes: b, Ns: 5000 + 1e-9*b, MinNs: 5000, Samples: 5, Batch: 1, HeldOut: i%4 == 3})
	}
	f, _ := Analyze(pts, Flat(3600))
	if f == nil || f.GBps > maxGBps {
		t.Fatalf("fit %+v", f)
	}
	r := sampleReport()
	r.Kernels[0].Fit, r.Kernels[0].Points = f, pts
	data, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(data)); err != nil {
		t.Errorf("a flat kernel's report does not read back: %v", err)
	}
}
