// SPDX-License-Identifier: Apache-2.0

// Package aesgcm implements streaming AES-GCM (SP 800-38D) for the
// simulated crypto accelerator.
//
// The device receives the work of one GCM message in arbitrary pieces (the
// shape of an OpenSSL EVP context: any split of AAD and data across update
// calls, then a final that produces the tag), and it keeps the running state
// of the message in a fixed-layout [State] without Go pointers, so that the
// state can live in device-context memory and be copied as plain bytes.
//
// Speed comes from crypto/cipher: instead of running its own CTR and GHASH,
// the package feeds the bulk of every piece to the standard library's
// accelerated one-shot Seal and recovers the running hash from its tag. Let
// X be the running GHASH value after some blocks. The State keeps
// Y = X·H^-1 ("B form"). A Seal whose additional data is the single block Y
// starts its ciphertext hashing from Y·H = X, so it continues our hash
// exactly. Its tag is T = E_K(J0')⊕(X'⊕L')·H, where X' is the hash after
// the sealed blocks and L' = [128]_64 || [8·len]_64 is Seal's own length
// block. E_K(J0') is a keystream block the State already holds (that of the
// last block done), so the tag gives G = (X'⊕L')·H, and the new B form is
// X'·H^-1 = G·H^-2 ⊕ L'·H^-1.
//
// Seal appends 16 tag bytes that the caller's output has no room for. Pieces
// of up to 4 KiB are sealed whole into a scratch buffer and copied out. For
// larger ones the copy costs more than what it saves, and the last block t is
// held out of a Seal directly into dst (the tag lands where t goes) and
// processed on its own: then Y = G·H^-1 ⊕ L' ⊕ t. (Holding out is not
// always better: Seal's bulk code works eight blocks at a time and is
// several times slower per block on a remainder.)
//
// Until a key has H^-1 (see below), the first data piece of a message leaves
// the hash as X·H = G ⊕ L'·H (whole piece) or X = G ⊕ (L'⊕t)·H (held-out
// block) instead; see absorb and Tag for how these forms are used.
//
// Seal starts counting at inc32(J0') where J0' is derived from its nonce. The
// first piece of a message with a 12-byte IV can use the IV itself. Any
// other piece uses a crafted 16-byte nonce N for which Seal's
// J0' = N·H² ⊕ L_iv·H (L_iv = 0^64 || [128]_64) equals inc32^d(J0), d being
// the number of blocks already done: N = (J0⊕L_iv·H)·H^-2. Because J0 only
// changes in its low 32 bits from piece to piece and the map is linear,
// N = base ⊕ (0^96||ctr)·H^-2 with a per-message base and a four-step table
// product per piece. H^-1 is computed once per key, lazily, on the first
// piece that needs it; a message of one data piece with a 12-byte IV (a TLS
// record) never does.
//
// Decryption needs the hash over the ciphertext, which Seal of the
// ciphertext does not give (its output is the plaintext, but it hashes its
// output). It hashes with a Seal of an empty plaintext whose additional data
// is Y followed by the ciphertext (copied into a scratch buffer; large AAD is
// hashed the same way), and gets the keystream from a second Seal of the
// ciphertext with a crafted nonce or, for large pieces, from crypto/cipher's
// CTR, split where GCM's 32-bit counter wraps.
//
// Small pieces (a few blocks) are cheaper one block at a time: one AES block
// call and one table product per block.
package aesgcm

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

const (
	// MaxDataLen is the largest plaintext of one message, 2^36-32 bytes
	// (2^32-2 blocks, so that the 32-bit counter never returns to J0).
	MaxDataLen = 1<<36 - 32
	// MaxAADLen is the largest AAD of one message, 2^61-1 bytes (2^64-1 bits).
	MaxAADLen = 1<<61 - 1
	// TagSize is the size of the tag returned by Tag.
	TagSize = 16
)

// Errors returned by the methods of Key. A call that returns one of them
// leaves the State as it was.
var (
	ErrNoIV         = errors.New("aesgcm: no IV set")
	ErrFinished     = errors.New("aesgcm: message already finished")
	ErrAADAfterData = errors.New("aesgcm: AAD after data")
	ErrIVSize       = errors.New("aesgcm: invalid IV length")
	ErrDataTooLong  = errors.New("aesgcm: plaintext exceeds 2^36-32 bytes")
	ErrAADTooLong   = errors.New("aesgcm: AAD exceeds 2^61-1 bytes")
	ErrShortDst     = errors.New("aesgcm: output buffer smaller than input")
	ErrBadState     = errors.New("aesgcm: corrupt state")
	ErrNilKey       = errors.New("aesgcm: nil or uninitialized key")
	ErrStateOverlap = errors.New("aesgcm: buffer overlaps the state")
	errNilState     = errors.New("aesgcm: nil state")
)

// Tuning thresholds, in blocks, chosen by benchmark (see bench_test.go).
const (
	// sealMinBlocks is the smallest run of full blocks that Encrypt sends
	// through Seal; shorter runs take one AES block and one table product
	// per block, which beats Seal's fixed cost.
	sealMinBlocks = 6
	// hashMinBlocks is the smallest run of full blocks (AAD, or ciphertext
	// in Decrypt) hashed with the Seal trick instead of table products.
	hashMinBlocks = 8
	// decMinBlocks is the smallest run of full blocks that Decrypt hashes
	// and decrypts in bulk (hashWith, and Seal or crypto/cipher's CTR for
	// the keystream) rather than one AES block and one table product per
	// block.
	decMinBlocks = 8
	// copyMaxBytes is the largest piece that Encrypt seals whole into a
	// scratch buffer (see sealCopy) rather than into dst with held-out
	// blocks (see sealHoldOut).
	copyMaxBytes = 4096
	// chunkSize bounds the ciphertext copied into the scratch buffer per
	// hashing Seal in Decrypt, so that the copy, the hash and the keystream
	// pass stay in cache.
	chunkSize = 16 << 10
)

// Key is the expanded form of one AES key (16, 24 or 32 bytes): the
// cipher.Block, the standard library's GCM AEAD for 12-byte nonces, and
// GHASH multiplication tables for H = E_K(0^128) (8 KiB). The parts that need
// H^-1 (the AEAD for 16-byte crafted nonces, tables for H^-1 and H^-2, about
// 25 KiB) are computed on first use, which costs some 25 µs once per key. A
// Key is read-only after NewKey except for those parts, which are guarded by
// a sync.Once; it is safe for concurrent use by any number of goroutines with
// distinct States.
type Key struct {
	block  cipher.Block
	aead12 cipher.AEAD
	h      elem
	hTab   mulTable
	mask0  [16]byte // E_K(0^96 || 1): the tag mask of Seal with nonce zero12
	zero12 [12]byte // the nonce of hashing-only Seals (never written)

	invOnce sync.Once
	inv     atomic.Pointer[invKey]
}

// invKey holds the per-key parts that need H^-1.
type invKey struct {
	aead16  cipher.AEAD
	hInv    mulTable // multiplication by H^-1
	hInv2   mulTable // multiplication by H^-2
	ctrTab  ctrTable // multiplication of counter values by H^-2
	livHInv elem     // L_iv·H^-1, L_iv = 0^64 || [128]_64
	// lenHInv[n] = ([128]_64 || [128n]_64)·H^-1: Seal's length block for
	// n blocks after one block of AAD, times H^-1 (see sealCopy).
	lenHInv [copyMaxBytes/16 + 1]elem
}

// NewKey expands key, which must be 16, 24 or 32 bytes long.
func NewKey(key []byte) (*Key, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead12, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	k := &Key{block: block, aead12: aead12}
	var b [16]byte
	block.Encrypt(b[:], b[:])
	k.h = loadElem(b[:])
	k.hTab.init(k.h)
	b = [16]byte{15: 1}
	block.Encrypt(k.mask0[:], b[:])
	return k, nil
}

