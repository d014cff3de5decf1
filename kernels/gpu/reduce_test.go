//go:build !js

package gpu

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"slices"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

var gpuFloats = []tensor.DType{tensor.F32, tensor.F16, tensor.BF16}

// floatTypes are the float dtypes the reductions and adds serve on this
// adapter: gpuFloats, and F64 where it has shader-f64.
func floatTypes(d *Device) []tensor.DType {
	if d.Info().ShaderF64 {
		return append(gpuFloats[:len(gpuFloats):len(gpuFloats)], tensor.F64)
	}
	return gpuFloats
}

// specialFloat fills x with values from a small set (ties, ±0, ±inf, NaN)
// mixed with random ones, so extremum tie-breaking and NaN skipping matter.
func specialFloat(r *rand.Rand, dt tensor.DType, shape []int, nanAll bool) *tensor.Tensor {
	set := []float64{-2, -1, math.Copysign(0, -1), 0, 1, 2, math.Inf(1), math.Inf(-1), math.NaN(), 0.5}
	x := tensor.New(dt, shape)
	for i := range x.NumElems() {
		switch {
		case nanAll:
			x.Set(i, math.NaN())
		case r.Intn(3) == 0:
			x.Set(i, set[r.Intn(len(set))])
		default:
			x.Set(i, float64(r.Intn(7)-3)) // many ties
		}
	}
	return x
}

type redFns struct {
	name string
	gpu  func(*Device, *tensor.Tensor) (*tensor.Tensor, error)
	cpu  func(*tensor.Tensor) (*tensor.Tensor, error)
}

func TestReduceExtremaBitwise(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(5))
	allShapes := [][]int{{}, {0}, {1}, {31}, {32}, {33}, {255}, {256}, {257}, {1023}, {1024}, {1025}, {3, 1500}, {1100, 1000}, {2, 1, 3, 2, 1, 2, 3, 2}}
	fns := []redFns{
		{"max_all", (*Device).MaxAll, cpu.MaxAll},
		{"min_all", (*Device).MinAll, cpu.MinAll},
	}
	for _, dt := range floatTypes(d) {
		for _, sh := range allShapes {
			for _, nanAll := range []bool{false, true} {
				x := specialFloat(r, dt, sh, nanAll)
				for _, f := range fns {
					name := fmt.Sprintf("%s/%v%v/nanAll=%v", f.name, dt, sh, nanAll)
					want, err := f.cpu(x)
					if err != nil {
						t.Fatalf("%s: cpu: %v", name, err)
					}
					got, err := f.gpu(d, x)
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					sameBits(t, name, got, want)
				}
			}
		}
	}
}

type dimFns struct {
	name string
	gpu  func(*Device, *tensor.Tensor, int) (*tensor.Tensor, error)
	cpu  func(*tensor.Tensor, int) (*tensor.Tensor, error)
}

func TestReduceDimBitwise(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(6))
	// {40, 64}, {33, 1000}, {3, 40, 200}, {33, 8200}: many contiguous
	// segments of whole 16-byte units, the one-pass `rows` kernel (RE 1..16;
	// an odd segment count leaves a half output's last word one lane).
	shapes := [][]int{{1}, {7}, {33}, {5, 40}, {3, 1030, 2}, {2, 1, 3, 2, 1, 2, 3, 2}, {4, 0, 3}, {2, 2500},
		{40, 64}, {33, 1000}, {3, 40, 200}, {33, 8200}}
	fns := []dimFns{
		{"max_dim", (*Device).MaxDim, cpu.MaxDim},
		{"min_dim", (*Device).MinDim, cpu.MinDim},
		{"argmax_dim", (*Device).ArgMaxDim, cpu.ArgMaxDim},
		{"argmin_dim", (*Device).ArgMinDim, cpu.ArgMinDim},
	}
	for _, dt := range floatTypes(d) {
		for _, sh := range shapes {
			x := specialFloat(r, dt, sh, false)
			for dim := range sh {
				for _, f := range fns {
					name := fmt.Sprintf("%s/%v%v/dim=%d", f.name, dt, sh, dim)
					want, werr := f.cpu(x, dim)
					got, err := f.gpu(d, x, dim)
					if werr != nil || err != nil {
						if werr == nil || err == nil || werr.Error() != err.Error() {
							t.Errorf("%s: gpu error %v, cpu error %v", name, err, werr)
						}
						continue
					}
					sameBits(t, name, got, want)
				}
			}
		}
	}
}

