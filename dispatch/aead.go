// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/subtle"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/stats"
)

// Lengths fixed by the AEADs and by TLS 1.2's use of them (RFC 5288, RFC
// 7905).
const (
	aeadTagLen       = 16
	tlsAADLen        = 13
	tlsFixedIVLen    = 4
	tlsExplicitIVLen = 8
)

// aeadCore is the part of an AEAD operation context that GCM and
// ChaCha20-Poly1305 share: the C-visible shadow, the device context, and
// the flow of a message (AAD, data, final, TLS records). It is overlaid on
// C memory, so plain values only; sh must stay the first field.
type aeadCore struct {
	sh            AEADShadow
	dev           cptdrv.CipherContext
	enc           bool
	keySet        bool
	dataSeen      bool // data processed in this message: no more AAD
	startPending  bool // the next instruction must carry FlagStart
	tlsAADSet     bool
	tlsAAD        [tlsAADLen]byte
	tlsVersion    uint32
	tlsMacSize    uint64
	tlsEncRecords uint64
}

// aeadAlg names an AEAD and says what its device does.
type aeadAlg struct {
	id     int
	name   string
	keyLen int
	device uint16 // cptdrv.Cipher*
	// deviceVerifies: a decryption's final hands the expected tag to the
	// engine, which cannot reveal the computed one (ChaCha20-Poly1305 on
	// libcrypto); otherwise the tag comes back and is compared here.
	deviceVerifies bool
	// peekFirst: the running tag (which lets final finish without a call)
	// costs the engine a copy of the stream, so it is asked for only on a
	// message's first data, the one a TLS 1.3 record has.
	peekFirst bool
}

func (a aeadAlg) Name() string                 { return a.name }
func (a aeadAlg) counters(env *Env) *stats.Alg { return env.algCounters(a.id, a.name) }

func (c *aeadCore) setEnc(enc bool) {
	c.enc = enc
	c.sh.Enc = 0
	if enc {
		c.sh.Enc = 1
	}
}

// startMessage makes the next instruction begin a message with the IV the
// mode has put in the device context.
func (c *aeadCore) startMessage() {
	c.dev.AADLen = 0
	c.startPending = true
	c.dataSeen = false
}

// sync runs first in every call: it finishes the bookkeeping of a final the
// C side completed (reporting it), and withdraws the C side's licence to
// finish the message, which only a data update grants again.
func (c *aeadCore) sync() (finalDone bool) {
	if c.sh.FinalDone != 0 {
		c.sh.FinalDone = 0
		c.dev.TagValid = 0
		finalDone = true
	}
	c.sh.FinalReady = 0
	return finalDone
}

// setKey checks and installs a key.
func (c *aeadCore) setKey(env *Env, a aeadAlg, key []byte) *Error {
	if len(key) != a.keyLen {
		return errorf(ReasonInvalidKeyLength, "invalid key length %d for %s (need %d)", len(key), a.name, a.keyLen)
	}
	installKey(env, &c.dev, c.keySet, key)
	c.keySet = true
	c.tlsEncRecords = 0
	return nil
}

// instruction builds an FC instruction for this context carrying whatever
// the message still owes the device (start, buffered AAD).
func (c *aeadCore) instruction(a aeadAlg, flags uint16) cptdrv.Instruction {
	if c.dev.AADLen > 0 {
		flags |= cptdrv.FlagCtxAAD
	}
	return fcInstruction(a.device, &c.dev, c.enc, &c.startPending, flags)
}

// after says what an operation does with a successful completion.
type after struct {
	kind     uint8 // afterNone, afterData, afterFinal, afterTLS
	enc      bool
	verified bool // afterFinal: the device checked the tag
	n, n2    int
	ctx      *aeadCore
}

const (
	afterNone  uint8 = iota
	afterData        // output length is the result's RLen
	afterFinal       // keep (encrypt) or verify (decrypt) the tag
	afterTLS         // output length n (sealed) or n2 (opened)
)

