// SPDX-License-Identifier: Apache-2.0

//go:build amd64 && !purego

#include "textflag.h"

// AES-NI with VEX encodings: memory operands need no alignment, so the
// round keys are read from the Key wherever the Go heap put it.

// func subWord(w uint32) uint32
// The S-box applied to each byte of w, by AESKEYGENASSIST (constant time).
TEXT ·subWord(SB), NOSPLIT, $0-12
	MOVL w+0(FP), AX
	MOVD AX, X0
	PSHUFD $0, X0, X0
	AESKEYGENASSIST $0, X0, X1
	MOVD X1, AX
	MOVL AX, ret+8(FP)
	RET

// func invMixColumns(dst, src *[16]byte)
TEXT ·invMixColumns(SB), NOSPLIT, $0-16
	MOVQ src+8(FP), AX
	MOVQ dst+0(FP), DX
	MOVUPS (AX), X0
	AESIMC X0, X1
	MOVUPS X1, (DX)
	RET

// ROUNDS runs the middle rounds 1 .. rounds-1 of INSTR on X over the keys
// at AX (CX = rounds: 10, 12 or 14) and the last one with LAST, key at R8.
#define ROUNDS(INSTR, LAST, X) \
	INSTR 16(AX), X, X; \
	INSTR 32(AX), X, X; \
	INSTR 48(AX), X, X; \
	INSTR 64(AX), X, X; \
	INSTR 80(AX), X, X; \
	INSTR 96(AX), X, X; \
	INSTR 112(AX), X, X; \
	INSTR 128(AX), X, X; \
	INSTR 144(AX), X, X; \
	CMPQ CX, $10; \
	JEQ 7(PC); \
	INSTR 160(AX), X, X; \
	INSTR 176(AX), X, X; \
	CMPQ CX, $12; \
	JEQ 3(PC); \
	INSTR 192(AX), X, X; \
	INSTR 208(AX), X, X; \
	LAST (R8), X, X

// ROUNDS4 is ROUNDS on X1..X4 at once (independent blocks pipeline).
#define R4(INSTR, K) \
	INSTR K, X1, X1; \
	INSTR K, X2, X2; \
	INSTR K, X3, X3; \
	INSTR K, X4, X4
#define ROUNDS4(INSTR, LAST) \
	R4(INSTR, 16(AX)); \
	R4(INSTR, 32(AX)); \
	R4(INSTR, 48(AX)); \
	R4(INSTR, 64(AX)); \
	R4(INSTR, 80(AX)); \
	R4(INSTR, 96(AX)); \
	R4(INSTR, 112(AX)); \
	R4(INSTR, 128(AX)); \
	R4(INSTR, 144(AX)); \
	CMPQ CX, $10; \
	JEQ 19(PC); \
	R4(INSTR, 160(AX)); \
	R4(INSTR, 176(AX)); \
	CMPQ CX, $12; \
	JEQ 9(PC); \
	R4(INSTR, 192(AX)); \
	R4(INSTR, 208(AX)); \
	R4(LAST, (R8))

// func cbcEncrypt(rk *byte, rounds int, iv *[16]byte, dst, src *byte, n int)
// n > 0 blocks; iv is the chaining value in and out.
TEXT ·cbcEncrypt(SB), NOSPLIT, $0-48
	MOVQ rk+0(FP), AX
	MOVQ rounds+8(FP), CX
	MOVQ iv+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ src+32(FP), SI
	MOVQ n+40(FP), BX
	MOVQ CX, R8
	SHLQ $4, R8
	ADDQ AX, R8
	VMOVDQU (DX), X0
encLoop:
	VMOVDQU (SI), X1
	VPXOR X0, X1, X1
	VPXOR (AX), X1, X1
	ROUNDS(VAESENC, VAESENCLAST, X1)
	VMOVDQU X1, (DI)
	VMOVDQA X1, X0
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ BX
	JNZ encLoop
	VMOVDQU X0, (DX)
	VZEROUPPER
	RET

