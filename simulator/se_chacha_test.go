// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
	"unsafe"

	"golang.org/x/crypto/chacha20"
	"golang.org/x/crypto/chacha20poly1305"

	"cptprov/cptdrv"
)

// chachaRef is OpenSSL's ChaCha20 built from x/crypto's: a 64-bit block
// counter in the IV's first 8 bytes (little-endian), whose high word is the
// nonce's first word.
func chachaRef(key, iv, msg []byte) []byte {
	out := make([]byte, len(msg))
	ctr := binary.LittleEndian.Uint64(iv[:8])
	for off := 0; off < len(msg); off += 64 {
		nonce := make([]byte, 12)
		binary.LittleEndian.PutUint32(nonce, uint32(ctr>>32))
		copy(nonce[4:], iv[8:16])
		c, err := chacha20.NewUnauthenticatedCipher(key, nonce)
		if err != nil {
			panic(err)
		}
		c.SetCounter(uint32(ctr))
		end := min(off+64, len(msg))
		c.XORKeyStream(out[off:end], msg[off:end])
		ctr++
	}
	return out
}

// fcExec runs one MajorFC instruction on the context at ctxMem.
func fcExec(t *testing.T, q *cptdrv.Queue, async bool, ctxMem []byte, inst cptdrv.Instruction) cptdrv.Result {
	t.Helper()
	inst.CPtr = cptdrv.Addr(ctxMem)
	if !async {
		res, err := q.Do(&inst)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ch := make(chan cptdrv.Result, 1)
	if err := q.Submit(&inst, func(r cptdrv.Result) { ch <- r }); err != nil {
		t.Fatal(err)
	}
	return <-ch
}

func TestChaCha20ThroughDevice(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 2})
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		key, iv := make([]byte, 32), make([]byte, 16)
		rng.Read(key)
		rng.Read(iv)
		if i%5 == 0 { // the low counter word carries into the nonce's first word
			binary.LittleEndian.PutUint32(iv, 0xffffffff-uint32(rng.Intn(3)))
		}
		msg := make([]byte, rng.Intn(3000))
		rng.Read(msg)
		want := chachaRef(key, iv, msg)

		ctxMem := newCipherContext(t, key, iv)
		buf := dmaBuf(t, len(msg)+1)
		copy(buf, msg)
		flags := cptdrv.FlagStart
		for off := 0; off < len(msg); {
			n := min(rng.Intn(200), len(msg)-off)
			res := fcExec(t, q, i%2 == 1, ctxMem, cptdrv.Instruction{
				Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorEnc), Param1: cptdrv.CipherChaCha20, Param2: flags,
				DPtr: cptdrv.Addr(buf[off:]), DLen: uint32(n), RPtr: cptdrv.Addr(buf[off:]), RLen: uint32(n),
			})
			if res.CompCode != cptdrv.CompGood || res.UCCode != cptdrv.UCSuccess || int(res.RLen) != n {
				t.Fatalf("case %d: completion %+v", i, res)
			}
			flags = 0
			off += n
		}
		if !bytes.Equal(buf[:len(msg)], want) {
			t.Fatalf("case %d: %d bytes differ from the reference", i, len(msg))
		}
	}
}

// newCipherContext returns device memory holding a context with key and iv.
func newCipherContext(t *testing.T, key, iv []byte) []byte {
	mem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	var c cptdrv.CipherContext
	copy(c.Key[:], key)
	copy(c.IV[:], iv)
	c.KeyLen, c.IVLen = uint32(len(key)), uint32(len(iv))
	*cptdrv.ContextAt(cptdrv.Addr(mem)) = c
	return mem
}

