// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/rand"
	"encoding/binary"
	"unsafe"

	"cptprov/cptdrv"
)

const (
	gcmDefaultIVLen = 12
	gcmMaxIVLen     = 128
)

// IV states, as in OpenSSL's GCM implementation: the IV may be set once per
// message; after the tag it is finished until a new one is set.
const (
	ivUninit uint8 = iota
	ivBuffered
	ivCopied
	ivFinished
)

// gcmCtx is an AES-GCM operation context: the shared AEAD core plus GCM's
// IV rules. Overlaid on C memory: plain values only.
type gcmCtx struct {
	aeadCore
	ivLen   uint32 // 0 means the default 12
	ivState uint8
	ivGen   bool // TLS 1.2: IV fixed part set, explicit part generated or received
	// ivRand: the context drew (part of) an IV itself, for an encryption
	// without one or a TLS fixed IV; for the life of the context, as
	// OpenSSL's "iv-generated".
	ivRand bool
	iv     [gcmMaxIVLen]byte
}

// gcm is AES-GCM: the AEAD skeleton (aeadCore) with GCM's IV handling.
type gcm struct{ aeadAlg }

func newGCM(id int, name string, keyLen int) gcm {
	return gcm{aeadAlg{id: id, name: name, keyLen: keyLen, device: cptdrv.CipherAESGCM}}
}

func (g gcm) StateSize() uintptr { return unsafe.Sizeof(gcmCtx{}) }

func (c *gcmCtx) setIVLen(n int) {
	c.ivLen = uint32(n)
	c.sh.IVLen = uint64(n)
}

func (c *gcmCtx) sync() {
	if c.aeadCore.sync() {
		c.ivState = ivFinished
	}
}

func (c *gcmCtx) ivLength() int {
	if c.ivLen == 0 {
		return gcmDefaultIVLen
	}
	return int(c.ivLen)
}

func (g gcm) Init(env *Env, st unsafe.Pointer, enc bool, key []byte, keySet bool, iv []byte, ivSet bool, params Params) *Error {
	c := (*gcmCtx)(st)
	// The C side's CPU path may have run a whole message with this IV.
	used := c.sh.FinalDone == finalDoneIVUsed
	c.sync()
	c.setEnc(enc)
	if ivSet {
		if len(iv) == 0 || len(iv) > gcmMaxIVLen {
			return errorf(ReasonInvalidIVLength, "invalid IV length %d (1 to %d bytes)", len(iv), gcmMaxIVLen)
		}
		c.setIVLen(len(iv))
		copy(c.iv[:], iv)
		c.ivState = ivBuffered
		if used {
			c.ivState = ivFinished
		}
	}
	if keySet {
		if err := c.setKey(env, g.aeadAlg, key); err != nil {
			return err
		}
	}
	return g.SetCtxParams(env, st, params)
}

// prepare applies OpenSSL's IV rules before any instruction of a message.
func (c *gcmCtx) prepare() *Error {
	if !c.keySet {
		return errorf(ReasonMissingKey, "no key set")
	}
	if c.ivState == ivFinished {
		return errorf(ReasonMissingIV, "no IV set for this message (the previous one is finished)")
	}
	if c.ivState == ivUninit {
		// OpenSSL generates a random IV for an encryption without one.
		if !c.enc || c.ivLength() < gcmDefaultIVLen {
			return errorf(ReasonMissingIV, "no IV set")
		}
		if _, err := rand.Read(c.iv[:c.ivLength()]); err != nil {
			return errorf(ReasonOperationFailed, "generating an IV: %v", err)
		}
		c.ivState = ivBuffered
		c.ivRand = true
	}
	if c.ivState == ivBuffered {
		n := c.ivLength()
		copy(c.dev.IV[:], c.iv[:n])
		c.dev.IVLen = uint32(n)
		c.startMessage()
		c.ivState = ivCopied
	}
	return nil
}