// func cbcDecrypt(rk *byte, rounds int, iv *[16]byte, dst, src *byte, n int)
// rk: the decryption schedule (equivalent inverse cipher). Four blocks at
// a time: decryption has no chain between blocks.
TEXT ·cbcDecrypt(SB), NOSPLIT, $0-48
	MOVQ rk+0(FP), AX
	MOVQ rounds+8(FP), CX
	MOVQ iv+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ src+32(FP), SI
	MOVQ n+40(FP), BX
	MOVQ CX, R8
	SHLQ $4, R8
	ADDQ AX, R8
	VMOVDQU (DX), X0
	VMOVDQU (AX), X9
decLoop4:
	CMPQ BX, $4
	JB decLoop1
	VMOVDQU 0(SI), X5
	VMOVDQU 16(SI), X6
	VMOVDQU 32(SI), X7
	VMOVDQU 48(SI), X8
	VPXOR X9, X5, X1
	VPXOR X9, X6, X2
	VPXOR X9, X7, X3
	VPXOR X9, X8, X4
	ROUNDS4(VAESDEC, VAESDECLAST)
	VPXOR X0, X1, X1
	VPXOR X5, X2, X2
	VPXOR X6, X3, X3
	VPXOR X7, X4, X4
	VMOVDQU X1, 0(DI)
	VMOVDQU X2, 16(DI)
	VMOVDQU X3, 32(DI)
	VMOVDQU X4, 48(DI)
	VMOVDQA X8, X0
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $4, BX
	JMP decLoop4
decLoop1:
	TESTQ BX, BX
	JZ decDone
	VMOVDQU (SI), X5
	VPXOR X9, X5, X1
	ROUNDS(VAESDEC, VAESDECLAST, X1)
	VPXOR X0, X1, X1
	VMOVDQU X1, (DI)
	VMOVDQA X5, X0
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ BX
	JMP decLoop1
decDone:
	VMOVDQU X0, (DX)
	VZEROUPPER
	RET

// EIGHT applies INSTR with key K to X1..X8.
#define EIGHT(INSTR, K) \
	INSTR K, X1, X1; \
	INSTR K, X2, X2; \
	INSTR K, X3, X3; \
	INSTR K, X4, X4; \
	INSTR K, X5, X5; \
	INSTR K, X6, X6; \
	INSTR K, X7, X7; \
	INSTR K, X8, X8
#define ROUNDS8(INSTR, LAST) \
	EIGHT(INSTR, 16(AX)); \
	EIGHT(INSTR, 32(AX)); \
	EIGHT(INSTR, 48(AX)); \
	EIGHT(INSTR, 64(AX)); \
	EIGHT(INSTR, 80(AX)); \
	EIGHT(INSTR, 96(AX)); \
	EIGHT(INSTR, 112(AX)); \
	EIGHT(INSTR, 128(AX)); \
	EIGHT(INSTR, 144(AX)); \
	CMPQ CX, $10; \
	JEQ 35(PC); \
	EIGHT(INSTR, 160(AX)); \
	EIGHT(INSTR, 176(AX)); \
	CMPQ CX, $12; \
	JEQ 17(PC); \
	EIGHT(INSTR, 192(AX)); \
	EIGHT(INSTR, 208(AX)); \
	EIGHT(LAST, (R8))

// COUNTER sets X to the 128-bit big-endian counter R9:R10 (high:low
// halves, native order) XOR the first round key (X9), then increments it.
#define COUNTER(X) \
	MOVQ R9, R13; \
	BSWAPQ R13; \
	MOVQ R10, R12; \
	BSWAPQ R12; \
	VMOVQ R13, X; \
	VPINSRQ $1, R12, X, X; \
	VPXOR X9, X, X; \
	ADDQ $1, R10; \
	ADCQ $0, R9

// FASTCOUNTER sets X to the counter block whose 128-bit little-endian
// value is in X10 (byte-reversed by the mask in X12) XOR the first round
// key, and adds X11 (1 in the low quadword) to X10: no carry into the high
// quadword, which the caller rules out for the batch.
#define FASTCOUNTER(X) \
	VPSHUFB X12, X10, X; \
	VPXOR X9, X, X; \
	VPADDQ X11, X10, X10

