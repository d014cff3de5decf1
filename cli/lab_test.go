package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/shaders/wgsl"
)

// fkc lab template prints the op family's plain kernel; its usage errors
// exit 2 naming what is wrong.
func TestLabTemplate(t *testing.T) {
	want, _ := wgsl.Lab("pad.wgsl")
	cfg := Config{GPU: &GPU{Entries: gpu.Links(nil)}}
	var out, errb strings.Builder
	if code := Main([]string{"lab", "template", "--kernel", "fuel-vulkan-kernels/pad_reflect_b4"}, &out, &errb, cfg); code != 0 || out.String() != want {
		t.Errorf("template: exit %d, %d bytes (want the %d of pad.wgsl), stderr %q", code, out.Len(), len(want), errb.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lab", "template"}, "--kernel PROVIDER/NAME is required"},
		{[]string{"lab", "template", "--kernel", "pad_reflect_b4"}, "did you mean fuel-vulkan-kernels/pad_reflect_b4"},
		{[]string{"lab", "frob"}, `unknown command "frob"`},
		{[]string{"lab", "check", "--kernel", "fuel-vulkan-kernels/pad_reflect_b4"}, "--wgsl FILE is required"},
		{[]string{"lab", "check", "--wgsl", "x.wgsl", "--kernel", "fuel-vulkan-kernels/pad_reflect_b4", "--backend", "cpu"}, "the lab runs WGSL, on the GPU"},
		{[]string{"run", "pad", "--rows", "1", "--mode", "reflect", "--padding", "1:1", "-i", "x=a.npy", "-o", "b.npy"}, "--rows lays out a lab kernel's grid: it needs --wgsl FILE"},
	} {
		out.Reset()
		errb.Reset()
		if code := Main(c.args, &out, &errb, cfg); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// hungDevice never answers a lab run, as a GPU spinning in a loop the
// budget cannot stop would.
type hungDevice struct{}

func (hungDevice) Links() []kernels.Link                              { return nil }
func (hungDevice) LastGPUTime() time.Duration                         { return 0 }
func (hungDevice) LastKernelTime() time.Duration                      { return 0 }
func (hungDevice) LabAdapter() kernels.LabAdapter                     { return kernels.LabAdapter{Name: "hung"} }
func (hungDevice) SetLabTimeout(time.Duration)                        {}
func (hungDevice) RunLab(*kernels.LabRun) (*kernels.LabResult, error) { select {} }

// A kernel whose run never comes back is reported, and the command exits
// 1 within the timeout and the watchdog's slack.
func TestLabCheckWatchdog(t *testing.T) {
	dir := t.TempDir()
	src, _ := wgsl.Lab("pad.wgsl")
	file := writeFile(t, dir, "mine.wgsl", src)
	cfg := Config{GPU: &GPU{Entries: gpu.Links(nil), Open: func() (engine.Device, func(), error) { return hungDevice{}, func() {}, nil }}}
	var out, errb strings.Builder
	start := time.Now()
	code := Main([]string{"lab", "check", "--wgsl", file, "--kernel", "fuel-vulkan-kernels/pad_reflect_b4", "--timeout", "1s"}, &out, &errb, cfg)
	took := time.Since(start)
	if code != 1 || !strings.Contains(out.String(), "timed out: the first case did not finish within 1s") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if took > 1*time.Second+watchSlack+2*time.Second {
		t.Errorf("took %v", took)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	labDevOnce sync.Once
	labDev     *gpu.Device
	labDevErr  error
)

// labConfig is the command's GPU on the test's one Vulkan device (as
// native/vulkan opens it), or a skip with the reason without a driver.
func labConfig(t *testing.T) Config {
	t.Helper()
	labDevOnce.Do(func() { labDev, labDevErr = gpu.OpenNative() })
	if labDevErr != nil {
		if strings.HasPrefix(labDevErr.Error(), "no Vulkan adapter found") {
			t.Skipf("GPU tests skipped: %v", labDevErr)
		}
		t.Fatal(labDevErr)
	}
	return Config{GPU: &GPU{Entries: gpu.Links(nil), Open: func() (engine.Device, func(), error) { return labDev, func() {}, nil }}}
}

const labKernelID = "fuel-vulkan-kernels/pad_reflect_b4"

func labMain(t *testing.T, cfg Config, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := Main(args, &out, &errb, cfg)
	return code, out.String(), errb.String()
}

// The exit codes of fkc lab check: 0 for the plain kernel; 1 for a
// reflect kernel off by one at the far edge, with a repro line that, run,
// fails with the same cells; 1 for a compile error, naming its line; 1 for
// an endless loop, reported, after which a check passes again.
func TestLabCheckExitCodes(t *testing.T) {
	cfg := labConfig(t)
	dir := t.TempDir()
	tpl, _ := wgsl.Lab("pad.wgsl")
	good := writeFile(t, dir, "good.wgsl", tpl)
	if code, out, errOut := labMain(t, cfg, "lab", "check", "--wgsl", good, "--kernel", labKernelID, "--cases", "2"); code != 0 || !strings.HasPrefix(out, "ok   "+labKernelID) {
		t.Fatalf("the plain kernel: exit %d, %q %q", code, out, errOut)
	}

	bad := writeFile(t, dir, "bad.wgsl", strings.Replace(tpl, "j = 2 * (n - 1) - j;", "j = 2 * n - 1 - j;", 1))
	code, out, _ := labMain(t, cfg, "lab", "check", "--wgsl", bad, "--kernel", labKernelID, "--repro", filepath.Join(dir, "case"))
	if code != 1 || !strings.Contains(out, "wrong values in") {
		t.Fatalf("off by one: exit %d, %q", code, out)
	}
	var repro string
	for _, l := range strings.Split(out, "\n") {
		if r, ok := strings.CutPrefix(l, "repro: fkc "); ok {
			repro = r
		}
	}
	if repro == "" {
		t.Fatalf("no repro line:\n%s", out)
	}
	cells := func(s string) string { // the cell table's rows
		var rows []string
		for _, l := range strings.Split(s, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[0] != "flat" && strings.HasPrefix(f[1], "[") {
				rows = append(rows, strings.Join(f, " "))
			}
		}
		return strings.Join(rows, "\n")
	}
	rcode, _, rerr := labMain(t, cfg, strings.Fields(repro)...)
	if rcode != 1 || cells(rerr) == "" || cells(rerr) != cells(out) {
		t.Errorf("the repro line: exit %d; its cells\n%s\nthe check's\n%s", rcode, cells(rerr), cells(out))
	}
	if _, err := os.Stat(filepath.Join(dir, "case", "out.npy")); err != nil {
		t.Errorf("the repro wrote no output: %v", err)
	}

	lines := strings.Split(tpl, "\n")
	for i, l := range lines {
		if l == "    var rest = o;" {
			lines[i] = "    var rest = o +;"
			syntax := writeFile(t, dir, "syntax.wgsl", strings.Join(lines, "\n"))
			want := syntax + ":" + strconv.Itoa(i+1) + ":19: expected expression"
			if code, out, _ := labMain(t, cfg, "lab", "check", "--wgsl", syntax, "--kernel", labKernelID); code != 1 || !strings.HasPrefix(out, want) {
				t.Errorf("compile error: exit %d, %q; want it to start %q", code, out, want)
			}
			break
		}
	}

	spin := writeFile(t, dir, "spin.wgsl", strings.Replace(tpl, "    if (t >= P.units) {\n        return;\n    }\n",
		"    if (t >= P.units) {\n        return;\n    }\n    loop { if (P.n == 0xffffffffu) { break; } }\n", 1))
	start := time.Now()
	if code, out, _ := labMain(t, cfg, "lab", "check", "--wgsl", spin, "--kernel", labKernelID, "--timeout", "10s"); code != 1 || !strings.Contains(out, "timed out: a loop ran past 32768 iterations") {
		t.Errorf("endless loop: exit %d, %q", code, out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("endless loop: reported after %v, past the timeout", d)
	}
	if code, out, _ := labMain(t, cfg, "lab", "check", "--wgsl", good, "--kernel", labKernelID, "--cases", "1"); code != 0 {
		t.Errorf("the check after the endless loop: exit %d, %q", code, out)
	}
}

// fkc lab bench times the plain kernel beside the built-in one, checks
// its output again, and exits 0.
func TestLabBench(t *testing.T) {
	cfg := labConfig(t)
	tpl, _ := wgsl.Lab("pad.wgsl")
	file := writeFile(t, t.TempDir(), "mine.wgsl", tpl)
	code, out, errOut := labMain(t, cfg, "lab", "bench", "--wgsl", file, "--kernel", labKernelID, "--elems", "4096", "--reps", "3")
	if code != 0 || !strings.Contains(out, "yours ") || !strings.Contains(out, "built-in ") || !strings.Contains(out, "GB/s") {
		t.Errorf("bench: exit %d, %q %q", code, out, errOut)
	}
}
