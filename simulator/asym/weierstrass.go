// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"math/big"
	"sync"

	"filippo.io/bigmod"
)

// This file implements constant-time arithmetic on any short-Weierstrass
// curve y² = x³ - 3x + b over a prime field, with field elements held in
// filippo.io/bigmod Nats. It backs P-192 (which nistec does not have) and is
// cross-checked against nistec on P-224 and P-256 in the tests.
//
// Points are kept in projective coordinates (X:Y:Z), x = X/Z, y = Y/Z, the
// point at infinity being (0:1:0), and combined with the complete addition
// and doubling formulas for a = -3 of Renes, Costello and Batina, "Complete
// addition formulas for prime order elliptic curves" (2016, ePrint
// 2015/1060, algorithms 4 and 6), which have no exceptional cases and no
// secret-dependent branches. Scalar multiplication uses a 4-bit fixed
// window with constant-time table lookups; fixed-base multiplication uses
// precomputed tables of the generator.
//
// Only public data (encoded input points) is handled with math/big.

// genCurve is one a = -3 short-Weierstrass curve of prime order.
type genCurve struct {
	name  string
	size  int // byte length of a field element (and of a scalar)
	p     *bigmod.Modulus
	b     *bigmod.Nat
	order []byte // n, size bytes

	pBig, bBig *big.Int // public copies, for point decoding
	gx, gy     []byte
	pMinus2    []byte // exponent for Fermat inversion in the field

	tableOnce sync.Once
	table     []genTable // table[i] holds [1..15]·16^i·G
}

// genTable holds the first 15 multiples of a point: [1]P at index 0, ...,
// [15]P at index 14; [0]P is implicitly the point at infinity.
type genTable [15]*genPoint

