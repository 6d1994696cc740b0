package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/stats"
)

// blockLen is the block size of the block ciphers (AES).
const blockLen = 16

// blockCipher is the EVP semantics shared by the unauthenticated modes: a
// block mode with padding (CBC) or a stream mode (CTR), the mode's
// arithmetic being the device's. It follows OpenSSL's generic block and
// stream ciphers: the same buffering, the same outputs per call, the same
// errors.
type blockCipher struct {
	id     int
	name   string
	keyLen int
	device uint16 // cptdrv.Cipher*
	padded bool   // a block mode: whole blocks to the device, PKCS#7 padding
}

// blockCtx is a blockCipher operation context, overlaid on C memory: plain
// values only.
type blockCtx struct {
	dev cptdrv.CipherContext // the key and the running IV, read by the device
	iv  [blockLen]byte       // the message's IV as set ("iv")
	// buf holds a partial block (encryption) or, when decrypting with
	// padding, the last whole block, held back until final shows whether
	// it is the last.
	buf          [blockLen]byte
	bufLen       uint8
	enc          bool
	keySet       bool
	noPad        bool
	startPending bool   // the next instruction starts a stream (discards CTR leftovers)
	num          uint32 // CTR: bytes used of the current keystream block
	tlsVersion   uint32
	tlsMacSize   uint64
}

func (b blockCipher) Name() string       { return b.name }
func (b blockCipher) StateSize() uintptr { return unsafe.Sizeof(blockCtx{}) }

func (b blockCipher) counters(env *Env) *stats.Alg { return env.algCounters(b.id, b.name) }

func (b blockCipher) Init(env *Env, st unsafe.Pointer, enc bool, key []byte, keySet bool, iv []byte, ivSet bool, params Params) *Error {
	c := (*blockCtx)(st)
	c.enc = enc
	// Every init starts a new stream, continuing from the updated IV unless
	// a new one is given (as OpenSSL's generic ciphers do).
	c.bufLen, c.num, c.startPending = 0, 0, true
	c.dev.IVLen = blockLen
	if ivSet {
		if len(iv) != blockLen {
			return errorf(ReasonInvalidIVLength, "invalid IV length %d for %s (need %d)", len(iv), b.name, blockLen)
		}
		copy(c.iv[:], iv)
		copy(c.dev.IV[:], iv)
	}
	if keySet {
		if len(key) != b.keyLen {
			return errorf(ReasonInvalidKeyLength, "invalid key length %d for %s (need %d)", len(key), b.name, b.keyLen)
		}
		// Re-keying with the same key keeps the device's expanded copy.
		if !(c.keySet && int(c.dev.KeyLen) == len(key) && equalKeys(c.dev.Key[:len(key)], key)) {
			if c.dev.KeyID != 0 && env.Forget != nil {
				env.Forget(c.dev.KeyID)
			}
			clear(c.dev.Key[:])
			copy(c.dev.Key[:], key)
			c.dev.KeyLen = uint32(len(key))
			c.dev.KeyID = env.newKeyID()
		}
		c.keySet = true
	}
	return b.SetCtxParams(env, st, params)
}

// instruction builds an FC instruction for the context.
func (b blockCipher) instruction(c *blockCtx) cptdrv.Instruction {
	var flags uint16
	if c.startPending {
		flags |= cptdrv.FlagStart
		c.startPending = false
	}
	minor := uint8(cptdrv.MinorDec)
	if c.enc {
		minor = cptdrv.MinorEnc
	}
	return cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorFC, minor),
		Param1: b.device,
		Param2: flags,
		CPtr:   uintptr(unsafe.Pointer(&c.dev)),
	}
}

// withPrefix makes inst start with the block in c.buf, carried in the
// context ahead of the data.
func withPrefix(c *blockCtx, inst *cptdrv.Instruction) {
	copy(c.dev.AAD[:], c.buf[:])
	c.dev.AADLen = blockLen
	inst.Param2 |= cptdrv.FlagCtxData
	c.bufLen = 0
}

// dataDone is the finisher of a data instruction: the output is what the
// device wrote.
type dataDone struct{}

