// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"math/rand"
	"testing"
	"unsafe"
)

// blockRun drives a whole message through a block cipher in random update
// sizes (each update's output checked against the EVP rules: whole blocks,
// the last one held back when decrypting with padding) and returns the
// output, or the first error.
func blockRun(t *testing.T, env *Env, b Cipher, enc, pad, async bool, key, iv, msg []byte, rng *rand.Rand) ([]byte, *Error) {
	t.Helper()
	st := dma(t, int(b.StateSize()))
	in := dma(t, len(msg)+1)
	copy(in, msg)
	out := dma(t, len(msg)+2*maxBlock)
	if err := b.Init(env, ptr(st), enc, key, true, iv, true, Params{}); err != nil {
		t.Fatal(err)
	}
	if !pad {
		var l paramList
		zero := uint32(0)
		l.add("padding", TypeUnsigned, unsafe.Pointer(&zero), unsafe.Sizeof(zero))
		if err := b.SetCtxParams(env, ptr(st), l.params()); err != nil {
			t.Fatal(err)
		}
	}
	done := 0
	for off := 0; off < len(msg); {
		n := rng.Intn(len(msg) - off + 1)
		if rng.Intn(4) == 0 {
			n = min(len(msg)-off, maxBlock*rng.Intn(4))
		}
		got, err := call(async, func(w Waiter) (int, bool, *Error) {
			return b.Update(env, ptr(st), ptr(out[done:]), len(out)-done, ptr(in[off:]), n, w)
		})
		if err != nil {
			return nil, err
		}
		done += got
		off += n
	}
	got, err := call(async, func(w Waiter) (int, bool, *Error) {
		return b.Final(env, ptr(st), ptr(out[done:]), len(out)-done, w)
	})
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), out[:done+got]...), nil
}

func pkcs7(msg []byte, bs int) []byte {
	p := bs - len(msg)%bs
	return append(append([]byte(nil), msg...), bytes.Repeat([]byte{byte(p)}, p)...)
}

// refBlock is the crypto/... block cipher of b, for reference results.
func refBlock(b blockCipher, key []byte) cipher.Block {
	if b.block == 8 {
		c, _ := des.NewTripleDESCipher(key)
		return c
	}
	c, _ := aes.NewCipher(key)
	return c
}

func TestBlockCiphersMatchCryptoCipher(t *testing.T) {
	env := testEnv(t)
	rng := rand.New(rand.NewSource(4))
	for i := 0; i < 400; i++ {
		id := []int{AlgAES128CBC, AlgAES192CBC, AlgAES256CBC, AlgAES128CTR, AlgAES192CTR, AlgAES256CTR, AlgDESEDE3CBC}[i%7]
		b := CipherByID(id).(blockCipher)
		key, iv := make([]byte, b.keyLen), make([]byte, b.block)
		rng.Read(key)
		rng.Read(iv)
		msg := make([]byte, rng.Intn(700))
		rng.Read(msg)
		async := i%2 == 1
		blk := refBlock(b, key)
		if !b.padded {
			want := make([]byte, len(msg))
			cipher.NewCTR(blk, iv).XORKeyStream(want, msg)
			for _, enc := range []bool{true, false} {
				got, err := blockRun(t, env, b, enc, true, async, key, iv, msg, rng)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s, %d bytes: %v", b.name, len(msg), err)
				}
			}
			continue
		}
		// With padding the message is any length; without, whole blocks.
		pad := i%4 < 2
		input, padded := msg, pkcs7(msg, b.block)
		if !pad {
			input = msg[:len(msg)-len(msg)%b.block]
			padded = input
		}
		want := make([]byte, len(padded))
		cipher.NewCBCEncrypter(blk, iv).CryptBlocks(want, padded)
		got, err := blockRun(t, env, b, true, pad, async, key, iv, input, rng)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s encrypt, %d bytes, padding %v: %v", b.name, len(input), pad, err)
		}
		back, err := blockRun(t, env, b, false, pad, async, key, iv, want, rng)
		if err != nil || !bytes.Equal(back, input) {
			t.Fatalf("%s decrypt, %d bytes, padding %v: %v", b.name, len(input), pad, err)
		}
	}
}

