package cli

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// The README's commands are ones that work: no `go install …@latest` as a
// command (the module is not published), one spelling of the Python it
// pipes to and benchmarks with, and the NaN figures it gives for max and
// argmax are what fkc run computes.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if m := regexp.MustCompile(`(?m)^go install \S+@latest`).FindString(readme); m != "" {
		t.Errorf("README gives %q as a command; the module is not published (go install ./cmd/fkc from a clone)", m)
	}
	if !strings.Contains(readme, "\ngo install ./cmd/fkc ") {
		t.Error("README does not say how to install from a clone (go install ./cmd/fkc)")
	}
	pythons := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)(?:^|\| )(\S*python3) `).FindAllStringSubmatch(readme, -1) {
		pythons[m[1]] = true
	}
	if len(pythons) != 1 {
		t.Errorf("README runs Python as %v; want one spelling", pythons)
	}

	dir := t.TempDir()
	x := tensor.New(tensor.F32, []int{3})
	x.Set(0, 1)
	x.Set(1, math.NaN())
	x.Set(2, 3)
	in := writeNpy(t, dir, "x.npy", x)
	got := map[string]float64{}
	for _, op := range []string{"max", "argmax"} {
		out := filepath.Join(dir, op+".npy")
		if code, _, stderr := runMain("run", op, "--dim", "0", "-i", "x="+in, "-o", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", op, code, stderr)
		}
		b, _ := os.ReadFile(out)
		y, err := tensor.ReadNpyBytes(b, false)
		if err != nil {
			t.Fatal(err)
		}
		got[op] = y.At(0)
	}
	if want := "`max` of `[1, nan, 3]` is 3 and `argmax` is 2"; got["max"] != 3 || got["argmax"] != 2 || !strings.Contains(strings.Join(strings.Fields(readme), " "), want) {
		t.Errorf("fkc run max, argmax of [1 nan 3]: %v, %v; the README should say %q", got["max"], got["argmax"], want)
	}
}
