//go:build !js

package lab

import (
	"strings"
	"testing"
)

// Every puzzle's reference answer passes every case of its kernels, and
// its stub fails (on lavapipe, through kernels/gpu as fkc lab check runs).
func TestPuzzles(t *testing.T) {
	d := device(t)
	eng := testEngine(t)
	if len(Puzzles) < 6 {
		t.Fatalf("%d puzzles, want at least 6", len(Puzzles))
	}
	for _, p := range Puzzles {
		t.Run(p.Name, func(t *testing.T) {
			stubFailed := false
			for _, id := range p.Kernels {
				k, err := Find(eng, id)
				if err != nil {
					t.Fatal(err)
				}
				opt := CheckOptions{Seed: 1, Random: 5, DType: p.DType}
				rep := Check(d, k, p.Answer(), opt)
				if rep.Failed != nil {
					var b strings.Builder
					rep.Failed.Print(&b)
					t.Fatalf("the answer fails %s after %d passed:\n%s", id, rep.Passed, b.String())
				}
				if rep.Passed < 10 {
					t.Fatalf("%s: only %d cases passed", id, rep.Passed)
				}
				if s := Check(d, k, p.Stub(), opt); s.Failed != nil {
					if s.Failed.Compile != nil {
						t.Fatalf("the stub does not compile: %v", s.Failed.Why)
					}
					stubFailed = true
				}
				t.Logf("%s: answer passed %d cases", id, rep.Passed)
			}
			if !stubFailed {
				t.Fatal("the stub passes: the puzzle grades nothing")
			}
		})
	}
}
