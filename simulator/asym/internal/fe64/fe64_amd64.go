// SPDX-License-Identifier: Apache-2.0

//go:build amd64 && !purego

// Package fe64 is X25519's field arithmetic mod 2^255-19 in amd64
// assembly: four 64-bit limbs, MULX and ADCX/ADOX, the whole Montgomery
// ladder step in one function. It is its own package because Go does not
// assemble .s files in a package that uses cgo.
package fe64

import (
	"math/bits"

	"golang.org/x/sys/cpu"
)

// Available reports whether the CPU has the instructions X25519 needs
// (BMI2 and ADX).
var Available = cpu.X86.HasBMI2 && cpu.X86.HasADX

// fe64 is a field element mod 2^255-19 below 2^256, little-endian limbs.
type fe64 [4]uint64

// ladder is the state of the Montgomery ladder, laid out as ladderStep
// expects it.
type ladder struct{ x1, x2, z2, x3, z3, t0, t1 fe64 }

//go:noescape
func fe64Mul(z, x, y *fe64)

//go:noescape
func ladderStep(l *ladder, swap uint64)

//go:noescape
func fe64SqrN(z, x *fe64, n int)

// invert sets z = x^(p-2) = x^-1 (0 for x = 0).
func (z *fe64) invert(x *fe64) {
	var z2, z9, z11, z2_5_0, z2_10_0, z2_20_0, z2_50_0, z2_100_0, t fe64
	fe64Mul(&z2, x, x)
	fe64SqrN(&t, &z2, 2)
	fe64Mul(&z9, &t, x)
	fe64Mul(&z11, &z9, &z2)
	fe64Mul(&t, &z11, &z11)
	fe64Mul(&z2_5_0, &t, &z9)
	fe64SqrN(&t, &z2_5_0, 5)
	fe64Mul(&z2_10_0, &t, &z2_5_0)
	fe64SqrN(&t, &z2_10_0, 10)
	fe64Mul(&z2_20_0, &t, &z2_10_0)
	fe64SqrN(&t, &z2_20_0, 20)
	fe64Mul(&t, &t, &z2_20_0)
	fe64SqrN(&t, &t, 10)
	fe64Mul(&z2_50_0, &t, &z2_10_0)
	fe64SqrN(&t, &z2_50_0, 50)
	fe64Mul(&z2_100_0, &t, &z2_50_0)
	fe64SqrN(&t, &z2_100_0, 100)
	fe64Mul(&t, &t, &z2_100_0)
	fe64SqrN(&t, &t, 50)
	fe64Mul(&t, &t, &z2_50_0)
	fe64SqrN(&t, &t, 5)
	fe64Mul(z, &t, &z11)
}

// bytes returns the canonical little-endian encoding of x.
func (x *fe64) bytes() [32]byte {
	// Fold bit 255: v < 2^255 + 38.
	c := x[3] >> 63
	v0, cc := bits.Add64(x[0], 19*c, 0)
	v1, cc := bits.Add64(x[1], 0, cc)
	v2, cc := bits.Add64(x[2], 0, cc)
	v3, _ := bits.Add64(x[3]&(1<<63-1), 0, cc)
	// w = v + 19; v >= p exactly when w >= 2^255.
	w0, cc := bits.Add64(v0, 19, 0)
	w1, cc := bits.Add64(v1, 0, cc)
	w2, cc := bits.Add64(v2, 0, cc)
	w3, _ := bits.Add64(v3, 0, cc)
	mask := -(w3 >> 63)
	w3 &= 1<<63 - 1
	r := [4]uint64{v0 ^ (v0^w0)&mask, v1 ^ (v1^w1)&mask, v2 ^ (v2^w2)&mask, v3 ^ (v3^w3)&mask}
	var out [32]byte
	for i, l := range r {
		for j := 0; j < 8; j++ {
			out[i*8+j] = byte(l >> (8 * j))
		}
	}
	return out
}

// fe64FromBytes decodes a little-endian u-coordinate, ignoring its top bit.
func fe64FromBytes(b []byte) fe64 {
	var x fe64
	for i := range x {
		for j := 0; j < 8; j++ {
			x[i] |= uint64(b[i*8+j]) << (8 * j)
		}
	}
	x[3] &= 1<<63 - 1
	return x
}

// cswap swaps a and b when swap is 1, in constant time.
func cswap(a, b *fe64, swap uint64) {
	m := -swap
	for i := range a {
		t := (a[i] ^ b[i]) & m
		a[i] ^= t
		b[i] ^= t
	}
}

// X25519 is the RFC 7748 ladder for the clamped scalar e and the
// little-endian u-coordinate u (32 bytes, top bit ignored, non-canonical
// values accepted), constant time in e: the swaps are masked and every step
// runs the same instructions. Only when Available.
func X25519(e *[32]byte, u []byte) [32]byte {
	var l ladder
	l.x1 = fe64FromBytes(u)
	l.x2 = fe64{1}
	l.x3 = l.x1
	l.z3 = fe64{1}
	swap := uint64(0)
	for pos := 254; pos >= 0; pos-- {
		b := uint64(e[pos/8]>>uint(pos&7)) & 1
		swap ^= b
		ladderStep(&l, swap)
		swap = b
	}
	cswap(&l.x2, &l.x3, swap)
	cswap(&l.z2, &l.z3, swap)
	var zi fe64
	zi.invert(&l.z2)
	fe64Mul(&l.x2, &l.x2, &zi)
	return l.x2.bytes()
}