// newGenCurve builds a curve y² = x³ - 3x + b mod p with generator (gx, gy)
// of prime order n. Parameters are public. It checks what can be checked
// cheaply: p odd, G on the curve, n of the same byte length as p.
func newGenCurve(name string, p, n, b, gx, gy *big.Int) (*genCurve, error) {
	if p.Sign() <= 0 || p.Bit(0) == 0 || p.BitLen() < 8 {
		return nil, errors.New("asym: bad field prime")
	}
	size := (p.BitLen() + 7) / 8
	if (n.BitLen()+7)/8 != size || n.Bit(0) == 0 {
		return nil, errors.New("asym: bad curve order")
	}
	if b.Sign() < 0 || b.Cmp(p) >= 0 || gx.Sign() < 0 || gx.Cmp(p) >= 0 || gy.Sign() < 0 || gy.Cmp(p) >= 0 {
		return nil, errors.New("asym: bad curve parameters")
	}
	pm, err := bigmod.NewModulus(p.Bytes())
	if err != nil {
		return nil, err
	}
	c := &genCurve{
		name:    name,
		size:    size,
		p:       pm,
		order:   n.FillBytes(make([]byte, size)),
		pBig:    new(big.Int).Set(p),
		bBig:    new(big.Int).Set(b),
		gx:      gx.FillBytes(make([]byte, size)),
		gy:      gy.FillBytes(make([]byte, size)),
		pMinus2: new(big.Int).Sub(p, big.NewInt(2)).FillBytes(make([]byte, size)),
	}
	c.b = c.feFromBytes(b.FillBytes(make([]byte, size)))
	if !c.onCurveBig(gx, gy) {
		return nil, errors.New("asym: generator not on curve")
	}
	return c, nil
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func mustBig(s string) *big.Int {
	return new(big.Int).SetBytes(mustHex(s))
}

// p192Curve returns NIST P-192 (secp192r1, FIPS 186-4 D.1.2.1).
var p192Curve = sync.OnceValue(func() *genCurve {
	c, err := newGenCurve("P-192",
		mustBig("fffffffffffffffffffffffffffffffeffffffffffffffff"),
		mustBig("ffffffffffffffffffffffff99def836146bc9b1b4d22831"),
		mustBig("64210519e59c80e70fa7e9ab72243049feb8deecc146b9b1"),
		mustBig("188da80eb03090f67cbf20eb43a18800f4ff0afd82ff1012"),
		mustBig("07192b95ffc8da78631011ed6b24cdd573f977a11e794811"))
	if err != nil {
		panic(err)
	}
	return c
})

// --- field arithmetic over bigmod ---
//
// Every element is a Nat of exactly len(p) limbs, reduced mod p. The helpers
// below tolerate any aliasing between destination and operands.

func (c *genCurve) fe() *bigmod.Nat {
	// new(Nat) has no preallocated storage, so this allocates exactly the
	// limbs needed (NewNat would reserve 2048 bits per element).
	return new(bigmod.Nat).ExpandFor(c.p)
}

func (c *genCurve) feFromBytes(b []byte) *bigmod.Nat {
	x, err := c.fe().SetBytes(b, c.p)
	if err != nil {
		panic("asym: internal error: field element out of range")
	}
	return x
}

func feSet(dst, src *bigmod.Nat) { copy(dst.Bits(), src.Bits()) }

// feAssign sets dst = src if cond == 1 and leaves it unchanged if cond == 0,
// in constant time.
func feAssign(dst, src *bigmod.Nat, cond int) {
	mask := -uint(cond)
	d, s := dst.Bits(), src.Bits()
	for i := range d {
		d[i] ^= mask & (d[i] ^ s[i])
	}
}

func (c *genCurve) add(dst, a, b *bigmod.Nat) {
	switch {
	case dst == a:
		dst.Add(b, c.p)
	case dst == b:
		dst.Add(a, c.p)
	default:
		feSet(dst, a)
		dst.Add(b, c.p)
	}
}

func (c *genCurve) sub(dst, a, b *bigmod.Nat) {
	switch {
	case dst == a:
		dst.Sub(b, c.p)
	case dst == b:
		t := c.fe()
		feSet(t, a)
		t.Sub(b, c.p)
		feSet(dst, t)
	default:
		feSet(dst, a)
		dst.Sub(b, c.p)
	}
}

func (c *genCurve) mul(dst, a, b *bigmod.Nat) {
	switch {
	case dst == a:
		dst.Mul(b, c.p)
	case dst == b:
		dst.Mul(a, c.p)
	default:
		feSet(dst, a)
		dst.Mul(b, c.p)
	}
}

// --- points ---

// genPoint is a point of a genCurve in projective coordinates. The zero
// value is not valid: use genCurve.newPoint.
type genPoint struct {
	c       *genCurve
	x, y, z *bigmod.Nat
}

// newPoint returns the point at infinity (0:1:0).
func (c *genCurve) newPoint() *genPoint {
	p := &genPoint{c: c, x: c.fe(), y: c.fe(), z: c.fe()}
	p.y.Bits()[0] = 1
	return p
}

// Set sets p = q and returns p.
func (p *genPoint) Set(q *genPoint) *genPoint {
	feSet(p.x, q.x)
	feSet(p.y, q.y)
	feSet(p.z, q.z)
	return p
}

// SetGenerator sets p to the curve's generator.
func (p *genPoint) SetGenerator() *genPoint {
	c := p.c
	feSet(p.x, c.feFromBytes(c.gx))
	feSet(p.y, c.feFromBytes(c.gy))
	clear(p.z.Bits())
	p.z.Bits()[0] = 1
	return p
}

// IsInfinity returns 1 if p is the point at infinity, 0 otherwise.
func (p *genPoint) IsInfinity() int { return int(p.z.IsZero()) }

// Negate sets p = -q and returns p.
func (p *genPoint) Negate(q *genPoint) *genPoint {
	c := p.c
	feSet(p.x, q.x)
	c.sub(p.y, c.fe(), q.y)
	feSet(p.z, q.z)
	return p
}

// polynomialBig returns x³ - 3x + b mod p (public data only).
func (c *genCurve) polynomialBig(x *big.Int) *big.Int {
	x3 := new(big.Int).Mul(x, x)
	x3.Mul(x3, x)
	threeX := new(big.Int).Lsh(x, 1)
	threeX.Add(threeX, x)
	x3.Sub(x3, threeX)
	x3.Add(x3, c.bBig)
	return x3.Mod(x3, c.pBig)
}

func (c *genCurve) onCurveBig(x, y *big.Int) bool {
	y2 := new(big.Int).Mul(y, y)
	y2.Mod(y2, c.pBig)
	return y2.Cmp(c.polynomialBig(x)) == 0
}

// SetBytes sets p to the point encoded in b (SEC 1, version 2.0, section
// 2.3.4: 0x00 for infinity, uncompressed, or compressed) and returns p, or
// returns an error leaving p unchanged if b is malformed or not on the curve.
// The input is public and is decoded with math/big.
func (p *genPoint) SetBytes(b []byte) (*genPoint, error) {
	c := p.c
	var x, y *big.Int
	switch {
	case len(b) == 1 && b[0] == 0:
		return p.Set(c.newPoint()), nil
	case len(b) == 1+2*c.size && b[0] == 4:
		x = new(big.Int).SetBytes(b[1 : 1+c.size])
		y = new(big.Int).SetBytes(b[1+c.size:])
		if x.Cmp(c.pBig) >= 0 || y.Cmp(c.pBig) >= 0 {
			return nil, errors.New("asym: coordinate out of range")
		}
		if !c.onCurveBig(x, y) {
			return nil, errors.New("asym: point not on curve")
		}
	case len(b) == 1+c.size && (b[0] == 2 || b[0] == 3):
		x = new(big.Int).SetBytes(b[1:])
		if x.Cmp(c.pBig) >= 0 {
			return nil, errors.New("asym: coordinate out of range")
		}
		y = new(big.Int).ModSqrt(c.polynomialBig(x), c.pBig)
		if y == nil {
			return nil, errors.New("asym: invalid compressed point")
		}
		if y.Bit(0) != uint(b[0]&1) {
			y.Sub(c.pBig, y).Mod(y, c.pBig)
		}
	default:
		return nil, errors.New("asym: invalid point encoding")
	}
	feSet(p.x, c.feFromBytes(x.FillBytes(make([]byte, c.size))))
	feSet(p.y, c.feFromBytes(y.FillBytes(make([]byte, c.size))))
	clear(p.z.Bits())
	p.z.Bits()[0] = 1
	return p, nil
}

// affine returns the affine coordinates of p (size bytes each), or ok ==
// false for the point at infinity. The inversion is a constant-time
// exponentiation.
func (p *genPoint) affine() (x, y []byte, ok bool) {
	c := p.c
	if p.z.IsZero() == 1 {
		return nil, nil, false
	}
	zinv := c.fe().Exp(p.z, c.pMinus2, c.p)
	xa, ya := c.fe(), c.fe()
	c.mul(xa, p.x, zinv)
	c.mul(ya, p.y, zinv)
	return xa.Bytes(c.p), ya.Bytes(c.p), true
}

// Bytes returns the uncompressed encoding of p, or 0x00 for infinity.
func (p *genPoint) Bytes() []byte {
	x, y, ok := p.affine()
	if !ok {
		return []byte{0}
	}
	out := make([]byte, 0, 1+2*p.c.size)
	out = append(out, 4)
	out = append(out, x...)
	return append(out, y...)
}

// BytesX returns the affine x coordinate of p, or an error for infinity.
func (p *genPoint) BytesX() ([]byte, error) {
	x, _, ok := p.affine()
	if !ok {
		return nil, errors.New("asym: point at infinity has no x")
	}
	return x, nil
}

// BytesCompressed returns the compressed encoding of p, or 0x00 for infinity.
func (p *genPoint) BytesCompressed() []byte {
	x, y, ok := p.affine()
	if !ok {
		return []byte{0}
	}
	return append([]byte{2 | y[len(y)-1]&1}, x...)
}

// Add sets q = p1 + p2 and returns q. Any of the points may alias.
// Renes–Costello–Batina 2016, algorithm 4 (complete addition, a = -3).
func (q *genPoint) Add(p1, p2 *genPoint) *genPoint {
	c := q.c
	t0, t1, t2, t3, t4 := c.fe(), c.fe(), c.fe(), c.fe(), c.fe()
	x3, y3, z3 := c.fe(), c.fe(), c.fe()

	c.mul(t0, p1.x, p2.x) // t0 := X1 * X2
	c.mul(t1, p1.y, p2.y) // t1 := Y1 * Y2
	c.mul(t2, p1.z, p2.z) // t2 := Z1 * Z2
	c.add(t3, p1.x, p1.y) // t3 := X1 + Y1
	c.add(t4, p2.x, p2.y) // t4 := X2 + Y2
	c.mul(t3, t3, t4)     // t3 := t3 * t4
	c.add(t4, t0, t1)     // t4 := t0 + t1
	c.sub(t3, t3, t4)     // t3 := t3 - t4
	c.add(t4, p1.y, p1.z) // t4 := Y1 + Z1
	c.add(x3, p2.y, p2.z) // X3 := Y2 + Z2
	c.mul(t4, t4, x3)     // t4 := t4 * X3
	c.add(x3, t1, t2)     // X3 := t1 + t2
	c.sub(t4, t4, x3)     // t4 := t4 - X3
	c.add(x3, p1.x, p1.z) // X3 := X1 + Z1
	c.add(y3, p2.x, p2.z) // Y3 := X2 + Z2
	c.mul(x3, x3, y3)     // X3 := X3 * Y3
	c.add(y3, t0, t2)     // Y3 := t0 + t2
	c.sub(y3, x3, y3)     // Y3 := X3 - Y3
	c.mul(z3, c.b, t2)    // Z3 := b * t2
	c.sub(x3, y3, z3)     // X3 := Y3 - Z3
	c.add(z3, x3, x3)     // Z3 := X3 + X3
	c.add(x3, x3, z3)     // X3 := X3 + Z3
	c.sub(z3, t1, x3)     // Z3 := t1 - X3
	c.add(x3, t1, x3)     // X3 := t1 + X3
	c.mul(y3, c.b, y3)    // Y3 := b * Y3
	c.add(t1, t2, t2)     // t1 := t2 + t2
	c.add(t2, t1, t2)     // t2 := t1 + t2
	c.sub(y3, y3, t2)     // Y3 := Y3 - t2
	c.sub(y3, y3, t0)     // Y3 := Y3 - t0
	c.add(t1, y3, y3)     // t1 := Y3 + Y3
	c.add(y3, t1, y3)     // Y3 := t1 + Y3
	c.add(t1, t0, t0)     // t1 := t0 + t0
	c.add(t0, t1, t0)     // t0 := t1 + t0
	c.sub(t0, t0, t2)     // t0 := t0 - t2
	c.mul(t1, t4, y3)     // t1 := t4 * Y3
	c.mul(t2, t0, y3)     // t2 := t0 * Y3
	c.mul(y3, x3, z3)     // Y3 := X3 * Z3
	c.add(y3, y3, t2)     // Y3 := Y3 + t2
	c.mul(x3, t3, x3)     // X3 := t3 * X3
	c.sub(x3, x3, t1)     // X3 := X3 - t1
	c.mul(z3, t4, z3)     // Z3 := t4 * Z3
	c.mul(t1, t3, t0)     // t1 := t3 * t0
	c.add(z3, z3, t1)     // Z3 := Z3 + t1

	feSet(q.x, x3)
	feSet(q.y, y3)
	feSet(q.z, z3)
	return q
}

// Double sets q = 2·p and returns q. p and q may alias.
// Renes–Costello–Batina 2016, algorithm 6 (exception-free doubling, a = -3).
func (q *genPoint) Double(p *genPoint) *genPoint {
	c := q.c
	t0, t1, t2, t3 := c.fe(), c.fe(), c.fe(), c.fe()
	x3, y3, z3 := c.fe(), c.fe(), c.fe()

	c.mul(t0, p.x, p.x) // t0 := X ^ 2
	c.mul(t1, p.y, p.y) // t1 := Y ^ 2
	c.mul(t2, p.z, p.z) // t2 := Z ^ 2
	c.mul(t3, p.x, p.y) // t3 := X * Y
	c.add(t3, t3, t3)   // t3 := t3 + t3
	c.mul(z3, p.x, p.z) // Z3 := X * Z
	c.add(z3, z3, z3)   // Z3 := Z3 + Z3
	c.mul(y3, c.b, t2)  // Y3 := b * t2
	c.sub(y3, y3, z3)   // Y3 := Y3 - Z3
	c.add(x3, y3, y3)   // X3 := Y3 + Y3
	c.add(y3, x3, y3)   // Y3 := X3 + Y3
	c.sub(x3, t1, y3)   // X3 := t1 - Y3
	c.add(y3, t1, y3)   // Y3 := t1 + Y3
	c.mul(y3, x3, y3)   // Y3 := X3 * Y3
	c.mul(x3, x3, t3)   // X3 := X3 * t3
	c.add(t3, t2, t2)   // t3 := t2 + t2
	c.add(t2, t2, t3)   // t2 := t2 + t3
	c.mul(z3, c.b, z3)  // Z3 := b * Z3
	c.sub(z3, z3, t2)   // Z3 := Z3 - t2
	c.sub(z3, z3, t0)   // Z3 := Z3 - t0
	c.add(t3, z3, z3)   // t3 := Z3 + Z3
	c.add(z3, z3, t3)   // Z3 := Z3 + t3
	c.add(t3, t0, t0)   // t3 := t0 + t0
	c.add(t0, t3, t0)   // t0 := t3 + t0
	c.sub(t0, t0, t2)   // t0 := t0 - t2
	c.mul(t0, t0, z3)   // t0 := t0 * Z3
	c.add(y3, y3, t0)   // Y3 := Y3 + t0
	c.mul(t0, p.y, p.z) // t0 := Y * Z
	c.add(t0, t0, t0)   // t0 := t0 + t0
	c.mul(z3, t0, z3)   // Z3 := t0 * Z3
	c.sub(x3, x3, z3)   // X3 := X3 - Z3
	c.mul(z3, t0, t1)   // Z3 := t0 * t1
	c.add(z3, z3, z3)   // Z3 := Z3 + Z3
	c.add(z3, z3, z3)   // Z3 := Z3 + Z3

	feSet(q.x, x3)
	feSet(q.y, y3)
	feSet(q.z, z3)
	return q
}

// lookup sets p to [n]P from table (n in [0, 15]) in constant time: every
// entry is read and the match is selected with a mask.
func (t *genTable) lookup(p *genPoint, n uint8) {
	p.Set(p.c.newPoint())
	for i := uint8(1); i < 16; i++ {
		cond := subtle.ConstantTimeByteEq(i, n)
		feAssign(p.x, t[i-1].x, cond)
		feAssign(p.y, t[i-1].y, cond)
		feAssign(p.z, t[i-1].z, cond)
	}
}

// ScalarMult sets p = scalar·q and returns p. The scalar is big-endian and
// of any length; it need not be reduced. Constant time in the scalar (for a
// given length).
func (p *genPoint) ScalarMult(q *genPoint, scalar []byte) (*genPoint, error) {
	c := p.c
	var table genTable
	table[0] = c.newPoint().Set(q)
	for i := 1; i < 15; i += 2 {
		table[i] = c.newPoint().Double(table[i/2])
		table[i+1] = c.newPoint().Add(table[i], q)
	}

	acc, t := c.newPoint(), c.newPoint()
	for i, b := range scalar {
		if i != 0 {
			acc.Double(acc)
			acc.Double(acc)
			acc.Double(acc)
			acc.Double(acc)
		}
		table.lookup(t, b>>4)
		acc.Add(acc, t)
		acc.Double(acc)
		acc.Double(acc)
		acc.Double(acc)
		acc.Double(acc)
		table.lookup(t, b&0xf)
		acc.Add(acc, t)
	}
	return p.Set(acc), nil
}

// generatorTable returns 2·size tables: table[i] holds [1..15]·16^i·G.
func (c *genCurve) generatorTable() []genTable {
	c.tableOnce.Do(func() {
		tables := make([]genTable, 2*c.size)
		base := c.newPoint().SetGenerator()
		for i := range tables {
			tables[i][0] = c.newPoint().Set(base)
			for j := 1; j < 15; j++ {
				tables[i][j] = c.newPoint().Add(tables[i][j-1], base)
			}
			base.Double(base)
			base.Double(base)
			base.Double(base)
			base.Double(base)
		}
		c.table = tables
	})
	return c.table
}

// ScalarBaseMult sets p = scalar·G and returns p. The scalar must be exactly
// size bytes (big-endian, not necessarily reduced). Constant time in the
// scalar: one table lookup and one complete addition per 4-bit window.
func (p *genPoint) ScalarBaseMult(scalar []byte) (*genPoint, error) {
	c := p.c
	if len(scalar) != c.size {
		return nil, errors.New("asym: invalid scalar length")
	}
	tables := c.generatorTable()
	acc, t := c.newPoint(), c.newPoint()
	idx := len(tables) - 1
	for _, b := range scalar {
		tables[idx].lookup(t, b>>4)
		acc.Add(acc, t)
		idx--
		tables[idx].lookup(t, b&0xf)
		acc.Add(acc, t)
		idx--
	}
	return p.Set(acc), nil
}
