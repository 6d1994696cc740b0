// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math/rand"
	"testing"
	"unsafe"
)

// stitchedParams sets octet-string parameters and "tls-version".
func stitchedSet(t *testing.T, env *Env, s Cipher, st []byte, version uint32, octets map[string][]byte) *Error {
	t.Helper()
	var l paramList
	for k, v := range octets {
		l.add(k, TypeOctet, ptr(v), uintptr(len(v)))
	}
	if version != 0 {
		l.add("tls-version", TypeUnsigned, unsafe.Pointer(&version), unsafe.Sizeof(version))
	}
	return s.SetCtxParams(env, ptr(st), l.params())
}

func aadPad(t *testing.T, env *Env, s Cipher, st []byte) uint64 {
	t.Helper()
	var l paramList
	var v uint64
	l.add("tlsaadpad", TypeUnsigned, unsafe.Pointer(&v), unsafe.Sizeof(v))
	if err := s.GetCtxParams(env, ptr(st), l.params()); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStitchedRecords seals records of TLS 1.0 to 1.2 with the four
// ciphers and checks them against a plain reference (HMAC, padding, CBC
// with the IV chained across records), then opens them: payload and
// lengths as libssl expects, and tampered records refused.
func TestStitchedRecords(t *testing.T) {
	env := testEnv(t)
	rng := rand.New(rand.NewSource(5))
	for _, id := range []int{AlgAES128CBCHMACSHA1, AlgAES256CBCHMACSHA1, AlgAES128CBCHMACSHA256, AlgAES256CBCHMACSHA256} {
		s := CipherByID(id).(stitched)
		newHash := map[bool]func() hash.Hash{false: sha1.New, true: sha256.New}[s.hash.Size == 32]
		for _, version := range []uint32{0x0301, 0x0302, 0x0303} {
			key, iv, macKey := make([]byte, s.keyLen), make([]byte, 16), make([]byte, s.hash.Size)
			rng.Read(key)
			rng.Read(iv)
			rng.Read(macKey)
			sealer, opener := dma(t, int(s.StateSize())), dma(t, int(s.StateSize()))
			for _, st := range [][]byte{sealer, opener} {
				if err := s.Init(env, ptr(st), &st[0] == &sealer[0], key, true, iv, true, Params{}); err != nil {
					t.Fatal(err)
				}
				if err := stitchedSet(t, env, s, st, version, map[string][]byte{"mackey": macKey}); err != nil {
					t.Fatal(err)
				}
			}
			b, _ := aes.NewCipher(key)
			chain := append([]byte(nil), iv...)
			ivOff := 0
			if version >= 0x0302 {
				ivOff = 16
			}
			for rec := 0; rec < 12; rec++ {
				async := rec%3 == 1
				plen := rng.Intn(300)
				if rec%4 == 0 {
					plen = rng.Intn(17000)
				}
				payload := make([]byte, ivOff+plen)
				rng.Read(payload)
				aad := make([]byte, 13)
				binary.BigEndian.PutUint64(aad, uint64(rec))
				aad[8], aad[9], aad[10] = 23, byte(version>>8), byte(version)
				binary.BigEndian.PutUint16(aad[11:], uint16(len(payload)))
				if err := stitchedSet(t, env, s, sealer, 0, map[string][]byte{"tlsaad": aad}); err != nil {
					t.Fatal(err)
				}
				pad := int(aadPad(t, env, s, sealer))
				if (plen+pad)%16 != 0 || pad < s.hash.Size+1 || pad > s.hash.Size+16 {
					t.Fatalf("tlsaadpad %d for %d bytes", pad, plen)
				}
				buf := dma(t, len(payload)+pad)
				copy(buf, payload)
				n, err := call(async, func(w Waiter) (int, bool, *Error) {
					return s.Update(env, ptr(sealer), ptr(buf), len(buf), ptr(buf), len(buf), w)
				})
				if err != nil || n != len(buf) {
					t.Fatalf("seal: %d, %v", n, err)
				}
				// The reference.
				hdr := append([]byte(nil), aad...)
				binary.BigEndian.PutUint16(hdr[11:], uint16(plen))
				m := hmac.New(newHash, macKey)
				m.Write(hdr)
				m.Write(payload[ivOff:])
				want := append(append([]byte(nil), payload...), m.Sum(nil)...)
				for p := len(buf) - len(want); len(want) < len(buf); {
					want = append(want, byte(p-1))
				}
				cipher.NewCBCEncrypter(b, chain).CryptBlocks(want, want)
				copy(chain, want[len(want)-16:])
				if !bytes.Equal(buf, want) {
					t.Fatalf("%s version %#x record %d (%d bytes): sealed record differs", s.name, version, rec, plen)
				}

				// Open: tampered copies first (their IV chain is the
				// one of the good record before, so TLS 1.0 is opened
				// from a copy of the context).
				binary.BigEndian.PutUint16(aad[11:], uint16(len(buf)))
				for _, tamper := range []int{len(buf) - 1, len(buf) - 1 - rng.Intn(min(len(buf)-ivOff, 48))} {
					bad := dma(t, len(buf))
					copy(bad, buf)
					bad[tamper] ^= 0x40
					o := dma(t, len(opener))
					copy(o, opener)
					s.Dup(env, ptr(o))
					if err := stitchedSet(t, env, s, o, 0, map[string][]byte{"tlsaad": aad}); err != nil {
						t.Fatal(err)
					}
					if _, err := call(async, func(w Waiter) (int, bool, *Error) {
						return s.Update(env, ptr(o), ptr(bad), len(bad), ptr(bad), len(bad), w)
					}); err == nil || err.Reason != ReasonAuthFailed {
						t.Fatalf("tampered record (byte %d of %d): %v", tamper, len(bad), err)
					}
				}
				if err := stitchedSet(t, env, s, opener, 0, map[string][]byte{"tlsaad": aad}); err != nil {
					t.Fatal(err)
				}
				if got := aadPad(t, env, s, opener); got != uint64(s.hash.Size) {
					t.Fatalf("tlsaadpad %d when opening", got)
				}
				n, err = call(async, func(w Waiter) (int, bool, *Error) {
					return s.Update(env, ptr(opener), ptr(buf), len(buf), ptr(buf), len(buf), w)
				})
				if err != nil || n != plen || !bytes.Equal(buf[ivOff:ivOff+plen], payload[ivOff:]) {
					t.Fatalf("%s version %#x record %d: open gave %d bytes (want %d), %v", s.name, version, rec, n, plen, err)
				}
			}
		}
	}
}

func TestStitchedModesAndErrors(t *testing.T) {
	env := testEnv(t)
	s := CipherByID(AlgAES128CBCHMACSHA256).(stitched)
	key, iv := bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{2}, 16)
	st := dma(t, int(s.StateSize()))
	if err := s.Init(env, ptr(st), true, key, true, iv, true, Params{}); err != nil {
		t.Fatal(err)
	}
	// Plain mode: CBC over whole blocks, no MAC.
	msg := make([]byte, 64)
	want := make([]byte, 64)
	b, _ := aes.NewCipher(key)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(want, msg)
	buf := dma(t, 64)
	if n, _, err := s.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 64, nil); err != nil || n != 64 || !bytes.Equal(buf, want) {
		t.Fatalf("plain mode: %d %v", n, err)
	}
	if _, _, err := s.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 20, nil); err == nil {
		t.Fatal("plain mode took a partial block")
	}
	aad := []byte{0, 0, 0, 0, 0, 0, 0, 0, 23, 3, 3, 0, 40}
	// A record needs a MAC key, a 13-byte AAD and the announced length.
	if err := stitchedSet(t, env, s, st, 0, map[string][]byte{"tlsaad": aad}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 64, nil); err == nil || err.Reason != ReasonMissingKey {
		t.Fatalf("record without a MAC key: %v", err)
	}
	if err := stitchedSet(t, env, s, st, 0, map[string][]byte{"tlsaad": aad[:12]}); err == nil {
		t.Fatal("12-byte AAD accepted")
	}
	if err := stitchedSet(t, env, s, st, 0, map[string][]byte{"mackey": key, "tlsaad": aad}); err != nil {
		t.Fatal(err)
	}
	// 40 bytes with the explicit IV: 24 of payload, 32 of MAC, 8 of padding.
	if p := aadPad(t, env, s, st); p != 40 {
		t.Fatalf("tlsaadpad %d, want 40", p)
	}
	if _, _, err := s.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 64, nil); err == nil {
		t.Fatal("a record of the wrong length was sealed")
	}
	if _, _, err := s.Final(env, ptr(st), nil, 0, nil); err != nil {
		t.Fatal(err)
	}
	// A short record to open is refused before the device sees it.
	if err := s.Init(env, ptr(st), false, nil, false, nil, false, Params{}); err != nil {
		t.Fatal(err)
	}
	if err := stitchedSet(t, env, s, st, 0x0303, map[string][]byte{"mackey": key, "tlsaad": aad}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Update(env, ptr(st), ptr(buf), 48, ptr(buf), 48, nil); err == nil {
		t.Fatal("a 48-byte TLS 1.2 record with a 32-byte MAC was opened")
	}
}