func (dataDone) finish(res cptdrv.Result) (int, *Error) { return int(res.RLen), nil }

func (b blockCipher) Update(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c := (*blockCtx)(st)
	if !c.keySet {
		return 0, false, errorf(ReasonMissingKey, "no key set")
	}
	if uint64(inl) > 1<<32-2*blockLen {
		return 0, false, errorf(ReasonOperationFailed, "update of %d bytes is too large", inl)
	}
	if inl == 0 {
		return 0, false, nil
	}
	if !b.padded {
		return b.OneShot(env, st, out, outsize, in, inl, w)
	}
	src := unsafe.Slice((*byte)(in), inl)
	inst := b.instruction(c)

	// Complete a buffered partial block first.
	if c.bufLen != 0 {
		take := min(blockLen-int(c.bufLen), len(src))
		copy(c.buf[c.bufLen:], src[:take])
		c.bufLen += uint8(take)
		src = src[take:]
	}
	outl := 0
	// A decryption that ends on a block boundary keeps its last block back:
	// it may be the padded one.
	prefix := c.bufLen == blockLen && (c.enc || len(src) > 0 || c.noPad)
	if prefix {
		outl = blockLen
	}
	bulk := len(src) &^ (blockLen - 1)
	if bulk > 0 && !c.enc && !c.noPad && bulk == len(src) {
		bulk -= blockLen
	}
	outl += bulk
	if outl > 0 && (out == nil || outsize < outl) {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, outl)
	}
	if prefix {
		withPrefix(c, &inst)
	}
	if rest := src[bulk:]; len(rest) > 0 {
		// Only whole blocks are left when a decryption held one back.
		copy(c.buf[c.bufLen:], rest)
		c.bufLen += uint8(len(rest))
	}
	if outl == 0 {
		return 0, false, nil
	}
	inst.DPtr, inst.DLen = uintptr(unsafe.Pointer(unsafe.SliceData(src))), uint32(bulk)
	inst.RPtr, inst.RLen = uintptr(out), uint32(outl)
	return run(env.SE, b.counters(env), &inst, w, dataDone{})
}

// OneShot is EVP_Cipher(): exactly the input, no buffering and no padding
// (whole blocks for a block mode), continuing the running IV.
func (b blockCipher) OneShot(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c := (*blockCtx)(st)
	switch {
	case !c.keySet:
		return 0, false, errorf(ReasonMissingKey, "no key set")
	case uint64(inl) > 1<<32-1:
		return 0, false, errorf(ReasonOperationFailed, "input of %d bytes is too large", inl)
	case inl == 0:
		return 0, false, nil
	case b.padded && inl%blockLen != 0:
		return 0, false, errorf(ReasonWrongFinalBlockLength, "%d bytes: not a multiple of the block size", inl)
	case out == nil || outsize < inl:
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, inl)
	}
	c.num = (c.num + uint32(inl)) % blockLen
	inst := b.instruction(c)
	inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
	inst.RPtr, inst.RLen = uintptr(out), uint32(inl)
	return run(env.SE, b.counters(env), &inst, w, dataDone{})
}

