package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

func writeNpy(t *testing.T, dir, name string, x *tensor.Tensor) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, mustNpy(x), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gpuEntries stands in for a GPU build's link table (without a device):
// enough for the "runs on Vulkan via …" hints.
var gpuEntries = &GPU{Entries: []kernels.Link{{EntryPoint: "fuel_vulkan_backend::fkc::pad_const_b4",
	Serves: kernels.Variants("pad", kernels.FormConstant), Where: "shaders/wgsl/pad.wgsl"}},
	Open: func() (engine.Device, func(), error) { return nil, nil, errors.New("no device in this test") }}

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb, Config{GPU: gpuEntries})
	return code, out.String(), errb.String()
}

func TestRunPadReflectNpy(t *testing.T) {
	dir := t.TempDir()
	x := tensor.New(tensor.F32, []int{1, 4})
	copy(x.F32(), []float32{1, 2, 3, 4})
	in := writeNpy(t, dir, "x.npy", x)
	out := filepath.Join(dir, "out.npy")
	code, _, stderr := runMain("run", "pad", "--mode", "reflect", "--padding", "0:0,2:2", "-i", "x="+in, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.TrimSpace(stderr) != "kernel pad (fuel-cpu-backend, Cpu)" {
		t.Errorf("stderr = %q", stderr)
	}
	b, _ := os.ReadFile(out)
	y, err := tensor.ReadNpyBytes(b, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{3, 2, 1, 2, 3, 4, 3, 2}
	if got := y.F32(); len(got) != 8 || y.Shape[1] != 8 {
		t.Fatalf("out %s", y)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("out = %v, want %v", got, want)
			}
		}
	}
}

func TestRunBF16AsU2(t *testing.T) {
	dir := t.TempDir()
	x := tensor.New(tensor.BF16, []int{3})
	for i, v := range []float32{1, 2, 3} {
		x.U16()[i] = tensor.BF16FromF32(v)
	}
	in := writeNpy(t, dir, "x.npy", x) // written as <u2
	out := filepath.Join(dir, "s.npy")
	code, _, stderr := runMain("run", "sum", "--dtype", "bf16", "-i", "x="+in, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "kernel sum_all (fuel-reference-backend, Cpu)") {
		t.Errorf("stderr = %q", stderr)
	}
	b, _ := os.ReadFile(out)
	if !bytes.Contains(b, []byte("'<u2'")) {
		t.Errorf("bf16 output not written as <u2: %q", b[:60])
	}
	y, _ := tensor.ReadNpyBytes(b, true)
	if y.At(0) != 6 || y.Rank() != 0 {
		t.Errorf("sum = %v (%s)", y.At(0), y)
	}
	// Without --dtype bf16 the <u2 file is refused with the hint.
	code, _, stderr = runMain("run", "sum", "-i", "x="+in, "-o", out)
	if code != 1 || !strings.Contains(stderr, "--dtype bf16") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	x := tensor.New(tensor.F32, []int{3})
	in := writeNpy(t, dir, "x.npy", x)
	xi := writeNpy(t, dir, "xi.npy", tensor.New(tensor.I32, []int{3}))
	out := filepath.Join(dir, "o.npy")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "pad", "--mode", "reflect", "--padding", "3:0", "-i", "x=" + in, "-o", out}, 1, "fkc: pad: reflect padding (3, 0) on axis 0 exceeds in_shape[0]-1 = 2"},
		{[]string{"run", "pad", "--mode", "constant", "--padding", "1:1", "-i", "x=" + xi, "-o", out}, 1, "pad_const_b4"},
		{[]string{"run", "pad", "--mode", "reflect", "--padding", "1:1", "-i", "x=" + in}, 2, "needs -o"},
		{[]string{"run", "pad", "--padding", "1:1", "-i", "x=" + in, "-o", out}, 2, "needs --mode"},
		{[]string{"run", "sum", "-i", "y=" + in, "-o", out}, 2, `fkc: sum has no input "y"; its inputs: x`},
		{[]string{"run", "sum", "-o", out}, 2, "needs input x"},
		{[]string{"run", "sum", "-i", "x=" + filepath.Join(dir, "missing.npy"), "-o", out}, 1, "no such file"},
		{[]string{"run", "sum", "--backend", "tpu", "-i", "x=" + in, "-o", out}, 2, `run: --backend "tpu": want cpu or vulkan`},
		{[]string{"frob"}, 2, "unknown command"},
		{[]string{"run", "sum", "--kernel", "", "-i", "x=" + in, "-o", out}, 2, "--kernel wants PROVIDER/NAME"},
		// a write that fails prints its one fkc: line, no kernel line before it
		{[]string{"run", "sum", "-i", "x=" + in, "-o", dir}, 1, "is a directory"},
		{[]string{"run", "sum", "-i", "x=" + in, "-o", filepath.Join(dir, "no", "o.npy")}, 1, "fkc: write"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q; want exit %d containing %q", c.args, code, stderr, c.code, c.want)
		}
		if c.code == 1 && strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: error output is not one line: %q", c.args, stderr)
		}
	}
}

