package kernels

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

const maxInt = math.MaxInt

// TestPadShapeArithmetic walks the pad shape rules near the int limits: a
// sum or difference of sizes must never wrap into a plausible shape. Each
// error must be a Violation whose message contains every want fragment.
func TestPadShapeArithmetic(t *testing.T) {
	cases := []struct {
		name     string
		backward bool
		mode     Mode
		shape    []int
		pads     []Pad
		out      []int    // the derived shape, when valid
		want     []string // error fragments, when invalid
	}{
		// sizes whose sums wrap, and their neighbours
		{"807:806 wraps to 0", false, Constant, []int{3}, []Pad{{maxInt, maxInt - 1}}, nil, []string{"output size", "18446744073709551616", "exceeds the largest size"}},
		{"807:807", false, Constant, []int{3}, []Pad{{maxInt, maxInt}}, nil, []string{"18446744073709551617"}},
		{"replicate 807:806", false, Replicate, []int{3}, []Pad{{maxInt, maxInt - 1}}, nil, []string{"18446744073709551616"}},
		{"before alone overflows", false, Constant, []int{3}, []Pad{{maxInt - 2, 0}}, nil, []string{"9223372036854775808"}},
		{"after alone overflows", false, Constant, []int{1}, []Pad{{0, maxInt}}, nil, []string{"9223372036854775808"}},
		{"second axis", false, Constant, []int{2, 3}, []Pad{{0, 0}, {1 << 62, 1 << 62}}, nil, []string{"axis 1", "9223372036854775811"}},
		{"exactly MaxInt", false, Constant, []int{3}, []Pad{{maxInt - 3, 0}}, []int{maxInt}, nil},
		{"empty axis, MaxInt pad", false, Constant, []int{0}, []Pad{{maxInt, 0}}, []int{maxInt}, nil},
		{"reflect huge", false, Reflect, []int{3}, []Pad{{maxInt, maxInt}}, nil, []string{"reflect padding"}},
		// the way out named for a too-wide reflect pad must work: an empty
		// axis has no edge to replicate, so constant; size 1, replicate
		{"reflect on an empty axis", false, Reflect, []int{0}, []Pad{{1, 0}}, nil, []string{"an empty axis takes no reflect padding — --mode constant"}},
		{"its remedy", false, Constant, []int{0}, []Pad{{1, 0}}, []int{1}, nil},
		{"reflect on size 1", false, Reflect, []int{1}, []Pad{{1, 0}}, nil, []string{"an axis of size 1 takes no reflect padding — --mode replicate"}},
		{"its remedy too", false, Replicate, []int{1}, []Pad{{1, 0}}, []int{2}, nil},
		{"negative pad", false, Constant, []int{3}, []Pad{{-1, 0}}, nil, []string{"negative"}},
		{"negative input size", false, Constant, []int{-5}, []Pad{{maxInt, 0}}, nil, []string{"negative"}},
		// backward: out - before - after must not wrap back into range
		{"bw 807:806 on 3", true, Replicate, []int{3}, []Pad{{maxInt, maxInt - 1}}, nil, []string{"smaller than its padding"}},
		{"bw 807:807 on 3", true, Constant, []int{3}, []Pad{{maxInt, maxInt}}, nil, []string{"smaller than its padding"}},
		{"bw 1:807 on 3", true, Constant, []int{3}, []Pad{{1, maxInt}}, nil, []string{"smaller than its padding"}},
		{"bw 807:1 on 3", true, Constant, []int{3}, []Pad{{maxInt, 1}}, nil, []string{"smaller than its padding"}},
		{"bw exact", true, Constant, []int{maxInt}, []Pad{{maxInt - 1, 1}}, []int{0}, nil},
		{"bw exact replicate empty", true, Replicate, []int{maxInt}, []Pad{{maxInt - 1, 1}}, nil, []string{"empty axis"}},
		{"bw second axis", true, Constant, []int{4, 3}, []Pad{{1, 1}, {2, maxInt}}, nil, []string{"axis 1"}},
		{"bw fine", true, Reflect, []int{7, 5}, []Pad{{1, 2}, {1, 1}}, []int{4, 3}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []int
			var err error
			if c.backward {
				got, err = PadBackwardInShape("pad_backward", c.mode, c.shape, c.pads)
			} else {
				got, err = PadOutShape("pad", c.mode, c.shape, c.pads)
			}
			checkShapeResult(t, got, err, c.out, c.want)
		})
	}
}

// TestPadShapeElementCount: a per-axis size that fits an int may still be
// too many elements; PadShape (the full forward check) says so, as a
// Violation, for pads near the uint32 and int64 limits.
func TestPadShapeElementCount(t *testing.T) {
	x := tensor.New(tensor.F32, []int{5})
	x2 := tensor.New(tensor.F32, []int{2, 3})
	fill := make([]byte, 4)
	cases := []struct {
		name string
		x    *tensor.Tensor
		pads []Pad
		out  []int
		want []string
	}{
		{"2^32 elements", x, []Pad{{0, 1<<32 - 5}}, nil, []string{"output", "elements"}},
		{"2^32+1 elements", x, []Pad{{0, 1<<32 - 4}}, nil, []string{"output", "elements"}},
		{"u32 wrap would be 1", x, []Pad{{1 << 32, 0}}, nil, []string{"output", "elements"}},
		{"product overflows int", x2, []Pad{{0, 1 << 62}, {0, 1 << 62}}, nil, []string{"output", "elements"}},
		{"MaxInt axis", x, []Pad{{0, maxInt - 5}}, nil, []string{"output", "elements"}},
		{"wrapping sum", x, []Pad{{maxInt, maxInt - 4}}, nil, []string{"output size"}},
		{"largest legal", x, []Pad{{0, tensor.MaxElems - 5}}, []int{tensor.MaxElems}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PadShape(c.x, Constant, c.pads, fill)
			checkShapeResult(t, got, err, c.out, c.want)
		})
	}
}

func checkShapeResult(t *testing.T, got []int, err error, out []int, want []string) {
	t.Helper()
	if want == nil {
		if err != nil || !slices.Equal(got, out) {
			t.Fatalf("got %v, %v; want %v", got, err, out)
		}
		return
	}
	var v *Violation
	if !errors.As(err, &v) {
		t.Fatalf("got %v, %v; want a Violation containing %q", got, err, want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}
