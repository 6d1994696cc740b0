// SPDX-License-Identifier: Apache-2.0

//go:build amd64 && !purego

#include "textflag.h"

// Field arithmetic mod p = 2^255-19 on four 64-bit limbs (radix 2^64,
// values below 2^256, reduced with 2^256 = 38 mod p), with MULX and
// ADCX/ADOX (BMI2 and ADX). Operands are fe64 values at byte offsets from
// SI; every macro clobbers AX, BX, CX, DX, DI and R8-R13.

// FE_MUL: z = x·y.
#define FE_MUL(z, x, y) \
	MOVQ x+0(SI), DX; \
	MULXQ y+0(SI), R8, R9; \
	MULXQ y+8(SI), AX, R10; \
	ADDQ AX, R9; \
	MULXQ y+16(SI), AX, R11; \
	ADCQ AX, R10; \
	MULXQ y+24(SI), AX, R12; \
	ADCQ AX, R11; \
	ADCQ $0, R12; \
	MOVQ x+8(SI), DX; \
	XORQ R13, R13; \
	MULXQ y+0(SI), AX, CX; \
	ADCXQ AX, R9; \
	ADOXQ CX, R10; \
	MULXQ y+8(SI), AX, CX; \
	ADCXQ AX, R10; \
	ADOXQ CX, R11; \
	MULXQ y+16(SI), AX, CX; \
	ADCXQ AX, R11; \
	ADOXQ CX, R12; \
	MULXQ y+24(SI), AX, CX; \
	ADCXQ AX, R12; \
	ADOXQ CX, R13; \
	MOVL $0, AX; \
	ADCXQ AX, R13; \
	MOVQ x+16(SI), DX; \
	XORQ BX, BX; \
	MULXQ y+0(SI), AX, CX; \
	ADCXQ AX, R10; \
	ADOXQ CX, R11; \
	MULXQ y+8(SI), AX, CX; \
	ADCXQ AX, R11; \
	ADOXQ CX, R12; \
	MULXQ y+16(SI), AX, CX; \
	ADCXQ AX, R12; \
	ADOXQ CX, R13; \
	MULXQ y+24(SI), AX, CX; \
	ADCXQ AX, R13; \
	ADOXQ CX, BX; \
	MOVL $0, AX; \
	ADCXQ AX, BX; \
	MOVQ x+24(SI), DX; \
	XORQ DI, DI; \
	MULXQ y+0(SI), AX, CX; \
	ADCXQ AX, R11; \
	ADOXQ CX, R12; \
	MULXQ y+8(SI), AX, CX; \
	ADCXQ AX, R12; \
	ADOXQ CX, R13; \
	MULXQ y+16(SI), AX, CX; \
	ADCXQ AX, R13; \
	ADOXQ CX, BX; \
	MULXQ y+24(SI), AX, CX; \
	ADCXQ AX, BX; \
	ADOXQ CX, DI; \
	MOVL $0, AX; \
	ADCXQ AX, DI; \
	FE_FOLD(z)

// FE_SQR: z = x², each cross product computed once and doubled.
#define FE_SQR(z, x) \
	MOVQ x+0(SI), DX; \
	MULXQ x+8(SI), R9, R10; \
	MULXQ x+16(SI), AX, R11; \
	ADDQ AX, R10; \
	MULXQ x+24(SI), AX, R12; \
	ADCQ AX, R11; \
	ADCQ $0, R12; \
	MOVQ x+8(SI), DX; \
	XORQ R13, R13; \
	MULXQ x+16(SI), AX, CX; \
	ADCXQ AX, R11; \
	ADOXQ CX, R12; \
	MULXQ x+24(SI), AX, CX; \
	ADCXQ AX, R12; \
	ADOXQ CX, R13; \
	MOVL $0, AX; \
	ADCXQ AX, R13; \
	MOVQ x+16(SI), DX; \
	MULXQ x+24(SI), AX, BX; \
	ADDQ AX, R13; \
	ADCQ $0, BX; \
	XORQ DI, DI; \
	ADDQ R9, R9; \
	ADCQ R10, R10; \
	ADCQ R11, R11; \
	ADCQ R12, R12; \
	ADCQ R13, R13; \
	ADCQ BX, BX; \
	ADCQ $0, DI; \
	MOVQ x+0(SI), DX; \
	MULXQ DX, R8, CX; \
	ADDQ CX, R9; \
	MOVQ x+8(SI), DX; \
	MULXQ DX, AX, CX; \
	ADCQ AX, R10; \
	ADCQ CX, R11; \
	MOVQ x+16(SI), DX; \
	MULXQ DX, AX, CX; \
	ADCQ AX, R12; \
	ADCQ CX, R13; \
	MOVQ x+24(SI), DX; \
	MULXQ DX, AX, CX; \
	ADCQ AX, BX; \
	ADCQ CX, DI; \
	FE_FOLD(z)

