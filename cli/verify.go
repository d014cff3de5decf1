package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/bench"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/verify"
)

// benchSteadyClocks is fkc bench's GPU warm-up (FKC_STEADY_CLOCKS_MS
// overrides it; 0 turns it off).
const benchSteadyClocks = 300 * time.Millisecond

func verifyCmd(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := newFlags("verify")
	backend := backendFlag(fs)
	seed := fs.Int64("seed", 1, "random seed")
	cases := countValue(20)
	fs.Var(&cases, "cases", "random cases per kernel × dtype × variant, `N` from 1 to 1000")
	if err := flagsOnly(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	b := engine.Backend(*backend)
	eng, closeFn, err := open(b, cfg)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	rep := verify.Run(eng, b, *seed, int(cases), stdout)
	fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", rep.Passed, rep.Failed, rep.Skipped)
	if rep.Failed > 0 {
		return 1
	}
	return 0
}

func benchCmd(args []string, stdout, stderr io.Writer, cfg Config) int {
	fs := newFlags("bench")
	backend := backendFlag(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	reps := countValue(5)
	fs.Var(&reps, "reps", "timed repetitions per case (the median is reported), `N` from 1 to 1000")
	op := fs.String("op", "", "only the cases whose name starts with this `PREFIX`")
	if err := flagsOnly(fs, args, stdout); err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	matched := false
	for _, n := range bench.Names() {
		matched = matched || strings.HasPrefix(n, *op)
	}
	if !matched {
		return fail(stderr, kernels.Usagef("bench: --op %q matches no case; the cases: %s", *op, strings.Join(bench.Names(), "; ")))
	}
	b := engine.Backend(*backend)
	eng, closeFn, err := open(b, cfg)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	if os.Getenv("FKC_STEADY_CLOCKS_MS") == "" {
		// Time at the clocks of a busy GPU, whether a case runs first or
		// late in this process: without it, kernels timed late in one
		// process on the H200 ran up to four times slower than in a fresh
		// one (docs/perf/bench-and-judge.md).
		eng.SteadyClocks(benchSteadyClocks)
	}
	res := bench.Run(eng, b, int(reps), *op)
	if len(res) == 0 {
		return fail(stderr, kernels.Usagef("bench: --op %q matches only chain cases, which run on a GPU (--backend vulkan)", *op))
	}
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
