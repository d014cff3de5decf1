//go:build linux

package gpu

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Under an address-space limit too small for the driver, OpenNative names
// the limit and says to raise it, instead of telling the user to install a
// driver that is installed. The limit is set in a child process (this test
// binary, re-run): 64 MiB above the address space it already uses, far
// below what lavapipe maps (closer to what it needs, the driver itself may
// crash: a double free in RequestDevice, a failed pthread_create).
func TestOpenUnderAddressSpaceLimit(t *testing.T) {
	if os.Getenv("FKC_TEST_AS_CHILD") != "" {
		status, _ := os.ReadFile("/proc/self/status")
		_, rest, _ := strings.Cut(string(status), "VmSize:")
		kb, err := strconv.ParseUint(strings.Fields(rest)[0], 10, 64)
		if err != nil {
			os.Stdout.WriteString("no VmSize in /proc/self/status")
			os.Exit(3)
		}
		lim := (kb + 64<<10) << 10
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			os.Stdout.WriteString("setrlimit: " + err.Error())
			os.Exit(3)
		}
		d, err := OpenNative()
		if err == nil {
			d.Close()
			os.Stdout.WriteString("OpenNative succeeded under RLIMIT_AS " + strconv.FormatUint(lim, 10))
			os.Exit(3)
		}
		os.Stdout.WriteString(err.Error())
		os.Exit(0)
	}
	device(t) // skips, with the reason, where there is no Vulkan driver
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestOpenUnderAddressSpaceLimit$")
	cmd.Env = append(os.Environ(), "FKC_TEST_AS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	msg := string(out)
	for _, want := range []string{"no Vulkan adapter found", "address-space limit of", "RLIMIT_AS, ulimit -v", "raise it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("OpenNative under RLIMIT_AS: %q lacks %q", msg, want)
		}
	}
}

// Without a limit the hint is the driver's installation, as before.
func TestNoAdapterHint(t *testing.T) {
	if h := noAdapterHint(0, false); !strings.Contains(h, "install a Vulkan driver") || strings.Contains(h, "ulimit") {
		t.Errorf("no limit: %q", h)
	}
	if h := noAdapterHint(1<<30, true); !strings.Contains(h, "limit of 1024 MiB (RLIMIT_AS, ulimit -v 1048576)") {
		t.Errorf("1 GiB limit: %q", h)
	}
}
