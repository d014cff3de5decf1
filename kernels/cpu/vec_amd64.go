//go:build !noasm

package cpu

// useAVX2 selects the assembly loops; the tests turn it off to run the
// *Go loops on the same machine.
var useAVX2 = hasAVX2()

// hasAVX2 reports AVX2 in the CPU and YMM state enabled by the OS.
func hasAVX2() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 || xgetbv()&6 != 6 {
		return false
	}
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax uint32)

//go:noescape
func sumLanesF32AVX2(x []float32, acc *[lanes]float32)

//go:noescape
func sumLanesF64AVX2(x []float64, acc *[lanes]float64)

//go:noescape
func extremeLanesF32AVX2(x []float32, acc *[lanes]float32, max bool)

//go:noescape
func extremeLanesF64AVX2(x []float64, acc *[lanes]float64, max bool)

//go:noescape
func sumRows8F32AVX2(x []float32, stride, cols int, acc *[8]float32)

//go:noescape
func addF32AVX2(dst, src []float32)

//go:noescape
func addF64AVX2(dst, src []float64)

//go:noescape
func widenAddF32AVX2(acc []float64, g []float32)

//go:noescape
func narrowF32AVX2(dst []float32, src []float64)

//go:noescape
func prefetchAVX2(b []byte)

//go:noescape
func blockSumsF32AVX2(x []float32, sums []float32)

//go:noescape
func extremeF32AVX2(x []float32, max bool) float32

// extremeF32 is the largest (smallest) non-NaN value of x, len(x) a
// multiple of 32, or ∓inf; a tie of +0 and -0 may come back as either.
func extremeF32(x []float32, max bool) float32 {
	if useAVX2 {
		return extremeF32AVX2(x, max)
	}
	return extremeGo(x, max)
}

//go:noescape
func firstEqualF32AVX2(x []float32, bits uint32) int

// firstEqualBits is the index of x's first element whose bits are bits,
// or len(x).
func firstEqualBits(x []float32, bits uint32) int {
	k := 0
	if useAVX2 {
		k = firstEqualF32AVX2(x, bits)
		if k < len(x)&^31 {
			return k
		}
	}
	return k + firstEqualBitsGo(as[uint32](x[k:]), bits)
}

//go:noescape
func gatherU32AVX2(dst, row []uint32, idx []uint32) (maxIdx uint32)

// gatherU32 is gatherRow for 4-byte elements: dst[c] = row[idx[c]], false
// if an index is ≥ len(row) (elements then unspecified).
func gatherU32(dst, row []uint32, idx []uint32) bool {
	dst = dst[:len(idx)]
	n := 0
	if useAVX2 && len(row) > 0 {
		n = len(idx) &^ 7
		if gatherU32AVX2(dst[:n], row, idx[:n]) >= uint32(len(row)) {
			return false
		}
	}
	return gatherRow(dst[n:], row, idx[n:])
}

// blockSumsF32 sets sums[b] to the sum_all_blocked sum of the whole block
// b of x (len(x) >= len(sums)·blockLen), lanes folded as foldLanes does.
func blockSumsF32(x []float32, sums []float32) {
	_ = x[:len(sums)*blockLen] // the assembly reads this far
	if useAVX2 {
		blockSumsF32AVX2(x, sums)
		return
	}
	blockSumsGo(x, sums)
}

//go:noescape
func moveAVX2(dst, src []byte)

// moveBytes is copy(dst, src) for equal lengths, the bulk in 32-byte AVX2
// loads and stores. The runtime's copy() moves 256 to 2048 bytes in
// 16-byte SSE steps, slower on a pad's 2 KiB rows. Aligning the stores to
// 32 bytes made it slower. Measurements: docs/perf/cpu-pad.md.
func moveBytes(dst, src []byte) {
	src = src[:len(dst)]
	if !useAVX2 || len(dst) < 256 {
		copy(dst, src)
		return
	}
	body := len(dst) &^ 127
	moveAVX2(dst[:body], src[:body])
	copy(dst[body:], src[body:])
}

// prefetch asks for b's cache lines ahead of use: a row about to be copied
// from a random place, whose latency no hardware prefetcher can hide.
func prefetch(b []byte) { prefetchAVX2(b) }

// The lane dispatchers call both versions directly (no func values), so
// that an accumulator array on the caller's stack stays there.

func sumLanesF32(x []float32, acc *[lanes]float32) {
	if useAVX2 {
		sumLanesF32AVX2(x, acc)
		return
	}
	sumLanesGo(x, acc)
}

func sumLanesF64(x []float64, acc *[lanes]float64) {
	if useAVX2 {
		sumLanesF64AVX2(x, acc)
		return
	}
	sumLanesGo(x, acc)
}

func extremeLanesF32(x []float32, acc *[lanes]float32, max bool) {
	if useAVX2 {
		extremeLanesF32AVX2(x, acc, max)
		return
	}
	extremeLanesGo(x, acc, max)
}

func extremeLanesF64(x []float64, acc *[lanes]float64, max bool) {
	if useAVX2 {
		extremeLanesF64AVX2(x, acc, max)
		return
	}
	extremeLanesGo(x, acc, max)
}

// sumRows8F32 is sumRows8F32Go: rows 0..7 of x (stride apart), each added
// left to right over its first cols elements (a multiple of 8) into acc.
func sumRows8F32(x []float32, stride, cols int, acc *[8]float32) {
	if cols == 0 {
		return
	}
	_ = x[7*stride+cols-1] // the assembly reads up to here
	if useAVX2 {
		sumRows8F32AVX2(x, stride, cols, acc)
		return
	}
	sumRows8F32Go(x, stride, cols, acc)
}

// elementwise runs the assembly over the largest multiple of block
// elements and the Go loop over the rest.
func elementwise[D, S any](dst []D, src []S, block int, asm, goLoop func([]D, []S)) {
	src = src[:len(dst)]
	n := 0
	if useAVX2 {
		n = len(dst) &^ (block - 1)
		asm(dst[:n], src[:n])
	}
	goLoop(dst[n:], src[n:])
}

func addF32(dst, src []float32)              { elementwise(dst, src, 16, addF32AVX2, addGo) }
func addF64(dst, src []float64)              { elementwise(dst, src, 8, addF64AVX2, addGo) }
func widenAddF32(acc []float64, g []float32) { elementwise(acc, g, 8, widenAddF32AVX2, widenAddF32Go) }
func narrowF32(dst []float32, src []float64) { elementwise(dst, src, 8, narrowF32AVX2, narrowF32Go) }
