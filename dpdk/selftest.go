// SPDX-License-Identifier: Apache-2.0

package dpdk

/*
#include <stdlib.h>
#include "shimcalls.h"
*/
import "C"

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/crypto/chacha20poly1305"
)

// A device's capabilities say what it computes, not that it computes it
// right. Before a device takes any operation, each algorithm it offers
// computes bursts of requests (every direction, assorted lengths, all in
// one enqueue, as lanes submit under load) which are compared with Go's
// own implementations; an algorithm that gets one result wrong is not
// used on that device, and the next device offering it, or the CPU path,
// computes it. One request at a time is not enough: intel-ipsec-mb 2.0's
// AVX-512 DES code (Debian 13's crypto_aesni_mb) writes a burst's results
// into each other's buffers (intel-ipsec-mb issue 169) while every single
// request is right. This is the device's power-on self-test, as a FIPS
// module runs its own before it serves.

// stCase is one request of a burst and the result it must have.
type stCase struct {
	req      C.struct_cptdpdk_req
	out, tag []byte // where the device writes (C memory)
	want     []byte
	wantTag  []byte
	status   int32
	back     bool
}

// stBurst is requests of one session.
type stBurst struct {
	name  string
	sess  unsafe.Pointer
	asym  bool
	cases []*stCase
}

// cmem hands out C memory for the requests (the shim reads and writes it
// after enqueue returns) and frees it all at the end.
type cmem struct{ ptrs []unsafe.Pointer }

func (m *cmem) bytes(n int) []byte {
	p := C.calloc(C.size_t(max(n, 1)), 1)
	m.ptrs = append(m.ptrs, p)
	return unsafe.Slice((*byte)(p), max(n, 1))[:n]
}

func (m *cmem) copyOf(b []byte) []byte {
	c := m.bytes(len(b))
	copy(c, b)
	return c
}

func (m *cmem) free() {
	for _, p := range m.ptrs {
		C.free(p)
	}
	m.ptrs = nil
}

// selfTestTimeout bounds how long one burst may take to come back.
const selfTestTimeout = 5 * time.Second

// spoil is a test hook: the CPTDPDK_* bits of CPTPROV_TEST_DPDK_SPOIL (a
// number) are algorithms whose self-test results get a byte flipped, as a
// device getting them wrong would; with spoilMute, the devices' answers to
// it are never collected, as a device that stopped answering.
var spoil = func() uint32 {
	v, _ := strconv.ParseUint(os.Getenv("CPTPROV_TEST_DPDK_SPOIL"), 0, 32)
	return uint32(v)
}()

const spoilMute = 1 << 31

// errNoAnswer: requests of a burst never came back. The device still holds
// them (and their session), so it is not used at all.
var errNoAnswer = errors.New("the device does not answer")

