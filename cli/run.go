package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// run implements `fkc run OP …`.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		runHelp(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	op := args[0]
	backend, dtype, outPath := "cpu", "", ""
	inputs := map[string]string{}
	var flags []string
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		name, val, hasEq := strings.Cut(a, "=")
		key := strings.TrimLeft(name, "-")
		switch key {
		case "backend", "dtype", "o", "out", "i", "input":
		default:
			flags = append(flags, a) // an op flag: ops.ParseFlags checks it
			continue
		}
		if !hasEq {
			if i+1 >= len(rest) {
				return usageErr(stderr, "fkc: %s needs a value", name)
			}
			i++
			val = rest[i]
		}
		switch key {
		case "backend":
			backend = val
		case "dtype":
			dtype = val
		case "o", "out":
			outPath = val
		default:
			n, f, ok := strings.Cut(val, "=")
			if !ok || n == "" || f == "" {
				return usageErr(stderr, "fkc: -i wants NAME=FILE.npy, got %q", val)
			}
			if _, dup := inputs[n]; dup {
				return usageErr(stderr, "fkc: input %s given twice", n)
			}
			inputs[n] = f
		}
	}
	if outPath == "" {
		return usageErr(stderr, "fkc: run %s needs -o OUT.npy", op)
	}
	asBF16 := false
	switch strings.ToLower(dtype) {
	case "":
	case "bf16":
		asBF16 = true
	default:
		return usageErr(stderr, "fkc: --dtype %q: only bf16 is meaningful (other dtypes come from the .npy header)", dtype)
	}
	if _, err := ops.ParseFlags(op, flags); err != nil {
		return fail(stderr, err)
	}
	tensors := map[string]*tensor.Tensor{}
	for n, path := range inputs {
		f, err := os.Open(path)
		if err != nil {
			return fail(stderr, err)
		}
		t, err := tensor.ReadNpy(f, asBF16)
		f.Close()
		if err != nil {
			return fail(stderr, fmt.Errorf("input %s (%s): %v", n, path, err))
		}
		tensors[n] = t
	}
	eng, closeFn, err := engine(backend)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	res, err := eng.Run(backend, op, flags, tensors)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintln(stderr, res.ServedBy())
	// Atomic (temporary file, fsync, rename): a failed write leaves an
	// existing file, which may be one of the inputs, as it was.
	if err := tensor.WriteNpyFile(outPath, res.Out); err != nil {
		return fail(stderr, err)
	}
	return 0
}

func usageErr(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, format+"\n", args...)
	return 2
}

// fail prints one "fkc: …" line: exit 2 for usage errors, 1 otherwise.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "fkc: %s\n", strings.ReplaceAll(err.Error(), "\n", "; "))
	var u *ops.UsageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}