// -o - writes the .npy to stdout (it wrote a file named "-"); the kernel
// line stays on stderr.
func TestRunOutputStdout(t *testing.T) {
	dir := t.TempDir()
	x := tensor.New(tensor.F32, []int{2, 3})
	copy(x.F32(), []float32{1, 2, 3, 4, 5, 6})
	in := writeNpy(t, dir, "x.npy", x)
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, out, stderr := runMain("run", "sum", "--dim", "1", "-i", "x="+in, "-o", "-")
	if code != 0 || !strings.HasPrefix(stderr, "kernel ") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	got, err := tensor.ReadNpy(strings.NewReader(out), false)
	if err != nil {
		t.Fatalf("stdout is not a .npy: %v", err)
	}
	if s := got.F32(); len(s) != 2 || s[0] != 6 || s[1] != 15 {
		t.Errorf("sum along dim 1 on stdout: %v, want [6 15]", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error("a file named - was written")
	}
}

func TestInputDirectory(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runMain("run", "sum", "-i", "x="+dir, "-o", filepath.Join(dir, "o.npy"))
	if code != 1 || !strings.Contains(errOut, "is a directory, not a .npy file") {
		t.Errorf("a directory as input: exit %d, stderr %q", code, errOut)
	}
}

func TestDevicesTakesNoArguments(t *testing.T) {
	if code, _, errOut := runMain("devices", "extra"); code != 2 || errOut != "fkc: devices: unexpected argument \"extra\" (it takes no arguments)\n" {
		t.Errorf("fkc devices extra: exit %d, stderr %q; want a usage error", code, errOut)
	}
}

// bench's --reps and verify's --cases are whole numbers from 1 to 1000:
// outside that, a usage error naming the bound, before any work.
func TestCountFlagsBounded(t *testing.T) {
	for _, args := range [][]string{{"bench", "--reps", "0"}, {"bench", "--reps", "1001"}, {"bench", "--reps", "1000000000"},
		{"verify", "--cases", "0"}, {"verify", "--cases", "1001"}, {"verify", "--cases", "-5"}} {
		code, out, errOut := runMain(args...)
		if code != 2 || out != "" || errOut != "fkc: "+args[0]+": "+args[1]+" \""+args[2]+"\": want a whole number from 1 to 1000\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a usage error naming 1 to 1000", args, code, out, errOut)
		}
	}
}

