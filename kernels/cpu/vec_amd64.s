//go:build !noasm

#include "textflag.h"

// AVX2 versions of the loops in vec.go; each is the *Go loop of the same
// name. Operand order is Go's: sources first, destination last.

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// ADDLANES32 adds the 32 floats at SI into the lanes Y0..Y3.
#define ADDLANES32 \
	VADDPS (SI), Y0, Y0; \
	VADDPS 32(SI), Y1, Y1; \
	VADDPS 64(SI), Y2, Y2; \
	VADDPS 96(SI), Y3, Y3

// func sumLanesF32AVX2(x []float32, acc *[32]float32)
TEXT ·sumLanesF32AVX2(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ acc+24(FP), DI
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	SHRQ $5, CX
	JZ sumf32done
sumf32loop:
	ADDLANES32
	ADDQ $128, SI
	DECQ CX
	JNZ sumf32loop
sumf32done:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VZEROUPPER
	RET

// func sumLanesF64AVX2(x []float64, acc *[32]float64)
TEXT ·sumLanesF64AVX2(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ acc+24(FP), DI
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	VMOVUPD 128(DI), Y4
	VMOVUPD 160(DI), Y5
	VMOVUPD 192(DI), Y6
	VMOVUPD 224(DI), Y7
	SHRQ $5, CX
	JZ sumf64done
sumf64loop:
	VADDPD (SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	VADDPD 128(SI), Y4, Y4
	VADDPD 160(SI), Y5, Y5
	VADDPD 192(SI), Y6, Y6
	VADDPD 224(SI), Y7, Y7
	ADDQ $256, SI
	DECQ CX
	JNZ sumf64loop
sumf64done:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET

// EXTREME32 folds 32 floats at SI into Y0..Y3 with OP (VMAXPS or VMINPS):
// OP acc, v, acc is v > acc ? v : acc (v < acc for VMINPS), so the loaded
// value must be the first source, a register.
#define EXTREME32(OP) \
	VMOVUPS (SI), Y4; \
	VMOVUPS 32(SI), Y5; \
	VMOVUPS 64(SI), Y6; \
	VMOVUPS 96(SI), Y7; \
	OP Y0, Y4, Y0; \
	OP Y1, Y5, Y1; \
	OP Y2, Y6, Y2; \
	OP Y3, Y7, Y3

#define LOADACC32 \
	VMOVUPS (DI), Y0; \
	VMOVUPS 32(DI), Y1; \
	VMOVUPS 64(DI), Y2; \
	VMOVUPS 96(DI), Y3

#define STOREACC32 \
	VMOVUPS Y0, (DI); \
	VMOVUPS Y1, 32(DI); \
	VMOVUPS Y2, 64(DI); \
	VMOVUPS Y3, 96(DI)

// func extremeLanesF32AVX2(x []float32, acc *[32]float32, max bool)
TEXT ·extremeLanesF32AVX2(SB), NOSPLIT, $0-33
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ acc+24(FP), DI
	MOVBLZX max+32(FP), AX
	LOADACC32
	SHRQ $5, CX
	JZ ext32done
	TESTQ AX, AX
	JZ ext32min
ext32max:
	EXTREME32(VMAXPS)
	ADDQ $128, SI
	DECQ CX
	JNZ ext32max
	JMP ext32done
ext32min:
	EXTREME32(VMINPS)
	ADDQ $128, SI
	DECQ CX
	JNZ ext32min
ext32done:
	STOREACC32
	VZEROUPPER
	RET

// EXTREME64 folds 32 doubles at SI into Y0..Y7 with OP (VMAXPD or VMINPD),
// through Y8..Y11 for the loaded values.
#define EXTREME64(OP) \
	VMOVUPD (SI), Y8; \
	VMOVUPD 32(SI), Y9; \
	VMOVUPD 64(SI), Y10; \
	VMOVUPD 96(SI), Y11; \
	OP Y0, Y8, Y0; \
	OP Y1, Y9, Y1; \
	OP Y2, Y10, Y2; \
	OP Y3, Y11, Y3; \
	VMOVUPD 128(SI), Y8; \
	VMOVUPD 160(SI), Y9; \
	VMOVUPD 192(SI), Y10; \
	VMOVUPD 224(SI), Y11; \
	OP Y4, Y8, Y4; \
	OP Y5, Y9, Y5; \
	OP Y6, Y10, Y6; \
	OP Y7, Y11, Y7

#define LOADACC64 \
	VMOVUPD (DI), Y0; \
	VMOVUPD 32(DI), Y1; \
	VMOVUPD 64(DI), Y2; \
	VMOVUPD 96(DI), Y3; \
	VMOVUPD 128(DI), Y4; \
	VMOVUPD 160(DI), Y5; \
	VMOVUPD 192(DI), Y6; \
	VMOVUPD 224(DI), Y7

#define STOREACC64 \
	VMOVUPD Y0, (DI); \
	VMOVUPD Y1, 32(DI); \
	VMOVUPD Y2, 64(DI); \
	VMOVUPD Y3, 96(DI); \
	VMOVUPD Y4, 128(DI); \
	VMOVUPD Y5, 160(DI); \
	VMOVUPD Y6, 192(DI); \
	VMOVUPD Y7, 224(DI)

// func extremeLanesF64AVX2(x []float64, acc *[32]float64, max bool)
TEXT ·extremeLanesF64AVX2(SB), NOSPLIT, $0-33
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ acc+24(FP), DI
	MOVBLZX max+32(FP), AX
	LOADACC64
	SHRQ $5, CX
	JZ ext64done
	TESTQ AX, AX
	JZ ext64min
ext64max:
	EXTREME64(VMAXPD)
	ADDQ $256, SI
	DECQ CX
	JNZ ext64max
	JMP ext64done
ext64min:
	EXTREME64(VMINPD)
	ADDQ $256, SI
	DECQ CX
	JNZ ext64min
ext64done:
	STOREACC64
	VZEROUPPER
	RET

// TRANSPOSE8 turns rows Y0..Y7 (8 floats each) into columns and adds them
// to ACC in column order 0..7, so each lane r of ACC adds row r's
// elements left to right. Clobbers Y0..Y11.
#define TRANSPOSE8ADD(ACC) \
	VUNPCKLPS Y1, Y0, Y8; \
	VUNPCKHPS Y1, Y0, Y9; \
	VUNPCKLPS Y3, Y2, Y10; \
	VUNPCKHPS Y3, Y2, Y11; \
	VSHUFPS $0x44, Y10, Y8, Y0; \
	VSHUFPS $0xEE, Y10, Y8, Y1; \
	VSHUFPS $0x44, Y11, Y9, Y2; \
	VSHUFPS $0xEE, Y11, Y9, Y3; \
	VUNPCKLPS Y5, Y4, Y8; \
	VUNPCKHPS Y5, Y4, Y9; \
	VUNPCKLPS Y7, Y6, Y10; \
	VUNPCKHPS Y7, Y6, Y11; \
	VSHUFPS $0x44, Y10, Y8, Y4; \
	VSHUFPS $0xEE, Y10, Y8, Y5; \
	VSHUFPS $0x44, Y11, Y9, Y6; \
	VSHUFPS $0xEE, Y11, Y9, Y7; \
	VPERM2F128 $0x20, Y4, Y0, Y8; \
	VADDPS Y8, ACC, ACC; \
	VPERM2F128 $0x20, Y5, Y1, Y9; \
	VADDPS Y9, ACC, ACC; \
	VPERM2F128 $0x20, Y6, Y2, Y10; \
	VADDPS Y10, ACC, ACC; \
	VPERM2F128 $0x20, Y7, Y3, Y11; \
	VADDPS Y11, ACC, ACC; \
	VPERM2F128 $0x31, Y4, Y0, Y8; \
	VADDPS Y8, ACC, ACC; \
	VPERM2F128 $0x31, Y5, Y1, Y9; \
	VADDPS Y9, ACC, ACC; \
	VPERM2F128 $0x31, Y6, Y2, Y10; \
	VADDPS Y10, ACC, ACC; \
	VPERM2F128 $0x31, Y7, Y3, Y11; \
	VADDPS Y11, ACC, ACC

// LOAD8ROWS loads 8 floats at byte offset OFF from each of the rows at P,
// P+BX, P+2BX, P+3BX (R8 = 3BX) and Q, Q+BX, Q+2BX, Q+3BX.
#define LOAD8ROWS(OFF, P, Q) \
	VMOVUPS OFF(P), Y0; \
	VMOVUPS OFF(P)(BX*1), Y1; \
	VMOVUPS OFF(P)(BX*2), Y2; \
	VMOVUPS OFF(P)(R8*1), Y3; \
	VMOVUPS OFF(Q), Y4; \
	VMOVUPS OFF(Q)(BX*1), Y5; \
	VMOVUPS OFF(Q)(BX*2), Y6; \
	VMOVUPS OFF(Q)(R8*1), Y7

// func sumRows8F32AVX2(x []float32, stride, cols int, acc *[8]float32)
// One add chain (Y14) over 8 rows, 16 columns a round, so each row's cache
// line is used whole as soon as it is loaded, and each row's line 2 KiB
// ahead is prefetched. On the 2-core EPYC VM, sum_dim of [4096, 4096]:
// 8 rows with prefetch 1.15 ms, 16 rows (two chains) with prefetch 1.30,
// 16 rows without 1.43, against a 1.0 ms streaming read (side by side).
// Tried and dropped: AVX-512, 16 rows in one 512-bit chain (each row's
// whole line loaded at once, an 8x8 transpose per 256-bit half, then
// VSHUFF64X2 to interleave the halves): 50 against 46 GB/s with the rows
// in L2, but 3.08 against 2.04-2.78 ms on [4096, 4096] at one thread:
// 16 rows 16 KiB apart share an L1 set, more than its 12 ways.
TEXT ·sumRows8F32AVX2(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ stride+24(FP), BX
	MOVQ cols+32(FP), CX
	MOVQ acc+40(FP), DI
	SHLQ $2, BX          // row stride in bytes
	LEAQ (BX)(BX*2), R8  // 3 rows
	LEAQ (SI)(BX*4), R9  // row 4
	VMOVUPS (DI), Y14
	MOVQ CX, DX
	SHRQ $4, CX          // rounds of 16 columns
	JZ rowstail
rowsloop:
	PREFETCHT0 2048(SI)
	PREFETCHT0 2048(SI)(BX*1)
	PREFETCHT0 2048(SI)(BX*2)
	PREFETCHT0 2048(SI)(R8*1)
	PREFETCHT0 2048(R9)
	PREFETCHT0 2048(R9)(BX*1)
	PREFETCHT0 2048(R9)(BX*2)
	PREFETCHT0 2048(R9)(R8*1)
	LOAD8ROWS(0, SI, R9)
	TRANSPOSE8ADD(Y14)
	LOAD8ROWS(32, SI, R9)
	TRANSPOSE8ADD(Y14)
	ADDQ $64, SI
	ADDQ $64, R9
	DECQ CX
	JNZ rowsloop
rowstail:
	TESTQ $8, DX         // 8 columns left (cols is a multiple of 8)
	JZ rowsdone
	LOAD8ROWS(0, SI, R9)
	TRANSPOSE8ADD(Y14)
rowsdone:
	VMOVUPS Y14, (DI)
	VZEROUPPER
	RET

// ADD64B adds the 64 bytes at SI into the 64 bytes at DI with ADDOP
// (VADDPS or VADDPD), CX times.
#define ADD64B(ADDOP, LOOP) \
LOOP: \
	VMOVUPS (DI), Y0; \
	VMOVUPS 32(DI), Y1; \
	ADDOP (SI), Y0, Y0; \
	ADDOP 32(SI), Y1, Y1; \
	VMOVUPS Y0, (DI); \
	VMOVUPS Y1, 32(DI); \
	ADDQ $64, DI; \
	ADDQ $64, SI; \
	DECQ CX; \
	JNZ LOOP

// func addF32AVX2(dst, src []float32)  (len(dst) elements, a multiple of 16)
TEXT ·addF32AVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	SHRQ $4, CX
	JZ addf32done
	ADD64B(VADDPS, addf32loop)
addf32done:
	VZEROUPPER
	RET

// func addF64AVX2(dst, src []float64)  (len(dst) elements, a multiple of 8)
TEXT ·addF64AVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	SHRQ $3, CX
	JZ addf64done
	ADD64B(VADDPD, addf64loop)
addf64done:
	VZEROUPPER
	RET

// func widenAddF32AVX2(acc []float64, g []float32)  (len(acc), a multiple of 8)
TEXT ·widenAddF32AVX2(SB), NOSPLIT, $0-48
	MOVQ acc_base+0(FP), DI
	MOVQ acc_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	SHRQ $3, CX
	JZ widendone
widenloop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VADDPD (DI), Y0, Y0
	VADDPD 32(DI), Y1, Y1
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ widenloop
widendone:
	VZEROUPPER
	RET

// func narrowF32AVX2(dst []float32, src []float64)  (len(dst), a multiple of 8)
TEXT ·narrowF32AVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	SHRQ $3, CX
	JZ narrowdone
narrowloop:
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VMOVUPS X0, (DI)
	VMOVUPS X1, 16(DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ narrowloop
narrowdone:
	VZEROUPPER
	RET

// func prefetchAVX2(b []byte)  (any length; one PREFETCHT0 per 64 bytes)
TEXT ·prefetchAVX2(SB), NOSPLIT, $0-24
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	ADDQ SI, CX
prefetchloop:
	CMPQ SI, CX
	JAE prefetchdone
	PREFETCHT0 (SI)
	ADDQ $64, SI
	JMP prefetchloop
prefetchdone:
	RET

// func blockSumsF32AVX2(x []float32, sums []float32)
// For each whole block of 4096 floats (len(sums) of them): 32 lanes from
// +0 as in sumLanesF32AVX2, then the lanes folded pairwise by halves
// (s[l] += s[l+16], then +8, +4, +2, +1), the block's sum stored.
TEXT ·blockSumsF32AVX2(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ sums_base+24(FP), DI
	MOVQ sums_len+32(FP), DX
	TESTQ DX, DX
	JZ blocksdone
blockloop:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ $128, CX // 4096 / 32
blocklanes:
	ADDLANES32
	ADDQ $128, SI
	DECQ CX
	JNZ blocklanes
	VADDPS Y2, Y0, Y0 // h = 16: lanes 0..7 += 16..23, 8..15 += 24..31
	VADDPS Y3, Y1, Y1
	VADDPS Y1, Y0, Y0 // h = 8
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0 // h = 4
	VMOVHLPS X0, X0, X1
	VADDPS X1, X0, X0 // h = 2
	VMOVSHDUP X0, X1
	VADDSS X1, X0, X0 // h = 1
	VMOVSS X0, (DI)
	ADDQ $4, DI
	DECQ DX
	JNZ blockloop
blocksdone:
	VZEROUPPER
	RET

// func gatherU32AVX2(dst, row []uint32, idx []uint32) (maxIdx uint32)
// dst[c] = row[idx[c]] for len(idx) (a multiple of 8) indices, each first
// clamped to len(row)-1 so that no load leaves row; returns the largest
// index seen, which the caller checks against len(row). len(row) >= 1.
TEXT ·gatherU32AVX2(SB), NOSPLIT, $0-76
	MOVQ dst_base+0(FP), DI
	MOVQ row_base+24(FP), SI
	MOVQ row_len+32(FP), AX
	MOVQ idx_base+48(FP), DX
	MOVQ idx_len+56(FP), CX
	DECQ AX
	MOVL AX, X15
	VPBROADCASTD X15, Y15 // len(row)-1
	VPXOR Y14, Y14, Y14   // max index seen
	SHRQ $3, CX
	JZ gatherdone
gatherloop:
	VMOVDQU (DX), Y1
	VPMAXUD Y1, Y14, Y14
	VPMINUD Y15, Y1, Y1
	VPCMPEQD Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPGATHERDD Y2, (SI)(Y1*4), Y3
	VMOVDQU Y3, (DI)
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ gatherloop
gatherdone:
	VEXTRACTI128 $1, Y14, X0
	VPMAXUD X0, X14, X14
	VPSHUFD $0x4e, X14, X0
	VPMAXUD X0, X14, X14
	VPSHUFD $0xb1, X14, X0
	VPMAXUD X0, X14, X14
	VMOVD X14, AX
	MOVL AX, maxIdx+72(FP)
	VZEROUPPER
	RET

// func extremeF32AVX2(x []float32, max bool) float32
// The largest (smallest) non-NaN value of x (len a multiple of 32), or
// -inf (+inf) when there is none: extremeLanesF32AVX2 from ∓inf, then the
// lanes combined. Which of +0 and -0 it returns when both tie is
// unspecified; the caller settles a zero.
TEXT ·extremeF32AVX2(SB), NOSPLIT, $0-36
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVBLZX max+24(FP), AX
	MOVL $0xff800000, BX // -inf
	TESTQ AX, AX
	JNZ extseed
	MOVL $0x7f800000, BX // +inf
extseed:
	MOVL BX, X0
	VBROADCASTSS X0, Y0
	VMOVAPS Y0, Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y0, Y3
	SHRQ $5, CX
	JZ extcombine
	TESTQ AX, AX
	JZ extminloop
extmaxloop:
	EXTREME32(VMAXPS)
	ADDQ $128, SI
	DECQ CX
	JNZ extmaxloop
	VMAXPS Y1, Y0, Y0
	VMAXPS Y3, Y2, Y2
	VMAXPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VMAXPS X1, X0, X0
	VMOVSHDUP X0, X1
	VMAXSS X1, X0, X0
	JMP extdone
extminloop:
	EXTREME32(VMINPS)
	ADDQ $128, SI
	DECQ CX
	JNZ extminloop
extcombine:
	// Also reached with no blocks, where every lane holds the seed and
	// min and max combine alike.
	VMINPS Y1, Y0, Y0
	VMINPS Y3, Y2, Y2
	VMINPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMINPS X1, X0, X0
	VMOVHLPS X0, X0, X1
	VMINPS X1, X0, X0
	VMOVSHDUP X0, X1
	VMINSS X1, X0, X0
extdone:
	VMOVSS X0, ret+32(FP)
	VZEROUPPER
	RET


// func moveAVX2(dst, src []byte)
// dst = src, len(dst) a multiple of 128, 32-byte loads and stores.
TEXT ·moveAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	SHRQ $7, CX
	JZ movedone
moveloop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ moveloop
movedone:
	VZEROUPPER
	RET

// func firstEqualF32AVX2(x []float32, bits uint32) int
// The index of x's first element whose bits are bits, among its first
// len &^ 31 elements, or len &^ 31 when none is: 32 elements (four
// 32-byte compares) an iteration.
TEXT ·firstEqualF32AVX2(SB), NOSPLIT, $0-40
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVL bits+24(FP), AX
	MOVL AX, X0
	VPBROADCASTD X0, Y0
	XORQ DX, DX
	SHRQ $5, CX
	JZ feqnone
feqloop:
	VPCMPEQD (SI), Y0, Y1
	VPCMPEQD 32(SI), Y0, Y2
	VPCMPEQD 64(SI), Y0, Y3
	VPCMPEQD 96(SI), Y0, Y4
	VPOR Y1, Y2, Y5
	VPOR Y3, Y4, Y6
	VPOR Y5, Y6, Y5
	VPTEST Y5, Y5
	JNZ feqfound
	ADDQ $128, SI
	ADDQ $32, DX
	DECQ CX
	JNZ feqloop
feqnone:
	MOVQ DX, ret+32(FP)
	VZEROUPPER
	RET
feqfound:
	VMOVMSKPS Y1, AX
	TESTL AX, AX
	JNZ feqat
	ADDQ $8, DX
	VMOVMSKPS Y2, AX
	TESTL AX, AX
	JNZ feqat
	ADDQ $8, DX
	VMOVMSKPS Y3, AX
	TESTL AX, AX
	JNZ feqat
	ADDQ $8, DX
	VMOVMSKPS Y4, AX
feqat:
	BSFL AX, AX
	ADDQ AX, DX
	MOVQ DX, ret+32(FP)
	VZEROUPPER
	RET