func (g gcm) Update(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c := (*gcmCtx)(st)
	c.sync()
	if c.tlsAADSet {
		return g.tlsRecord(env, c, out, outsize, in, inl, w)
	}
	if inl == 0 {
		return 0, false, nil
	}
	if err := c.prepare(); err != nil {
		return 0, false, err
	}
	return c.update(env, g.aeadAlg, out, outsize, in, inl, w)
}

func (g gcm) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	c := (*gcmCtx)(st)
	c.sync()
	if c.tlsAADSet {
		return 0, false, errorf(ReasonWrongState, "final after a TLS AAD without the record")
	}
	if err := c.prepare(); err != nil {
		return 0, false, err
	}
	if !c.enc && c.sh.TagLen == 0 {
		return 0, false, errorf(ReasonInvalidTag, "no tag set before final of a decryption")
	}
	c.ivState = ivFinished // never reuse the IV, whatever the outcome
	return c.final(env, g.aeadAlg, w)
}

// tlsRecord seals or opens one TLS 1.2 record in place:
// [8-byte explicit nonce | payload | 16-byte tag] (RFC 5288).
func (g gcm) tlsRecord(env *Env, c *gcmCtx, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c.tlsAADSet = false
	c.ivState = ivFinished
	if !c.keySet {
		return 0, false, errorf(ReasonMissingKey, "no key set")
	}
	if out != in || inl < tlsExplicitIVLen+aeadTagLen {
		return 0, false, errorf(ReasonOperationFailed, "a TLS record must be processed in place and hold at least %d bytes", tlsExplicitIVLen+aeadTagLen)
	}
	if outsize < inl {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, inl)
	}
	if !c.ivGen || c.ivLength() != gcmDefaultIVLen {
		return 0, false, errorf(ReasonMissingIV, "TLS record without a fixed IV")
	}
	rec := unsafe.Slice((*byte)(in), inl)
	n := c.ivLength()
	if c.enc {
		c.tlsEncRecords++
		if c.tlsEncRecords == 0 {
			return 0, false, errorf(ReasonTooManyRecords, "too many records with one key")
		}
		copy(rec[:tlsExplicitIVLen], c.iv[n-tlsExplicitIVLen:n])
	} else {
		copy(c.iv[n-tlsExplicitIVLen:n], rec[:tlsExplicitIVLen])
	}
	copy(c.dev.IV[:], c.iv[:n])
	c.dev.IVLen = uint32(n)
	if c.enc {
		incrementCounter64(c.iv[n-8 : n])
	}
	return c.tlsRecord(env, g.aeadAlg, tlsExplicitIVLen, in, in, inl, w)
}

// equalKeys compares two keys of the same length (a multiple of 8) in time
// that depends only on the length.
func equalKeys(a, b []byte) bool {
	var d uint64
	for i := 0; i+8 <= len(a); i += 8 {
		d |= binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
	}
	return d == 0
}

func incrementCounter64(b []byte) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return
		}
	}
}

func (g gcm) GetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*gcmCtx)(st)
	c.sync()
	return params.Walk(func(name string, p *Param) (err *Error) {
		if done, e := c.getParam(g.aeadAlg, name, p); done {
			err = e
			return err
		}
		switch name {
		case "ivlen":
			err = setUint(p, name, uint64(c.ivLength()))
		case "taglen":
			t := uint64(c.sh.TagLen)
			if t == 0 {
				t = aeadTagLen
			}
			err = setUint(p, name, t)
		case "iv", "updated-iv":
			if c.ivState == ivUninit {
				err = errorf(ReasonMissingIV, "no IV set")
			} else if p.DataType == TypeOctet && int(p.DataSize) < c.ivLength() && p.Data != nil {
				err = errorf(ReasonInvalidIVLength, "buffer of %d bytes too small for the %d-byte IV", p.DataSize, c.ivLength())
			} else if !p.SetOctets(c.iv[:c.ivLength()]) {
				err = errorf(ReasonBadParameter, "parameter %q must be an octet string", name)
			}
		case "tlsivgen":
			err = c.ivGenerate(p)
		case "iv-generated":
			// Unknown to OpenSSL before 3.4, whose GCM ignores it then.
			if env.openSSLAtLeast(3, 4) {
				v := uint64(0)
				if c.ivRand {
					v = 1
				}
				err = setUint(p, name, v)
			}
		}
		return err
	})
}

