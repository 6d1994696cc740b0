// SPDX-License-Identifier: Apache-2.0

package aesgcm

import (
	"crypto/aes"
	"crypto/cipher"
	"os"
	"slices"
	"testing"
	"time"
)

// TestThroughputRatio measures streaming Encrypt/Decrypt against
// crypto/cipher's Seal/Open by alternating short timed batches of each and
// taking medians, so that load from other processes, which makes separate
// benchmark runs incomparable, hits both sides alike. It runs only with
// AESGCM_RATIO=1:
//
//	AESGCM_RATIO=1 go test -run ThroughputRatio -v ./simulator/aesgcm/
func TestThroughputRatio(t *testing.T) {
	if os.Getenv("AESGCM_RATIO") == "" {
		t.Skip("set AESGCM_RATIO=1 to measure")
	}
	block, _ := aes.NewCipher(make([]byte, 16))
	g, _ := cipher.NewGCM(block)
	k, _ := NewKey(make([]byte, 16))
	nonce := make([]byte, 12)
	for _, n := range benchSizes {
		buf := make([]byte, n+16)
		sealed := g.Seal(nil, nonce, make([]byte, n), nil)
		var enc, dec State
		k.Start(&enc, nonce)
		k.Start(&dec, nonce)
		reps := max(1, 100000/(n+64)) // batches of roughly 20-100 µs
		batch := func(f func()) float64 {
			start := time.Now()
			for range reps {
				f()
			}
			return float64(time.Since(start).Nanoseconds()) / float64(reps)
		}
		restart := func(s *State) {
			if s.dataLen > MaxDataLen-uint64(n)*uint64(reps) {
				k.Start(s, nonce)
			}
		}
		aad := make([]byte, 13)
		var rs State
		var tEnc, tSeal, tDec, tOpen, encRatio, decRatio, tRec, tSealA, recRatio []float64
		for range 400 {
			restart(&enc)
			restart(&dec)
			e := batch(func() { k.Encrypt(&enc, buf[:n], buf[:n]) })
			s := batch(func() { g.Seal(buf[:0], nonce, buf[:n], nil) })
			d := batch(func() { k.Decrypt(&dec, buf[:n], buf[:n]) })
			o := batch(func() { g.Open(buf[:0], nonce, sealed, nil) })
			r := batch(func() { k.Start(&rs, nonce); k.AAD(&rs, aad); k.Encrypt(&rs, buf[:n], buf[:n]); k.Tag(&rs) })
			sa := batch(func() { g.Seal(buf[:0], nonce, buf[:n], aad) })
			tEnc, tSeal, tDec, tOpen = append(tEnc, e), append(tSeal, s), append(tDec, d), append(tOpen, o)
			encRatio, decRatio = append(encRatio, s/e), append(decRatio, o/d)
			tRec, tSealA, recRatio = append(tRec, r), append(tSealA, sa), append(recRatio, sa/r)
		}
		t.Logf("%5d B: record (Start, 13 B AAD, Encrypt, Tag) %7.1f ns, Seal with 13 B AAD %7.1f ns: %5.1f%%",
			n, median(tRec), median(tSealA), 100*median(recRatio))
		t.Logf("%5d B: Encrypt %7.1f ns (%5.0f MB/s), Seal %7.1f ns (%5.0f MB/s): %5.1f%%;  Decrypt %7.1f ns (%5.0f MB/s), Open %7.1f ns (%5.0f MB/s): %5.1f%%",
			n, median(tEnc), float64(n)*1e3/median(tEnc), median(tSeal), float64(n)*1e3/median(tSeal), 100*median(encRatio),
			median(tDec), float64(n)*1e3/median(tDec), median(tOpen), float64(n)*1e3/median(tOpen), 100*median(decRatio))
	}
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}