// SIXTEEN applies INSTR with the doubled key K to Y1..Y8: sixteen blocks.
#define SIXTEEN(INSTR, K) \
	INSTR K, Y1, Y1; \
	INSTR K, Y2, Y2; \
	INSTR K, Y3, Y3; \
	INSTR K, Y4, Y4; \
	INSTR K, Y5, Y5; \
	INSTR K, Y6, Y6; \
	INSTR K, Y7, Y7; \
	INSTR K, Y8, Y8
#define ROUNDS16(INSTR, LAST) \
	SIXTEEN(INSTR, 32(R13)); \
	SIXTEEN(INSTR, 64(R13)); \
	SIXTEEN(INSTR, 96(R13)); \
	SIXTEEN(INSTR, 128(R13)); \
	SIXTEEN(INSTR, 160(R13)); \
	SIXTEEN(INSTR, 192(R13)); \
	SIXTEEN(INSTR, 224(R13)); \
	SIXTEEN(INSTR, 256(R13)); \
	SIXTEEN(INSTR, 288(R13)); \
	CMPQ CX, $10; \
	JEQ 35(PC); \
	SIXTEEN(INSTR, 320(R13)); \
	SIXTEEN(INSTR, 352(R13)); \
	CMPQ CX, $12; \
	JEQ 17(PC); \
	SIXTEEN(INSTR, 384(R13)); \
	SIXTEEN(INSTR, 416(R13)); \
	SIXTEEN(LAST, (R12))

// WIDECOUNTER sets Y to two counter blocks from Y10 (their little-endian
// values, one per lane) XOR the first round key (Y9), and adds 2 to both.
#define WIDECOUNTER(Y) \
	VPSHUFB Y12, Y10, Y; \
	VPXOR Y9, Y, Y; \
	VPADDQ Y14, Y10, Y10

// func ctrXORWide(rk2 *byte, rounds int, ctr *[16]byte, dst, src *byte, n int) int
// As ctrXOR for n blocks, sixteen at a time with VAES on 256-bit registers
// (rk2: the schedule with each round key twice), as long as the counter's
// low 64 bits do not wrap inside a batch; returns the blocks done (a
// multiple of 16), the rest is for ctrXOR.
TEXT ·ctrXORWide(SB), NOSPLIT, $0-56
	MOVQ rk2+0(FP), R13
	MOVQ rounds+8(FP), CX
	MOVQ ctr+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ src+32(FP), SI
	MOVQ n+40(FP), BX
	MOVQ CX, R12
	SHLQ $5, R12
	ADDQ R13, R12
	MOVQ 0(DX), R9
	BSWAPQ R9
	MOVQ 8(DX), R10
	BSWAPQ R10
	VMOVDQU (R13), Y9
	MOVQ $1, R11
	VMOVQ R11, X11
	MOVQ $2, R11
	VMOVQ R11, X14
	VINSERTI128 $1, X14, Y14, Y14
	MOVQ $0x08090a0b0c0d0e0f, R11
	VMOVQ R11, X12
	MOVQ $0x0001020304050607, R11
	VPINSRQ $1, R11, X12, X12
	VINSERTI128 $1, X12, Y12, Y12
	XORQ AX, AX
wideLoop:
	CMPQ BX, $16
	JB wideDone
	MOVQ R10, R11
	ADDQ $16, R11
	JCS wideDone
	VMOVQ R10, X10
	VPINSRQ $1, R9, X10, X10
	VPADDQ X11, X10, X13
	VINSERTI128 $1, X13, Y10, Y10
	WIDECOUNTER(Y1)
	WIDECOUNTER(Y2)
	WIDECOUNTER(Y3)
	WIDECOUNTER(Y4)
	WIDECOUNTER(Y5)
	WIDECOUNTER(Y6)
	WIDECOUNTER(Y7)
	WIDECOUNTER(Y8)
	MOVQ R11, R10
	ROUNDS16(VAESENC, VAESENCLAST)
	VPXOR 0(SI), Y1, Y1
	VPXOR 32(SI), Y2, Y2
	VPXOR 64(SI), Y3, Y3
	VPXOR 96(SI), Y4, Y4
	VPXOR 128(SI), Y5, Y5
	VPXOR 160(SI), Y6, Y6
	VPXOR 192(SI), Y7, Y7
	VPXOR 224(SI), Y8, Y8
	VMOVDQU Y1, 0(DI)
	VMOVDQU Y2, 32(DI)
	VMOVDQU Y3, 64(DI)
	VMOVDQU Y4, 96(DI)
	VMOVDQU Y5, 128(DI)
	VMOVDQU Y6, 160(DI)
	VMOVDQU Y7, 192(DI)
	VMOVDQU Y8, 224(DI)
	ADDQ $256, SI
	ADDQ $256, DI
	SUBQ $16, BX
	ADDQ $16, AX
	JMP wideLoop