// invTables returns the tables that need H^-1, computing them on first use.
// It returns nil only if H = 0 (one key in 2^128), where H^-1 does not
// exist but every GHASH value is zero. aead16 is nil if crypto/cipher
// refuses 16-byte nonces; callers then take the block-at-a-time path.
func (k *Key) invTables() *invKey {
	if t := k.inv.Load(); t != nil {
		return t
	}
	k.invOnce.Do(func() {
		if k.h.isZero() {
			return
		}
		aead16, err := cipher.NewGCMWithNonceSize(k.block, 16)
		if err != nil {
			aead16 = nil
		}
		hInv := inverse(k.h)
		if mulGeneric(hInv, k.h) != one {
			return // cannot happen; refuse rather than produce wrong output
		}
		t := &invKey{aead16: aead16}
		t.hInv.init(hInv)
		t.hInv2.init(mulGeneric(hInv, hInv))
		t.ctrTab.init(mulGeneric(hInv, hInv))
		t.livHInv = t.hInv.mul(elem{lo: 128})
		// The table is affine in the bits of n: entry n is entry
		// n&(n-1) plus the product for n's lowest set bit.
		var bit [9]elem // n <= copyMaxBytes/16 = 256 has 9 bits
		for j := range bit {
			bit[j] = t.hInv.mul(elem{lo: 128 << j})
		}
		t.lenHInv[0] = t.hInv.mul(elem{hi: 128})
		for n := 1; n < len(t.lenHInv); n++ {
			t.lenHInv[n] = t.lenHInv[n&(n-1)].xor(bit[bits.TrailingZeros(uint(n))])
		}
		k.inv.Store(t)
	})
	return k.inv.Load()
}

// State is the running state of one GCM message. It holds only fixed-size
// value fields (no pointers, slices, strings, maps or interfaces), so it can
// be overlaid on raw memory and copied byte for byte; like any Go struct with
// uint64 fields it wants 8-byte alignment. The zero State means "no IV set".
// A State belongs to the Key it was started with.
type State struct {
	y      [16]byte // running GHASH value X, in the form given by flags: X·H^-1 (B form), X, or X·H
	j0     [16]byte // pre-counter block J0
	ekj0   [16]byte // E_K(J0), the tag mask
	ksLast [16]byte // E_K(inc32^d(J0)), d = completed data blocks; Seal's tag mask for the next piece
	ksPart [16]byte // keystream of the pending partial data block
	part   [16]byte // pending partial block: AAD, or ciphertext; zero beyond partLen
	base   [16]byte // crafted-nonce base J0hi·H^-2 ⊕ L_iv·H^-1, valid if flagBase
	tmp    [16]byte // scratch for counter blocks and nonces handed to crypto/cipher

	aadLen  uint64
	dataLen uint64
	partLen uint8
	phase   uint8
	flags   uint8
}

// StateSize is the size in bytes of a State.
const StateSize = int(unsafe.Sizeof(State{}))

const (
	phaseNone = iota // zero State: no IV
	phaseAAD         // IV set, no data yet
	phaseData        // data processed
	phaseDone        // tag produced
)

const (
	flagIV12  = 1 << iota // J0 = IV || 0^31 || 1, so the first piece can use the 12-byte AEAD
	flagBase              // base is valid
	flagFormX             // y holds X itself
	flagFormZ             // y holds X·H

	formB    = 0 // y holds X·H^-1, what Seal takes as additional data
	formX    = flagFormX
	formZ    = flagFormZ
	formMask = flagFormX | flagFormZ
)

// The running hash is normally kept in B form, which Seal takes as
// additional data. Getting there from Seal's tag needs H^-1, so a first data
// piece sealed with a 12-byte IV leaves the hash in X form or Z form instead.
// Absorbing one more block moves Z to X form and X to B form without any
// inverse, Tag finishes from any form (with one product fewer than from B
// form), and only a further Seal, which needs H^-1 for its crafted nonce
// anyway, converts explicitly (toB). So a message of one data piece, a TLS
// record, never needs the inverse.

// absorb returns the running value after the block c, given the value v in
// form f, and its new form.
func (k *Key) absorb(v elem, f uint8, c elem) (elem, uint8) {
	switch f {
	case formX:
		return v.xor(c), formB // (X⊕c)·H·H^-1
	case formZ:
		return v.xor(k.hTab.mul(c)), formX // (X⊕c)·H = X·H ⊕ c·H
	}
	if v.isZero() {
		return c, formB // common at the start of a message; saves a product
	}
	return k.hTab.mul(v).xor(c), formB
}

