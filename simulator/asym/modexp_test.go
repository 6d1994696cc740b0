// SPDX-License-Identifier: Apache-2.0

//go:debug rsa1024min=0

package asym

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"math/big"
	mrand "math/rand/v2"
	"sync"
	"testing"
)

var (
	rsaKeyMu sync.Mutex
	rsaKeys  = map[int]*rsa.PrivateKey{}
)

// rsaKey returns a crypto/rsa key of the given size, generated once per
// test binary.
func rsaKey(tb testing.TB, bits int) *rsa.PrivateKey {
	tb.Helper()
	rsaKeyMu.Lock()
	defer rsaKeyMu.Unlock()
	if k, ok := rsaKeys[bits]; ok {
		return k
	}
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		tb.Fatalf("GenerateKey(%d): %v", bits, err)
	}
	k.Precompute()
	rsaKeys[bits] = k
	return k
}

func rsaSizes(t *testing.T) []int {
	sizes := []int{512, 1024, 2048, 3072, 4096}
	if !testing.Short() {
		sizes = append(sizes, 8192)
	}
	return sizes
}

func randBelow(t testing.TB, n *big.Int) *big.Int {
	v, err := rand.Int(rand.Reader, n)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func pad(b []byte, n int) []byte {
	if len(b) >= n {
		return b
	}
	return append(make([]byte, n-len(b)), b...)
}

func TestModExpAgainstBig(t *testing.T) {
	for _, bits := range rsaSizes(t) {
		key := rsaKey(t, bits)
		n := key.N
		nb := n.Bytes()
		iters := 4
		if bits >= 4096 {
			iters = 1
		}
		for i := 0; i < iters; i++ {
			base := randBelow(t, n)
			// A full-size exponent, a short one, and the private exponent.
			exps := []*big.Int{randBelow(t, n), big.NewInt(int64(mrand.Uint32())), key.D, big.NewInt(65537)}
			for _, e := range exps {
				want := new(big.Int).Exp(base, e, n)
				got, err := ModExp(base.Bytes(), e.Bytes(), nb)
				if err != nil {
					t.Fatalf("%d bits: ModExp: %v", bits, err)
				}
				if len(got) != len(nb) {
					t.Fatalf("%d bits: output length %d, want %d", bits, len(got), len(nb))
				}
				if !bytes.Equal(got, pad(want.Bytes(), len(nb))) {
					t.Fatalf("%d bits: ModExp mismatch", bits)
				}
			}
		}
	}
}

// Random odd moduli of odd sizes, including ones that are not RSA moduli.
func TestModExpRandomModuli(t *testing.T) {
	for _, size := range []int{1, 2, 7, 8, 9, 31, 63, 64, 65, 100, 129, 257} {
		for i := 0; i < 5; i++ {
			mb := make([]byte, size)
			rand.Read(mb)
			mb[0] |= 0x80 >> uint(i%8)
			mb[size-1] |= 1
			m := new(big.Int).SetBytes(mb)
			if m.Cmp(big.NewInt(1)) <= 0 {
				continue
			}
			base := randBelow(t, m)
			eb := make([]byte, 1+mrand.IntN(2*size))
			rand.Read(eb)
			want := new(big.Int).Exp(base, new(big.Int).SetBytes(eb), m)
			got, err := ModExp(base.Bytes(), eb, mb)
			if err != nil {
				t.Fatal(err)
			}
			mt := trimPublic(mb)
			if !bytes.Equal(got, pad(want.Bytes(), len(mt))) {
				t.Fatalf("size %d: mismatch", size)
			}
		}
	}
}

func TestModExpCRTAgainstPlain(t *testing.T) {
	for _, bits := range rsaSizes(t) {
		key := rsaKey(t, bits)
		n := key.N
		nb := n.Bytes()
		p, q := key.Primes[0], key.Primes[1]
		pre := key.Precomputed
		iters := 3
		if bits >= 4096 {
			iters = 1
		}
		for i := 0; i < iters; i++ {
			c := randBelow(t, n)
			want := new(big.Int).Exp(c, key.D, n)
			got, err := ModExpCRT(c.Bytes(), p.Bytes(), q.Bytes(), pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes())
			if err != nil {
				t.Fatalf("%d bits: ModExpCRT: %v", bits, err)
			}
			if len(got) != len(nb) || !bytes.Equal(got, pad(want.Bytes(), len(nb))) {
				t.Fatalf("%d bits: ModExpCRT mismatch with math/big", bits)
			}
			plain, err := ModExp(c.Bytes(), key.D.Bytes(), nb)
			if err != nil || !bytes.Equal(plain, got) {
				t.Fatalf("%d bits: CRT result differs from plain ModExp (%v)", bits, err)
			}
			// Leading zeros on the inputs do not change anything.
			got2, err := ModExpCRT(pad(c.Bytes(), len(nb)+3), pad(p.Bytes(), len(nb)), pad(q.Bytes(), len(nb)),
				pad(pre.Dp.Bytes(), len(nb)), pad(pre.Dq.Bytes(), len(nb)), pad(pre.Qinv.Bytes(), len(nb)))
			if err != nil || !bytes.Equal(got2, got) {
				t.Fatalf("%d bits: padded inputs changed the result (%v)", bits, err)
			}
		}
	}
}

// p < q as well as p > q: Garner's formula does not care.
func TestModExpCRTSwappedPrimes(t *testing.T) {
	key := rsaKey(t, 1024)
	p, q := key.Primes[1], key.Primes[0]
	dP := new(big.Int).Mod(key.D, new(big.Int).Sub(p, big.NewInt(1)))
	dQ := new(big.Int).Mod(key.D, new(big.Int).Sub(q, big.NewInt(1)))
	qInv := new(big.Int).ModInverse(q, p)
	c := randBelow(t, key.N)
	got, err := ModExpCRT(c.Bytes(), p.Bytes(), q.Bytes(), dP.Bytes(), dQ.Bytes(), qInv.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := new(big.Int).Exp(c, key.D, key.N)
	if !bytes.Equal(got, pad(want.Bytes(), len(key.N.Bytes()))) {
		t.Fatal("mismatch with swapped primes")
	}
}

// Primes of different bit and limb lengths, either one the longer: the
// recombination reduces m2 mod p by one subtraction only when q is no
// longer than p, and sums h·q + m2 over both primes' limbs.
func TestModExpCRTUnbalancedPrimes(t *testing.T) {
	for _, sz := range [][2]int{{512, 520}, {520, 512}, {500, 600}, {600, 500}, {1024, 1088}, {1087, 1024}, {767, 769}} {
		p, err := rand.Prime(rand.Reader, sz[0])
		if err != nil {
			t.Fatal(err)
		}
		q, err := rand.Prime(rand.Reader, sz[1])
		if err != nil {
			t.Fatal(err)
		}
		one := big.NewInt(1)
		n := new(big.Int).Mul(p, q)
		phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
		d := new(big.Int).ModInverse(big.NewInt(65537), phi)
		qInv := new(big.Int).ModInverse(q, p)
		if d == nil || qInv == nil {
			continue // 65537 divides phi: another pair next time
		}
		dP := new(big.Int).Mod(d, new(big.Int).Sub(p, one))
		dQ := new(big.Int).Mod(d, new(big.Int).Sub(q, one))
		for i := 0; i < 8; i++ {
			c := randBelow(t, n)
			if i == 0 {
				c = new(big.Int).Sub(n, one) // the largest input
			}
			got, err := ModExpCRT(c.Bytes(), p.Bytes(), q.Bytes(), dP.Bytes(), dQ.Bytes(), qInv.Bytes())
			if err != nil {
				t.Fatalf("%v bits: %v", sz, err)
			}
			want := pad(new(big.Int).Exp(c, d, n).Bytes(), len(n.Bytes()))
			if !bytes.Equal(got, want) {
				t.Fatalf("%v bits: ModExpCRT mismatch with math/big", sz)
			}
		}
	}
}

func TestModExpEdgeCases(t *testing.T) {
	key := rsaKey(t, 1024)
	n := key.N
	nb := n.Bytes()
	one := big.NewInt(1)
	nm1 := new(big.Int).Sub(n, one)
	e := randBelow(t, n)
	for _, base := range []*big.Int{big.NewInt(0), one, big.NewInt(2), nm1} {
		for _, exp := range [][]byte{nil, {0}, {0, 0, 0}, {1}, {0, 1}, {2}, e.Bytes(), key.D.Bytes()} {
			want := new(big.Int).Exp(base, new(big.Int).SetBytes(exp), n)
			got, err := ModExp(base.Bytes(), exp, nb)
			if err != nil {
				t.Fatalf("base %v exp %x: %v", base, exp, err)
			}
			if !bytes.Equal(got, pad(want.Bytes(), len(nb))) {
				t.Fatalf("base %v exp %x: got %x want %x", base, exp, got, want)
			}
		}
	}
	// Explicit values.
	if got, _ := ModExp([]byte{5}, nil, nb); new(big.Int).SetBytes(got).Cmp(one) != 0 {
		t.Fatal("x^0 != 1")
	}
	if got, _ := ModExp([]byte{0}, []byte{0}, nb); new(big.Int).SetBytes(got).Cmp(one) != 0 {
		t.Fatal("0^0 != 1")
	}
	if got, _ := ModExp(nm1.Bytes(), []byte{2}, nb); new(big.Int).SetBytes(got).Cmp(one) != 0 {
		t.Fatal("(n-1)^2 != 1")
	}
	if got, _ := ModExp(nm1.Bytes(), []byte{1}, nb); new(big.Int).SetBytes(got).Cmp(nm1) != 0 {
		t.Fatal("(n-1)^1 != n-1")
	}
	// Small moduli.
	if got, err := ModExp([]byte{2}, []byte{10}, []byte{0, 0, 3}); err != nil || !bytes.Equal(got, []byte{1}) {
		t.Fatalf("2^10 mod 3 = %x, %v", got, err)
	}
	if got, err := ModExp([]byte{0, 0, 0, 4}, []byte{3}, []byte{0x01, 0x01}); err != nil || !bytes.Equal(got, []byte{0, 64}) {
		t.Fatalf("4^3 mod 257 = %x, %v", got, err)
	}

	bad := []struct {
		name         string
		base, exp, m []byte
	}{
		{"even modulus", []byte{1}, []byte{1}, []byte{0x10, 0x00}},
		{"modulus 1", []byte{0}, []byte{1}, []byte{1}},
		{"modulus 0", []byte{0}, []byte{1}, []byte{0, 0}},
		{"empty modulus", []byte{0}, []byte{1}, nil},
		{"base = m", nb, []byte{1}, nb},
		{"base > m", append([]byte{1}, nb...), []byte{1}, nb},
		{"base m+1", new(big.Int).Add(n, one).Bytes(), []byte{1}, nb},
	}
	for _, tc := range bad {
		if _, err := ModExp(tc.base, tc.exp, tc.m); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", tc.name, err)
		}
	}
	// Base longer than m but with zero excess bytes is fine.
	if got, err := ModExp(pad([]byte{3}, len(nb)+8), []byte{2}, nb); err != nil || new(big.Int).SetBytes(got).Int64() != 9 {
		t.Fatalf("padded base: %x, %v", got, err)
	}
}

func TestModExpCRTBadInputs(t *testing.T) {
	key := rsaKey(t, 1024)
	p, q := key.Primes[0].Bytes(), key.Primes[1].Bytes()
	pre := key.Precomputed
	dp, dq, qi := pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes()
	n := key.N.Bytes()
	even := append([]byte(nil), p...)
	even[len(even)-1] &^= 1
	cases := []struct {
		name                string
		c, p, q, dp, dq, qi []byte
	}{
		{"c = n", n, p, q, dp, dq, qi},
		{"c > n", append([]byte{1}, n...), p, q, dp, dq, qi},
		{"even p", []byte{2}, even, q, dp, dq, qi},
		{"even q", []byte{2}, p, even, dp, dq, qi},
		{"p = 1", []byte{2}, []byte{1}, q, dp, dq, qi},
		{"q = 0", []byte{2}, p, []byte{0}, dp, dq, qi},
		{"empty p", []byte{2}, nil, q, dp, dq, qi},
		{"qInv = p", []byte{2}, p, q, dp, dq, p},
		{"qInv > p", []byte{2}, p, q, dp, dq, append([]byte{1}, p...)},
	}
	for _, tc := range cases {
		if _, err := ModExpCRT(tc.c, tc.p, tc.q, tc.dp, tc.dq, tc.qi); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", tc.name, err)
		}
	}
	// Tiny but valid: p = 3, q = 5... n = 15, d = 3 (e = 3 is not
	// invertible mod 8; just check the arithmetic): 7^3 mod 15 = 13.
	// dP = 3 mod 2 = 1, dQ = 3 mod 4 = 3, qInv = 5^-1 mod 3 = 2.
	got, err := ModExpCRT([]byte{7}, []byte{3}, []byte{5}, []byte{1}, []byte{3}, []byte{2})
	if err != nil || !bytes.Equal(got, []byte{13}) {
		t.Fatalf("tiny CRT = %x, %v", got, err)
	}
	// Empty exponents: c^0 = 1 in both halves.
	got, err = ModExpCRT([]byte{7}, []byte{3}, []byte{5}, nil, nil, []byte{2})
	if err != nil || !bytes.Equal(got, []byte{1}) {
		t.Fatalf("CRT with empty exponents = %x, %v", got, err)
	}
}

