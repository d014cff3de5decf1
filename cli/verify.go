package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
)

func verify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "cpu", "cpu or vulkan")
	seed := fs.Int64("seed", 1, "random seed")
	cases := fs.Int("cases", 20, "random cases per kernel × dtype × variant")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	eng, closeFn, err := engine(*backend)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	rep, err := eng.Verify(*backend, *seed, *cases, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", rep.Passed, rep.Failed, rep.Skipped)
	if rep.Failed > 0 {
		return 1
	}
	return 0
}

func bench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "cpu", "cpu or vulkan")
	asJSON := fs.Bool("json", false, "JSON output")
	reps := fs.Int("reps", 5, "timed repetitions per case (median reported)")
	op := fs.String("op", "", "only cases whose name starts with this")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	eng, closeFn, err := engine(*backend)
	if err != nil {
		return fail(stderr, err)
	}
	defer closeFn()
	res := eng.Bench(*backend, *reps, *op)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
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
