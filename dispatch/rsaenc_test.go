// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"strings"
	"testing"
)

func TestRSAEncryptionAgainstCryptoRSA(t *testing.T) {
	env := testEnv(t)
	ac := AsymCipherByID(AsymRSA)
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	st := importRSA(t, env, key)
	ctx, out := dma(t, int(ac.StateSize())), dma(t, 256)
	msg := []byte("the pre-master secret of cptprov")
	for _, async := range []bool{false, true} {
		// PKCS#1 v1.5 both ways.
		if err := ac.Init(env, ptr(ctx), ptr(st), OpEncrypt, Params{}); err != nil {
			t.Fatal(err)
		}
		n, err := call(async, func(w Waiter) (int, bool, *Error) {
			return ac.Encrypt(env, ptr(ctx), ptr(st), ptr(out), len(out), msg, nil, w)
		})
		if err != nil || n != 256 {
			t.Fatal(n, err)
		}
		if pt, err := rsa.DecryptPKCS1v15(nil, key, out); err != nil || !bytes.Equal(pt, msg) {
			t.Fatalf("crypto/rsa cannot decrypt: %v", err)
		}
		ct, _ := rsa.EncryptOAEP(sha256.New(), rand.Reader, &key.PublicKey, msg, []byte("L"))
		in := dma(t, len(ct))
		copy(in, ct)
		pad, md := dma(t, 4), dma(t, 6)
		copy(pad, "oaep")
		copy(md, "SHA256")
		var l paramList
		l.add("pad-mode", TypeUTF8, ptr(pad), 4)
		l.add("digest", TypeUTF8, ptr(md), 6)
		if err := ac.Init(env, ptr(ctx), ptr(st), OpDecrypt, l.params()); err != nil {
			t.Fatal(err)
		}
		n, err = call(async, func(w Waiter) (int, bool, *Error) {
			return ac.Decrypt(env, ptr(ctx), ptr(st), ptr(out), len(out), in, []byte("L"), w)
		})
		if err != nil || !bytes.Equal(out[:n], msg) {
			t.Fatalf("OAEP decryption: %d %v", n, err)
		}
		in[7] ^= 1
		if _, err := call(async, func(w Waiter) (int, bool, *Error) {
			return ac.Decrypt(env, ptr(ctx), ptr(st), ptr(out), len(out), in, []byte("L"), w)
		}); err == nil {
			t.Fatal("a tampered OAEP ciphertext decrypted")
		}
	}
}

// An unpadded input not below the modulus is refused both ways with an
// error that says so: the device's verdict on it is an RSA operand's, not
// the curves' "point not on the curve".
func TestRSAOperandAboveModulus(t *testing.T) {
	env := testEnv(t)
	ac := AsymCipherByID(AsymRSA)
	key, _ := rsa.GenerateKey(rand.Reader, 1024)
	st := importRSA(t, env, key)
	ctx, out, in, pad := dma(t, int(ac.StateSize())), dma(t, 128), dma(t, 128), dma(t, 4)
	copy(in, bytes.Repeat([]byte{0xff}, 128))
	copy(pad, "none")
	var l paramList
	l.add("pad-mode", TypeUTF8, ptr(pad), 4)
	for _, op := range []int{OpEncrypt, OpDecrypt} {
		for _, async := range []bool{false, true} {
			if err := ac.Init(env, ptr(ctx), ptr(st), op, l.params()); err != nil {
				t.Fatal(err)
			}
			_, err := call(async, func(w Waiter) (int, bool, *Error) {
				if op == OpEncrypt {
					return ac.Encrypt(env, ptr(ctx), ptr(st), ptr(out), len(out), in, nil, w)
				}
				return ac.Decrypt(env, ptr(ctx), ptr(st), ptr(out), len(out), in, nil, w)
			})
			if err == nil || err.Reason != ReasonDataTooLargeForModulus || !strings.Contains(err.Msg, "modulus") ||
				strings.Contains(err.Msg, "curve") {
				t.Fatalf("op %d (async %v): %v", op, async, err)
			}
		}
	}
}

// The constant-time unpadding functions agree with the RFC on good and bad
// blocks.
func TestPKCS1Unpad(t *testing.T) {
	em := make([]byte, 64)
	em[1] = 2
	for i := 2; i < 40; i++ {
		em[i] = 0xaa
	}
	copy(em[41:], bytes.Repeat([]byte{7}, 23))
	if n, ok := pkcs1Unpad(em); ok != 1 || n != 23 {
		t.Fatalf("good block: %d %d", n, ok)
	}
	em[5] = 0 // zero inside the first eight padding bytes
	if _, ok := pkcs1Unpad(em); ok != 0 {
		t.Fatal("short padding accepted")
	}
	em[5], em[1] = 0xaa, 1
	if _, ok := pkcs1Unpad(em); ok != 0 {
		t.Fatal("block type 1 accepted for decryption")
	}
}
