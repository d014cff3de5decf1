package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/tensor"
)

// Operand names are checked before any -i file is opened: a file for an
// operand the op does not have was read first — an empty one gave "npy:
// truncated preamble" (exit 1) instead of the name, and a FIFO with no
// writer blocked forever.
func TestRunChecksInputNamesFirst(t *testing.T) {
	dir := t.TempDir()
	x := writeNpy(t, dir, "x.npy", tensor.New(tensor.F32, []int{3}))
	empty := filepath.Join(dir, "empty.npy")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ins := []string{empty}
	if fifo := filepath.Join(dir, "fifo"); syscall.Mkfifo(fifo, 0o644) == nil {
		ins = append(ins, fifo)
	}
	for _, in := range ins {
		done := make(chan struct{})
		var code int
		var errOut string
		go func() {
			code, _, errOut = runMain("run", "sum", "-i", "x="+x, "-i", "y="+in, "-o", filepath.Join(dir, "o.npy"))
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("-i y=%s: still running after 10 s (the file was opened)", filepath.Base(in))
		}
		if code != 2 || errOut != "fkc: sum has no input \"y\"; its inputs: x\n" {
			t.Errorf("-i y=%s: exit %d, %q", filepath.Base(in), code, errOut)
		}
	}
}
