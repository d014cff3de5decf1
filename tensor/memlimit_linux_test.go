package tensor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSysProbe: the tightest of the rlimits, the enclosing cgroups (v1 and
// v2, each ancestor) and the available memory wins.
func TestSysProbe(t *testing.T) {
	const gib = 1 << 30
	status := "Name:\tfkc\nVmSize:\t 1048576 kB\nVmData:\t  524288 kB\n"
	meminfo := "MemTotal: 33554432 kB\nMemAvailable: 8388608 kB\nSwapFree: 1048576 kB\n"
	cases := []struct {
		name  string
		files map[string]string
		rlim  map[int]uint64
		avail uint64
		limit string // a fragment of the limit's name; "" = no limit known
	}{
		{"nothing readable", nil, nil, 0, ""},
		{"meminfo only", map[string]string{"/proc/meminfo": meminfo}, nil, 9 * gib, "MemAvailable"},
		{"ulimit -v", map[string]string{"/proc/self/status": status, "/proc/meminfo": meminfo},
			map[int]uint64{syscall.RLIMIT_AS: 3 * gib}, 2 * gib, "RLIMIT_AS"},
		{"ulimit -v already exceeded", map[string]string{"/proc/self/status": status},
			map[int]uint64{syscall.RLIMIT_AS: gib / 2}, 0, "RLIMIT_AS"},
		{"ulimit -d", map[string]string{"/proc/self/status": status, "/proc/meminfo": meminfo},
			map[int]uint64{syscall.RLIMIT_AS: 8 * gib, syscall.RLIMIT_DATA: gib}, gib / 2, "RLIMIT_DATA"},
		{"cgroup v2 leaf", map[string]string{
			"/proc/self/cgroup": "0::/user.slice/fkc.scope\n",
			"/sys/fs/cgroup/user.slice/fkc.scope/memory.max":     "2147483648\n",
			"/sys/fs/cgroup/user.slice/fkc.scope/memory.current": "1073741824\n",
			"/sys/fs/cgroup/user.slice/memory.max":               "max\n",
			"/sys/fs/cgroup/user.slice/memory.current":           "5\n",
			"/proc/meminfo": meminfo,
		}, nil, gib, "/sys/fs/cgroup/user.slice/fkc.scope/memory.max"},
		{"cgroup v2 parent is tighter", map[string]string{
			"/proc/self/cgroup":                 "0::/a/b\n",
			"/sys/fs/cgroup/a/b/memory.max":     "4294967296\n",
			"/sys/fs/cgroup/a/b/memory.current": "0\n",
			"/sys/fs/cgroup/a/memory.max":       "1073741824\n",
			"/sys/fs/cgroup/a/memory.current":   "536870912\n",
		}, nil, gib / 2, "/sys/fs/cgroup/a/memory.max"},
		{"cgroup v1", map[string]string{
			"/proc/self/cgroup": "5:cpu,cpuacct:/\n4:memory:/docker/abc\n0::/\n",
			"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "3221225472\n",
			"/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": "1073741824\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes":            "9223372036854771712\n",
			"/sys/fs/cgroup/memory/memory.usage_in_bytes":            "99999999999\n",
			"/proc/meminfo": meminfo,
		}, nil, 2 * gib, "memory.limit_in_bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := sysProbe{
				read: func(name string) ([]byte, error) {
					if s, ok := c.files[name]; ok {
						return []byte(s), nil
					}
					return nil, fs.ErrNotExist
				},
				rlimit: func(r int) (uint64, bool) { v, ok := c.rlim[r]; return v, ok },
			}
			avail, limit, ok := p.headroom()
			if ok != (c.limit != "") || ok && (avail != c.avail || !strings.Contains(limit, c.limit)) {
				t.Fatalf("got %d under %q (%v), want %d under %q", avail, limit, ok, c.avail, c.limit)
			}
		})
	}
}

// TestAllocUnderRlimit, for real: under `ulimit -v` a
// tensor bigger than the address space left is an error (Alloc, ReadNpy)
// or a recoverable panic (New) — never Go's fatal "out of memory". The
// limit is set in a child process.
func TestAllocUnderRlimit(t *testing.T) {
	if os.Getenv("FKC_TEST_RLIMIT_CHILD") != "" {
		lim := &syscall.Rlimit{Cur: 3000000 << 10, Max: 3000000 << 10}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			fmt.Print("setrlimit: ", err)
			os.Exit(3)
		}
		var me *MemoryError
		if _, err := Alloc(F32, []int{1 << 31}); !errors.As(err, &me) {
			fmt.Print("Alloc: ", err)
			os.Exit(1)
		}
		func() {
			defer func() { recover() }()
			New(F32, []int{1 << 31})
			fmt.Print("New did not panic")
			os.Exit(1)
		}()
		f, err := os.Open(os.Getenv("FKC_TEST_RLIMIT_CHILD"))
		if err != nil {
			os.Exit(3)
		}
		if _, err = ReadNpy(f, false); !errors.As(err, &me) {
			fmt.Print("ReadNpy: ", err)
			os.Exit(1)
		}
		fmt.Print(err)
		os.Exit(0)
	}
	// A sparse 8 GiB .npy: all its data is there, and none takes disk.
	p := filepath.Join(t.TempDir(), "huge.npy")
	hdr := numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648,), }")
	if err := os.WriteFile(p, hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, int64(len(hdr))+8<<30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAllocUnderRlimit$")
	cmd.Env = append(os.Environ(), "FKC_TEST_RLIMIT_CHILD="+p)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "F32[2147483648] needs 8589934592 bytes") {
		t.Fatalf("child said %s", out)
	}
}
