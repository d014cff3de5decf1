package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// Every subcommand words a flag error as fkc run does: one "fkc: CMD: …"
// line on stderr, the flag written --name (-o for one letter), an unknown
// flag with the subcommand's flags, a refused value with what the flag
// wants; a missing file as "CMD: PATH: cause". Before, verify, bench and
// judge showed the flag package's text ("flag provided but not defined:
// -sed", "invalid value \"5\" for flag -budget: parse error", judge with
// its usage appended), contracts, lint and fmt "fkc contracts: unknown
// flag --jsn" and a usage line, and a missing file "fkc: stat nope.md: …".
func TestFlagErrorsOneForm(t *testing.T) {
	dir := t.TempDir()
	nope := filepath.Join(dir, "nope.md")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", "--sed", "1"}, 2, "verify: unknown flag --sed (its flags: --backend --cases --seed)"},
		{[]string{"verify", "-sed", "1"}, 2, "verify: unknown flag --sed (its flags: --backend --cases --seed)"},
		{[]string{"verify", "--cases", "abc"}, 2, `verify: --cases "abc": want a whole number from 1 to 1000`},
		{[]string{"verify", "--seed", "x"}, 2, `verify: --seed "x": want a whole number`},
		{[]string{"verify", "extra"}, 2, `verify: unexpected argument "extra" (flags are --name value)`},
		// a boolean takes no separate value: the message said "flags are
		// --name value", the form the user wrote
		{[]string{"bench", "--json", "false"}, 2, `bench: unexpected argument "false" (--json takes no value: --json=false sets it)`},
		{[]string{"bench", "--reps", "x"}, 2, `bench: --reps "x": want a whole number from 1 to 1000`},
		{[]string{"bench", "--op"}, 2, "bench: --op needs a value (PREFIX)"},
		{[]string{"bench", "--op", "chain"}, 2, `bench: --op "chain" matches only chain cases, which run on a GPU (--backend vulkan)`},
		{[]string{"judge", "--budget", "5"}, 2, `judge: --budget "5": want a duration such as 60s or 2m`},
		{[]string{"judge", "--json=maybe"}, 2, `judge: --json "maybe": want true or false`},
		{[]string{"judge", "--kernel", "pad"}, 2, `judge: --kernel "pad": want PROVIDER/NAME`},
		{[]string{"judge", "--dtype", "F99"}, 2, `judge: --dtype "F99": want one of BOOL,`},
		{[]string{"judge", "--sed"}, 2, "judge: unknown flag --sed (its flags: --backend --budget --clock --dtype --json --kernel -o)"},
		{[]string{"judge", "-o"}, 2, "judge: -o needs a value"},
		{[]string{"contracts", "--jsn"}, 2, "contracts: unknown flag --jsn (its flags: --json --judge)"},
		{[]string{"contracts", "--judge="}, 2, `contracts: --judge "": want a report file (fkc judge -o report.json makes one)`},
		{[]string{"lint", "--strict"}, 2, "lint: unknown flag --strict (it takes no flags)"},
		{[]string{"fmt", "--x", "f.md"}, 2, "fmt: unknown flag -x (its flags: -l -w)"},
		{[]string{"fmt"}, 2, "fmt: needs a FILE or DIR (usage: fkc fmt [-w] [-l] FILE|DIR...)"},
		{[]string{"devices", "--all"}, 2, "devices: unknown flag --all (it takes no flags)"},
		{[]string{"frob"}, 2, `unknown command "frob" (the commands: contracts lint fmt devices run verify bench lab judge version;`},
		{[]string{"lint", nope}, 1, "lint: " + nope + ": no such file or directory"},
		{[]string{"contracts", nope}, 1, "contracts: " + nope + ": no such file or directory"},
		{[]string{"fmt", "-w", nope}, 1, "fmt: " + nope + ": no such file or directory"},
		{[]string{"run", "sum", "-i", "x=" + nope, "-o", filepath.Join(dir, "o.npy")}, 1, "input x: " + nope + ": no such file or directory"},
	} {
		code, out, errOut := runMain(c.args...)
		if code != c.code || out != "" || !strings.HasPrefix(errOut, "fkc: "+c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("fkc %s: exit %d, stdout %q, stderr %q; want exit %d and the one line %q", strings.Join(c.args, " "), code, out, errOut, c.code, "fkc: "+c.want)
		}
	}
}

