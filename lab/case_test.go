package lab

import (
	"slices"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// cpuEngine knows the CPU links only (pure Go): CPU contract kernels.
func cpuEngine(t *testing.T) *engine.Engine {
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// The derived cases come from the contract and the op's rules: every
// dtype of the bindings, every rank the input takes, the workgroup's
// width ± 1, pads up to n−1 in reflect and past n in replicate, never a
// call the oracle refuses, specials in float inputs.
func TestDeriveEdges(t *testing.T) {
	eng := cpuEngine(t)
	k, err := Find(eng, "fuel-cpu-backend/pad") // rank any, six dtypes, three modes
	if err != nil {
		t.Fatal(err)
	}
	cases := k.Derive(1, 2)
	dts := map[tensor.DType]bool{}
	ranks := map[int]bool{}
	lasts := map[int]bool{}
	widest := map[kernels.Mode]int{kernels.Constant: -1 << 30, kernels.Reflect: -1 << 30, kernels.Replicate: -1 << 30} // the widest pad past the axis, by mode
	specials := 0
	for _, c := range cases {
		o, _ := ops.Lookup(c.Call.Op)
		if _, err := o.Oracle(c.Call); err != nil {
			t.Errorf("case %d (%s) is one the oracle refuses: %v", c.N, c.Note, err)
		}
		x := c.Call.In("x")
		dts[x.DType] = true
		ranks[x.Rank()] = true
		if x.Rank() > 0 {
			n := x.Shape[x.Rank()-1]
			lasts[n] = true
			p := c.Call.Padding[x.Rank()-1]
			if n == 0 {
				continue
			}
			widest[c.Call.Mode] = max(widest[c.Call.Mode], max(p.Before, p.After)-n)
		}
		if c.Note == "specials: NaN payloads, -0, subnormals, ±inf" {
			specials++
		}
	}
	for _, dt := range k.DTypes() {
		if !dts[dt] {
			t.Errorf("no case of dtype %s", dt)
		}
	}
	for r := 1; r <= MaxRank; r++ {
		if !ranks[r] {
			t.Errorf("no case of rank %d", r)
		}
	}
	for _, n := range []int{0, 1, WG - 1, WG, WG + 1} {
		if !lasts[n] {
			t.Errorf("no case whose last axis is %d", n)
		}
	}
	if widest[kernels.Reflect] != -1 {
		t.Errorf("reflect: widest pad is n%+d, want n-1 (the contract's limit)", widest[kernels.Reflect])
	}
	if widest[kernels.Replicate] <= 0 || widest[kernels.Constant] <= 0 {
		t.Errorf("replicate/constant: widest pad n%+d / n%+d, want past n", widest[kernels.Replicate], widest[kernels.Constant])
	}
	if specials == 0 {
		t.Error("no specials case")
	}
}

// argmax refuses an empty axis; the derivation keeps none, but keeps
// empty axes that are not reduced, and indices at both bounds.
func TestDeriveFollowsTheContract(t *testing.T) {
	eng := cpuEngine(t)
	k, err := Find(eng, "fuel-reference-backend/argmax_dim")
	if err != nil {
		t.Fatal(err)
	}
	otherEmpty := false
	for _, c := range k.Derive(1, 0) {
		x := c.Call.In("x")
		if x.Shape[c.Call.Dim] == 0 {
			t.Errorf("case %d reduces an empty axis: %s", c.N, c.Note)
		}
		otherEmpty = otherEmpty || x.NumElems() == 0
	}
	if !otherEmpty {
		t.Error("no case with an empty axis that is not reduced")
	}
	k, err = Find(eng, "fuel-reference-backend/gather")
	if err != nil {
		t.Fatal(err)
	}
	atBound := false
	for _, c := range k.Derive(1, 0) {
		idx, d := c.Call.In("indices").U32(), c.Call.In("data")
		if n := len(idx); n > 1 && idx[0] == 0 && int(idx[n-1]) == d.Shape[c.Call.Dim]-1 {
			atBound = true
		}
	}
	if !atBound {
		t.Error("no gather case with indices at 0 and at the bound - 1")
	}
}

// The same seed derives the same cases (a check is reproducible).
func TestDeriveRepeatable(t *testing.T) {
	eng := cpuEngine(t)
	k, err := Find(eng, "fuel-reference-backend/sum_dim")
	if err != nil {
		t.Fatal(err)
	}
	a, b := k.Derive(7, 3), k.Derive(7, 3)
	if len(a) != len(b) {
		t.Fatalf("%d and %d cases", len(a), len(b))
	}
	for i := range a {
		if describe(a[i].Call) != describe(b[i].Call) || !slices.Equal(a[i].Call.In("x").Data, b[i].Call.In("x").Data) {
			t.Fatalf("case %d differs", i+1)
		}
	}
}
