package cpu

import (
	"math"
	"unsafe"

	"github.com/fkc-playground/fkc/internal/par"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// The reduce family of fuel-reference-backend. The oracle accumulates in
// the element dtype: an F32 sum adds in float32, and a half sum rounds
// every partial sum to the half type (widen to f32, add, narrow with RNE —
// f32 holds the exact result's double rounding harmlessly, 24 ≥ 2·11+2), so
// 4096 f16 ones sum to 2048. Extrema use strict > / < from a ∓inf seed: NaN
// never wins, all-NaN gives ∓inf, the first of a tie wins (which decides
// the sign of a zero).
//
// Half inputs are widened exactly to f32 once and the float32 kernels run
// with a rounder that narrows every arithmetic result back to the half type;
// F32 and F64 run with no rounder. Results are half-representable, so
// narrowing them on store is exact.

type float interface{ ~float32 | ~float64 }

type foldKind int

const (
	foldSum foldKind = iota
	foldMax
	foldMin
)

func identity[T float](k foldKind) T {
	switch k {
	case foldMax:
		return T(math.Inf(-1))
	case foldMin:
		return T(math.Inf(1))
	}
	return 0
}

// fold is one step of the oracle's fold: acc + v (rounded to the dtype),
// or the strict-compare extremum.
func fold[T float](k foldKind, acc, v T, rnd func(T) T) T {
	switch k {
	case foldMax:
		if v > acc {
			return v
		}
		return acc
	case foldMin:
		if v < acc {
			return v
		}
		return acc
	}
	s := acc + v
	if rnd != nil {
		s = rnd(s)
	}
	return s
}

// floatData is a float operand as the kernels compute on it.
type floatData struct {
	dt  tensor.DType
	f32 []float32 // F32 data, or a half operand widened exactly
	f64 []float64
	rnd func(float32) float32 // in-dtype rounding; nil for F32 (and F64)
}

func loadFloat(t *tensor.Tensor) floatData {
	d := floatData{dt: t.DType}
	switch t.DType {
	case tensor.F32:
		d.f32 = t.F32()
	case tensor.F64:
		d.f64 = t.F64()
	default:
		h := t.U16()
		d.f32 = make([]float32, len(h))
		for i, v := range h {
			d.f32[i] = tensor.HalfToF32(t.DType, v)
		}
		d.rnd = halfRounder(t.DType)
	}
	return d
}

func halfRounder(dt tensor.DType) func(float32) float32 {
	if dt == tensor.BF16 {
		return func(f float32) float32 { return tensor.BF16ToF32(tensor.BF16FromF32(f)) }
	}
	return func(f float32) float32 { return tensor.F16ToF32(tensor.F16FromF32(f)) }
}

// storeFloat builds a dtype-dt tensor from computed values (one of f32/f64).
func storeFloat(dt tensor.DType, shape []int, f32 []float32, f64 []float64) *tensor.Tensor {
	out := newOutput(dt, shape)
	switch dt {
	case tensor.F32:
		copy(out.F32(), f32)
	case tensor.F64:
		copy(out.F64(), f64)
	default:
		o := out.U16()
		for i, v := range f32 {
			o[i] = tensor.HalfFromF32(dt, v)
		}
	}
	return out
}

// apply runs a kernel written once over T on x's data: k32 for F32 and the
// halves (with their rounder), k64 for F64. out is allocated at outShape.
func apply(x *tensor.Tensor, outShape []int,
	k32 func(in, out []float32, rnd func(float32) float32),
	k64 func(in, out []float64)) *tensor.Tensor {
	d := loadFloat(x)
	n := tensor.NumElems(outShape)
	if x.DType == tensor.F64 {
		out := make([]float64, n)
		k64(d.f64, out)
		return storeFloat(x.DType, outShape, nil, out)
	}
	out := make([]float32, n)
	k32(d.f32, out, d.rnd)
	return storeFloat(x.DType, outShape, out, nil)
}

// countAs converts an element count to the dtype ("n converted to the
// dtype"): exact in f32 for every count this package accepts, then narrowed
// to the half type (f64→f32→half, as tensor.HalfFromF64).
func countAs(dt tensor.DType, n int) float64 {
	switch dt {
	case tensor.F64:
		return float64(n)
	case tensor.F32:
		return float64(float32(n))
	}
	return float64(tensor.HalfToF32(dt, tensor.HalfFromF64(dt, float64(n))))
}

func checkFloatX(op string, x *tensor.Tensor) error {
	if err := kernels.CheckOperand(op, "x", x, kernels.FloatDTypes); err != nil {
		return err
	}
	return kernels.CheckHost(op, x)
}

// ---- reductions to a scalar ----

// SumAll is sum_all: a single in-dtype fold in flat order from +0 (empty
// → 0); rank-0 output.
func SumAll(x *tensor.Tensor) (*tensor.Tensor, error) { return reduceAll("sum_all", x, foldSum, false) }

// MaxAll is max_all: strict > from -inf (empty or all-NaN → -inf).
func MaxAll(x *tensor.Tensor) (*tensor.Tensor, error) { return reduceAll("max_all", x, foldMax, false) }

// MinAll is min_all: strict < from +inf (empty or all-NaN → +inf).
func MinAll(x *tensor.Tensor) (*tensor.Tensor, error) { return reduceAll("min_all", x, foldMin, false) }

// MeanAll is mean_all: the in-dtype sum divided by n converted to the
// dtype, rounded to the dtype; empty → NaN.
func MeanAll(x *tensor.Tensor) (*tensor.Tensor, error) {
	return reduceAll("mean_all", x, foldSum, true)
}

func reduceAll(op string, x *tensor.Tensor, k foldKind, mean bool) (*tensor.Tensor, error) {
	if err := checkFloatX(op, x); err != nil {
		return nil, err
	}
	n := x.NumElems()
	div := countAs(x.DType, n)
	return apply(x, []int{},
		func(in, out []float32, rnd func(float32) float32) {
			out[0] = foldAll(k, in, rnd)
			if mean {
				out[0] = meanOf(out[0], float32(div), n, rnd)
			}
		},
		func(in, out []float64) {
			out[0] = foldAll(k, in, nil)
			if mean {
				out[0] = meanOf(out[0], div, n, nil)
			}
		}), nil
}

func meanOf[T float](sum, div T, n int, rnd func(T) T) T {
	if n == 0 {
		return T(math.NaN())
	}
	q := sum / div
	if rnd != nil {
		q = rnd(q)
	}
	return q
}

// foldAll is the single flat-order pass. The sum keeps one accumulator (the
// oracle's order); only the loop shape is specialised.
func foldAll[T float](k foldKind, x []T, rnd func(T) T) T {
	acc := identity[T](k)
	switch {
	case k == foldSum && rnd == nil:
		// Sixty-four adds an iteration, in order (each line adds left to
		// right: ((acc + v[0]) + v[1]) + …): the chain is bound by the add's
		// latency, but in Go's WASM an iteration also goes through the
		// function's block dispatch, which sixty-four adds amortise in
		// Chromium. Measurements: docs/perf/cpu-reductions.md.
		i := 0
		for ; i+64 <= len(x); i += 64 {
			v := x[i : i+64 : i+64]
			acc = acc + v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
			acc = acc + v[8] + v[9] + v[10] + v[11] + v[12] + v[13] + v[14] + v[15]
			acc = acc + v[16] + v[17] + v[18] + v[19] + v[20] + v[21] + v[22] + v[23]
			acc = acc + v[24] + v[25] + v[26] + v[27] + v[28] + v[29] + v[30] + v[31]
			acc = acc + v[32] + v[33] + v[34] + v[35] + v[36] + v[37] + v[38] + v[39]
			acc = acc + v[40] + v[41] + v[42] + v[43] + v[44] + v[45] + v[46] + v[47]
			acc = acc + v[48] + v[49] + v[50] + v[51] + v[52] + v[53] + v[54] + v[55]
			acc = acc + v[56] + v[57] + v[58] + v[59] + v[60] + v[61] + v[62] + v[63]
		}
		for _, v := range x[i:] {
			acc += v
		}
	case k == foldSum:
		for _, v := range x {
			acc = rnd(acc + v)
		}
	case k == foldMax:
		for _, v := range x {
			if v > acc {
				acc = v
			}
		}
	default:
		for _, v := range x {
			if v < acc {
				acc = v
			}
		}
	}
	return acc
}

// ---- reductions along one dim ----

// SumDim is sum_dim: one axis summed in the dtype and removed (no keepdim).
func SumDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("sum_dim", x, dim, foldSum, false, false)
}