wideDone:
	BSWAPQ R9
	MOVQ R9, 0(DX)
	BSWAPQ R10
	MOVQ R10, 8(DX)
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET

// func ctrXOR(rk *byte, rounds int, ctr *[16]byte, dst, src *byte, n int)
// dst = src XOR the keystream of n > 0 whole blocks from the counter block
// in ctr, which is left pointing past them. Eight blocks at a time, their
// counters made in vector registers unless the low 64 bits wrap inside the
// batch.
TEXT ·ctrXOR(SB), NOSPLIT, $0-48
	MOVQ rk+0(FP), AX
	MOVQ rounds+8(FP), CX
	MOVQ ctr+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ src+32(FP), SI
	MOVQ n+40(FP), BX
	MOVQ CX, R8
	SHLQ $4, R8
	ADDQ AX, R8
	MOVQ 0(DX), R9
	BSWAPQ R9
	MOVQ 8(DX), R10
	BSWAPQ R10
	VMOVDQU (AX), X9
	MOVQ $1, R11
	VMOVQ R11, X11
	MOVQ $0x08090a0b0c0d0e0f, R11
	VMOVQ R11, X12
	MOVQ $0x0001020304050607, R11
	VPINSRQ $1, R11, X12, X12
ctrLoop8:
	CMPQ BX, $8
	JB ctrLoop1
	MOVQ R10, R11
	ADDQ $8, R11
	JCS ctrSlow8
	VMOVQ R10, X10
	VPINSRQ $1, R9, X10, X10
	FASTCOUNTER(X1)
	FASTCOUNTER(X2)
	FASTCOUNTER(X3)
	FASTCOUNTER(X4)
	FASTCOUNTER(X5)
	FASTCOUNTER(X6)
	FASTCOUNTER(X7)
	FASTCOUNTER(X8)
	MOVQ R11, R10
	JMP ctrRounds8
ctrSlow8:
	COUNTER(X1)
	COUNTER(X2)
	COUNTER(X3)
	COUNTER(X4)
	COUNTER(X5)
	COUNTER(X6)
	COUNTER(X7)
	COUNTER(X8)
ctrRounds8:
	ROUNDS8(VAESENC, VAESENCLAST)
	VPXOR 0(SI), X1, X1
	VPXOR 16(SI), X2, X2
	VPXOR 32(SI), X3, X3
	VPXOR 48(SI), X4, X4
	VPXOR 64(SI), X5, X5
	VPXOR 80(SI), X6, X6
	VPXOR 96(SI), X7, X7
	VPXOR 112(SI), X8, X8
	VMOVDQU X1, 0(DI)
	VMOVDQU X2, 16(DI)
	VMOVDQU X3, 32(DI)
	VMOVDQU X4, 48(DI)
	VMOVDQU X5, 64(DI)
	VMOVDQU X6, 80(DI)
	VMOVDQU X7, 96(DI)
	VMOVDQU X8, 112(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $8, BX
	JMP ctrLoop8
ctrLoop1:
	TESTQ BX, BX
	JZ ctrDone
	COUNTER(X1)
	ROUNDS(VAESENC, VAESENCLAST, X1)
	VPXOR (SI), X1, X1
	VMOVDQU X1, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ BX
	JMP ctrLoop1
ctrDone:
	BSWAPQ R9
	MOVQ R9, 0(DX)
	BSWAPQ R10
	MOVQ R10, 8(DX)
	VZEROUPPER
	RET
