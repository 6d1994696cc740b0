// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/internal/tlsrec"
)

const tls11Version = tls1Version + 1

// stitched is the EVP semantics of OpenSSL's AES-CBC-HMAC-SHA ciphers.
// Without a TLS AAD it is AES-CBC over whole blocks, EVP_Cipher style (the
// embedded blockCipher, which also keeps the key, the IVs and the stream
// hand-over with the C side's CPU path). After "tlsaad" the next update is
// one TLS record, sealed or opened in place by one chained instruction
// (cptdrv.CipherAESCBCHMAC): the device MACs, pads and encrypts, or
// decrypts and checks padding and MAC in constant time.
type stitched struct {
	blockCipher
	hash   *tlsrec.Hash
	hashID uint16
}

// newStitched makes a stitched cipher of the list, its HMAC over the
// row's digest.
func newStitched(r cipherRow) stitched {
	h := tlsrec.SHA1
	if r.digest == MDSHA256 {
		h = tlsrec.SHA256
	}
	return stitched{
		blockCipher: blockCipher{id: r.id, name: r.name, keyLen: r.keyLen, block: 16, device: cptdrv.CipherAESCBC, padded: true},
		hash:        h, hashID: uint16(r.digest),
	}
}

// stitchedCtx is a stitched cipher's context, overlaid on C memory; the
// blockCtx comes first, so that blockCipher's methods work on it.
type stitchedCtx struct {
	blk      blockCtx
	auth     cptdrv.AuthContext // the MAC key (as chaining values) and the record's header
	macKey   bool
	aadSet   bool   // the next update is a record
	explicit bool   // the record has an explicit IV (the AAD's version is TLS 1.1 or later)
	payload  uint32 // sealing: bytes of explicit IV and payload the AAD announced
	aadPad   uint32 // "tlsaadpad"
}

func (s stitched) StateSize() uintptr { return unsafe.Sizeof(stitchedCtx{}) }

// Init keys the cipher as blockCipher does. A new key forgets the MAC key,
// as the default provider's does: libssl sets the MAC key after the key.
func (s stitched) Init(env *Env, st unsafe.Pointer, enc bool, key []byte, keySet bool, iv []byte, ivSet bool, params Params) *Error {
	c := (*stitchedCtx)(st)
	if err := s.blockCipher.Init(env, st, enc, key, keySet, iv, ivSet, Params{}); err != nil {
		return err
	}
	c.aadSet = false
	if keySet {
		c.macKey = false
		c.auth = cptdrv.AuthContext{}
	}
	return s.SetCtxParams(env, st, params)
}

func (s stitched) SetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*stitchedCtx)(st)
	err := params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "mackey":
			v, ok := p.Octets()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"mackey\" must be an octet string")
				break
			}
			// The driver's share of HMAC: K0 and the pad blocks hashed
			// once per key, the device resuming from those states.
			inner, outer := s.hash.HMACKey(v)
			copy(c.auth.Inner[:], inner)
			copy(c.auth.Outer[:], outer)
			clear(inner)
			clear(outer)
			c.auth.Hash, c.macKey = s.hashID, true
		case "tlsaad":
			v, ok := p.Octets()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"tlsaad\" must be an octet string")
				break
			}
			err = s.setTLSAAD(c, v)
		}
		return err
	})
	if err != nil {
		return err
	}
	return s.blockCipher.SetCtxParams(env, st, params)
}

// setTLSAAD takes the record's MAC header (sequence number, type, version,
// length) as OpenSSL's stitched ciphers do: when sealing, the length
// includes the explicit IV (TLS 1.1 on), which the MAC does not cover, and
// "tlsaadpad" is what the record grows by (MAC and padding); when opening,
// the length is set by the device from the padding, and "tlsaadpad" is the
// MAC's size.
func (s stitched) setTLSAAD(c *stitchedCtx, aad []byte) *Error {
	if len(aad) != tlsAADLen {
		return errorf(ReasonInvalidAAD, "TLS AAD of %d bytes (must be %d)", len(aad), tlsAADLen)
	}
	n := int(aad[11])<<8 | int(aad[12])
	c.explicit = int(aad[9])<<8|int(aad[10]) >= tls11Version
	copy(c.auth.Hdr[:], aad)
	c.auth.HdrLen = tlsAADLen
	size := s.hash.Size
	if c.blk.enc {
		c.payload = uint32(n)
		if c.explicit {
			if n < s.block {
				return errorf(ReasonInvalidAAD, "TLS record of %d bytes has no room for its explicit IV", n)
			}
			n -= s.block
			c.auth.Hdr[11], c.auth.Hdr[12] = byte(n>>8), byte(n)
		}
		c.aadPad = uint32((n+size+s.block)&^(s.block-1) - n)
	} else {
		c.aadPad = uint32(size)
	}
	c.aadSet = true
	return nil
}