// chachaPolyMsg drives one ChaCha20-Poly1305 message through the device in
// random pieces and returns the output and (encrypting) the tag or
// (decrypting, against tag) the completion code of final.
func chachaPolyMsg(t *testing.T, q *cptdrv.Queue, rng *rand.Rand, async, enc bool, ctxMem []byte, key, nonce, aad, msg, tag []byte) ([]byte, []byte, uint8) {
	t.Helper()
	ctx := cptdrv.ContextAt(cptdrv.Addr(ctxMem))
	copy(ctx.Key[:], key)
	ctx.KeyLen, ctx.IVLen = 32, 12
	copy(ctx.IV[:], nonce)
	minor := uint8(cptdrv.MinorDec)
	if enc {
		minor = cptdrv.MinorEnc
	}
	inst := func(flags uint16) cptdrv.Instruction {
		return cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, minor), Param1: cptdrv.CipherChaChaPoly, Param2: flags}
	}
	check := func(res cptdrv.Result) {
		t.Helper()
		if res.CompCode != cptdrv.CompGood || res.UCCode != cptdrv.UCSuccess {
			t.Fatalf("completion %+v", res)
		}
	}
	// Small AAD rides in the context; larger goes as instructions.
	start := cptdrv.FlagStart
	if len(aad) <= len(ctx.AAD) && rng.Intn(2) == 0 {
		copy(ctx.AAD[:], aad)
		ctx.AADLen = uint32(len(aad))
		start |= cptdrv.FlagCtxAAD
		aad = nil
	}
	check(fcExec(t, q, async, ctxMem, inst(start)))
	abuf := dmaBuf(t, len(aad)+1)
	copy(abuf, aad)
	for off := 0; off < len(aad); {
		n := 1 + rng.Intn(len(aad)-off)
		in := inst(cptdrv.FlagAAD)
		in.DPtr, in.DLen = cptdrv.Addr(abuf[off:]), uint32(n)
		check(fcExec(t, q, async, ctxMem, in))
		off += n
	}
	buf := dmaBuf(t, len(msg)+1)
	copy(buf, msg)
	for off := 0; off < len(msg); {
		n := min(rng.Intn(300), len(msg)-off)
		in := inst(cptdrv.FlagRunningTag)
		in.DPtr, in.DLen, in.RPtr, in.RLen = cptdrv.Addr(buf[off:]), uint32(n), cptdrv.Addr(buf[off:]), uint32(n)
		check(fcExec(t, q, async, ctxMem, in))
		off += n
	}
	if !enc {
		copy(ctx.Tag[:], tag)
		ctx.TagLen = uint32(len(tag))
	}
	res := fcExec(t, q, async, ctxMem, inst(cptdrv.FlagFinal))
	if enc {
		check(res)
		return buf[:len(msg)], append([]byte(nil), ctx.Tag[:]...), res.UCCode
	}
	return buf[:len(msg)], nil, res.UCCode
}

func TestChaChaPolyThroughDevice(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 2})
	rng := rand.New(rand.NewSource(2))
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	flush := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorCtxFlush), Param1: cptdrv.CipherChaChaPoly}
	defer fcExec(t, q, false, ctxMem, flush)
	for i := 0; i < 200; i++ {
		key, nonce := make([]byte, 32), make([]byte, 12)
		rng.Read(key)
		rng.Read(nonce)
		aad, msg := make([]byte, rng.Intn(150)), make([]byte, rng.Intn(5000))
		rng.Read(aad)
		rng.Read(msg)
		a, _ := chacha20poly1305.New(key)
		want := a.Seal(nil, nonce, msg, aad)
		async := i%2 == 1
		ct, tag, _ := chachaPolyMsg(t, q, rng, async, true, ctxMem, key, nonce, aad, msg, nil)
		if !bytes.Equal(append(append([]byte(nil), ct...), tag...), want) {
			t.Fatalf("case %d: sealed message differs from x/crypto's", i)
		}
		tl := 1 + rng.Intn(16)
		pt, _, uc := chachaPolyMsg(t, q, rng, async, false, ctxMem, key, nonce, aad, want[:len(msg)], tag[:tl])
		if uc != cptdrv.UCSuccess || !bytes.Equal(pt, msg) {
			t.Fatalf("case %d: opening failed (uc %d)", i, uc)
		}
		bad := append([]byte(nil), tag[:tl]...)
		bad[rng.Intn(tl)] ^= 1
		if _, _, uc := chachaPolyMsg(t, q, rng, async, false, ctxMem, key, nonce, aad, want[:len(msg)], bad); uc != cptdrv.UCAuthFail {
			t.Fatalf("case %d: a bad tag gave uc %d", i, uc)
		}
	}
}