func TestReduceMaxToBitwise(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(7))
	cases := []struct{ shape, target []int }{
		{[]int{}, []int{}},
		{[]int{5}, []int{1}},
		{[]int{4, 300, 3}, []int{300, 1}},
		{[]int{4, 300, 3}, []int{4, 1, 3}},
		{[]int{4, 300, 3}, []int{}},
		{[]int{4, 300, 3}, []int{4, 300, 3}},
		{[]int{2, 3, 1, 2, 2, 1, 2, 3}, []int{3, 1, 1, 2, 1, 1, 3}},
		{[]int{1030, 2}, []int{1, 2}},
	}
	for _, dt := range floatTypes(d) {
		for _, c := range cases {
			x := specialFloat(r, dt, c.shape, false)
			name := fmt.Sprintf("reduce_max_to/%v%v->%v", dt, c.shape, c.target)
			want, err := cpu.ReduceMaxTo(x, c.target)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.ReduceMaxTo(x, c.target)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			sameBits(t, name, got, want)
			wantMin, err := cpu.ReduceMinTo(x, c.target)
			if err != nil {
				t.Fatal(err)
			}
			gotMin, err := d.ReduceMinTo(x, c.target)
			if err != nil {
				t.Errorf("%s (min): %v", name, err)
				continue
			}
			sameBits(t, name+" (reduce_min_to)", gotMin, wantMin)

			// backward: finite upstream; ties share
			up := randFloat(r, dt, c.target, 4)
			wantB, err := cpu.ReduceMaxToBackward(x, up, c.target)
			if err != nil {
				t.Fatal(err)
			}
			gotB, err := d.ReduceMaxToBackward(x, up, c.target)
			if err != nil {
				t.Errorf("%s backward: %v", name, err)
				continue
			}
			sameBits(t, name+" backward", gotB, wantB)
		}
	}
}

// sumDepth bounds the longest chain of roundings any element passes through
// in the GPU sum of K elements: K-1 for the sequential short path, 12 per
// tree level (4 pairwise per thread + 8 in the 256-wide shared tree)
// otherwise; a bulk first level (contiguous K >= bulkMin) costs
// 12 + log2(bulkRounds) for bulkRounds·chunk elements, then tree levels over
// the partials. The bound is the larger of the two paths where both may run.
func sumDepth(K int) int {
	if K <= seqMax {
		return max(K-1, 0)
	}
	levels := func(k, ch int) int {
		n := 0
		for k > 1 || n == 0 {
			n++
			k = (k + ch - 1) / ch
		}
		return n
	}
	d := 12 * levels(K, chunk)
	if K >= bulkMin {
		b := 12 + bits.Len(uint(bulkRounds)) - 1
		if c := (K + bulkRounds*chunk - 1) / (bulkRounds * chunk); c > 1 {
			b += 12 * levels(c, chunk)
		}
		d = max(d, b)
	}
	return d
}

