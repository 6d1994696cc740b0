// SPDX-License-Identifier: Apache-2.0

package aesgcm

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"
)

// startJ0 starts a message as if the IV had produced j0 (a non-12-byte IV),
// so that tests can put the 32-bit counter anywhere.
func (k *Key) startJ0(s *State, j0 [16]byte) {
	*s = State{j0: j0, phase: phaseAAD}
	k.block.Encrypt(s.ekj0[:], s.j0[:])
	s.ksLast = s.ekj0
}

// oneShot is crypto/cipher's AES-GCM for iv.
func oneShot(t testing.TB, key, iv, aad, pt []byte) (ct []byte, tag [16]byte) {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cipher.NewGCMWithNonceSize(block, len(iv))
	if err != nil {
		t.Fatal(err)
	}
	out := g.Seal(nil, iv, pt, aad)
	return out[:len(pt)], [16]byte(out[len(pt):])
}

// splitter cuts a length into random pieces: many tiny ones, zero-length
// ones, block-sized ones and some large ones.
func split(r *rand.Rand, n int) []int {
	var sizes []int
	for n > 0 {
		var m int
		switch r.IntN(12) {
		case 0:
			m = 0
		case 1, 2, 3:
			m = 1 + r.IntN(17)
		case 4:
			m = []int{16, 32, 33, 48, 15, 31, 47, 64, 63, 65}[r.IntN(10)]
		case 5, 6:
			m = r.IntN(300)
		case 7, 8:
			m = r.IntN(5000)
		case 9:
			m = n // all the rest
		default:
			m = r.IntN(n + 1)
		}
		m = min(m, n)
		sizes = append(sizes, m)
		n -= m
	}
	if r.IntN(4) == 0 {
		sizes = append(sizes, 0)
	}
	return sizes
}

func randLen(r *rand.Rand, big bool) int {
	switch r.IntN(10) {
	case 0:
		return 0
	case 1, 2, 3:
		return r.IntN(40)
	case 4, 5, 6:
		return r.IntN(1100)
	case 7, 8:
		return r.IntN(9000)
	}
	if big {
		return r.IntN(70001)
	}
	return r.IntN(20000)
}

// canary is the byte pattern that must survive beyond the written output.
const canary = 0xa5

