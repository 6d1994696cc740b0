// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"bytes"
	"errors"
	"testing"
)

// fuzzCurve maps a byte to a curve; 0 and 6 are unknown curves.
func fuzzCurve(sel byte) Curve { return Curve(sel % 7) }

// FuzzScalarMult feeds arbitrary scalars and point encodings to the EC
// entry points: they must never panic, errors must be the package's, and
// successful results must be valid points.
func FuzzScalarMult(f *testing.F) {
	for _, c := range allCurves {
		g, _ := ScalarBaseMult(c, []byte{1})
		f.Add(byte(c), []byte{3}, g)
		f.Add(byte(c), c.Order(), g)
		comp := append([]byte{2 | g[len(g)-1]&1}, g[1:1+c.ByteLen()]...)
		f.Add(byte(c), []byte{0xff, 0x01}, comp)
		f.Add(byte(c), []byte{1}, []byte{0})
	}
	f.Add(byte(9), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, sel byte, k, point []byte) {
		c := fuzzCurve(sel)
		known := func(err error) bool {
			return err == nil || errors.Is(err, ErrInput) || errors.Is(err, ErrNotOnCurve) || errors.Is(err, ErrPointAtInfinity)
		}
		verr := c.ValidatePoint(point)
		out, err := ScalarMult(c, k, point)
		if !known(err) || !known(verr) {
			t.Fatalf("unexpected error %v / %v", err, verr)
		}
		if err == nil {
			if verr != nil {
				t.Fatalf("ScalarMult accepted a point ValidatePoint rejects: %v", verr)
			}
			if e := c.ValidatePoint(out); e != nil {
				t.Fatalf("result is not a valid point: %v", e)
			}
		}
		x, err2 := ECDHX(c, k, point)
		if (err == nil) != (err2 == nil) || (err == nil && !bytes.Equal(x, out[1:1+c.ByteLen()])) {
			t.Fatalf("ECDHX and ScalarMult disagree: %v / %v", err, err2)
		}
		if b, err := ScalarBaseMult(c, k); err == nil && c.ValidatePoint(b) != nil {
			t.Fatal("ScalarBaseMult produced an invalid point")
		}
	})
}

// FuzzECDSAVerify feeds arbitrary public keys, hashes and signatures.
func FuzzECDSAVerify(f *testing.F) {
	for _, c := range allCurves {
		pub, _ := ScalarBaseMult(c, []byte{0x42})
		h := bytes.Repeat([]byte{0xab}, 32)
		r, s, _ := ECDSASign(c, []byte{0x42}, []byte{0x17, 0x71}, h)
		f.Add(byte(c), pub, h, r, s)
		f.Add(byte(c), pub, h, c.Order(), s)
		f.Add(byte(c), []byte{0}, h, r, s)
	}
	f.Fuzz(func(t *testing.T, sel byte, pub, hash, r, s []byte) {
		c := fuzzCurve(sel)
		ok := ECDSAVerify(c, pub, hash, r, s)
		if ok && c.ValidatePoint(pub) != nil {
			t.Fatal("verified with an invalid public key")
		}
		// Signing with fuzzed d/k must not panic either.
		rr, ss, err := ECDSASign(c, r, s, hash)
		if err == nil {
			if len(rr) != c.ByteLen() || len(ss) != c.ByteLen() {
				t.Fatal("bad signature length")
			}
			p, err := ScalarBaseMult(c, r)
			if err != nil || !ECDSAVerify(c, p, hash, rr, ss) {
				t.Fatalf("own signature does not verify (%v)", err)
			}
		} else if !errors.Is(err, ErrInput) {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// FuzzModExp checks ModExp and X25519 never panic.
func FuzzModExp(f *testing.F) {
	f.Add([]byte{2}, []byte{10}, []byte{3})
	f.Add([]byte{0}, []byte{}, []byte{1})
	f.Add([]byte{5}, []byte{1, 2, 3}, []byte{0, 0, 0x80, 1})
	f.Fuzz(func(t *testing.T, base, exp, m []byte) {
		if len(m) > 512 || len(exp) > 512 {
			return
		}
		out, err := ModExp(base, exp, m)
		if err != nil && !errors.Is(err, ErrInput) {
			t.Fatal(err)
		}
		if err == nil && len(out) != len(trimPublic(m)) {
			t.Fatal("bad output length")
		}
		// Use the inputs as CRT parameters too (wrong keys, no panic).
		if len(base) <= 256 {
			_, err = ModExpCRT(base, m, exp, base, exp, m)
			if err != nil && !errors.Is(err, ErrInput) {
				t.Fatal(err)
			}
		}
		_, _ = X25519(pad(base, 32), pad(exp, 32))
	})
}