// TestSumDepthContract pins sumDepth to the contract's formulas: D = K-1 for
// K <= 32, else 12*ceil(log_4096 K), or for a bulk first level (contiguous,
// K >= 2^23) 15 + 12*ceil(log_4096 ceil(K/32768)), all <= ceil(log2 K)+11;
// sumDepth takes the larger where the bulk level may run.
func TestSumDepthContract(t *testing.T) {
	if bulkRounds != 8 || bulkMin != 1<<23 {
		t.Fatalf("bulkRounds %d, bulkMin %d: the contract says 8 and 2^23", bulkRounds, bulkMin)
	}
	ceilLog := func(k, b int) int { // ceil(log_{2^b} k), k >= 1
		return (bits.Len(uint(k-1)) + b - 1) / b
	}
	for _, K := range []int{33, 4096, 4097, 1 << 20, 1<<23 - 1, 1 << 23, 1<<24 + 1, 1 << 26, 1<<27 + 5, 1 << 31} {
		want := 12 * ceilLog(K, 12)
		if K >= 1<<23 {
			want = max(want, 15+12*ceilLog((K+32767)/32768, 12))
		}
		if got := sumDepth(K); got != want || got > bits.Len(uint(K-1))+11 {
			t.Errorf("sumDepth(%d) = %d, contract %d (ceil(log2 K)+11 = %d)", K, got, want, bits.Len(uint(K-1))+11)
		}
	}
}

// TestReduceBulkSums runs the bulk first level on short inputs (bulkMin
// lowered): sums and means within the bound, a ragged last unit and chunk
// (one segment), several segments of whole units ({3, 32776}; {3, 33333}
// and {2, 70001} start rows mid-unit and take the tree levels instead),
// and the same bits on a second call.
func TestReduceBulkSums(t *testing.T) {
	d := device(t)
	defer func(m int) { bulkMin = m }(bulkMin)
	bulkMin = seqMax + 1
	r := rand.New(rand.NewSource(21))
	for _, dt := range gpuFloats {
		for _, sh := range [][]int{{33}, {4103}, {32768}, {40000}, {3, 32776}, {3, 33333}, {2, 70001}} {
			x := randFloat(r, dt, sh, 1)
			dim := len(sh) - 1
			osh := kernels.DropDim(sh, dim)
			K := sh[dim]
			sum, mag := exactSums(x, sh, func(c []int) int {
				if len(c) == 2 {
					return c[0]
				}
				return 0
			}, tensor.NumElems(osh))
			for _, mean := range []bool{false, true} {
				f, name := (*Device).SumDim, "bulk sum_dim"
				if mean {
					f, name = (*Device).MeanDim, "bulk mean_dim"
				}
				name = fmt.Sprintf("%s/%v%v", name, dt, sh)
				got, err := f(d, x, dim)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkSums(t, name, got, sum, mag, K, mean)
				again, err := f(d, x, dim)
				if err != nil || !bytes.Equal(got.Data, again.Data) {
					t.Errorf("%s: second call differs (err %v)", name, err)
				}
			}
		}
	}
}

func gamma(k int) float64 { return gammaU(k, 0x1p-24) }

func gammaU(k int, u float64) float64 {
	return float64(k) * u / (1 - float64(k)*u)
}

// checkSums compares GPU sums/means with a compensated f64 reference:
// |got - exact| <= γ_D·Σ|x| (f32 tree; an f64 tree for F64) + u_out·|exact|
// (one narrowing) [÷ K for a mean, plus its divide].
func checkSums(t *testing.T, name string, got *tensor.Tensor, exact, mag []float64, K int, mean bool) {
	t.Helper()
	uo, ua := unitRoundoff(got.DType), 0x1p-24
	if got.DType == tensor.F64 {
		uo, ua = 0x1p-52, 0x1p-53 // no narrowing; the reference's own 2u|S|
	}
	D := sumDepth(K)
	bad := 0
	for i := range exact {
		e, m := exact[i], mag[i]
		tol := gammaU(D, ua) * m
		if mean {
			if K == 0 {
				if !math.IsNaN(got.At(i)) {
					t.Errorf("%s[%d]: mean of nothing = %g, want NaN", name, i, got.At(i))
				}
				continue
			}
			e, tol = e/float64(K), tol/float64(K)+ua*math.Abs(e/float64(K))
		}
		tol = tol*(1+uo) + uo*math.Abs(e) + ua*ua
		if diff := math.Abs(got.At(i) - e); !(diff <= tol) {
			if bad < 5 {
				t.Errorf("%s[%d]: got %g, exact %g, |diff| %g > bound %g (D=%d)", name, i, got.At(i), e, diff, tol, D)
			}
			bad++
		}
	}
}

