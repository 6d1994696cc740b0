// SPDX-License-Identifier: Apache-2.0

package aesni

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"math/rand"
	"testing"
)

// Every key size, run lengths from one block to several hundred (the
// four-block loop and its tail), in place and not, chained across calls,
// against crypto/cipher.
func TestCBCAgainstCryptoCipher(t *testing.T) {
	if !Available {
		t.Skip("no AES-NI/AVX")
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		key := make([]byte, []int{16, 24, 32}[i%3])
		rng.Read(key)
		var iv [16]byte
		rng.Read(iv[:])
		msg := make([]byte, 16*(1+rng.Intn(300)))
		rng.Read(msg)
		b, _ := aes.NewCipher(key)
		want := make([]byte, len(msg))
		cipher.NewCBCEncrypter(b, iv[:]).CryptBlocks(want, msg)
		k, err := NewKey(key)
		if err != nil {
			t.Fatal(err)
		}
		inPlace := i%2 == 0
		for _, enc := range []bool{true, false} {
			src, wantOut := msg, want
			if !enc {
				src, wantOut = want, msg
			}
			buf := append([]byte(nil), src...)
			out := buf
			if !inPlace {
				out = make([]byte, len(buf))
			}
			chain := iv
			for off := 0; off < len(buf); {
				n := 16 * (1 + rng.Intn((len(buf)-off)/16))
				if enc {
					k.CBCEncrypt(&chain, out[off:off+n], buf[off:off+n])
				} else {
					k.CBCDecrypt(&chain, out[off:off+n], buf[off:off+n])
				}
				off += n
			}
			if !bytes.Equal(out, wantOut) {
				t.Fatalf("key %d bytes, %d blocks, encrypt %v, in place %v: mismatch", len(key), len(msg)/16, enc, inPlace)
			}
			if last := src[len(src)-16:]; enc && !bytes.Equal(chain[:], out[len(out)-16:]) || !enc && !bytes.Equal(chain[:], last) {
				t.Fatal("chaining value not left in iv")
			}
		}
	}
}

func TestNewKeyRejects(t *testing.T) {
	for _, n := range []int{0, 15, 17, 31, 33} {
		if _, err := NewKey(make([]byte, n)); err != ErrKeySize {
			t.Errorf("%d-byte key: %v", n, err)
		}
	}
}

func BenchmarkCBCEncrypt16K(b *testing.B) {
	k, _ := NewKey(make([]byte, 16))
	buf := make([]byte, 16384)
	var iv [16]byte
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		k.CBCEncrypt(&iv, buf, buf)
	}
}

func BenchmarkCBCDecrypt16K(b *testing.B) {
	k, _ := NewKey(make([]byte, 16))
	buf := make([]byte, 16384)
	var iv [16]byte
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		k.CBCDecrypt(&iv, buf, buf)
	}
}

// CTR against crypto/cipher: every key size, runs of 1 to 300 blocks (the
// eight-block loop and its tail), counters that carry across the 64-bit
// halves and wrap at 2^128, in place and not.
func TestCTRAgainstCryptoCipher(t *testing.T) {
	if !Available {
		t.Skip("no AES-NI/AVX")
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 3000; i++ {
		key := make([]byte, []int{16, 24, 32}[i%3])
		rng.Read(key)
		var ctr [16]byte
		rng.Read(ctr[:])
		switch i % 5 {
		case 0: // the low half carries into the high half
			for j := 8; j < 16; j++ {
				ctr[j] = 0xff
			}
			ctr[15] = byte(0xff - rng.Intn(8))
		case 1: // 2^128 wraps to 0
			for j := range ctr {
				ctr[j] = 0xff
			}
			ctr[15] = byte(0xff - rng.Intn(8))
		}
		msg := make([]byte, 16*(1+rng.Intn(300)))
		rng.Read(msg)
		b, _ := aes.NewCipher(key)
		want := make([]byte, len(msg))
		cipher.NewCTR(b, ctr[:]).XORKeyStream(want, msg)
		k, _ := NewKey(key)
		out := append([]byte(nil), msg...)
		if i%2 == 1 {
			out = make([]byte, len(msg))
		}
		c := ctr
		for off := 0; off < len(msg); {
			n := 16 * (1 + rng.Intn((len(msg)-off)/16))
			k.CTR(&c, out[off:off+n], msg[off:off+n])
			off += n
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("key %d bytes, %d blocks, counter %x: mismatch", len(key), len(msg)/16, ctr)
		}
		// The counter moved on by the number of blocks.
		end := ctr
		for j := 0; j < len(msg)/16; j++ {
			for x := 15; x >= 0; x-- {
				end[x]++
				if end[x] != 0 {
					break
				}
			}
		}
		if c != end {
			t.Fatalf("counter %x after %d blocks, want %x", c, len(msg)/16, end)
		}
	}
}

func BenchmarkCTR16K(b *testing.B) {
	k, _ := NewKey(make([]byte, 16))
	buf := make([]byte, 16384)
	var ctr [16]byte
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		k.CTR(&ctr, buf, buf)
	}
}