// MaxDim is max_dim: strict > from -inf per slot, axis removed.
func MaxDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("max_dim", x, dim, foldMax, false, false)
}

// MinDim is min_dim: strict < from +inf per slot, axis removed.
func MinDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("min_dim", x, dim, foldMin, false, false)
}

// MeanDim is mean_dim: each slot's in-dtype sum divided by the axis length
// converted to the dtype (an empty axis gives 0/0 = NaN).
func MeanDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("mean_dim", x, dim, foldSum, true, false)
}

// SumDimRef, MaxDimRef, MinDimRef and MeanDimRef are the reference walks of
// the four: the oracle's reduce_dim (foldDimRef), which the fast paths above
// must equal bit for bit.
func SumDimRef(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("sum_dim", x, dim, foldSum, false, true)
}

func MaxDimRef(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("max_dim", x, dim, foldMax, false, true)
}

func MinDimRef(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("min_dim", x, dim, foldMin, false, true)
}

func MeanDimRef(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return reduceDim("mean_dim", x, dim, foldSum, true, true)
}

func reduceDim(op string, x *tensor.Tensor, dim int, k foldKind, mean, ref bool) (*tensor.Tensor, error) {
	if err := checkFloatX(op, x); err != nil {
		return nil, err
	}
	if err := kernels.CheckDim(op, "x", dim, x.Rank()); err != nil {
		return nil, err
	}
	outer, n, inner := split3(x.Shape, dim)
	div := countAs(x.DType, n)
	return apply(x, kernels.DropDim(x.Shape, dim),
		func(in, out []float32, rnd func(float32) float32) {
			if ref {
				foldDimRef(k, in, out, x.Shape, dim, rnd)
			} else {
				foldDim(k, in, out, outer, n, inner, rnd)
			}
			if mean {
				divideAll(out, float32(div), rnd)
			}
		},
		func(in, out []float64) {
			if ref {
				foldDimRef(k, in, out, x.Shape, dim, nil)
			} else {
				foldDim(k, in, out, outer, n, inner, nil)
			}
			if mean {
				divideAll(out, div, nil)
			}
		}), nil
}