func exactSums(x *tensor.Tensor, shape []int, cell func(coord []int) int, ncell int) (sum, mag []float64) {
	sum, mag = make([]float64, ncell), make([]float64, ncell)
	comp := make([]float64, ncell)
	defer func() {
		for c := range sum {
			sum[c] += comp[c]
		}
	}()
	coord := make([]int, len(shape))
	for i := range x.NumElems() {
		rem := i
		for a := len(shape) - 1; a >= 0; a-- {
			coord[a] = rem % shape[a]
			rem /= shape[a]
		}
		c := cell(coord)
		v := x.At(i)
		// Neumaier's compensated sum: near exact for F64 data too
		s := sum[c] + v
		if math.Abs(sum[c]) >= math.Abs(v) {
			comp[c] += (sum[c] - s) + v
		} else {
			comp[c] += (v - s) + sum[c]
		}
		sum[c] = s
		mag[c] += math.Abs(v)
	}
	return
}

func TestReduceSumsWithinBound(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(8))
	for _, dt := range floatTypes(d) {
		for _, sh := range [][]int{{}, {0}, {1}, {31}, {32}, {33}, {1023}, {1024}, {1025}, {4103}, {1 << 20}, {3, 1500}, {2, 1, 3, 2, 1, 2, 3, 2},
			{40, 64}, {33, 1000}, {33, 8200}} { // the last three: the `rows` kernel along dim 1
			x := randFloat(r, dt, sh, 1)
			n := x.NumElems()
			sum, mag := exactSums(x, sh, func([]int) int { return 0 }, 1)
			for _, mean := range []bool{false, true} {
				f, name := (*Device).SumAll, "sum_all"
				if mean {
					f, name = (*Device).MeanAll, "mean_all"
				}
				name = fmt.Sprintf("%s/%v%v", name, dt, sh)
				got, err := f(d, x)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkSums(t, name, got, sum, mag, n, mean)
			}
			for dim := range sh {
				osh := kernels.DropDim(sh, dim)
				ost := tensor.Strides(osh)
				cell := func(c []int) int {
					s := 0
					for a, v := range c {
						if a < dim {
							s += v * ost[a]
						} else if a > dim {
							s += v * ost[a-1]
						}
					}
					return s
				}
				sum, mag := exactSums(x, sh, cell, tensor.NumElems(osh))
				for _, mean := range []bool{false, true} {
					f, name := (*Device).SumDim, "sum_dim"
					if mean {
						f, name = (*Device).MeanDim, "mean_dim"
					}
					name = fmt.Sprintf("%s/%v%v/dim=%d", name, dt, sh, dim)
					got, err := f(d, x, dim)
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					checkSums(t, name, got, sum, mag, sh[dim], mean)
				}
			}
		}
	}
}

