package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/lab"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
	"github.com/fkc-playground/fkc/verify"
)

// `fkc lab template|check|bench` (docs/lab.md): a user's WGSL for a
// contract kernel, through package lab, on the GPU.

// maxWGSLBytes bounds a kernel file: a WGSL module is a few kilobytes.
const maxWGSLBytes = 1 << 20

// defaultLabTimeout is how long one case's results may take.
const defaultLabTimeout = 60 * time.Second

func labCmd(args []string, stdout, stderr io.Writer, cfg Config) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		w := stderr
		if len(args) > 0 {
			w = stdout
		}
		for _, c := range commands {
			if len(c.name) > 4 && c.name[:4] == "lab " {
				fmt.Fprintf(w, "usage: fkc %s\n        %s\n", c.usage, c.about)
			}
		}
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "template":
		return labTemplate(args[1:], stdout, stderr, cfg)
	case "check":
		return labCheck(args[1:], stdout, stderr, cfg)
	case "bench":
		return labBench(args[1:], stdout, stderr, cfg)
	}
	return fail(stderr, kernels.Usagef("lab: unknown command %q (the commands: template check bench)", args[0]))
}

// labKernel finds --kernel's contract kernel with its family.
func labKernel(id string, cfg Config) (*lab.Kernel, error) {
	if id == "" {
		return nil, kernels.Usagef("lab: --kernel PROVIDER/NAME is required (fkc contracts lists the kernels)")
	}
	eng, err := newEngine(cfg)
	if err != nil {
		return nil, err
	}
	return lab.Find(eng, id)
}

func labTemplate(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := newFlags("lab template")
	id := fs.String("kernel", "", "the contract kernel, `PROVIDER/NAME`")
	if err := flagsOnly(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	k, err := labKernel(*id, cfg)
	if err != nil {
		return fail(stderr, err)
	}
	src, err := k.Template()
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprint(stdout, src)
	return 0
}

// labFlags are the flags check and bench share.
type labFlags struct {
	wgsl, kernel *string
	backend      *backendValue
	timeout      *time.Duration
}

func newLabFlags(fs *flag.FlagSet) labFlags {
	f := labFlags{
		wgsl:   fs.String("wgsl", "", "the kernel, a WGSL `FILE` following the lab interface (docs/lab.md)"),
		kernel: fs.String("kernel", "", "the contract kernel it stands in for, `PROVIDER/NAME`"),
	}
	b := backendValue(engine.Vulkan)
	fs.Var(&b, "backend", "where the WGSL runs: `vulkan` (gpu is another name for it)")
	f.backend = &b
	f.timeout = fs.Duration("timeout", defaultLabTimeout, "how long one run's results may take, a `duration` such as 10s")
	return f
}

// open reads the kernel file and opens the GPU with its engine.
func (f labFlags) open(cfg Config) (src string, k *lab.Kernel, eng *engine.Engine, dev kernels.LabDevice, closeFn func(), err error) {
	if *f.wgsl == "" {
		return "", nil, nil, nil, nil, kernels.Usagef("lab: --wgsl FILE is required (fkc lab template --kernel … writes a starting point)")
	}
	if engine.Backend(*f.backend) != engine.Vulkan {
		return "", nil, nil, nil, nil, kernels.Usagef("lab: --backend %s: the lab runs WGSL, on the GPU (--backend vulkan)", *f.backend)
	}
	if *f.timeout <= 0 {
		return "", nil, nil, nil, nil, kernels.Usagef("lab: --timeout %v: want a positive duration", *f.timeout)
	}
	src, err = readWGSL(*f.wgsl)
	if err != nil {
		return "", nil, nil, nil, nil, err
	}
	if k, err = labKernel(*f.kernel, cfg); err != nil {
		return "", nil, nil, nil, nil, err
	}
	eng, dev, closeFn, err = openLab(cfg, *f.timeout)
	return src, k, eng, dev, closeFn, err
}

func readWGSL(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", fileError("--wgsl", err)
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxWGSLBytes+1))
	if err != nil {
		return "", fmt.Errorf("--wgsl %s: %v", path, err)
	}
	if len(b) > maxWGSLBytes {
		return "", fmt.Errorf("--wgsl %s: larger than %d bytes; a WGSL kernel is a few kilobytes", path, maxWGSLBytes)
	}
	return string(b), nil
}

