package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/judge"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// kernelList is the repeatable --kernel flag.
type kernelList []string

func (k *kernelList) String() string { return strings.Join(*k, ",") }

// repeatable: --kernel may be given more than once (flags).
func (k *kernelList) repeatable() {}

func (k *kernelList) Set(v string) error {
	if p, n, ok := strings.Cut(v, "/"); !ok || p == "" || n == "" || strings.Contains(n, "/") {
		return fmt.Errorf("want PROVIDER/NAME")
	}
	*k = append(*k, v)
	return nil
}

// judgeCmd implements `fkc judge`: the measured cost of every linked
// kernel on this device (package judge). A table on stdout, or the JSON
// report with --json; -o also writes the report to a file, atomically.
// On a terminal a progress bar runs on stderr. Interrupted (Ctrl-C), it
// reports the kernels measured so far and exits 1.
func judgeCmd(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := newFlags("judge")
	backend := backendFlag(fs)
	var ids kernelList
	fs.Var(&ids, "kernel", "only this kernel, `PROVIDER/NAME` (repeatable)")
	dtype := fs.String("dtype", "", "only the bindings whose first input has this dtype `D`")
	budget := fs.Duration("budget", judge.DefaultBudget, "time for the whole sweep")
	clock := fs.String("clock", "auto", "CPU kernels: auto (the kernel thread's CPU time, where the OS has it) or wall")
	asJSON := fs.Bool("json", false, "the JSON report on stdout")
	out := fs.String("o", "", "write the JSON report to this `file` too (atomically; - is stdout)")
	if err := flagsOnly(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	if *budget <= 0 {
		return fail(stderr, kernels.Usagef("judge: --budget %q: want a positive duration such as 60s or 2m", budget.String()))
	}
	if *clock != "auto" && *clock != "wall" {
		return fail(stderr, kernels.Usagef("judge: --clock %q: want auto or wall", *clock))
	}
	opt := judge.Options{Kernels: ids, Budget: *budget, Clock: strings.TrimPrefix(*clock, "auto")}
	if *dtype != "" {
		dt, err := tensor.ParseDType(*dtype)
		if err != nil {
			return fail(stderr, kernels.Usagef("judge: --dtype %q: want one of %s", *dtype, tensor.KnownDTypes()))
		}
		opt.DType = dt
	}
	b := engine.Backend(*backend)
	eng, closeFn, dev, err := openJudged(b, cfg)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	opt.Backend, opt.Device = b, dev
	s, err := judge.New(eng, opt)
	if err != nil {
		return fail(stderr, err)
	}
	if *out == "-" { // the JSON report on stdout, as -o - means elsewhere (it wrote a file named -)
		*out, *asJSON = "", true
	}
	if *out != "" {
		// before the sweep, not after it: a minute of measurements was
		// lost to a missing directory
		if err := writable(*out); err != nil {
			return fail(stderr, fmt.Errorf("judge: -o %s: %v", *out, err))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := progressBar(stderr)
	rep := judge.Run(ctx, s, bar)
	if bar != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	// stdout first: a write that fails still leaves the report shown
	if *asJSON {
		data, err := judge.Marshal(rep)
		if err != nil {
			return fail(stderr, err)
		}
		stdout.Write(data)
	} else {
		judge.Text(stdout, rep)
	}
	if rep.Cancelled {
		// an interrupted sweep does not replace a report (often a
		// complete one) at -o
		if *out != "" {
			return fail(stderr, fmt.Errorf("judge: interrupted; %s was not written (the %d kernels measured so far are on stdout)", *out, len(rep.Kernels)))
		}
		return fail(stderr, fmt.Errorf("judge: interrupted; the report holds the %d kernels measured so far", len(rep.Kernels)))
	}
	if *out != "" {
		if err := atomicWrite(func() error { return judge.WriteFile(*out, rep) }); err != nil {
			return fail(stderr, err)
		}
	}
	for _, k := range rep.Kernels {
		if k.Error != "" {
			return fail(stderr, fmt.Errorf("judge: %s %s: %s", k.ID(), k.Variant, k.Error))
		}
	}
	return 0
}

// openJudged is open (main.go) keeping the GPU device, whose copy
// ceiling, buffer limit and name the Judge reads.
func openJudged(b engine.Backend, cfg Config) (*engine.Engine, func(), engine.Device, error) {
	if b != engine.Vulkan || cfg.GPU == nil {
		eng, closeFn, err := open(b, cfg)
		return eng, closeFn, nil, err
	}
	eng, err := newEngine(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	dev, closeFn, err := cfg.GPU.Open()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("backend %s: %v", b, err)
	}
	eng.Attach(dev)
	return eng, closeFn, dev, nil
}

// progressBar draws on stderr when it is a terminal; nil otherwise.
func progressBar(stderr io.Writer) func(judge.Progress) {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	var last time.Time
	return func(p judge.Progress) {
		if time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		const width = 30
		fill := int(p.Fraction * width)
		name := p.Current
		if len(name) > 50 {
			name = name[:49] + "…"
		}
		fmt.Fprintf(f, "\r\033[K[%s%s] %3.0f%% %d/%d %s  %ds/%ds", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
			100*p.Fraction, p.Done, p.Units, name, int(p.Elapsed.Seconds()), int(p.Budget.Seconds()))
	}
}

// writable checks, before a long sweep, that a report can be written at
// path: its directory exists and takes a new file, and path is not a
// directory.
func writable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("it is a directory")
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".fkc-judge-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
