// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"testing"
)

// RFC 7748 section 5.2 test vectors.
func TestX25519RFC7748Vectors(t *testing.T) {
	vectors := []struct{ k, u, out string }{
		{"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
			"e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
			"c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
		// u has its top bit set, which X25519 ignores.
		{"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
			"e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
			"95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
	}
	for i, v := range vectors {
		got, err := X25519(fromHex(t, v.k), fromHex(t, v.u))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, fromHex(t, v.out)) {
			t.Errorf("vector %d: got %x", i, got)
		}
	}
}

// RFC 7748 section 5.2 iterated test: 1 and 1,000 iterations (the
// 1,000,000 one is left out for time).
func TestX25519Iterated(t *testing.T) {
	k := make([]byte, 32)
	k[0] = 9
	u := append([]byte(nil), k...)
	iters := 1000
	if testing.Short() {
		iters = 1
	}
	for i := 1; i <= iters; i++ {
		out, err := X25519(k, u)
		if err != nil {
			t.Fatal(err)
		}
		u, k = k, out
		if i == 1 && !bytes.Equal(k, fromHex(t, "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079")) {
			t.Fatalf("after 1 iteration: %x", k)
		}
	}
	if iters == 1000 && !bytes.Equal(k, fromHex(t, "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51")) {
		t.Fatalf("after 1000 iterations: %x", k)
	}
}

// RFC 7748 section 6.1 Diffie–Hellman example.
func TestX25519DiffieHellman(t *testing.T) {
	a := fromHex(t, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
	b := fromHex(t, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
	wantA := fromHex(t, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
	wantB := fromHex(t, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
	wantK := fromHex(t, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")

	pa, err := X25519Base(a)
	if err != nil || !bytes.Equal(pa, wantA) {
		t.Fatalf("Alice's public key %x (%v)", pa, err)
	}
	pb, err := X25519Base(b)
	if err != nil || !bytes.Equal(pb, wantB) {
		t.Fatalf("Bob's public key %x (%v)", pb, err)
	}
	nine := make([]byte, 32)
	nine[0] = 9
	if p, err := X25519(a, nine); err != nil || !bytes.Equal(p, wantA) {
		t.Fatal("X25519(a, 9) != X25519Base(a)")
	}
	k1, err := X25519(a, pb)
	if err != nil || !bytes.Equal(k1, wantK) {
		t.Fatalf("K from Alice: %x (%v)", k1, err)
	}
	k2, err := X25519(b, pa)
	if err != nil || !bytes.Equal(k2, wantK) {
		t.Fatalf("K from Bob: %x (%v)", k2, err)
	}
}

func TestX25519AgainstCryptoECDH(t *testing.T) {
	for i := 0; i < 1000; i++ {
		a, _ := ecdh.X25519().GenerateKey(rand.Reader)
		b, _ := ecdh.X25519().GenerateKey(rand.Reader)
		pub, err := X25519Base(a.Bytes())
		if err != nil || !bytes.Equal(pub, a.PublicKey().Bytes()) {
			t.Fatal("X25519Base mismatch")
		}
		want, _ := a.ECDH(b.PublicKey())
		got, err := X25519(a.Bytes(), b.PublicKey().Bytes())
		if err != nil || !bytes.Equal(got, want) {
			t.Fatal("X25519 mismatch")
		}
	}
}

func TestX25519Rejects(t *testing.T) {
	k := fromHex(t, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
	// Points of small order give an all-zero output: rejected.
	lowOrder := []string{
		"0000000000000000000000000000000000000000000000000000000000000000", // 0 (order 2)
		"0100000000000000000000000000000000000000000000000000000000000000", // 1 (order 4)
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p - 1 (order 2)
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p (= 0)
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p + 1 (= 1)
		"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800", // order 8
	}
	for i, h := range lowOrder {
		if out, err := X25519(k, fromHex(t, h)); !errors.Is(err, ErrInput) {
			t.Errorf("low-order point %d accepted: %x", i, out)
		}
	}
	for _, tc := range []struct{ k, u []byte }{
		{nil, make([]byte, 32)},
		{k[:31], k},
		{k, k[:31]},
		{append(k, 0), k},
		{k, append(k, 0)},
	} {
		if _, err := X25519(tc.k, tc.u); !errors.Is(err, ErrInput) {
			t.Errorf("bad lengths %d/%d accepted", len(tc.k), len(tc.u))
		}
	}
	if _, err := X25519Base(k[:16]); !errors.Is(err, ErrInput) {
		t.Error("short scalar accepted by X25519Base")
	}
}

// TestX25519PortableLadder runs the RFC 7748 vectors on the portable
// ladder (the assembly one serves the other tests where the CPU has it) and
// compares the two on random scalars and u-coordinates, including ones with
// the top bit set and non-canonical ones (p <= u < 2^255).
func TestX25519PortableLadder(t *testing.T) {
	if !useFe64 {
		t.Skip("the portable ladder is the only one here")
	}
	useFe64 = false
	t.Cleanup(func() { useFe64 = true })
	TestX25519RFC7748Vectors(t)
	for i := 0; i < 500; i++ {
		k, u := make([]byte, 32), make([]byte, 32)
		rand.Read(k)
		rand.Read(u)
		if i%10 == 0 { // p + small, possibly with the top bit set
			for j := range u {
				u[j] = 0xff
			}
			u[0] = 0xed + byte(i%18)
			u[31] = 0x7f | byte(i%2)<<7
		}
		useFe64 = false
		portable, err1 := X25519(k, u)
		useFe64 = true
		asm, err2 := X25519(k, u)
		useFe64 = false
		if !errors.Is(err1, err2) || !bytes.Equal(portable, asm) {
			t.Fatalf("k %x u %x: portable %x (%v), assembly %x (%v)", k, u, portable, err1, asm, err2)
		}
	}
}