// -h / --help on bench and verify prints their flags and exits 0 (it used
// to fail with "flag: help requested").
func TestSubcommandHelp(t *testing.T) {
	for _, args := range [][]string{{"bench", "-h"}, {"bench", "--help"}, {"verify", "-h"}, {"run", "sum", "--help"}, {"run", "pad", "--mode", "reflect", "-h"}} {
		code, out, errOut := runMain(args...)
		if code != 0 || !strings.HasPrefix(out, "usage: fkc "+args[0]) || !strings.Contains(out, "-backend") || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// mustNpy is tensor.NpyBytes of a tensor the test built valid.
func mustNpy(x *tensor.Tensor) []byte {
	b, err := tensor.NpyBytes(x)
	if err != nil {
		panic(err)
	}
	return b
}

// fkc run --help describes --value as tensor.Scalar.Encode behaves: exact
// for integer dtypes (a fraction or out of range is an error), rounded to
// nearest for float dtypes (16777217 fills an F32 with 16777216), and an
// error past the dtype's largest finite value. The help said "exact in the
// tensor's dtype", which float dtypes are not.
func TestValueHelpMatchesFill(t *testing.T) {
	_, help, _ := runMain("run", "--help")
	var line string
	for _, l := range strings.Split(help, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--value") {
			line = l
		}
	}
	for _, want := range []string{"integer dtypes take it exactly", "float dtypes round it to nearest", "past the largest finite value is an error"} {
		if !strings.Contains(line, want) {
			t.Errorf("--value help %q lacks %q", line, want)
		}
	}
	dir := t.TempDir()
	f32 := writeNpy(t, dir, "f.npy", tensor.New(tensor.F32, []int{1}))
	i32 := writeNpy(t, dir, "i.npy", tensor.New(tensor.I32, []int{1}))
	out := filepath.Join(dir, "o.npy")
	pad := func(value, in string) (int, string) {
		code, _, errOut := runMain("run", "pad", "--mode", "constant", "--padding", "1:0", "--value", value, "-i", "x="+in, "-o", out)
		return code, errOut
	}
	if code, errOut := pad("16777217", f32); code != 0 {
		t.Fatalf("16777217 into F32: exit %d, %s", code, errOut)
	}
	b, _ := os.ReadFile(out)
	if y, err := tensor.ReadNpyBytes(b, false); err != nil || y.F32()[0] != 16777216 {
		t.Errorf("16777217 into F32 filled %v (%v), want 16777216 (rounded to nearest)", y, err)
	}
	for _, c := range []struct{ value, in string }{{"2.5", i32}, {"2147483648", i32}, {"1e39", f32}} {
		if code, errOut := pad(c.value, c.in); code == 0 || !strings.HasPrefix(errOut, "fkc: ") {
			t.Errorf("--value %s into %s: exit %d, stderr %q; want an error", c.value, filepath.Base(c.in), code, errOut)
		}
	}
}

// On the command line an unknown backend is answered with the two the
// CLI runs, cpu or vulkan, in every subcommand's flag form; it offered
// "cpu, vulkan or webgpu" (engine.ParseBackend's list), and webgpu was
// then refused as a browser-only backend.
func TestBackendChoices(t *testing.T) {
	dir := t.TempDir()
	in := writeNpy(t, dir, "x.npy", tensor.New(tensor.F32, []int{3}))
	for _, cmd := range [][]string{{"run", "sum", "-i", "x=" + in, "-o", filepath.Join(dir, "o.npy")}, {"verify"}, {"bench"}, {"judge"}} {
		code, out, errOut := runMain(append(cmd, "--backend", "cuda")...)
		if want := "fkc: " + cmd[0] + `: --backend "cuda": want cpu or vulkan` + "\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("fkc %s --backend cuda: exit %d, stderr %q; want exit 2, %q", cmd[0], code, errOut, want)
		}
		code, _, errOut = runMain(append(cmd, "--backend", "webgpu")...)
		if code != 2 || !strings.HasPrefix(errOut, "fkc: "+cmd[0]+`: --backend "webgpu": want cpu or vulkan (webgpu runs in the browser playground`) {
			t.Errorf("fkc %s --backend webgpu: exit %d, stderr %q", cmd[0], code, errOut)
		}
	}
}