// streamCrypt runs one message through k in the pieces given by r, in place
// or not, and returns the output and the tag. Output buffers carry canary
// bytes past len(src) that must stay untouched.
func streamCrypt(t testing.TB, r *rand.Rand, k *Key, s *State, aad, in []byte, decrypt, inPlace bool) ([]byte, [16]byte) {
	t.Helper()
	for _, n := range split(r, len(aad)) {
		if r.IntN(8) == 0 {
			// A zero-length data update does not end the AAD phase.
			if err := k.Encrypt(s, nil, nil); err != nil {
				t.Fatalf("empty Encrypt in AAD phase: %v", err)
			}
		}
		if err := k.AAD(s, aad[:n]); err != nil {
			t.Fatalf("AAD: %v", err)
		}
		aad = aad[n:]
	}
	out := make([]byte, 0, len(in))
	for _, n := range split(r, len(in)) {
		src := append([]byte(nil), in[:n]...)
		in = in[n:]
		var dst []byte
		if inPlace {
			buf := make([]byte, n+16)
			copy(buf, src)
			for i := n; i < len(buf); i++ {
				buf[i] = canary
			}
			src, dst = buf[:n], buf
		} else {
			dst = make([]byte, n+r.IntN(20))
			for i := range dst {
				dst[i] = canary
			}
		}
		var err error
		if decrypt {
			err = k.Decrypt(s, dst, src)
		} else {
			err = k.Encrypt(s, dst, src)
		}
		if err != nil {
			t.Fatalf("crypt piece of %d: %v", n, err)
		}
		for i := n; i < len(dst); i++ {
			if dst[i] != canary {
				t.Fatalf("byte %d past a %d-byte output was written", i-n, n)
			}
		}
		out = append(out, dst[:n]...)
	}
	tag, err := k.Tag(s)
	if err != nil {
		t.Fatalf("Tag: %v", err)
	}
	return out, tag
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestStreamingRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 3000
	if testing.Short() {
		n = 300
	}
	keys := map[int]*Key{}
	for i := range n {
		keyLen := []int{16, 24, 32}[r.IntN(3)]
		key := randBytes(r, keyLen)
		var k *Key
		if i%3 == 0 {
			// A long-lived key: the lazily built inverse exists after
			// its first continuation piece.
			if keys[keyLen] == nil {
				keys[keyLen], _ = NewKey(key)
			}
			k = keys[keyLen]
			key = nil
		} else {
			var err error
			if k, err = NewKey(key); err != nil {
				t.Fatal(err)
			}
		}
		ivLen := 12
		if r.IntN(3) == 0 {
			ivLen = 1 + r.IntN(64)
		}
		iv := randBytes(r, ivLen)
		aad := randBytes(r, randLen(r, i%10 == 0))
		pt := randBytes(r, randLen(r, i%10 == 5))
		var wantCT []byte
		var wantTag [16]byte
		if key != nil {
			wantCT, wantTag = oneShot(t, key, iv, aad, pt)
		} else {
			wantCT, wantTag = refGCM(k.block, refJ0(k.block, iv), aad, pt, false)
		}

		var s State
		if err := k.Start(&s, iv); err != nil {
			t.Fatal(err)
		}
		ct, tag := streamCrypt(t, r, k, &s, aad, pt, false, r.IntN(2) == 0)
		if !bytes.Equal(ct, wantCT) || tag != wantTag {
			t.Fatalf("case %d (key %d, iv %d, aad %d, pt %d): encryption mismatch (ct ok: %v, tag ok: %v)",
				i, keyLen, ivLen, len(aad), len(pt), bytes.Equal(ct, wantCT), tag == wantTag)
		}
		if err := k.Start(&s, iv); err != nil {
			t.Fatal(err)
		}
		got, tag := streamCrypt(t, r, k, &s, aad, ct, true, r.IntN(2) == 0)
		if !bytes.Equal(got, pt) || tag != wantTag {
			t.Fatalf("case %d (key %d, iv %d, aad %d, pt %d): decryption mismatch (pt ok: %v, tag ok: %v)",
				i, keyLen, ivLen, len(aad), len(pt), bytes.Equal(got, pt), tag == wantTag)
		}
	}
}

// TestPieceShapes walks over piece sizes around the block and threshold
// boundaries, for one continuation after a first piece of every size.
func TestPieceShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	key := randBytes(r, 16)
	k, _ := NewKey(key)
	fresh := func() *Key { k, _ := NewKey(key); return k }
	sizes := []int{0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 100, 255, 256, 257, 1024, 16384 + 5}
	for _, ivLen := range []int{12, 16, 7} {
		iv := randBytes(r, ivLen)
		for _, a := range sizes {
			for _, b := range sizes {
				for _, c := range []int{0, 1, 48, 300} {
					pt := randBytes(r, a+b+c)
					aad := randBytes(r, (a*7+b)%70)
					wantCT, wantTag := oneShot(t, key, iv, aad, pt)
					for _, kk := range []*Key{k, fresh()} {
						for _, decrypt := range []bool{false, true} {
							var s State
							kk.Start(&s, iv)
							kk.AAD(&s, aad)
							in, want := pt, wantCT
							f := kk.Encrypt
							if decrypt {
								in, want, f = wantCT, pt, kk.Decrypt
							}
							out := make([]byte, len(in))
							off := 0
							for _, n := range []int{a, b, c} {
								if err := f(&s, out[off:off+n], in[off:off+n]); err != nil {
									t.Fatal(err)
								}
								off += n
							}
							tag, err := kk.Tag(&s)
							if err != nil || !bytes.Equal(out, want) || tag != wantTag {
								t.Fatalf("iv %d, pieces %d+%d+%d, aad %d, decrypt %v: mismatch (err %v)",
									ivLen, a, b, c, len(aad), decrypt, err)
							}
						}
					}
				}
			}
		}
	}
}

// McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", test
// cases 1-6 (AES-128) and 13-14 (AES-256).
func TestKnownAnswers(t *testing.T) {
	const (
		k3  = "feffe9928665731c6d6a8f9467308308"
		p3  = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
		p4  = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
		aad = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
	)
	for i, tc := range []struct{ key, iv, pt, aad, ct, tag string }{
		{key: "00000000000000000000000000000000", iv: "000000000000000000000000", tag: "58e2fccefa7e3061367f1d57a4e7455a"},
		{key: "00000000000000000000000000000000", iv: "000000000000000000000000", pt: "00000000000000000000000000000000",
			ct: "0388dace60b6a392f328c2b971b2fe78", tag: "ab6e47d42cec13bdf53a67b21257bddf"},
		{key: k3, iv: "cafebabefacedbaddecaf888", pt: p3,
			ct:  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
			tag: "4d5c2af327cd64a62cf35abd2ba6fab4"},
		{key: k3, iv: "cafebabefacedbaddecaf888", pt: p4, aad: aad,
			ct:  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
			tag: "5bc94fbc3221a5db94fae95ae7121a47"},
		{key: k3, iv: "cafebabefacedbad", pt: p4, aad: aad,
			ct:  "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c742373806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598",
			tag: "3612d2e79e3b0785561be14aaca2fccb"},
		{key: k3, iv: "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
			pt: p4, aad: aad,
			ct:  "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca701e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
			tag: "619cc5aefffe0bfa462af43c1699d050"},
		{key: "0000000000000000000000000000000000000000000000000000000000000000", iv: "000000000000000000000000",
			tag: "530f8afbc74536b9a963b4f1c4cb738b"},
		{key: "0000000000000000000000000000000000000000000000000000000000000000", iv: "000000000000000000000000",
			pt: "00000000000000000000000000000000", ct: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"},
	} {
		key, iv, pt, a := mustHex(tc.key), mustHex(tc.iv), mustHex(tc.pt), mustHex(tc.aad)
		k, err := NewKey(key)
		if err != nil {
			t.Fatal(err)
		}
		for split := 0; split <= len(pt); split += 7 {
			var s State
			k.Start(&s, iv)
			k.AAD(&s, a[:len(a)/2])
			k.AAD(&s, a[len(a)/2:])
			ct := make([]byte, len(pt))
			k.Encrypt(&s, ct[:split], pt[:split])
			k.Encrypt(&s, ct[split:], pt[split:])
			tag, err := k.Tag(&s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ct, mustHex(tc.ct)) || !bytes.Equal(tag[:], mustHex(tc.tag)) {
				t.Fatalf("vector %d, split %d: got ct %x tag %x", i, split, ct, tag)
			}
			if len(pt) == 0 {
				break
			}
		}
	}
}

var wrapKey = mustHex("000102030405060708090a0b0c0d0e0f")

// TestCounterWrap checks messages whose 32-bit counter wraps, against the
// reference (J0 set directly) and, for a searched IV, crypto/cipher.
func TestCounterWrap(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	k, _ := NewKey(wrapKey)
	for _, low := range []uint32{0xffffffff, 0xfffffffe, 0xfffffff0, 0xffffffe0, 0xfffffc00, 0, 1} {
		var j0 [16]byte
		copy(j0[:12], randBytes(r, 12))
		binary.BigEndian.PutUint32(j0[12:], low)
		for range 20 {
			aad := randBytes(r, r.IntN(100))
			pt := randBytes(r, r.IntN(40000))
			wantCT, wantTag := refGCM(k.block, j0, aad, pt, false)
			for _, decrypt := range []bool{false, true} {
				in, want := pt, wantCT
				if decrypt {
					in, want = wantCT, pt
				}
				var s State
				k.startJ0(&s, j0)
				out, tag := streamCrypt(t, r, k, &s, aad, in, decrypt, r.IntN(2) == 0)
				if !bytes.Equal(out, want) || tag != wantTag {
					t.Fatalf("low %#x, pt %d, decrypt %v: mismatch", low, len(pt), decrypt)
				}
			}
		}
	}

	// A 16-byte IV whose counter wraps soon, found by searching IVs of
	// the form 0^12 || i (see findWrapIV).
	iv := mustHex("000000000000000000000000001102a9")
	j0 := refJ0(k.block, iv)
	low := binary.BigEndian.Uint32(j0[12:])
	if low < 0xfffff000 {
		t.Fatalf("IV %x: J0 low 32 bits %#x; want a searched one: %x", iv, low, findWrapIV(k))
	}
	n := int(1<<32-uint64(low))*16 + 100
	pt := randBytes(r, n)
	wantCT, wantTag := oneShot(t, wrapKey, iv, nil, pt)
	if refCT, refTag := refGCM(k.block, j0, nil, pt, false); !bytes.Equal(refCT, wantCT) || refTag != wantTag {
		t.Fatal("crypto/cipher disagrees with the reference at the counter wrap")
	}
	for range 20 {
		var s State
		k.Start(&s, iv)
		ct, tag := streamCrypt(t, r, k, &s, nil, pt, false, false)
		if !bytes.Equal(ct, wantCT) || tag != wantTag {
			t.Fatal("encryption across the counter wrap")
		}
		k.Start(&s, iv)
		got, tag := streamCrypt(t, r, k, &s, nil, ct, true, true)
		if !bytes.Equal(got, pt) || tag != wantTag {
			t.Fatal("decryption across the counter wrap")
		}
	}
}

// findWrapIV searches 16-byte IVs for a J0 whose counter wraps within 4096
// blocks (about 2^20 tries).
func findWrapIV(k *Key) []byte {
	var s State
	iv := make([]byte, 16)
	for i := uint64(0); ; i++ {
		binary.BigEndian.PutUint64(iv[8:], i)
		k.Start(&s, iv)
		if binary.BigEndian.Uint32(s.j0[12:]) >= 0xfffff000 {
			return iv
		}
	}
}

// TestMixedDirections interleaves Encrypt and Decrypt pieces in one
// message; the hash runs over the ciphertext either way, so the tag is that
// of the whole message.
func TestMixedDirections(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 23))
	for i := range 300 {
		key, iv := randBytes(r, 16), randBytes(r, 1+r.IntN(16))
		if i%2 == 0 {
			iv = iv[:min(len(iv), 12)]
		}
		k, _ := NewKey(key)
		pt := randBytes(r, randLen(r, true))
		wantCT, wantTag := oneShot(t, key, iv, nil, pt)
		var s State
		k.Start(&s, iv)
		out := make([]byte, len(pt))
		off := 0
		for _, n := range split(r, len(pt)) {
			if r.IntN(2) == 0 {
				k.Encrypt(&s, out[off:off+n], pt[off:off+n])
				if !bytes.Equal(out[off:off+n], wantCT[off:off+n]) {
					t.Fatalf("case %d: encrypted piece at %d", i, off)
				}
			} else {
				k.Decrypt(&s, out[off:off+n], wantCT[off:off+n])
				if !bytes.Equal(out[off:off+n], pt[off:off+n]) {
					t.Fatalf("case %d: decrypted piece at %d", i, off)
				}
			}
			off += n
		}
		if tag, _ := k.Tag(&s); tag != wantTag {
			t.Fatalf("case %d: tag", i)
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := NewKey(make([]byte, 17)); err == nil {
		t.Error("NewKey accepted a 17-byte key")
	}
	k, _ := NewKey(make([]byte, 32))
	var s State
	buf := make([]byte, 64)
	if err := k.AAD(&s, buf); !errors.Is(err, ErrNoIV) {
		t.Errorf("AAD on zero State: %v", err)
	}
	if err := k.Encrypt(&s, buf, buf); !errors.Is(err, ErrNoIV) {
		t.Errorf("Encrypt on zero State: %v", err)
	}
	if _, err := k.Tag(&s); !errors.Is(err, ErrNoIV) {
		t.Errorf("Tag on zero State: %v", err)
	}
	if err := k.Start(&s, nil); !errors.Is(err, ErrIVSize) {
		t.Errorf("Start with empty IV: %v", err)
	}
	k.Start(&s, buf[:12])
	if err := k.Encrypt(&s, buf[:3], buf[:4]); !errors.Is(err, ErrShortDst) {
		t.Errorf("short dst: %v", err)
	}
	if err := k.Encrypt(&s, buf[:16], buf[:16]); err != nil {
		t.Fatal(err)
	}
	if err := k.AAD(&s, buf[:1]); !errors.Is(err, ErrAADAfterData) {
		t.Errorf("AAD after data: %v", err)
	}
	if err := k.AAD(&s, nil); !errors.Is(err, ErrAADAfterData) {
		t.Errorf("empty AAD after data: %v", err)
	}
	if _, err := k.Tag(&s); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Tag(&s); !errors.Is(err, ErrFinished) {
		t.Errorf("Tag twice: %v", err)
	}
	if err := k.Decrypt(&s, buf, buf); !errors.Is(err, ErrFinished) {
		t.Errorf("Decrypt after Tag: %v", err)
	}
	if err := k.AAD(&s, buf); !errors.Is(err, ErrFinished) {
		t.Errorf("AAD after Tag: %v", err)
	}

	// Length limits, reached by setting the counters directly.
	k.Start(&s, buf[:12])
	k.Encrypt(&s, buf[:16], buf[:16])
	s.dataLen = MaxDataLen - 16
	if err := k.Encrypt(&s, buf[:17], buf[:17]); !errors.Is(err, ErrDataTooLong) {
		t.Errorf("data limit: %v", err)
	}
	if err := k.Encrypt(&s, buf[:16], buf[:16]); err != nil {
		t.Errorf("data up to the limit: %v", err)
	}
	if err := k.Encrypt(&s, buf[:1], buf[:1]); !errors.Is(err, ErrDataTooLong) {
		t.Errorf("data past the limit: %v", err)
	}
	k.Start(&s, buf[:12])
	s.aadLen = MaxAADLen - 1
	s.partLen = uint8(s.aadLen % 16)
	if err := k.AAD(&s, buf[:2]); !errors.Is(err, ErrAADTooLong) {
		t.Errorf("AAD limit: %v", err)
	}
	if err := k.AAD(&s, buf[:1]); err != nil {
		t.Errorf("AAD up to the limit: %v", err)
	}

	// Nil and zero values.
	var nk *Key
	if err := nk.Start(&s, buf[:12]); !errors.Is(err, ErrNilKey) {
		t.Errorf("nil Key: %v", err)
	}
	if err := new(Key).Start(&s, buf[:12]); !errors.Is(err, ErrNilKey) {
		t.Errorf("zero Key: %v", err)
	}
	if err := k.Start(nil, buf[:12]); err == nil {
		t.Error("nil State accepted")
	}

	// Output overlapping the State itself.
	k.Start(&s, buf[:12])
	sb := unsafe.Slice((*byte)(unsafe.Pointer(&s)), StateSize)
	if err := k.Encrypt(&s, sb[:16], buf[:16]); !errors.Is(err, ErrStateOverlap) {
		t.Errorf("dst overlapping the State: %v", err)
	}
}

// TestGarbageState feeds random bytes as States: errors are fine, panics
// are not.
func TestGarbageState(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	k, _ := NewKey(make([]byte, 16))
	buf := make([]byte, 300)
	for i := range 20000 {
		var s State
		b := unsafe.Slice((*byte)(unsafe.Pointer(&s)), StateSize)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if i%2 == 0 {
			s.phase = uint8(r.IntN(5))
			s.partLen = uint8(r.IntN(17))
			s.dataLen = uint64(r.IntN(1000))
			s.aadLen = uint64(r.IntN(1000))
		}
		n := r.IntN(len(buf))
		switch r.IntN(4) {
		case 0:
			k.AAD(&s, buf[:n])
		case 1:
			k.Encrypt(&s, buf[:n], buf[:n])
		case 2:
			k.Decrypt(&s, buf[:n], buf[:n])
		case 3:
			k.Tag(&s)
		}
	}
}

// TestOverlap checks inexact overlaps of dst and src, both directions.
func TestOverlap(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	key, iv := randBytes(r, 16), randBytes(r, 12)
	k, _ := NewKey(key)
	for _, n := range []int{5, 16, 100, 1000, 20000} {
		pt := randBytes(r, n)
		wantCT, wantTag := oneShot(t, key, iv, nil, pt)
		for _, shift := range []int{-17, -16, -1, 1, 3, 16, 40} {
			for _, decrypt := range []bool{false, true} {
				in, want := pt, wantCT
				if decrypt {
					in, want = wantCT, pt
				}
				buf := make([]byte, n+128)
				so, do := 64, 64+shift
				copy(buf[so:], in)
				var s State
				k.Start(&s, iv)
				var err error
				if decrypt {
					err = k.Decrypt(&s, buf[do:do+n], buf[so:so+n])
				} else {
					err = k.Encrypt(&s, buf[do:do+n], buf[so:so+n])
				}
				if err != nil {
					t.Fatal(err)
				}
				tag, _ := k.Tag(&s)
				if !bytes.Equal(buf[do:do+n], want) || tag != wantTag {
					t.Fatalf("n %d shift %d decrypt %v: mismatch", n, shift, decrypt)
				}
			}
		}
	}
}

// TestConcurrent shares fresh Keys between goroutines, so that the lazy
// per-key inverse is computed under contention (run with -race).
func TestConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for range 4 {
		key := randBytes(r, 24)
		k, _ := NewKey(key)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(g), 19))
				for range 10 {
					iv := randBytes(r, 1+r.IntN(20))
					aad, pt := randBytes(r, r.IntN(200)), randBytes(r, r.IntN(5000))
					wantCT, wantTag := oneShot(t, key, iv, aad, pt)
					var s State
					k.Start(&s, iv)
					ct, tag := streamCrypt(t, r, k, &s, aad, pt, false, false)
					if !bytes.Equal(ct, wantCT) || tag != wantTag {
						t.Error("concurrent mismatch")
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

// TestStateIsPlainData checks the State's promises: size, and that a copy
// made byte for byte mid-message carries on correctly.
func TestStateIsPlainData(t *testing.T) {
	if StateSize > 160 {
		t.Fatalf("State is %d bytes, want <= 160", StateSize)
	}
	t.Logf("State is %d bytes", StateSize)
	r := rand.New(rand.NewPCG(20, 21))
	key, iv := randBytes(r, 16), randBytes(r, 12)
	k, _ := NewKey(key)
	aad, pt := randBytes(r, 21), randBytes(r, 3000)
	wantCT, wantTag := oneShot(t, key, iv, aad, pt)
	var s State
	k.Start(&s, iv)
	k.AAD(&s, aad[:5])
	ct := make([]byte, len(pt))
	var raw [StateSize]byte
	copy(raw[:], unsafe.Slice((*byte)(unsafe.Pointer(&s)), StateSize))
	s2 := new(State)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(s2)), StateSize), raw[:])
	k.AAD(s2, aad[5:])
	k.Encrypt(s2, ct[:1001], pt[:1001])
	s = *s2
	k.Encrypt(&s, ct[1001:], pt[1001:])
	tag, _ := k.Tag(&s)
	if !bytes.Equal(ct, wantCT) || tag != wantTag {
		t.Fatal("mismatch after copying the State")
	}
}