func divideAll[T float](out []T, div T, rnd func(T) T) {
	for i, s := range out {
		q := s / div
		if rnd != nil {
			q = rnd(q)
		}
		out[i] = q
	}
}

// foldDimRef is the oracle's reduce_dim: one accumulator per output slot,
// one pass over the input in flat order, each flat index unflattened and
// projected to its slot by dropping the reduced coordinate.
func foldDimRef[T float](k foldKind, x, out []T, shape []int, dim int, rnd func(T) T) {
	for i := range out {
		out[i] = identity[T](k)
	}
	outShape := kernels.DropDim(shape, dim)
	outStr := tensor.Strides(outShape)
	coord := make([]int, len(shape))
	for i, v := range x {
		unflatten(i, shape, coord)
		s := 0
		for a, c := range coord {
			switch {
			case a < dim:
				s += c * outStr[a]
			case a > dim:
				s += c * outStr[a-1]
			}
		}
		out[s] = fold(k, out[s], v, rnd)
	}
}

// foldDim is the fast reduce_dim over x viewed as [outer, n, inner]. Every
// output slot still folds its own axis elements in the order 0..n-1, so it
// sees exactly the reference's sequence of operations: bitwise the same,
// and independent of how many workers share the slots.
//
// With inner == 1 (the axis is contiguous) each slot is one row: sums add
// 8 rows side by side (sumRows8F32: the vectors' lanes are rows, each
// still added left to right), extrema run the lane primitives and fold the
// lanes back into the oracle's answer (extremeRow). With inner > 1 whole
// rows of slots are added elementwise.
func foldDim[T float](k foldKind, x, out []T, outer, n, inner int, rnd func(T) T) {
	es := int(unsafe.Sizeof(x[0:1][0]))
	if inner == 1 {
		par.For(outer, n*es, func(lo, hi int) { foldRows(k, x[lo*n:hi*n], out[lo:hi], n, rnd) })
		return
	}
	if outer >= 4*par.Threads() {
		par.For(outer, n*inner*es, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				foldCols(k, x[o*n*inner:(o+1)*n*inner], out[o*inner:(o+1)*inner], n, inner, 0, inner, rnd)
			}
		})
		return
	}
	// Few slabs: split each slab's columns instead.
	for o := 0; o < outer; o++ {
		xs, acc := x[o*n*inner:(o+1)*n*inner], out[o*inner:(o+1)*inner]
		par.For(inner, n*es, func(lo, hi int) { foldCols(k, xs, acc, n, inner, lo, hi, rnd) })
	}
}

