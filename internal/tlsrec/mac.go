// SPDX-License-Identifier: Apache-2.0

package tlsrec

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"hash"
)

// Hash is one of the hashes of the stitched TLS ciphers (SHA-1, SHA-256),
// driven through the marshalled state of Go's implementations (their SHA-NI
// code): a state with a whole number of blocks hashed is exactly the
// chaining value, which is how the real CPT takes an HMAC key (the inner
// and outer states after K0^ipad and K0^opad, precomputed by the driver)
// and how the constant-time MAC below runs single compression steps.
type Hash struct {
	New   func() hash.Hash
	Size  int    // digest bytes
	magic string // of Go's marshalled state
}

// The hashes, and their block size (both 64 bytes).
var (
	SHA1   = &Hash{New: sha1.New, Size: sha1.Size, magic: "sha\x01"}
	SHA256 = &Hash{New: sha256.New, Size: sha256.Size, magic: "sha\x03"}
)

const block = 64

// marshalled is the size of Go's marshalled SHA-1/SHA-256 state: magic,
// the chaining words (room for SHA-256's eight), a block, the length.
const marshalled = 4 + 32 + block + 8

// state is a chaining value with the number of bytes it covers (a multiple
// of the block), in Go's marshalled layout.
type state struct {
	h   *Hash
	buf [marshalled]byte
}

func (s *state) size() int { return len(s.h.magic) + 4*(s.h.Size/4) + block + 8 }

// set makes the state the chaining value cv after n bytes.
func (s *state) set(cv []byte, n uint64) {
	b := s.buf[:s.size()]
	copy(b, s.h.magic)
	copy(b[4:], cv[:s.h.Size])
	clear(b[4+s.h.Size : len(b)-8])
	binary.BigEndian.PutUint64(b[len(b)-8:], n)
}

func (s *state) chain() []byte { return s.buf[4 : 4+s.h.Size] }

// resume returns a hash that continues from the state.
func (s *state) resume() hash.Hash {
	d := s.h.New()
	if d.(encoding.BinaryUnmarshaler).UnmarshalBinary(s.buf[:s.size()]) != nil {
		panic("tlsrec: marshalled hash state rejected")
	}
	return d
}

// save stores d's state, which must cover whole blocks.
func (s *state) save(d hash.Hash) {
	if _, err := d.(encoding.BinaryAppender).AppendBinary(s.buf[:0]); err != nil {
		panic("tlsrec: hash state not marshallable")
	}
}

// Chain returns the chaining value after hashing blk (whole blocks) from
// the initial value: how a driver precomputes an HMAC key's inner and
// outer states.
func (h *Hash) Chain(cv []byte, blk []byte) {
	d := h.New()
	d.Write(blk)
	var s state
	s.h = h
	s.save(d)
	copy(cv, s.chain())
	clear(s.buf[:])
}

// HMACKey returns the inner and outer chaining values of HMAC with key
// (hashed first when longer than a block), each h.Size bytes.
func (h *Hash) HMACKey(key []byte) (inner, outer []byte) {
	var k0 [block]byte
	if len(key) > block {
		d := h.New()
		d.Write(key)
		d.Sum(k0[:0])
	} else {
		copy(k0[:], key)
	}
	var pad [block]byte
	inner, outer = make([]byte, h.Size), make([]byte, h.Size)
	for i := range pad {
		pad[i] = k0[i] ^ 0x36
	}
	h.Chain(inner, pad[:])
	for i := range pad {
		pad[i] = k0[i] ^ 0x5c
	}
	h.Chain(outer, pad[:])
	clear(k0[:])
	clear(pad[:])
	return inner, outer
}

// MAC writes HMAC(hdr || data) into out from the key's chaining values
// (lengths public: sealing).
func (h *Hash) MAC(out, inner, outer, hdr, data []byte) {
	var s state
	s.h = h
	s.set(inner, block)
	d := s.resume()
	d.Write(hdr)
	d.Write(data)
	var in [32]byte
	d.Sum(in[:0])
	s.set(outer, block)
	d = s.resume()
	d.Write(in[:h.Size])
	d.Sum(out[:0])
}

// MACSecretLen writes into out HMAC(hdr || data[:n]) for a secret n with
// minN <= n <= len(data), minN public: the hash runs over the same blocks
// whatever n is. The bytes that are public in every case are hashed
// normally; the rest, at most 256 bytes and a few blocks, goes through
// compression steps of masked blocks, the message's end (0x80, the bit
// length) placed by masks, and the chaining value after the block that
// really ends the message selected by a mask.
func (h *Hash) MACSecretLen(out, inner, outer, hdr, data []byte, n, minN int) {
	var s state
	s.h = h
	s.set(inner, block)
	d := s.resume()
	// The message is hdr || data; p bytes of it (whole blocks) are public.
	mlen := len(hdr) + len(data)
	p := (len(hdr) + minN) / block * block
	at := func(i int) byte { // the message's byte i (public index)
		if i < len(hdr) {
			return hdr[i]
		}
		return data[i-len(hdr)]
	}
	if p > 0 {
		if p <= len(hdr) {
			d.Write(hdr[:p])
		} else {
			d.Write(hdr)
			d.Write(data[:p-len(hdr)])
		}
	}
	s.save(d)
	rem := uint(len(hdr) + n - p)   // secret: bytes of the message after p
	maxRem := mlen - p              // public bound of rem
	nblocks := (maxRem+8)/block + 1 // blocks the longest message ends in
	bits := (uint64(block+len(hdr)) + uint64(n)) * 8
	var blk [block]byte
	var cv [32]byte
	for b := 0; b < nblocks; b++ {
		for i := 0; i < block; i++ {
			j := uint(b*block + i)
			var v byte
			if int(j) < maxRem {
				v = at(p + int(j))
			}
			v &= byte(LT(j, rem))
			v |= 0x80 & byte(Eq(j, rem))
			blk[i] = v
		}
		// This block ends the message if the 0x80 and the 8-byte length
		// fit in it: b*64 <= rem+8 < b*64+64.
		final := ^LT(rem+8, uint(b*block)) & LT(rem+8, uint(b*block+block))
		for i := 0; i < 8; i++ {
			blk[block-8+i] |= byte(bits>>(56-8*i)) & byte(final)
		}
		d = s.resume()
		d.Write(blk[:])
		s.save(d)
		for i, v := range s.chain() {
			cv[i] |= v & byte(final)
		}
	}
	clear(blk[:])
	s.set(outer, block)
	d = s.resume()
	d.Write(cv[:h.Size])
	d.Sum(out[:0])
}
