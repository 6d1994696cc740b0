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