// foldRows folds each length-n row of x into its slot of out.
func foldRows[T float](k foldKind, x, out []T, n int, rnd func(T) T) {
	o := 0
	if is32[T]() && k == foldSum && rnd == nil && n >= 8 {
		x32, out32 := as[float32](x), as[float32](out)
		cols := n &^ 7
		for ; o+8 <= len(out); o += 8 {
			var acc [8]float32 // +0: the identity
			sumRows8F32(x32[o*n:], n, cols, &acc)
			for r := range acc {
				for _, v := range x32[(o+r)*n+cols : (o+r+1)*n] {
					acc[r] += v
				}
			}
			copy(out32[o:o+8], acc[:])
		}
	}
	for ; o < len(out); o++ {
		row := x[o*n : (o+1)*n]
		if k == foldSum {
			out[o] = foldAll(k, row, rnd)
		} else {
			out[o] = extremeRow(row, k == foldMax)
		}
	}
}

// foldCols folds columns [lo, hi) of an [n, inner] slab into acc[lo:hi],
// row by row.
func foldCols[T float](k foldKind, x, acc []T, n, inner, lo, hi int, rnd func(T) T) {
	a := acc[lo:hi]
	id := identity[T](k)
	for i := range a {
		a[i] = id
	}
	for j := 0; j < n; j++ {
		row := x[j*inner+lo : j*inner+hi]
		switch {
		case k == foldSum && rnd == nil:
			addT(a, row)
		case k == foldSum:
			for i, v := range row {
				a[i] = rnd(a[i] + v)
			}
		case k == foldMax:
			for i, v := range row {
				if v > a[i] {
					a[i] = v
				}
			}
		default:
			for i, v := range row {
				if v < a[i] {
					a[i] = v
				}
			}
		}
	}
}

