// SPDX-License-Identifier: Apache-2.0

//go:debug rsa1024min=0

package rsacheck

import (
	"crypto/rand"
	"crypto/rsa"
	"math/big"
	"testing"
)

func fill(x *big.Int, n int) []byte { return x.FillBytes(make([]byte, n)) }

func randBelow(t *testing.T, n *big.Int) *big.Int {
	v, err := rand.Int(rand.Reader, n)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// wrongs are results a faulty engine could give for s = m^d mod n: each
// must fail, the one right modulo p only (the Bellcore case) above all.
func wrongs(key *rsa.PrivateKey, s *big.Int) map[string]*big.Int {
	n, p, q := key.N, key.Primes[0], key.Primes[1]
	one := big.NewInt(1)
	// Right mod p, off by one mod q: s + p·(p^-1 mod q).
	crtP := new(big.Int).Mul(p, new(big.Int).ModInverse(p, q))
	return map[string]*big.Int{
		"s+1":         new(big.Int).Mod(new(big.Int).Add(s, one), n),
		"s-1":         new(big.Int).Mod(new(big.Int).Sub(s, one), n),
		"top bit":     new(big.Int).Mod(new(big.Int).Xor(s, new(big.Int).Lsh(one, uint(n.BitLen()-2))), n),
		"right mod p": new(big.Int).Mod(new(big.Int).Add(s, crtP), n),
		"zero":        new(big.Int),
		"n-1":         new(big.Int).Sub(n, one),
	}
}

func TestVerifyAgainstBig(t *testing.T) {
	for _, bits := range []int{512, 1024, 1031, 2048, 3072, 4096} {
		key, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			t.Fatal(err)
		}
		n, l := key.N, (key.N.BitLen()+7)/8
		pl := max((key.Primes[0].BitLen()+7)/8, (key.Primes[1].BitLen()+7)/8)
		e := big.NewInt(int64(key.E)).Bytes()
		checks := map[string]*Check{
			"with primes": New(fill(n, l), e, fill(key.Primes[0], pl), fill(key.Primes[1], pl)),
			"mod n":       New(fill(n, l), e, nil, nil),
		}
		if !checks["with primes"].CRT() || checks["mod n"].CRT() {
			t.Fatalf("%d bits: CRT %v and %v, want true and false", bits, checks["with primes"].CRT(), checks["mod n"].CRT())
		}
		for name, c := range checks {
			for i := 0; i < 8; i++ {
				m := randBelow(t, n)
				s := new(big.Int).Exp(m, key.D, n)
				if ok, err := c.Verify(fill(m, l), fill(s, l)); !ok || err != nil {
					t.Fatalf("%d bits, %s: a right result fails (%v)", bits, name, err)
				}
				for wname, w := range wrongs(key, s) {
					if new(big.Int).Exp(w, big.NewInt(int64(key.E)), n).Cmp(m) == 0 {
						continue // not wrong after all (zero for m = 0)
					}
					if ok, err := c.Verify(fill(m, l), fill(w, l)); ok || err != nil {
						t.Fatalf("%d bits, %s: the wrong result %q passes (%v)", bits, name, wname, err)
					}
				}
			}
			s := new(big.Int).Exp(big.NewInt(2), key.D, n)
			over := fill(new(big.Int).Add(s, n), l+1)[1:] // s + n, when it fits in l bytes
			if new(big.Int).Add(s, n).BitLen() <= 8*l {
				if ok, _ := c.Verify(fill(big.NewInt(2), l), over); ok {
					t.Fatalf("%d bits, %s: a result not below n passes", bits, name)
				}
			}
			if ok, _ := c.Verify(fill(big.NewInt(2), l+1), fill(s, l+1)); ok {
				t.Fatalf("%d bits, %s: operands longer than n pass", bits, name)
			}
			c.Free()
		}
	}
}

// Primes that do not make n, or are not two distinct coprime factors, are
// not used: the check stays right modulo n itself.
func TestPrimesNotMatchingN(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 1024)
	other, _ := rsa.GenerateKey(rand.Reader, 1024)
	n, p, q := key.N, key.Primes[0], key.Primes[1]
	e := big.NewInt(int64(key.E)).Bytes()
	l, pl := 128, 64
	three := big.NewInt(3)
	cases := map[string][2]*big.Int{
		"another key's":  {other.Primes[0], other.Primes[1]},
		"p twice":        {p, p},
		"3p and q":       {new(big.Int).Mul(p, three), q},
		"one wrong":      {p, other.Primes[1]},
		"even":           {new(big.Int).Lsh(p, 1), q},
		"1 and n":        {big.NewInt(1), n},
		"zero":           {new(big.Int), new(big.Int)},
		"swapped, right": {q, p},
	}
	for name, pq := range cases {
		w := max(pl, (pq[0].BitLen()+7)/8, (pq[1].BitLen()+7)/8)
		c := New(fill(n, l), e, fill(pq[0], w), fill(pq[1], w))
		if c == nil {
			t.Fatalf("%s: no check", name)
		}
		if c.CRT() != (name == "swapped, right") {
			t.Fatalf("%s: CRT %v", name, c.CRT())
		}
		m := randBelow(t, n)
		s := new(big.Int).Exp(m, key.D, n)
		if ok, err := c.Verify(fill(m, l), fill(s, l)); !ok || err != nil {
			t.Fatalf("%s: a right result fails (%v)", name, err)
		}
		if ok, _ := c.Verify(fill(m, l), fill(wrongs(key, s)["right mod p"], l)); ok {
			t.Fatalf("%s: a result right mod p only passes", name)
		}
		c.Free()
	}
	// Factors that multiply to n but are not distinct: n = p².
	sq := new(big.Int).Mul(p, p)
	if c := New(fill(sq, l), e, fill(p, pl), fill(p, pl)); c == nil || c.CRT() {
		t.Fatal("n = p·p: the primes were used")
	} else {
		c.Free()
	}
}

func TestUnusableModulus(t *testing.T) {
	for _, n := range [][]byte{{0x10, 0x00}, {1}, {0}, nil} {
		if c := New(n, []byte{3}, nil, nil); c != nil {
			c.Free()
			t.Fatalf("modulus %x: a check", n)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	m := big.NewInt(12345)
	s := new(big.Int).Exp(m, key.D, key.N)
	e := big.NewInt(int64(key.E)).Bytes()
	for _, crt := range []bool{true, false} {
		var p, q []byte
		name := "mod n"
		if crt {
			p, q, name = fill(key.Primes[0], 128), fill(key.Primes[1], 128), "mod p and q"
		}
		c := New(fill(key.N, 256), e, p, q)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if ok, _ := c.Verify(fill(m, 256), fill(s, 256)); !ok {
					b.Fatal("fails")
				}
			}
		})
		c.Free()
	}
}