// The errors OpenSSL's CBC gives: a ciphertext that is not whole blocks,
// bad padding, unpadded plaintext that is not whole blocks, no key.
func TestBlockCipherErrors(t *testing.T) {
	env := testEnv(t)
	rng := rand.New(rand.NewSource(5))
	b := CipherByID(AlgAES128CBC)
	key, iv := make([]byte, 16), make([]byte, 16)
	if _, err := blockRun(t, env, b, false, true, false, key, iv, make([]byte, 33), rng); reason(err) != ReasonWrongFinalBlockLength {
		t.Errorf("33-byte ciphertext: %v", err)
	}
	if _, err := blockRun(t, env, b, true, false, false, key, iv, make([]byte, 20), rng); reason(err) != ReasonWrongFinalBlockLength {
		t.Errorf("unpadded 20 bytes: %v", err)
	}
	// Zero blocks decrypt to garbage padding (all zero after CBC with a
	// zero key is not a valid PKCS#7 block in practice).
	blk, _ := aes.NewCipher(key)
	bad := make([]byte, 32)
	plain := bytes.Repeat([]byte{0x11}, 32) // last byte 0x11 > 16: invalid padding
	cipher.NewCBCEncrypter(blk, iv).CryptBlocks(bad, plain)
	if _, err := blockRun(t, env, b, false, true, false, key, iv, bad, rng); reason(err) != ReasonBadDecrypt {
		t.Errorf("bad padding: %v", err)
	}
	st := dma(t, int(b.StateSize()))
	buf := dma(t, 64)
	if _, _, err := b.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 16, nil); reason(err) != ReasonMissingKey {
		t.Errorf("no key: %v", err)
	}
	if err := b.Init(env, ptr(st), true, key[:15], true, nil, false, Params{}); reason(err) != ReasonInvalidKeyLength {
		t.Errorf("short key: %v", err)
	}
	if err := b.Init(env, ptr(st), true, key, true, iv[:12], true, Params{}); reason(err) != ReasonInvalidIVLength {
		t.Errorf("short IV: %v", err)
	}
	if err := b.Init(env, ptr(st), true, key, true, iv, true, Params{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Update(env, ptr(st), ptr(buf), 15, ptr(buf), 32, nil); reason(err) != ReasonOutputTooSmall {
		t.Errorf("small output: %v", err)
	}
}

// A stream exported halfway and imported into a fresh context (as the C
// side's CPU path and the device hand it over) finishes the same message,
// CTR streams in the middle of a keystream block included.
func TestBlockStreamExportImport(t *testing.T) {
	env := testEnv(t)
	rng := rand.New(rand.NewSource(6))
	for i := 0; i < 200; i++ {
		id := []int{AlgAES128CBC, AlgAES256CTR, AlgDESEDE3CBC}[i%3]
		b := CipherByID(id).(blockCipher)
		key, iv := make([]byte, b.keyLen), make([]byte, b.block)
		rng.Read(key)
		rng.Read(iv)
		msg := make([]byte, 1+rng.Intn(200))
		rng.Read(msg)
		// Random bytes are no padded ciphertext: decryptions run unpadded.
		enc := i%4 < 2
		pad := enc
		want, err := blockRun(t, env, b, enc, pad, false, key, iv, msg[:len(msg)&^15], rng)
		if err != nil {
			t.Fatal(err)
		}
		in := msg[:len(msg)&^15]
		a, z := dma(t, int(b.StateSize())), dma(t, int(b.StateSize()))
		src := dma(t, len(in)+1)
		copy(src, in)
		out := dma(t, len(in)+2*maxBlock)
		var l paramList
		zero := uint32(0)
		if !pad {
			l.add("padding", TypeUnsigned, unsafe.Pointer(&zero), unsafe.Sizeof(zero))
		}
		if err := b.Init(env, ptr(a), enc, key, true, iv, true, l.params()); err != nil {
			t.Fatal(err)
		}
		// The importing context knows the key only.
		if err := b.Init(env, ptr(z), !enc, key, true, nil, false, Params{}); err != nil {
			t.Fatal(err)
		}
		cut := rng.Intn(len(in) + 1)
		n1, _, err := b.Update(env, ptr(a), ptr(out), len(out), ptr(src), cut, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.ImportStream(env, ptr(z), b.ExportStream(env, ptr(a))); err != nil {
			t.Fatal(err)
		}
		n2, _, err := b.Update(env, ptr(z), ptr(out[n1:]), len(out)-n1, ptr(src[cut:]), len(in)-cut, nil)
		if err != nil {
			t.Fatal(err)
		}
		n3, _, err := b.Final(env, ptr(z), ptr(out[n1+n2:]), len(out)-n1-n2, nil)
		if err != nil || !bytes.Equal(out[:n1+n2+n3], want) {
			t.Fatalf("%s, %d bytes cut at %d, encrypt %v: %v", b.name, len(in), cut, enc, err)
		}
	}
}
