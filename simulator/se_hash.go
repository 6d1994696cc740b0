package simulator

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding"
	"hash"

	"cptprov/cptdrv"
	"cptprov/simulator/sha2x"
)

// hashes are the engines' hash functions (Go's, with SHA-NI and AVX2
// assembly), by cptdrv.Hash* id.
var hashes = [...]func() hash.Hash{
	cptdrv.HashSHA1:      sha1.New,
	cptdrv.HashSHA224:    sha256.New224,
	cptdrv.HashSHA256:    sha256.New,
	cptdrv.HashSHA384:    sha512.New384,
	cptdrv.HashSHA512:    sha512.New,
	cptdrv.HashSHA512224: sha512.New512_224,
	cptdrv.HashSHA512256: sha512.New512_256,
}

// sha512Family are the hashes the engines run on libcrypto's SHA512 code
// (simulator/sha2x), by cptdrv.Hash* id.
var sha512Family = map[uint16]sha2x.Kind{
	cptdrv.HashSHA384: 384, cptdrv.HashSHA512: 512, cptdrv.HashSHA512224: 224, cptdrv.HashSHA512256: 256,
}

// hash executes a MajorHash instruction: one piece of a message, the
// running state restored from and saved to the context.
func (d *Device) hash(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	if int(inst.Param1) >= len(hashes) || hashes[inst.Param1] == nil || inst.CPtr == 0 ||
		uint8(inst.Op) != cptdrv.MinorNone || inst.Param2&^(cptdrv.FlagStart|cptdrv.FlagFinal) != 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	ctx := cptdrv.HashContextAt(inst.CPtr)
	if k, ok := sha512Family[inst.Param1]; ok {
		return sha512Piece(ctx, inst, k)
	}
	h := hashes[inst.Param1]()
	if inst.Param2&cptdrv.FlagStart == 0 {
		if ctx.StateLen == 0 || ctx.StateLen > uint32(len(ctx.State)) ||
			h.(encoding.BinaryUnmarshaler).UnmarshalBinary(ctx.State[:ctx.StateLen]) != nil {
			return cptdrv.CompGood, cptdrv.UCBadContext, 0
		}
	}
	if inst.DLen > 0 {
		if inst.DPtr == 0 {
			return cptdrv.CompBadInst, 0, 0
		}
		h.Write(cptdrv.Bytes(inst.DPtr, int(inst.DLen)))
	}
	if inst.Param2&cptdrv.FlagFinal != 0 {
		n := h.Size()
		if int(inst.RLen) < n || inst.RPtr == 0 {
			return cptdrv.CompBadInst, 0, 0
		}
		h.Sum(cptdrv.Bytes(inst.RPtr, n)[:0])
		clear(ctx.State[:])
		ctx.StateLen = 0
		return cptdrv.CompGood, cptdrv.UCSuccess, uint32(n)
	}
	st, err := h.(encoding.BinaryAppender).AppendBinary(ctx.State[:0])
	if err != nil || len(st) > len(ctx.State) || &st[0] != &ctx.State[0] {
		return cptdrv.CompGood, cptdrv.UCBadState, 0
	}
	ctx.StateLen = uint32(len(st))
	return cptdrv.CompGood, cptdrv.UCSuccess, 0
}

// sha512Piece is hash for the SHA-512 family, whose state is a SHA512_CTX
// kept in the context (StateLen marks it valid).
func sha512Piece(ctx *cptdrv.HashContext, inst *cptdrv.Instruction, k sha2x.Kind) (comp, uc uint8, rlen uint32) {
	st := ctx.State[:sha2x.StateSize]
	if inst.Param2&cptdrv.FlagStart != 0 {
		if !sha2x.Init(st, k) {
			return cptdrv.CompGood, cptdrv.UCBadState, 0
		}
		ctx.StateLen = uint32(sha2x.StateSize)
	} else if ctx.StateLen != uint32(sha2x.StateSize) {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	if inst.DLen > 0 {
		if inst.DPtr == 0 {
			return cptdrv.CompBadInst, 0, 0
		}
		if !sha2x.Update(st, cptdrv.Bytes(inst.DPtr, int(inst.DLen))) {
			return cptdrv.CompGood, cptdrv.UCBadState, 0
		}
	}
	if inst.Param2&cptdrv.FlagFinal == 0 {
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	}
	n := k.Size()
	if int(inst.RLen) < n || inst.RPtr == 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	ok := sha2x.Final(st, cptdrv.Bytes(inst.RPtr, n))
	clear(ctx.State[:])
	ctx.StateLen = 0
	if !ok {
		return cptdrv.CompGood, cptdrv.UCBadState, 0
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(n)
}
