// SPDX-License-Identifier: Apache-2.0

package tlsrec

import (
	"bytes"
	"testing"
)

// The TLS CBC record checks against their obvious branching versions:
// `go test -fuzz=FuzzPadding ./internal/tlsrec` (tests/fuzz/fuzz.sh runs each
// briefly in make test).

func FuzzPadding(f *testing.F) {
	f.Add([]byte{1, 2, 3, 2, 2, 2}, uint8(1))
	f.Add([]byte{0}, uint8(0))
	f.Add(bytes.Repeat([]byte{255}, 300), uint8(21))
	f.Fuzz(func(t *testing.T, rec []byte, overhead uint8) {
		if len(rec) == 0 {
			return // callers check a record holds at least a block
		}
		pad, good := Padding(rec, int(overhead))
		wantPad := int(rec[len(rec)-1])
		wantGood := uint(0)
		if len(rec) >= int(overhead)+wantPad {
			wantGood = ^uint(0)
			for i := 0; i <= wantPad && i < len(rec); i++ {
				if int(rec[len(rec)-1-i]) != wantPad {
					wantGood = 0
				}
			}
		}
		if pad != wantPad || good != wantGood {
			t.Fatalf("%x overhead %d: (%d, %#x), want (%d, %#x)", rec, overhead, pad, good, wantPad, wantGood)
		}
	})
}

func FuzzExtractMAC(f *testing.F) {
	f.Add(bytes.Repeat([]byte{7}, 100), uint16(50), uint8(20))
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 200), uint16(300), uint8(32))
	f.Fuzz(func(t *testing.T, rec []byte, start uint16, size uint8) {
		macSize := int(size)%MaxMAC + 1
		// The callers' invariant: the MAC lies within the record and within
		// the last macSize+256 bytes of it.
		if len(rec) < macSize {
			return
		}
		lo := max(0, len(rec)-macSize-MaxPadCheck)
		macStart := lo + int(start)%(len(rec)-macSize-lo+1)
		mac := make([]byte, macSize)
		ExtractMAC(mac, rec, macStart, macSize)
		if want := rec[macStart : macStart+macSize]; !bytes.Equal(mac, want) {
			t.Fatalf("record of %d, MAC at %d size %d: %x, want %x", len(rec), macStart, macSize, mac, want)
		}
	})
}
