// SPDX-License-Identifier: Apache-2.0

package aesgcm

import "encoding/binary"

// Arithmetic in GF(2^128) with the bit order of GCM (SP 800-38D, section
// 6.3): the coefficient of x^0 is the most significant bit of the first
// byte, the coefficient of x^127 the least significant bit of the last byte,
// and the field polynomial is x^128 + x^7 + x^2 + x + 1.
//
// An element is held as two big-endian words, hi = bytes 0..7 and
// lo = bytes 8..15. Seen as one 128-bit integer, the coefficient of x^i is
// bit 127-i, so multiplying by x is a right shift by one; the bit shifted out
// of lo is x^128 = x^7 + x^2 + x + 1, which lands in the top byte of hi as
// 0xe1.
//
// The table-driven multiplications below index memory with secret data and
// are therefore not constant-time. That is acceptable for a simulator;
// it would not be for a production implementation.

// elem is one element of GF(2^128) (equivalently one GCM block).
type elem struct {
	hi, lo uint64
}

// one is the multiplicative identity, the block 80 00 .. 00.
var one = elem{hi: 1 << 63}

func loadElem(b []byte) elem {
	_ = b[15] // one bounds check instead of two
	return elem{binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint64(b[8:16])}
}

func storeElem(b []byte, e elem) {
	_ = b[15]
	binary.BigEndian.PutUint64(b[0:8], e.hi)
	binary.BigEndian.PutUint64(b[8:16], e.lo)
}

func (a elem) xor(b elem) elem { return elem{a.hi ^ b.hi, a.lo ^ b.lo} }

func (a elem) isZero() bool { return a.hi|a.lo == 0 }

// mulX returns a·x.
func mulX(a elem) elem {
	carry := a.lo & 1
	return elem{
		hi: a.hi>>1 ^ (0xe1<<56)&-carry,
		lo: a.lo>>1 | a.hi<<63,
	}
}

// red8[r] reduces the eight bits r shifted out of the low end when an element
// is multiplied by x^8. Bit j of r (value 1<<j) was the coefficient of
// x^(127-j) and becomes x^(135-j) = x^(7-j)·(x^7+x^2+x+1), which is 0xe100
// shifted right by 7-j in the top 16 bits of hi. red4 is the same for four
// bits (multiplication by x^4).
var red8, red4 = [256]uint64(reductions(8)), [16]uint64(reductions(4))

// reductions is the table for n bits shifted out: red8 or red4.
func reductions(n int) []uint64 {
	t := make([]uint64, 1<<n)
	for r := range t {
		var v uint64
		for j := range n {
			if r>>j&1 != 0 {
				v ^= 0xe100 >> (n - 1 - j)
			}
		}
		t[r] = v << 48
	}
	return t
}

// mulTable multiplies by one fixed element q, eight bits at a time (Shoup's
// method with 8-bit tables). For a byte v in GCM order (bit 0x80 is x^0,
// bit 0x01 is x^7), hi[v] = poly(v)·q and lo[v] = poly(v)·x^64·q.
//
// The product a·q splits into the first and the last eight bytes of a:
// Horner's rule over bytes 7..0 with hi gives the first half, and over bytes
// 15..8 with lo gives the second half (the x^64 of its position is in the
// table). The two chains of eight steps are independent, so the processor
// overlaps them; that is nearly twice as fast as one chain of sixteen steps,
// for 8 KiB of tables per multiplier.
type mulTable struct {
	hi, lo [256]elem
}

func (t *mulTable) init(q elem) {
	fillTable(t.hi[:], q)
	for range 64 {
		q = mulX(q)
	}
	fillTable(t.lo[:], q)
}

// fillTable sets t[v] = poly(v)·q for the 8-bit (256 entries) or 4-bit
// (16) values v, the top bit of v being x^0.
func fillTable(t []elem, q elem) {
	t[0] = elem{}
	for bit := len(t) / 2; bit > 0; bit >>= 1 {
		t[bit] = q
		q = mulX(q)
	}
	for i := 3; i < len(t); i++ {
		low := i & -i
		if low != i {
			t[i] = t[low].xor(t[i^low])
		}
	}
}

// mul returns a·q.
func (t *mulTable) mul(a elem) elem {
	x := t.hi[a.hi&0xff]
	y := t.lo[a.lo&0xff]
	wx, wy := a.hi>>8, a.lo>>8
	for range 7 {
		// z = z·x^8 ⊕ table[next byte], for both chains.
		rx, ry := x.lo&0xff, y.lo&0xff
		x.lo = x.lo>>8 | x.hi<<56
		y.lo = y.lo>>8 | y.hi<<56
		x.hi = x.hi>>8 ^ red8[rx]
		y.hi = y.hi>>8 ^ red8[ry]
		ex, ey := &t.hi[wx&0xff], &t.lo[wy&0xff]
		x.hi ^= ex.hi
		x.lo ^= ex.lo
		y.hi ^= ey.hi
		y.lo ^= ey.lo
		wx >>= 8
		wy >>= 8
	}
	return elem{x.hi ^ y.hi, x.lo ^ y.lo}
}

// ctrTable multiplies 32-bit counter values by a fixed element q:
// t[v] = poly(v)·x^96·q. The four counter bytes sit at byte positions
// 12..15, i.e. (0^96 || c) = x^96·(c as a four-byte polynomial), so four
// Horner steps suffice.
type ctrTable [256]elem

func (t *ctrTable) init(q elem) {
	for range 96 {
		q = mulX(q)
	}
	fillTable(t[:], q)
}

// mulLow32 returns (0^96 || c)·q.
func (t *ctrTable) mulLow32(c uint32) elem {
	z := t[c&0xff]
	w := c >> 8
	for range 3 {
		rem := z.lo & 0xff
		z.lo = z.lo>>8 | z.hi<<56
		z.hi = z.hi>>8 ^ red8[rem]
		e := &t[w&0xff]
		z.hi ^= e.hi
		z.lo ^= e.lo
		w >>= 8
	}
	return z
}

// mulGeneric returns a·b for two arbitrary elements, by Shoup's method with
// a 4-bit table built on the fly for b. It is used only for the one-time
// per-key work (inversion), where a 4 KiB table per product would cost more
// than it saves.
func mulGeneric(a, b elem) elem {
	var t [16]elem
	fillTable(t[:], b)
	z := elem{}
	for i, w := range [2]uint64{a.lo, a.hi} {
		for j := range 16 {
			if i != 0 || j != 0 {
				rem := z.lo & 0xf
				z.lo = z.lo>>4 | z.hi<<60
				z.hi = z.hi>>4 ^ red4[rem]
			}
			e := t[w&0xf]
			z.hi ^= e.hi
			z.lo ^= e.lo
			w >>= 4
		}
	}
	return z
}

// inverse returns a^-1 = a^(2^128-2) (Fermat), for a != 0. The exponent is
// 127 one bits followed by a zero bit, so square-and-multiply is 126 rounds
// of r = r²·a followed by one squaring: 253 multiplications, a few
// microseconds, paid once per key and only if a key ever needs it.
func inverse(a elem) elem {
	r := a
	for range 126 {
		r = mulGeneric(mulGeneric(r, r), a)
	}
	return mulGeneric(r, r)
}
