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
