// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"hash"
	"math/rand"
	"testing"
	"unsafe"

	"cptprov/cptdrv"
)

// chainCtx is a chained instruction's two contexts in DMA memory.
type chainCtx struct {
	c *cptdrv.CipherContext
	a *cptdrv.AuthContext
}

func newChainCtx(t *testing.T, key, iv, macKey []byte, hashID uint16) chainCtx {
	mem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})+unsafe.Sizeof(cptdrv.AuthContext{})))
	c := cptdrv.ContextAt(cptdrv.Addr(mem))
	a := cptdrv.AuthContextAt(cptdrv.Addr(mem) + unsafe.Sizeof(cptdrv.CipherContext{}))
	copy(c.Key[:], key)
	c.KeyLen, c.IVLen, c.KeyID = uint32(len(key)), 16, rand.Uint64()
	copy(c.IV[:], iv)
	h := chainedHashes[hashID]
	inner, outer := h.HMACKey(macKey)
	a.Hash = hashID
	copy(a.Inner[:], inner)
	copy(a.Outer[:], outer)
	return chainCtx{c, a}
}

func (cc chainCtx) exec(t *testing.T, q *cptdrv.Queue, async bool, enc bool, flags uint16, in, out []byte, dlen, rlen int) cptdrv.Result {
	t.Helper()
	minor := uint8(cptdrv.MinorDec)
	if enc {
		minor = cptdrv.MinorEnc
	}
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, minor), Param1: cptdrv.CipherAESCBCHMAC, Param2: flags,
		CPtr: uintptr(unsafe.Pointer(cc.c)), APtr: uintptr(unsafe.Pointer(cc.a)),
		DPtr: cptdrv.Addr(in), DLen: uint32(dlen), RPtr: cptdrv.Addr(out), RLen: uint32(rlen)}
	return doInst(t, q, &inst, async)
}

// doInst runs an instruction synchronously, or through an engine and a
// completion callback.
func doInst(t *testing.T, q *cptdrv.Queue, inst *cptdrv.Instruction, async bool) cptdrv.Result {
	t.Helper()
	if !async {
		res, err := q.Do(inst)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ch := make(chan cptdrv.Result, 1)
	if err := q.Submit(inst, func(r cptdrv.Result) { ch <- r }); err != nil {
		t.Fatal(err)
	}
	return <-ch
}

// refSeal is a TLS record sealed plainly: MAC, padding, CBC.
func refSeal(newHash func() hash.Hash, key, iv, macKey, hdr, rec []byte, ivOff int) []byte {
	m := hmac.New(newHash, macKey)
	m.Write(hdr)
	m.Write(rec[ivOff:])
	out := append(append([]byte{}, rec...), m.Sum(nil)...)
	pad := 16 - len(out)%16
	for i := 0; i < pad; i++ {
		out = append(out, byte(pad-1))
	}
	b, _ := aes.NewCipher(key)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, out)
	return out
}

func TestChainedRecords(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 2})
	rng := rand.New(rand.NewSource(3))
	hashes := map[uint16]func() hash.Hash{cptdrv.HashSHA1: sha1.New, cptdrv.HashSHA256: sha256.New}
	for i := 0; i < 400; i++ {
		hashID := []uint16{cptdrv.HashSHA1, cptdrv.HashSHA256}[i%2]
		size := chainedHashes[hashID].Size
		key := make([]byte, []int{16, 32}[rng.Intn(2)])
		iv, macKey, hdr := make([]byte, 16), make([]byte, size), make([]byte, 13)
		rng.Read(key)
		rng.Read(iv)
		rng.Read(macKey)
		rng.Read(hdr)
		explicit := i%3 != 0
		ivOff, flags := 0, cptdrv.FlagTLSRecord
		if explicit {
			ivOff, flags = 16, flags|cptdrv.FlagExplicitIV
		}
		plen := rng.Intn(600)
		if i%10 == 0 {
			plen = rng.Intn(17000)
		}
		hdr[11], hdr[12] = byte(plen>>8), byte(plen)
		rec := make([]byte, ivOff+plen)
		rng.Read(rec)
		want := refSeal(hashes[hashID], key, iv, macKey, hdr, rec, ivOff)
		async, inPlace := i%4 == 1, i%5 != 0

		// Seal on the device; the running IV is the last block after.
		cc := newChainCtx(t, key, iv, macKey, hashID)
		copy(cc.a.Hdr[:], hdr)
		cc.a.HdrLen = 13
		buf := dmaBuf(t, len(want))
		copy(buf, rec)
		out := buf
		if !inPlace {
			out = dmaBuf(t, len(want))
		}
		r := cc.exec(t, q, async, true, flags, buf, out, len(rec), len(want))
		if r.CompCode != cptdrv.CompGood || r.UCCode != cptdrv.UCSuccess || int(r.RLen) != len(want) || !bytes.Equal(out, want) {
			t.Fatalf("record %d (%d bytes, hash %d, explicit %v): seal differs (%+v)", i, plen, hashID, explicit, r)
		}
		if !bytes.Equal(cc.c.IV[:16], want[len(want)-16:]) {
			t.Fatalf("record %d: running IV is not the last ciphertext block", i)
		}

		// Open on the device, then with a flipped bit in the MAC or in
		// the padding (both a single failure code, output cleared).
		for _, tamper := range []int{-1, 0, 1, 2} {
			cc = newChainCtx(t, key, iv, macKey, hashID)
			copy(cc.a.Hdr[:], hdr)
			cc.a.HdrLen = 13
			enc := dmaBuf(t, len(want))
			copy(enc, want)
			switch tamper {
			case 0: // last byte: the padding length
				enc[len(enc)-17] ^= 1 << rng.Intn(8)
			case 1: // anywhere in the last two blocks (MAC or padding)
				enc[len(enc)-32+rng.Intn(16)] ^= 1 << rng.Intn(8)
			case 2: // the payload
				if plen == 0 || len(enc) < 48 {
					continue
				}
				enc[ivOff+rng.Intn(len(enc)-ivOff-32)] ^= 1
			}
			dec := enc
			if !inPlace {
				dec = dmaBuf(t, len(enc))
			}
			r := cc.exec(t, q, async, false, flags, enc, dec, len(enc), len(enc))
			if tamper >= 0 {
				if r.CompCode != cptdrv.CompGood || r.UCCode != cptdrv.UCAuthFail || r.RLen != 0 {
					t.Fatalf("record %d: tampered (%d) record accepted: %+v", i, tamper, r)
				}
				continue
			}
			if r.CompCode != cptdrv.CompGood || r.UCCode != cptdrv.UCSuccess || int(r.RLen) != plen ||
				!bytes.Equal(dec[ivOff:ivOff+plen], rec[ivOff:]) {
				t.Fatalf("record %d (%d bytes, explicit %v): open failed: %+v", i, plen, explicit, r)
			}
		}
	}
}

