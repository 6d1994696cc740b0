// SPDX-License-Identifier: Apache-2.0

package asym

/*
#cgo CFLAGS: -Wall -Wextra -Werror -I${SRCDIR}/../../include
#cgo LDFLAGS: -lcrypto
#include "bn.h"
*/
import "C"

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	_ "cptprov/simulator/internal/libctx" // cpt_sim_libctx, for bn.c
)

// ptr passes a byte slice to C for the duration of one call (nil when
// empty: libcrypto reads nothing then).
func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// pairedHalves reports whether libcrypto exponentiates two moduli of size
// bytes at once faster than two engines do them side by side: its AVX-512
// IFMA code does two 1024-bit exponentiations in the time of one (RSA-2048's
// CRT halves); elsewhere it runs them one after the other.
func pairedHalves(size int) bool {
	return size == 128 && cpu.X86.HasAVX512IFMA
}

// bnResult is a bn.c exponentiation's outcome: out, or the error of its
// code (the input's, or libcrypto's own failure).
func bnResult(out []byte, rc C.int) ([]byte, error) {
	switch rc {
	case 1:
		return out, nil
	case C.CPT_BN_BAD_INPUT:
		return nil, ErrInput
	}
	return nil, ErrInternal
}

// modExpConstTime returns base^exp mod m, len(m) bytes, m odd and > 1,
// constant time in base and exp. With reduce, base is first reduced mod m;
// without, it must be below m.
func modExpConstTime(base []byte, reduce bool, exp, m []byte) ([]byte, error) {
	out := make([]byte, len(m))
	r := C.int(0)
	if reduce {
		r = 1
	}
	rc := C.cpt_bn_modexp(ptr(out), ptr(base), C.size_t(len(base)), r, ptr(exp), C.size_t(len(exp)), ptr(m), C.size_t(len(m)))
	return bnResult(out, rc)
}

// modExpPairConstTime returns base^e1 mod m1 and base^e2 mod m2 (moduli of
// the same length) from one call.
func modExpPairConstTime(base, e1, m1, e2, m2 []byte) (r1, r2 []byte, err error) {
	r1, r2 = make([]byte, len(m1)), make([]byte, len(m2))
	rc := C.cpt_bn_modexp_x2(ptr(r1), ptr(r2), ptr(base), C.size_t(len(base)),
		ptr(e1), C.size_t(len(e1)), ptr(m1), ptr(e2), C.size_t(len(e2)), ptr(m2), C.size_t(len(m1)))
	if r1, err = bnResult(r1, rc); err != nil {
		return nil, nil, err
	}
	return r1, r2, nil
}

// modExpPublic is base^exp mod m in variable time, for public values; the
// Montgomery constants of m are cached.
func modExpPublic(base, exp, m []byte) ([]byte, error) {
	out := make([]byte, len(m))
	rc := C.cpt_bn_modexp_public(ptr(out), ptr(base), C.size_t(len(base)), ptr(exp), C.size_t(len(exp)), ptr(m), C.size_t(len(m)))
	return bnResult(out, rc)
}

// p256Mul returns gk·G + pk·pt on P-256 (uncompressed), with gk and pk
// 32-byte scalars or nil, and pt an uncompressed point or nil.
func p256Mul(gk, pk, pt []byte) ([]byte, error) {
	out := make([]byte, 65)
	switch C.cpt_p256_mul((*C.uint8_t)(unsafe.Pointer(&out[0])), ptr(gk), ptr(pk), ptr(pt)) {
	case 1:
		return out, nil
	case C.CPT_BN_INFINITY:
		return nil, ErrPointAtInfinity
	case C.CPT_BN_NOT_ON_CURVE:
		return nil, ErrNotOnCurve
	}
	return nil, ErrInternal
}