// extremeRow is foldAll's max (or min) of one row, through the lane
// primitives. The lanes fold strictly, so the largest lane value is the
// row's largest non-NaN value M (-inf when there is none), which is the
// oracle's answer bit for bit unless M is zero: then the oracle keeps the
// first zero it met, of either sign, and a second scan finds it.
func extremeRow[T float](x []T, max bool) T {
	m := len(x) &^ (lanes - 1)
	var r T
	if is32[T]() {
		r = T(extremeF32(as[float32](x[:m]), max))
	} else {
		var acc [lanes]T
		for i := range acc {
			acc[i] = identity[T](foldMin)
			if max {
				acc[i] = identity[T](foldMax)
			}
		}
		extremeLanesT(x[:m], &acc, max)
		r = acc[0]
		for _, v := range acc[1:] {
			if (max && v > r) || (!max && v < r) {
				r = v
			}
		}
	}
	for _, v := range x[m:] {
		if (max && v > r) || (!max && v < r) {
			r = v
		}
	}
	if r == 0 {
		for _, v := range x {
			if v == 0 {
				return v
			}
		}
	}
	return r
}

// ---- arg-index reductions ----

// ArgMaxDim is argmax_dim: the U32 index of the maximum along dim, dim
// removed. Per slot it seeds with element 0 of the axis and takes k ≥ 1 only
// on a strict v > best, so ties go to the smallest index and a NaN at
// element 0 stays the winner (nothing compares greater than NaN). An empty
// axis is an error.
func ArgMaxDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return argDim("argmax_dim", x, dim, true, false)
}

// ArgMinDim is argmin_dim: as ArgMaxDim with a strict v < best.
func ArgMinDim(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return argDim("argmin_dim", x, dim, false, false)
}

// ArgMaxDimRef and ArgMinDimRef are the reference walks (the oracle's
// argindex_dim scan), which ArgMaxDim/ArgMinDim must equal.
func ArgMaxDimRef(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return argDim("argmax_dim", x, dim, true, true)
}

func ArgMinDimRef(x *tensor.Tensor, dim int) (*tensor.Tensor, error) {
	return argDim("argmin_dim", x, dim, false, true)
}

func argDim(op string, x *tensor.Tensor, dim int, max, ref bool) (*tensor.Tensor, error) {
	if err := checkFloatX(op, x); err != nil {
		return nil, err
	}
	if err := kernels.CheckDim(op, "x", dim, x.Rank()); err != nil {
		return nil, err
	}
	outer, n, inner := split3(x.Shape, dim)
	if n == 0 {
		return nil, kernels.Violatef(op, "axis %d of x %s is empty: there is no element to index (contract: reduced axis non-empty)", dim, x)
	}
	if err := kernels.CheckAxisIndexable(op, n); err != nil {
		return nil, err
	}
	out := newOutput(tensor.U32, kernels.DropDim(x.Shape, dim))
	idx := out.U32()
	d := loadFloat(x)
	switch {
	case ref && d.f64 != nil:
		argDimRef(d.f64, idx, x.Shape, dim, max)
	case ref:
		argDimRef(d.f32, idx, x.Shape, dim, max)
	case d.f64 != nil:
		argDimFast(d.f64, idx, outer, n, inner, max)
	default:
		argDimFast(d.f32, idx, outer, n, inner, max)
	}
	return out, nil
}

// argDimRef is the oracle's argindex_dim: per output slot, build the seed
// input index (reduced coordinate 0), read best = x[base], scan k in 1..n
// at base + k*stride[dim], update on a strict win.
func argDimRef[T float](x []T, out []uint32, shape []int, dim int, max bool) {
	outShape := kernels.DropDim(shape, dim)
	inStr := tensor.Strides(shape)
	coord := make([]int, len(outShape))
	n := shape[dim]
	for s := range out {
		unflatten(s, outShape, coord)
		base := 0
		for a, c := range coord {
			if a < dim {
				base += c * inStr[a]
			} else {
				base += c * inStr[a+1]
			}
		}
		best, bi := x[base], 0
		for k := 1; k < n; k++ {
			v := x[base+k*inStr[dim]]
			if (max && v > best) || (!max && v < best) {
				best, bi = v, k
			}
		}
		out[s] = uint32(bi)
	}
}