// ivGenerate hands out the explicit part of the next TLS IV (tlsivgen).
func (c *gcmCtx) ivGenerate(p *Param) *Error {
	if p.DataType != TypeOctet || p.Data == nil || !c.ivGen || !c.keySet {
		return errorf(ReasonBadParameter, "tlsivgen needs an octet buffer and a TLS fixed IV")
	}
	n := c.ivLength()
	olen := int(p.DataSize)
	if olen == 0 || olen > n {
		olen = n
	}
	copy(unsafe.Slice((*byte)(p.Data), olen), c.iv[n-olen:n])
	p.ReturnSize = uintptr(olen)
	c.ivState = ivBuffered
	c.prepare()
	incrementCounter64(c.iv[n-8 : n])
	return nil
}

func setUint(p *Param, name string, v uint64) *Error {
	if !p.SetUint64(v) {
		return errorf(ReasonBadParameter, "parameter %q: cannot store %d (type %d, %d bytes)", name, v, p.DataType, p.DataSize)
	}
	return nil
}

func (g gcm) SetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*gcmCtx)(st)
	c.sync()
	return params.Walk(func(name string, p *Param) (err *Error) {
		if done, e := c.setParam(g.aeadAlg, name, p); done {
			err = e
			return err
		}
		switch name {
		case "ivlen":
			v, ok := p.Uint64()
			switch {
			case !ok:
				err = errorf(ReasonBadParameter, "parameter \"ivlen\" must be an integer")
			case v == 0 || v > gcmMaxIVLen:
				err = errorf(ReasonInvalidIVLength, "invalid IV length %d (1 to %d bytes)", v, gcmMaxIVLen)
			case int(v) != c.ivLength():
				if c.ivState != ivUninit {
					c.ivState = ivFinished
				}
				c.setIVLen(int(v))
			}
		case "tlsaad":
			v, ok := p.Octets()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"tlsaad\" must be an octet string")
			} else {
				err = c.setTLSAAD(v, tlsExplicitIVLen)
			}
		case "tlsivfixed":
			if p.DataType != TypeOctet || p.Data == nil {
				err = errorf(ReasonBadParameter, "parameter \"tlsivfixed\" must be an octet string")
			} else {
				err = c.setIVFixed(p)
			}
		case "tlsivinv":
			v, ok := p.Octets()
			n := c.ivLength()
			if !ok || p.Data == nil || !c.ivGen || !c.keySet || c.enc || len(v) > n {
				err = errorf(ReasonBadParameter, "tlsivinv needs an octet string, a TLS fixed IV and a decryption")
			} else {
				copy(c.iv[n-len(v):n], v)
				c.ivState = ivBuffered
				c.prepare()
			}
		}
		return err
	})
}

// setIVFixed takes the fixed part of the TLS 1.2 IV (or, with the special
// length -1, the whole IV) and, when sealing, draws the explicit part.
func (c *gcmCtx) setIVFixed(p *Param) *Error {
	n := c.ivLength()
	if p.DataSize == ^uintptr(0) {
		copy(c.iv[:n], unsafe.Slice((*byte)(p.Data), n))
	} else {
		v, _ := p.Octets()
		if len(v) < tlsFixedIVLen || n-len(v) < tlsExplicitIVLen {
			return errorf(ReasonInvalidIVLength, "TLS fixed IV of %d bytes for a %d-byte IV", len(v), n)
		}
		copy(c.iv[:], v)
		if c.enc {
			if _, err := rand.Read(c.iv[len(v):n]); err != nil {
				return errorf(ReasonOperationFailed, "generating an IV: %v", err)
			}
			c.ivRand = true
		}
	}
	c.ivGen = true
	c.ivState = ivBuffered
	return nil
}

func (g gcm) Dup(env *Env, st unsafe.Pointer)  { (*gcmCtx)(st).dup(env) }
func (g gcm) Free(env *Env, st unsafe.Pointer) { (*gcmCtx)(st).free(env) }