func TestReduceSumToWithinBound(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(9))
	cases := []struct{ shape, target []int }{
		{[]int{4, 300, 3}, []int{300, 1}},
		{[]int{4, 300, 3}, []int{4, 1, 3}},
		{[]int{4, 300, 3}, []int{}},
		{[]int{4, 300, 3}, []int{1}},
		{[]int{2, 3, 1, 2, 2, 1, 2, 3}, []int{3, 1, 1, 2, 1, 1, 3}},
		{[]int{5000, 3}, []int{1, 3}},
	}
	for _, dt := range floatTypes(d) {
		for _, c := range cases {
			x := randFloat(r, dt, c.shape, 1)
			al, _ := kernels.AlignTarget("t", c.shape, c.target)
			ost := tensor.Strides(al)
			cell := func(co []int) int {
				s := 0
				for a, v := range co {
					if al[a] == c.shape[a] {
						s += v * ost[a]
					}
				}
				return s
			}
			sum, mag := exactSums(x, c.shape, cell, tensor.NumElems(c.target))
			name := fmt.Sprintf("reduce_sum_to/%v%v->%v", dt, c.shape, c.target)
			got, err := d.ReduceSumTo(x, c.target)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if !slices.Equal(got.Shape, c.target) {
				t.Errorf("%s: shape %v", name, got.Shape)
				continue
			}
			K := x.NumElems() / max(1, tensor.NumElems(c.target))
			checkSums(t, name, got, sum, mag, K, false)
		}
	}
}

// The oracle accumulates halves in the half type and stalls; the GPU adds in
// f32 and narrows once.
func TestHalfSumDoesNotStall(t *testing.T) {
	d := device(t)
	x := tensor.New(tensor.F16, []int{4096})
	for i := range 4096 {
		x.Set(i, 1)
	}
	got, err := d.SumAll(x)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := cpu.SumAll(x)
	if got.At(0) != 4096 || want.At(0) != 2048 {
		t.Errorf("f16 4096 ones: gpu %g (want 4096), cpu oracle %g (want 2048)", got.At(0), want.At(0))
	}
}

func TestReduceErrorsMatchCPU(t *testing.T) {
	d := device(t)
	x := tensor.New(tensor.F32, []int{2, 3})
	cases := []struct {
		name string
		g, c func() error
	}{
		{"dim out of range", func() error { _, e := d.SumDim(x, 2); return e }, func() error { _, e := cpu.SumDim(x, 2); return e }},
		{"argmax empty axis", func() error { _, e := d.ArgMaxDim(tensor.New(tensor.F32, []int{2, 0}), 1); return e }, func() error { _, e := cpu.ArgMaxDim(tensor.New(tensor.F32, []int{2, 0}), 1); return e }},
		{"bad target", func() error { _, e := d.ReduceSumTo(x, []int{2, 2}); return e }, func() error { _, e := cpu.ReduceSumTo(x, []int{2, 2}); return e }},
		{"int dtype", func() error { _, e := d.MaxAll(tensor.New(tensor.U32, []int{2})); return e }, func() error { _, e := cpu.MaxAll(tensor.New(tensor.U32, []int{2})); return e }},
		{"upstream shape", func() error {
			_, e := d.ReduceMaxToBackward(x, tensor.New(tensor.F32, []int{3}), []int{1, 3})
			return e
		}, func() error {
			_, e := cpu.ReduceMaxToBackward(x, tensor.New(tensor.F32, []int{3}), []int{1, 3})
			return e
		}},
	}
	for _, c := range cases {
		ge, ce := c.g(), c.c()
		if ge == nil || ce == nil || ge.Error() != ce.Error() {
			t.Errorf("%s: gpu %v, cpu %v", c.name, ge, ce)
		}
	}
}

