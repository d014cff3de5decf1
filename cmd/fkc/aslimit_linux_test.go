//go:build linux && cgo

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
)

// TestMain, when runUnderAS starts this test binary, lowers RLIMIT_AS to
// FKC_TEST_AS_KIB and execs fkc with the arguments after "--".
func TestMain(m *testing.M) {
	if kib, err := strconv.ParseUint(os.Getenv("FKC_TEST_AS_KIB"), 10, 64); err == nil {
		lim := kib << 10
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			fmt.Fprint(os.Stderr, "setrlimit: ", err)
			os.Exit(3)
		}
		args := os.Args[len(os.Args)-1:]
		for i, a := range os.Args {
			if a == "--" {
				args = os.Args[i+1:]
				break
			}
		}
		err = syscall.Exec(args[0], args, os.Environ())
		fmt.Fprint(os.Stderr, "exec: ", err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// runUnderAS runs fkc under an address-space limit of kib KiB.
func runUnderAS(t *testing.T, kib uint64, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"--", fkcBin(t)}, args...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("FKC_TEST_AS_KIB=%d", kib))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code == 3 {
		t.Fatalf("helper: %s", errb.String())
	}
	return code, errb.String()
}

// Under an address-space limit the Go runtime cannot start in, fkc says so
// before the runtime dies ("failed to reserve page summary memory", exit 2,
// the usage-error code): exit 1 with the limit and what it needs. Well
// above that need it starts.
func TestAddressSpaceTooSmallToStart(t *testing.T) {
	code, stderr := runUnderAS(t, 600000, "--help")
	m := regexp.MustCompile(`^fkc: the address-space limit \(RLIMIT_AS, ulimit -v\) is 600000 KiB; fkc needs at least (\d+) KiB to start .*raise it, e\.g\. ulimit -v (\d+)\n$`).FindStringSubmatch(stderr)
	if code != 1 || m == nil || m[1] != m[2] {
		t.Fatalf("fkc --help under 600000 KiB: exit %d, %q; want exit 1 and the limit it needs", code, stderr)
	}
	need, _ := strconv.ParseUint(m[1], 10, 64)
	if code, stderr := runUnderAS(t, need-1, "--help"); code != 1 {
		t.Errorf("under %d KiB, one less than it needs: exit %d, %q", need-1, code, stderr)
	}
	// At the need itself the runtime starts or not, by the order its
	// reservations and glibc's arenas happen to take (README, "limits"):
	// the check is on the margin that always starts.
	if code, stderr := runUnderAS(t, need+2<<20, "--help"); code != 0 {
		t.Errorf("under %d KiB, 2 GiB past the need: exit %d, %q", need+2<<20, code, stderr)
	}
}
