package cpu

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/fkc-playground/fkc/internal/padref"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// The pad dtypes of the CPU contracts (the seed's pad and the own modes').
var cpuPadDTypes = []tensor.DType{tensor.U8, tensor.U32, tensor.BF16, tensor.F16, tensor.F32, tensor.F64}

// modeTakes reports whether a mode takes the padding on the shape (its
// width rule: reflect's n−1; an empty axis padded reads nothing).
func modeTakes(m kernels.Mode, shape []int, p []kernels.Pad) bool {
	_, err := kernels.PadOutShape("pad", m, shape, p)
	return err == nil
}

// edgeWidths are the widths of SPEC's edge cases on an axis of n: 0, n−1,
// n, 2n+1, and unequal pairs on both sides of a period.
func edgeWidths(n int) []kernels.Pad {
	return pads(0, 0, n-1, n-1, n, n, 2*n+1, 2*n+1, 1, 2*n+3, 2*n+3, 0, 0, n+1, 3*n+2, n-1)
}

// arangeIn is 0, 1, 2, … in dt (every value exact in every pad dtype).
func arangeIn(dt tensor.DType, shape []int) *tensor.Tensor {
	x := tensor.New(dt, shape)
	for i := range x.NumElems() {
		x.Set(i, float64(i%200))
	}
	return x
}

func checkAgainstRef(t *testing.T, name string, m kernels.Mode, x *tensor.Tensor, p []kernels.Pad) {
	t.Helper()
	vals := make([]float64, x.NumElems())
	for i := range vals {
		vals[i] = x.At(i)
	}
	want, shape := padref.Pad(m, vals, x.Shape, p, 0)
	for _, impl := range padImpls {
		check := guard(t, x)
		got, err := impl.fn(x, m, p, make([]byte, x.DType.Size()))
		check()
		if err != nil {
			t.Fatalf("%s %s: %v", name, impl.name, err)
		}
		if !slices.Equal(got.Shape, shape) {
			t.Fatalf("%s %s: shape %v, want %v", name, impl.name, got.Shape, shape)
		}
		for i, w := range want {
			if got.At(i) != w {
				t.Fatalf("%s %s: out[%d] = %v, the formula says %v", name, impl.name, i, got.At(i), w)
			}
		}
	}
}

// Every mode against the formulas written out apart from the mode table
// (internal/padref): every width class (0, n−1, n, 2n+1, unequal), n = 1
// (a length-1 axis), 1-D to rank 8, every CPU pad dtype.
func TestPadModesAgainstFormula(t *testing.T) {
	for _, pm := range kernels.PadModes {
		for _, dt := range cpuPadDTypes {
			for _, n := range []int{1, 2, 3, 5} {
				for _, w := range edgeWidths(n) {
					p := []kernels.Pad{w}
					if w.Before < 0 || !modeTakes(pm.Mode, []int{n}, p) {
						continue
					}
					checkAgainstRef(t, fmt.Sprintf("%s %s n=%d pad %v", pm.Name, dt, n, w), pm.Mode, arangeIn(dt, []int{n}), p)
					// the same widths on the inner and the outer axis of 2-D
					p2 := append([]kernels.Pad{w}, pads(1, 2)...)
					if modeTakes(pm.Mode, []int{n, 3}, p2) {
						checkAgainstRef(t, fmt.Sprintf("%s %s [%d,3] pad %v", pm.Name, dt, n, p2), pm.Mode, arangeIn(dt, []int{n, 3}), p2)
					}
					p2 = append(pads(2, 1), w)
					if modeTakes(pm.Mode, []int{3, n}, p2) {
						checkAgainstRef(t, fmt.Sprintf("%s %s [3,%d] pad %v", pm.Name, dt, n, p2), pm.Mode, arangeIn(dt, []int{3, n}), p2)
					}
				}
			}
		}
		// rank 8, the GPU kernels' limit (the CPU takes any): a mix of
		// length-1 and length-2 axes, each padded
		shape := []int{2, 1, 2, 2, 1, 2, 1, 3}
		p := make([]kernels.Pad, len(shape))
		rng := rand.New(rand.NewSource(int64(pm.Mode)))
		for i, n := range shape {
			lim := 2*n + 1
			if pm.MaxPad != nil {
				lim = pm.MaxPad(n)
			}
			p[i] = kernels.Pad{Before: rng.Intn(lim + 1), After: rng.Intn(lim + 1)}
		}
		checkAgainstRef(t, fmt.Sprintf("%s rank 8 pad %v", pm.Name, p), pm.Mode, arangeIn(tensor.F32, shape), p)
	}
}