// Without shader-f64 (browsers) every F64 reduction and add is refused
// with a typed *kernels.Unavailable naming shader-f64, before anything is
// built; with it they run (TestReduce*, TestF64Adds).
func TestF64NeedsShaderF64(t *testing.T) {
	d := device(t)
	saved := d.info.ShaderF64
	d.info.ShaderF64 = false
	defer func() { d.info.ShaderF64 = saved }()
	x := tensor.New(tensor.F64, []int{2, 3})
	idx := tensor.New(tensor.U32, []int{2, 3})
	calls := map[string]func() error{
		"sum_all":                func() error { _, e := d.SumAll(x); return e },
		"mean_dim":               func() error { _, e := d.MeanDim(x, 1); return e },
		"max_all":                func() error { _, e := d.MaxAll(x); return e },
		"min_dim":                func() error { _, e := d.MinDim(x, 0); return e },
		"argmax_dim":             func() error { _, e := d.ArgMaxDim(x, 1); return e },
		"reduce_sum_to":          func() error { _, e := d.ReduceSumTo(x, []int{3}); return e },
		"reduce_max_to":          func() error { _, e := d.ReduceMaxTo(x, []int{1, 3}); return e },
		"reduce_min_to":          func() error { _, e := d.ReduceMinTo(x, []int{2, 1}); return e },
		"reduce_max_to_backward": func() error { _, e := d.ReduceMaxToBackward(x, tensor.New(tensor.F64, []int{3}), []int{3}); return e },
		"index_add":              func() error { _, e := d.IndexAdd(x, tensor.New(tensor.U32, []int{3}), x, 1); return e },
		"scatter_add":            func() error { _, e := d.ScatterAdd(x, idx, x, 1); return e },
	}
	for op, call := range calls {
		err := call()
		var u *kernels.Unavailable
		if !errors.As(err, &u) || u.Need != "shader-f64" || u.Kernel != op+"_f64" || u.Msg != "runs on CPU" {
			t.Errorf("%s: got %v, want *kernels.Unavailable{%s_f64, shader-f64, runs on CPU}", op, err, op)
		}
	}
}

// TestBulkSplits: the bulk level's loads in groups give the same sums bit
// for bit (bulkMin lowered: a ragged last chunk, several segments).
func TestBulkSplits(t *testing.T) {
	d := device(t)
	defer func(m, s int) { bulkMin, bulkSplit = m, s }(bulkMin, bulkSplit)
	bulkMin = seqMax + 1
	r := rand.New(rand.NewSource(22))
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16} {
		for _, sh := range [][]int{{40000}, {3, 32776}} {
			x := randFloat(r, dt, sh, 1)
			dim := len(sh) - 1
			bulkSplit = 1
			want, err := d.SumDim(x, dim)
			if err != nil {
				t.Fatal(err)
			}
			for _, bs := range []int{2, 8, 32} {
				bulkSplit = bs
				got, err := d.SumDim(x, dim)
				if err != nil {
					t.Fatalf("%v%v bs %d: %v", dt, sh, bs, err)
				}
				sameBits(t, fmt.Sprintf("bulk sum %v%v bs %d", dt, sh, bs), got, want)
			}
		}
	}
}

// TestTreeLast: a workgroup's last tree with its result in thread 0 alone
// gives the bits of the full tree: the rows kernel (one and two segments a
// workgroup), the tree levels and the bulk level, sums and picks.
func TestTreeLast(t *testing.T) {
	d := device(t)
	defer func(lb, m int) { treeLast, bulkMin = lb, m }(treeLast, bulkMin)
	bulkMin = seqMax + 1
	r := rand.New(rand.NewSource(23))
	type call struct {
		name string
		f    func(*tensor.Tensor) (*tensor.Tensor, error)
	}
	calls := []call{
		{"sum_dim", func(x *tensor.Tensor) (*tensor.Tensor, error) { return d.SumDim(x, 1) }},
		{"argmax_dim", func(x *tensor.Tensor) (*tensor.Tensor, error) { return d.ArgMaxDim(x, 1) }},
		{"max_dim", func(x *tensor.Tensor) (*tensor.Tensor, error) { return d.MaxDim(x, 1) }},
		{"sum_all", d.SumAll},
		{"max_all", d.MaxAll},
	}
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16} {
		for _, sh := range [][]int{{33, 1000}, {40, 64}, {3, 40000}} {
			for _, c := range calls {
				x := randFloat(r, dt, sh, 1)
				if c.name != "sum_dim" && c.name != "sum_all" {
					x = specialFloat(r, dt, sh, false)
				}
				treeLast = 0
				want, err := c.f(x)
				if err != nil {
					t.Fatal(err)
				}
				treeLast = 1
				got, err := c.f(x)
				if err != nil {
					t.Fatal(err)
				}
				sameBitsOrNaN(t, fmt.Sprintf("%s %v%v", c.name, dt, sh), got, want)
			}
		}
	}
}

