//go:build !js

package gpu

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/internal/padref"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// unitRoundoff of the accumulation dtype (half an ulp at 1).
func unitRoundoff(dt tensor.DType) float64 {
	switch dt {
	case tensor.F16:
		return 0x1p-11
	case tensor.BF16:
		return 0x1p-8
	case tensor.F64:
		return 0x1p-53
	}
	return 0x1p-24
}

// refPadBackwardAcc folds grad_out into grad_in in f64, and returns per slot
// the exact sum, the number of contributions and the sum of magnitudes (for
// the error bound of an arbitrary-order accumulation).
func refPadBackwardAcc(g *tensor.Tensor, mode kernels.Mode, pads []kernels.Pad) (inShape []int, sum []float64, cnt []int, mag []float64) {
	inShape, err := kernels.PadBackwardInShape("pad_backward", mode, g.Shape, pads)
	if err != nil {
		panic(err)
	}
	n := tensor.NumElems(inShape)
	sum, cnt, mag = make([]float64, n), make([]int, n), make([]float64, n)
	ist := tensor.Strides(inShape)
	for o := range g.NumElems() {
		rem, slot := o, 0
		for a := len(g.Shape) - 1; a >= 0; a-- {
			c := rem % g.Shape[a]
			rem /= g.Shape[a]
			slot += padref.Source(mode, c-pads[a].Before, inShape[a]) * ist[a]
		}
		v := g.At(o)
		sum[slot] += v
		mag[slot] += math.Abs(v)
		cnt[slot]++
	}
	return
}

func TestPadBackwardAccumulate(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(4))
	cases := padCases()
	cases = append(cases, padCase{[]int{2}, pp(1, 1)}, padCase{[]int{3, 1}, pp(2, 2, 0, 0)})
	heavy := padCase{[]int{2}, pp(5000, 5000)} // replicate: ~5000 CAS writers per slot
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
		for _, mode := range []kernels.Mode{kernels.Reflect, kernels.Replicate} {
			cs := cases
			if mode == kernels.Replicate {
				cs = append(cs, heavy)
			}
			for _, c := range cs {
				if len(c.shape) == 0 || (mode == kernels.Reflect && !reflectOK(c)) {
					continue
				}
				outShape, _ := kernels.PadOutShape("pad", mode, c.shape, c.pads)
				g := randFloat(r, dt, outShape, 1)
				name := fmt.Sprintf("%s/%v/%v", PadBackwardKernel(dt, mode), c.shape, c.pads)
				got, err := d.PadBackward(g, mode, c.pads)
				if err != nil {
					if strings.Contains(err.Error(), "could not be stored") {
						t.Logf("%s: reported, not dropped: %v", name, err)
						continue
					}
					t.Errorf("%s: %v", name, err)
					continue
				}
				inShape, sum, cnt, mag := refPadBackwardAcc(g, mode, c.pads)
				if !slices.Equal(got.Shape, inShape) || got.DType != dt {
					t.Errorf("%s: got %s, want %v%v", name, got, dt, inShape)
					continue
				}
				u := unitRoundoff(dt)
				bad := 0
				for i := range sum {
					// each of cnt adds rounds once in the dtype: |err| <= cnt·u·Σ|g|
					tol := float64(cnt[i]+1)*u*mag[i] + 0x1p-24*float64(cnt[i])
					if diff := math.Abs(got.At(i) - sum[i]); !(diff <= tol) {
						if bad < 5 {
							t.Errorf("%s: slot %d: got %g, want %g ± %g (%d contributions)", name, i, got.At(i), sum[i], tol, cnt[i])
						}
						bad++
					}
				}
			}
		}
	}
}