func (s stitched) GetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*stitchedCtx)(st)
	if p := params.Locate("tlsaadpad"); p != nil {
		if err := setUint(p, "tlsaadpad", uint64(c.aadPad)); err != nil {
			return err
		}
	}
	return s.blockCipher.GetCtxParams(env, st, params)
}

// Update processes a record after "tlsaad" (an opened record's output
// length without explicit IV, MAC and padding once libssl has set
// "tls-version"), otherwise whole blocks of plain CBC.
func (s stitched) Update(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c := (*stitchedCtx)(st)
	if c.aadSet {
		return s.record(env, c, out, outsize, in, inl, w, true)
	}
	return s.blockCipher.OneShot(env, st, out, outsize, in, inl, w)
}

// OneShot is EVP_Cipher(): the same, the output length always the input's.
func (s stitched) OneShot(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c := (*stitchedCtx)(st)
	if c.aadSet {
		return s.record(env, c, out, outsize, in, inl, w, false)
	}
	return s.blockCipher.OneShot(env, st, out, outsize, in, inl, w)
}

// Final has nothing to do: every update is complete.
func (s stitched) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	if !(*stitchedCtx)(st).blk.keySet {
		return 0, false, errorf(ReasonMissingKey, "no key set")
	}
	return 0, false, nil
}

// recordDone is the finisher of a record instruction.
type recordDone struct {
	enc   bool
	inl   int
	strip int // opening with "tls-version": bytes before the payload that libssl skips itself, else -1
}

func (r recordDone) finish(res cptdrv.Result) (int, *Error) {
	if r.enc || r.strip < 0 {
		return r.inl, nil
	}
	// The payload length, counted from where libssl reads it.
	return int(res.RLen) + r.strip, nil
}

// record seals or opens one TLS record with a chained instruction.
func (s stitched) record(env *Env, c *stitchedCtx, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter, lengths bool) (int, bool, *Error) {
	c.aadSet = false // one record per AAD, whatever happens to it
	size := s.hash.Size
	ivOff, flags := 0, cptdrv.FlagTLSRecord
	if c.explicit {
		ivOff, flags = s.block, flags|cptdrv.FlagExplicitIV
	}
	switch {
	case !c.blk.keySet:
		return 0, false, errorf(ReasonMissingKey, "no key set")
	case !c.macKey:
		return 0, false, errorf(ReasonMissingKey, "no MAC key set")
	case in == nil || out == nil:
		return 0, false, errorf(ReasonOperationFailed, "a TLS record needs input and output")
	case outsize < inl:
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, inl)
	case uint64(inl) > 1<<32-1:
		return 0, false, errorf(ReasonOperationFailed, "TLS record of %d bytes", inl)
	}
	minor, dlen := uint8(cptdrv.MinorDec), inl
	done := recordDone{enc: c.blk.enc, inl: inl, strip: -1}
	if c.blk.enc {
		minor, dlen = cptdrv.MinorEnc, int(c.payload)
		if want := (dlen + size + s.block) &^ (s.block - 1); inl != want {
			return 0, false, errorf(ReasonOperationFailed, "TLS record of %d bytes: a %d-byte payload, MAC and padding take %d", inl, dlen, want)
		}
	} else {
		if inl%s.block != 0 || inl < ivOff+size+1 {
			return 0, false, errorf(ReasonOperationFailed, "TLS record of %d bytes cannot hold its IV, a %d-byte MAC and padding", inl, size)
		}
		if lengths && c.blk.tlsVersion != 0 {
			// As OpenSSL: the explicit IV is removed from the length
			// unless "tls-version" says TLS 1.0 or SSL 3.
			done.strip = ivOff
			if c.blk.tlsVersion != ssl3Version && c.blk.tlsVersion != tls1Version {
				done.strip -= s.block
			}
			if done.strip < 0 {
				return 0, false, errorf(ReasonOperationFailed, "TLS record without an explicit IV for version %#x", c.blk.tlsVersion)
			}
		}
	}
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorFC, minor),
		Param1: cptdrv.CipherAESCBCHMAC,
		Param2: flags,
		CPtr:   uintptr(unsafe.Pointer(&c.blk.dev)),
		APtr:   uintptr(unsafe.Pointer(&c.auth)),
		DPtr:   uintptr(in), DLen: uint32(dlen),
		RPtr: uintptr(out), RLen: uint32(inl),
	}
	return run(env.SE, s.counters(env), &inst, w, done)
}

func (s stitched) Free(env *Env, st unsafe.Pointer) {
	s.blockCipher.Free(env, st)
	(*stitchedCtx)(st).auth = cptdrv.AuthContext{}
}
