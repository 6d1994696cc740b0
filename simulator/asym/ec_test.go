// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"math/big"
	"os"
	"strings"
	"testing"
)

var allCurves = []Curve{P192, P224, P256, P384, P521}

func ellipticOf(c Curve) elliptic.Curve {
	switch c {
	case P224:
		return elliptic.P224()
	case P256:
		return elliptic.P256()
	case P384:
		return elliptic.P384()
	case P521:
		return elliptic.P521()
	}
	return nil
}

func ecdhOf(c Curve) ecdh.Curve {
	switch c {
	case P256:
		return ecdh.P256()
	case P384:
		return ecdh.P384()
	case P521:
		return ecdh.P521()
	}
	return nil
}

func orderOf(c Curve) *big.Int { return new(big.Int).SetBytes(c.Order()) }

func fromHex(t testing.TB, s string) []byte {
	t.Helper()
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCurveParams(t *testing.T) {
	names := map[Curve]string{P192: "P-192", P224: "P-224", P256: "P-256", P384: "P-384", P521: "P-521"}
	lens := map[Curve]int{P192: 24, P224: 28, P256: 32, P384: 48, P521: 66}
	for _, c := range allCurves {
		if c.Name() != names[c] || c.String() != names[c] || c.ByteLen() != lens[c] {
			t.Errorf("%d: name %q len %d", c, c.Name(), c.ByteLen())
		}
		if len(c.Order()) != c.ByteLen() {
			t.Errorf("%v: order length %d", c, len(c.Order()))
		}
		if ec := ellipticOf(c); ec != nil && orderOf(c).Cmp(ec.Params().N) != 0 {
			t.Errorf("%v: order mismatch", c)
		}
		// Order returns a copy.
		o := c.Order()
		o[0] ^= 0xff
		if bytes.Equal(o, c.Order()) {
			t.Errorf("%v: Order aliases internal state", c)
		}
	}
	for _, bad := range []Curve{0, 6, -1} {
		if bad.ByteLen() != 0 || bad.Name() != "unknown" || bad.Order() != nil {
			t.Errorf("curve %d not unknown", bad)
		}
		if !errors.Is(bad.ValidatePoint([]byte{4}), ErrInput) {
			t.Error("ValidatePoint on unknown curve")
		}
		if _, err := ScalarBaseMult(bad, []byte{1}); !errors.Is(err, ErrInput) {
			t.Error("ScalarBaseMult on unknown curve")
		}
		if _, err := ScalarMult(bad, []byte{1}, []byte{4}); !errors.Is(err, ErrInput) {
			t.Error("ScalarMult on unknown curve")
		}
		if _, err := ECDHX(bad, []byte{1}, []byte{4}); !errors.Is(err, ErrInput) {
			t.Error("ECDHX on unknown curve")
		}
		if _, _, err := ECDSASign(bad, []byte{1}, []byte{1}, []byte{1}); !errors.Is(err, ErrInput) {
			t.Error("ECDSASign on unknown curve")
		}
		if ECDSAVerify(bad, []byte{4}, nil, []byte{1}, []byte{1}) {
			t.Error("ECDSAVerify on unknown curve")
		}
	}
}

// ScalarBaseMult, ScalarMult and ECDHX against crypto/ecdh.
func TestAgainstCryptoECDH(t *testing.T) {
	for _, c := range []Curve{P256, P384, P521} {
		curve := ecdhOf(c)
		for i := 0; i < 10; i++ {
			a, err := curve.GenerateKey(rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := curve.GenerateKey(rand.Reader)
			pub, err := ScalarBaseMult(c, a.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(pub, a.PublicKey().Bytes()) {
				t.Fatalf("%v: ScalarBaseMult != crypto/ecdh public key", c)
			}
			want, err := a.ECDH(b.PublicKey())
			if err != nil {
				t.Fatal(err)
			}
			got, err := ECDHX(c, a.Bytes(), b.PublicKey().Bytes())
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%v: ECDHX mismatch (%v)", c, err)
			}
			pt, err := ScalarMult(c, a.Bytes(), b.PublicKey().Bytes())
			if err != nil || !bytes.Equal(pt[1:1+c.ByteLen()], want) || c.ValidatePoint(pt) != nil {
				t.Fatalf("%v: ScalarMult mismatch (%v)", c, err)
			}
			// Commutativity: a·(b·G) = b·(a·G).
			other, err := ScalarMult(c, b.Bytes(), pub)
			if err != nil || !bytes.Equal(other, pt) {
				t.Fatalf("%v: a·B != b·A", c)
			}
			// Scalar with leading zeros stripped: same result.
			k := a.Bytes()
			for len(k) > 1 && k[0] == 0 {
				k = k[1:]
			}
			if p2, err := ScalarBaseMult(c, k); err != nil || !bytes.Equal(p2, pub) {
				t.Fatalf("%v: short scalar", c)
			}
		}
	}
}

// P-224 has no crypto/ecdh: check against crypto/elliptic, and all curves
// against the math/big reference for a few scalars.
func TestAgainstReference(t *testing.T) {
	for _, c := range allCurves {
		var ref *refCurve
		if c == P192 {
			ref = p192Ref()
		} else {
			ref = refFromElliptic(ellipticOf(c))
		}
		n := orderOf(c)
		q := ref.mul(big.NewInt(987654321), ref.g())
		iters := 5
		if c == P521 || c == P384 {
			iters = 2
		}
		ks := []*big.Int{big.NewInt(1), big.NewInt(2), new(big.Int).Sub(n, big.NewInt(1))}
		for i := 0; i < iters; i++ {
			ks = append(ks, randBelow(t, n))
		}
		for _, kb := range ks {
			k := kb.Bytes()
			got, err := ScalarBaseMult(c, k)
			if err != nil || !bytes.Equal(got, ref.encode(ref.mul(kb, ref.g()))) {
				t.Fatalf("%v: ScalarBaseMult vs reference (%v)", c, err)
			}
			got, err = ScalarMult(c, k, ref.encode(q))
			if err != nil || !bytes.Equal(got, ref.encode(ref.mul(kb, q))) {
				t.Fatalf("%v: ScalarMult vs reference (%v)", c, err)
			}
		}
	}
}

// pointsFor returns a valid point and a collection of invalid encodings.
func invalidPoints(t *testing.T, c Curve) (valid []byte, bad map[string][]byte, wantErr map[string]error) {
	size := c.ByteLen()
	valid, err := ScalarBaseMult(c, []byte{7})
	if err != nil {
		t.Fatal(err)
	}
	var pBig *big.Int
	if c == P192 {
		pBig = p192Curve().pBig
	} else {
		pBig = ellipticOf(c).Params().P
	}
	offCurve := append([]byte(nil), valid...)
	offCurve[len(offCurve)-1] ^= 1
	xIsP := append([]byte{4}, pBig.FillBytes(make([]byte, size))...)
	xIsP = append(xIsP, valid[1+size:]...)
	// y + p if it fits, otherwise all ones (also >= p).
	yPlusP := append([]byte(nil), valid[:1+size]...)
	if yp := new(big.Int).Add(new(big.Int).SetBytes(valid[1+size:]), pBig); (yp.BitLen()+7)/8 <= size {
		yPlusP = append(yPlusP, yp.FillBytes(make([]byte, size))...)
	} else {
		yPlusP = append(yPlusP, bytes.Repeat([]byte{0xff}, size)...)
	}
	// A compressed x with no square root of x³ - 3x + b.
	var ref *refCurve
	if c == P192 {
		ref = p192Ref()
	} else {
		ref = refFromElliptic(ellipticOf(c))
	}
	var noRoot []byte
	for x := int64(1); ; x++ {
		xb := big.NewInt(x)
		rhs := new(big.Int).Exp(xb, big.NewInt(3), pBig)
		rhs.Sub(rhs, new(big.Int).Mul(big.NewInt(3), xb))
		rhs.Add(rhs, ref.b)
		rhs.Mod(rhs, pBig)
		if big.Jacobi(rhs, pBig) == -1 {
			noRoot = append([]byte{2}, xb.FillBytes(make([]byte, size))...)
			break
		}
	}
	hybrid := append([]byte(nil), valid...)
	hybrid[0] = 6 | valid[len(valid)-1]&1
	bad = map[string][]byte{
		"empty":          nil,
		"infinity":       {0},
		"prefix only":    {4},
		"bad prefix":     append([]byte{5}, valid[1:]...),
		"hybrid":         hybrid,
		"short":          valid[:len(valid)-1],
		"long":           append(append([]byte(nil), valid...), 0),
		"off curve":      offCurve,
		"x = p":          xIsP,
		"y >= p":         yPlusP,
		"no sqrt":        noRoot,
		"compressed 04":  append([]byte{4}, valid[1:1+size]...),
		"uncompressed 2": append([]byte{2}, valid[1:]...),
		"zeros":          make([]byte, 1+2*size),
	}
	wantErr = map[string]error{
		"empty": ErrInput, "infinity": ErrPointAtInfinity, "prefix only": ErrInput, "bad prefix": ErrInput,
		"hybrid": ErrInput, "short": ErrInput, "long": ErrInput, "off curve": ErrNotOnCurve,
		"x = p": ErrNotOnCurve, "y >= p": ErrNotOnCurve, "no sqrt": ErrNotOnCurve,
		"compressed 04": ErrInput, "uncompressed 2": ErrInput, "zeros": ErrInput,
	}
	return valid, bad, wantErr
}

func TestInvalidPointsRejected(t *testing.T) {
	for _, c := range allCurves {
		valid, bad, wantErr := invalidPoints(t, c)
		if err := c.ValidatePoint(valid); err != nil {
			t.Fatalf("%v: valid point rejected: %v", c, err)
		}
		for name, pt := range bad {
			want := wantErr[name]
			if name == "zeros" {
				// 0x00 prefix with full length: malformed.
				want = ErrInput
			}
			if err := c.ValidatePoint(pt); !errors.Is(err, want) {
				t.Errorf("%v %s: ValidatePoint = %v, want %v", c, name, err, want)
			}
			if _, err := ScalarMult(c, []byte{3}, pt); !errors.Is(err, want) {
				t.Errorf("%v %s: ScalarMult = %v, want %v", c, name, err, want)
			}
			if _, err := ECDHX(c, []byte{3}, pt); !errors.Is(err, want) {
				t.Errorf("%v %s: ECDHX = %v, want %v", c, name, err, want)
			}
			if ECDSAVerify(c, pt, []byte{1}, []byte{1}, []byte{1}) {
				t.Errorf("%v %s: ECDSAVerify accepted", c, name)
			}
		}
	}
}

func TestCompressedPoints(t *testing.T) {
	for _, c := range allCurves {
		n := orderOf(c)
		for i := 0; i < 5; i++ {
			d := randBelow(t, n)
			if d.Sign() == 0 {
				continue
			}
			pub, err := ScalarBaseMult(c, d.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			size := c.ByteLen()
			comp := append([]byte{2 | pub[len(pub)-1]&1}, pub[1:1+size]...)
			if err := c.ValidatePoint(comp); err != nil {
				t.Fatalf("%v: compressed point rejected: %v", c, err)
			}
			k := randBelow(t, n).Bytes()
			if len(k) == 0 {
				k = []byte{1}
			}
			a, err1 := ScalarMult(c, k, pub)
			b, err2 := ScalarMult(c, k, comp)
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Fatalf("%v: compressed and uncompressed disagree (%v, %v)", c, err1, err2)
			}
			// The other sign decodes to -P.
			neg := append([]byte{comp[0] ^ 1}, comp[1:]...)
			kn, err := ScalarMult(c, []byte{1}, neg)
			if err != nil {
				t.Fatal(err)
			}
			ySum := new(big.Int).Add(new(big.Int).SetBytes(kn[1+size:]), new(big.Int).SetBytes(pub[1+size:]))
			var p *big.Int
			if c == P192 {
				p = p192Curve().pBig
			} else {
				p = ellipticOf(c).Params().P
			}
			if ySum.Cmp(p) != 0 {
				t.Fatalf("%v: flipped compressed prefix did not give -P", c)
			}
		}
	}
}

func TestScalarRange(t *testing.T) {
	for _, c := range allCurves {
		n := c.Order()
		g, err := ScalarBaseMult(c, []byte{1})
		if err != nil {
			t.Fatal(err)
		}
		nPlus1 := new(big.Int).Add(orderOf(c), big.NewInt(1)).Bytes()
		bad := map[string][]byte{
			"empty":     nil,
			"zero":      {0},
			"zeros":     make([]byte, c.ByteLen()),
			"n":         n,
			"n+1":       nPlus1,
			"too long":  append([]byte{0}, append(make([]byte, c.ByteLen()-1), 1)...),
			"all ones":  bytes.Repeat([]byte{0xff}, c.ByteLen()),
			"way long":  make([]byte, 200),
			"long zero": append(make([]byte, c.ByteLen()), 1),
		}
		for name, k := range bad {
			if _, err := ScalarBaseMult(c, k); !errors.Is(err, ErrInput) {
				t.Errorf("%v %s: ScalarBaseMult err = %v", c, name, err)
			}
			if _, err := ScalarMult(c, k, g); !errors.Is(err, ErrInput) {
				t.Errorf("%v %s: ScalarMult err = %v", c, name, err)
			}
			if _, err := ECDHX(c, k, g); !errors.Is(err, ErrInput) {
				t.Errorf("%v %s: ECDHX err = %v", c, name, err)
			}
			if _, _, err := ECDSASign(c, k, []byte{1}, []byte{1}); !errors.Is(err, ErrInput) {
				t.Errorf("%v %s: ECDSASign(d) err = %v", c, name, err)
			}
			if _, _, err := ECDSASign(c, []byte{1}, k, []byte{1}); !errors.Is(err, ErrInput) {
				t.Errorf("%v %s: ECDSASign(k) err = %v", c, name, err)
			}
		}
		// n-1 is the largest valid scalar: (n-1)·G = -G.
		nm1 := new(big.Int).Sub(orderOf(c), big.NewInt(1)).Bytes()
		neg, err := ScalarBaseMult(c, nm1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(neg[:1+c.ByteLen()], g[:1+c.ByteLen()]) || bytes.Equal(neg, g) {
			t.Fatalf("%v: (n-1)·G is not -G", c)
		}
		// (n-1)·(-G) = G
		back, err := ScalarMult(c, nm1, neg)
		if err != nil || !bytes.Equal(back, g) {
			t.Fatalf("%v: (n-1)·(-G) != G", c)
		}
	}
}

func TestInfinityHandled(t *testing.T) {
	for _, c := range allCurves {
		if _, err := ScalarMult(c, []byte{1}, []byte{0}); !errors.Is(err, ErrPointAtInfinity) {
			t.Errorf("%v: ScalarMult(O) err = %v", c, err)
		}
		if _, err := ECDHX(c, []byte{1}, []byte{0}); !errors.Is(err, ErrPointAtInfinity) {
			t.Errorf("%v: ECDHX(O) err = %v", c, err)
		}
		if err := c.ValidatePoint([]byte{0}); !errors.Is(err, ErrPointAtInfinity) {
			t.Errorf("%v: ValidatePoint(O) err = %v", c, err)
		}
	}
	// With prime-order curves and 0 < k < n the result is never infinity;
	// the engine-level encode still maps infinity to ErrPointAtInfinity.
	g := p192Curve()
	if _, err := encode(g.newPoint()); !errors.Is(err, ErrPointAtInfinity) {
		t.Errorf("encode(O) err = %v", err)
	}
}

// ecdsaPub builds a crypto/ecdsa public key from an uncompressed point.
func ecdsaPub(t testing.TB, c Curve, pub []byte) *ecdsa.PublicKey {
	t.Helper()
	k, err := ecdsa.ParseUncompressedPublicKey(ellipticOf(c), pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestECDSASignVerifiesWithCryptoECDSA(t *testing.T) {
	// Hash lengths below, at and above every order length (truncation).
	var hashes [][]byte
	for _, l := range []int{0, 1, 20, 28, 32, 48, 64, 66, 100} {
		h := make([]byte, l)
		rand.Read(h)
		hashes = append(hashes, h)
	}
	for _, c := range allCurves {
		n := orderOf(c)
		iters := 6
		for i := 0; i < iters; i++ {
			d := randBelow(t, n)
			k := randBelow(t, n)
			if d.Sign() == 0 || k.Sign() == 0 {
				continue
			}
			pub, err := ScalarBaseMult(c, d.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hashes {
				r, s, err := ECDSASign(c, d.Bytes(), k.Bytes(), h)
				if err != nil {
					t.Fatalf("%v: sign: %v", c, err)
				}
				if len(r) != c.ByteLen() || len(s) != c.ByteLen() {
					t.Fatalf("%v: r, s lengths %d, %d", c, len(r), len(s))
				}
				rb, sb := new(big.Int).SetBytes(r), new(big.Int).SetBytes(s)
				if c == P192 {
					ref := p192Ref()
					if !ref.verify(ref.decode(pub), h, rb, sb) {
						t.Fatalf("P-192: reference verifier rejected (hash len %d)", len(h))
					}
				} else if !ecdsa.Verify(ecdsaPub(t, c, pub), h, rb, sb) {
					t.Fatalf("%v: crypto/ecdsa rejected (hash len %d)", c, len(h))
				}
				if !ECDSAVerify(c, pub, h, r, s) {
					t.Fatalf("%v: ECDSAVerify rejected own signature", c)
				}
				// r is the x coordinate of k·G mod n.
				R, _ := ScalarBaseMult(c, k.Bytes())
				rx := new(big.Int).SetBytes(R[1 : 1+c.ByteLen()])
				if rx.Mod(rx, n).Cmp(rb) != 0 {
					t.Fatalf("%v: r != x(kG) mod n", c)
				}
			}
		}
	}
}

// ECDSAVerify accepts crypto/ecdsa's signatures and rejects tampered ones.
func TestECDSAVerifyCryptoSignatures(t *testing.T) {
	for _, c := range []Curve{P224, P256, P384, P521} {
		for i := 0; i < 5; i++ {
			priv, err := ecdsa.GenerateKey(ellipticOf(c), rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := priv.PublicKey.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			h := sha512.Sum512([]byte{byte(i), byte(c)})
			for _, hl := range []int{20, 32, 64} {
				hash := h[:hl]
				rb, sb, err := ecdsa.Sign(rand.Reader, priv, hash)
				if err != nil {
					t.Fatal(err)
				}
				r, s := rb.Bytes(), sb.Bytes()
				if !ECDSAVerify(c, pub, hash, r, s) {
					t.Fatalf("%v: rejected a crypto/ecdsa signature", c)
				}
				// Fixed-length (padded) r and s are accepted too.
				if !ECDSAVerify(c, pub, hash, pad(r, c.ByteLen()), pad(s, c.ByteLen())) {
					t.Fatalf("%v: rejected padded r, s", c)
				}
				checkTampered(t, c, pub, hash, r, s)
			}
		}
	}
	// P-192: our signature, tampered.
	d, k := []byte{0x42}, []byte{0x99, 0x01}
	pub, _ := ScalarBaseMult(P192, d)
	hash := sha256.Sum256([]byte("p192"))
	r, s, err := ECDSASign(P192, d, k, hash[:])
	if err != nil {
		t.Fatal(err)
	}
	checkTampered(t, P192, pub, hash[:], r, s)
}

func checkTampered(t *testing.T, c Curve, pub, hash, r, s []byte) {
	t.Helper()
	flip := func(b []byte, i int) []byte {
		o := append([]byte(nil), b...)
		o[i%len(o)] ^= 1 << uint(i%8)
		return o
	}
	n := c.Order()
	other, _ := ScalarBaseMult(c, []byte{5})
	cases := map[string][4][]byte{
		"hash":    {pub, flip(hash, 3), r, s},
		"r":       {pub, hash, flip(r, 5), s},
		"s":       {pub, hash, r, flip(s, 7)},
		"swap":    {pub, hash, s, r},
		"pub":     {other, hash, r, s},
		"r = 0":   {pub, hash, []byte{0}, s},
		"s = 0":   {pub, hash, r, []byte{0}},
		"r = n":   {pub, hash, n, s},
		"s = n":   {pub, hash, r, n},
		"empty r": {pub, hash, nil, s},
		"long r":  {pub, hash, append([]byte{0}, pad(r, c.ByteLen())...), s},
		"r + n":   {pub, hash, new(big.Int).Add(new(big.Int).SetBytes(r), new(big.Int).SetBytes(n)).Bytes(), s},
	}
	for name, in := range cases {
		if ECDSAVerify(c, in[0], in[1], in[2], in[3]) {
			t.Errorf("%v: accepted tampered signature (%s)", c, name)
		}
	}
	// -s is also valid (ECDSA malleability) — the engine, like the
	// standard, accepts it.
	negS := new(big.Int).Sub(new(big.Int).SetBytes(n), new(big.Int).SetBytes(s)).Bytes()
	if !ECDSAVerify(c, pub, hash, r, negS) {
		t.Errorf("%v: rejected (r, n-s)", c)
	}
}

// RFC 6979 appendix A.2 deterministic signatures (SHA-256, message
// "sample"), signed here with the RFC's nonce k.
func TestECDSARFC6979Vectors(t *testing.T) {
	msg := sha256.Sum256([]byte("sample"))
	vectors := []struct {
		c          Curve
		d, k, r, s string
	}{
		{P192, "6FAB034934E4C0FC9AE67F5B5659A9D7D1FEFD187EE09FD4", "32B1B6D7D42A05CB449065727A84804FB1A3E34D8F261496",
			"4B0B8CE98A92866A2820E20AA6B75B56382E0F9BFD5ECB55", "CCDB006926EA9565CBADC840829D8C384E06DE1F1E381B85"},
		{P224, "F220266E1105BFE3083E03EC7A3A654651F45E37167E88600BF257C1", "AD3029E0278F80643DE33917CE6908C70A8FF50A411F06E41DEDFCDC",
			"61AA3DA010E8E8406C656BC477A7A7189895E7E840CDFE8FF42307BA", "BC814050DAB5D23770879494F9E0A680DC1AF7161991BDE692B10101"},
		{P256, "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721", "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60",
			"EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716", "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"},
		{P384, "6B9D3DAD2E1B8C1C05B19875B6659F4DE23C3B667BF297BA9AA47740787137D896D5724E4C70A825F872C9EA60D2EDF5",
			"180AE9F9AEC5438A44BC159A1FCB277C7BE54FA20E7CF404B490650A8ACC414E375572342863C899F9F2EDF9747A9B60",
			"21B13D1E013C7FA1392D03C5F99AF8B30C570C6F98D4EA8E354B63A21D3DAA33BDE1E888E63355D92FA2B3C36D8FB2CD",
			"F3AA443FB107745BF4BD77CB3891674632068A10CA67E3D45DB2266FA7D1FEEBEFDC63ECCD1AC42EC0CB8668A4FA0AB0"},
		{P521, "0FAD06DAA62BA3B25D2FB40133DA757205DE67F5BB0018FEE8C86E1B68C7E75CAA896EB32F1F47C70855836A6D16FCC1466F6D8FBEC67DB89EC0C08B0E996B83538",
			"0EDF38AFCAAECAB4383358B34D67C9F2216C8382AAEA44A3DAD5FDC9C32575761793FEF24EB0FC276DFC4F6E3EC476752F043CF01415387470BCBD8678ED2C7E1A0",
			"01511BB4D675114FE266FC4372B87682BAECC01D3CC62CF2303C92B3526012659D16876E25C7C1E57648F23B73564D67F61C6F14D527D54972810421E7D87589E1A7",
			"004A171143A83163D6DF460AAF61522695F207A58B95C0644D87E52AA1A347916E4F7A72930B1BC06DBE22CE3F58264AFD23704CBB63B29B931F7DE6C9D949A7ECFC"},
	}
	// RFC 6979 A.2.3: P-192 public key.
	wantP192Pub := "04" + "AC2C77F529F91689FEA0EA5EFEC7F210D8EEA0B9E047ED56" + "3BC723E57670BD4887EBC732C523063D0A7C957BC97C1C43"
	for _, v := range vectors {
		d, k := fromHex(t, v.d), fromHex(t, v.k)
		r, s, err := ECDSASign(v.c, d, k, msg[:])
		if err != nil {
			t.Fatalf("%v: %v", v.c, err)
		}
		wr, ws := pad(fromHex(t, v.r), v.c.ByteLen()), pad(fromHex(t, v.s), v.c.ByteLen())
		if !bytes.Equal(r, wr) || !bytes.Equal(s, ws) {
			t.Errorf("%v: got r=%X s=%X\nwant r=%X s=%X", v.c, r, s, wr, ws)
		}
		pub, err := ScalarBaseMult(v.c, d)
		if err != nil {
			t.Fatal(err)
		}
		if v.c == P192 && !strings.EqualFold(hex.EncodeToString(pub), wantP192Pub) {
			t.Errorf("P-192 public key %x", pub)
		}
		if !ECDSAVerify(v.c, pub, msg[:], wr, ws) {
			t.Errorf("%v: RFC 6979 signature rejected", v.c)
		}
	}
	// More P-192 vectors from RFC 6979 A.2.3 (SHA-224 / SHA-256,
	// "sample" / "test").
	d := fromHex(t, "6FAB034934E4C0FC9AE67F5B5659A9D7D1FEFD187EE09FD4")
	pub, _ := ScalarBaseMult(P192, d)
	sha224 := func(m string) []byte { h := sha256.Sum224([]byte(m)); return h[:] }
	sha256f := func(m string) []byte { h := sha256.Sum256([]byte(m)); return h[:] }
	more := []struct {
		hash    []byte
		k, r, s string
	}{
		{sha224("sample"), "4381526B3FC1E7128F202E194505592F01D5FF4C5AF015D8", "A1F00DAD97AEEC91C95585F36200C65F3C01812AA60378F5", "E07EC1304C7C6C9DEBBE980B9692668F81D4DE7922A0F97A"},
		{sha224("test"), "F5DC805F76EF851800700CCE82E7B98D8911B7D510059FBE", "6945A1C1D1B2206B8145548F633BB61CEF04891BAF26ED34", "B7FB7FDFC339C0B9BD61A9F5A8EAF9BE58FC5CBA2CB15293"},
		{sha256f("test"), "5C4CE89CF56D9E7C77C8585339B006B97B5F0680B4306C6C", "3A718BD8B4926C3B52EE6BBE67EF79B18CB6EB62B1AD97AE", "5662E6848A4A19B1F1AE2F72ACD4B8BBE50F1EAC65D9124F"},
	}
	for _, v := range more {
		r, s, err := ECDSASign(P192, d, fromHex(t, v.k), v.hash)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r, fromHex(t, v.r)) || !bytes.Equal(s, fromHex(t, v.s)) {
			t.Errorf("P-192 k=%s: got r=%X s=%X", v.k, r, s)
		}
		if !ECDSAVerify(P192, pub, v.hash, r, s) {
			t.Error("P-192 RFC 6979 signature rejected")
		}
	}
}

// NIST CAVP 186-3 ECDSA SigVer vectors (the file Go's crypto/ecdsa tests
// use: P-224 to P-521 with SHA-1 to SHA-512).
func TestECDSACAVPSigVer(t *testing.T) {
	f, err := os.Open("testdata/SigVer.rsp.bz2")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := bufio.NewReader(bzip2.NewReader(f))

	var (
		c        Curve
		h        hash.Hash
		msg      []byte
		qx, qy   []byte
		r, s     []byte
		tested   int
		curveOf  = map[string]Curve{"P-192": P192, "P-224": P224, "P-256": P256, "P-384": P384, "P-521": P521}
		hashOfFn = map[string]func() hash.Hash{
			"SHA-1": sha1.New, "SHA-224": sha256.New224, "SHA-256": sha256.New, "SHA-384": sha512.New384, "SHA-512": sha512.New,
		}
	)
	for {
		line, err := buf.ReadString('\n')
		if len(line) == 0 && err != nil {
			break
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#':
			continue
		case line[0] == '[':
			parts := strings.Split(line[1:len(line)-1], ",")
			cc, ok1 := curveOf[parts[0]]
			hf, ok2 := hashOfFn[parts[1]]
			if ok1 && ok2 {
				c, h = cc, hf()
			} else {
				c, h = 0, nil
			}
			continue
		}
		key, val, _ := strings.Cut(line, " = ")
		switch key {
		case "Msg":
			msg = fromHex(t, val)
		case "Qx":
			qx = fromHex(t, val)
		case "Qy":
			qy = fromHex(t, val)
		case "R":
			r = fromHex(t, val)
		case "S":
			s = fromHex(t, val)
		case "Result":
			if c == 0 {
				continue
			}
			h.Reset()
			h.Write(msg)
			digest := h.Sum(nil)
			pub := append([]byte{4}, pad(qx, c.ByteLen())...)
			pub = append(pub, pad(qy, c.ByteLen())...)
			want := strings.HasPrefix(val, "P")
			if got := ECDSAVerify(c, pub, digest, r, s); got != want {
				t.Errorf("%v: vector %d: got %v want %v (%s)", c, tested, got, want, val)
			}
			tested++
		}
	}
	if tested < 300 {
		t.Fatalf("only %d vectors tested", tested)
	}
	t.Logf("%d CAVP vectors", tested)
}

func TestECDSASignZeroS(t *testing.T) {
	// s = 0 happens for e = -r·d mod n: choose the hash accordingly. (r = 0
	// cannot be provoked: it needs x(k·G) = 0 mod n.)
	for _, c := range allCurves {
		n := orderOf(c)
		d := big.NewInt(12345)
		k := big.NewInt(777)
		R, _ := ScalarBaseMult(c, k.Bytes())
		r := new(big.Int).SetBytes(R[1 : 1+c.ByteLen()])
		r.Mod(r, n)
		e := new(big.Int).Mul(r, d)
		e.Neg(e).Mod(e, n)
		// e must survive truncation: give it as a ByteLen-byte value whose
		// bit length fits n (n's byte length == ByteLen, e < n).
		hashB := e.FillBytes(make([]byte, c.ByteLen()))
		if c == P521 {
			// For P-521 the truncation keeps the leftmost 521 bits of a
			// 66-byte hash: shift e left by 7 to survive it.
			hashB = new(big.Int).Lsh(e, 7).FillBytes(make([]byte, 66))
		}
		if _, _, err := ECDSASign(c, d.Bytes(), k.Bytes(), hashB); !errors.Is(err, ErrInput) {
			t.Errorf("%v: s = 0 not reported (err = %v)", c, err)
		}
	}
}
