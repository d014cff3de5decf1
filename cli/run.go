package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// runArgs is a parsed `fkc run` line.
type runArgs struct {
	op, kernel, out string
	backend         engine.Backend
	wgsl            string            // --wgsl FILE: the lab runs this kernel instead (cli/lab.go)
	rows            uint32            // --rows N: with --wgsl, workgroups per grid row
	inputs          map[string]string // operand name → .npy path
	order           []string          // operand names as given
	opArgs          []string          // the op's flags (and --dtype), for ops.Parse
}

// splitOp finds the op in `fkc run [flags] OP [flags]` and returns the
// flags around it, in order. Every flag of run takes a value (the run
// level's, --dtype and the op flags), so the op is the first argument that
// is neither a flag nor the value of one: `fkc run -o o.npy sum -i x=x.npy`
// reads as `fkc run sum -o o.npy -i x=x.npy`, as `go test -run X ./pkg`
// takes flags before its package. A flag before the op that run does not
// know (its value cannot be told from the op) is refused by name.
func splitOp(args []string) (op string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" {
			return "", nil, errHelp
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return a, append(slices.Clip(args[:i]), args[i+1:]...), nil
		}
		name, _, hasEq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !runFlag(name) {
			return "", nil, kernels.Usagef("run: unknown flag %s before the op (the op comes first: fkc run OP [flags]; fkc run --help lists the ops and their flags)", a)
		}
		if !hasEq {
			i++ // its value
		}
	}
	return "", nil, kernels.Usagef("run: needs an OP (fkc run --help lists the ops and their flags)")
}

// runFlag reports a flag name `fkc run` takes: its own, --dtype, or an op
// flag (each op checks its own).
func runFlag(name string) bool {
	switch name {
	case "backend", "kernel", "o", "out", "i", "input", "dtype":
		return true
	}
	for _, f := range ops.Flags {
		if f.Name == name {
			return true
		}
	}
	return false
}

// parseRun splits `fkc run [flags] OP [flags]` into the run-level flags
// (--backend, --kernel, -i, -o; each at most once, -i once per operand)
// and the op's own flags, which ops.Parse reads strictly.
func parseRun(args []string) (*runArgs, error) {
	op, rest, err := splitOp(args)
	if err != nil {
		return nil, err
	}
	r := &runArgs{op: op, backend: engine.CPU, inputs: map[string]string{}}
	seen := map[string]bool{}
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, val, hasEq := strings.Cut(a, "=")
		key := strings.TrimLeft(name, "-")
		switch {
		case !strings.HasPrefix(a, "-"):
		case key == "backend", key == "kernel", key == "o", key == "out", key == "i", key == "input", key == "wgsl", key == "rows":
		default:
			key = ""
		}
		if a == "-h" || a == "--help" {
			return nil, errHelp
		}
		if key == "" || !strings.HasPrefix(a, "-") {
			// An op flag, its value, or --dtype: ops.Parse and SplitDType
			// read these, strictly, in order.
			r.opArgs = append(r.opArgs, a)
			continue
		}
		if !hasEq {
			if i+1 >= len(rest) {
				return nil, kernels.Usagef("%s needs a value", name)
			}
			i++
			val = rest[i]
		}
		switch key {
		case "i", "input":
			n, f, ok := strings.Cut(val, "=")
			if !ok || n == "" || f == "" {
				return nil, kernels.Usagef("-i wants NAME=FILE.npy, got %q", val)
			}
			if _, dup := r.inputs[n]; dup {
				return nil, kernels.Usagef("input %s given twice", n)
			}
			r.inputs[n] = f
			r.order = append(r.order, n)
			continue
		case "o", "out":
			key = "o"
		}
		if seen[key] {
			return nil, kernels.Usagef("%s given twice", name)
		}
		seen[key] = true
		switch key {
		case "backend":
			b, err := parseBackend(val)
			if err != nil {
				return nil, kernels.Usagef("run: --backend %q: %v", val, err)
			}
			r.backend = b
		case "kernel":
			if val == "" {
				return nil, kernels.Usagef("--kernel wants PROVIDER/NAME (fkc contracts lists them), got an empty value")
			}
			r.kernel = val
		case "o":
			r.out = val
		case "wgsl":
			if val == "" {
				return nil, kernels.Usagef("--wgsl wants a WGSL FILE, got an empty value")
			}
			r.wgsl = val
		case "rows":
			n, err := tensor.ParseWhole(val)
			if err != nil || n < 1 || n > 65535 {
				return nil, kernels.Usagef("--rows %q: want a whole number from 1 to 65535 (workgroups per grid row)", val)
			}
			r.rows = uint32(n)
		}
	}
	if r.rows > 0 && r.wgsl == "" {
		return nil, kernels.Usagef("--rows lays out a lab kernel's grid: it needs --wgsl FILE")
	}
	if r.out == "" {
		return nil, kernels.Usagef("run %s needs -o OUT.npy (- for stdout)", r.op)
	}
	return r, nil
}

