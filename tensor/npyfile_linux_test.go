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

// TestWriteNpyFileSizeLimit: under a file-size limit
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
			old := mustNpy(arange(4096 - 32)) // 16 KB, over the limit itself
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
				if !bytes.Equal(got, mustNpy(arange(c.n))) {
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
	stderr, err := childAsNobody(t, dir, "TestWriteNpyFileReadOnlyTarget", "FKC_TEST_RO_CHILD="+p)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr, "permission denied") || !strings.Contains(stderr, "it is unchanged") {
		t.Fatalf("child: %v, stderr %q; want exit 1 and permission denied (it is unchanged)", err, stderr)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, old) {
		t.Errorf("the read-only file changed: %q", got)
	}
	if names, _ := os.ReadDir(dir); len(names) > 2 {
		t.Errorf("the directory holds %d entries, want the file (and the binary's copy): a temporary file was left", len(names))
	}
}

// childAsNobody runs test name of this binary in a child process with env
// added — as uid/gid 65534 when this one is root (from a copy of the
// binary in dir, which it opens to every user), else as this user — and
// returns the child's stderr and exit error.
func childAsNobody(t *testing.T, dir, name string, env ...string) (string, error) {
	t.Helper()
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
	cmd := exec.Command(bin, "-test.run=^"+name+"$")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = cred
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	return stderr.String(), err
}

// Replacing a file keeps its owner and group (a shared file's group kept
// its write access only by luck: the replacement was the writer's). Root
// gives the replacement the old owner; a writer who cannot is refused, and
// the file is as it was. Needs root (to make a file of another user).
func TestWriteNpyFileKeepsOwner(t *testing.T) {
	if p := os.Getenv("FKC_TEST_OWNER_CHILD"); p != "" {
		if err := WriteNpyFile(p, arange(4)); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test makes files of two owners")
	}
	dir := t.TempDir()
	owner := func(p string) (uint32, uint32) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		s := st.Sys().(*syscall.Stat_t)
		return s.Uid, s.Gid
	}
	// Root writes over nobody's file: it stays nobody's.
	theirs := filepath.Join(dir, "theirs.npy")
	if err := os.WriteFile(theirs, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := WriteNpyFile(theirs, arange(4)); err != nil {
		t.Fatal(err)
	}
	if u, g := owner(theirs); u != 65534 || g != 65534 {
		t.Errorf("root's write over nobody's file: owner %d:%d, want 65534:65534", u, g)
	}
	if got, _ := os.ReadFile(theirs); !bytes.Equal(got, mustNpy(arange(4))) {
		t.Errorf("the file was not written")
	}
	// Nobody writes over root's world-writable file: refused, unchanged.
	mine := filepath.Join(dir, "shared.npy")
	if err := os.WriteFile(mine, []byte("root's"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(mine, 0o666); err != nil { // past the umask
		t.Fatal(err)
	}
	stderr, err := childAsNobody(t, dir, "TestWriteNpyFileKeepsOwner", "FKC_TEST_OWNER_CHILD="+mine)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr, "it belongs to uid 0 (gid 0)") || !strings.Contains(stderr, "it is unchanged") {
		t.Fatalf("child: %v, stderr %q; want exit 1, the owner named, unchanged", err, stderr)
	}
	if got, _ := os.ReadFile(mine); string(got) != "root's" {
		t.Errorf("root's file changed: %q", got)
	}
	if u, g := owner(mine); u != 0 || g != 0 {
		t.Errorf("root's file now belongs to %d:%d", u, g)
	}
	// Nobody's own file in a group nobody is not in: written, as it was
	// before owners were kept (the group becomes the writer's).
	own := filepath.Join(dir, "own.npy")
	if err := os.WriteFile(own, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(own, 65534, 0); err != nil {
		t.Fatal(err)
	}
	if stderr, err := childAsNobody(t, dir, "TestWriteNpyFileKeepsOwner", "FKC_TEST_OWNER_CHILD="+own); err != nil {
		t.Errorf("nobody over its own file of group 0: %v, %s", err, stderr)
	}
	if got, _ := os.ReadFile(own); !bytes.Equal(got, mustNpy(arange(4))) {
		t.Errorf("nobody's own file was not written")
	}
	if u, _ := owner(own); u != 65534 {
		t.Errorf("nobody's own file now belongs to uid %d", u)
	}
	if names, _ := os.ReadDir(dir); len(names) != 4 {
		t.Errorf("the directory holds %d entries, want the three files and the binary's copy: a temporary file was left", len(names))
	}
}

// A path that names a descriptor (/dev/stdout, /dev/fd/N, a symlink to
// one) is written through the descriptor: it resolved to the file a shell
// redirected into, which the rename replaced — `fkc run … -o /dev/stdout
// >> log` lost the log, and what the shell wrote after.
func TestWriteNpyFileDescriptorPath(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(log, []byte("previous line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, _ := os.Stat(log)
	link := filepath.Join(dir, "out.npy")
	fdPath := "/dev/fd/" + strconv.Itoa(int(f.Fd()))
	if err := os.Symlink(fdPath, link); err != nil {
		t.Fatal(err)
	}
	// A directory link to a descriptor directory, and a thread's table.
	dirLink := filepath.Join(dir, "fdlink")
	if err := os.Symlink("/proc/self/fd", dirLink); err != nil {
		t.Fatal(err)
	}
	fd := strconv.Itoa(int(f.Fd()))
	task := "/proc/" + strconv.Itoa(os.Getpid()) + "/task/" + strconv.Itoa(os.Getpid()) + "/fd/" + fd
	for _, p := range []string{fdPath, "/proc/self/fd/" + fd, link, filepath.Join(dirLink, fd), task} {
		if err := WriteNpyFile(p, arange(4)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if _, err := f.WriteString("after\n"); err != nil {
		t.Fatalf("the descriptor was closed: %v", err)
	}
	npy := mustNpy(arange(4))
	want := []byte("previous line\n")
	for range 5 {
		want = append(want, npy...)
	}
	want = append(want, "after\n"...)
	if got, _ := os.ReadFile(log); !bytes.Equal(got, want) {
		t.Errorf("the log holds %d bytes, want %d: the previous line, five arrays, the line after", len(got), len(want))
	}
	if after, _ := os.Stat(log); !os.SameFile(before, after) {
		t.Error("the log was replaced by another file")
	}
	for _, c := range []struct {
		p       string
		fd      int
		own, ok bool
	}{
		{"/dev/stdout", 1, true, true},
		{"/dev/stderr", 2, true, true},
		{"/dev/fd/7", 7, true, true},
		{"/proc/self/fd/12", 12, true, true},
		{"/proc/" + strconv.Itoa(os.Getpid()) + "/fd/3", 3, true, true},
		{"/proc/1/fd/3", 3, false, true},
		{"/proc/1/task/1/fd/4", 4, false, true},
		{"/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/fd/5", 5, true, true},
		{"/dev/fd/x", 0, false, false},
		{"/dev/fd/07", 0, false, false},
		{filepath.Join(dir, "plain.npy"), 0, false, false},
	} {
		fd, own, ok := descriptorPath(c.p)
		if fd != c.fd || own != c.own || ok != c.ok {
			t.Errorf("descriptorPath(%q) = %d, %v, %v; want %d, %v, %v", c.p, fd, own, ok, c.fd, c.own, c.ok)
		}
	}
	if err := WriteNpyFile("/proc/1/fd/1", arange(4)); err == nil || !strings.Contains(err.Error(), "another process's file descriptor") {
		t.Errorf("another process's descriptor: %v", err)
	}
}
