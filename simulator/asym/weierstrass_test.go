// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"bytes"
	"crypto/elliptic"
	"crypto/rand"
	"math/big"
	"testing"

	"filippo.io/nistec"
)

func genFromElliptic(t testing.TB, curve elliptic.Curve) *genCurve {
	t.Helper()
	p := curve.Params()
	c, err := newGenCurve(p.Name, p.P, p.N, p.B, p.Gx, p.Gy)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// nistecOps wraps one nistec point type for the cross-check.
type nistecOps[P nistPoint[P]] struct {
	newPoint  func() P
	generator func() P
}

func randScalar(t testing.TB, n *big.Int, size int) []byte {
	return randBelow(t, n).FillBytes(make([]byte, size))
}

// edgeScalars are interesting scalars of size bytes for order n.
func edgeScalars(n *big.Int, size int) [][]byte {
	vals := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(15), big.NewInt(16), big.NewInt(17),
		new(big.Int).Sub(n, big.NewInt(1)),
		new(big.Int).Sub(n, big.NewInt(2)),
		new(big.Int).Set(n),
		new(big.Int).Add(n, big.NewInt(1)),
		new(big.Int).Rsh(n, 1),
		new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(8*size)), big.NewInt(1)), // all ones
	}
	var out [][]byte
	for _, v := range vals {
		out = append(out, v.FillBytes(make([]byte, size)))
	}
	return out
}

func crossCheck[P nistPoint[P]](t *testing.T, g *genCurve, ops nistecOps[P], n *big.Int) {
	size := g.size
	scalars := edgeScalars(n, size)
	for i := 0; i < 20; i++ {
		scalars = append(scalars, randScalar(t, n, size))
	}
	for _, k := range scalars {
		// Fixed base.
		want, err := ops.newPoint().ScalarBaseMult(k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.newPoint().ScalarBaseMult(k)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%s ScalarBaseMult(%x): got %x want %x", g.name, k, got.Bytes(), want.Bytes())
		}
		// Variable base on G and on a random point.
		gotG, _ := g.newPoint().ScalarMult(g.newPoint().SetGenerator(), k)
		if !bytes.Equal(gotG.Bytes(), want.Bytes()) {
			t.Fatalf("%s ScalarMult(G, %x) != ScalarBaseMult", g.name, k)
		}
		r := randScalar(t, n, size)
		wq, _ := ops.newPoint().ScalarBaseMult(r)
		gq, err := g.newPoint().SetBytes(wq.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		wantQ, _ := ops.newPoint().ScalarMult(wq, k)
		gotQ, _ := g.newPoint().ScalarMult(gq, k)
		if !bytes.Equal(gotQ.Bytes(), wantQ.Bytes()) {
			t.Fatalf("%s ScalarMult(Q, %x) mismatch", g.name, k)
		}
		// Add, Double, BytesX.
		wantSum := ops.newPoint().Add(want, wantQ)
		gotSum := g.newPoint().Add(got, gotQ)
		if !bytes.Equal(gotSum.Bytes(), wantSum.Bytes()) {
			t.Fatalf("%s Add mismatch", g.name)
		}
		wantDbl := ops.newPoint().Add(want, want)
		if !bytes.Equal(g.newPoint().Double(got).Bytes(), wantDbl.Bytes()) ||
			!bytes.Equal(g.newPoint().Add(got, got).Bytes(), wantDbl.Bytes()) {
			t.Fatalf("%s Double mismatch", g.name)
		}
		wx, werr := want.BytesX()
		gx, gerr := got.BytesX()
		if (werr == nil) != (gerr == nil) || !bytes.Equal(wx, gx) {
			t.Fatalf("%s BytesX mismatch", g.name)
		}
	}
	// Shorter and longer variable-base scalars are processed as integers.
	for _, k := range [][]byte{{}, {1}, {0, 0, 5}, append(make([]byte, size+3), 7)} {
		kk := new(big.Int).SetBytes(k).FillBytes(make([]byte, size))
		want, _ := ops.newPoint().ScalarBaseMult(kk)
		got, _ := g.newPoint().ScalarMult(g.newPoint().SetGenerator(), k)
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%s ScalarMult with %d-byte scalar mismatch", g.name, len(k))
		}
	}
}

