package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/judge"
)

// fkc judge's flags are strict: a bad value is a usage error (exit 2)
// with one "fkc: …" line; a GPU this build lacks is an error (exit 1).
func TestJudgeFlags(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--budget", "0s"}, 2, `--budget "0s": want a positive duration`},
		{[]string{"--budget", "-1s"}, 2, "--budget"},
		{[]string{"--budget", "60"}, 2, "budget"},
		{[]string{"--budget", "1mx"}, 2, "budget"},
		{[]string{"--kernel", "pad"}, 2, "PROVIDER/NAME"},
		{[]string{"--kernel", "a/b/c"}, 2, "PROVIDER/NAME"},
		{[]string{"--kernel", "nobody/nothing"}, 2, "no such kernel"},
		// a value the user typed is quoted: an escape sequence is shown, not run
		{[]string{"--kernel", "a/\x1b[31mred"}, 2, `--kernel "a/\x1b[31mred": no such kernel`},
		{[]string{"--kernel", "fuel-vulkan-kernels/pad_reflect_b4"}, 2, "Vulkan kernel"},
		{[]string{"--dtype", "F99"}, 2, "dtype"},
		{[]string{"--clock", "cpu"}, 2, "--clock"},
		{[]string{"--backend", "tpu"}, 2, `--backend "tpu": want cpu or vulkan`},
		{[]string{"--backend", "webgpu"}, 2, "browser"},
		{[]string{"--json=maybe"}, 2, "json"},
		{[]string{"extra"}, 2, "unexpected argument"},
		{[]string{"--kernel", "fuel-reference-backend/sum_all", "--dtype", "U8"}, 1, "takes U8"},
		{[]string{"--backend", "vulkan"}, 1, "no device"},
	}
	for _, c := range cases {
		code, stdout, stderr := runMain(append([]string{"judge"}, c.args...)...)
		if code != c.code || !strings.HasPrefix(stderr, "fkc: ") || !strings.Contains(stderr, c.msg) || stdout != "" {
			t.Errorf("fkc judge %v: exit %d, stderr %q, stdout %q; want exit %d naming %q", c.args, code, stderr, stdout, c.code, c.msg)
		}
	}
	if code, stdout, _ := runMain("judge", "-h"); code != 0 || !strings.Contains(stdout, "usage: fkc judge") {
		t.Errorf("-h: exit %d, %q", code, stdout)
	}
	// -o - is the JSON report on stdout (it wrote a file named "-")
	wd, _ := os.Getwd()
	tmp := t.TempDir()
	os.Chdir(tmp)
	code, stdout, _ := runMain("judge", "--kernel", "fkc-cpu-kernels/masked_fill", "--dtype", "u8", "--budget", "200ms", "-o", "-")
	os.Chdir(wd)
	if _, err := judge.Read(strings.NewReader(stdout)); code != 0 || err != nil {
		t.Errorf("-o -: exit %d, stdout not a report: %v", code, err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "-")); err == nil {
		t.Error("-o - wrote a file named -")
	}
	// -o is checked before the sweep (a missing directory lost a whole
	// sweep, found only when it wrote): these return at once, not after
	// the 30 s budget.
	dir := t.TempDir()
	for _, o := range []string{filepath.Join(dir, "nodir", "r.json"), dir} {
		start := time.Now()
		code, stdout, stderr := runMain("judge", "--kernel", "fkc-cpu-kernels/masked_fill", "--budget", "30s", "-o", o)
		if code != 1 || !strings.HasPrefix(stderr, "fkc: judge: -o "+o) || stdout != "" || time.Since(start) > 10*time.Second {
			t.Errorf("-o %s: exit %d after %v, stderr %q", o, code, time.Since(start), stderr)
		}
	}
}

// A short sweep of one kernel: the table on stdout, or the JSON report
// with --json, and the same report in the -o file.
func TestJudgeRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := runMain("judge", "--kernel", "fkc-cpu-kernels/masked_fill", "--dtype", "u8", "--budget", "300ms", "--json", "-o", out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := judge.Read(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kernels) != 1 || r.Kernels[0].ID() != "fkc-cpu-kernels/masked_fill" || r.Device.Backend != "cpu" || r.BudgetS != 0.3 {
		t.Errorf("report %+v", r)
	}
	file, _ := os.ReadFile(out)
	if !bytes.Equal(file, []byte(stdout)) {
		t.Error("-o file differs from the --json output")
	}
	code, stdout, _ = runMain("judge", "--kernel", "fkc-cpu-kernels/masked_fill", "--dtype", "I8", "--budget", "200ms")
	if code != 0 || !strings.Contains(stdout, "ceiling: ") || !strings.Contains(stdout, "fkc-cpu-kernels/masked_fill") {
		t.Errorf("exit %d, table:\n%s", code, stdout)
	}
}

