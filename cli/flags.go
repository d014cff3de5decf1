package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// command is one subcommand as its help shows it.
type command struct {
	name  string
	usage string // the usage line, after "fkc "
	about string // what it does
}

// commands are fkc's subcommands, in the order the usage lists them.
var commands = []command{
	{"contracts", "contracts [--json] [--judge report.json] [FILE|DIR ...]",
		"providers, kernels, bindings and link status of the documents (no operands: the embedded contracts)"},
	{"lint", "lint [FILE|DIR ...]",
		"diagnostics file:line: severity: msg (no operands: the embedded contracts); exit 1 on errors, DuplicateKernelRef included"},
	{"fmt", "fmt [-w] [-l] FILE|DIR...",
		"canonical indentation: the formatted documents on stdout; -w rewrites the files that differ, -l lists them"},
	{"devices", "devices", "the GPU adapters found (Vulkan)"},
	{"run", "run OP [--backend cpu|vulkan] [--kernel PROVIDER/NAME] [--wgsl FILE [--rows N]] [--dtype bf16] -i NAME=FILE.npy ... -o OUT.npy|- [flags]",
		"one op on .npy inputs (--wgsl: a lab kernel, judged against the oracle)"},
	{"verify", "verify [--backend cpu|vulkan] [--seed N] [--cases N]",
		"every binding against the CPU oracle on random cases"},
	{"bench", "bench [--backend cpu|vulkan] [--json] [--op PREFIX] [--reps N]",
		"GB/s per kernel from its tensors' bytes (inputs read + output written), the contract's bytes_moved beside"},
	{"lab template", "lab template --kernel PROVIDER/NAME",
		"the plain WGSL kernel of the contract kernel's op family, following the lab interface (docs/lab.md)"},
	{"lab check", "lab check --wgsl FILE --kernel PROVIDER/NAME [--backend vulkan] [--cases N] [--seed N] [--timeout 60s] [--repro DIR] [-v]",
		"your WGSL kernel on cases derived from the contract, against the CPU oracle; exit 1 at the first failing case, with its repro line"},
	{"lab bench", "lab bench --wgsl FILE --kernel PROVIDER/NAME [--backend vulkan] [--elems N] [--reps N] [--dtype DTYPE] [--timeout 60s]",
		"your WGSL kernel timed beside the built-in kernel on the same inputs (median, GB/s, the physical floor)"},
	{"judge", "judge [--backend cpu|vulkan] [--kernel PROVIDER/NAME]... [--dtype D] [--budget 60s] [--clock auto|wall] [--json] [-o report.json]",
		"the measured cost (overhead, bandwidth, % of the copy ceiling) of every linked kernel on this device"},
	{"version", "version", "the module version, VCS revision and Go toolchain this binary was built from (also fkc --version)"},
}

func commandOf(name string) command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return command{name: name, usage: name + " [flags]"}
}

// errHelp: -h or --help asked for a subcommand's help, and flags printed
// it.
var errHelp = errors.New("help printed")

// newFlags is a subcommand's flag set, for flags: it prints nothing itself.
func newFlags(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// flags parses a subcommand's arguments (every subcommand's but run's, whose
// op flags ops.Parse reads) and returns its operands. Flags may come
// anywhere among the operands ("fkc fmt FILE -w"); "--" ends them. Each
// flag is given once (Go's flag package keeps the last: 'verify --seed 1
// --seed 2' ran seed 2 without a word), unless its value is repeatable
// (judge's --kernel). -h or --help anywhere (not as a flag's value) wins:
// flags prints the subcommand's help to help and returns errHelp.
//
// Its errors are usage errors in fkc run's words, one line naming the flag
// as it is written (--name, or -o for a one-letter name): "verify: unknown
// flag --sed (its flags: --backend --cases --seed)", "verify: --cases
// \"abc\": want a whole number from 1 to 1000", "judge: --budget \"5\":
// want a duration such as 60s", "bench: --json given twice (each flag
// once)". (The flag package's own were "flag provided but not defined:
// -sed" and "invalid value \"5\" for flag -budget: parse error".)
func flags(fs *flag.FlagSet, args []string, help io.Writer) (operands []string, err error) {
	cmd := fs.Name()
	var flagArgs []string // the flags and their values, for fs.Parse
	asked := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			continue
		}
		name, _, hasVal := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			if name == "h" || name == "help" {
				asked = true
			} else if err == nil {
				shown := dash(name)
				if name == "" || name[0] == '-' {
					shown = a // "-=x", "---x": not a flag's name at all
				}
				err = kernels.Usagef("%s: unknown flag %s (%s)", cmd, shown, flagList(fs))
			}
			continue // a later -h still wins
		}
		flagArgs = append(flagArgs, a)
		if hasVal || isBool(f) {
			continue
		}
		if i+1 >= len(args) {
			if err == nil {
				err = kernels.Usagef("%s: %s needs a value (%s)", cmd, dash(name), argName(f))
			}
			continue
		}
		i++
		flagArgs = append(flagArgs, args[i])
	}
	if asked {
		printHelp(help, fs)
		return nil, errHelp
	}
	if err != nil {
		return nil, err
	}
	// Every value is checked as it is set: the first refusal is the error.
	var refused error
	orig := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		orig[f] = f.Value
		_, repeatable := f.Value.(interface{ repeatable() })
		f.Value = &checkedValue{Value: f.Value, once: !repeatable, refuse: func(why string) {
			if refused == nil {
				refused = kernels.Usagef("%s: %s", cmd, why)
			}
		}, name: dash(f.Name)}
	})
	perr := fs.Parse(flagArgs)
	for f, v := range orig {
		f.Value = v
	}
	if refused != nil {
		return nil, refused
	}
	if perr != nil { // none is expected: flagArgs holds known flags only
		return nil, kernels.Usagef("%s: %v", cmd, perr)
	}
	return operands, nil
}

