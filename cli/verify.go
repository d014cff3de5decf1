package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/bench"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/verify"
)

// benchSteadyClocks is fkc bench's GPU warm-up (FKC_STEADY_CLOCKS_MS
// overrides it; 0 turns it off).
const benchSteadyClocks = 300 * time.Millisecond

// errHelp: -h or --help asked for a subcommand's flags, and flags printed
// them.
var errHelp = errors.New("help printed")

// flags parses a subcommand's flags; a parse error is a usage error, and
// so is a flag given twice (Go's flag package keeps the last: 'verify
// --seed 1 --seed 2' ran seed 2 without a word), unless its value is
// repeatable (judge's --kernel). On -h or --help (where the subcommand
// defines no flag of that name) it prints the flags to help and returns
// errHelp.
func flags(fs *flag.FlagSet, args []string, help io.Writer) error {
	orig := map[*flag.Flag]flag.Value{}
	var twice []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(interface{ repeatable() }); !ok {
			orig[f] = f.Value
			f.Value = &onceValue{Value: f.Value, twice: func() { twice = append(twice, f.Name) }}
		}
	})
	err := fs.Parse(args)
	for f, v := range orig {
		f.Value = v // the values as defined, for the help's types and defaults
	}
	if len(twice) > 0 {
		// One wording for every flag: the flag package words a boolean's
		// error "invalid boolean flag", another's "invalid value".
		return kernels.Usagef("%s: --%s given twice (each flag once)", fs.Name(), twice[0])
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(help, "usage: fkc %s [flags]\n\nflags:\n", fs.Name())
			fs.SetOutput(help)
			fs.PrintDefaults()
			return errHelp
		}
		return kernels.Usagef("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return kernels.Usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// onceValue is a flag's value that may be set once; a second Set calls
// twice and fails.
type onceValue struct {
	flag.Value
	set   bool
	twice func()
}

func (o *onceValue) Set(s string) error {
	if o.set {
		o.twice()
		return errors.New("given twice (each flag once)")
	}
	o.set = true
	return o.Value.Set(s)
}

// IsBoolFlag keeps a boolean flag's -json form (no value) working.
func (o *onceValue) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// maxCount bounds --cases (verify) and --reps (bench), as the page's
// fkc.bench bounds its reps: a slip such as --reps 1000000000 would
// otherwise run for days and keep a time per repetition.
const maxCount = 1000

// count checks a --cases / --reps value: a whole number from 1 to maxCount.
func count(cmd, name string, v int) error {
	if v < 1 || v > maxCount {
		return kernels.Usagef("%s: --%s %d: want a whole number from 1 to %d", cmd, name, v, maxCount)
	}
	return nil
}

func verifyCmd(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	backend := fs.String("backend", "cpu", "cpu or vulkan")
	seed := fs.Int64("seed", 1, "random seed")
	cases := fs.Int("cases", 20, "random cases per kernel × dtype × variant")
	if err := flags(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	if err := count("verify", "cases", *cases); err != nil {
		return fail(stderr, err)
	}
	eng, b, closeFn, err := open(*backend, cfg)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	rep := verify.Run(eng, b, *seed, *cases, stdout)
	fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", rep.Passed, rep.Failed, rep.Skipped)
	if rep.Failed > 0 {
		return 1
	}
	return 0
}

func benchCmd(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	backend := fs.String("backend", "cpu", "cpu or vulkan")
	asJSON := fs.Bool("json", false, "JSON output")
	reps := fs.Int("reps", 5, "timed repetitions per case (median reported)")
	op := fs.String("op", "", "only cases whose name starts with this")
	if err := flags(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	if err := count("bench", "reps", *reps); err != nil {
		return fail(stderr, err)
	}
	matched := false
	for _, n := range bench.Names() {
		matched = matched || strings.HasPrefix(n, *op)
	}
	if !matched {
		return fail(stderr, kernels.Usagef("bench: --op %q matches no case; the cases: %s", *op, strings.Join(bench.Names(), "; ")))
	}
	eng, b, closeFn, err := open(*backend, cfg)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	if os.Getenv("FKC_STEADY_CLOCKS_MS") == "" {
		// Time at the clocks of a busy GPU, whether a case runs first or
		// late in this process: on the H200, index_add and scatter_add
		// late in one process measured 1.5-4.3x their fresh-process kernel
		// times without this, within 1% with it.
		eng.SteadyClocks(benchSteadyClocks)
	}
	res := bench.Run(eng, b, *reps, *op)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fail(stderr, err)
		}
	} else {
		for _, r := range res {
			fmt.Fprintln(stdout, r)
		}
	}
	for _, r := range res {
		if r.Error != "" {
			return 1
		}
	}
	return 0
}
