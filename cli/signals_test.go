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
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalDuringWriteLeavesNoTemp$")
		cmd.Env = append(os.Environ(), "FKC_SIGNAL_CHILD="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "writing\n" {
			t.Fatalf("%v: the child said %q, %v", sig, line, err)
		}
		if names := dirNames(t, dir); len(names) != 1 || !strings.HasPrefix(names[0], ".out.npy.tmp-") {
			t.Fatalf("%v: during the write the directory holds %q, want one temporary file", sig, names)
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: the child ended with %v, want exit status %d", sig, err, 128+int(sig))
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("%v: after the signal the directory holds %q, want nothing", sig, names)
		}
	}
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