// FE_FOLD stores R8..R11 + 38·(R12, R13, BX, DI) into z, below 2^256.
#define FE_FOLD(z) \
	MOVQ $38, DX; \
	XORQ CX, CX; \
	MULXQ R12, AX, R12; \
	ADCXQ AX, R8; \
	ADOXQ R12, R9; \
	MULXQ R13, AX, R13; \
	ADCXQ AX, R9; \
	ADOXQ R13, R10; \
	MULXQ BX, AX, BX; \
	ADCXQ AX, R10; \
	ADOXQ BX, R11; \
	MULXQ DI, AX, DI; \
	ADCXQ AX, R11; \
	ADOXQ CX, DI; \
	ADCXQ CX, DI; \
	IMUL3Q $38, DI, DI; \
	ADDQ DI, R8; \
	ADCQ $0, R9; \
	ADCQ $0, R10; \
	ADCQ $0, R11; \
	SBBQ AX, AX; \
	ANDQ $38, AX; \
	ADDQ AX, R8; \
	MOVQ R8, z+0(SI); \
	MOVQ R9, z+8(SI); \
	MOVQ R10, z+16(SI); \
	MOVQ R11, z+24(SI)

// FE_ADD: z = x + y.
#define FE_ADD(z, x, y) \
	MOVQ x+0(SI), R8; \
	MOVQ x+8(SI), R9; \
	MOVQ x+16(SI), R10; \
	MOVQ x+24(SI), R11; \
	ADDQ y+0(SI), R8; \
	ADCQ y+8(SI), R9; \
	ADCQ y+16(SI), R10; \
	ADCQ y+24(SI), R11; \
	SBBQ AX, AX; \
	ANDQ $38, AX; \
	ADDQ AX, R8; \
	ADCQ $0, R9; \
	ADCQ $0, R10; \
	ADCQ $0, R11; \
	SBBQ AX, AX; \
	ANDQ $38, AX; \
	ADDQ AX, R8; \
	MOVQ R8, z+0(SI); \
	MOVQ R9, z+8(SI); \
	MOVQ R10, z+16(SI); \
	MOVQ R11, z+24(SI)

// FE_SUB: z = x - y.
#define FE_SUB(z, x, y) \
	MOVQ x+0(SI), R8; \
	MOVQ x+8(SI), R9; \
	MOVQ x+16(SI), R10; \
	MOVQ x+24(SI), R11; \
	SUBQ y+0(SI), R8; \
	SBBQ y+8(SI), R9; \
	SBBQ y+16(SI), R10; \
	SBBQ y+24(SI), R11; \
	SBBQ AX, AX; \
	ANDQ $38, AX; \
	SUBQ AX, R8; \
	SBBQ $0, R9; \
	SBBQ $0, R10; \
	SBBQ $0, R11; \
	SBBQ AX, AX; \
	ANDQ $38, AX; \
	SUBQ AX, R8; \
	MOVQ R8, z+0(SI); \
	MOVQ R9, z+8(SI); \
	MOVQ R10, z+16(SI); \
	MOVQ R11, z+24(SI)

// FE_MUL121666: z = 121666·x.
#define FE_MUL121666(z, x) \
	MOVQ $121666, DX; \
	MULXQ x+0(SI), R8, R9; \
	MULXQ x+8(SI), AX, R10; \
	ADDQ AX, R9; \
	MULXQ x+16(SI), AX, R11; \
	ADCQ AX, R10; \
	MULXQ x+24(SI), AX, R12; \
	ADCQ AX, R11; \
	ADCQ $0, R12; \
	IMUL3Q $38, R12, R12; \
	ADDQ R12, R8; \
	ADCQ $0, R9; \
	ADCQ $0, R10; \
	ADCQ $0, R11; \
	SBBQ AX, AX; \
	ANDQ $38, AX; \
	ADDQ AX, R8; \
	MOVQ R8, z+0(SI); \
	MOVQ R9, z+8(SI); \
	MOVQ R10, z+16(SI); \
	MOVQ R11, z+24(SI)

