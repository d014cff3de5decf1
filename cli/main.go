// Package cli implements the `fkc` command (SPEC §5). It is pure Go; the
// native binary in native/vulkan plugs the Vulkan GPU in through GPU.
package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/fkc-playground/fkc/ops"
)

// GPUBackend is what the native build provides: wgpu on Vulkan.
type GPUBackend struct {
	// Entries lists the GPU links for link status only (`fkc contracts`);
	// their implementations are never called (no device is opened).
	Entries []ops.Link
	// Devices prints the adapters found (name, backend, driver, features, limits).
	Devices func(w io.Writer) error
	// Open acquires the GPU device and returns its links, the clocks of its
	// last kernel call (end to end, and kernel-only from GPU timestamps),
	// and a closer.
	Open func() (links []ops.Link, clocks ops.DeviceClocks, closeFn func(), err error)
}

// GPU is nil in a build without a GPU path.
var GPU *GPUBackend

const usage = `usage: fkc COMMAND [ARGS]

  fkc contracts [--json] [FILE|DIR ...]     providers, kernels, bindings, link status
  fkc lint FILE...                          diagnostics file:line: msg; exit 1 on errors
  fkc fmt [-w] FILE...                      canonical indentation
  fkc devices                               GPU adapters found (Vulkan)
  fkc run OP [--backend cpu|vulkan] [--dtype bf16] -i NAME=FILE.npy ... -o OUT.npy [flags]
  fkc verify [--backend cpu|vulkan] [--seed N] [--cases N]
  fkc bench  [--backend cpu|vulkan] [--json] [--op OP] [--reps N]

Run 'fkc run --help' for the ops and their flags.
`

// Main runs the command and returns its exit status: 0 ok, 1 error
// (contract violation, failed verification, lint errors), 2 usage.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "contracts":
		if LinkStatus == nil {
			LinkStatus = linkStatus()
		}
		return Contracts(rest, stdout, stderr)
	case "lint":
		return Lint(rest, stdout, stderr)
	case "fmt":
		return Fmt(rest, stdout, stderr)
	case "devices":
		return devices(stdout, stderr)
	case "run":
		return run(rest, stdout, stderr)
	case "verify":
		return verify(rest, stdout, stderr)
	case "bench":
		return bench(rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "fkc: unknown command %q\n%s", cmd, usage)
	return 2
}

// linkStatus answers from this build's link table: the CPU links, plus the
// GPU's when the build has one.
func linkStatus() func(string) (string, bool) {
	eng, err := ops.NewDefault()
	if err != nil {
		return nil
	}
	if GPU != nil {
		eng.AddEntries(GPU.Entries)
	}
	return eng.LinkFor
}

func devices(stdout, stderr io.Writer) int {
	if GPU == nil {
		fmt.Fprintln(stderr, "fkc: this build has no GPU backend (build ./native/vulkan)")
		return 1
	}
	if err := GPU.Devices(stdout); err != nil {
		fmt.Fprintf(stderr, "fkc: %v\n", err)
		return 1
	}
	return 0
}

// engine builds the dispatch engine, attaching the GPU when the backend
// asks for it.
func engine(backend string) (*ops.Engine, func(), error) {
	eng, err := ops.NewDefault()
	if err != nil {
		return nil, nil, err
	}
	cb, err := ops.ContractBackend(backend)
	if err != nil {
		return nil, nil, err
	}
	closeFn := func() {}
	if cb == "Vulkan" {
		if GPU == nil {
			return nil, nil, fmt.Errorf("backend %s: this build has no GPU backend", backend)
		}
		links, clocks, c, err := GPU.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("backend %s: %v", backend, err)
		}
		eng.AddGPU(links)
		eng.Clocks = clocks
		closeFn = c
	}
	return eng, closeFn, nil
}

func runHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: fkc run OP [--backend cpu|vulkan] [--dtype bf16] -i NAME=FILE.npy ... -o OUT.npy [flags]")
	fmt.Fprintln(w, "\nops:")
	for _, s := range ops.Specs() {
		ins := make([]string, len(s.Inputs))
		for i, n := range s.Inputs {
			ins[i] = "-i " + n + "=…"
		}
		fmt.Fprintf(w, "  %-24s %-40s %s\n", s.Name, strings.Join(ins, " "), strings.Join(s.Flags, " "))
	}
	fmt.Fprintln(w, "\n--padding is B:A per axis in axis order, e.g. 0:0,0:0,2:2,2:2; dims are 0-based.")
	fmt.Fprintln(w, "--dtype bf16 reads <u2 inputs as bf16 bit patterns and writes bf16 outputs as <u2.")
}
