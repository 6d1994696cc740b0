// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"math/big"
	"testing"
)

func reportOps(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// RSA private-key operation: the engine's CRT exponentiation against a full
// crypto/rsa PKCS #1 v1.5 signature (which also pads and re-verifies).
func BenchmarkModExpCRT(b *testing.B) {
	for _, bits := range []int{2048, 4096} {
		key := rsaKey(b, bits)
		pre := key.Precomputed
		p, q := key.Primes[0].Bytes(), key.Primes[1].Bytes()
		dp, dq, qi := pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes()
		c := new(big.Int).Sub(key.N, big.NewInt(12345)).Bytes()
		b.Run(itoa(bits), func(b *testing.B) {
			for b.Loop() {
				if _, err := ModExpCRT(c, p, q, dp, dq, qi); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkModExpPlainPrivate(b *testing.B) {
	for _, bits := range []int{2048} {
		key := rsaKey(b, bits)
		n, d := key.N.Bytes(), key.D.Bytes()
		c := new(big.Int).Sub(key.N, big.NewInt(12345)).Bytes()
		b.Run(itoa(bits), func(b *testing.B) {
			for b.Loop() {
				if _, err := ModExp(c, d, n); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkModExpPublic(b *testing.B) {
	for _, bits := range []int{2048, 4096} {
		key := rsaKey(b, bits)
		n, e := key.N.Bytes(), big.NewInt(int64(key.E)).Bytes()
		c := new(big.Int).Sub(key.N, big.NewInt(12345)).Bytes()
		b.Run(itoa(bits), func(b *testing.B) {
			for b.Loop() {
				if _, err := ModExpPublic(c, e, n); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkStdRSASignPKCS1v15(b *testing.B) {
	for _, bits := range []int{2048, 4096} {
		key := rsaKey(b, bits)
		h := sha256.Sum256([]byte("bench"))
		b.Run(itoa(bits), func(b *testing.B) {
			for b.Loop() {
				if _, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, h[:]); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func benchScalars(b *testing.B, c Curve) (d, k, peer []byte) {
	n := orderOf(c)
	d = randScalar(b, n, c.ByteLen())
	k = randScalar(b, n, c.ByteLen())
	peer, err := ScalarBaseMult(c, randScalar(b, n, c.ByteLen()))
	if err != nil {
		b.Fatal(err)
	}
	return d, k, peer
}

var benchCurves = []Curve{P192, P224, P256, P384, P521}

func BenchmarkECDSASign(b *testing.B) {
	h := sha256.Sum256([]byte("bench"))
	for _, c := range benchCurves {
		d, k, _ := benchScalars(b, c)
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := ECDSASign(c, d, k, h[:]); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkECDSAVerify(b *testing.B) {
	h := sha256.Sum256([]byte("bench"))
	for _, c := range benchCurves {
		d, k, _ := benchScalars(b, c)
		pub, _ := ScalarBaseMult(c, d)
		r, s, _ := ECDSASign(c, d, k, h[:])
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				if !ECDSAVerify(c, pub, h[:], r, s) {
					b.Fatal("verify failed")
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkScalarBaseMult(b *testing.B) {
	for _, c := range benchCurves {
		d, _, _ := benchScalars(b, c)
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := ScalarBaseMult(c, d); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkECDHX(b *testing.B) {
	for _, c := range benchCurves {
		d, _, peer := benchScalars(b, c)
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := ECDHX(c, d, peer); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkX25519(b *testing.B) {
	k := make([]byte, 32)
	rand.Read(k)
	peer, _ := ecdh.X25519().GenerateKey(rand.Reader)
	u := peer.PublicKey().Bytes()
	b.Run("X25519", func(b *testing.B) {
		for b.Loop() {
			if _, err := X25519(k, u); err != nil {
				b.Fatal(err)
			}
		}
		reportOps(b)
	})
	b.Run("X25519Base", func(b *testing.B) {
		for b.Loop() {
			if _, err := X25519Base(k); err != nil {
				b.Fatal(err)
			}
		}
		reportOps(b)
	})
}

// Standard-library baselines.

func BenchmarkStdECDSASign(b *testing.B) {
	h := sha256.Sum256([]byte("bench"))
	for _, c := range []Curve{P256, P384} {
		priv, err := ecdsa.GenerateKey(ellipticOf(c), rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := ecdsa.SignASN1(rand.Reader, priv, h[:]); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

// crypto/ecdh NewPrivateKey computes the public key: one fixed-base
// multiplication (plus scalar checks).
func BenchmarkStdECDHBaseMult(b *testing.B) {
	for _, c := range []Curve{P256, P384} {
		d, _, _ := benchScalars(b, c)
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, err := ecdhOf(c).NewPrivateKey(d); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

// crypto/ecdh ECDH, including decoding the peer's point as ECDHX does.
func BenchmarkStdECDH(b *testing.B) {
	for _, c := range []Curve{P256, P384} {
		d, _, peer := benchScalars(b, c)
		priv, _ := ecdhOf(c).NewPrivateKey(d)
		b.Run(c.Name(), func(b *testing.B) {
			for b.Loop() {
				pub, err := ecdhOf(c).NewPublicKey(peer)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := priv.ECDH(pub); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		})
	}
}

func BenchmarkStdX25519(b *testing.B) {
	priv, _ := ecdh.X25519().GenerateKey(rand.Reader)
	peer, _ := ecdh.X25519().GenerateKey(rand.Reader)
	b.Run("ECDH", func(b *testing.B) {
		for b.Loop() {
			if _, err := priv.ECDH(peer.PublicKey()); err != nil {
				b.Fatal(err)
			}
		}
		reportOps(b)
	})
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }
