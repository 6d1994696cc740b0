// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"crypto/subtle"

	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"

	"cptprov/simulator/asym/internal/fe64"
)

// useFe64 selects the assembly field arithmetic: 30 µs per X25519 on this
// project's machine where filippo.io/edwards25519's radix-2^51 field takes
// 45 µs (OpenSSL's takes 32). Tests clear it to check the portable ladder.
var useFe64 = fe64.Available

// X25519 returns the RFC 7748 function X25519(k, u): k is the 32-byte
// scalar (clamped as the RFC says), u the 32-byte little-endian
// u-coordinate (its top bit is ignored, non-canonical values are reduced).
// An all-zero result (u of small order) yields ErrInput. Constant time in k:
// the Montgomery ladder of RFC 7748 section 5 with constant-time swaps, on
// fe64_amd64.s where the CPU has BMI2 and ADX, otherwise on
// filippo.io/edwards25519's field arithmetic (crypto/ecdh would compute the
// public key of k as well, doubling the cost).
func X25519(k, u []byte) ([]byte, error) {
	if len(k) != 32 || len(u) != 32 {
		return nil, ErrInput
	}
	var e [32]byte
	copy(e[:], k)
	e[0] &= 248
	e[31] &= 127
	e[31] |= 64
	if useFe64 {
		out := fe64.X25519(&e, u)
		var zero [32]byte
		if subtle.ConstantTimeCompare(out[:], zero[:]) == 1 {
			return nil, ErrInput
		}
		return out[:], nil
	}

	var x1, x2, z2, x3, z3, tmp0, tmp1 field.Element
	if _, err := x1.SetBytes(u); err != nil { // ignores the top bit
		return nil, ErrInput
	}
	x2.One()
	x3.Set(&x1)
	z3.One()
	swap := 0
	for pos := 254; pos >= 0; pos-- {
		b := int(e[pos/8]>>uint(pos&7)) & 1
		swap ^= b
		x2.Swap(&x3, swap)
		z2.Swap(&z3, swap)
		swap = b

		tmp0.Subtract(&x3, &z3)
		tmp1.Subtract(&x2, &z2)
		x2.Add(&x2, &z2)
		z2.Add(&x3, &z3)
		z3.Multiply(&tmp0, &x2)
		z2.Multiply(&z2, &tmp1)
		tmp0.Square(&tmp1)
		tmp1.Square(&x2)
		x3.Add(&z3, &z2)
		z2.Subtract(&z3, &z2)
		x2.Multiply(&tmp1, &tmp0)
		tmp1.Subtract(&tmp1, &tmp0)
		z2.Square(&z2)
		z3.Mult32(&tmp1, 121666)
		x3.Square(&x3)
		tmp0.Add(&tmp0, &z3)
		z3.Multiply(&x1, &z2)
		z2.Multiply(&tmp1, &tmp0)
	}
	x2.Swap(&x3, swap)
	z2.Swap(&z3, swap)
	z2.Invert(&z2)
	x2.Multiply(&x2, &z2)
	out := x2.Bytes()
	var zero [32]byte
	if subtle.ConstantTimeCompare(out, zero[:]) == 1 {
		return nil, ErrInput
	}
	return out, nil
}

// X25519Base returns X25519(k, 9), the public key for scalar k, as the
// Montgomery form of [k]B on the birationally equivalent edwards25519
// curve, whose base point B maps to u = 9: a fixed-base multiplication with
// precomputed tables, constant time, a third of a ladder.
func X25519Base(k []byte) ([]byte, error) {
	if len(k) != 32 {
		return nil, ErrInput
	}
	s, err := edwards25519.NewScalar().SetBytesWithClamping(k)
	if err != nil {
		return nil, ErrInput
	}
	return new(edwards25519.Point).ScalarBaseMult(s).BytesMontgomery(), nil
}
