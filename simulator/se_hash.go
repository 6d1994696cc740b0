// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding"
	"hash"

	"cptprov/cptdrv"
	"cptprov/simulator/sha2x"
)

// The engines' hash functions run on a HashContext through three
// primitives: SHA-1 and SHA-2/256 on Go's SHA-NI code (the state marshalled
// into the context between pieces), the SHA-512 family on libcrypto's
// SHA512 code (simulator/sha2x, whose SHA512_CTX lives in the context).

// goHashes are the Go hash functions by cptdrv.Hash* id.
var goHashes = map[uint16]func() hash.Hash{
	cptdrv.HashSHA1: sha1.New, cptdrv.HashSHA224: sha256.New224, cptdrv.HashSHA256: sha256.New,
}

// sha512Family are the hashes on sha2x, by cptdrv.Hash* id.
var sha512Family = map[uint16]sha2x.Kind{
	cptdrv.HashSHA384: 384, cptdrv.HashSHA512: 512, cptdrv.HashSHA512224: 224, cptdrv.HashSHA512256: 256,
}

// hashKnown reports whether id is a hash of the engines; hashBlock is its
// block size.
func hashKnown(id uint16) bool {
	_, a := goHashes[id]
	_, b := sha512Family[id]
	return a || b
}

func hashBlock(id uint16) int {
	if _, ok := sha512Family[id]; ok {
		return 128
	}
	return 64
}

// hashStart begins a message in ctx.
func hashStart(ctx *cptdrv.HashContext, id uint16) bool {
	if k, ok := sha512Family[id]; ok {
		ctx.StateLen = uint32(sha2x.StateSize)
		return sha2x.Init(ctx.State[:sha2x.StateSize], k)
	}
	return saveGo(ctx, goHashes[id]())
}

// hashWrite adds p to the message in ctx.
func hashWrite(ctx *cptdrv.HashContext, id uint16, p []byte) bool {
	if _, ok := sha512Family[id]; ok {
		return ctx.StateLen == uint32(sha2x.StateSize) && sha2x.Update(ctx.State[:sha2x.StateSize], p)
	}
	h, ok := loadGo(ctx, id)
	if !ok {
		return false
	}
	h.Write(p)
	return saveGo(ctx, h)
}

// hashSum finishes the message in ctx into out (the digest's size) and
// clears the state.
func hashSum(ctx *cptdrv.HashContext, id uint16, out []byte) bool {
	defer func() {
		clear(ctx.State[:])
		ctx.StateLen = 0
	}()
	if _, ok := sha512Family[id]; ok {
		return ctx.StateLen == uint32(sha2x.StateSize) && sha2x.Final(ctx.State[:sha2x.StateSize], out)
	}
	h, ok := loadGo(ctx, id)
	if !ok || len(out) != h.Size() {
		return false
	}
	h.Sum(out[:0])
	return true
}

func hashSize(id uint16) int {
	if k, ok := sha512Family[id]; ok {
		return k.Size()
	}
	return goHashes[id]().Size()
}

func loadGo(ctx *cptdrv.HashContext, id uint16) (hash.Hash, bool) {
	h := goHashes[id]()
	if ctx.StateLen == 0 || ctx.StateLen > uint32(len(ctx.State)) ||
		h.(encoding.BinaryUnmarshaler).UnmarshalBinary(ctx.State[:ctx.StateLen]) != nil {
		return nil, false
	}
	return h, true
}

func saveGo(ctx *cptdrv.HashContext, h hash.Hash) bool {
	st, err := h.(encoding.BinaryAppender).AppendBinary(ctx.State[:0])
	if err != nil || len(st) > len(ctx.State) || &st[0] != &ctx.State[0] {
		return false
	}
	ctx.StateLen = uint32(len(st))
	return true
}

// hash executes a MajorHash instruction: one piece of a message (of an
// HMAC with FlagHMAC), the running state kept in the context.
func (d *Device) hash(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	id, flags := inst.Param1, inst.Param2
	if !hashKnown(id) || inst.CPtr == 0 || uint8(inst.Op) != cptdrv.MinorNone ||
		flags&^(cptdrv.FlagStart|cptdrv.FlagFinal|cptdrv.FlagHMAC|cptdrv.FlagCtxData) != 0 ||
		flags&(cptdrv.FlagStart|cptdrv.FlagCtxData) == cptdrv.FlagCtxData {
		return cptdrv.CompBadInst, 0, 0
	}
	var data, out []byte
	if inst.DLen > 0 {
		if inst.DPtr == 0 {
			return cptdrv.CompBadInst, 0, 0
		}
		data = cptdrv.Bytes(inst.DPtr, int(inst.DLen))
	}
	n := hashSize(id)
	if flags&cptdrv.FlagFinal != 0 {
		if int(inst.RLen) < n || inst.RPtr == 0 {
			return cptdrv.CompBadInst, 0, 0
		}
		out = cptdrv.Bytes(inst.RPtr, n)
	}
	ctx := cptdrv.HashContextAt(inst.CPtr)
	if flags&cptdrv.FlagHMAC != 0 {
		ctx = &cptdrv.HMACContextAt(inst.CPtr).Inner
	}
	var held []byte // the message's first bytes, which starting overwrites
	if flags&cptdrv.FlagCtxData != 0 {
		if ctx.StateLen > uint32(len(ctx.State)) {
			return cptdrv.CompGood, cptdrv.UCBadContext, 0
		}
		var buf [len(ctx.State)]byte
		held = buf[:copy(buf[:], ctx.State[:ctx.StateLen])]
		defer clear(buf[:])
	}
	if flags&cptdrv.FlagHMAC != 0 {
		hc := cptdrv.HMACContextAt(inst.CPtr)
		if flags&cptdrv.FlagStart != 0 && !hmacStart(hc, id) {
			return cptdrv.CompGood, cptdrv.UCBadKey, 0
		}
		ctx = &hc.Inner
	} else if flags&cptdrv.FlagStart != 0 && !hashStart(ctx, id) {
		return cptdrv.CompGood, cptdrv.UCBadState, 0
	}
	if ctx.StateLen == 0 { // no message going on in this context
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	if len(held) > 0 && !hashWrite(ctx, id, held) || len(data) > 0 && !hashWrite(ctx, id, data) {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	if out == nil {
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	}
	if flags&cptdrv.FlagHMAC != 0 {
		hc := cptdrv.HMACContextAt(inst.CPtr)
		var inner [64]byte
		if !hashSum(&hc.Inner, id, inner[:n]) || !hashWrite(&hc.Outer, id, inner[:n]) {
			return cptdrv.CompGood, cptdrv.UCBadContext, 0
		}
		ctx = &hc.Outer
	}
	if !hashSum(ctx, id, out) {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(n)
}

// hmacStart keys the inner and outer hashes with K0 xor ipad and opad.
func hmacStart(hc *cptdrv.HMACContext, id uint16) bool {
	bs := hashBlock(id)
	if hc.KeyLen > uint32(bs) {
		return false
	}
	var ipad, opad [128]byte
	for i := 0; i < bs; i++ {
		var k byte
		if i < int(hc.KeyLen) {
			k = hc.Key[i]
		}
		ipad[i], opad[i] = k^0x36, k^0x5c
	}
	defer clear(ipad[:])
	defer clear(opad[:])
	return hashStart(&hc.Inner, id) && hashWrite(&hc.Inner, id, ipad[:bs]) &&
		hashStart(&hc.Outer, id) && hashWrite(&hc.Outer, id, opad[:bs])
}
