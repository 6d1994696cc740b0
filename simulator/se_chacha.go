// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/simulator/chachax"
)

// chachaState is a ChaCha20 stream's engine state in the context's Engine
// area: how many bytes of the current keystream block (whose counter block
// is the context's IV) are used.
type chachaState struct {
	used uint8
}

// aeadHandle is a ChaCha20-Poly1305 stream's engine state in the Engine
// area: device memory holding the message's running state, and the
// context it belongs to, so that a byte copy of the context is recognised
// as not owning it.
type aeadHandle struct {
	h     chachax.AEAD
	owner uintptr
}

// ChaChaPolyStateSize is the bytes of a ChaCha20-Poly1305 context's Engine
// area the CPU path uses (its stream's handle): the dpdk backend keeps its
// own record past them.
const ChaChaPolyStateSize = int(unsafe.Sizeof(aeadHandle{}))

var (
	_ [len(cptdrv.CipherContext{}.Engine) - int(unsafe.Sizeof(chachaState{}))]byte
	_ [len(cptdrv.CipherContext{}.Engine) - ChaChaPolyStateSize]byte
)

// chacha20 executes a CipherChaCha20 instruction: encryption and
// decryption are the same XOR.
func (d *Device) chacha20(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	minor := uint8(inst.Op)
	if minor != cptdrv.MinorEnc && minor != cptdrv.MinorDec || inst.Param2&^cptdrv.FlagStart != 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	ctx := cptdrv.ContextAt(inst.CPtr)
	ctx.TagValid = 0
	if ctx.KeyLen != 32 || ctx.IVLen != 16 {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	st := (*chachaState)(unsafe.Pointer(&ctx.Engine))
	if inst.Param2&cptdrv.FlagStart != 0 || st.used >= 64 {
		st.used = 0
	}
	n := int(inst.DLen)
	if n == 0 {
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	}
	if inst.RLen < inst.DLen || inst.RPtr == 0 || inst.DPtr == 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	in, out := cptdrv.Bytes(inst.DPtr, n), cptdrv.Bytes(inst.RPtr, n)
	if inexactOverlap(out, in) {
		in = bytes.Clone(in)
	}
	iv := (*[16]byte)(ctx.IV[:16])
	if chachax.XORKeyStream(&ctx.Key, iv, int(st.used), out, in) != nil {
		return cptdrv.CompHWError, 0, 0
	}
	total := uint64(st.used) + uint64(n)
	// OpenSSL's counter: 64 bits, the low word first.
	binary.LittleEndian.PutUint64(iv[:8], binary.LittleEndian.Uint64(iv[:8])+total/64)
	st.used = uint8(total % 64)
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(n)
}

// chachaPoly executes a CipherChaChaPoly instruction.
func (d *Device) chachaPoly(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	ctx := cptdrv.ContextAt(inst.CPtr)
	st := (*aeadHandle)(unsafe.Pointer(&ctx.Engine))
	own := st.h != 0 && st.owner == inst.CPtr
	switch uint8(inst.Op) {
	case cptdrv.MinorCtxFlush:
		if own {
			st.h.Free()
		}
		*st = aeadHandle{}
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	case cptdrv.MinorCtxClone:
		if st.h != 0 && !own {
			h, err := st.h.Clone()
			*st = aeadHandle{h: h, owner: inst.CPtr}
			if err != nil {
				*st = aeadHandle{}
				return cptdrv.CompGood, cptdrv.UCBadState, 0
			}
		}
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	case cptdrv.MinorEnc, cptdrv.MinorDec:
	default:
		return cptdrv.CompBadInst, 0, 0
	}
	enc := uint8(inst.Op) == cptdrv.MinorEnc
	flags := inst.Param2
	ctx.TagValid = 0
	if flags&cptdrv.FlagStart != 0 {
		if ctx.KeyLen != 32 || ctx.IVLen != 12 {
			return cptdrv.CompGood, cptdrv.UCBadContext, 0
		}
		if !own {
			h, err := chachax.NewAEAD()
			if err != nil {
				return cptdrv.CompHWError, 0, 0
			}
			*st, own = aeadHandle{h: h, owner: inst.CPtr}, true
		}
		if st.h.Start(&ctx.Key, ctx.IV[:12], enc) != nil {
			return cptdrv.CompGood, cptdrv.UCBadState, 0
		}
	}
	if !own || ctx.AADLen > uint32(len(ctx.AAD)) {
		return cptdrv.CompGood, cptdrv.UCBadState, 0
	}
	in, out, comp, uc, ok := aeadInput(ctx, inst, st.h.AAD)
	if !ok {
		return comp, uc, 0
	}
	n := int(inst.DLen)
	if out != nil {
		if inexactOverlap(out, in) {
			in = bytes.Clone(in)
		}
		if st.h.Data(out, in) != nil {
			return cptdrv.CompGood, cptdrv.UCBadState, 0
		}
		rlen = uint32(n)
	}
	if flags&cptdrv.FlagFinal == 0 {
		if flags&cptdrv.FlagRunningTag != 0 && enc {
			tag, err := st.h.Peek()
			if err != nil {
				return cptdrv.CompGood, cptdrv.UCBadState, 0
			}
			ctx.Tag, ctx.TagValid = tag, 1
		}
		return cptdrv.CompGood, cptdrv.UCSuccess, rlen
	}
	inline := flags&cptdrv.FlagTagInline != 0
	if enc {
		tag, err := st.h.Seal()
		if err != nil {
			return cptdrv.CompGood, cptdrv.UCBadState, 0
		}
		if !inline {
			ctx.Tag = tag
			return cptdrv.CompGood, cptdrv.UCSuccess, rlen
		}
		if inst.RLen < inst.DLen+16 {
			return cptdrv.CompBadInst, 0, 0
		}
		copy(cptdrv.Bytes(inst.RPtr+uintptr(n), 16), tag[:])
		return cptdrv.CompGood, cptdrv.UCSuccess, rlen + 16
	}
	want := ctx.Tag[:min(ctx.TagLen, 16)]
	if inline {
		want = cptdrv.Bytes(inst.DPtr+uintptr(n), 16)
	}
	ok, err := st.h.Open(want)
	if err != nil {
		return cptdrv.CompGood, cptdrv.UCBadState, 0
	}
	if !ok {
		if n > 0 {
			clear(cptdrv.Bytes(inst.RPtr, n))
		}
		return cptdrv.CompGood, cptdrv.UCAuthFail, 0
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, rlen
}

// ResumeChaChaPoly gives the ChaCha20-Poly1305 context at cptr the running
// state of a message whose first piece another engine computed (the dpdk
// backend's devices, whose operations are whole messages): the stream is
// started again, absorbs aad and the piece's ciphertext ct, and must then
// give tag, the tag that engine reported for the message so far (a
// decryption's: the expected tag it verified). false: it does not (ct is
// not what that engine saw), and the context has no usable state.
func ResumeChaChaPoly(cptr uintptr, aad, ct []byte, enc bool, tag []byte) bool {
	ctx := cptdrv.ContextAt(cptr)
	st := (*aeadHandle)(unsafe.Pointer(&ctx.Engine))
	if ctx.KeyLen != 32 || ctx.IVLen != 12 || len(tag) == 0 || len(tag) > 16 {
		return false
	}
	if st.h == 0 || st.owner != cptr {
		h, err := chachax.NewAEAD()
		if err != nil {
			*st = aeadHandle{}
			return false
		}
		*st = aeadHandle{h: h, owner: cptr}
	}
	if st.h.Start(&ctx.Key, ctx.IV[:12], enc) != nil || st.h.AAD(aad) != nil {
		return false
	}
	if len(ct) > 0 {
		ct = bytes.Clone(ct) // the caller's buffer: read once
		tmp := make([]byte, len(ct))
		defer clear(tmp)
		if enc {
			// An encryption's stream absorbs its own output: recover
			// the plaintext (the keystream from block 1 on) and encrypt
			// it again.
			var iv [16]byte
			iv[0] = 1
			copy(iv[4:], ctx.IV[:12])
			if chachax.XORKeyStream(&ctx.Key, &iv, 0, tmp, ct) != nil || st.h.Data(tmp, tmp) != nil {
				return false
			}
		} else if st.h.Data(tmp, ct) != nil {
			return false
		}
	}
	if enc {
		t, err := st.h.Peek()
		return err == nil && subtle.ConstantTimeCompare(t[:len(tag)], tag) == 1
	}
	c, err := st.h.Clone()
	if err != nil {
		return false
	}
	defer c.Free()
	ok, err := c.Open(tag)
	return err == nil && ok
}