// A TLS record in one instruction: start, AAD from the context, the tag
// appended when sealing and checked (output wiped on failure) when opening.
func TestChaChaPolyTagInline(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 1})
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	ctx := cptdrv.ContextAt(cptdrv.Addr(ctxMem))
	defer fcExec(t, q, false, ctxMem, cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorCtxFlush), Param1: cptdrv.CipherChaChaPoly})
	key, nonce, aad := bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{9}, 12), []byte("thirteen byte")
	msg := bytes.Repeat([]byte("record "), 100)
	a, _ := chacha20poly1305.New(key)
	want := a.Seal(nil, nonce, msg, aad)
	buf := dmaBuf(t, len(msg)+16)
	copy(buf, msg)
	for _, enc := range []bool{true, false} {
		copy(ctx.Key[:], key)
		ctx.KeyLen, ctx.IVLen = 32, 12
		copy(ctx.IV[:], nonce)
		copy(ctx.AAD[:], aad)
		ctx.AADLen = uint32(len(aad))
		minor := uint8(cptdrv.MinorDec)
		if enc {
			minor = cptdrv.MinorEnc
		}
		res := fcExec(t, q, false, ctxMem, cptdrv.Instruction{
			Op: cptdrv.Op(cptdrv.MajorFC, minor), Param1: cptdrv.CipherChaChaPoly,
			Param2: cptdrv.FlagStart | cptdrv.FlagCtxAAD | cptdrv.FlagFinal | cptdrv.FlagTagInline,
			DPtr:   cptdrv.Addr(buf), DLen: uint32(len(msg)), RPtr: cptdrv.Addr(buf), RLen: uint32(len(msg) + 16),
		})
		if res.UCCode != cptdrv.UCSuccess {
			t.Fatalf("enc=%v: uc %d", enc, res.UCCode)
		}
		if enc && !bytes.Equal(buf, want) {
			t.Fatal("sealed record differs from x/crypto's")
		}
	}
	if !bytes.Equal(buf[:len(msg)], msg) {
		t.Fatal("opened record differs")
	}
	// sealed again, a bit flipped, opened: rejected and wiped
	copy(buf, want)
	buf[3] ^= 1
	copy(ctx.AAD[:], aad)
	ctx.AADLen = uint32(len(aad))
	res := fcExec(t, q, false, ctxMem, cptdrv.Instruction{
		Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorDec), Param1: cptdrv.CipherChaChaPoly,
		Param2: cptdrv.FlagStart | cptdrv.FlagCtxAAD | cptdrv.FlagFinal | cptdrv.FlagTagInline,
		DPtr:   cptdrv.Addr(buf), DLen: uint32(len(msg)), RPtr: cptdrv.Addr(buf), RLen: uint32(len(msg) + 16),
	})
	if res.UCCode != cptdrv.UCAuthFail || !bytes.Equal(buf[:len(msg)], make([]byte, len(msg))) {
		t.Fatalf("forged record: uc %d, output wiped: %v", res.UCCode, bytes.Equal(buf[:len(msg)], make([]byte, len(msg))))
	}
}

// A byte copy of a context taken mid-message gets its own stream with
// MinorCtxClone: both finish the message alike; each is flushed.
func TestChaChaPolyClone(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 1})
	size := int(unsafe.Sizeof(cptdrv.CipherContext{}))
	orig, copyMem := dmaBuf(t, size), dmaBuf(t, size)
	ctx := cptdrv.ContextAt(cptdrv.Addr(orig))
	key, nonce, msg := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 12), bytes.Repeat([]byte{3}, 1000)
	a, _ := chacha20poly1305.New(key)
	want := a.Seal(nil, nonce, msg, nil)
	copy(ctx.Key[:], key)
	ctx.KeyLen, ctx.IVLen = 32, 12
	copy(ctx.IV[:], nonce)
	buf := [2][]byte{dmaBuf(t, len(msg)), dmaBuf(t, len(msg))}
	copy(buf[0], msg)
	copy(buf[1], msg)
	op := func(minor uint8, flags uint16, mem, b []byte) cptdrv.Result {
		in := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, minor), Param1: cptdrv.CipherChaChaPoly, Param2: flags}
		if b != nil {
			in.DPtr, in.DLen, in.RPtr, in.RLen = cptdrv.Addr(b), uint32(len(b)), cptdrv.Addr(b), uint32(len(b))
		}
		return fcExec(t, q, false, mem, in)
	}
	op(cptdrv.MinorEnc, cptdrv.FlagStart, orig, buf[0][:500])
	copy(copyMem, orig)
	if res := op(cptdrv.MinorCtxClone, 0, copyMem, nil); res.UCCode != cptdrv.UCSuccess {
		t.Fatalf("clone: %+v", res)
	}
	copy(buf[1][:500], buf[0][:500])
	for i, mem := range [][]byte{orig, copyMem} {
		op(cptdrv.MinorEnc, 0, mem, buf[i][500:])
		op(cptdrv.MinorEnc, cptdrv.FlagFinal, mem, nil)
		got := append(append([]byte(nil), buf[i]...), cptdrv.ContextAt(cptdrv.Addr(mem)).Tag[:]...)
		if !bytes.Equal(got, want) {
			t.Fatalf("context %d: message differs from x/crypto's", i)
		}
		if res := op(cptdrv.MinorCtxFlush, 0, mem, nil); res.UCCode != cptdrv.UCSuccess {
			t.Fatalf("flush: %+v", res)
		}
	}
	// an instruction on a flushed context without FlagStart is refused
	if res := op(cptdrv.MinorEnc, 0, orig, buf[0][:10]); res.UCCode != cptdrv.UCBadState {
		t.Fatalf("flushed context: %+v", res)
	}
}
