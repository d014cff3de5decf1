package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/tensor"
)

// A signal that comes during an atomic write removes its temporary file and
// ends the process with 128+n. The write runs in a child process (this
// test binary again): os.Exit ends it.
func TestSignalDuringWriteLeavesNoTemp(t *testing.T) {
	if dir := os.Getenv("FKC_SIGNAL_CHILD"); dir != "" {
		atomicWrite(func() error {
			return tensor.WriteFileAtomic(filepath.Join(dir, "out.npy"), func(w io.Writer) error {
				w.Write([]byte("half an array"))
				fmt.Println("writing")
				time.Sleep(time.Minute)
				return nil
			})
		})
		os.Exit(0)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		cmd := startChild(t, "TestSignalDuringWriteLeavesNoTemp", "FKC_SIGNAL_CHILD="+dir, "writing")
		if names := dirNames(t, dir); len(names) != 1 || !strings.HasPrefix(names[0], ".out.npy.tmp-") {
			t.Fatalf("%v: during the write the directory holds %q, want one temporary file", sig, names)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: the child ended with %v, want exit status %d", sig, err, 128+int(sig))
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("%v: after the signal the directory holds %q, want nothing", sig, names)
		}
	}
}

// A signal that comes after the write is renamed into place (while the
// command finishes: the directory's fsync, the kernel line) no longer
// reports a failure: the process ends as it would have, 0, with the new
// file in place. It used to exit 128+n with the output already replaced.
func TestSignalAfterCommitIsNotAFailure(t *testing.T) {
	if dir := os.Getenv("FKC_SIGNAL_COMMIT_CHILD"); dir != "" {
		err := atomicWrite(func() error {
			err := tensor.WriteFileAtomic(filepath.Join(dir, "out.npy"), func(w io.Writer) error {
				_, err := w.Write([]byte("new"))
				return err
			})
			fmt.Println("committed")
			time.Sleep(2 * time.Second) // the signal comes now
			return err
		})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out.npy"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := startChild(t, "TestSignalAfterCommitIsNotAFailure", "FKC_SIGNAL_COMMIT_CHILD="+dir, "committed")
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("the child ended with %v, want exit status 0 (its write was in place)", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out.npy")); string(got) != "new" {
		t.Errorf("out.npy holds %q, want the new contents", got)
	}
}

// startChild runs this test binary's test `name` with env added, and waits
// for the child's first line, which must be `says`.
func startChild(t *testing.T, name, env, says string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != says+"\n" {
		t.Fatalf("%s: the child said %q, %v", name, line, err)
	}
	return cmd
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