// argDimFast scans [outer, n, inner]; each slot still compares its axis
// elements in order 1..n-1 against the running best, so the winner is the
// reference's. Slots are shared out among the workers.
func argDimFast[T float](x []T, out []uint32, outer, n, inner int, max bool) {
	es := int(unsafe.Sizeof(x[0:1][0]))
	if inner == 1 { // the axis is contiguous: one scan per row
		par.For(outer, n*es, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				out[o] = uint32(argRow(x[o*n:(o+1)*n], max))
			}
		})
		return
	}
	par.For(outer*inner, n*es, func(lo, hi int) {
		// Workers take ranges of slots; a range may start or end inside
		// a slab, so walk it slab by slab.
		for lo < hi {
			o, i0 := lo/inner, lo%inner
			i1 := min(inner, i0+hi-lo)
			argCols(x[o*n*inner:(o+1)*n*inner], out[o*inner+i0:o*inner+i1], n, inner, i0, max)
			lo += i1 - i0
		}
	})
}

// argCols is the arg scan of columns [i0, i0+len(idx)) of an [n, inner]
// slab, row by row.
func argCols[T float](x []T, idx []uint32, n, inner, i0 int, max bool) {
	best := make([]T, len(idx))
	clear(idx) // the seed: element 0 of each axis, index 0
	copy(best, x[i0:i0+len(idx)])
	for j := 1; j < n; j++ {
		row := x[j*inner+i0 : j*inner+i0+len(idx)]
		if max {
			for i, v := range row {
				if v > best[i] {
					best[i], idx[i] = v, uint32(j)
				}
			}
		} else {
			for i, v := range row {
				if v < best[i] {
					best[i], idx[i] = v, uint32(j)
				}
			}
		}
	}
}

// argRow is the oracle's arg scan of one contiguous axis: seed with x[0],
// take k on a strict win. Equivalently: 0 if x[0] is NaN (nothing beats
// it); otherwise the first k with x[k] == M, M the largest (smallest)
// non-NaN value, or 0 if no element beats the ∓inf seed. The float32 lane
// primitive finds, per lane, the first position of the lane's best value;
// the lanes and the tail are then candidates (value, position), and the
// winner is the best value with the smallest position.
func argRow[T float](x []T, max bool) int {
	if x[0] != x[0] {
		return 0
	}
	seed := identity[T](foldMin)
	if max {
		seed = identity[T](foldMax)
	}
	// The extremum (extremeRow: the vectors where there are some), then
	// the first element equal to it (a zero equals either zero, and the
	// first zero is the oracle's). mv is an element of x or the seed, so
	// this returns. Faster than one scan carrying an index in Go's WASM;
	// natively the second pass reads the row from the cache, and it beat
	// an AVX2 pass carrying each of 32 lanes' block index (removed).
	// Measurements: docs/perf/cpu-reductions.md.
	mv := extremeRow(x, max)
	if mv == seed {
		return 0 // nothing beats the seed: x[0] is kept
	}
	return firstEqual(x, mv)
}

// firstEqual is the index of x's first element equal to v, which x holds.
// For a float32 v other than zero, equal is the same bits (firstEqualBits:
// AVX2 compares, or firstEqualBitsGo); a zero equals either zero.
func firstEqual[T float](x []T, v T) int {
	if is32[T]() && v != 0 {
		return firstEqualBits(as[float32](x), math.Float32bits(float32(v)))
	}
	for k, e := range x {
		if e == v {
			return k
		}
	}
	return len(x)
}

// ---- reduce to a broadcast-compatible shape ----

// ReduceSumTo is reduce_sum_to: target is left-padded with 1s to x's rank
// (kernels.AlignTarget); each collapsed axis is summed in the dtype from
// +0, in x's flat order. The output has the target shape as given.
func ReduceSumTo(x *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	return reduceTo("reduce_sum_to", x, target, foldSum)
}

// ReduceMaxTo is reduce_max_to: as ReduceSumTo with a strict > from -inf.
func ReduceMaxTo(x *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	return reduceTo("reduce_max_to", x, target, foldMax)
}