// selfTest returns the algorithms of cd that got a result wrong, with why
// for each; an error when the device stopped answering (errNoAnswer).
func selfTest(cd *cryptodev) (failed uint32, why map[uint32]string, err error) {
	why = map[uint32]string{}
	rng := rand.New(rand.NewChaCha8([32]byte{'c', 'p', 't', 'p', 'r', 'o', 'v'}))
	fill := func(b []byte) {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	var mem cmem
	defer mem.free()
	for bit := uint32(1); bit != 0 && bit <= C.CPTDPDK_MODEXP; bit <<= 1 {
		if cd.algs&bit == 0 {
			continue
		}
		bursts, err := stBursts(cd, bit, &mem, fill)
		if err == nil {
			for _, b := range bursts {
				if err == nil {
					err = runBurst(cd, b, spoil&bit != 0)
				}
				if errors.Is(err, errNoAnswer) {
					mem.ptrs = nil // the device may still write there
					return 0, nil, err
				}
				C.shim_sess_free(C.int(cd.id), b.sess, boolInt(b.asym))
			}
		}
		if err != nil {
			failed |= bit
			why[bit] = err.Error()
		}
	}
	return failed, why, nil
}

// stBursts builds the bursts of algorithm bit: a session each.
func stBursts(cd *cryptodev, bit uint32, mem *cmem, fill func([]byte)) ([]*stBurst, error) {
	var errbuf [256]C.char
	var out []*stBurst
	fail := func(what string) ([]*stBurst, error) {
		for _, b := range out {
			C.shim_sess_free(C.int(cd.id), b.sess, boolInt(b.asym))
		}
		return nil, fmt.Errorf("%s: %s", what, cerr(errbuf[:]))
	}
	dev := C.int(cd.id)
	switch bit {
	case C.CPTDPDK_AES_GCM, C.CPTDPDK_CHACHAPOLY:
		const aad = 13 // a TLS 1.2 record's
		keys := []int{16, 32}
		if bit == C.CPTDPDK_CHACHAPOLY {
			keys = []int{32}
		}
		for _, kl := range keys {
			key := make([]byte, kl)
			fill(key)
			var a cipher.AEAD
			if bit == C.CPTDPDK_AES_GCM {
				blk, _ := aes.NewCipher(key)
				a, _ = cipher.NewGCM(blk)
			} else {
				a, _ = chacha20poly1305.New(key)
			}
			se := C.shim_sess_aead(dev, C.uint32_t(bit), C.CPTDPDK_DIR_ENCRYPT, bptr(key), C.uint32_t(kl), aad, 16, &errbuf[0], C.size_t(len(errbuf)))
			if se == nil {
				return fail("encrypt session")
			}
			out = append(out, &stBurst{name: fmt.Sprintf("%d-byte key encrypt", kl), sess: se})
			sd := C.shim_sess_aead(dev, C.uint32_t(bit), C.CPTDPDK_DIR_DECRYPT, bptr(key), C.uint32_t(kl), aad, 16, &errbuf[0], C.size_t(len(errbuf)))
			if sd == nil {
				return fail("decrypt session")
			}
			dec := &stBurst{name: fmt.Sprintf("%d-byte key decrypt", kl), sess: sd}
			out = append(out, dec)
			enc := out[len(out)-2]
			for _, n := range []int{0, 1, 15, 16, 17, 100, 1024, 16384} {
				if n > cd.maxData {
					continue
				}
				iv, ad, pt := mem.bytes(12), mem.bytes(aad), mem.bytes(n)
				fill(iv)
				fill(ad)
				fill(pt)
				sealed := a.Seal(nil, iv, pt, ad)
				ct, tag := sealed[:n], sealed[n:]
				e := &stCase{out: mem.bytes(n), tag: mem.bytes(16), want: ct, wantTag: tag}
				e.req = C.struct_cptdpdk_req{sess: se, kind: C.CPTDPDK_OP_AEAD, in: bptr(pt), inlen: C.uint32_t(n),
					out: bptr(e.out), outlen: C.uint32_t(n), iv: bptr(iv), ivlen: 12, aad: bptr(ad), aadlen: aad,
					tag: bptr(e.tag), taglen: 16}
				enc.cases = append(enc.cases, e)
				dc := &stCase{out: mem.bytes(n), tag: mem.copyOf(tag), want: pt}
				dc.req = C.struct_cptdpdk_req{sess: sd, kind: C.CPTDPDK_OP_AEAD, in: bptr(mem.copyOf(ct)), inlen: C.uint32_t(n),
					out: bptr(dc.out), outlen: C.uint32_t(n), iv: bptr(iv), ivlen: 12, aad: bptr(ad), aadlen: aad,
					tag: bptr(dc.tag), taglen: 16}
				dec.cases = append(dec.cases, dc)
			}
		}
	case C.CPTDPDK_AES_CBC, C.CPTDPDK_AES_CTR, C.CPTDPDK_DES3_CBC:
		keys, bs := []int{16, 32}, aes.BlockSize
		if bit == C.CPTDPDK_DES3_CBC {
			keys, bs = []int{24}, des.BlockSize
		}
		for _, kl := range keys {
			key := make([]byte, kl)
			fill(key)
			var blk cipher.Block
			if bit == C.CPTDPDK_DES3_CBC {
				blk, _ = des.NewTripleDESCipher(key)
			} else {
				blk, _ = aes.NewCipher(key)
			}
			dirs := []C.int{C.CPTDPDK_DIR_ENCRYPT, C.CPTDPDK_DIR_DECRYPT}
			if bit == C.CPTDPDK_AES_CTR {
				dirs = dirs[:1] // its own inverse (planBlock)
			}
			for _, dir := range dirs {
				s := C.shim_sess_cipher(dev, C.uint32_t(bit), dir, bptr(key), C.uint32_t(kl), &errbuf[0], C.size_t(len(errbuf)))
				if s == nil {
					return fail("session")
				}
				b := &stBurst{name: fmt.Sprintf("%d-byte key %s", kl, map[C.int]string{C.CPTDPDK_DIR_ENCRYPT: "encrypt", C.CPTDPDK_DIR_DECRYPT: "decrypt"}[dir]), sess: s}
				out = append(out, b)
				for _, blocks := range []int{1, 2, 3, 4, 7, 16, 64, 1024} {
					n := blocks * bs
					if n > cd.maxData {
						continue
					}
					iv, in := mem.bytes(bs), mem.bytes(n)
					fill(iv)
					fill(in)
					want := make([]byte, n)
					switch {
					case bit == C.CPTDPDK_AES_CTR:
						clear(iv[12:]) // no carry out of the low 32 bits (planBlock)
						cipher.NewCTR(blk, iv).XORKeyStream(want, in)
					case dir == C.CPTDPDK_DIR_ENCRYPT:
						cipher.NewCBCEncrypter(blk, iv).CryptBlocks(want, in)
					default:
						cipher.NewCBCDecrypter(blk, iv).CryptBlocks(want, in)
					}
					c := &stCase{out: mem.bytes(n), want: want}
					c.req = C.struct_cptdpdk_req{sess: s, kind: C.CPTDPDK_OP_CIPHER, in: bptr(in), inlen: C.uint32_t(n),
						out: bptr(c.out), outlen: C.uint32_t(n), iv: bptr(iv), ivlen: C.uint32_t(bs)}
					b.cases = append(b.cases, c)
				}
			}
		}
	case C.CPTDPDK_MODEXP:
		const l = 128 // bytes of modulus and exponent
		if cd.maxModLen > 0 && cd.maxModLen < l {
			return nil, nil
		}
		mod, exp := make([]byte, l), make([]byte, l)
		fill(mod)
		fill(exp)
		mod[0] |= 0x80
		mod[l-1] |= 1
		exp[0] |= 0x80
		s := C.shim_sess_modexp(dev, bptr(mod), l, bptr(exp), l, &errbuf[0], C.size_t(len(errbuf)))
		if s == nil {
			return fail("session")
		}
		b := &stBurst{name: "1024-bit", sess: s, asym: true}
		out = append(out, b)
		m, e := new(big.Int).SetBytes(mod), new(big.Int).SetBytes(exp)
		for i := 0; i < 4; i++ {
			base := mem.bytes(l)
			fill(base)
			base[0] &= 0x7f // below the modulus
			want := new(big.Int).Exp(new(big.Int).SetBytes(base), e, m)
			c := &stCase{out: mem.bytes(l), want: want.FillBytes(make([]byte, l))}
			c.req = C.struct_cptdpdk_req{sess: s, kind: C.CPTDPDK_OP_MODEXP, in: bptr(base), inlen: l, out: bptr(c.out), outlen: l}
			b.cases = append(b.cases, c)
		}
	default: // the hashes and HMACs
		a := stAuthOf(bit)
		if a == nil {
			return nil, nil
		}
		var key []byte
		if a.hmac {
			key = make([]byte, 32)
			fill(key)
		}
		var kp *C.uint8_t
		if key != nil {
			kp = bptr(key)
		}
		s := C.shim_sess_auth(dev, C.uint32_t(bit), kp, C.uint32_t(len(key)), &errbuf[0], C.size_t(len(errbuf)))
		if s == nil {
			return fail("session")
		}
		b := &stBurst{name: "digest", sess: s}
		out = append(out, b)
		for _, n := range []int{0, 1, 55, 56, 64, 100, 1000, 8000} {
			if n > cd.maxData {
				continue
			}
			in := mem.bytes(n)
			fill(in)
			h := a.new()
			if a.hmac {
				h = hmac.New(a.new, key)
			}
			h.Write(in)
			c := &stCase{out: mem.bytes(a.size), want: h.Sum(nil)}
			c.req = C.struct_cptdpdk_req{sess: s, kind: C.CPTDPDK_OP_AUTH, in: bptr(in), inlen: C.uint32_t(n),
				out: bptr(c.out), outlen: C.uint32_t(a.size)}
			b.cases = append(b.cases, c)
		}
	}
	return out, nil
}

// stAuth is Go's hash of each CPTDPDK_* hash and HMAC.
type stAuth struct {
	new  func() hash.Hash
	size int
	hmac bool
}

func stAuthOf(bit uint32) *stAuth {
	switch bit {
	case C.CPTDPDK_SHA1, C.CPTDPDK_HMAC_SHA1:
		return &stAuth{sha1.New, sha1.Size, bit == C.CPTDPDK_HMAC_SHA1}
	case C.CPTDPDK_SHA224, C.CPTDPDK_HMAC_SHA224:
		return &stAuth{sha256.New224, sha256.Size224, bit == C.CPTDPDK_HMAC_SHA224}
	case C.CPTDPDK_SHA256, C.CPTDPDK_HMAC_SHA256:
		return &stAuth{sha256.New, sha256.Size, bit == C.CPTDPDK_HMAC_SHA256}
	case C.CPTDPDK_SHA384, C.CPTDPDK_HMAC_SHA384:
		return &stAuth{sha512.New384, sha512.Size384, bit == C.CPTDPDK_HMAC_SHA384}
	case C.CPTDPDK_SHA512, C.CPTDPDK_HMAC_SHA512:
		return &stAuth{sha512.New, sha512.Size, bit == C.CPTDPDK_HMAC_SHA512}
	}
	return nil
}

// runBurst enqueues a burst's requests on queue pair 0 together and
// checks each result.
func runBurst(cd *cryptodev, b *stBurst, spoiled bool) error {
	n := len(b.cases)
	if n == 0 {
		return nil
	}
	reqs, done := cd.qps[0].reqs, cd.qps[0].done // no lane uses them yet
	for i, c := range b.cases {
		reqs[i] = c.req
		reqs[i].tag_id = C.uint64_t(i)
	}
	sent, got := 0, 0
	wait := selfTestTimeout
	if spoil&spoilMute != 0 {
		wait = 50 * time.Millisecond
	}
	deadline := time.Now().Add(wait)
	for got < n {
		if sent < n {
			k := int(C.shim_enqueue(C.int(cd.id), 0, &reqs[sent], C.int(n-sent)))
			if k < 0 {
				return fmt.Errorf("%s: enqueue failed", b.name)
			}
			sent += k
		}
		m := 0
		if spoil&spoilMute == 0 {
			m = int(C.shim_dequeue(C.int(cd.id), 0, &done[0], burst))
		}
		for _, dn := range done[:max(m, 0)] {
			if i := int(dn.tag_id); i < n && !b.cases[i].back {
				b.cases[i].back, b.cases[i].status = true, int32(dn.status)
				got++
			}
		}
		if m <= 0 && time.Now().After(deadline) {
			return fmt.Errorf("%s: %d of %d requests not back after %v: %w", b.name, n-got, n, wait, errNoAnswer)
		}
		if m <= 0 {
			time.Sleep(20 * time.Microsecond)
		}
	}
	for _, c := range b.cases {
		if spoiled && len(c.out) > 0 {
			c.out[len(c.out)-1] ^= 1
			break
		}
	}
	wrong := 0
	for _, c := range b.cases {
		if c.status != C.CPTDPDK_OK || !bytes.Equal(c.out, c.want) || c.wantTag != nil && !bytes.Equal(c.tag, c.wantTag) {
			wrong++
		}
	}
	if wrong > 0 {
		return fmt.Errorf("%s: %d of %d results of one burst wrong", b.name, wrong, n)
	}
	return nil
}