func TestRSARoundTrip(t *testing.T) {
	for _, bits := range []int{1024, 2048, 3072, 4096} {
		key := rsaKey(t, bits)
		nb := key.N.Bytes()
		eb := big.NewInt(int64(key.E)).Bytes()
		pre := key.Precomputed
		p, q := key.Primes[0].Bytes(), key.Primes[1].Bytes()

		m := randBelow(t, key.N)
		sig, err := ModExpCRT(m.Bytes(), p, q, pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		back, err := ModExp(sig, eb, nb)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, pad(m.Bytes(), len(nb))) {
			t.Fatalf("%d bits: ModExp(ModExpCRT(m), e) != m", bits)
		}
		// Public then private (encryption / decryption).
		ct, err := ModExp(m.Bytes(), eb, nb)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := ModExpCRT(ct, p, q, pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes())
		if err != nil || !bytes.Equal(pt, pad(m.Bytes(), len(nb))) {
			t.Fatalf("%d bits: decrypt(encrypt(m)) != m (%v)", bits, err)
		}
	}
}

// A PKCS #1 v1.5 signature built by hand (the driver's job) and computed by
// the engine verifies with crypto/rsa and equals crypto/rsa's own.
func TestRSAPKCS1v15Signature(t *testing.T) {
	digestInfoSHA256 := []byte{0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20}
	for _, bits := range []int{1024, 2048, 4096} {
		key := rsaKey(t, bits)
		k := (key.N.BitLen() + 7) / 8
		hashed := sha256.Sum256([]byte("octeon cpt asymmetric engine"))
		tLen := len(digestInfoSHA256) + len(hashed)
		em := make([]byte, k)
		em[0], em[1] = 0x00, 0x01
		for i := 2; i < k-tLen-1; i++ {
			em[i] = 0xff
		}
		em[k-tLen-1] = 0x00
		copy(em[k-tLen:], digestInfoSHA256)
		copy(em[k-len(hashed):], hashed[:])

		pre := key.Precomputed
		sig, err := ModExpCRT(em, key.Primes[0].Bytes(), key.Primes[1].Bytes(), pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, hashed[:], sig); err != nil {
			t.Fatalf("%d bits: VerifyPKCS1v15: %v", bits, err)
		}
		ref, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, hashed[:])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ref, sig) {
			t.Fatalf("%d bits: signature differs from crypto/rsa", bits)
		}
	}
}

