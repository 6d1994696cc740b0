// SPDX-License-Identifier: Apache-2.0

// Package asym implements the arithmetic of the asymmetric engine group (AE)
// of the simulated OCTEON CPT accelerator.
//
// Like the real engines it performs raw operations only: modular
// exponentiation (plain and CRT), elliptic-curve point multiplication (fixed
// and variable base), raw ECDSA sign with a caller-supplied nonce, ECDSA
// verify, and X25519. Padding, DigestInfo, DER, hashing and nonce generation
// belong to the driver side.
//
// All byte strings are big-endian (except the X25519 ones, which follow RFC
// 7748's little-endian encoding) and outputs have a fixed length.
//
// Secret values (private exponents, CRT factors, scalars, nonces) never touch
// math/big: they are handled by filippo.io/bigmod (constant-time modular
// arithmetic), filippo.io/nistec (constant-time P-224/P-256/P-384/P-521) and
// the package's own constant-time short-Weierstrass implementation (P-192).
// No function panics on any input: invalid input is reported with one of the
// error values below.
package asym

import "errors"

var (
	// ErrInput reports a malformed or out-of-range input: bad length, a
	// modulus that is even or <= 1, a base >= modulus, a scalar not in
	// [1, n-1], an unknown curve, an ECDSA r or s that would be zero, or an
	// all-zero X25519 output.
	ErrInput = errors.New("asym: invalid input")
	// ErrNotOnCurve reports a well-formed point encoding whose coordinates
	// are not a point of the curve (including coordinates >= p and
	// compressed x values with no square root).
	ErrNotOnCurve = errors.New("asym: point not on curve")
	// ErrPointAtInfinity reports an input point encoding the point at
	// infinity, or a result that would be the point at infinity.
	ErrPointAtInfinity = errors.New("asym: point at infinity")
	// ErrInternal reports that the arithmetic itself failed (libcrypto,
	// which does part of it, out of memory or without its algorithms),
	// whatever the input: nothing was computed, and trying again may work.
	ErrInternal = errors.New("asym: arithmetic failed")
)

// Curve identifies one of the prime curves the engine supports.
type Curve int

// The supported NIST prime curves (all short Weierstrass with a = -3).
const (
	P192 Curve = iota + 1
	P224
	P256
	P384
	P521
)

// engine returns the implementation of c, or nil for an unknown curve.
func (c Curve) engine() ecEngine {
	switch c {
	case P192:
		return p192Engine()
	case P224:
		return p224Engine()
	case P256:
		return p256Engine()
	case P384:
		return p384Engine()
	case P521:
		return p521Engine()
	}
	return nil
}

// ByteLen returns the byte length of a field element and of a scalar of the
// curve (66 for P-521), or 0 for an unknown curve.
func (c Curve) ByteLen() int {
	switch c {
	case P192:
		return 24
	case P224:
		return 28
	case P256:
		return 32
	case P384:
		return 48
	case P521:
		return 66
	}
	return 0
}

// Name returns the curve name ("P-192", ..., "P-521"), or "unknown".
func (c Curve) Name() string {
	switch c {
	case P192:
		return "P-192"
	case P224:
		return "P-224"
	case P256:
		return "P-256"
	case P384:
		return "P-384"
	case P521:
		return "P-521"
	}
	return "unknown"
}

// String implements fmt.Stringer.
func (c Curve) String() string { return c.Name() }

// Order returns the order n of the base point, big-endian, ByteLen bytes.
// It returns nil for an unknown curve.
func (c Curve) Order() []byte {
	e := c.engine()
	if e == nil {
		return nil
	}
	return e.order()
}

// ValidatePoint checks that point is a valid encoding (uncompressed
// 0x04||X||Y or compressed 0x02/0x03||X) of a point of the curve other than
// the point at infinity. It returns ErrInput for a malformed encoding or an
// unknown curve, ErrPointAtInfinity for the encoding 0x00 of the point at
// infinity, and ErrNotOnCurve when the coordinates are not on the curve.
func (c Curve) ValidatePoint(point []byte) error {
	e := c.engine()
	if e == nil {
		return ErrInput
	}
	return e.validate(point)
}

// ScalarBaseMult returns k·G as an uncompressed point 0x04||X||Y. k must
// satisfy 0 < k < n; it may have leading zeros but at most ByteLen bytes.
// Constant time in k.
func ScalarBaseMult(c Curve, k []byte) ([]byte, error) {
	e := c.engine()
	if e == nil {
		return nil, ErrInput
	}
	return e.scalarBaseMult(k)
}

// ScalarMult returns k·P as an uncompressed point, for P given in
// uncompressed or compressed form and validated as by Curve.ValidatePoint.
// k must satisfy 0 < k < n (at most ByteLen bytes). A result at infinity
// yields ErrPointAtInfinity. Constant time in k.
func ScalarMult(c Curve, k, point []byte) ([]byte, error) {
	e := c.engine()
	if e == nil {
		return nil, ErrInput
	}
	return e.scalarMult(k, point)
}

// ECDHX returns the x coordinate (ByteLen bytes) of k·P, the ECDH shared
// secret. Inputs are as for ScalarMult.
func ECDHX(c Curve, k, point []byte) ([]byte, error) {
	e := c.engine()
	if e == nil {
		return nil, ErrInput
	}
	return e.ecdhX(k, point)
}

// ECDSASign computes the raw ECDSA signature (r, s), each ByteLen bytes, of
// hash with private key d and nonce k, both in [1, n-1]. The hash is
// truncated to the bit length of n as FIPS 186-4 specifies (and then reduced
// mod n). It returns ErrInput when r or s would be 0: the caller draws a new
// k. Constant time in d and k.
func ECDSASign(c Curve, d, k, hash []byte) (r, s []byte, err error) {
	e := c.engine()
	if e == nil {
		return nil, nil, ErrInput
	}
	return e.sign(d, k, hash)
}

// ECDSAVerify reports whether (r, s) is a valid ECDSA signature of hash for
// the public point pub (uncompressed, or compressed). r and s are big-endian
// with at most ByteLen bytes. All inputs are public, so this is not constant
// time.
func ECDSAVerify(c Curve, pub, hash, r, s []byte) bool {
	e := c.engine()
	if e == nil {
		return false
	}
	return e.verify(pub, hash, r, s)
}
