package tensor

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestWriteNpyFileSizeLimit is issue 9 row 7: under a file-size limit
// (`ulimit -f 10`) the write fails, and the existing file — here one of
// the run's own inputs — is left byte for byte as it was, with no
// temporary file beside it. The limit is set in a child process, so this
// test process keeps writing freely.
func TestWriteNpyFileSizeLimit(t *testing.T) {
	if p := os.Getenv("FKC_TEST_FSIZE_CHILD"); p != "" {
		lim := &syscall.Rlimit{Cur: 10 << 10, Max: 10 << 10}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, lim); err != nil {
			os.Exit(3)
		}
		n, _ := strconv.Atoi(os.Getenv("FKC_TEST_FSIZE_N"))
		if err := WriteNpyFile(p, arange(n)); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	for _, c := range []struct {
		name   string
		n      int  // elements written
		exists bool // whether the output exists before
		fails  bool
	}{
		{"over the limit, existing", 8192, true, true},
		{"over the limit, new", 8192, false, true},
		{"just over", 2600, true, true},
		{"under the limit", 2000, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "victim.npy")
			old := NpyBytes(arange(4096 - 32)) // 16 KB, over the limit itself
			if c.exists {
				os.WriteFile(p, old, 0o644)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestWriteNpyFileSizeLimit$")
			cmd.Env = append(os.Environ(), "FKC_TEST_FSIZE_CHILD="+p, "FKC_TEST_FSIZE_N="+strconv.Itoa(c.n))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if failed := err != nil; failed != c.fails {
				t.Fatalf("child: %v %s", err, stderr.String())
			}
			got, rerr := os.ReadFile(p)
			switch {
			case c.fails && c.exists:
				if !bytes.Equal(got, old) {
					t.Fatalf("victim.npy changed: %d bytes (was %d)", len(got), len(old))
				}
				if !strings.Contains(stderr.String(), "file too large (it is unchanged)") {
					t.Errorf("error: %s", stderr.String())
				}
			case c.fails:
				if rerr == nil {
					t.Fatalf("a failed write created victim.npy (%d bytes)", len(got))
				}
			default:
				if !bytes.Equal(got, NpyBytes(arange(c.n))) {
					t.Fatalf("victim.npy: %d bytes", len(got))
				}
			}
			want := 0
			if c.exists || !c.fails {
				want = 1
			}
			if names := dirNames(t, dir); len(names) != want {
				t.Fatalf("directory holds %v", names)
			}
		})
	}
}

// A file the writer may not write is not replaced, although the rename
// would only need the directory's permission: "permission denied", and the
// file is byte for byte as it was. Run as an unprivileged user (as root,
// in a child process with uid/gid 65534).
func TestWriteNpyFileReadOnlyTarget(t *testing.T) {
	if p := os.Getenv("FKC_TEST_RO_CHILD"); p != "" {
		if err := WriteNpyFile(p, arange(4)); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "ro.npy")
	old := []byte("not yours")
	if err := os.WriteFile(p, old, 0o444); err != nil {
		t.Fatal(err)
	}
	bin := os.Args[0]
	var cred *syscall.SysProcAttr
	if os.Geteuid() == 0 {
		// The child runs as nobody: it needs a copy of this test binary and
		// a path to the file that it may search.
		bin = filepath.Join(dir, "child.test")
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{dir, filepath.Dir(dir)} {
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		for d := filepath.Dir(filepath.Dir(dir)); d != "/" && d != "."; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o001 == 0 {
				t.Skipf("%s is not searchable by other users", d)
			}
		}
		cred = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd := exec.Command(bin, "-test.run=^TestWriteNpyFileReadOnlyTarget$")
	cmd.Env = append(os.Environ(), "FKC_TEST_RO_CHILD="+p)
	cmd.SysProcAttr = cred
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "permission denied") || !strings.Contains(stderr.String(), "it is unchanged") {
		t.Fatalf("child: %v, stderr %q; want exit 1 and permission denied (it is unchanged)", err, stderr.String())
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, old) {
		t.Errorf("the read-only file changed: %q", got)
	}
	if names, _ := os.ReadDir(dir); len(names) > 2 {
		t.Errorf("the directory holds %d entries, want the file (and the binary's copy): a temporary file was left", len(names))
	}
}