// TestBulkLast: a one-segment bulk sum folded in the bulk level's last
// workgroup gives the bits of the two-dispatch path (bulkMin lowered: 2,
// 4, 31 and 264 partials — past 256, a thread folds two — a ragged last
// chunk, sums and means in each float dtype), also when timing repeats
// replay the dispatch (the last workgroup leaves the counter at zero
// again); several segments keep the levels.
func TestBulkLast(t *testing.T) {
	d := device(t)
	defer func(m int, on bool) { bulkMin, bulkLastOn = m, on }(bulkMin, bulkLastOn)
	bulkMin = seqMax + 1
	r := rand.New(rand.NewSource(24))
	for _, dt := range gpuFloats {
		for _, sh := range [][]int{{40000}, {131072}, {1000001}, {8650000}, {3, 40000}} {
			x := randFloat(r, dt, sh, 1)
			dim := len(sh) - 1
			for _, f := range []struct {
				name string
				run  func(*tensor.Tensor, int) (*tensor.Tensor, error)
			}{{"sum", d.SumDim}, {"mean", d.MeanDim}} {
				bulkLastOn = false
				want, err := f.run(x, dim)
				if err != nil {
					t.Fatal(err)
				}
				bulkLastOn = true
				for _, rep := range []int{1, 3} {
					d.SetKernelRepeat(rep)
					got, err := f.run(x, dim)
					d.SetKernelRepeat(1)
					if err != nil {
						t.Fatal(err)
					}
					sameBits(t, fmt.Sprintf("%s %v%v repeat %d", f.name, dt, sh, rep), got, want)
				}
				// bulk_seq: the partials an invocation each (threadsOverTrees).
				d.forceThreads = true
				got, err := f.run(x, dim)
				d.forceThreads = false
				if err != nil {
					t.Fatal(err)
				}
				sameBits(t, fmt.Sprintf("%s %v%v bulk_seq", f.name, dt, sh), got, want)
			}
		}
	}
}

// TestBulkPicks: extrema and arg indices through the bulk first level
// (bulkMin lowered: one and three segments, 2 to 31 partials, a ragged
// last chunk) equal the CPU oracle bit for bit, signed zeros, infinities,
// NaNs and ties included, and a segment of NaNs only.
func TestBulkPicks(t *testing.T) {
	d := device(t)
	defer func(m int) { bulkMin = m }(bulkMin)
	bulkMin = seqMax + 1
	r := rand.New(rand.NewSource(25))
	dims := []dimFns{
		{"max_dim", (*Device).MaxDim, cpu.MaxDim},
		{"min_dim", (*Device).MinDim, cpu.MinDim},
		{"argmax_dim", (*Device).ArgMaxDim, cpu.ArgMaxDim},
		{"argmin_dim", (*Device).ArgMinDim, cpu.ArgMinDim},
	}
	alls := []redFns{{"max_all", (*Device).MaxAll, cpu.MaxAll}, {"min_all", (*Device).MinAll, cpu.MinAll}}
	defer func() { d.forceThreads = false }()
	for _, force := range []bool{false, true} { // true: bulk_seq (threadsOverTrees)
		d.forceThreads = force
		for _, dt := range gpuFloats {
			for _, sh := range [][]int{{40000}, {1000001}, {3, 40000}} {
				for _, nanAll := range []bool{false, true} {
					x := specialFloat(r, dt, sh, nanAll)
					for _, f := range dims {
						name := fmt.Sprintf("%s/%v%v/nanAll=%v/threads=%v", f.name, dt, sh, nanAll, force)
						want, werr := f.cpu(x, len(sh)-1)
						got, err := f.gpu(d, x, len(sh)-1)
						if werr != nil || err != nil {
							t.Fatalf("%s: gpu %v, cpu %v", name, err, werr)
						}
						sameBits(t, name, got, want)
					}
					for _, f := range alls {
						name := fmt.Sprintf("%s/%v%v/nanAll=%v/threads=%v", f.name, dt, sh, nanAll, force)
						want, _ := f.cpu(x)
						got, err := f.gpu(d, x)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						sameBits(t, name, got, want)
					}
				}
			}
		}
	}
}

