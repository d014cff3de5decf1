package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// These tests run the built binary (FKC_BIN, set by `make test`) so that
// wgpu-native is linked once, not once per test package.

func fkcBin(t *testing.T) string {
	bin := os.Getenv("FKC_BIN")
	if bin == "" {
		t.Skip("FKC_BIN is not set (make test builds bin/fkc and sets it)")
	}
	return bin
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(fkcBin(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

func haveVulkan(t *testing.T) {
	if code, _, stderr := run(t, "devices"); code != 0 {
		t.Skipf("no Vulkan adapter: %s", strings.TrimSpace(stderr))
	}
}

func TestDevices(t *testing.T) {
	haveVulkan(t)
	_, out, _ := run(t, "devices")
	for _, want := range []string{"backend:  vulkan", "maxComputeWorkgroupsPerDimension", "64-bit atomics: false"} {
		if !strings.Contains(out, want) {
			t.Errorf("fkc devices output lacks %q:\n%s", want, out)
		}
	}
}

// The same call on the CPU and on Vulkan: identical bytes for a data mover,
// the stderr line naming each backend's contract kernel, and identical
// error lines for contract violations.
func TestRunVulkanMatchesCPU(t *testing.T) {
	haveVulkan(t)
	dir := t.TempDir()
	x := tensor.New(tensor.F32, []int{2, 3, 5})
	for i := range x.F32() {
		x.F32()[i] = float32(i) * 0.5
	}
	in := filepath.Join(dir, "x.npy")
	os.WriteFile(in, mustNpy(x), 0o644)
	outs := map[string][]byte{}
	for _, be := range []string{"cpu", "vulkan"} {
		out := filepath.Join(dir, be+".npy")
		code, _, stderr := run(t, "run", "pad", "--backend", be, "--mode", "reflect", "--padding", "0:0,1:2,2:2", "-i", "x="+in, "-o", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", be, code, stderr)
		}
		want := map[string]string{"cpu": "kernel pad (fuel-cpu-backend, Cpu)", "vulkan": "kernel pad_reflect_b4 (fuel-vulkan-kernels, Vulkan)"}[be]
		if strings.TrimSpace(stderr) != want {
			t.Errorf("%s stderr = %q, want %q", be, stderr, want)
		}
		outs[be], _ = os.ReadFile(out)
	}
	if !bytes.Equal(outs["cpu"], outs["vulkan"]) {
		t.Error("reflect pad differs between CPU and Vulkan")
	}
	// Errors: the same words on both backends.
	bad := [][]string{
		{"run", "pad", "--mode", "reflect", "--padding", "0:0,3:0,0:0", "-i", "x=" + in, "-o", filepath.Join(dir, "e.npy")},
		{"run", "sum", "--dim", "5", "-i", "x=" + in, "-o", filepath.Join(dir, "e.npy")},
	}
	for _, args := range bad {
		c1, _, e1 := run(t, append(args, "--backend", "cpu")...)
		c2, _, e2 := run(t, append(args, "--backend", "vulkan")...)
		if c1 != 1 || c2 != 1 || e1 != e2 {
			t.Errorf("%v: cpu exit %d %q; vulkan exit %d %q", args, c1, e1, c2, e2)
		}
	}
}

func TestVerifyVulkan(t *testing.T) {
	haveVulkan(t)
	code, out, stderr := run(t, "verify", "--backend", "vulkan", "--cases", "5")
	last := ""
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) > 0 {
		last = lines[len(lines)-1]
	}
	if code != 0 || !strings.Contains(last, " 0 failed") {
		t.Errorf("fkc verify --backend vulkan: exit %d, %s\n%s%s", code, last, out, stderr)
	}
	t.Log(last)
}

// A bench case the adapter cannot hold is skipped, with the reason, and is
// not a failure: sum_all's 256 MiB input is past lavapipe's 128 MiB
// storage bindings (the H200 runs it).
func TestBenchSkipsWhatTheAdapterCannotRun(t *testing.T) {
	haveVulkan(t)
	code, out, stderr := run(t, "bench", "--backend", "vulkan", "--op", "sum_all f32", "--reps", "1")
	if code != 0 {
		t.Fatalf("fkc bench --op sum_all: exit %d\n%s%s", code, out, stderr)
	}
	ran := strings.Contains(out, " GB/s")
	skipped := strings.Contains(out, "skipped: sum_all: not available on this adapter")
	if ran == skipped {
		t.Errorf("want one line that either ran or says why it was skipped:\n%s", out)
	}
	t.Log(strings.TrimSpace(out))
}

// A contract's declared input rank is enforced: the Vulkan pad kernels
// take rank 1..=8, so a rank-0 tensor is refused there with the
// constraint named, while the CPU pad (rank: any) pads it.
func TestContractRankEnforced(t *testing.T) {
	haveVulkan(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "s.npy")
	os.WriteFile(in, mustNpy(tensor.New(tensor.F32, nil)), 0o644)
	args := []string{"run", "pad", "--mode", "reflect", "--padding", "", "-i", "x=" + in, "-o", filepath.Join(dir, "o.npy")}
	if code, _, stderr := run(t, append(args, "--backend", "cpu")...); code != 0 {
		t.Errorf("cpu: exit %d: %s", code, stderr)
	}
	code, _, stderr := run(t, append(args, "--backend", "vulkan")...)
	if want := "fkc: pad: x has rank 0 but pad_reflect_b4 takes rank 1..=8 (contract: input.rank 1..=8)"; code != 1 || strings.TrimSpace(stderr) != want {
		t.Errorf("vulkan: exit %d %q, want 1 %q", code, stderr, want)
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
