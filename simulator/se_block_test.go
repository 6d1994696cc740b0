// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"math/rand"
	"testing"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/simulator/aesni"
)

// blockStream runs msg through the device as a CBC or CTR stream in random
// pieces (for CBC, whole blocks, some of them carried as the context
// prefix), synchronously or not, in place or not, and returns the output.
func blockStream(t *testing.T, q *cptdrv.Queue, cipherID uint16, enc, async, inPlace bool, key, iv, msg []byte, rng *rand.Rand) []byte {
	t.Helper()
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	ctx := cptdrv.ContextAt(cptdrv.Addr(ctxMem))
	copy(ctx.Key[:], key)
	ctx.KeyLen = uint32(len(key))
	ctx.KeyID = rng.Uint64()
	copy(ctx.IV[:], iv)
	ctx.IVLen = uint32(len(iv))
	in := dmaBuf(t, len(msg)+1)
	copy(in, msg)
	out := in
	if !inPlace {
		out = dmaBuf(t, len(msg)+1)
	}
	minor := uint8(cptdrv.MinorDec)
	if enc {
		minor = cptdrv.MinorEnc
	}
	exec := func(inst cptdrv.Instruction) cptdrv.Result {
		inst.Op = cptdrv.Op(cptdrv.MajorFC, minor)
		inst.Param1 = cipherID
		return fcExec(t, q, async, ctxMem, inst)
	}
	unit := 1
	switch cipherID {
	case cptdrv.CipherAESCBC:
		unit = 16
	case cptdrv.Cipher3DESCBC:
		unit = 8
	}
	flags := cptdrv.FlagStart
	for off := 0; off < len(msg); {
		n := unit * (1 + rng.Intn((len(msg)-off)/unit))
		inst := cptdrv.Instruction{Param2: flags}
		pre := 0
		if !inPlace && rng.Intn(3) == 0 {
			// The first bytes (a block for CBC) travel in the context.
			pre = min(n, unit*(1+rng.Intn(64/unit)))
			copy(ctx.AAD[:], msg[off:off+pre])
			ctx.AADLen = uint32(pre)
			inst.Param2 |= cptdrv.FlagCtxData
		}
		inst.DPtr, inst.DLen = cptdrv.Addr(in[off+pre:]), uint32(n-pre)
		inst.RPtr, inst.RLen = cptdrv.Addr(out[off:]), uint32(n)
		r := exec(inst)
		if r.CompCode != cptdrv.CompGood || r.UCCode != cptdrv.UCSuccess || r.RLen != uint32(n) {
			t.Fatalf("piece at %d of %d bytes: %+v", off, n, r)
		}
		if ctx.AADLen != 0 {
			t.Fatal("prefix not consumed")
		}
		flags, off = 0, off+n
	}
	return append([]byte(nil), out[:len(msg)]...)
}

// TestBlockModesThroughDevice runs CBC and CTR streams against
// crypto/cipher, on the AES-NI loop and (a device of its own, so no key is
// cached) on the portable one.
func TestBlockModesThroughDevice(t *testing.T) {
	if aesni.Available {
		t.Run("aesni", func(t *testing.T) { testBlockModes(t, 300) })
		aesni.Available = false
		defer func() { aesni.Available = true }()
	}
	t.Run("generic", func(t *testing.T) { testBlockModes(t, 100) })
}

