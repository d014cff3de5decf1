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

// extremeGo is the largest (smallest) non-NaN value of x, or ∓inf; which
// of +0 and -0 comes back on a tie is unspecified (the callers settle a
// zero), so the lanes need not be extremeLanesGo's 32: four accumulators in
// locals, one loop per direction (WASM and machines without AVX2 run this).
// Sixteen elements an iteration: in Go's WASM every loop iteration goes
// through the function's block dispatch; eight accumulators were slower.
// Measurements: docs/perf/cpu-reductions.md.
func extremeGo[T float](x []T, max bool) T {
	id := T(math.Inf(1))
	if max {
		id = -id
	}
	m0, m1, m2, m3 := id, id, id, id
	n := len(x) &^ 15
	if max {
		for j := 0; j < n; j += 16 {
			v := x[j : j+16 : j+16]
			if v[0] > m0 {
				m0 = v[0]
			}
			if v[1] > m1 {
				m1 = v[1]
			}
			if v[2] > m2 {
				m2 = v[2]
			}
			if v[3] > m3 {
				m3 = v[3]
			}
			if v[4] > m0 {
				m0 = v[4]
			}
			if v[5] > m1 {
				m1 = v[5]
			}
			if v[6] > m2 {
				m2 = v[6]
			}
			if v[7] > m3 {
				m3 = v[7]
			}
			if v[8] > m0 {
				m0 = v[8]
			}
			if v[9] > m1 {
				m1 = v[9]
			}
			if v[10] > m2 {
				m2 = v[10]
			}
			if v[11] > m3 {
				m3 = v[11]
			}
			if v[12] > m0 {
				m0 = v[12]
			}
			if v[13] > m1 {
				m1 = v[13]
			}
			if v[14] > m2 {
				m2 = v[14]
			}
			if v[15] > m3 {
				m3 = v[15]
			}
		}
	} else {
		for j := 0; j < n; j += 16 {
			v := x[j : j+16 : j+16]
			if v[0] < m0 {
				m0 = v[0]
			}
			if v[1] < m1 {
				m1 = v[1]
			}
			if v[2] < m2 {
				m2 = v[2]
			}
			if v[3] < m3 {
				m3 = v[3]
			}
			if v[4] < m0 {
				m0 = v[4]
			}
			if v[5] < m1 {
				m1 = v[5]
			}
			if v[6] < m2 {
				m2 = v[6]
			}
			if v[7] < m3 {
				m3 = v[7]
			}
			if v[8] < m0 {
				m0 = v[8]
			}
			if v[9] < m1 {
				m1 = v[9]
			}
			if v[10] < m2 {
				m2 = v[10]
			}
			if v[11] < m3 {
				m3 = v[11]
			}
			if v[12] < m0 {
				m0 = v[12]
			}
			if v[13] < m1 {
				m1 = v[13]
			}
			if v[14] < m2 {
				m2 = v[14]
			}
			if v[15] < m3 {
				m3 = v[15]
			}
		}
	}
	r := id
	for _, v := range [...]T{m0, m1, m2, m3} {
		if (max && v > r) || (!max && v < r) {
			r = v
		}
	}
	for _, v := range x[n:] {
		if (max && v > r) || (!max && v < r) {
			r = v
		}
	}
	return r
}

// firstEqualBitsGo is the index of x's first element equal to bits, or
// len(x). Eight elements at a time, the smallest of their bits XOR bits is
// zero on a hit: Go's WASM makes min of integers selects (a branch per
// element went through its block dispatch).
func firstEqualBitsGo(x []uint32, bits uint32) int {
	k := 0
	for ; k+8 <= len(x); k += 8 {
		e := x[k : k+8 : k+8]
		if min(e[0]^bits, e[1]^bits, e[2]^bits, e[3]^bits, e[4]^bits, e[5]^bits, e[6]^bits, e[7]^bits) == 0 {
			break
		}
	}
	for ; k < len(x); k++ {
		if x[k] == bits {
			return k
		}
	}
	return len(x)
}

// sumRows8F32Go: acc[r] += x[r*stride+j] for j = 0..cols-1 in order, for
// the 8 rows r = 0..7; cols % 8 == 0. The rows advance together, eight
// independent add chains in locals (one row at a time is one chain, bound
// by the add's latency), eight columns an iteration (every iteration goes
// through the function's block dispatch in Go's WASM). Measurements:
// docs/perf/cpu-reductions.md.
func sumRows8F32Go(x []float32, stride, cols int, acc *[8]float32) {
	r0 := x[0*stride : 0*stride+cols]
	r1 := x[1*stride : 1*stride+cols][:len(r0)]
	r2 := x[2*stride : 2*stride+cols][:len(r0)]
	r3 := x[3*stride : 3*stride+cols][:len(r0)]
	r4 := x[4*stride : 4*stride+cols][:len(r0)]
	r5 := x[5*stride : 5*stride+cols][:len(r0)]
	r6 := x[6*stride : 6*stride+cols][:len(r0)]
	r7 := x[7*stride : 7*stride+cols][:len(r0)]
	a0, a1, a2, a3, a4, a5, a6, a7 := acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7]
	for j := 0; j+7 < len(r0); j += 8 { // eight columns an iteration; each row adds in column order
		a0 += r0[j]
		a1 += r1[j]
		a2 += r2[j]
		a3 += r3[j]
		a4 += r4[j]
		a5 += r5[j]
		a6 += r6[j]
		a7 += r7[j]
		a0 += r0[j+1]
		a1 += r1[j+1]
		a2 += r2[j+1]
		a3 += r3[j+1]
		a4 += r4[j+1]
		a5 += r5[j+1]
		a6 += r6[j+1]
		a7 += r7[j+1]
		a0 += r0[j+2]
		a1 += r1[j+2]
		a2 += r2[j+2]
		a3 += r3[j+2]
		a4 += r4[j+2]
		a5 += r5[j+2]
		a6 += r6[j+2]
		a7 += r7[j+2]
		a0 += r0[j+3]
		a1 += r1[j+3]
		a2 += r2[j+3]
		a3 += r3[j+3]
		a4 += r4[j+3]
		a5 += r5[j+3]
		a6 += r6[j+3]
		a7 += r7[j+3]
		a0 += r0[j+4]
		a1 += r1[j+4]
		a2 += r2[j+4]
		a3 += r3[j+4]
		a4 += r4[j+4]
		a5 += r5[j+4]
		a6 += r6[j+4]
		a7 += r7[j+4]
		a0 += r0[j+5]
		a1 += r1[j+5]
		a2 += r2[j+5]
		a3 += r3[j+5]
		a4 += r4[j+5]
		a5 += r5[j+5]
		a6 += r6[j+5]
		a7 += r7[j+5]
		a0 += r0[j+6]
		a1 += r1[j+6]
		a2 += r2[j+6]
		a3 += r3[j+6]
		a4 += r4[j+6]
		a5 += r5[j+6]
		a6 += r6[j+6]
		a7 += r7[j+6]
		a0 += r0[j+7]
		a1 += r1[j+7]
		a2 += r2[j+7]
		a3 += r3[j+7]
		a4 += r4[j+7]
		a5 += r5[j+7]
		a6 += r6[j+7]
		a7 += r7[j+7]
	}
	acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7] = a0, a1, a2, a3, a4, a5, a6, a7
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