// Records whose padding is long (up to 256 bytes) and valid, as other
// implementations may send them, open; the plain mode is CBC.
func TestChainedLongPaddingAndPlain(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 1})
	rng := rand.New(rand.NewSource(4))
	key, iv, macKey := make([]byte, 16), make([]byte, 16), make([]byte, 20)
	rng.Read(key)
	rng.Read(iv)
	rng.Read(macKey)
	b, _ := aes.NewCipher(key)
	for padLen := 1; padLen <= 256; padLen += 5 {
		plen := 16*rng.Intn(20) + (16 - (20+padLen)%16)
		body := make([]byte, plen)
		rng.Read(body)
		hdr := make([]byte, 13)
		hdr[11], hdr[12] = byte(plen>>8), byte(plen)
		m := hmac.New(sha1.New, macKey)
		m.Write(hdr)
		m.Write(body)
		rec := append(append([]byte{}, body...), m.Sum(nil)...)
		for i := 0; i < padLen; i++ {
			rec = append(rec, byte(padLen-1))
		}
		if len(rec)%16 != 0 {
			t.Fatalf("test record of %d bytes", len(rec))
		}
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(rec, rec)
		cc := newChainCtx(t, key, iv, macKey, cptdrv.HashSHA1)
		cc.a.HdrLen = 13
		buf := dmaBuf(t, len(rec))
		copy(buf, rec)
		r := cc.exec(t, q, false, false, cptdrv.FlagTLSRecord, buf, buf, len(buf), len(buf))
		if r.UCCode != cptdrv.UCSuccess || int(r.RLen) != plen || !bytes.Equal(buf[:plen], body) {
			t.Fatalf("padding %d: %+v", padLen, r)
		}
	}
	msg := make([]byte, 16*37)
	rng.Read(msg)
	want := make([]byte, len(msg))
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(want, msg)
	cc := newChainCtx(t, key, iv, macKey, cptdrv.HashSHA1)
	buf := dmaBuf(t, len(msg))
	copy(buf, msg)
	if r := cc.exec(t, q, true, true, 0, buf, buf, len(buf), len(buf)); r.UCCode != cptdrv.UCSuccess || !bytes.Equal(buf, want) {
		t.Fatalf("plain CBC differs: %+v", r)
	}
	if r := cc.exec(t, q, false, true, 0, buf, buf, 15, 15); r.UCCode != cptdrv.UCBadLength {
		t.Fatalf("a partial block was accepted: %+v", r)
	}
	if r := cc.exec(t, q, false, true, cptdrv.FlagStart, buf, buf, 16, 16); r.CompCode != cptdrv.CompBadInst {
		t.Fatalf("a foreign flag was accepted: %+v", r)
	}
	cc.a.Hash = cptdrv.HashSHA512
	if r := cc.exec(t, q, false, true, cptdrv.FlagTLSRecord, buf, buf, 16, 64); r.UCCode != cptdrv.UCBadContext {
		t.Fatalf("an unsupported hash was accepted: %+v", r)
	}
}
