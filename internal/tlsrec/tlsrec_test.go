// SPDX-License-Identifier: Apache-2.0

package tlsrec

import (
	"bytes"
	"crypto/hmac"
	"math/rand"
	"testing"
)

func refHMAC(h *Hash, key, msg []byte) []byte {
	m := hmac.New(h.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// TestMACs checks the precomputed-key HMAC and the constant-time one
// against crypto/hmac, for every secret length a window allows.
func TestMACs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, h := range []*Hash{SHA1, SHA256} {
		for iter := 0; iter < 60; iter++ {
			key := make([]byte, []int{0, 20, 32, 64, 65, 100}[iter%6])
			rng.Read(key)
			inner, outer := h.HMACKey(key)
			hdr := make([]byte, 13)
			rng.Read(hdr)
			data := make([]byte, rng.Intn(600))
			if iter%5 == 0 {
				data = make([]byte, rng.Intn(40))
			}
			rng.Read(data)
			out := make([]byte, h.Size)
			h.MAC(out, inner, outer, hdr, data)
			if want := refHMAC(h, key, append(append([]byte{}, hdr...), data...)); !bytes.Equal(out, want) {
				t.Fatalf("MAC over %d bytes differs", len(data))
			}
			minN := max(0, len(data)-256)
			for n := minN; n <= len(data); n++ {
				h.MACSecretLen(out, inner, outer, hdr, data, n, minN)
				if want := refHMAC(h, key, append(append([]byte{}, hdr...), data[:n]...)); !bytes.Equal(out, want) {
					t.Fatalf("size %d: constant-time MAC of %d of %d bytes differs", h.Size, n, len(data))
				}
			}
		}
	}
}

func TestPaddingAndExtract(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for iter := 0; iter < 5000; iter++ {
		macSize := []int{20, 32}[iter%2]
		rec := make([]byte, 1+macSize+rng.Intn(400))
		rng.Read(rec)
		pad := rng.Intn(min(256, len(rec)-macSize))
		for i := 0; i <= pad; i++ {
			rec[len(rec)-1-i] = byte(pad)
		}
		bad := iter%3 == 0 && pad > 0
		if bad {
			rec[len(rec)-1-rng.Intn(pad)-1] ^= 1
		}
		gotPad, good := Padding(rec, 1+macSize)
		if gotPad != pad || (good == 0) != bad {
			t.Fatalf("padding %d (bad %v): got %d, good %x", pad, bad, gotPad, good)
		}
		start := len(rec) - 1 - pad - macSize
		mac := make([]byte, macSize)
		ExtractMAC(mac, rec, start, macSize)
		if !bytes.Equal(mac, rec[start:start+macSize]) {
			t.Fatalf("MAC at %d of %d bytes extracted wrongly", start, len(rec))
		}
	}
}