// A report to show beside the contracts: pad on F32 (two variants) and a
// kernel these contracts do not have.
func writeReport(t *testing.T) string {
	t.Helper()
	r := &judge.Report{Format: judge.Format, Date: "2025-03-04T05:06:07Z", Device: judge.Device{Name: "Test CPU", Backend: "cpu"},
		Ceiling: judge.Ceiling{Method: "memmove", GBps: 20, Bytes: 1 << 27}, PointFields: judge.PointFields,
		Kernels: []judge.Kernel{
			{Provider: "fuel-cpu-backend", Kernel: "pad", DTypes: []string{"F32"}, Variant: "pad/reflect", BytesMoved: "x", Points: []judge.Point{},
				Fit: &judge.Fit{OverheadNs: 1640, GBps: 12.5, CeilingFraction: 0.625, HeldOut: 3, HeldOutError: 0.125}},
			{Provider: "fuel-cpu-backend", Kernel: "pad", DTypes: []string{"F32"}, Variant: "pad/constant", BytesMoved: "x", Points: []judge.Point{},
				Flags: []judge.Flag{{Code: "no_fit", Detail: "…"}}},
			{Provider: "elsewhere", Kernel: "nothing", DTypes: []string{"F32"}, Variant: "pad/reflect", Points: []judge.Point{}},
		}}
	p := filepath.Join(t.TempDir(), "report.json")
	if err := judge.WriteFile(p, r); err != nil {
		t.Fatal(err)
	}
	return p
}

// fkc contracts --judge shows the measured cost beside each kernel's
// formulas, marked with the device and date, in text and JSON; the
// listing without --judge is unchanged, and so are the contracts.
func TestContractsJudge(t *testing.T) {
	rep := writeReport(t)
	seed := filepath.Join(seedsDir, "fuel-cpu-backend.fkc.md")
	before, err := os.ReadFile(seed)
	if err != nil {
		t.Fatal(err)
	}
	_, plain, _ := call(contractsCmd, seed)
	code, out, stderr := call(contractsCmd, "--judge", rep, seed)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"      cost: bytes_moved = (2 * out_elem + 2 * in_elem) * dtype_bytes; flops = 0; overhead_ns = ~",
		"      measured on Test CPU (cpu), 2025-03-04 (copy ceiling 20 GB/s):",
		"        F32           pad/reflect            overhead 1.64 µs, 12.5 GB/s (62% of the copy ceiling), held-out error 12.5% over 3 sizes",
		"        F32           pad/constant           no fit; flags no_fit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var extra []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(plain, l) {
			extra = append(extra, l)
		}
	}
	for _, l := range extra {
		if !strings.HasPrefix(l, "      cost: ") && !strings.HasPrefix(l, "      measured on ") && !strings.HasPrefix(l, "        ") {
			t.Errorf("--judge changed a line of the listing: %q", l)
		}
	}
	code, js, stderr := call(contractsCmd, "--json", "--judge="+rep, seed)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var got struct {
		Judge struct {
			File   string       `json:"file"`
			Date   string       `json:"date"`
			Device judge.Device `json:"device"`
		} `json:"judge"`
		Kernels []struct {
			Name     string `json:"kernel"`
			Measured []struct {
				Variant string     `json:"variant"`
				On      string     `json:"on"`
				Fit     *judge.Fit `json:"fit"`
			} `json:"measured"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatal(err)
	}
	if got.Judge.File != rep || got.Judge.Device.Name != "Test CPU" || got.Judge.Date != "2025-03-04T05:06:07Z" {
		t.Errorf("judge header %+v", got.Judge)
	}
	found := false
	for _, k := range got.Kernels {
		if k.Name == "pad" && len(k.Measured) == 2 {
			m := k.Measured[0]
			found = m.Variant == "pad/reflect" && m.On == "Test CPU (cpu), 2025-03-04" && m.Fit != nil && m.Fit.GBps == 12.5
		}
	}
	if !found {
		t.Errorf("pad's measured costs missing from the JSON:\n%s", js)
	}
	if after, _ := os.ReadFile(seed); !bytes.Equal(before, after) {
		t.Error("the seed changed")
	}
	// A missing or foreign report is an error; --judge without a file a usage error.
	none := filepath.Join(t.TempDir(), "none.json")
	if code, _, stderr := call(contractsCmd, "--judge", none); code != 1 || stderr != "fkc: contracts: --judge "+none+": no such file or directory\n" {
		t.Errorf("missing report: exit %d, %q", code, stderr)
	}
	if code, _, stderr := call(contractsCmd, "--judge", seed); code != 1 || !strings.Contains(stderr, "not a judge report") {
		t.Errorf("a contract as report: exit %d, %q", code, stderr)
	}
	if code, _, stderr := call(contractsCmd, "--judge", rep, "--judge="+rep); code != 2 || !strings.Contains(stderr, "--judge given twice") {
		t.Errorf("two --judge: exit %d, %q", code, stderr)
	}
	if code, _, _ := call(contractsCmd, "--judge"); code != 2 {
		t.Errorf("--judge without a file: exit %d, want 2", code)
	}
}
