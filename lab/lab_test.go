//go:build !js

package lab

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels/gpu"
)

var (
	devOnce sync.Once
	testDev *gpu.Device
	devErr  error
)

// device is the shared test device, or a skip with the reason when the
// machine has no Vulkan driver (as kernels/gpu's tests do).
func device(t testing.TB) *gpu.Device {
	t.Helper()
	devOnce.Do(func() { testDev, devErr = gpu.OpenNative() })
	if devErr != nil {
		if strings.HasPrefix(devErr.Error(), "no Vulkan adapter found") {
			t.Skipf("GPU tests skipped: %v", devErr)
		}
		t.Fatalf("opening the Vulkan device: %v", devErr)
	}
	return testDev
}

// testEngine knows the GPU kernels' links, as the fkc command does.
func testEngine(t testing.TB) *engine.Engine {
	t.Helper()
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	eng.AddEntries(gpu.Links(nil))
	return eng
}

// Every GPU contract kernel with a plain kernel passes its own derived
// cases with that plain kernel.
func TestPlainKernelsPass(t *testing.T) {
	d := device(t)
	eng := testEngine(t)
	only := os.Getenv("LAB_KERNEL")
	for _, r := range eng.Reg.Kernels() {
		id := engine.KernelID(r.Doc, r.Kernel)
		if r.Kernel.Backend != "Vulkan" || (only != "" && id != only) {
			continue
		}
		k, err := Find(eng, id)
		if err != nil {
			continue // describe-only, or no plain kernel
		}
		t.Run(id, func(t *testing.T) {
			src, err := k.Template()
			if err != nil {
				t.Fatal(err)
			}
			rep := Check(d, k, src, CheckOptions{Seed: 1, Random: 3})
			if rep.Failed != nil {
				var b strings.Builder
				rep.Failed.Print(&b)
				t.Fatalf("%d/%d cases passed, then:\n%s", rep.Passed, rep.Cases, b.String())
			}
			t.Logf("%d cases: %d passed, %d skipped", rep.Cases, rep.Passed, rep.Skipped)
		})
	}
}