// A float fill is rounded once from its decimal text: through f32 first,
// F16 2049.0000001 filled 2048 (0x6800) where NumPy's np.float16 gives the
// nearest, 2050 (0x6801); BF16 257.00001 filled 256, not 258.
func TestRunHalfFillRoundsOnce(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.npy")
	for _, c := range []struct {
		dt    tensor.DType
		value string
		bits  uint16
	}{
		{tensor.F16, "2049.0000001", 0x6801}, {tensor.F16, "1.0004882813", 0x3C01},
		{tensor.BF16, "257.00001", 0x4381}, {tensor.BF16, "1.0039062501", 0x3F81},
		{tensor.F16, "2049", 0x6800},
	} {
		in := writeNpy(t, dir, "x.npy", tensor.New(c.dt, []int{1}))
		args := []string{"run", "pad", "--mode", "constant", "--padding", "1:0", "--value", c.value, "-i", "x=" + in, "-o", out}
		if c.dt == tensor.BF16 {
			args = append(args, "--dtype", "bf16") // .npy has no bf16: its bits travel as <u2
		}
		code, _, errOut := runMain(args...)
		if code != 0 {
			t.Fatalf("%s into %s: exit %d, %s", c.value, c.dt, code, errOut)
		}
		b, _ := os.ReadFile(out)
		y, err := tensor.ReadNpyBytes(b, c.dt == tensor.BF16)
		if err != nil {
			t.Fatal(err)
		}
		if got := uint16(y.Data[0]) | uint16(y.Data[1])<<8; got != c.bits {
			t.Errorf("--value %s into %s filled %#04x, want %#04x", c.value, c.dt, got, c.bits)
		}
	}
}

// Flags may come before the op, as `go test -run X ./pkg` takes them:
// every flag of run takes a value, so the op is the first argument that is
// neither. The same run with its flags before, around and after the op
// writes the same file; a flag before the op that run does not know is
// refused by name, and a line with no op says so.
func TestRunFlagsBeforeOp(t *testing.T) {
	dir := t.TempDir()
	x := tensor.New(tensor.F32, []int{2, 3})
	copy(x.F32(), []float32{1, 2, 3, 4, 5, 6})
	in := writeNpy(t, dir, "x.npy", x)
	out := filepath.Join(dir, "o.npy")
	var want []byte
	for i, args := range [][]string{
		{"run", "sum", "--dim", "1", "-i", "x=" + in, "-o", out},
		{"run", "-o", out, "sum", "--dim", "1", "-i", "x=" + in},
		{"run", "--backend", "cpu", "--dim", "1", "-i", "x=" + in, "--out=" + out, "sum"},
		{"run", "--dim=1", "-i", "x=" + in, "sum", "-o", out, "--backend=cpu"},
	} {
		os.Remove(out)
		code, _, stderr := runMain(args...)
		if code != 0 || !strings.HasPrefix(stderr, "kernel ") {
			t.Fatalf("%q: exit %d, %q", args, code, stderr)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if i == 0 {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("%q wrote another file than %q", args, "run sum --dim 1 …")
		}
	}
	if code, stdout, _ := runMain("run", "-o", out, "-h"); code != 0 || !strings.HasPrefix(stdout, "usage: fkc run ") {
		t.Errorf("run -o OUT -h: exit %d, %q", code, stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-o", out, "-i", "x=" + in}, "fkc: run: needs an OP (fkc run --help lists the ops and their flags)\n"},
		{[]string{"run", "--json", "sum", "-i", "x=" + in, "-o", out},
			"fkc: run: unknown flag --json before the op (the op comes first: fkc run OP [flags]; fkc run --help lists the ops and their flags)\n"},
		{[]string{"run", "--mode", "reflect", "sum", "-i", "x=" + in, "-o", out}, "fkc: sum does not take --mode"},
		{[]string{"run", "-o"}, "fkc: run: needs an OP"},
	} {
		code, _, stderr := runMain(c.args...)
		if code != 2 || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want 2, %q", c.args, code, stderr, c.want)
		}
	}
}

// The subcommands that take operands read flags on either side of them,
// as run does: the same output either way.
func TestFlagsEitherSideOfOperands(t *testing.T) {
	for _, c := range []struct {
		f              func([]string, *bytes.Buffer, *bytes.Buffer) int
		before, behind []string
	}{
		{fmtCmd, []string{"-l", seedsDir}, []string{seedsDir, "-l"}},
		{contractsCmd, []string{"--json", seedsDir}, []string{seedsDir, "--json"}},
	} {
		c1, o1, e1 := call(c.f, c.before...)
		c2, o2, e2 := call(c.f, c.behind...)
		if c1 != 0 || c1 != c2 || o1 != o2 || e1 != e2 {
			t.Errorf("%q: exit %d; %q: exit %d; or their outputs differ", c.before, c1, c.behind, c2)
		}
	}
}
