// SPDX-License-Identifier: Apache-2.0

package aesgcm

import (
	"crypto/aes"
	"crypto/cipher"
	"strconv"
	"testing"
)

var benchSizes = []int{16, 64, 1024, 8192, 16384}

// Streaming benchmarks process repeated pieces of one message, the way
// `openssl speed -evp aes-128-gcm` drives an EVP context: one init, then
// many updates. The State is restarted only before it would reach the
// message length limit.
func benchStream(b *testing.B, decrypt bool) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			k, _ := NewKey(make([]byte, 16))
			iv := make([]byte, 12)
			buf := make([]byte, n)
			var s State
			k.Start(&s, iv)
			f := k.Encrypt
			if decrypt {
				f = k.Decrypt
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				if s.dataLen > MaxDataLen-uint64(n) {
					k.Start(&s, iv)
				}
				if err := f(&s, buf, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncrypt(b *testing.B) { benchStream(b, false) }
func BenchmarkDecrypt(b *testing.B) { benchStream(b, true) }

// BenchmarkSeal is crypto/cipher's one-shot Seal of one piece, the target.
func BenchmarkSeal(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			block, _ := aes.NewCipher(make([]byte, 16))
			g, _ := cipher.NewGCM(block)
			nonce := make([]byte, 12)
			buf := make([]byte, n+16)
			b.SetBytes(int64(n))
			for b.Loop() {
				g.Seal(buf[:0], nonce, buf[:n], nil)
			}
		})
	}
}

// BenchmarkOpen is crypto/cipher's one-shot Open (tag check included).
func BenchmarkOpen(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			block, _ := aes.NewCipher(make([]byte, 16))
			g, _ := cipher.NewGCM(block)
			nonce := make([]byte, 12)
			msg := g.Seal(nil, nonce, make([]byte, n), nil)
			buf := make([]byte, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				if _, err := g.Open(buf[:0], nonce, msg, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecord is one whole message per iteration, as a TLS record:
// Start, 13 bytes of AAD, one data piece, Tag.
func BenchmarkRecord(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			k, _ := NewKey(make([]byte, 16))
			iv, aad := make([]byte, 12), make([]byte, 13)
			buf := make([]byte, n)
			var s State
			b.SetBytes(int64(n))
			for b.Loop() {
				k.Start(&s, iv)
				k.AAD(&s, aad)
				k.Encrypt(&s, buf, buf)
				k.Tag(&s)
			}
		})
	}
}

func BenchmarkMul(b *testing.B) {
	k, _ := NewKey(make([]byte, 16))
	y := elem{1, 2}
	for b.Loop() {
		y = k.hTab.mul(y)
	}
	sink = y
}

func BenchmarkMulLow32(b *testing.B) {
	k, _ := NewKey(make([]byte, 16))
	inv := k.invTables()
	var c uint32
	for b.Loop() {
		sink = inv.ctrTab.mulLow32(c)
		c++
	}
}

func BenchmarkInverse(b *testing.B) {
	k, _ := NewKey(make([]byte, 16))
	for b.Loop() {
		sink = inverse(k.h)
	}
}

func BenchmarkNewKey(b *testing.B) {
	key := make([]byte, 16)
	for b.Loop() {
		NewKey(key)
	}
}

var sink elem

// BenchmarkNewKeyInverse is NewKey plus the lazy per-key work that the
// first crafted nonce triggers.
func BenchmarkNewKeyInverse(b *testing.B) {
	key := make([]byte, 16)
	for b.Loop() {
		k, _ := NewKey(key)
		k.invTables()
	}
}