// FE_CSWAP swaps a and b when DX is all ones (DX = 0: no change).
#define FE_CSWAP_LIMB(a, b) \
	MOVQ a(SI), AX; \
	MOVQ b(SI), BX; \
	MOVQ AX, CX; \
	XORQ BX, CX; \
	ANDQ DX, CX; \
	XORQ CX, AX; \
	XORQ CX, BX; \
	MOVQ AX, a(SI); \
	MOVQ BX, b(SI)
#define FE_CSWAP(a, b) \
	FE_CSWAP_LIMB(a+0, b+0); \
	FE_CSWAP_LIMB(a+8, b+8); \
	FE_CSWAP_LIMB(a+16, b+16); \
	FE_CSWAP_LIMB(a+24, b+24)

// ladder offsets: x1 0, x2 32, z2 64, x3 96, z3 128, t0 160, t1 192.

// func ladderStep(l *ladder, swap uint64)
// Conditionally swaps (x2, z2) with (x3, z3), then one step of the RFC 7748
// Montgomery ladder.
TEXT ·ladderStep(SB), NOSPLIT, $0-16
	MOVQ l+0(FP), SI
	MOVQ swap+8(FP), DX
	NEGQ DX
	FE_CSWAP(32, 96)
	FE_CSWAP(64, 128)
	FE_SUB(160, 96, 128)  // t0 = x3 - z3
	FE_SUB(192, 32, 64)   // t1 = x2 - z2
	FE_ADD(32, 32, 64)    // x2 = x2 + z2
	FE_ADD(64, 96, 128)   // z2 = x3 + z3
	FE_MUL(128, 160, 32)  // z3 = t0·x2
	FE_MUL(64, 64, 192)   // z2 = z2·t1
	FE_SQR(160, 192)      // t0 = t1²
	FE_SQR(192, 32)       // t1 = x2²
	FE_ADD(96, 128, 64)   // x3 = z3 + z2
	FE_SUB(64, 128, 64)   // z2 = z3 - z2
	FE_MUL(32, 192, 160)  // x2 = t1·t0
	FE_SUB(192, 192, 160) // t1 = t1 - t0
	FE_SQR(64, 64)        // z2 = z2²
	FE_MUL121666(128, 192) // z3 = 121666·t1
	FE_SQR(96, 96)        // x3 = x3²
	FE_ADD(160, 160, 128) // t0 = t0 + z3
	FE_MUL(128, 0, 64)    // z3 = x1·z2
	FE_MUL(64, 192, 160)  // z2 = t1·t0
	RET

// func fe64Mul(z, x, y *fe64)
TEXT ·fe64Mul(SB), NOSPLIT, $64-24
	MOVQ x+8(FP), AX
	MOVQ y+16(FP), BX
	MOVOU 0(AX), X0
	MOVOU 16(AX), X1
	MOVOU 0(BX), X2
	MOVOU 16(BX), X3
	MOVOU X0, 0(SP)
	MOVOU X1, 16(SP)
	MOVOU X2, 32(SP)
	MOVOU X3, 48(SP)
	LEAQ 0(SP), SI
	FE_MUL(0, 0, 32)
	MOVQ z+0(FP), DI
	MOVOU 0(SP), X0
	MOVOU 16(SP), X1
	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	RET

// func fe64SqrN(z, x *fe64, n int)
// z = x^(2^n), n >= 1.
TEXT ·fe64SqrN(SB), NOSPLIT, $40-24
	MOVQ x+8(FP), AX
	MOVOU 0(AX), X0
	MOVOU 16(AX), X1
	MOVOU X0, 0(SP)
	MOVOU X1, 16(SP)
	MOVQ n+16(FP), AX
	MOVQ AX, 32(SP)
	LEAQ 0(SP), SI
loop:
	FE_SQR(0, 0)
	DECQ 32(SP)
	JNZ loop
	MOVQ z+0(FP), DI
	MOVOU 0(SP), X0
	MOVOU 16(SP), X1
	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	RET