func (a after) finish(res cptdrv.Result) (int, *Error) {
	switch a.kind {
	case afterData:
		if c := a.ctx; c != nil && c.dev.TagValid != 0 {
			// The message's tag so far: a final right now needs no call.
			c.sh.RunTag = c.dev.Tag
			c.sh.FinalReady = 1
		}
		return int(res.RLen), nil
	case afterFinal:
		c := a.ctx
		if c.enc {
			c.sh.Tag = c.dev.Tag
			c.sh.TagLen = aeadTagLen
			return 0, nil
		}
		if a.verified {
			return 0, nil
		}
		ok := subtle.ConstantTimeCompare(c.dev.Tag[:c.sh.TagLen], c.sh.Tag[:c.sh.TagLen]) == 1
		clear(c.dev.Tag[:])
		if !ok {
			return 0, errorf(ReasonAuthFailed, "tag verification failed")
		}
	case afterTLS:
		if a.enc {
			return a.n, nil
		}
		return a.n2, nil
	}
	return 0, nil
}

// update is an AAD (out == nil) or data update of a message the mode has
// prepared.
func (c *aeadCore) update(env *Env, a aeadAlg, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	alg := a.counters(env)
	if out == nil { // AAD
		if c.dataSeen {
			return 0, false, errorf(ReasonWrongState, "AAD after data")
		}
		// Small AAD rides along with the next instruction, as the device
		// reads it from the context; larger AAD is an instruction of its own.
		if n := int(c.dev.AADLen); n+inl <= len(c.dev.AAD) {
			copy(c.dev.AAD[n:], unsafe.Slice((*byte)(in), inl))
			c.dev.AADLen += uint32(inl)
			return 0, false, nil
		}
		inst := c.instruction(a, cptdrv.FlagAAD)
		inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
		return run(env.SE, alg, &inst, w, after{})
	}
	if outsize < inl {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, inl)
	}
	if uint64(inl) > 1<<32-1 {
		return 0, false, errorf(ReasonOperationFailed, "update of %d bytes is too large", inl)
	}
	flags := cptdrv.FlagRunningTag
	if a.peekFirst && c.dataSeen {
		flags = 0
	}
	if !c.enc && !c.dataSeen {
		// The message's tag, when the caller set it before the data (TLS
		// 1.3 does): a device whose operations are whole messages checks
		// it with the first data (the dpdk backend); the others ignore it.
		c.dev.Tag, c.dev.TagLen = c.sh.Tag, c.sh.TagLen
	}
	inst := c.instruction(a, flags)
	c.dataSeen = true
	inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
	inst.RPtr, inst.RLen = uintptr(out), uint32(inl)
	return run(env.SE, alg, &inst, w, after{kind: afterData, ctx: c})
}

// final finishes a message the mode has prepared.
func (c *aeadCore) final(env *Env, a aeadAlg, w Waiter) (int, bool, *Error) {
	if !c.enc && c.sh.TagLen == 0 {
		return 0, false, errorf(ReasonInvalidTag, "no tag set before final of a decryption")
	}
	if c.dev.TagValid != 0 && !c.startPending && c.dev.AADLen == 0 {
		// The last data instruction left the tag of the whole message.
		c.dev.TagValid = 0
		n, err := after{kind: afterFinal, ctx: c}.finish(cptdrv.Result{})
		return n, false, err
	}
	if !c.enc && a.deviceVerifies {
		c.dev.Tag, c.dev.TagLen = c.sh.Tag, c.sh.TagLen
	}
	inst := c.instruction(a, cptdrv.FlagFinal)
	return run(env.SE, a.counters(env), &inst, w, after{kind: afterFinal, ctx: c, verified: a.deviceVerifies})
}

// tlsRecord seals or opens one TLS 1.2 record, [explicit | payload | tag],
// whose IV the mode has put in the device context.
func (c *aeadCore) tlsRecord(env *Env, a aeadAlg, explicit int, out, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	copy(c.dev.AAD[:], c.tlsAAD[:])
	c.dev.AADLen = tlsAADLen
	c.startPending = true
	inst := c.instruction(a, cptdrv.FlagFinal|cptdrv.FlagTagInline)
	payload := inl - explicit - aeadTagLen
	inst.DPtr, inst.DLen = uintptr(in)+uintptr(explicit), uint32(payload)
	inst.RPtr, inst.RLen = uintptr(out)+uintptr(explicit), uint32(payload+aeadTagLen)
	return run(env.SE, a.counters(env), &inst, w, after{kind: afterTLS, enc: c.enc, n: inl, n2: payload})
}

