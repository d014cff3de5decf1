package bench

import (
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/engine"
)

// Every chain case's calls are valid, each on the results of those before
// it (run on the CPU); an unknown mode is an error, and no chain runs on
// the CPU backend.
func TestChainCases(t *testing.T) {
	e, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range ChainCases {
		v := cc.Inputs(rand.New(rand.NewSource(1)))
		for i, step := range cc.Steps {
			res, err := e.Run(engine.CPU, step(v))
			if err != nil {
				t.Fatalf("%s: step %d: %v", cc.Name, i, err)
			}
			v = append(v, res.Out)
		}
	}
	if r := MeasureChain(e, engine.CPU, ChainCases[0], "sideways", 1); r.Error == "" {
		t.Errorf("an unknown mode: %+v", r)
	}
	if got := Run(e, engine.CPU, 1, "chain"); len(got) != 0 {
		t.Errorf("chain cases on the CPU: %d results, want none", len(got))
	}
}
