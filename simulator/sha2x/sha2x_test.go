// SPDX-License-Identifier: Apache-2.0

package sha2x

import (
	"bytes"
	"crypto/sha512"
	"hash"
	"math/rand"
	"testing"
)

// Every member against crypto/sha512, in random pieces, from 0 to a few
// blocks past the 128-byte block size.
func TestAgainstCryptoSHA512(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 4000; i++ {
		k := []Kind{384, 512, 224, 256}[i%4]
		ref := map[Kind]func() hash.Hash{384: sha512.New384, 512: sha512.New, 224: sha512.New512_224, 256: sha512.New512_256}[k]()
		msg := make([]byte, rng.Intn(1200))
		rng.Read(msg)
		ref.Write(msg)
		want := ref.Sum(nil)
		st := make([]byte, StateSize)
		if !Init(st, k) {
			t.Fatal("init")
		}
		for off := 0; off < len(msg); {
			n := rng.Intn(len(msg) - off + 1)
			if !Update(st, msg[off:off+n]) {
				t.Fatal("update")
			}
			off += n
		}
		out := make([]byte, k.Size())
		if !Final(st, out) || !bytes.Equal(out, want) {
			t.Fatalf("SHA-%d of %d bytes: %x, want %x", k, len(msg), out, want)
		}
	}
}
