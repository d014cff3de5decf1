package cli

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/fkc-playground/fkc/tensor"
)

// atomicWrite runs one of a command's atomic writes (tensor.WriteFileAtomic:
// a temporary file, then a rename) with SIGINT, SIGTERM and SIGHUP caught.
// One that comes meanwhile removes the temporary file being written and ends
// the process with the status a shell gives a death by that signal (128+n):
// a killed write leaves nothing behind, as a failed one does. Before and
// after the write the signals act as they did (the default, or the judge's
// own Ctrl-C handling). A signal that comes once the write is renamed into
// place (tensor.Committed) is let go: the write is done, and the command
// ends as it would have, reporting it — a non-zero exit means the files are
// unchanged.
func atomicWrite(write func() error) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	before := tensor.Committed()
	go func() {
		select {
		case s := <-sigs:
			tensor.RemoveTemps() // after it, no write commits
			if tensor.Committed() > before {
				return
			}
			code := 1
			if n, ok := s.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	err := write()
	signal.Stop(sigs)
	close(done)
	return err
}
