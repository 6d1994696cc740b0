// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"crypto/aes"
	"crypto/des"
	"crypto/subtle"
	"sync"
	"sync/atomic"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/simulator/aesgcm"
	"cptprov/simulator/aesni"
)

// The engine keeps a GCM stream's running state in the context's Engine
// area; it must fit.
var _ [len(cptdrv.CipherContext{}.Engine) - int(unsafe.Sizeof(aesgcm.State{}))]byte

// flexiCrypto executes a MajorFC instruction: one piece of an AEAD stream on
// the context at CPtr.
func (d *Device) flexiCrypto(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	if inst.CPtr == 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	switch inst.Param1 {
	case cptdrv.CipherAESGCM:
	case cptdrv.CipherAESCBC, cptdrv.CipherAESCTR, cptdrv.Cipher3DESCBC:
		return d.blockMode(inst)
	case cptdrv.CipherChaCha20:
		return d.chacha20(inst)
	case cptdrv.CipherChaChaPoly:
		return d.chachaPoly(inst)
	case cptdrv.CipherAESCBCHMAC:
		return d.chained(inst)
	default:
		return cptdrv.CompBadInst, 0, 0
	}
	minor := uint8(inst.Op)
	if minor != cptdrv.MinorEnc && minor != cptdrv.MinorDec {
		return cptdrv.CompBadInst, 0, 0
	}
	enc := minor == cptdrv.MinorEnc
	flags := inst.Param2
	ctx := cptdrv.ContextAt(inst.CPtr)
	ctx.TagValid = 0
	if ctx.KeyLen == 0 || ctx.IVLen > uint32(len(ctx.IV)) || ctx.AADLen > uint32(len(ctx.AAD)) {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	k, err := d.keys.gcm(ctx)
	if err != nil {
		return cptdrv.CompGood, cptdrv.UCBadKey, 0
	}
	st := (*aesgcm.State)(unsafe.Pointer(&ctx.Engine))
	if flags&cptdrv.FlagStart != 0 {
		if k.Start(st, ctx.IV[:ctx.IVLen]) != nil {
			return cptdrv.CompGood, cptdrv.UCBadState, 0
		}
	}
	in, out, comp, uc, ok := aeadInput(ctx, inst, func(b []byte) error { return k.AAD(st, b) })
	if !ok {
		return comp, uc, 0
	}
	n := int(inst.DLen)
	if out != nil {
		if enc {
			err = k.Encrypt(st, out, in)
		} else {
			err = k.Decrypt(st, out, in)
		}
		if err != nil {
			return cptdrv.CompGood, cptdrv.UCBadLength, 0
		}
		rlen = uint32(n)
	}
	if flags&cptdrv.FlagFinal == 0 {
		if flags&cptdrv.FlagRunningTag != 0 {
			// The State is a plain value: finishing a copy leaves the
			// message open.
			peek := *st
			tag, err := k.Tag(&peek)
			if err != nil {
				return cptdrv.CompGood, cptdrv.UCBadState, 0
			}
			ctx.Tag, ctx.TagValid = tag, 1
		}
		return cptdrv.CompGood, cptdrv.UCSuccess, rlen
	}
	tag, err := k.Tag(st)
	if err != nil {
		return cptdrv.CompGood, cptdrv.UCBadState, 0
	}
	if flags&cptdrv.FlagTagInline == 0 {
		ctx.Tag = tag
		return cptdrv.CompGood, cptdrv.UCSuccess, rlen
	}
	if enc {
		if inst.RLen < inst.DLen+16 {
			return cptdrv.CompBadInst, 0, 0
		}
		copy(cptdrv.Bytes(inst.RPtr+uintptr(n), 16), tag[:])
		return cptdrv.CompGood, cptdrv.UCSuccess, rlen + 16
	}
	if subtle.ConstantTimeCompare(cptdrv.Bytes(inst.DPtr+uintptr(n), 16), tag[:]) != 1 {
		if n > 0 {
			clear(cptdrv.Bytes(inst.RPtr, n))
		}
		return cptdrv.CompGood, cptdrv.UCAuthFail, 0
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, rlen
}

// aeadInput is the step both AEAD engines take once their stream is set up:
// the context's AAD (consumed once fed), then the instruction's input, as
// more AAD under FlagAAD or else as data. It returns the data and the
// output it goes to (both nil when the instruction carries none), or, with
// ok false, the completion to end the instruction with.
func aeadInput(ctx *cptdrv.CipherContext, inst *cptdrv.Instruction, aad func([]byte) error) (in, out []byte, comp, uc uint8, ok bool) {
	flags := inst.Param2
	if flags&cptdrv.FlagCtxAAD != 0 {
		err := aad(ctx.AAD[:ctx.AADLen])
		ctx.AADLen = 0 // consumed
		if err != nil {
			return nil, nil, cptdrv.CompGood, cptdrv.UCBadState, false
		}
	}
	n := int(inst.DLen)
	in = cptdrv.Bytes(inst.DPtr, n)
	switch {
	case flags&cptdrv.FlagAAD != 0:
		if aad(in) != nil {
			return nil, nil, cptdrv.CompGood, cptdrv.UCBadState, false
		}
	case n > 0:
		if inst.RLen < inst.DLen || inst.RPtr == 0 {
			return nil, nil, cptdrv.CompBadInst, 0, false
		}
		return in, cptdrv.Bytes(inst.RPtr, n), 0, 0, true
	}
	return nil, nil, 0, 0, true
}

// keyCache holds the expanded form of the keys the engines have seen, as a
// real engine caches contexts: by key ID, checked against the key bytes and
// the cipher so a stale ID can never select the wrong key.
type keyCache struct {
	// recent is a direct-mapped cache in front of m: the hot path is one
	// atomic load, no hashing.
	recent [256]atomic.Pointer[cachedKey]
	m      sync.Map // uint64 -> *cachedKey
}

type cachedKey struct {
	id   uint64
	raw  [32]byte
	n    uint32
	kind uint16 // cptdrv.Cipher* of the context
	k    any    // *aesgcm.Key or cipher.Block
}

func (ck *cachedKey) matches(ctx *cptdrv.CipherContext, kind uint16) bool {
	return ck != nil && ck.id == ctx.KeyID && ck.kind == kind && ck.n == ctx.KeyLen && ck.raw == ctx.Key
}

// get returns the cached expansion of ctx's key for kind, or builds it.
func (c *keyCache) get(ctx *cptdrv.CipherContext, kind uint16, build func([]byte) (any, error)) (any, error) {
	slot := &c.recent[ctx.KeyID%uint64(len(c.recent))]
	if ck := slot.Load(); ck.matches(ctx, kind) {
		return ck.k, nil
	}
	if v, ok := c.m.Load(ctx.KeyID); ok {
		if ck := v.(*cachedKey); ck.matches(ctx, kind) {
			slot.Store(ck)
			return ck.k, nil
		}
	}
	if ctx.KeyLen > uint32(len(ctx.Key)) {
		return nil, errBadKey
	}
	k, err := build(ctx.Key[:ctx.KeyLen])
	if err != nil {
		return nil, err
	}
	ck := &cachedKey{id: ctx.KeyID, raw: ctx.Key, n: ctx.KeyLen, kind: kind, k: k}
	c.m.Store(ctx.KeyID, ck)
	slot.Store(ck)
	return k, nil
}

func (c *keyCache) gcm(ctx *cptdrv.CipherContext) (*aesgcm.Key, error) {
	k, err := c.get(ctx, cptdrv.CipherAESGCM, func(key []byte) (any, error) { return aesgcm.NewKey(key) })
	if err != nil {
		return nil, err
	}
	return k.(*aesgcm.Key), nil
}

// modes returns ctx's key expanded for the block and stream modes: AES on
// the AES-NI loops where the CPU has them, otherwise (and 3DES) on
// crypto/cipher.
func (c *keyCache) modes(ctx *cptdrv.CipherContext, cipherID uint16) (blockModes, error) {
	kind := cptdrv.CipherAESCBC // CBC and CTR share AES keys
	if cipherID == cptdrv.Cipher3DESCBC {
		kind = cipherID
	}
	k, err := c.get(ctx, kind, func(key []byte) (any, error) {
		if kind == cptdrv.Cipher3DESCBC {
			b, err := des.NewTripleDESCipher(key)
			return genericModes{b}, err
		}
		if aesni.Available {
			k, err := aesni.NewKey(key)
			return aesniModes{k}, err
		}
		b, err := aes.NewCipher(key)
		return genericModes{b}, err
	})
	if err != nil {
		return nil, err
	}
	return k.(blockModes), nil
}

func (c *keyCache) forget(id uint64) {
	slot := &c.recent[id%uint64(len(c.recent))]
	if ck := slot.Load(); ck != nil && ck.id == id {
		slot.CompareAndSwap(ck, nil)
	}
	if v, ok := c.m.LoadAndDelete(id); ok {
		ck := v.(*cachedKey)
		clear(ck.raw[:])
	}
}

type simError string

func (e simError) Error() string { return string(e) }

const errBadKey = simError("simulator: bad key length")