// toB puts s.y in B form. inv may be nil only when H = 0, where any value
// will do because the hash is identically zero.
func toB(s *State, inv *invKey) {
	f := s.flags & formMask
	if f == formB {
		return
	}
	var y elem
	if inv != nil {
		v := loadElem(s.y[:])
		if f == formX {
			y = inv.hInv.mul(v)
		} else {
			y = inv.hInv2.mul(v)
		}
	}
	storeElem(s.y[:], y)
	s.flags &^= formMask
}

// check validates k and s and the phase of s. It rejects a State whose
// fields are inconsistent, so that garbage memory yields an error rather
// than a panic or an out-of-range access.
func (k *Key) check(s *State) error {
	if k == nil || k.block == nil {
		return ErrNilKey
	}
	if s == nil {
		return errNilState
	}
	switch s.phase {
	case phaseNone:
		return ErrNoIV
	case phaseDone:
		return ErrFinished
	case phaseAAD:
		if s.dataLen != 0 || s.aadLen > MaxAADLen || uint64(s.partLen) != s.aadLen%16 || s.flags&formMask != 0 {
			return ErrBadState
		}
	case phaseData:
		if s.dataLen > MaxDataLen || s.aadLen > MaxAADLen || uint64(s.partLen) != s.dataLen%16 || s.flags&formMask == formMask {
			return ErrBadState
		}
	default:
		return ErrBadState
	}
	return nil
}

// Start begins a new message with the given IV, which may have any length of
// at least one byte; 12 bytes is the standard and fastest case. Any previous
// message in s is discarded.
func (k *Key) Start(s *State, iv []byte) error {
	if k == nil || k.block == nil {
		return ErrNilKey
	}
	if s == nil {
		return errNilState
	}
	if len(iv) == 0 || uint64(len(iv)) > MaxAADLen {
		return ErrIVSize
	}
	if overlapsState(s, iv) {
		return ErrStateOverlap // clearing s would change the IV
	}
	*s = State{}
	if len(iv) == 12 {
		copy(s.j0[:], iv)
		s.j0[15] = 1
		s.flags = flagIV12
	} else {
		// J0 = GHASH(IV || 0-pad || 0^64 || [8·len(IV)]_64).
		n := len(iv) &^ 15
		y := k.hash(elem{}, iv[:n])
		if n < len(iv) {
			var last [16]byte
			copy(last[:], iv[n:])
			y = k.hTab.mul(y).xor(loadElem(last[:]))
		}
		y = k.hTab.mul(y).xor(elem{lo: uint64(len(iv)) * 8})
		storeElem(s.j0[:], k.hTab.mul(y))
	}
	k.block.Encrypt(s.ekj0[:], s.j0[:])
	s.ksLast = s.ekj0
	s.phase = phaseAAD
	return nil
}

// AAD adds additional authenticated data. It may be called any number of
// times with any lengths, but not after data has been processed.
func (k *Key) AAD(s *State, aad []byte) error {
	if err := k.check(s); err != nil {
		return err
	}
	if s.phase != phaseAAD {
		return ErrAADAfterData
	}
	if len(aad) == 0 {
		return nil
	}
	if uint64(len(aad)) > MaxAADLen-s.aadLen {
		return ErrAADTooLong
	}
	if overlapsState(s, aad) {
		return ErrStateOverlap
	}
	s.aadLen += uint64(len(aad))
	if p := int(s.partLen); p > 0 {
		n := copy(s.part[p:], aad)
		aad = aad[n:]
		if p+n < 16 {
			s.partLen = uint8(p + n)
			return nil
		}
		y, _ := k.absorb(loadElem(s.y[:]), formB, loadElem(s.part[:]))
		storeElem(s.y[:], y)
		s.part = [16]byte{}
		s.partLen = 0
	}
	n := len(aad) &^ 15
	if n > 0 {
		storeElem(s.y[:], k.hash(loadElem(s.y[:]), aad[:n]))
	}
	s.partLen = uint8(copy(s.part[:], aad[n:]))
	return nil
}

