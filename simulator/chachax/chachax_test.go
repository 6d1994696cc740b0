// SPDX-License-Identifier: Apache-2.0

package chachax

import (
	"bytes"
	"math/rand"
	"testing"

	"golang.org/x/crypto/chacha20"
	"golang.org/x/crypto/chacha20poly1305"
)

// XORKeyStream from any block and offset against x/crypto (32-bit counters
// that do not wrap: the carry is the simulator's test).
func TestXORKeyStream(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 500; i++ {
		var key [32]byte
		var iv [16]byte
		rng.Read(key[:])
		rng.Read(iv[4:])
		iv[0] = byte(rng.Intn(200)) // a small counter, no carry
		skip := rng.Intn(64)
		msg := make([]byte, rng.Intn(2000))
		rng.Read(msg)
		ref, _ := chacha20.NewUnauthenticatedCipher(key[:], iv[4:])
		ref.SetCounter(uint32(iv[0]))
		want := make([]byte, skip+len(msg))
		ref.XORKeyStream(want, append(make([]byte, skip), msg...))
		got := make([]byte, len(msg))
		if err := XORKeyStream(&key, &iv, skip, got, msg); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[skip:]) {
			t.Fatalf("case %d: %d bytes from offset %d differ", i, len(msg), skip)
		}
	}
	var key [32]byte
	var iv [16]byte
	if XORKeyStream(&key, &iv, 64, make([]byte, 1), make([]byte, 1)) == nil {
		t.Fatal("a skip of 64 was accepted")
	}
}

// An AEAD stream in pieces, a clone taken halfway, and opening with the
// right and a wrong tag, against x/crypto's ChaCha20-Poly1305.
func TestAEAD(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 200; i++ {
		var key [32]byte
		nonce, aad, msg := make([]byte, 12), make([]byte, rng.Intn(100)), make([]byte, rng.Intn(5000))
		rng.Read(key[:])
		rng.Read(nonce)
		rng.Read(aad)
		rng.Read(msg)
		a, _ := chacha20poly1305.New(key[:])
		want := a.Seal(nil, nonce, msg, aad)

		h, err := NewAEAD()
		if err != nil {
			t.Fatal(err)
		}
		ct := make([]byte, len(msg))
		half := len(msg) / 2
		if h.Start(&key, nonce, true) != nil || h.AAD(aad) != nil || h.Data(ct[:half], msg[:half]) != nil {
			t.Fatal("seal: first half failed")
		}
		c, err := h.Clone()
		if err != nil {
			t.Fatal(err)
		}
		ct2 := append([]byte(nil), ct...)
		for _, s := range []struct {
			h   AEAD
			out []byte
		}{{h, ct}, {c, ct2}} {
			if err := s.h.Data(s.out[half:], msg[half:]); err != nil {
				t.Fatal(err)
			}
			tag, err := s.h.Seal()
			if err != nil || !bytes.Equal(append(append([]byte(nil), s.out...), tag[:]...), want) {
				t.Fatalf("case %d: sealed message differs from x/crypto's", i)
			}
		}
		c.Free()
		pt := make([]byte, len(msg))
		tl := 1 + rng.Intn(16)
		if h.Start(&key, nonce, false) != nil || h.AAD(aad) != nil || h.Data(pt, ct) != nil {
			t.Fatal("open failed")
		}
		if ok, err := h.Open(want[len(msg) : len(msg)+tl]); !ok || err != nil || !bytes.Equal(pt, msg) {
			t.Fatalf("case %d: opening with a %d-byte tag: %v %v", i, tl, ok, err)
		}
		bad := append([]byte(nil), want[len(msg):]...)
		bad[rng.Intn(16)] ^= 1
		if h.Start(&key, nonce, false) != nil || h.AAD(aad) != nil || h.Data(pt, ct) != nil {
			t.Fatal("open failed")
		}
		if ok, err := h.Open(bad); ok || err != nil {
			t.Fatalf("case %d: a bad tag gave %v %v", i, ok, err)
		}
		h.Free()
	}
}

func BenchmarkXORKeyStream16K(b *testing.B) {
	var key [32]byte
	var iv [16]byte
	buf := make([]byte, 16384)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		if err := XORKeyStream(&key, &iv, 0, buf, buf); err != nil {
			b.Fatal(err)
		}
	}
}