func (b blockCipher) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	c := (*blockCtx)(st)
	if !c.keySet {
		return 0, false, errorf(ReasonMissingKey, "no key set")
	}
	if !b.padded {
		return 0, false, nil
	}
	if c.noPad {
		if n := c.bufLen; n != 0 {
			c.bufLen = 0
			return 0, false, errorf(ReasonWrongFinalBlockLength, "%d bytes left over: not a multiple of the block size", n)
		}
		return 0, false, nil
	}
	inst := b.instruction(c)
	if c.enc {
		if out == nil || outsize < blockLen {
			return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, blockLen)
		}
		p := byte(blockLen - c.bufLen)
		for i := c.bufLen; i < blockLen; i++ {
			c.buf[i] = p
		}
		withPrefix(c, &inst)
		inst.RPtr, inst.RLen = uintptr(out), blockLen
		return run(env.SE, b.counters(env), &inst, w, dataDone{})
	}
	if c.bufLen != blockLen {
		n := c.bufLen
		c.bufLen = 0
		return 0, false, errorf(ReasonWrongFinalBlockLength, "final block of %d bytes (need %d)", n, blockLen)
	}
	// The last block is decrypted into the context, unpadded there, and
	// only then copied out.
	withPrefix(c, &inst)
	inst.RPtr, inst.RLen = uintptr(unsafe.Pointer(&c.buf)), blockLen
	return run(env.SE, b.counters(env), &inst, w, finishFunc(func(cptdrv.Result) (int, *Error) {
		defer clear(c.buf[:])
		p := int(c.buf[blockLen-1])
		bad := p == 0 || p > blockLen
		if !bad {
			for _, v := range c.buf[blockLen-p:] {
				bad = bad || int(v) != p
			}
		}
		if bad {
			return 0, errorf(ReasonBadDecrypt, "bad decrypt: invalid padding")
		}
		n := blockLen - p
		if n > 0 && (out == nil || outsize < n) {
			return 0, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, n)
		}
		copy(unsafe.Slice((*byte)(out), n), c.buf[:n])
		return n, nil
	}))
}

func (b blockCipher) GetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*blockCtx)(st)
	var err *Error
	params.Each(func(name string, p *Param) bool {
		switch name {
		case "keylen":
			err = setUint(p, name, uint64(b.keyLen))
		case "ivlen":
			err = setUint(p, name, blockLen)
		case "padding":
			v := uint64(1)
			if c.noPad {
				v = 0
			}
			err = setUint(p, name, v)
		case "num":
			err = setUint(p, name, uint64(c.num))
		case "iv", "updated-iv":
			v := c.iv[:]
			if name == "updated-iv" {
				v = c.dev.IV[:blockLen]
			}
			if p.DataType == TypeOctet && p.Data != nil && int(p.DataSize) < blockLen {
				err = errorf(ReasonInvalidIVLength, "buffer of %d bytes too small for the %d-byte IV", p.DataSize, blockLen)
			} else if !p.SetOctets(v) {
				err = errorf(ReasonBadParameter, "parameter %q must be an octet string", name)
			}
		}
		return err == nil
	})
	return err
}

func (b blockCipher) SetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*blockCtx)(st)
	var err *Error
	params.Each(func(name string, p *Param) bool {
		switch name {
		case "padding":
			v, ok := p.Uint64()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"padding\" must be an integer")
			} else {
				c.noPad = v == 0
			}
		case "num":
			v, ok := p.Uint64()
			switch {
			case !ok:
				err = errorf(ReasonBadParameter, "parameter \"num\" must be an integer")
			case v == uint64(c.num):
			case v == 0:
				// Drop the rest of the keystream block: the next byte
				// starts a new one.
				c.num, c.startPending = 0, true
			default:
				err = errorf(ReasonBadParameter, "num can only be set to 0 or its current value %d", c.num)
			}
		case "keylen":
			v, ok := p.Uint64()
			if !ok || v != uint64(b.keyLen) {
				err = errorf(ReasonInvalidKeyLength, "%s takes %d-byte keys", b.name, b.keyLen)
			}
		case "tls-version":
			v, ok := p.Uint64()
			if !ok || v > 0xffff {
				err = errorf(ReasonBadParameter, "parameter \"tls-version\" must be an integer")
			} else {
				c.tlsVersion = uint32(v)
			}
		case "tls-mac-size":
			v, ok := p.Uint64()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"tls-mac-size\" must be an integer")
			} else {
				c.tlsMacSize = v
			}
		}
		return err == nil
	})
	return err
}

func (b blockCipher) Dup(env *Env, st unsafe.Pointer) {
	c := (*blockCtx)(st)
	if c.dev.KeyID != 0 {
		c.dev.KeyID = env.newKeyID()
	}
}

func (b blockCipher) Free(env *Env, st unsafe.Pointer) {
	c := (*blockCtx)(st)
	if c.dev.KeyID != 0 && env.Forget != nil {
		env.Forget(c.dev.KeyID)
	}
	clear(c.buf[:])
}