// flagsOnly is flags for a subcommand that takes no operands.
func flagsOnly(fs *flag.FlagSet, args []string, help io.Writer) error {
	operands, err := flags(fs, args, help)
	if err == nil && len(operands) > 0 {
		why := "flags are --name value"
		if flagList(fs) == noFlags {
			why = "it takes no arguments"
		} else if name, ok := boolBefore(fs, args, operands[0]); ok {
			// 'bench --json false' read false as an operand
			why = fmt.Sprintf("--%s takes no value: --%s=%s sets it", name, name, operands[0])
		}
		return kernels.Usagef("%s: unexpected argument %q (%s)", fs.Name(), operands[0], why)
	}
	return err
}

// boolBefore reports whether the argument before operand's first place in
// args is a boolean flag of fs written without a value, and its name.
func boolBefore(fs *flag.FlagSet, args []string, operand string) (string, bool) {
	for i, a := range args {
		if a != operand {
			continue
		}
		if i == 0 {
			return "", false
		}
		name := strings.TrimLeft(args[i-1], "-")
		if strings.Contains(name, "=") || name == args[i-1] {
			return "", false
		}
		f := fs.Lookup(name)
		if f == nil {
			return "", false
		}
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		return name, ok && b.IsBoolFlag()
	}
	return "", false
}

// checkedValue is a flag's value as flags parses it: set once (unless
// repeatable), and a value it refuses is reported in one wording.
type checkedValue struct {
	flag.Value
	name   string // as written: --cases, -o
	once   bool
	set    bool
	refuse func(why string)
}

func (c *checkedValue) Set(s string) error {
	if c.once && c.set {
		c.refuse(c.name + " given twice (each flag once)")
		return errors.New("given twice")
	}
	c.set = true
	if err := c.Value.Set(s); err != nil {
		c.refuse(fmt.Sprintf("%s %q: %s", c.name, s, want(c.Value, err)))
		return err
	}
	return nil
}

// IsBoolFlag keeps a boolean flag's --json form (no value) working.
func (c *checkedValue) IsBoolFlag() bool { return isBoolValue(c.Value) }

// want says what a flag takes, for a value it refused: the flag package's
// own values say only "parse error"; this package's say "want …" themselves.
func want(v flag.Value, err error) string {
	if g, ok := v.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			return "want true or false"
		case int, int64, uint, uint64:
			return "want a whole number"
		case float64:
			return "want a number"
		case time.Duration:
			return "want a duration such as 60s or 2m"
		}
	}
	return err.Error()
}

func isBool(f *flag.Flag) bool { return isBoolValue(f.Value) }

func isBoolValue(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// dash writes a flag's name as the usage lines do: -o, --json.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

const noFlags = "it takes no flags"

// flagList is "its flags: --backend --cases --seed", as ops' flagList.
func flagList(fs *flag.FlagSet) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, dash(f.Name)) })
	if len(names) == 0 {
		return noFlags
	}
	return "its flags: " + strings.Join(names, " ")
}

// argName is what a flag's value is in its help: the usage's `quoted`
// word, or its type.
func argName(f *flag.Flag) string {
	name, _ := flag.UnquoteUsage(f)
	return name
}

// printHelp writes a subcommand's help: its usage line, what it does, and
// each flag with its meaning and default.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	c := commandOf(fs.Name())
	fmt.Fprintf(w, "usage: fkc %s\n\n%s\n", c.usage, c.about)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		if n == 0 {
			fmt.Fprintln(w, "\nflags:")
		}
		n++
		arg, usage := flag.UnquoteUsage(f)
		head := "  " + dash(f.Name)
		if arg != "" {
			head += " " + arg
		}
		switch d := f.DefValue; {
		case d == "" || d == "0" || d == "false" || d == "0s":
		case arg == "string":
			usage += fmt.Sprintf(" (default %q)", d)
		default:
			usage += " (default " + d + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", head, usage)
	})
}

// maxCount bounds --cases (verify) and --reps (bench), as the page's
// fkc.bench bounds its reps: a slip such as --reps 1000000000 would
// otherwise run for days and keep a time per repetition.
const maxCount = 1000

// countValue is a --cases / --reps value: a whole number from 1 to
// maxCount.
type countValue int

func (c *countValue) String() string { return fmt.Sprint(int(*c)) }

func (c *countValue) Set(s string) error {
	n, err := tensor.ParseWhole(s)
	if err != nil || n < 1 || n > maxCount {
		return fmt.Errorf("want a whole number from 1 to %d", maxCount)
	}
	*c = countValue(n)
	return nil
}