// reduce_max_to_backward's F64 share upstream / count is the CPU's IEEE
// quotient bit for bit, for full-mantissa upstream values of every
// magnitude whose quotient is normal and tie counts from 2 to 1,000 (the
// fma-corrected quotient was 1 ulp off for 7-15% of values with 7 to 1,000
// ties on lavapipe, whose fma is not fused; the seeds' values are quarter
// steps, which divide cleanly).
func TestMaxToBackwardF64Quotient(t *testing.T) {
	d := device(t)
	if !d.Info().ShaderF64 {
		t.Skip("the adapter has no shader-f64")
	}
	r := rand.New(rand.NewSource(7))
	const cells = 512
	for _, ties := range []int{2, 3, 7, 10, 100, 1000} {
		x := tensor.New(tensor.F64, []int{cells, ties}) // every element a tie: all ones
		for i := range x.NumElems() {
			x.Set(i, 1)
		}
		up := tensor.New(tensor.F64, []int{cells, 1})
		for i := range cells {
			// exponents from 2^-1000 to 2^1000, the ends of the scaling
			e := -1000 + r.Intn(2001)
			switch i {
			case 0:
				e = 1023
			case 1:
				e = -1012 // the smallest whose quotient by 1,000 stays normal
			}
			v := math.Ldexp(1+r.Float64(), e)
			if i%2 == 1 {
				v = -v
			}
			up.Set(i, v)
		}
		want, err := cpu.ReduceMaxToBackward(x, up, []int{cells, 1})
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.ReduceMaxToBackward(x, up, []int{cells, 1})
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("%d ties", ties), got, want)
	}
}

// reduce_max_to_backward takes the cells' maxima from reduce_max_to's own
// path — one pass (`seq` for short cells or, where threads beat trees, for
// many cells; `rows` for contiguous ones) or the levels and finalize —
// and equals the CPU bit for bit on each, every half dtype too, with
// NaN, signed zeros, infinities and ties. (It always took the levels: a
// workgroup per cell, minutes for 98,688 cells of one or two elements on
// SwiftShader.)
func TestMaxToBackwardPaths(t *testing.T) {
	d := device(t)
	defer func() { d.forceThreads = false }()
	r := rand.New(rand.NewSource(5))
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
		for _, c := range []struct {
			shape, target []int
		}{
			{[]int{64, 6, 3}, []int{64, 6, 1}},     // seq: 3 a cell
			{[]int{2000, 2}, []int{2000, 1}},       // seq; with threads, many cells
			{[]int{64, 6, 257}, []int{64, 6, 257}}, // one element a cell
			{[]int{40, 64}, []int{40, 1}},          // rows: contiguous, 64 a cell
			{[]int{600, 40}, []int{1, 40}},         // levels: 600 a cell, strided
			{[]int{7, 5000}, []int{7, 1}},          // levels: long rows
		} {
			for _, threads := range []bool{false, true} {
				d.forceThreads = threads
				x := specialFloat(r, dt, c.shape, false)
				up := randFloat(r, dt, c.target, 4)
				name := fmt.Sprintf("%v%v->%v threads %v", dt, c.shape, c.target, threads)
				want, err := cpu.ReduceMaxToBackward(x, up, c.target)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.ReduceMaxToBackward(x, up, c.target)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBits(t, name, got, want)
			}
		}
	}
}
