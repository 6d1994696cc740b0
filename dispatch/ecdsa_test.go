// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"testing"
)

func TestDERSignature(t *testing.T) {
	for i := 0; i < 200; i++ {
		b := []int{24, 28, 32, 48, 66}[i%5]
		r, s := make([]byte, b), make([]byte, b)
		rand.Read(r)
		rand.Read(s)
		if i%7 == 0 {
			r[0], r[1] = 0, 0 // short integers
		}
		der := derSignature(r, s)
		gr, gs, ok := parseDERSignature(der, b)
		if !ok || new(big.Int).SetBytes(gr).Cmp(new(big.Int).SetBytes(r)) != 0 || new(big.Int).SetBytes(gs).Cmp(new(big.Int).SetBytes(s)) != 0 {
			t.Fatalf("round trip failed for %x", der)
		}
		if _, _, ok := parseDERSignature(append(der, 0), b); ok {
			t.Fatal("trailing byte accepted")
		}
		if _, _, ok := parseDERSignature(der[:len(der)-1], b); ok {
			t.Fatal("truncated signature accepted")
		}
	}
	// A non-minimal integer (BER, not DER) and a negative one.
	for _, bad := range [][]byte{
		{0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01},
		{0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01},
		{0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01},
	} {
		if _, _, ok := parseDERSignature(bad, 32); ok {
			t.Fatalf("accepted %x", bad)
		}
	}
}

// Signatures made through dispatch verify with crypto/ecdsa and the reverse.
func TestECDSAAgainstCryptoECDSA(t *testing.T) {
	env := testEnv(t)
	kt, sg := KeyTypeByID(KeyEC), SignatureByID(SigECDSA)
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	key := dma(t, int(kt.StateSize()))
	g, d := dma(t, 5), dma(t, 32)
	copy(g, "P-256")
	priv.D.FillBytes(d)
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i] // native order, as OpenSSL passes BIGNUMs
	}
	var l paramList
	l.add("group", TypeUTF8, ptr(g), 5)
	l.add("priv", TypeUnsigned, ptr(d), 32)
	if err := kt.Import(env, ptr(key), SelectKeypair|SelectDomain, l.params()); err != nil {
		t.Fatal(err)
	}
	st, scratch, sig := dma(t, int(sg.StateSize())), dma(t, SigScratchSize), dma(t, 80)
	msg := []byte("cptprov signs this")
	for _, async := range []bool{false, true} {
		if err := sg.Init(env, ptr(st), ptr(key), OpSign, true, "SHA256", Params{}); err != nil {
			t.Fatal(err)
		}
		in := dma(t, len(msg))
		copy(in, msg)
		if err := sg.Update(env, ptr(st), in[:5]); err != nil {
			t.Fatal(err)
		}
		if err := sg.Update(env, ptr(st), in[5:]); err != nil {
			t.Fatal(err)
		}
		n, err := call(async, func(w Waiter) (int, bool, *Error) {
			return sg.SignFinal(env, ptr(st), ptr(key), ptr(scratch), ptr(sig), len(sig), w)
		})
		h := sha256.Sum256(msg)
		if err != nil || !ecdsa.VerifyASN1(&priv.PublicKey, h[:], sig[:n]) {
			t.Fatalf("async=%v: dispatch signature does not verify with crypto/ecdsa: %v", async, err)
		}
		if !bytes.Equal(scratch, make([]byte, SigScratchSize)) {
			t.Fatal("the private key was left in the operand memory")
		}
		theirs, _ := ecdsa.SignASN1(rand.Reader, priv, h[:])
		sigIn := dma(t, len(theirs))
		copy(sigIn, theirs)
		digest := dma(t, 32)
		copy(digest, h[:])
		if err := sg.Init(env, ptr(st), ptr(key), OpVerify, false, "", Params{}); err != nil {
			t.Fatal(err)
		}
		if _, err := call(async, func(w Waiter) (int, bool, *Error) {
			p, err := sg.Verify(env, ptr(st), ptr(key), ptr(scratch), sigIn, digest, w)
			return 0, p, err
		}); err != nil {
			t.Fatalf("crypto/ecdsa signature rejected: %v", err)
		}
		digest[0] ^= 1
		if _, err := call(async, func(w Waiter) (int, bool, *Error) {
			p, err := sg.Verify(env, ptr(st), ptr(key), ptr(scratch), sigIn, digest, w)
			return 0, p, err
		}); err == nil || err.Reason != ReasonVerifyFailed {
			t.Fatalf("signature over another digest: %v", err)
		}
	}
}

// sigLen counts what derSignature would encode for r and s as long as the
// order.
func TestSigLenCountsTheEncoding(t *testing.T) {
	for _, c := range curves {
		if got, want := c.sigLen(), len(derSignature(c.order, c.order)); got != want {
			t.Errorf("%s: sigLen %d, encoding %d", c.name, got, want)
		}
	}
}
