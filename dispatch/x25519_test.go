// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"testing"
	"unsafe"
)

func TestX25519GenerateDeriveMatchesCryptoECDH(t *testing.T) {
	env := testEnv(t)
	kt := KeyTypeByID(KeyX25519)
	for i := 0; i < 50; i++ {
		async := i%2 == 1
		key := dma(t, int(kt.StateSize()))
		gen := dma(t, int(kt.GenStateSize()))
		if _, err := call(async, func(w Waiter) (int, bool, *Error) {
			p, err := kt.Generate(env, ptr(gen), ptr(key), SelectKeypair, w)
			return 0, p, err
		}); err != nil {
			t.Fatal(err)
		}
		k := (*x25519Key)(ptr(key))
		if k.head.Has != KeyHasPublic|KeyHasPrivate {
			t.Fatalf("generated key has %#x", k.head.Has)
		}
		// crypto/ecdh agrees on the public key and the shared secret.
		mine, err := ecdh.X25519().NewPrivateKey(k.priv[:])
		if err != nil || !bytes.Equal(mine.PublicKey().Bytes(), k.pub[:]) {
			t.Fatalf("public key differs from crypto/ecdh's")
		}
		other, _ := ecdh.X25519().GenerateKey(rand.Reader)
		peer := dma(t, int(kt.StateSize()))
		var l paramList
		pubBuf := dma(t, 32)
		copy(pubBuf, other.PublicKey().Bytes())
		l.add("encoded-pub-key", TypeOctet, ptr(pubBuf), 32)
		if err := kt.SetParams(env, ptr(peer), l.params()); err != nil {
			t.Fatal(err)
		}
		out, scratch := dma(t, 32), dma(t, ScratchSize)
		n, derr := call(async, func(w Waiter) (int, bool, *Error) {
			return kt.Derive(env, ptr(key), ptr(peer), ptr(scratch), ptr(out), 32, w)
		})
		want, _ := other.ECDH(mine.PublicKey())
		if derr != nil || n != 32 || !bytes.Equal(out, want) {
			t.Fatalf("derive (async=%v): %d %v\n got %x\nwant %x", async, n, derr, out, want)
		}
		if !bytes.Equal(scratch, make([]byte, ScratchSize)) {
			t.Fatal("the private key was left in the operand memory")
		}
		if kt.Validate(env, ptr(key), SelectKeypair) != nil || !kt.Match(ptr(key), ptr(key), SelectKeypair) {
			t.Fatal("a generated key does not validate or match itself")
		}
	}
}

func TestX25519ImportErrors(t *testing.T) {
	env := testEnv(t)
	kt := KeyTypeByID(KeyX25519)
	key := dma(t, int(kt.StateSize()))
	short := dma(t, 31)
	var l paramList
	l.add("priv", TypeOctet, ptr(short), 31)
	if err := kt.Import(env, ptr(key), SelectKeypair, l.params()); err == nil || err.Reason != ReasonBadParameter {
		t.Fatalf("31-byte private key: %v", err)
	}
	if err := kt.Import(env, ptr(key), SelectKeypair, Params{}); err == nil || err.Reason != ReasonMissingKey {
		t.Fatalf("no key: %v", err)
	}
	// A low-order peer point gives an all-zero secret: refused.
	priv := dma(t, 32)
	rand.Read(priv)
	var l2 paramList
	l2.add("priv", TypeOctet, ptr(priv), 32)
	if err := kt.Import(env, ptr(key), SelectKeypair, l2.params()); err != nil {
		t.Fatal(err)
	}
	peer := dma(t, int(kt.StateSize()))
	(*x25519Key)(unsafe.Pointer(&peer[0])).head = KeyHead{Type: KeyX25519, Has: KeyHasPublic}
	out, scratch := dma(t, 32), dma(t, ScratchSize)
	if _, _, err := kt.Derive(env, ptr(key), ptr(peer), ptr(scratch), ptr(out), 32, nil); err == nil || err.Reason != ReasonInvalidKey {
		t.Fatalf("low-order peer: %v", err)
	}
}
