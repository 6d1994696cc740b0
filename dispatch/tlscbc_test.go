// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"math/rand"
	"testing"
)

// refOpen is tlsOpen written plainly (branches on secrets and all): the
// length left, the MAC, and whether the padding was good.
func refOpen(rec []byte, bs int, version uint32, macSize int) (n int, mac []byte, good bool, ok bool) {
	if version >= 0x0302 {
		if len(rec) < bs {
			return 0, nil, false, false
		}
		rec = rec[bs:]
	}
	if 1+macSize > len(rec) {
		return 0, nil, false, false
	}
	pad := int(rec[len(rec)-1])
	good = len(rec) >= 1+macSize+pad
	for i := 0; good && i <= pad; i++ {
		good = rec[len(rec)-1-i] == byte(pad)
	}
	l := len(rec)
	if good {
		l -= pad + 1
	}
	l -= macSize
	return l, rec[l : l+macSize], good, true
}

func TestTLSOpenAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		bs := []int{16, 8}[i%2]
		version := []uint32{0x0301, 0x0302, 0x0303, 0xfefd}[i%4]
		macSize := []int{0, 20, 32, 48}[rng.Intn(4)]
		payload := rng.Intn(300)
		if i%7 == 0 {
			payload = rng.Intn(2000)
		}
		rec := make([]byte, 0, payload+macSize+300)
		if version >= 0x0302 {
			rec = append(rec, make([]byte, bs)...) // explicit IV
		}
		body := make([]byte, payload+macSize)
		rng.Read(body)
		rec = append(rec, body...)
		// Valid padding most of the time: 1 to 256 bytes of value pad-1 to
		// whole blocks; otherwise random bytes or one wrong byte.
		padLen := bs - len(rec)%bs + bs*rng.Intn(256/bs)
		if padLen > 256 {
			padLen -= bs * ((padLen - 256 + bs - 1) / bs)
		}
		for j := 0; j < padLen; j++ {
			rec = append(rec, byte(padLen-1))
		}
		switch rng.Intn(6) {
		case 0:
			rec[len(rec)-1-rng.Intn(padLen)] ^= byte(1 + rng.Intn(255))
		case 1:
			rng.Read(rec[len(rec)-min(len(rec), 40):])
		}
		var c blockCtx
		c.tlsVersion, c.tlsMacSize = version, uint64(macSize)
		wantN, wantMAC, good, ok := refOpen(rec, bs, version, macSize)
		gotN, err := c.tlsOpen(rec, bs)
		switch {
		case !ok:
			if err == nil {
				t.Fatalf("publicly invalid record of %d bytes accepted", len(rec))
			}
		case macSize == 0 && !good:
			if err == nil || err.Reason != ReasonBadDecrypt {
				t.Fatalf("bad padding without a MAC: %v", err)
			}
		case err != nil:
			t.Fatalf("record of %d bytes (good %v): %v", len(rec), good, err)
		case gotN != wantN:
			t.Fatalf("record of %d bytes, version %#x, MAC %d, good %v: length %d, want %d", len(rec), version, macSize, good, gotN, wantN)
		case good && !bytes.Equal(c.tlsMac[:c.tlsMacLen], wantMAC):
			t.Fatalf("record of %d bytes, MAC %d: wrong MAC", len(rec), macSize)
		case !good && macSize > 0 && bytes.Equal(c.tlsMac[:c.tlsMacLen], wantMAC):
			t.Fatalf("bad padding gave the record's MAC bytes instead of a random MAC")
		}
	}
}