func TestGenericVsNistecP224(t *testing.T) {
	g := genFromElliptic(t, elliptic.P224())
	crossCheck(t, g, nistecOps[*nistec.P224Point]{newPoint: nistec.NewP224Point}, elliptic.P224().Params().N)
}

func TestGenericVsNistecP256(t *testing.T) {
	g := genFromElliptic(t, elliptic.P256())
	crossCheck(t, g, nistecOps[*nistec.P256Point]{newPoint: nistec.NewP256Point}, elliptic.P256().Params().N)
}

// The generic curve driven through the full engine gives the same ECDSA
// signatures and ECDH values as the nistec-backed engine.
func TestGenericEngineVsNistecEngine(t *testing.T) {
	for _, tc := range []struct {
		curve Curve
		ec    elliptic.Curve
	}{{P224, elliptic.P224()}, {P256, elliptic.P256()}} {
		g := genFromElliptic(t, tc.ec)
		gen := newECCurve(g.newPoint, g.size, g.order)
		ref := tc.curve.engine()
		n := tc.ec.Params().N
		for i := 0; i < 10; i++ {
			d, k := randScalar(t, n, g.size), randScalar(t, n, g.size)
			hash := make([]byte, 20+i*7)
			rand.Read(hash)
			r1, s1, err1 := ref.sign(d, k, hash)
			r2, s2, err2 := gen.sign(d, k, hash)
			if err1 != nil || err2 != nil || !bytes.Equal(r1, r2) || !bytes.Equal(s1, s2) {
				t.Fatalf("%v: sign mismatch (%v, %v)", tc.curve, err1, err2)
			}
			pub, err := ref.scalarBaseMult(d)
			if err != nil {
				t.Fatal(err)
			}
			pub2, err := gen.scalarBaseMult(d)
			if err != nil || !bytes.Equal(pub, pub2) {
				t.Fatalf("%v: base mult mismatch", tc.curve)
			}
			if !gen.verify(pub, hash, r1, s1) {
				t.Fatalf("%v: generic verify rejected", tc.curve)
			}
			x1, err1 := ref.ecdhX(k, pub)
			x2, err2 := gen.ecdhX(k, pub)
			if err1 != nil || err2 != nil || !bytes.Equal(x1, x2) {
				t.Fatalf("%v: ecdh mismatch", tc.curve)
			}
			// Compressed encodings decode to the same point on both.
			gp, _ := g.newPoint().SetBytes(pub)
			comp := gp.BytesCompressed()
			if err := gen.validate(comp); err != nil {
				t.Fatal(err)
			}
			m1, err1 := ref.scalarMult(k, comp)
			m2, err2 := gen.scalarMult(k, comp)
			if err1 != nil || err2 != nil || !bytes.Equal(m1, m2) {
				t.Fatalf("%v: compressed scalar mult mismatch (%v, %v)", tc.curve, err1, err2)
			}
		}
	}
}

func TestGenericP192VsReference(t *testing.T) {
	g := p192Curve()
	ref := p192Ref()
	scalars := edgeScalars(ref.n, g.size)
	for i := 0; i < 25; i++ {
		scalars = append(scalars, randScalar(t, ref.n, g.size))
	}
	q := ref.mul(big.NewInt(0x1234567), ref.g())
	gq, err := g.newPoint().SetBytes(ref.encode(q))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range scalars {
		kb := new(big.Int).SetBytes(k)
		want := ref.encode(ref.mul(kb, ref.g()))
		got, _ := g.newPoint().ScalarBaseMult(k)
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("P-192 ScalarBaseMult(%x): got %x want %x", k, got.Bytes(), want)
		}
		wantQ := ref.encode(ref.mul(kb, q))
		gotQ, _ := g.newPoint().ScalarMult(gq, k)
		if !bytes.Equal(gotQ.Bytes(), wantQ) {
			t.Fatalf("P-192 ScalarMult(%x) mismatch", k)
		}
		// Through the public API for valid scalars.
		if kb.Sign() > 0 && kb.Cmp(ref.n) < 0 {
			pub, err := ScalarBaseMult(P192, k)
			if err != nil || !bytes.Equal(pub, want) {
				t.Fatalf("P-192 public ScalarBaseMult: %v", err)
			}
			pm, err := ScalarMult(P192, k, ref.encode(q))
			if err != nil || !bytes.Equal(pm, wantQ) {
				t.Fatalf("P-192 public ScalarMult: %v", err)
			}
			x, err := ECDHX(P192, k, ref.encode(q))
			if err != nil || !bytes.Equal(x, wantQ[1:1+g.size]) {
				t.Fatalf("P-192 ECDHX: %v", err)
			}
		}
	}
}

