// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/ecdh"
	"testing"
)

func TestECGenerateDeriveImportMatchCryptoECDH(t *testing.T) {
	env := testEnv(t)
	kt := KeyTypeByID(KeyEC)
	for _, tc := range []struct {
		group string
		curve ecdh.Curve
	}{{"P-256", ecdh.P256()}, {"secp384r1", ecdh.P384()}, {"P-521", ecdh.P521()}} {
		for i := 0; i < 10; i++ {
			async := i%2 == 1
			gen, key := dma(t, int(kt.GenStateSize())), dma(t, int(kt.StateSize()))
			name := dma(t, len(tc.group))
			copy(name, tc.group)
			var l paramList
			l.add("group", TypeUTF8, ptr(name), uintptr(len(name)))
			if err := kt.GenSetParams(env, ptr(gen), l.params()); err != nil {
				t.Fatal(err)
			}
			if _, err := call(async, func(w Waiter) (int, bool, *Error) {
				p, err := kt.Generate(env, ptr(gen), ptr(key), SelectKeypair, w)
				return 0, p, err
			}); err != nil {
				t.Fatal(err)
			}
			k := (*ecKey)(ptr(key))
			mine, err := tc.curve.NewPrivateKey(k.privBytes())
			if err != nil || !bytes.Equal(mine.PublicKey().Bytes(), k.pubBytes()) {
				t.Fatalf("%s: generated public key differs from crypto/ecdh's", tc.group)
			}
			// Export: the private scalar goes out as a big-endian unsigned.
			params, e := kt.Export(env, ptr(key), SelectKeypair|SelectDomain)
			if e != nil || len(params) != 3 || params[2].Type != TypeUnsigned || !bytes.Equal(params[2].Data, k.privBytes()) {
				t.Fatalf("%s: export %+v %v", tc.group, params, e)
			}
			// A peer key from crypto/ecdh, given as TLS gives it.
			other, _ := tc.curve.GenerateKey(nil)
			peer := dma(t, int(kt.StateSize()))
			(*ecKey)(ptr(peer)).curve = k.curve
			(*ecKey)(ptr(peer)).head = KeyHead{Type: KeyEC, Has: KeyHasDomain}
			enc := dma(t, len(other.PublicKey().Bytes()))
			copy(enc, other.PublicKey().Bytes())
			var l2 paramList
			l2.add("encoded-pub-key", TypeOctet, ptr(enc), uintptr(len(enc)))
			if err := kt.SetParams(env, ptr(peer), l2.params()); err != nil {
				t.Fatal(err)
			}
			out, scratch := dma(t, 66), dma(t, ScratchSize)
			n, derr := call(async, func(w Waiter) (int, bool, *Error) {
				return kt.Derive(env, ptr(key), ptr(peer), ptr(scratch), ptr(out), len(out), w)
			})
			want, _ := other.ECDH(mine.PublicKey())
			if derr != nil || n != len(want) || !bytes.Equal(out[:n], want) {
				t.Fatalf("%s: ECDH %d %v", tc.group, n, derr)
			}
			if !bytes.Equal(scratch, make([]byte, ScratchSize)) {
				t.Fatal("the private key was left in the operand memory")
			}
			if kt.Validate(env, ptr(key), SelectKeypair) != nil {
				t.Fatalf("%s: a generated key does not validate", tc.group)
			}
			// An off-curve point is refused.
			enc[len(enc)-1] ^= 1
			if err := kt.SetParams(env, ptr(peer), l2.params()); err == nil || err.Reason != ReasonInvalidKey {
				t.Fatalf("%s: off-curve point: %v", tc.group, err)
			}
		}
	}
}

func TestECImportErrors(t *testing.T) {
	env := testEnv(t)
	kt := KeyTypeByID(KeyEC)
	key := dma(t, int(kt.StateSize()))
	name := dma(t, 9)
	copy(name, "brainpool")
	var l paramList
	l.add("group", TypeUTF8, ptr(name), 9)
	if err := kt.Import(env, ptr(key), SelectKeypair|SelectDomain, l.params()); err == nil || err.Reason != ReasonBadParameter {
		t.Fatalf("unknown group: %v", err)
	}
	// A private key equal to the order is out of range.
	p256 := curveByName("P-256")
	order := dma(t, 32)
	copy(order, p256.order)
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 { // native (little-endian) order, as OpenSSL passes BIGNUMs
		order[i], order[j] = order[j], order[i]
	}
	g := dma(t, 5)
	copy(g, "P-256")
	var l2 paramList
	l2.add("group", TypeUTF8, ptr(g), 5)
	l2.add("priv", TypeUnsigned, ptr(order), 32)
	if err := kt.Import(env, ptr(key), SelectKeypair|SelectDomain, l2.params()); err == nil || err.Reason != ReasonInvalidKey {
		t.Fatalf("private key = order: %v", err)
	}
}

// A compressed public key is checked and decompressed by the device.
func TestECCompressedPoint(t *testing.T) {
	env := testEnv(t)
	kt := KeyTypeByID(KeyEC)
	priv, _ := ecdh.P384().GenerateKey(nil)
	pub := priv.PublicKey().Bytes() // 04 || X || Y
	comp := dma(t, 49)
	comp[0] = 2 | pub[96]&1
	copy(comp[1:], pub[1:49])
	g := dma(t, 5)
	copy(g, "P-384")
	key := dma(t, int(kt.StateSize()))
	var l paramList
	l.add("group", TypeUTF8, ptr(g), 5)
	l.add("pub", TypeOctet, ptr(comp), 49)
	if err := kt.Import(env, ptr(key), SelectPublic|SelectDomain, l.params()); err != nil {
		t.Fatal(err)
	}
	if k := (*ecKey)(ptr(key)); !bytes.Equal(k.pubBytes(), pub) {
		t.Fatal("decompressed point differs")
	}
	// x = 2^384-1 is not below the field prime: no point.
	for i := 1; i < 49; i++ {
		comp[i] = 0xff
	}
	key2 := dma(t, int(kt.StateSize()))
	if err := kt.Import(env, ptr(key2), SelectPublic|SelectDomain, l.params()); err == nil || err.Reason != ReasonInvalidKey {
		t.Fatalf("compressed point with x >= p: %v", err)
	}
}

// The hybrid encoding (6 or 7, then X and Y) is accepted when its prefix
// carries y's parity, as OpenSSL accepts it, and refused otherwise.
func TestECHybridPoint(t *testing.T) {
	env := testEnv(t)
	kt := KeyTypeByID(KeyEC)
	priv, _ := ecdh.P256().GenerateKey(nil)
	pub := priv.PublicKey().Bytes()
	g := dma(t, 5)
	copy(g, "P-256")
	for _, parity := range []byte{0, 1} {
		hyb := dma(t, 65)
		copy(hyb, pub)
		hyb[0] = 6 | parity
		key := dma(t, int(kt.StateSize()))
		var l paramList
		l.add("group", TypeUTF8, ptr(g), 5)
		l.add("pub", TypeOctet, ptr(hyb), 65)
		err := kt.Import(env, ptr(key), SelectPublic|SelectDomain, l.params())
		if parity == pub[64]&1 {
			if err != nil || !bytes.Equal((*ecKey)(ptr(key)).pubBytes(), pub) {
				t.Fatalf("hybrid point with the right parity: %v", err)
			}
		} else if err == nil || err.Reason != ReasonInvalidKey {
			t.Fatalf("hybrid point with the wrong parity: %v", err)
		}
	}
}