// setTLSAAD takes the 13-byte TLS 1.2 AAD and corrects its length field
// for the explicit nonce and, when opening, the tag, as OpenSSL does.
func (c *aeadCore) setTLSAAD(aad []byte, explicit int) *Error {
	if len(aad) != tlsAADLen {
		return errorf(ReasonInvalidAAD, "TLS AAD of %d bytes (must be %d)", len(aad), tlsAADLen)
	}
	copy(c.tlsAAD[:], aad)
	n := int(aad[11])<<8 | int(aad[12])
	if n < explicit {
		return errorf(ReasonInvalidAAD, "TLS record length %d too short", n)
	}
	n -= explicit
	if !c.enc {
		if n < aeadTagLen {
			return errorf(ReasonInvalidAAD, "TLS record length too short for the tag")
		}
		n -= aeadTagLen
	}
	c.tlsAAD[11], c.tlsAAD[12] = byte(n>>8), byte(n)
	c.tlsAADSet = true
	return nil
}

// tlsPayload is the payload length of the record the TLS AAD announced.
func (c *aeadCore) tlsPayload() int { return int(c.tlsAAD[11])<<8 | int(c.tlsAAD[12]) }

// getParam answers the parameters every AEAD has; false: not one of them.
func (c *aeadCore) getParam(a aeadAlg, name string, p *Param) (bool, *Error) {
	switch name {
	case "keylen":
		return true, setUint(p, name, uint64(a.keyLen))
	case "tlsaadpad":
		return true, setUint(p, name, aeadTagLen)
	case "tag":
		sz := int(p.DataSize)
		switch {
		case sz == 0 || sz > aeadTagLen:
			return true, errorf(ReasonInvalidTag, "tag buffer of %d bytes (1 to 16)", sz)
		case !c.enc || c.sh.TagLen == 0:
			return true, errorf(ReasonInvalidTag, "no tag available (only after an encryption's final)")
		case !p.SetOctets(c.sh.Tag[:sz]):
			return true, errorf(ReasonBadParameter, "parameter %q must be an octet string", name)
		}
		return true, nil
	}
	return false, nil
}

// setParam takes the parameters every AEAD has; false: not one of them.
func (c *aeadCore) setParam(a aeadAlg, name string, p *Param) (bool, *Error) {
	switch name {
	case "tag":
		if p.DataType == TypeOctet && p.Data == nil && a.deviceVerifies {
			// Only the length, as OpenSSL's ChaCha20-Poly1305 allows.
			if p.DataSize == 0 || p.DataSize > aeadTagLen {
				return true, errorf(ReasonInvalidTag, "tag of %d bytes (1 to 16)", p.DataSize)
			}
			c.sh.TagLen = uint32(p.DataSize)
			return true, nil
		}
		v, ok := p.Octets()
		switch {
		case !ok || p.Data == nil:
			return true, errorf(ReasonBadParameter, "parameter \"tag\" must be an octet string")
		case len(v) > aeadTagLen:
			return true, errorf(ReasonInvalidTag, "tag of %d bytes is too long (at most 16)", len(v))
		case len(v) == 0 || c.enc:
			return true, errorf(ReasonInvalidTag, "a tag can only be set for a decryption (1 to 16 bytes)")
		}
		copy(c.sh.Tag[:], v)
		c.sh.TagLen = uint32(len(v))
		return true, nil
	case "keylen":
		if v, ok := p.Uint64(); !ok || v != uint64(a.keyLen) {
			return true, errorf(ReasonInvalidKeyLength, "%s takes %d-byte keys", a.name, a.keyLen)
		}
		return true, nil
	case "tls-version":
		v, ok := p.Uint64()
		if !ok || v > 0xffff {
			return true, errorf(ReasonBadParameter, "parameter \"tls-version\" must be an integer")
		}
		c.tlsVersion = uint32(v)
		return true, nil
	case "tls-mac-size":
		v, ok := p.Uint64()
		if !ok {
			return true, errorf(ReasonBadParameter, "parameter \"tls-mac-size\" must be an integer")
		}
		c.tlsMacSize = v
		return true, nil
	}
	return false, nil
}

// Dup gives a byte copy of a context its own key identity.
func (c *aeadCore) dup(env *Env) {
	if c.dev.KeyID != 0 {
		c.dev.KeyID = env.newKeyID()
	}
}

func (c *aeadCore) free(env *Env) {
	if c.dev.KeyID != 0 && env.Forget != nil {
		env.Forget(c.dev.KeyID)
	}
}
