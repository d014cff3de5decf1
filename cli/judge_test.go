package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{[]string{"--budget", "0s"}, 2, "--budget 0s"},
		{[]string{"--budget", "-1s"}, 2, "--budget"},
		{[]string{"--budget", "60"}, 2, "budget"},
		{[]string{"--budget", "1mx"}, 2, "budget"},
		{[]string{"--kernel", "pad"}, 2, "PROVIDER/NAME"},
		{[]string{"--kernel", "a/b/c"}, 2, "PROVIDER/NAME"},
		{[]string{"--kernel", "nobody/nothing"}, 2, "no such kernel"},
		{[]string{"--kernel", "fuel-vulkan-kernels/pad_reflect_b4"}, 2, "Vulkan kernel"},
		{[]string{"--dtype", "F99"}, 2, "dtype"},
		{[]string{"--backend", "tpu"}, 2, "unknown backend"},
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
