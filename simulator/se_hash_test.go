// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"math/rand"
	"testing"
	"unsafe"

	"cptprov/cptdrv"
)

// refHashes are Go's hash functions by cptdrv.Hash* id, for reference.
var refHashes = [...]func() hash.Hash{
	cptdrv.HashSHA1: sha1.New, cptdrv.HashSHA224: sha256.New224, cptdrv.HashSHA256: sha256.New,
	cptdrv.HashSHA384: sha512.New384, cptdrv.HashSHA512: sha512.New,
	cptdrv.HashSHA512224: sha512.New512_224, cptdrv.HashSHA512256: sha512.New512_256,
}

// Every hash through the device in random pieces (the state saved in the
// context between them), against the same function in one go.
func TestHashThroughDevice(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 2})
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 400; i++ {
		id := uint16(1 + i%7)
		msg := make([]byte, rng.Intn(3000))
		rng.Read(msg)
		h := refHashes[id]()
		h.Write(msg)
		want := h.Sum(nil)

		ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.HashContext{})))
		in := dmaBuf(t, len(msg)+1)
		copy(in, msg)
		out := dmaBuf(t, 64)
		flags := cptdrv.FlagStart
		off := holdFirst(rng, cptdrv.HashContextAt(cptdrv.Addr(ctxMem)), msg, &flags)
		for {
			n := rng.Intn(len(msg) - off + 1)
			last := off+n == len(msg) && rng.Intn(2) == 0
			inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorHash, cptdrv.MinorNone), Param1: id, Param2: flags,
				CPtr: cptdrv.Addr(ctxMem), DPtr: cptdrv.Addr(in[off:]), DLen: uint32(n)}
			if last {
				inst.Param2 |= cptdrv.FlagFinal
				inst.RPtr, inst.RLen = cptdrv.Addr(out), 64
			}
			var res cptdrv.Result
			var err error
			if i%2 == 0 {
				res, err = q.Do(&inst)
			} else {
				ch := make(chan cptdrv.Result, 1)
				err = q.Submit(&inst, func(r cptdrv.Result) { ch <- r })
				res = <-ch
			}
			if err != nil || res.CompCode != cptdrv.CompGood || res.UCCode != cptdrv.UCSuccess {
				t.Fatalf("hash %d piece: %+v %v", id, res, err)
			}
			flags, off = 0, off+n
			if last {
				if int(res.RLen) != len(want) || !bytes.Equal(out[:res.RLen], want) {
					t.Fatalf("hash %d of %d bytes: mismatch", id, len(msg))
				}
				break
			}
		}
	}
}

// holdFirst puts the first bytes of msg in ctx's State as a driver holds
// them back, half the time, and flags the starting instruction so; it
// returns how many.
func holdFirst(rng *rand.Rand, ctx *cptdrv.HashContext, msg []byte, flags *uint16) int {
	if rng.Intn(2) == 0 {
		return 0
	}
	n := copy(ctx.State[:rng.Intn(len(ctx.State)+1)], msg)
	ctx.StateLen = uint32(n)
	*flags |= cptdrv.FlagCtxData
	return n
}

// A piece without FlagStart on a context that holds no state is refused.
func TestHashBadContext(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 1})
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.HashContext{})))
	for _, tc := range []struct {
		inst      cptdrv.Instruction
		held      uint32 // the context's StateLen
		comp, ucc uint8
	}{
		{cptdrv.Instruction{Param1: cptdrv.HashSHA256}, 0, cptdrv.CompGood, cptdrv.UCBadContext},
		{cptdrv.Instruction{Param1: 99, Param2: cptdrv.FlagStart}, 0, cptdrv.CompBadInst, 0},
		{cptdrv.Instruction{Param1: cptdrv.HashSHA256, Param2: cptdrv.FlagStart | cptdrv.FlagFinal, RLen: 16}, 0, cptdrv.CompBadInst, 0},
		// held bytes only start a message, and fit in the State
		{cptdrv.Instruction{Param1: cptdrv.HashSHA256, Param2: cptdrv.FlagCtxData}, 1, cptdrv.CompBadInst, 0},
		{cptdrv.Instruction{Param1: cptdrv.HashSHA256, Param2: cptdrv.FlagStart | cptdrv.FlagCtxData}, 257, cptdrv.CompGood, cptdrv.UCBadContext},
	} {
		inst := tc.inst
		inst.Op = cptdrv.Op(cptdrv.MajorHash, cptdrv.MinorNone)
		inst.CPtr = cptdrv.Addr(ctxMem)
		inst.RPtr = cptdrv.Addr(ctxMem)
		cptdrv.HashContextAt(inst.CPtr).StateLen = tc.held
		if res, err := q.Do(&inst); err != nil || res.CompCode != tc.comp || res.UCCode != tc.ucc {
			t.Errorf("%+v: %+v %v", tc.inst, res, err)
		}
	}
}

// HMAC through the device in random pieces against crypto/hmac, for every
// hash and keys up to the block size (the driver hashes longer ones).
func TestHMACThroughDevice(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 2})
	rng := rand.New(rand.NewSource(4))
	for i := 0; i < 400; i++ {
		id := uint16(1 + i%7)
		key := make([]byte, rng.Intn(hashBlock(id)+1))
		msg := make([]byte, rng.Intn(3000))
		rng.Read(key)
		rng.Read(msg)
		m := hmac.New(refHashes[id], key)
		m.Write(msg)
		want := m.Sum(nil)

		ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.HMACContext{})))
		hc := cptdrv.HMACContextAt(cptdrv.Addr(ctxMem))
		copy(hc.Key[:], key)
		hc.KeyLen = uint32(len(key))
		in := dmaBuf(t, len(msg)+1)
		copy(in, msg)
		out := dmaBuf(t, 64)
		flags := cptdrv.FlagStart | cptdrv.FlagHMAC
		for off := holdFirst(rng, &hc.Inner, msg, &flags); ; {
			n := rng.Intn(len(msg) - off + 1)
			inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorHash, cptdrv.MinorNone), Param1: id, Param2: flags,
				CPtr: cptdrv.Addr(ctxMem), DPtr: cptdrv.Addr(in[off:]), DLen: uint32(n)}
			last := off+n == len(msg)
			if last {
				inst.Param2 |= cptdrv.FlagFinal
				inst.RPtr, inst.RLen = cptdrv.Addr(out), 64
			}
			res, err := q.Do(&inst)
			if err != nil || res.CompCode != cptdrv.CompGood || res.UCCode != cptdrv.UCSuccess {
				t.Fatalf("HMAC %d piece: %+v %v", id, res, err)
			}
			flags, off = cptdrv.FlagHMAC, off+n
			if last {
				if !bytes.Equal(out[:res.RLen], want) {
					t.Fatalf("HMAC %d, %d-byte key, %d bytes: mismatch", id, len(key), len(msg))
				}
				break
			}
		}
	}
}
