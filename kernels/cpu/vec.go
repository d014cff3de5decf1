package cpu

import (
	"math"
	"unsafe"
)

// Vector primitives. Each one is defined by the plain Go loop here (the
// *Go function, its reference); on amd64 with AVX2 an assembly version of
// the same loop runs instead (vec_amd64.s), and vec_test.go holds the two
// equal over lengths 0..70 and several offsets. A primitive is only
// vectorised where the vector does exactly what the loop does, element for
// element:
//
//   - lanes: 32 independent accumulators, lane l folding x[l], x[l+32],
//     x[l+64], … in that order. The kernels choose how lanes combine, so
//     each contract's order is theirs to keep (max_dim and argmax_dim fold
//     lanes back into the oracle's answer; sum_all_blocked's order *is*
//     32 lanes).
//   - elementwise: dst[i] op= src[i], one operation per element, no order
//     to keep.
//   - row sums: 8 rows side by side, each row still added left to right.
//
// Strict compares keep the oracle's tie and NaN rules per lane: MAXPS(v,
// acc) is v > acc ? v : acc, which skips a NaN v and keeps the first of two
// equal values, exactly the fold's `if v > acc { acc = v }`.

// lanes is the lane count of the lane primitives.
const lanes = 32

// The kernels are generic over float32/float64; these pick the primitive
// by T's width (a constant per instantiation) and reinterpret the slices
// and arrays, which have the same layout, instead of boxing them in an
// interface (which would move the callers' accumulators to the heap).

func is32[T float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

func as[E, T any](x []T) []E { return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(x))), len(x)) }

func sumLanesT[T float](x []T, acc *[lanes]T) {
	if is32[T]() {
		sumLanesF32(as[float32](x), (*[lanes]float32)(unsafe.Pointer(acc)))
		return
	}
	sumLanesF64(as[float64](x), (*[lanes]float64)(unsafe.Pointer(acc)))
}

func extremeLanesT[T float](x []T, acc *[lanes]T, max bool) {
	if is32[T]() {
		extremeLanesF32(as[float32](x), (*[lanes]float32)(unsafe.Pointer(acc)), max)
		return
	}
	extremeLanesF64(as[float64](x), (*[lanes]float64)(unsafe.Pointer(acc)), max)
}

// addT is dst[i] += src[i].
func addT[T float](dst, src []T) {
	if is32[T]() {
		addF32(as[float32](dst), as[float32](src))
		return
	}
	addF64(as[float64](dst), as[float64](src))
}

// sumLanesGo: acc[l] += x[32j+l] for every j, in order; len(x) % 32 == 0.
func sumLanesGo[T float](x []T, acc *[lanes]T) {
	for j := 0; j+lanes <= len(x); j += lanes {
		for l, v := range x[j : j+lanes] {
			acc[l] += v
		}
	}
}

// extremeLanesGo: acc[l] = x > acc[l] ? x : acc[l] over x[32j+l], in
// order (max; < for min).
func extremeLanesGo[T float](x []T, acc *[lanes]T, max bool) {
	for j := 0; j+lanes <= len(x); j += lanes {
		for l, v := range x[j : j+lanes] {
			if (max && v > acc[l]) || (!max && v < acc[l]) {
				acc[l] = v
			}
		}
	}
}

// extremeGo folds x in 32 lanes (extremeLanesGo from ∓inf) and the lanes
// in lane order: the largest (smallest) non-NaN value, or ∓inf.
func extremeGo[T float](x []T, max bool) T {
	var acc [lanes]T
	id := T(math.Inf(1))
	if max {
		id = -id
	}
	for i := range acc {
		acc[i] = id
	}
	extremeLanesGo(x, &acc, max)
	r := id
	for _, v := range acc {
		if (max && v > r) || (!max && v < r) {
			r = v
		}
	}
	return r
}

// argLanesF32Go: per lane, the strict winner and the block j it came from:
// on x[32j+l] > best[l] (max) or < best[l] (!max), best[l] = x[32j+l] and
// blk[l] = j.
func argLanesF32Go(x []float32, best *[lanes]float32, blk *[lanes]int32, max bool) {
	for j := 0; j+lanes <= len(x); j += lanes {
		for l, v := range x[j : j+lanes] {
			if (max && v > best[l]) || (!max && v < best[l]) {
				best[l], blk[l] = v, int32(j/lanes)
			}
		}
	}
}

// sumRows8F32Go: acc[r] += x[r*stride+j] for j = 0..cols-1 in order, for
// the 8 rows r = 0..7; cols % 8 == 0.
func sumRows8F32Go(x []float32, stride, cols int, acc *[8]float32) {
	for r := range acc {
		a := acc[r]
		for _, v := range x[r*stride : r*stride+cols] {
			a += v
		}
		acc[r] = a
	}
}

// addGo: dst[i] += src[i].
func addGo[T float](dst, src []T) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += v
	}
}

// widenAddF32Go: acc[i] += float64(g[i]) (exact widening, one f64 add).
func widenAddF32Go(acc []float64, g []float32) {
	g = g[:len(acc)]
	for i, v := range g {
		acc[i] += float64(v)
	}
}

// narrowF32Go: dst[i] = float32(src[i]) (round to nearest even).
func narrowF32Go(dst []float32, src []float64) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}
