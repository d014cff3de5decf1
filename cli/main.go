// Package cli implements the `fkc` command (SPEC §5). It is pure Go: the
// binary (cmd/fkc) hands it the native Vulkan backend (native/vulkan) as a
// GPU value, so the command works, and is tested, with or without one.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
)

// Config is what the binary hands the command: its GPU backend (nil in a
// build without one) and the limits of its engine.
type Config struct {
	GPU    *GPU
	Limits engine.Limits
}

// GPU is what a build with a GPU path provides.
type GPU struct {
	// Entries lists the GPU links for link status and hints only; their
	// implementations are never called (no device is opened).
	Entries []kernels.Link
	// Devices prints the adapters found (name, backend, driver, features, limits).
	Devices func(w io.Writer) error
	// Open acquires a GPU device, and a function that releases it.
	Open func() (engine.Device, func(), error)
}

// usage is fkc's usage: every subcommand's usage line (the one its -h
// prints, from commands) and what it does.
func usage() string {
	var b strings.Builder
	b.WriteString("usage: fkc COMMAND [ARGS]\n\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  fkc %s\n        %s\n", c.usage, c.about)
	}
	b.WriteString("\nBackends: cpu and vulkan (gpu is another name for vulkan).\n")
	b.WriteString("'fkc COMMAND -h' shows a command's flags; 'fkc run --help' the ops and their flags.\n")
	return b.String()
}

// Main runs the command and returns its exit status: 0 ok, 1 error
// (contract violation, failed verification, lint errors), 2 usage.
func Main(args []string, stdout, stderr io.Writer, cfg Config) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "contracts":
		eng, err := newEngine(cfg)
		if err != nil {
			return fail(stderr, err)
		}
		return Contracts(rest, stdout, stderr, eng.LinkFor)
	case "lint":
		return Lint(rest, stdout, stderr)
	case "fmt":
		return Fmt(rest, stdout, stderr)
	case "devices":
		if err := flagsOnly(newFlags("devices"), rest, stdout); err == errHelp {
			return 0
		} else if err != nil {
			return fail(stderr, err)
		}
		return devices(stdout, stderr, cfg.GPU)
	case "run":
		return run(rest, stdout, stderr, cfg)
	case "verify":
		return verifyCmd(rest, stdout, stderr, cfg)
	case "bench":
		return benchCmd(rest, stdout, stderr, cfg)
	case "judge":
		return judgeCmd(rest, stdout, stderr, cfg)
	case "lab":
		return labCmd(rest, stdout, stderr, cfg)
	case "version", "--version":
		if err := flagsOnly(newFlags("version"), rest, stdout); err == errHelp {
			return 0
		} else if err != nil {
			return fail(stderr, err)
		}
		bi, ok := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(bi, ok))
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	}
	var names []string
	for _, c := range commands {
		if n, _, _ := strings.Cut(c.name, " "); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return fail(stderr, kernels.Usagef("unknown command %q (the commands: %s; fkc help describes them)", cmd, strings.Join(names, " ")))
}

// versionLine is what fkc version prints: the main module's version
// ("(devel)" when built from a checkout), the VCS revision, whether the
// tree had uncommitted changes and the commit's time, as go build stamps
// them, then the Go toolchain and the platform. A binary built without VCS
// stamping (-buildvcs=false, or outside a checkout) says so.
func versionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return fmt.Sprintf("fkc: no build information (%s %s/%s)", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	v := bi.Main.Version
	if v == "" {
		v = "(unknown)"
	}
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	line := "fkc " + v
	if rev := set["vcs.revision"]; rev != "" {
		line += " " + set["vcs"] + " " + rev
		if set["vcs.modified"] == "true" {
			line += " (modified)"
		}
		if t := set["vcs.time"]; t != "" {
			line += " " + t
		}
	} else if v == "(devel)" {
		line += " (no VCS revision recorded: built with -buildvcs=false or outside a git checkout)"
	}
	return fmt.Sprintf("%s %s %s/%s", line, bi.GoVersion, runtime.GOOS, runtime.GOARCH)
}