// Encrypt encrypts src into dst, which must be at least as long as src;
// exactly len(src) bytes of dst are written. dst may be src itself; other
// overlaps are handled with a copy. It may be called any number of times
// with any lengths.
func (k *Key) Encrypt(s *State, dst, src []byte) error {
	return k.crypt(s, dst, src, false)
}

// Decrypt decrypts src into dst with the same rules as Encrypt. The hash
// runs over the ciphertext src, so Tag returns the tag that Encrypt of the
// recovered plaintext would have produced; comparing it with the received
// tag is the caller's business.
func (k *Key) Decrypt(s *State, dst, src []byte) error {
	return k.crypt(s, dst, src, true)
}

// Tag finishes the message and returns its full 16-byte tag. The message is
// then finished: AAD, Encrypt, Decrypt and Tag fail until the next Start.
func (k *Key) Tag(s *State) ([16]byte, error) {
	var tag [16]byte
	if err := k.check(s); err != nil {
		return tag, err
	}
	v, f := loadElem(s.y[:]), s.flags&formMask
	if s.partLen > 0 {
		// The pending AAD or ciphertext block, zero-padded.
		v, f = k.absorb(v, f, loadElem(s.part[:]))
	}
	// The tag is E_K(J0) ⊕ (X⊕L)·H, X being the hash over the padded AAD
	// and ciphertext and L the length block.
	l := elem{s.aadLen * 8, s.dataLen * 8}
	var t elem
	switch f {
	case formB:
		t = k.hTab.mul(k.hTab.mul(v).xor(l))
	case formX:
		t = k.hTab.mul(v.xor(l))
	default:
		t = v.xor(k.hTab.mul(l))
	}
	storeElem(tag[:], t.xor(loadElem(s.ekj0[:])))
	*s = State{phase: phaseDone}
	return tag, nil
}

func (k *Key) crypt(s *State, dst, src []byte, decrypt bool) error {
	if err := k.check(s); err != nil {
		return err
	}
	if len(dst) < len(src) {
		return ErrShortDst
	}
	if len(src) == 0 {
		return nil
	}
	if uint64(len(src)) > MaxDataLen-s.dataLen {
		return ErrDataTooLong
	}
	dst = dst[:len(src)]
	if &dst[0] != &src[0] && anyOverlap(dst, src) {
		// Seal and CTR accept only exact overlap; any other overlap
		// would also let early output clobber later input.
		src = append([]byte(nil), src...)
	}

	if overlapsState(s, dst) || overlapsState(s, src) {
		return ErrStateOverlap
	}

	if s.phase == phaseAAD {
		if s.partLen > 0 {
			y, _ := k.absorb(loadElem(s.y[:]), formB, loadElem(s.part[:]))
			storeElem(s.y[:], y)
			s.part = [16]byte{}
			s.partLen = 0
		}
		s.phase = phaseData
	}

	// Complete a pending partial block.
	if p := int(s.partLen); p > 0 {
		n := min(16-p, len(src))
		for i := range n {
			in := src[i]
			out := in ^ s.ksPart[p+i]
			dst[i] = out
			if decrypt {
				s.part[p+i] = in
			} else {
				s.part[p+i] = out
			}
		}
		s.dataLen += uint64(n)
		dst, src = dst[n:], src[n:]
		if p+n < 16 {
			s.partLen = uint8(p + n)
			return nil
		}
		y, f := k.absorb(loadElem(s.y[:]), s.flags&formMask, loadElem(s.part[:]))
		storeElem(s.y[:], y)
		s.flags = s.flags&^formMask | f
		s.ksLast = s.ksPart
		s.part = [16]byte{}
		s.partLen = 0
	}

	// Full blocks.
	if n := len(src) &^ 15; n > 0 {
		if decrypt {
			k.decryptBlocks(s, dst[:n], src[:n])
		} else {
			k.encryptBlocks(s, dst[:n], src[:n])
		}
		dst, src = dst[n:], src[n:]
	}

	// Start a trailing partial block.
	if len(src) > 0 {
		k.keystream(s, &s.ksPart, s.dataLen/16+1)
		for i := range src {
			in := src[i]
			out := in ^ s.ksPart[i]
			dst[i] = out
			if decrypt {
				s.part[i] = in
			} else {
				s.part[i] = out
			}
		}
		s.partLen = uint8(len(src))
		s.dataLen += uint64(len(src))
	}
	return nil
}