// A padded empty axis is an error in every mode that reads the input there
// (there is no element to repeat); unpadded, the empty axis is fine.
func TestPadModesEmptyAxis(t *testing.T) {
	for _, pm := range kernels.PadModes {
		if pm.Mode == kernels.Constant || pm.MaxPad != nil {
			continue // constant fills it; reflect refuses any empty axis (TestPadReflectEmptyAxis)
		}
		x := mk(tensor.F32, []int{2, 0})
		_, err := Pad(x, pm.Mode, pads(0, 0, 1, 0), nil)
		wantErr(t, err, pm.Name+" padding (1, 0) on empty axis 1")
		_, err = PadBackward(tensor.New(tensor.F32, []int{2, 2}), pm.Mode, pads(0, 0, 1, 1))
		wantErr(t, err, "empty axis 1")
		got, err := Pad(x, pm.Mode, pads(1, 2, 0, 0), nil)
		wantVals(t, got, err, []int{5, 0})
	}
}

// foldRef is pad backward by the formulas: grad_out in flat order into an
// f64 accumulator per slot (the slot by padref.Source), narrowed on store.
func foldRef(g *tensor.Tensor, m kernels.Mode, in []int, p []kernels.Pad) *tensor.Tensor {
	acc := make([]float64, tensor.NumElems(in))
	for o := range g.NumElems() {
		slot, stride, rem := 0, 1, o
		for a := len(in) - 1; a >= 0; a-- {
			c := rem % g.Shape[a]
			rem /= g.Shape[a]
			j := padref.Source(m, c-p[a].Before, in[a])
			if j < 0 {
				slot = -1
				break
			}
			slot += j * stride
			stride *= in[a]
		}
		if slot >= 0 {
			acc[slot] += g.At(o)
		}
	}
	return narrowAcc(g.DType, in, acc)
}

// Pad backward of every mode against the formula fold, bitwise, over the
// same width classes, float dtypes with values that make the f64
// accumulator and the narrowing matter.
func TestPadBackwardModesAgainstFormula(t *testing.T) { atThreads(t, testPadBackwardModes) }

func testPadBackwardModes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, pm := range kernels.PadModes {
		for _, dt := range floatDTypes {
			for _, n := range []int{1, 2, 3, 5} {
				for _, w := range edgeWidths(n) {
					for _, c := range []struct {
						in []int
						p  []kernels.Pad
					}{{[]int{n}, []kernels.Pad{w}}, {[]int{n, 4}, append([]kernels.Pad{w}, pads(2, 3)...)}, {[]int{2, n}, append(pads(1, 0), w)}} {
						out, err := kernels.PadOutShape("pad", pm.Mode, c.in, c.p)
						if err != nil {
							continue
						}
						g := randTensor(rng, dt, out)
						for i := range min(3, g.NumElems()) { // sums that need the f64 accumulator
							g.Set(rng.Intn(g.NumElems()), []float64{1e-30, -3e38, 65504, math.Copysign(0, -1)}[i])
						}
						want := foldRef(g, pm.Mode, c.in, c.p)
						for _, impl := range padBackwardImpls {
							got, err := impl.fn(g, pm.Mode, c.p)
							name := fmt.Sprintf("%s %s %s in %v pad %v", impl.name, pm.Name, dt, c.in, c.p)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							if ok, i := sameFloats(got, want); !ok {
								t.Fatalf("%s: grad_in[%d] = %v, the formula fold %v", name, i, got.At(i), want.At(i))
							}
						}
					}
				}
			}
		}
	}
}

// NumPy's (and PyTorch's) answers for narrow pads (every width <= n),
// written by scripts/numpy_pad_cases.py: an independent check of the own
// modes. NumPy 1.24 pads wider, unequal widths wrongly (numpy#22464); the
// formula tests above cover those.
func TestPadModesMatchNumPy(t *testing.T) {
	b, err := os.ReadFile("testdata/numpy_pad.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Mode, NumPy string
			Shape       []int
			OutShape    []int `json:"out_shape"`
			Pads        [][2]int
			Want, Torch []float64
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range f.Cases {
		m, err := kernels.ParseMode(c.Mode)
		if err != nil {
			t.Fatal(err)
		}
		if alias, err := kernels.ParseMode(c.NumPy); err != nil || alias != m {
			t.Errorf("--mode %s is %v (%v), want %s", c.NumPy, alias, err, c.Mode)
		}
		p := make([]kernels.Pad, len(c.Pads))
		for i, w := range c.Pads {
			p[i] = kernels.Pad{Before: w[0], After: w[1]}
		}
		x := arangeIn(tensor.F64, c.Shape)
		for _, want := range [][]float64{c.Want, c.Torch} {
			if want == nil {
				continue
			}
			for _, impl := range padImpls {
				got, err := impl.fn(x, m, p, nil)
				name := fmt.Sprintf("%s %s %v pad %v", impl.name, c.Mode, c.Shape, c.Pads)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !slices.Equal(got.Shape, c.OutShape) || !slices.Equal(got.F64(), want) {
					t.Fatalf("%s: %v %v, NumPy/PyTorch %v %v", name, got.Shape, got.F64(), c.OutShape, want)
				}
			}
			seen[c.Mode]++
		}
	}
	for _, m := range kernels.OwnPadModes {
		if seen[m.String()] == 0 {
			t.Errorf("testdata/numpy_pad.json has no %s case (scripts/numpy_pad_cases.py writes them)", m)
		}
	}
}