// openLab opens the GPU for the lab, attached to an engine (for the
// built-in kernel), with the per-run timeout set.
func openLab(cfg Config, timeout time.Duration) (*engine.Engine, kernels.LabDevice, func(), error) {
	if cfg.GPU == nil || cfg.GPU.Open == nil {
		return nil, nil, nil, fmt.Errorf("lab: this build has no GPU backend (build ./cmd/fkc)")
	}
	eng, err := newEngine(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	d, closeFn, err := cfg.GPU.Open()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("backend vulkan: %v", err)
	}
	ld, ok := d.(kernels.LabDevice)
	if !ok {
		closeFn()
		return nil, nil, nil, fmt.Errorf("lab: this GPU backend cannot run lab kernels")
	}
	ld.SetLabTimeout(timeout)
	eng.Attach(d)
	return eng, ld, closeFn, nil
}

// watched runs work on its own goroutine, waiting while it reports
// progress (beat) at least every limit: a run that the loop budget cannot
// stop (a hung device) is abandoned, and the command returns, which ends
// the process. It reports false when it gave up.
func watched(limit time.Duration, work func(beat func())) bool {
	beats := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		work(func() {
			select {
			case beats <- struct{}{}:
			default:
			}
		})
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		select {
		case <-done:
			return true
		case <-beats:
			t.Reset(limit)
		case <-t.C:
			return false
		}
	}
}

// watchSlack is how much longer than --timeout the watchdog waits: the
// device's own timeout answers first when it can.
const watchSlack = 2 * time.Second

