// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
)

const chachaPolyIVLen = 12

// chachaPolyCtx is a ChaCha20-Poly1305 operation context: the shared AEAD
// core plus the nonce rules of OpenSSL's implementation, where a message
// may reuse the nonce of the previous one and TLS 1.2 XORs the record's
// sequence number into a fixed nonce (RFC 7905). Overlaid on C memory.
type chachaPolyCtx struct {
	aeadCore
	nonce   [chachaPolyIVLen]byte // the IV set, or the TLS fixed IV
	msgOpen bool                  // a message has started on the device
	lost    bool                  // its device state could not be cloned
}

// chachaPoly is ChaCha20-Poly1305: the AEAD skeleton with ChaCha's nonces.
// Its engine verifies decryptions itself.
type chachaPoly struct{ aeadAlg }

func newChaChaPoly(id int, name string, keyLen int) chachaPoly {
	return chachaPoly{aeadAlg{id: id, name: name, keyLen: keyLen, device: cptdrv.CipherChaChaPoly, deviceVerifies: true, peekFirst: true}}
}

func (x chachaPoly) StateSize() uintptr { return unsafe.Sizeof(chachaPolyCtx{}) }

func (c *chachaPolyCtx) sync() {
	if c.aeadCore.sync() {
		c.msgOpen = false
	}
}

func (x chachaPoly) Init(env *Env, st unsafe.Pointer, enc bool, key []byte, keySet bool, iv []byte, ivSet bool, params Params) *Error {
	c := (*chachaPolyCtx)(st)
	c.sync()
	c.setEnc(enc)
	c.sh.IVLen = chachaPolyIVLen
	// Any init starts a new message, with the nonce set last.
	c.msgOpen, c.tlsAADSet, c.lost = false, false, false
	if ivSet {
		if len(iv) != chachaPolyIVLen {
			return errorf(ReasonInvalidIVLength, "invalid IV length %d (need %d)", len(iv), chachaPolyIVLen)
		}
		copy(c.nonce[:], iv)
	}
	if keySet {
		if err := c.setKey(env, x.aeadAlg, key); err != nil {
			return err
		}
	}
	return x.SetCtxParams(env, st, params)
}

// prepare starts a message on the device if none is open.
func (c *chachaPolyCtx) prepare() *Error {
	if !c.keySet {
		return errorf(ReasonMissingKey, "no key set")
	}
	if c.lost {
		return errorf(ReasonOperationFailed, "the device could not copy this context's message; start a new one")
	}
	if !c.msgOpen {
		copy(c.dev.IV[:], c.nonce[:])
		c.dev.IVLen = chachaPolyIVLen
		c.startMessage()
		c.msgOpen = true
	}
	return nil
}

func (x chachaPoly) Update(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c := (*chachaPolyCtx)(st)
	c.sync()
	if c.tlsAADSet && out != nil {
		return x.tlsRecord(env, c, out, outsize, in, inl, w)
	}
	if inl == 0 {
		return 0, false, nil
	}
	if err := c.prepare(); err != nil {
		return 0, false, err
	}
	return c.update(env, x.aeadAlg, out, outsize, in, inl, w)
}

func (x chachaPoly) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	c := (*chachaPolyCtx)(st)
	c.sync()
	if c.tlsAADSet {
		return 0, false, errorf(ReasonWrongState, "final after a TLS AAD without the record")
	}
	if err := c.prepare(); err != nil {
		return 0, false, err
	}
	c.msgOpen = false // the next message starts over, with the same nonce
	return c.final(env, x.aeadAlg, w)
}

// tlsRecord seals or opens one TLS 1.2 record, [payload | 16-byte tag],
// with the fixed nonce XORed with the sequence number at the start of the
// AAD (RFC 7905).
func (x chachaPoly) tlsRecord(env *Env, c *chachaPolyCtx, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c.tlsAADSet = false
	c.msgOpen = false
	plen := c.tlsPayload()
	switch {
	case !c.keySet:
		return 0, false, errorf(ReasonMissingKey, "no key set")
	case inl != plen+aeadTagLen:
		return 0, false, errorf(ReasonOperationFailed, "TLS record of %d bytes, the AAD announced %d", inl, plen+aeadTagLen)
	case outsize < inl:
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, inl)
	}
	if c.enc {
		c.tlsEncRecords++
		if c.tlsEncRecords == 0 {
			return 0, false, errorf(ReasonTooManyRecords, "too many records with one key")
		}
	}
	copy(c.dev.IV[:], c.nonce[:])
	for i := 0; i < 8; i++ {
		c.dev.IV[4+i] ^= c.tlsAAD[i]
	}
	c.dev.IVLen = chachaPolyIVLen
	return c.tlsRecord(env, x.aeadAlg, 0, out, in, inl, w)
}

func (x chachaPoly) GetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*chachaPolyCtx)(st)
	c.sync()
	return params.Walk(func(name string, p *Param) (err *Error) {
		if done, e := c.getParam(x.aeadAlg, name, p); done {
			err = e
			return err
		}
		switch name {
		case "ivlen":
			err = setUint(p, name, chachaPolyIVLen)
		case "taglen":
			err = setUint(p, name, uint64(c.sh.TagLen))
		}
		return err
	})
}

func (x chachaPoly) SetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*chachaPolyCtx)(st)
	c.sync()
	return params.Walk(func(name string, p *Param) (err *Error) {
		if done, e := c.setParam(x.aeadAlg, name, p); done {
			err = e
			return err
		}
		switch name {
		case "ivlen":
			if v, ok := p.Uint64(); !ok || v != chachaPolyIVLen {
				err = errorf(ReasonInvalidIVLength, "%s takes %d-byte IVs", x.name, chachaPolyIVLen)
			}
		case "tlsaad":
			v, ok := p.Octets()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"tlsaad\" must be an octet string")
			} else {
				err = c.setTLSAAD(v, 0)
			}
		case "tlsivfixed":
			v, ok := p.Octets()
			if !ok || len(v) != chachaPolyIVLen {
				err = errorf(ReasonInvalidIVLength, "TLS fixed IV of %d bytes (need %d)", len(v), chachaPolyIVLen)
			} else {
				copy(c.nonce[:], v)
				c.msgOpen = false
			}
		}
		return err
	})
}

// Dup gives a byte copy of a context its own device state: the engine
// keeps the running message in device memory (cptdrv.MinorCtxClone).
func (x chachaPoly) Dup(env *Env, st unsafe.Pointer) {
	c := (*chachaPolyCtx)(st)
	c.dup(env)
	x.manage(env, c, cptdrv.MinorCtxClone)
}

// Free releases the engine's state of the context (cptdrv.MinorCtxFlush).
func (x chachaPoly) Free(env *Env, st unsafe.Pointer) {
	c := (*chachaPolyCtx)(st)
	c.free(env)
	x.manage(env, c, cptdrv.MinorCtxFlush)
}

func (x chachaPoly) manage(env *Env, c *chachaPolyCtx, minor uint8) {
	if env.SE == nil {
		return
	}
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorFC, minor),
		Param1: x.device,
		CPtr:   uintptr(unsafe.Pointer(&c.dev)),
	}
	if res, err := env.SE.Do(&inst); err != nil || res.CompCode != cptdrv.CompGood || res.UCCode != cptdrv.UCSuccess {
		// A message in progress is lost; the next one starts afresh.
		c.lost = c.msgOpen
	}
}