// The complete formulas handle every special case: P + (-P), P + P,
// O + P, O + O, 2·O.
func TestGenericInfinity(t *testing.T) {
	for _, g := range []*genCurve{p192Curve(), genFromElliptic(t, elliptic.P224())} {
		G := g.newPoint().SetGenerator()
		negG := g.newPoint().Negate(G)
		O := g.newPoint()
		if g.newPoint().Add(G, negG).IsInfinity() != 1 {
			t.Fatalf("%s: G + (-G) != O", g.name)
		}
		if g.newPoint().Double(O).IsInfinity() != 1 || g.newPoint().Add(O, O).IsInfinity() != 1 {
			t.Fatalf("%s: O + O != O", g.name)
		}
		if !bytes.Equal(g.newPoint().Add(O, G).Bytes(), G.Bytes()) || !bytes.Equal(g.newPoint().Add(G, O).Bytes(), G.Bytes()) {
			t.Fatalf("%s: O + G != G", g.name)
		}
		if !bytes.Equal(g.newPoint().Add(G, G).Bytes(), g.newPoint().Double(G).Bytes()) {
			t.Fatalf("%s: G + G != 2G", g.name)
		}
		if b := O.Bytes(); !bytes.Equal(b, []byte{0}) {
			t.Fatalf("%s: O encodes as %x", g.name, b)
		}
		if _, err := O.BytesX(); err == nil {
			t.Fatalf("%s: BytesX(O) succeeded", g.name)
		}
		n := new(big.Int).SetBytes(g.order)
		nm1 := new(big.Int).Sub(n, big.NewInt(1)).FillBytes(make([]byte, g.size))
		p, _ := g.newPoint().ScalarBaseMult(nm1)
		if !bytes.Equal(p.Bytes(), negG.Bytes()) {
			t.Fatalf("%s: (n-1)G != -G", g.name)
		}
		p, _ = g.newPoint().ScalarMult(G, n.Bytes())
		if p.IsInfinity() != 1 {
			t.Fatalf("%s: n·G != O", g.name)
		}
		// Aliasing: q = q + q and q = 2q in place.
		q := g.newPoint().Set(G)
		q.Add(q, q)
		if !bytes.Equal(q.Bytes(), g.newPoint().Double(G).Bytes()) {
			t.Fatalf("%s: aliased add", g.name)
		}
		if _, err := g.newPoint().ScalarBaseMult(make([]byte, g.size+1)); err == nil {
			t.Fatalf("%s: ScalarBaseMult accepted a long scalar", g.name)
		}
	}
}

func TestNewGenCurveRejects(t *testing.T) {
	p := elliptic.P256().Params()
	badY := new(big.Int).Add(p.Gy, big.NewInt(1))
	if _, err := newGenCurve("x", p.P, p.N, p.B, p.Gx, badY); err == nil {
		t.Error("accepted G off the curve")
	}
	if _, err := newGenCurve("x", new(big.Int).Lsh(p.P, 1), p.N, p.B, p.Gx, p.Gy); err == nil {
		t.Error("accepted even p")
	}
	if _, err := newGenCurve("x", p.P, big.NewInt(7), p.B, p.Gx, p.Gy); err == nil {
		t.Error("accepted short n")
	}
}