// keystream sets *ks = E_K(inc32^i(J0)), the keystream of data block i
// (counting from 1). Counter and output live in the State because slices
// passed through the cipher.Block interface escape: local arrays would be
// heap-allocated on every call.
func (k *Key) keystream(s *State, ks *[16]byte, i uint64) {
	s.tmp = s.j0
	binary.BigEndian.PutUint32(s.tmp[12:], binary.BigEndian.Uint32(s.j0[12:])+uint32(i))
	k.block.Encrypt(ks[:], s.tmp[:])
}

// encryptBlocks encrypts whole blocks; s has no partial block pending.
func (k *Key) encryptBlocks(s *State, dst, src []byte) {
	if len(src) >= sealMinBlocks*16 {
		d := s.dataLen / 16
		var (
			aead  cipher.AEAD
			nonce []byte
			inv   *invKey
		)
		if d == 0 && s.flags&flagIV12 != 0 {
			// Seal's own counter starts right, and the hash is in B
			// form (no data yet). Leave it in Z or X form (inv ==
			// nil): that needs no inverse, and if this is the only
			// piece, as in a TLS record, Tag is one product cheaper.
			aead, nonce = k.aead12, s.j0[:12]
		} else if inv = k.invTables(); inv != nil && inv.aead16 != nil {
			toB(s, inv)
			aead, nonce = inv.aead16, k.craftNonce(s, inv, d)
		}
		if aead != nil {
			if len(src) <= copyMaxBytes {
				k.sealCopy(s, inv, aead, nonce, dst, src)
			} else {
				k.sealHoldOut(s, inv, aead, nonce, dst, src)
			}
			return
		}
	}
	k.ctrBlocks(s, dst, src, false)
}

// ctrBlocks is both directions' block-at-a-time path: each block XORed
// with its keystream and the ciphertext (the output when encrypting, the
// input when decrypting) hashed.
func (k *Key) ctrBlocks(s *State, dst, src []byte, decrypt bool) {
	d := s.dataLen / 16
	y, f := loadElem(s.y[:]), s.flags&formMask
	for i := 0; i+16 <= len(src); i += 16 {
		d++
		k.keystream(s, &s.ksLast, d)
		in := loadElem(src[i:])
		c := in.xor(loadElem(s.ksLast[:]))
		storeElem(dst[i:], c)
		if decrypt {
			c = in
		}
		if f == formB {
			y = k.hTab.mul(y).xor(c)
		} else {
			y, f = k.absorb(y, f, c)
		}
	}
	storeElem(s.y[:], y)
	s.flags = s.flags&^formMask | f
	s.dataLen += uint64(len(src))
}

// sealCopy seals all of src into a scratch buffer and copies the
// ciphertext out. s.y is in B form. With G = (X⊕L')·H from the tag, the new
// value is X·H^-1 = G·H^-2 ⊕ L'·H^-1 in B form, or, without the inverse
// (inv == nil), X·H = G ⊕ L'·H in Z form.
func (k *Key) sealCopy(s *State, inv *invKey, aead cipher.AEAD, nonce, dst, src []byte) {
	n := len(src)
	buf := scratchPool.Get().(*scratch)
	aead.Seal(buf[:0:n+16], nonce, src, s.y[:])
	g := loadElem(buf[n:]).xor(loadElem(s.ksLast[:]))
	if inv != nil {
		storeElem(s.y[:], inv.hInv2.mul(g).xor(inv.lenHInv[n/16]))
	} else {
		storeElem(s.y[:], g.xor(k.hTab.mul(elem{128, uint64(n) * 8})))
		s.flags |= formZ
	}
	// The keystream of the last block, the next Seal's tag mask. src is
	// read before the copy, which overwrites it when dst == src.
	storeElem(s.ksLast[:], loadElem(buf[n-16:]).xor(loadElem(src[n-16:])))
	copy(dst, buf[:n])
	scratchPool.Put(buf)
	s.dataLen += uint64(n)
}