func FuzzStreaming(f *testing.F) {
	f.Add(uint8(0), uint8(12), []byte("aad"), []byte("hello, world, some plaintext here"), uint64(1))
	f.Add(uint8(1), uint8(16), []byte{}, make([]byte, 1000), uint64(2))
	f.Add(uint8(2), uint8(1), make([]byte, 40), make([]byte, 70), uint64(3))
	f.Fuzz(func(t *testing.T, keySel, ivLen uint8, aad, pt []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>32))
		key := make([]byte, []int{16, 24, 32}[keySel%3])
		binary.LittleEndian.PutUint64(key, seed)
		iv := make([]byte, 1+int(ivLen)%70)
		for i := range iv {
			iv[i] = byte(seed >> (i % 8 * 8))
		}
		k, err := NewKey(key)
		if err != nil {
			t.Fatal(err)
		}
		if seed&1 == 1 {
			k.invTables() // the continuation path for first pieces too
		}
		wantCT, wantTag := oneShot(t, key, iv, aad, pt)
		var s State
		k.Start(&s, iv)
		ct, tag := streamCrypt(t, r, k, &s, aad, pt, false, seed&2 != 0)
		if !bytes.Equal(ct, wantCT) || tag != wantTag {
			t.Fatal("encryption mismatch")
		}
		k.Start(&s, iv)
		got, tag := streamCrypt(t, r, k, &s, aad, ct, true, seed&4 != 0)
		if !bytes.Equal(got, pt) || tag != wantTag {
			t.Fatal("decryption mismatch")
		}
	})
}