func testBlockModes(t *testing.T, iters int) {
	_, q := newQueue(t, Config{SEEngines: 2})
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < iters; i++ {
		key := make([]byte, []int{16, 24, 32}[i%3])
		iv := make([]byte, 16)
		rng.Read(key)
		rng.Read(iv)
		if i%10 == 0 { // the counter wraps around 2^128 inside the message
			for j := range iv {
				iv[j] = 0xff
			}
			iv[15] = 0xfe
		}
		blocks := rng.Intn(80)
		if i%50 == 0 {
			blocks = 4096
		}
		b, _ := aes.NewCipher(key)
		async, inPlace := i%2 == 1, i%4 >= 2

		msg := make([]byte, 16*blocks)
		rng.Read(msg)
		want := make([]byte, len(msg))
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(want, msg)
		if got := blockStream(t, q, cptdrv.CipherAESCBC, true, async, inPlace, key, iv, msg, rng); !bytes.Equal(got, want) {
			t.Fatalf("CBC encrypt, %d blocks: mismatch", blocks)
		}
		if got := blockStream(t, q, cptdrv.CipherAESCBC, false, async, inPlace, key, iv, want, rng); !bytes.Equal(got, msg) {
			t.Fatalf("CBC decrypt, %d blocks: mismatch", blocks)
		}

		// 3DES-CBC, 8-byte blocks.
		key3, iv3 := make([]byte, 24), make([]byte, 8)
		rng.Read(key3)
		rng.Read(iv3)
		b3, _ := des.NewTripleDESCipher(key3)
		want3 := make([]byte, len(msg)/2)
		cipher.NewCBCEncrypter(b3, iv3).CryptBlocks(want3, msg[:len(msg)/2])
		if got := blockStream(t, q, cptdrv.Cipher3DESCBC, true, async, inPlace, key3, iv3, msg[:len(msg)/2], rng); !bytes.Equal(got, want3) {
			t.Fatalf("3DES-CBC encrypt, %d bytes: mismatch", len(want3))
		}
		if got := blockStream(t, q, cptdrv.Cipher3DESCBC, false, async, inPlace, key3, iv3, want3, rng); !bytes.Equal(got, msg[:len(msg)/2]) {
			t.Fatalf("3DES-CBC decrypt, %d bytes: mismatch", len(want3))
		}

		msg = msg[:len(msg)-rng.Intn(16)*min(1, len(msg))]
		want = make([]byte, len(msg))
		cipher.NewCTR(b, iv).XORKeyStream(want, msg)
		for _, enc := range []bool{true, false} {
			if got := blockStream(t, q, cptdrv.CipherAESCTR, enc, async, inPlace, key, iv, msg, rng); !bytes.Equal(got, want) {
				t.Fatalf("CTR, %d bytes: mismatch", len(msg))
			}
		}
	}
}

// A CBC instruction that is not whole blocks is refused, and so is one
// whose output area is too small; neither writes anything.
func TestBlockModeBadInstructions(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 1})
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	ctx := cptdrv.ContextAt(cptdrv.Addr(ctxMem))
	ctx.KeyLen, ctx.KeyID, ctx.IVLen = 16, 7, 16
	buf := dmaBuf(t, 64)
	for _, tc := range []struct {
		name      string
		inst      cptdrv.Instruction
		comp, ucc uint8
	}{
		{"partial CBC block", cptdrv.Instruction{Param1: cptdrv.CipherAESCBC, DLen: 15, RLen: 15}, cptdrv.CompGood, cptdrv.UCBadLength},
		{"short output", cptdrv.Instruction{Param1: cptdrv.CipherAESCTR, DLen: 32, RLen: 16}, cptdrv.CompBadInst, 0},
		{"unknown flag", cptdrv.Instruction{Param1: cptdrv.CipherAESCTR, Param2: cptdrv.FlagFinal, DLen: 16, RLen: 16}, cptdrv.CompBadInst, 0},
		{"unknown cipher", cptdrv.Instruction{Param1: 99, DLen: 16, RLen: 16}, cptdrv.CompBadInst, 0},
	} {
		inst := tc.inst
		inst.Op = cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorEnc)
		inst.CPtr = cptdrv.Addr(ctxMem)
		inst.DPtr, inst.RPtr = cptdrv.Addr(buf), cptdrv.Addr(buf)
		res, err := q.Do(&inst)
		if err != nil || res.CompCode != tc.comp || res.UCCode != tc.ucc {
			t.Errorf("%s: %+v, %v", tc.name, res, err)
		}
	}
	ctx.IVLen = 12 // not a block mode's IV
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorEnc), Param1: cptdrv.CipherAESCBC, CPtr: cptdrv.Addr(ctxMem), DLen: 16, RLen: 16, DPtr: cptdrv.Addr(buf), RPtr: cptdrv.Addr(buf)}
	if res, _ := q.Do(&inst); res.UCCode != cptdrv.UCBadContext {
		t.Errorf("bad IV length: %+v", res)
	}
}
