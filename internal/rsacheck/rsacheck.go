// SPDX-License-Identifier: Apache-2.0

// Package rsacheck checks RSA private-key results before they are
// released: s^e mod n must give the input back. A CRT result with one wrong
// half gives the key away to whoever sees it (gcd(s^e - m, n) is a prime
// factor), so every result from every backend and the fallback passes
// through here.
//
// The arithmetic is libcrypto's, the library the host has loaded: the
// check runs once per signature or decryption and was, in Go's
// constant-time bigmod, the largest cost of an asynchronous RSA operation
// after the exponentiation itself. A Check belongs to one key and lives as
// long as it (dispatch keeps it in the key's aux slot; the key's free
// frees it), as OpenSSL's RSA key object keeps its own Montgomery set-up:
// nothing derived from a key's primes outlives the key.
package rsacheck

/*
#cgo CFLAGS: -Wall -Wextra -Werror -I${SRCDIR}/../../provider -I${SRCDIR}/../../include
#cgo LDFLAGS: -lcrypto
#include "rsacheck.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Check is one key's check.
type Check C.struct_cpt_rsa_check

// ErrLibcrypto reports that libcrypto failed (out of memory): the result
// is neither known right nor known wrong.
var ErrLibcrypto = errors.New("rsacheck: libcrypto failed")

func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// New returns the check of the key with modulus n and public exponent e,
// and primes p and q (the same length; nil without them), which it uses
// only when they are distinct, coprime and multiply to n. nil when n is
// even or 1, no result can pass then, or out of memory.
func New(n, e, p, q []byte) *Check {
	if len(p) != len(q) {
		p, q = nil, nil
	}
	return (*Check)(C.cpt_rsa_check_new(ptr(n), C.size_t(len(n)), ptr(e), C.size_t(len(e)), ptr(p), ptr(q), C.size_t(len(p))))
}

// Verify reports whether res^e mod n is in (false unless both have n's
// length). Its
// time depends on neither, beyond what the package comment says.
func (c *Check) Verify(in, res []byte) (bool, error) {
	switch C.cpt_rsa_check((*C.struct_cpt_rsa_check)(c), ptr(in), C.size_t(len(in)), ptr(res), C.size_t(len(res))) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, ErrLibcrypto
}

// CRT reports whether c checks modulo the primes (they matched n).
func (c *Check) CRT() bool { return C.cpt_rsa_check_crt((*C.struct_cpt_rsa_check)(c)) != 0 }

// Free frees c and wipes its primes. nil is a no-op.
func (c *Check) Free() {
	if c != nil {
		C.cpt_rsa_check_free((*C.struct_cpt_rsa_check)(c))
	}
}

// Aux is c as the struct cpt_key_aux a key's state holds.
func (c *Check) Aux() unsafe.Pointer {
	return unsafe.Pointer(C.cpt_rsa_check_aux((*C.struct_cpt_rsa_check)(c)))
}

// FromAux is the Check of a key's aux slot, set by Aux; nil for nil.
func FromAux(aux unsafe.Pointer) *Check {
	return (*Check)(aux) // aux is the first member
}