func labCheck(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := newFlags("lab check")
	f := newLabFlags(fs)
	cases := countValue(20)
	fs.Var(&cases, "cases", "random cases per dtype × variant, beside the derived edges, `N` from 1 to 1000")
	seed := fs.Int64("seed", 1, "random seed")
	repro := fs.String("repro", "", "where the failing case's inputs are written, a `DIR` (default: a new temporary directory)")
	verbose := fs.Bool("v", false, "print every case")
	if err := flagsOnly(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	src, k, _, dev, closeFn, err := f.open(cfg)
	if err != nil {
		return fail(stderr, err)
	}
	var rep *lab.Report
	var current *lab.Case
	ok := watched(*f.timeout+watchSlack, func(beat func()) {
		rep = lab.Check(dev, k, src, lab.CheckOptions{Seed: *seed, Random: int(cases), Progress: func(v *lab.Verdict) {
			current = v.Case
			if *verbose {
				v.Print(stdout)
			}
			beat()
		}})
	})
	if !ok {
		// The device is left as it is: closing it would wait on the run.
		n := "the first case"
		if current != nil {
			n = fmt.Sprintf("the case after case %d", current.N)
		}
		fmt.Fprintf(stdout, "FAIL %s: timed out: %s did not finish within %v (the device was abandoned)\n", k.ID, n, *f.timeout)
		return 1
	}
	defer closeFn()
	if rep.OK() {
		fmt.Fprintf(stdout, "ok   %s: %d cases passed, %d skipped (%s)\n", k.ID, rep.Passed, rep.Skipped, *f.wgsl)
		return 0
	}
	v := rep.Failed
	if ce := v.Compile; ce != nil {
		printCompileError(stdout, *f.wgsl, src, ce)
		fmt.Fprintf(stdout, "FAIL %s: %s does not compile\n", k.ID, *f.wgsl)
		return 1
	}
	v.Print(stdout)
	dir := *repro
	if dir == "" {
		if dir, err = os.MkdirTemp("", "fkc-lab-"); err != nil {
			return fail(stderr, err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(stderr, err)
	}
	if line, err := lab.Repro(v, *f.wgsl, k.ID, dir); err != nil {
		fmt.Fprintf(stdout, "repro: the inputs could not be written: %v\n", err)
	} else {
		fmt.Fprintf(stdout, "repro: %s\n", line)
	}
	fmt.Fprintf(stdout, "FAIL %s: case %d of %d (%d passed before it)\n", k.ID, v.Case.N, rep.Cases, rep.Passed)
	return 1
}

func labBench(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := newFlags("lab bench")
	f := newLabFlags(fs)
	elems := fs.Int("elems", 1<<20, "about this many elements in the first operand, `N` from 1 to 2^28")
	reps := countValue(9)
	fs.Var(&reps, "reps", "timed runs of each kernel (the median is reported), `N` from 1 to 1000")
	dtype := fs.String("dtype", "", "the dtype to time, a `DTYPE` of the kernel's bindings (default: its first)")
	if err := flagsOnly(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	if *elems < 1 || *elems > 1<<28 {
		return fail(stderr, kernels.Usagef("lab bench: --elems %d: want a whole number from 1 to %d", *elems, 1<<28))
	}
	src, k, eng, dev, closeFn, err := f.open(cfg)
	if err != nil {
		return fail(stderr, err)
	}
	opt := lab.BenchOptions{Elems: *elems, Reps: int(reps), Seed: 1}
	if *dtype != "" {
		dt, err := tensor.ParseDType(*dtype)
		if err != nil {
			closeFn()
			return fail(stderr, kernels.Usagef("lab bench: --dtype: %v", err))
		}
		found := false
		for _, d := range k.DTypes() {
			found = found || d == dt
		}
		if !found {
			closeFn()
			return fail(stderr, kernels.Usagef("lab bench: --dtype %s: %s is registered for %s", dt, k.ID, kernels.FormatDTypes(k.DTypes())))
		}
		opt.DType = dt
	}
	var lines []*lab.BenchLine
	// Each run of either kernel reports within --timeout; the whole bench
	// gets that per timed run.
	if !watched(time.Duration(2*int(reps)+4)*(*f.timeout)+watchSlack, func(func()) { lines = lab.Bench(dev, eng, k, src, opt) }) {
		fmt.Fprintf(stdout, "FAIL %s: timed out (the device was abandoned)\n", k.ID)
		return 1
	}
	defer closeFn()
	code := 0
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
		if !l.OK() {
			code = 1
		}
	}
	return code
}

// printCompileError writes a compile error as compilers do: FILE:LINE:COL:
// message, then the line with a caret under the column.
func printCompileError(w io.Writer, file, src string, ce *lab.CompileError) {
	if ce.Line == 0 || ce.Prelude {
		fmt.Fprintf(w, "%s: %s\n", file, ce.Error())
		return
	}
	fmt.Fprintf(w, "%s:%d:%d: %s\n", file, ce.Line, ce.Col, ce.Msg)
	lines := strings.Split(src, "\n")
	if ce.Line <= len(lines) {
		l := strings.ReplaceAll(lines[ce.Line-1], "\t", " ")
		fmt.Fprintf(w, "  %s\n  %s^\n", l, strings.Repeat(" ", min(max(0, ce.Col-1), len(l))))
	}
}

// labRun is `fkc run OP --wgsl FILE …`: the user's kernel on the run's
// inputs, its output written, judged against the oracle (a check's repro).
func labRun(r *runArgs, call *kernels.Call, stdout, stderr io.Writer, cfg Config) int {
	if r.backend != engine.Vulkan {
		return fail(stderr, kernels.Usagef("run --wgsl: the lab runs WGSL on the GPU: add --backend vulkan"))
	}
	src, err := readWGSL(r.wgsl)
	if err != nil {
		return fail(stderr, err)
	}
	o, err := ops.Get(call.Op)
	if err != nil {
		return fail(stderr, err)
	}
	// NumPy's habits (a negative dim, I64 indices) resolved as engine.Check does.
	if call, _, err = o.Resolve(call); err != nil {
		return fail(stderr, err)
	}
	match := verify.Contract
	if r.kernel != "" {
		k, err := labKernel(r.kernel, cfg)
		if err != nil {
			return fail(stderr, err)
		}
		served := false
		for _, v := range k.Variants {
			served = served || v == o.Variant(&call.Params)
		}
		if !served {
			return fail(stderr, kernels.Usagef("run --wgsl: kernel %s does not run %s", r.kernel, call.Op))
		}
		match = k.Match
	}
	_, dev, closeFn, err := openLab(cfg, defaultLabTimeout)
	if err != nil {
		return fail(stderr, err)
	}
	var res *lab.Outcome
	var runErr error
	if !watched(defaultLabTimeout+watchSlack, func(func()) {
		res, runErr = lab.Execute(dev, src, call, lab.Options{RowGroups: r.rows})
	}) {
		return fail(stderr, fmt.Errorf("run --wgsl: timed out after %v (the device was abandoned)", defaultLabTimeout))
	}
	defer closeFn()
	var ce *lab.CompileError
	if errors.As(runErr, &ce) {
		printCompileError(stderr, r.wgsl, src, ce)
		return 1
	}
	if runErr != nil {
		return fail(stderr, runErr)
	}
	v := lab.Judge(&lab.Case{N: 1, Call: call, DType: res.Layout.Data, Variant: res.Layout.Op.Variant(&call.Params), Note: r.wgsl, RowGroups: r.rows}, res, match)
	if !res.Exhausted && res.Overrun < 0 {
		write := func() error { return tensor.WriteNpyFile(r.out, res.Out) }
		if r.out == "-" {
			write = func() error { return tensor.WriteNpy(stdout, res.Out) }
		}
		if err := atomicWrite(write); err != nil {
			return fail(stderr, err)
		}
	}
	if v.Status == lab.Pass {
		fmt.Fprintf(stderr, "kernel %s (lab), matches the oracle\n", r.wgsl)
		return 0
	}
	v.Print(stderr)
	return 1
}
