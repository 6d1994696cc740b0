// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"crypto/elliptic"
	"math/big"
	"testing"
)

// refCurve is a textbook affine math/big implementation of a short
// Weierstrass curve with a = -3, used only as a test oracle.
type refCurve struct {
	p, n, b, gx, gy *big.Int
	size            int
}

type refPoint struct {
	x, y *big.Int // nil x means infinity
}

func p192Ref() *refCurve {
	c := p192Curve()
	return &refCurve{
		p:    c.pBig,
		n:    new(big.Int).SetBytes(c.order),
		b:    c.bBig,
		gx:   new(big.Int).SetBytes(c.gx),
		gy:   new(big.Int).SetBytes(c.gy),
		size: c.size,
	}
}

func refFromElliptic(curve elliptic.Curve) *refCurve {
	p := curve.Params()
	return &refCurve{p: p.P, n: p.N, b: p.B, gx: p.Gx, gy: p.Gy, size: (p.BitSize + 7) / 8}
}

func (c *refCurve) onCurve(x, y *big.Int) bool {
	l := new(big.Int).Mul(y, y)
	l.Mod(l, c.p)
	r := new(big.Int).Exp(x, big.NewInt(3), c.p)
	r.Sub(r, new(big.Int).Mul(big.NewInt(3), x))
	r.Add(r, c.b)
	r.Mod(r, c.p)
	return l.Cmp(r) == 0
}

func (c *refCurve) add(a, b refPoint) refPoint {
	if a.x == nil {
		return b
	}
	if b.x == nil {
		return a
	}
	var lambda *big.Int
	if a.x.Cmp(b.x) == 0 {
		ysum := new(big.Int).Add(a.y, b.y)
		if ysum.Mod(ysum, c.p).Sign() == 0 {
			return refPoint{}
		}
		// λ = (3x² - 3) / 2y
		num := new(big.Int).Mul(a.x, a.x)
		num.Mul(num, big.NewInt(3))
		num.Sub(num, big.NewInt(3))
		den := new(big.Int).Lsh(a.y, 1)
		den.ModInverse(den, c.p)
		lambda = num.Mul(num, den)
	} else {
		num := new(big.Int).Sub(b.y, a.y)
		den := new(big.Int).Sub(b.x, a.x)
		den.Mod(den, c.p)
		den.ModInverse(den, c.p)
		lambda = num.Mul(num, den)
	}
	lambda.Mod(lambda, c.p)
	x3 := new(big.Int).Mul(lambda, lambda)
	x3.Sub(x3, a.x)
	x3.Sub(x3, b.x)
	x3.Mod(x3, c.p)
	y3 := new(big.Int).Sub(a.x, x3)
	y3.Mul(y3, lambda)
	y3.Sub(y3, a.y)
	y3.Mod(y3, c.p)
	return refPoint{x3, y3}
}

func (c *refCurve) mul(k *big.Int, pt refPoint) refPoint {
	r := refPoint{}
	for i := k.BitLen() - 1; i >= 0; i-- {
		r = c.add(r, r)
		if k.Bit(i) == 1 {
			r = c.add(r, pt)
		}
	}
	return r
}

func (c *refCurve) g() refPoint { return refPoint{c.gx, c.gy} }

func (c *refCurve) encode(pt refPoint) []byte {
	if pt.x == nil {
		return []byte{0}
	}
	out := []byte{4}
	out = append(out, pt.x.FillBytes(make([]byte, c.size))...)
	return append(out, pt.y.FillBytes(make([]byte, c.size))...)
}

func (c *refCurve) decode(b []byte) refPoint {
	return refPoint{new(big.Int).SetBytes(b[1 : 1+c.size]), new(big.Int).SetBytes(b[1+c.size:])}
}

// verify is a textbook ECDSA verifier (hash truncated to the bit length of n).
func (c *refCurve) verify(pub refPoint, hash []byte, r, s *big.Int) bool {
	if r.Sign() <= 0 || s.Sign() <= 0 || r.Cmp(c.n) >= 0 || s.Cmp(c.n) >= 0 {
		return false
	}
	e := new(big.Int).SetBytes(hash)
	if excess := len(hash)*8 - c.n.BitLen(); excess > 0 {
		e.Rsh(e, uint(excess))
	}
	w := new(big.Int).ModInverse(s, c.n)
	u1 := new(big.Int).Mul(e, w)
	u1.Mod(u1, c.n)
	u2 := new(big.Int).Mul(r, w)
	u2.Mod(u2, c.n)
	R := c.add(c.mul(u1, c.g()), c.mul(u2, pub))
	if R.x == nil {
		return false
	}
	v := new(big.Int).Mod(R.x, c.n)
	return v.Cmp(r) == 0
}

func TestRefCurveSanity(t *testing.T) {
	for _, c := range []*refCurve{p192Ref(), refFromElliptic(elliptic.P224()), refFromElliptic(elliptic.P256())} {
		if !c.onCurve(c.gx, c.gy) {
			t.Fatal("G not on curve")
		}
		if !c.n.ProbablyPrime(20) || !c.p.ProbablyPrime(20) {
			t.Fatal("p or n not prime")
		}
		if inf := c.mul(c.n, c.g()); inf.x != nil {
			t.Fatal("n·G != O")
		}
	}
	// The reference agrees with crypto/elliptic on P-256.
	ec := elliptic.P256()
	c := refFromElliptic(ec)
	k := big.NewInt(0xdeadbeef)
	x, y := ec.ScalarBaseMult(k.Bytes()) //nolint:staticcheck // test oracle
	pt := c.mul(k, c.g())
	if pt.x.Cmp(x) != 0 || pt.y.Cmp(y) != 0 {
		t.Fatal("reference disagrees with crypto/elliptic")
	}
}
