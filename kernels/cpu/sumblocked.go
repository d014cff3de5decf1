package cpu

import (
	"unsafe"

	"github.com/fkc-playground/fkc/internal/par"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// sum_all_blocked (contracts/project/fkc-cpu-kernels.fkc.md): the sum of
// all elements in a fixed order other than the oracle's flat fold, chosen
// so that it vectorises and splits across cores while the result stays a
// function of the input alone:
//
//  1. x, in flat order, is cut into blocks of blockLen elements (the last
//     one may be shorter);
//  2. in each block, lane l (0..31) adds the block's elements l, l+32,
//     l+64, … in that order, starting from +0;
//  3. the 32 lanes fold pairwise by halves: s[l] += s[l+16] for l < 16,
//     then s[l] += s[l+8] for l < 8, then 4, 2, 1; the block's sum is s[0];
//  4. the block sums fold pairwise level by level: t[i] = t[2i] + t[2i+1],
//     an odd last one carried up unchanged, until one is left (none: +0).
//
// Every add is in the element dtype (a half add rounds to the half type),
// as in the oracle. Nothing depends on the vector width or the worker
// count: workers take whole blocks, and steps 3 and 4 run on one.

// blockLen is the block size: 128 adds per lane, a block sum in 4 KiB
// steps small enough to share out, 16,384 blocks for 64 Mi elements.
const blockLen = 4096

// SumAllBlocked is sum_all_blocked: rank-0 output of x's dtype.
func SumAllBlocked(x *tensor.Tensor) (*tensor.Tensor, error) {
	return sumAllBlocked(x, false)
}

// SumAllBlockedRef is the reference walk of sum_all_blocked: every element
// in flat order is added into its (block, lane) accumulator, then steps 3
// and 4 as written.
func SumAllBlockedRef(x *tensor.Tensor) (*tensor.Tensor, error) {
	return sumAllBlocked(x, true)
}

func sumAllBlocked(x *tensor.Tensor, ref bool) (*tensor.Tensor, error) {
	if err := kernels.CheckOperand("sum_all_blocked", "x", x, kernels.FloatDTypes); err != nil {
		return nil, err
	}
	if err := kernels.CheckHost("sum_all_blocked", x); err != nil {
		return nil, err
	}
	return apply(x, []int{},
		func(in, out []float32, rnd func(float32) float32) {
			if ref {
				out[0] = blockedSumRef(in, rnd)
			} else {
				out[0] = blockedSum(in, rnd)
			}
		},
		func(in, out []float64) {
			if ref {
				out[0] = blockedSumRef(in, nil)
			} else {
				out[0] = blockedSum(in, nil)
			}
		}), nil
}

// addRnd is one in-dtype add.
func addRnd[T float](a, b T, rnd func(T) T) T {
	s := a + b
	if rnd != nil {
		s = rnd(s)
	}
	return s
}

// foldLanes is step 3.
func foldLanes[T float](s *[lanes]T, rnd func(T) T) T {
	for h := lanes / 2; h >= 1; h /= 2 {
		for l := 0; l < h; l++ {
			s[l] = addRnd(s[l], s[l+h], rnd)
		}
	}
	return s[0]
}

// foldBlocks is step 4 (in place).
func foldBlocks[T float](t []T, rnd func(T) T) T {
	if len(t) == 0 {
		return 0
	}
	for len(t) > 1 {
		h := len(t) / 2
		for i := 0; i < h; i++ {
			t[i] = addRnd(t[2*i], t[2*i+1], rnd)
		}
		if len(t)%2 == 1 {
			t[h] = t[len(t)-1]
			h++
		}
		t = t[:h]
	}
	return t[0]
}

// blockedSum: blocks in parallel, each through the lane primitive (the
// rounded half adds have none and run the same loop in Go); whole float32
// blocks go to blockSumsF32, which also folds the lanes.
func blockedSum[T float](x []T, rnd func(T) T) T {
	nb := (len(x) + blockLen - 1) / blockLen
	sums := make([]T, nb)
	es := int(unsafe.Sizeof(T(0)))
	par.For(nb, blockLen*es, func(lo, hi int) {
		if is32[T]() && rnd == nil {
			whole := min(hi, len(x)/blockLen) // blocks lo..whole-1 are full
			if whole > lo {
				blockSumsF32(as[float32](x[lo*blockLen:]), as[float32](sums[lo:whole]))
				lo = whole
			}
		}
		for b := lo; b < hi; b++ {
			sums[b] = blockSum(x[b*blockLen:min((b+1)*blockLen, len(x))], rnd)
		}
	})
	return foldBlocks(sums, rnd)
}

// blockSum is steps 2 and 3 for one block.
func blockSum[T float](blk []T, rnd func(T) T) T {
	var s [lanes]T
	full := len(blk) &^ (lanes - 1)
	if rnd != nil {
		for j := 0; j < full; j += lanes {
			for l, v := range blk[j : j+lanes] {
				s[l] = rnd(s[l] + v)
			}
		}
	} else {
		sumLanesT(blk[:full], &s)
	}
	for l, v := range blk[full:] {
		s[l] = addRnd(s[l], v, rnd)
	}
	return foldLanes(&s, rnd)
}

// blockSumsGo is blockSumsF32's Go loop. A block's 32 lanes go eight at a
// time, in locals, over the whole block (each lane still adds its elements
// in order from +0; the 16 KiB block stays in the L1 cache between the
// four passes), four of each lane's elements an iteration. In Go's WASM,
// which has no vectors, that beats sumLanesGo's read-add-store of acc[l]
// through memory several times over (every iteration goes through the
// function's block dispatch there). Measurements:
// docs/perf/cpu-reductions.md.
func blockSumsGo(x []float32, sums []float32) {
	var s [lanes]float32
	for b := range sums {
		blk := x[b*blockLen : (b+1)*blockLen]
		for q := 0; q < lanes; q += 8 {
			var a0, a1, a2, a3, a4, a5, a6, a7 float32
			for j := q; j < len(blk); j += 4 * lanes { // four of the lanes' elements an iteration
				v := blk[j : j+3*lanes+8 : j+3*lanes+8]
				a0 += v[0]
				a1 += v[1]
				a2 += v[2]
				a3 += v[3]
				a4 += v[4]
				a5 += v[5]
				a6 += v[6]
				a7 += v[7]
				a0 += v[1*lanes+0]
				a1 += v[1*lanes+1]
				a2 += v[1*lanes+2]
				a3 += v[1*lanes+3]
				a4 += v[1*lanes+4]
				a5 += v[1*lanes+5]
				a6 += v[1*lanes+6]
				a7 += v[1*lanes+7]
				a0 += v[2*lanes+0]
				a1 += v[2*lanes+1]
				a2 += v[2*lanes+2]
				a3 += v[2*lanes+3]
				a4 += v[2*lanes+4]
				a5 += v[2*lanes+5]
				a6 += v[2*lanes+6]
				a7 += v[2*lanes+7]
				a0 += v[3*lanes+0]
				a1 += v[3*lanes+1]
				a2 += v[3*lanes+2]
				a3 += v[3*lanes+3]
				a4 += v[3*lanes+4]
				a5 += v[3*lanes+5]
				a6 += v[3*lanes+6]
				a7 += v[3*lanes+7]
			}
			s[q], s[q+1], s[q+2], s[q+3], s[q+4], s[q+5], s[q+6], s[q+7] = a0, a1, a2, a3, a4, a5, a6, a7
		}
		sums[b] = foldLanes(&s, nil)
	}
}

func blockedSumRef[T float](x []T, rnd func(T) T) T {
	nb := (len(x) + blockLen - 1) / blockLen
	acc := make([][lanes]T, nb) // +0 everywhere
	for i, v := range x {
		b, l := i/blockLen, i%blockLen%lanes
		acc[b][l] = addRnd(acc[b][l], v, rnd)
	}
	sums := make([]T, nb)
	for b := range acc {
		sums[b] = foldLanes(&acc[b], rnd)
	}
	return foldBlocks(sums, rnd)
}

func init() { families = append(families, sumBlockedLinks) }

// sumBlockedLinks: a sum in its own contracted order, run from its page or
// chosen by name, never in place of sum_all's flat fold.
func sumBlockedLinks() []kernels.Link {
	return []kernels.Link{{EntryPoint: "fkc::cpu::sum_all_blocked", Runs: kernels.Variants("sum", kernels.FormAll), OwnOrder: true, Impl: unary(SumAllBlocked),
		Where: "kernels/cpu.SumAllBlocked (blocked 32-lane order; SumAllBlockedRef is its reference walk)"}}
}