// run implements `fkc run [flags] OP [flags]`.
func run(args []string, stdout, stderr io.Writer, cfg Config) int {
	r, err := parseRun(args)
	if err == errHelp {
		runHelp(stdout)
		return 0
	}
	if err != nil {
		return fail(stderr, err)
	}
	opArgs, asBF16, err := ops.SplitDType(r.opArgs)
	if err != nil {
		return fail(stderr, err)
	}
	call, err := ops.Parse(r.op, opArgs)
	if err != nil {
		return fail(stderr, err)
	}
	// The operand names before any file is opened: a file for an operand
	// the op does not have was read (a FIFO blocked) before it was refused.
	if o, err := ops.Get(r.op); err != nil {
		return fail(stderr, err)
	} else if err := o.CheckInputNames(r.order); err != nil {
		return fail(stderr, err)
	}
	call.Inputs = map[string]*tensor.Tensor{}
	anyBF16 := false
	for _, n := range r.order {
		t, err := readInput(n, r.inputs[n], asBF16)
		if err != nil {
			return fail(stderr, err)
		}
		anyBF16 = anyBF16 || t.DType == tensor.BF16
		call.Inputs[n] = t
	}
	if asBF16 && !anyBF16 {
		return fail(stderr, kernels.Usagef("--dtype bf16 reads <u2 .npy files as bf16, but no input of this run is a <u2 file (their dtypes come from their headers); drop --dtype"))
	}
	if r.wgsl != "" {
		return labRun(r, call, stdout, stderr, cfg)
	}
	backend := r.backend
	eng, closeFn, err := open(backend, cfg)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	var res *engine.Result
	if r.kernel != "" {
		res, err = eng.RunKernel(backend, r.kernel, call)
	} else {
		res, err = eng.Run(backend, call)
	}
	if err != nil {
		return fail(stderr, err)
	}
	// Atomic (temporary file, fsync, rename): a failed write leaves an
	// existing file, which may be one of the inputs, as it was. The kernel
	// line comes after it, so a failed run prints only its "fkc:" line.
	write := func() error { return tensor.WriteNpyFile(r.out, res.Out) }
	if r.out == "-" { // the .npy on stdout, as -o - means for fkc judge (it wrote a file named -)
		write = func() error {
			if err := tensor.WriteNpy(stdout, res.Out); err != nil {
				return fmt.Errorf("write stdout: %w", err)
			}
			return nil
		}
	}
	if err := atomicWrite(write); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintln(stderr, res.ServedBy())
	return 0
}

func readInput(name, path string, asBF16 bool) (*tensor.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError("input "+name, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("input %s: %s is a directory, not a .npy file", name, path)
	}
	t, err := tensor.ReadNpy(f, asBF16)
	if err != nil {
		return nil, fmt.Errorf("input %s (%s): %v", name, path, err)
	}
	return t, nil
}

// fail prints one "fkc: …" line: exit 2 for usage errors, 1 otherwise.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "fkc: %s\n", strings.ReplaceAll(err.Error(), "\n", "; "))
	var u *kernels.Usage
	if errors.As(err, &u) {
		return 2
	}
	return 1
}