func devices(stdout, stderr io.Writer, gpu *GPU) int {
	if gpu == nil {
		return fail(stderr, fmt.Errorf("this build has no GPU backend (build ./cmd/fkc)"))
	}
	if err := gpu.Devices(stdout); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// newEngine builds the engine with this build's GPU entry points known
// (for link status and "runs on Vulkan via …" hints), none attached.
func newEngine(cfg Config) (*engine.Engine, error) {
	eng, err := engine.New(cfg.Limits)
	if err != nil {
		return nil, err
	}
	if cfg.GPU != nil {
		eng.AddEntries(cfg.GPU.Entries)
	}
	return eng, nil
}

// parseBackend reads a backend on the command line: cpu or vulkan (gpu is
// another name for vulkan). engine.ParseBackend also reads webgpu, and
// names it among the choices: it runs in the browser playground only.
func parseBackend(s string) (engine.Backend, error) {
	b, err := engine.ParseBackend(s)
	switch {
	case err != nil:
		return "", errors.New("want cpu or vulkan")
	case b == engine.WebGPU:
		return "", errors.New("want cpu or vulkan (webgpu runs in the browser playground; natively the GPU backend is vulkan)")
	}
	return b, nil
}

// backendValue is the --backend flag of verify, bench and judge.
type backendValue engine.Backend

func (v *backendValue) String() string { return string(*v) }

func (v *backendValue) Set(s string) error {
	b, err := parseBackend(s)
	if err != nil {
		return err
	}
	*v = backendValue(b)
	return nil
}

// backendFlag defines --backend (default cpu) on a subcommand's flags.
func backendFlag(fs *flag.FlagSet) *backendValue {
	b := backendValue(engine.CPU)
	fs.Var(&b, "backend", "where it runs: `cpu|vulkan` (gpu is another name for vulkan)")
	return &b
}

// open builds the engine for a backend (parseBackend's), attaching the GPU
// when it asks for one; the returned function releases the device.
func open(b engine.Backend, cfg Config) (*engine.Engine, func(), error) {
	eng, err := newEngine(cfg)
	if err != nil {
		return nil, nil, err
	}
	if b == engine.CPU {
		return eng, func() {}, nil
	}
	if cfg.GPU == nil {
		return nil, nil, fmt.Errorf("backend %s: this build has no GPU backend", b)
	}
	dev, closeFn, err := cfg.GPU.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("backend %s: %v", b, err)
	}
	eng.Attach(dev)
	return eng, closeFn, nil
}

func runHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: fkc "+commandOf("run").usage)
	fmt.Fprintln(w, "\nops:")
	for _, o := range ops.Table {
		ins := make([]string, len(o.Inputs))
		for i, in := range o.Inputs {
			ins[i] = "-i " + in.Name + "=…"
		}
		var fl []string
		for _, u := range o.Flags {
			f := "--" + u.Name + " " + u.Arg
			if !u.Required {
				f = "[" + f + "]"
			}
			fl = append(fl, f)
		}
		fmt.Fprintf(w, "  %-24s %-40s %s\n  %24s %s\n", o.Name, strings.Join(ins, " "), strings.Join(fl, " "), "", o.Summary)
	}
	fmt.Fprintln(w, "\nflags:")
	for _, f := range ops.Flags {
		fmt.Fprintf(w, "  --%-8s %s\n", f.Name, f.Help)
	}
	fmt.Fprintln(w, "\ndims are 0-based, and a negative one counts from the end (-1 is the last axis), as in NumPy and PyTorch;")
	fmt.Fprintln(w, "--padding is in axis order, e.g. 0:0,0:0,2:2,2:2.")
	fmt.Fprintln(w, "index inputs (indices, ids) may be <u4, <i4 or <i8 (NumPy's default integer): I32 and I64 are converted to U32,")
	fmt.Fprintln(w, "every value checked first; the kernel line says so (\"; indices I64 → U32\").")
	fmt.Fprintln(w, "--dtype bf16 reads <u2 inputs as bf16 bit patterns and writes bf16 outputs as <u2.")
	fmt.Fprintln(w, "--kernel PROVIDER/NAME runs that contract kernel instead of the one dispatch picks (fkc contracts lists them).")
	fmt.Fprintln(w, "--backend gpu is vulkan; -i and -o may be written --input and --out.")
	fmt.Fprintln(w, "Flags may come before OP too: fkc run -o out.npy sum -i x=in.npy.")
}