// ReduceMinTo is reduce_min_to: as ReduceSumTo with a strict < from +inf.
func ReduceMinTo(x *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	return reduceTo("reduce_min_to", x, target, foldMin)
}

func reduceTo(op string, x *tensor.Tensor, target []int, k foldKind) (*tensor.Tensor, error) {
	if err := checkFloatX(op, x); err != nil {
		return nil, err
	}
	al, err := kernels.AlignTarget(op, x.Shape, target)
	if err != nil {
		return nil, err
	}
	return apply(x, target,
		func(in, out []float32, rnd func(float32) float32) { foldTo(k, in, out, x.Shape, al, rnd) },
		func(in, out []float64) { foldTo(k, in, out, x.Shape, al, nil) }), nil
}

// foldTo walks x in flat order with an odometer and folds each element into
// its projected slot (collapsed axes clamp to coordinate 0).
func foldTo[T float](k foldKind, x, out []T, inShape, al []int, rnd func(T) T) {
	for i := range out {
		out[i] = identity[T](k)
	}
	p := newProjector(inShape, al)
	for _, v := range x {
		out[p.slot] = fold(k, out[p.slot], v, rnd)
		p.next()
	}
}

// projector walks a shape in flat order, tracking the slot each position
// projects to in an aligned target (stride 0 along collapsed axes).
type projector struct {
	shape, coord, str []int
	slot              int
}

func newProjector(inShape, al []int) *projector {
	p := &projector{shape: inShape, coord: make([]int, len(inShape)), str: tensor.Strides(al)}
	for d := range al {
		if al[d] != inShape[d] {
			p.str[d] = 0
		}
	}
	return p
}

func (p *projector) next() {
	for d := len(p.shape) - 1; d >= 0; d-- {
		p.coord[d]++
		p.slot += p.str[d]
		if p.coord[d] < p.shape[d] {
			return
		}
		p.slot -= p.coord[d] * p.str[d]
		p.coord[d] = 0
	}
}

// ReduceMaxToBackward is reduce_max_to_backward, step by step in the dtype:
// y = reduce_max_to(x); mask = x == broadcast(y) (1 or 0); count =
// reduce_sum_to(mask) (so a half count stalls where the half type does);
// scaled = upstream / max(count, 1); grad = broadcast(scaled) * mask. The
// last product is taken literally: a masked-out position gets scaled * 0,
// which is -0 for a negative upstream and NaN for an infinite one.
// upstream must have exactly the target shape and x's dtype.
func ReduceMaxToBackward(x, upstream *tensor.Tensor, target []int) (*tensor.Tensor, error) {
	al, err := kernels.ReduceMaxToBackwardShape(x, upstream, target)
	if err == nil {
		err = kernels.CheckHost("reduce_max_to_backward", x, upstream)
	}
	if err != nil {
		return nil, err
	}
	u := loadFloat(upstream)
	return apply(x, x.Shape,
		func(in, out []float32, rnd func(float32) float32) { maxToBackward(in, u.f32, out, x.Shape, al, rnd) },
		func(in, out []float64) { maxToBackward(in, u.f64, out, x.Shape, al, nil) }), nil
}

func maxToBackward[T float](x, up, grad []T, inShape, al []int, rnd func(T) T) {
	r := func(v T) T {
		if rnd != nil {
			return rnd(v)
		}
		return v
	}
	m := len(up)
	y := make([]T, m)
	foldTo(foldMax, x, y, inShape, al, nil)
	mask := make([]T, len(x))
	p := newProjector(inShape, al)
	for i, v := range x {
		if v == y[p.slot] {
			mask[i] = 1
		}
		p.next()
	}
	count := make([]T, m)
	foldTo(foldSum, mask, count, inShape, al, rnd)
	scaled := make([]T, m)
	for s, c := range count {
		if c < 1 {
			c = 1
		}
		scaled[s] = r(up[s] / c)
	}
	p = newProjector(inShape, al)
	for i := range grad {
		grad[i] = r(scaled[p.slot] * mask[i])
		p.next()
	}
}