// TestModExpPublic checks the public-exponent path against math/big on
// random odd moduli, exponents of 0 to 8 bytes, moduli seen again (from the
// cache) and more moduli than the cache holds (64), from several goroutines
// so that entries are evicted while in use.
func TestModExpPublic(t *testing.T) {
	var moduli [][]byte
	for i := 0; i < 64+10; i++ {
		mb := make([]byte, 1+mrand.IntN(300))
		rand.Read(mb)
		mb[len(mb)-1] |= 1
		if new(big.Int).SetBytes(mb).Cmp(big.NewInt(1)) > 0 {
			moduli = append(moduli, mb)
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Go(func() {
			for round := 0; round < 3; round++ {
				for _, mb := range moduli {
					m := new(big.Int).SetBytes(mb)
					base := randBelow(t, m)
					eb := make([]byte, mrand.IntN(9))
					rand.Read(eb)
					got, err := ModExpPublic(base.Bytes(), eb, mb)
					if err != nil {
						t.Error(err)
						return
					}
					want := new(big.Int).Exp(base, new(big.Int).SetBytes(eb), m)
					if !bytes.Equal(got, pad(want.Bytes(), len(trimPublic(mb)))) {
						t.Errorf("modulus of %d bytes, exponent %x: mismatch", len(mb), eb)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	for _, tc := range []struct{ base, exp, m []byte }{
		{[]byte{1}, make([]byte, 9), []byte{0xfb}},    // exponent too long
		{[]byte{1}, []byte{3}, []byte{0xfa}},          // even modulus
		{[]byte{0xfc}, []byte{3}, []byte{0xfb}},       // base not below m
		{[]byte{1}, []byte{3}, []byte{0, 0, 0, 0, 1}}, // modulus 1
	} {
		if _, err := ModExpPublic(tc.base, tc.exp, tc.m); err != ErrInput {
			t.Errorf("ModExp(%x, %x, %x): %v, want ErrInput", tc.base, tc.exp, tc.m, err)
		}
	}
}