// sealHoldOut seals all of src but its last block t directly into dst, where
// the tag lands in t's place; t takes the block path. s.y is in B form.
// With G = (X'⊕L')·H, X' being the hash before t, the new value is
// Y = G·H^-1 ⊕ L' ⊕ t in B form, or, without the inverse (inv == nil),
// X = G ⊕ (L'⊕t)·H in X form.
func (k *Key) sealHoldOut(s *State, inv *invKey, aead cipher.AEAD, nonce, dst, src []byte) {
	sealLen := len(src) - 16
	var held [16]byte
	copy(held[:], src[sealLen:]) // Seal's tag overwrites it when dst == src
	// The capacity limit guarantees that Seal writes within dst.
	aead.Seal(dst[:0:sealLen+16], nonce, src[:sealLen], s.y[:])
	g := loadElem(dst[sealLen:]).xor(loadElem(s.ksLast[:]))
	l := elem{128, uint64(sealLen) * 8}
	k.keystream(s, &s.ksLast, (s.dataLen+uint64(len(src)))/16)
	t := loadElem(held[:]).xor(loadElem(s.ksLast[:]))
	storeElem(dst[sealLen:], t)
	if inv != nil {
		storeElem(s.y[:], inv.hInv.mul(g).xor(l).xor(t))
	} else {
		storeElem(s.y[:], g.xor(k.hTab.mul(l.xor(t))))
		s.flags |= formX
	}
	s.dataLen += uint64(len(src))
}

// craftNonce returns, in s.tmp, the 16-byte nonce N for which Seal's
// pre-counter block is inc32^d(J0), so that Seal encrypts data block d+1
// first and its tag mask is E_K(inc32^d(J0)) = s.ksLast.
func (k *Key) craftNonce(s *State, inv *invKey, d uint64) []byte {
	if s.flags&flagBase == 0 {
		j0hi := loadElem(s.j0[:])
		j0hi.lo &^= 0xffffffff
		storeElem(s.base[:], inv.hInv2.mul(j0hi).xor(inv.livHInv))
		s.flags |= flagBase
	}
	ctr := binary.BigEndian.Uint32(s.j0[12:]) + uint32(d)
	storeElem(s.tmp[:], loadElem(s.base[:]).xor(inv.ctrTab.mulLow32(ctr)))
	return s.tmp[:]
}

// decryptBlocks decrypts whole blocks; s has no partial block pending.
func (k *Key) decryptBlocks(s *State, dst, src []byte) {
	nb := len(src) / 16
	d := s.dataLen / 16
	if nb < decMinBlocks {
		k.ctrBlocks(s, dst, src, true)
		return
	}
	if s.flags&formMask != formB {
		toB(s, k.invTables()) // hashWith takes the B form
	}

	buf := scratchPool.Get().(*scratch)
	defer scratchPool.Put(buf)

	if len(src) <= copyMaxBytes {
		// Keystream from a Seal of the ciphertext (its output is the
		// plaintext; its tag, over the plaintext, is useless), into
		// scratch space beyond what hashWith uses. Unlike crypto/cipher's
		// CTR this allocates nothing.
		var (
			aead  cipher.AEAD
			nonce []byte
		)
		if d == 0 && s.flags&flagIV12 != 0 {
			aead, nonce = k.aead12, s.j0[:12]
		} else if inv := k.invTables(); inv != nil && inv.aead16 != nil {
			aead, nonce = inv.aead16, k.craftNonce(s, inv, d)
		}
		if aead != nil {
			n := len(src)
			storeElem(s.y[:], k.hashWith(loadElem(s.y[:]), src, buf))
			out := buf[copyMaxBytes+32 : copyMaxBytes+32+n+16]
			aead.Seal(out[:0], nonce, src, nil)
			storeElem(s.ksLast[:], loadElem(out[n-16:]).xor(loadElem(src[n-16:])))
			copy(dst, out[:n])
			s.dataLen += uint64(n)
			return
		}
	}

	var (
		stream    cipher.Stream
		untilWrap uint64 // blocks the stream may still produce before the low 32 bits wrap
		next      = d + 1
	)
	for len(src) > 0 {
		n := min(len(src), chunkSize)
		var last [16]byte
		copy(last[:], src[n-16:n])
		// Hash before the keystream pass: with dst == src the
		// ciphertext is gone afterwards.
		storeElem(s.y[:], k.hashWith(loadElem(s.y[:]), src[:n], buf))
		for off := 0; off < n; {
			if untilWrap == 0 {
				s.tmp = s.j0
				ctr := binary.BigEndian.Uint32(s.j0[12:]) + uint32(next)
				binary.BigEndian.PutUint32(s.tmp[12:], ctr)
				stream = cipher.NewCTR(k.block, s.tmp[:])
				untilWrap = 1<<32 - uint64(ctr)
			}
			m := n - off
			if uint64(m/16) > untilWrap {
				m = int(untilWrap) * 16
			}
			stream.XORKeyStream(dst[off:off+m], src[off:off+m])
			untilWrap -= uint64(m / 16)
			next += uint64(m / 16)
			off += m
		}
		// The keystream of the last block, the next Seal's tag mask.
		storeElem(s.ksLast[:], loadElem(dst[n-16:]).xor(loadElem(last[:])))
		dst, src = dst[n:], src[n:]
	}
	s.dataLen += uint64(nb) * 16
}