func init() { families = append(families, reduceLinks) }

func unary(f func(*tensor.Tensor) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(x(c)) }
}

func unaryDim(f func(*tensor.Tensor, int) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(x(c), c.Dim) }
}

func to(f func(*tensor.Tensor, []int) (*tensor.Tensor, error)) kernels.Impl {
	return func(c *kernels.Call) (*tensor.Tensor, error) { return f(x(c), c.Shape) }
}

// reduceLinks are the reductions of fuel-reference-backend, and
// reduce_min_to of this project's own CPU contract.
func reduceLinks() []kernels.Link {
	v := kernels.Variants
	return []kernels.Link{
		{EntryPoint: refOracle + "sum_all", Serves: v("sum", kernels.FormAll), Impl: unary(SumAll), Where: "kernels/cpu.SumAll"},
		{EntryPoint: refOracle + "max_all", Serves: v("max", kernels.FormAll), Impl: unary(MaxAll), Where: "kernels/cpu.MaxAll"},
		{EntryPoint: refOracle + "min_all", Serves: v("min", kernels.FormAll), Impl: unary(MinAll), Where: "kernels/cpu.MinAll"},
		{EntryPoint: refOracle + "mean_all", Serves: v("mean", kernels.FormAll), Impl: unary(MeanAll), Where: "kernels/cpu.MeanAll"},
		{EntryPoint: refOracle + "sum_dim", Serves: v("sum", kernels.FormDim), Impl: unaryDim(SumDim), Where: "kernels/cpu.SumDim"},
		{EntryPoint: refOracle + "max_dim", Serves: v("max", kernels.FormDim), Impl: unaryDim(MaxDim), Where: "kernels/cpu.MaxDim"},
		{EntryPoint: refOracle + "min_dim", Serves: v("min", kernels.FormDim), Impl: unaryDim(MinDim), Where: "kernels/cpu.MinDim"},
		{EntryPoint: refOracle + "mean_dim", Serves: v("mean", kernels.FormDim), Impl: unaryDim(MeanDim), Where: "kernels/cpu.MeanDim"},
		{EntryPoint: refOracle + "argmax_dim", Serves: v("argmax"), Impl: unaryDim(ArgMaxDim), Where: "kernels/cpu.ArgMaxDim"},
		{EntryPoint: refOracle + "argmin_dim", Serves: v("argmin"), Impl: unaryDim(ArgMinDim), Where: "kernels/cpu.ArgMinDim"},
		// The shared arg-index core: reached through argmax_dim/argmin_dim,
		// which is how its prose describes it ("not a distinct dispatch
		// entry-point"); its kernel page runs it directly, as argmax.
		{EntryPoint: refOracle + "argindex_dim", Runs: v("argmax"), Impl: unaryDim(ArgMaxDim), Where: "kernels/cpu.ArgMaxDim / ArgMinDim (shared arg-index core)"},
		{EntryPoint: refOracle + "reduce_sum_to", Serves: v("reduce_sum_to"), Impl: to(ReduceSumTo), Where: "kernels/cpu.ReduceSumTo"},
		{EntryPoint: refOracle + "reduce_max_to", Serves: v("reduce_max_to"), Impl: to(ReduceMaxTo), Where: "kernels/cpu.ReduceMaxTo"},
		{EntryPoint: refOracle + "reduce_max_to_backward", Serves: v("reduce_max_to_backward"), Impl: func(c *kernels.Call) (*tensor.Tensor, error) {
			return ReduceMaxToBackward(x(c), c.In("upstream"), c.Shape)
		}, Where: "kernels/cpu.ReduceMaxToBackward"},
		{EntryPoint: "fkc::cpu::reduce_min_to", Serves: v("reduce_min_to"), Impl: to(ReduceMinTo), Where: "kernels/cpu.ReduceMinTo"},
	}
}