// -h or --help anywhere in a subcommand's arguments prints its help to
// stdout, exits 0 and does nothing else; a usage error goes to stderr
// with exit 2. Before, 'fkc devices -h' was a usage error, 'fkc fmt -h
// FILE' formatted FILE, 'fkc fmt -h' wrote its usage to stderr, 'fkc run'
// with no OP wrote the help to stdout (exit 2), and 'fkc judge -h' printed
// one usage line without its flags' meanings and defaults.
func TestHelpWins(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(seedsDir, "fuel-cpu-backend.fkc.md")) // a flattened seed: fmt -w would rewrite it
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(doc, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"devices", "-h"}, {"devices", "--help"}, {"fmt", "-h"}, {"fmt", "-w", "-h", doc}, {"fmt", "-w", doc, "--help"},
		{"lint", doc, "-h"}, {"contracts", "--json", "--help"}, {"verify", "--sed", "1", "-h"}, {"bench", "extra", "-h"},
		{"judge", "-h"}, {"judge", "--budget", "5", "--help"}, {"run", "-h"},
	} {
		code, out, errOut := runMain(args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: fkc "+args[0]) {
			t.Errorf("fkc %s: exit %d, stdout %q, stderr %q; want its help on stdout, exit 0", strings.Join(args, " "), code, out, errOut)
		}
	}
	if after, _ := os.ReadFile(doc); string(after) != string(src) {
		t.Error("fmt -w -h rewrote the file")
	}
	_, out, _ := runMain("judge", "-h")
	for _, want := range []string{"--budget duration\n    \ttime for the whole sweep (default 1m0s)", "--clock string\n", `(default "auto")`, "--kernel PROVIDER/NAME\n", "-o file\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("fkc judge -h lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"run"}, {"fmt"}, {}} {
		code, out, errOut := runMain(args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "fkc: ") && !strings.HasPrefix(errOut, "usage: fkc") {
			t.Errorf("fkc %s: exit %d, stdout %q, stderr %q; want a usage error on stderr, exit 2", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// fkc's usage lists each subcommand by the usage line its -h prints, and
// each line names exactly the flags the subcommand takes. The usage said
// 'fkc fmt [-w] FILE...' (fmt also takes -l, and directories) and 'fkc
// lint FILE...' (lint takes no operand too: the embedded contracts).
// fkc run --help documents the aliases the run line accepts.
func TestUsageMatchesCode(t *testing.T) {
	_, top, _ := runMain("help")
	for _, want := range []string{"  fkc fmt [-w] [-l] FILE|DIR...\n", "  fkc lint [FILE|DIR ...]\n", "gpu is another name for vulkan"} {
		if !strings.Contains(top, want) {
			t.Errorf("fkc help lacks %q:\n%s", want, top)
		}
	}
	for _, c := range commands {
		_, help, _ := runMain(append(strings.Fields(c.name), "-h")...)
		first, _, _ := strings.Cut(help, "\n")
		if !strings.Contains(top, "  fkc "+strings.TrimPrefix(first, "usage: fkc ")+"\n") {
			t.Errorf("fkc %s -h says %q, which fkc help does not list", c.name, first)
		}
		if c.name == "run" {
			continue // its flags are the op table's (TestRunHelpAliases)
		}
		// the flags the line names, and those -h lists
		named := map[string]bool{}
		for _, w := range strings.FieldsFunc(first, func(r rune) bool { return strings.ContainsRune(" []", r) }) {
			if strings.HasPrefix(w, "-") {
				named[w] = true
			}
		}
		listed := map[string]bool{}
		for _, l := range strings.Split(help, "\n") {
			if strings.HasPrefix(l, "  -") {
				listed[strings.Fields(l)[0]] = true
			}
		}
		for f := range named {
			if !listed[f] {
				t.Errorf("fkc %s: the usage line names %s, which it does not take", c.name, f)
			}
		}
		for f := range listed {
			if !named[f] {
				t.Errorf("fkc %s: takes %s, which its usage line leaves out", c.name, f)
			}
		}
	}
	// what the lines promise works: lint with no operand, fmt -l on a directory
	if code, _, errOut := runMain("lint"); code != 1 || !strings.Contains(errOut, "fkc lint: 7 documents") {
		t.Errorf("fkc lint (no operands): exit %d, %q", code, errOut)
	}
	if code, out, _ := runMain("fmt", "-l", seedsDir); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("fkc fmt -l DIR: exit %d, %q", code, out)
	}
}

// --backend gpu (vulkan) and run's --input/--out work and are documented.
func TestRunHelpAliases(t *testing.T) {
	_, help, _ := runMain("run", "--help")
	if !strings.Contains(help, "--backend gpu is vulkan; -i and -o may be written --input and --out.") {
		t.Errorf("fkc run --help does not document the aliases:\n%s", help)
	}
	dir := t.TempDir()
	x := writeNpy(t, dir, "x.npy", tensor.New(tensor.F32, []int{3}))
	out := filepath.Join(dir, "o.npy")
	if code, _, errOut := runMain("run", "sum", "--input", "x="+x, "--out", out); code != 0 {
		t.Errorf("--input/--out: exit %d, %q", code, errOut)
	}
	// gpuEntries opens no device: the backend is taken as vulkan and fails there
	if code, _, errOut := runMain("run", "sum", "--backend", "gpu", "-i", "x="+x, "-o", out); code != 1 || !strings.Contains(errOut, "backend vulkan: no device in this test") {
		t.Errorf("--backend gpu: exit %d, %q", code, errOut)
	}
}