// scratch holds Y, up to chunkSize bytes of data and a 16-byte tag; or
// that for up to copyMaxBytes of data and then Seal output of up to
// copyMaxBytes+16 bytes.
type scratch [16 + chunkSize + 16]byte

// The layouts above must fit, and lenHInv's index must have at most the
// nine bits that invTables expects.
var (
	_ [len(scratch{}) - 2*(copyMaxBytes+32)]struct{}
	_ [512 - len(invKey{}.lenHInv)]struct{}
)

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// hash absorbs whole blocks into the B-form value y and returns the result.
func (k *Key) hash(y elem, data []byte) elem {
	if len(data) < hashMinBlocks*16 {
		for i := 0; i+16 <= len(data); i += 16 {
			y = k.hTab.mul(y).xor(loadElem(data[i:]))
		}
		return y
	}
	buf := scratchPool.Get().(*scratch)
	for len(data) > 0 {
		n := min(len(data), chunkSize)
		y = k.hashWith(y, data[:n], buf)
		data = data[n:]
	}
	scratchPool.Put(buf)
	return y
}

// hashWith absorbs up to chunkSize bytes of whole blocks into y. From three
// blocks on it uses Seal with an empty plaintext and additional data
// Y || blocks[:m-2] (the nonce is all zero, so the tag mask is the
// per-key constant mask0); the last two blocks are held out as in
// encryptBlocks so that no inverse is needed.
func (k *Key) hashWith(y elem, data []byte, buf *scratch) elem {
	m := len(data) / 16
	if m < 3 || len(data) > chunkSize {
		for i := 0; i+16 <= len(data); i += 16 {
			y = k.hTab.mul(y).xor(loadElem(data[i:]))
		}
		return y
	}
	aadLen := 16 + (m-2)*16
	storeElem(buf[:16], y)
	copy(buf[16:aadLen], data)
	tag := buf[aadLen : aadLen+16 : aadLen+16]
	k.aead12.Seal(tag[:0], k.zero12[:], nil, buf[:aadLen])
	g := loadElem(tag).xor(loadElem(k.mask0[:]))
	l := elem{uint64(aadLen) * 8, 0}
	t1 := loadElem(data[(m-2)*16:])
	t2 := loadElem(data[(m-1)*16:])
	return g.xor(k.hTab.mul(l.xor(t1))).xor(t2)
}

// anyOverlap reports whether x and y share memory.
func anyOverlap(x, y []byte) bool {
	return len(x) > 0 && len(y) > 0 &&
		uintptr(unsafe.Pointer(&x[0])) <= uintptr(unsafe.Pointer(&y[len(y)-1])) &&
		uintptr(unsafe.Pointer(&y[0])) <= uintptr(unsafe.Pointer(&x[len(x)-1]))
}

// overlapsState reports whether b shares memory with *s: the State's own
// fields are handed to crypto/cipher next to b, and Seal panics on some such
// overlaps.
func overlapsState(s *State, b []byte) bool {
	p, q := uintptr(unsafe.Pointer(s)), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return len(b) > 0 && q < p+unsafe.Sizeof(*s) && p < q+uintptr(len(b))
}
