// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto"
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"math/big"
	"testing"
)

// importRSA puts a crypto/rsa key into a key state, through Import as the
// C side calls it (numbers in native byte order).
func importRSA(t *testing.T, env *Env, key *rsa.PrivateKey) []byte {
	t.Helper()
	kt := KeyTypeByID(KeyRSA)
	st := dma(t, int(kt.StateSize()))
	var l paramList
	add := func(name string, v *big.Int) {
		b := v.Bytes()
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		m := dma(t, len(b))
		copy(m, b)
		l.add(name, TypeUnsigned, ptr(m), uintptr(len(m)))
	}
	add("n", key.N)
	add("e", big.NewInt(int64(key.E)))
	add("d", key.D)
	add("rsa-factor1", key.Primes[0])
	add("rsa-factor2", key.Primes[1])
	add("rsa-exponent1", key.Precomputed.Dp)
	add("rsa-exponent2", key.Precomputed.Dq)
	add("rsa-coefficient1", key.Precomputed.Qinv)
	if err := kt.Import(env, ptr(st), SelectKeypair, l.params()); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRSASignaturesAgainstCryptoRSA(t *testing.T) {
	env := testEnv(t)
	sg := SignatureByID(SigRSA)
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	st := importRSA(t, env, key)
	if KeyTypeByID(KeyRSA).Validate(env, ptr(st), SelectKeypair) != nil {
		t.Fatal("imported key does not validate")
	}
	ctx, scratch, sig := dma(t, int(sg.StateSize())), dma(t, SigScratchSize), dma(t, 256)
	sha := sha256.Sum256([]byte("cptprov"))
	md5sum, sha1sum := md5.Sum([]byte("cptprov")), sha1.Sum([]byte("cptprov"))
	for _, tc := range []struct {
		pad  string
		salt string
		md   string
		hash crypto.Hash
		h    []byte
	}{
		{"pkcs1", "", "SHA256", crypto.SHA256, sha[:]},
		{"pss", "digest", "SHA256", crypto.SHA256, sha[:]},
		{"pss", "max", "SHA256", crypto.SHA256, sha[:]},
		// TLS 1.0 and 1.1: no DigestInfo (crypto/rsa's MD5SHA1 has no prefix).
		{"pkcs1", "", "MD5-SHA1", crypto.MD5SHA1, append(md5sum[:], sha1sum[:]...)},
	} {
		h := tc.h
		digest := dma(t, len(h))
		copy(digest, h)
		for _, async := range []bool{false, true} {
			padBuf, saltBuf, mdBuf := dma(t, len(tc.pad)), dma(t, 8), dma(t, len(tc.md))
			copy(padBuf, tc.pad)
			copy(mdBuf, tc.md)
			var l paramList
			l.add("pad-mode", TypeUTF8, ptr(padBuf), uintptr(len(tc.pad)))
			l.add("digest", TypeUTF8, ptr(mdBuf), uintptr(len(tc.md)))
			if tc.salt != "" {
				copy(saltBuf, tc.salt)
				l.add("saltlen", TypeUTF8, ptr(saltBuf), uintptr(len(tc.salt)))
			}
			if err := sg.Init(env, ptr(ctx), ptr(st), OpSign, false, "", l.params()); err != nil {
				t.Fatal(err)
			}
			n, err := call(async, func(w Waiter) (int, bool, *Error) {
				return sg.Sign(env, ptr(ctx), ptr(st), ptr(scratch), ptr(sig), len(sig), digest, w)
			})
			if err != nil || n != 256 {
				t.Fatalf("%s/%s sign: %d %v", tc.pad, tc.salt, n, err)
			}
			var verr error
			if tc.pad == "pkcs1" {
				verr = rsa.VerifyPKCS1v15(&key.PublicKey, tc.hash, h, sig)
			} else {
				saltLen := rsa.PSSSaltLengthEqualsHash
				if tc.salt == "max" {
					saltLen = 256 - 32 - 2
				}
				verr = rsa.VerifyPSS(&key.PublicKey, tc.hash, h, sig, &rsa.PSSOptions{SaltLength: saltLen})
			}
			if verr != nil {
				t.Fatalf("%s/%s: crypto/rsa rejects the signature: %v", tc.pad, tc.salt, verr)
			}
			// And the reverse: crypto/rsa's signature verifies here, a
			// tampered one does not.
			var theirs []byte
			if tc.pad == "pkcs1" {
				theirs, _ = rsa.SignPKCS1v15(rand.Reader, key, tc.hash, h)
			} else {
				theirs, _ = rsa.SignPSS(rand.Reader, key, tc.hash, h, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
			}
			in := dma(t, len(theirs))
			copy(in, theirs)
			var lv paramList
			lv.add("pad-mode", TypeUTF8, ptr(padBuf), uintptr(len(tc.pad)))
			lv.add("digest", TypeUTF8, ptr(mdBuf), uintptr(len(tc.md)))
			if err := sg.Init(env, ptr(ctx), ptr(st), OpVerify, false, "", lv.params()); err != nil {
				t.Fatal(err)
			}
			if _, err := sg.Verify(env, ptr(ctx), ptr(st), ptr(scratch), in, digest, nil); err != nil {
				t.Fatalf("%s: crypto/rsa's signature rejected: %v", tc.pad, err)
			}
			in[100] ^= 1
			if _, err := sg.Verify(env, ptr(ctx), ptr(st), ptr(scratch), in, digest, nil); err == nil || err.Reason != ReasonVerifyFailed {
				t.Fatalf("%s: tampered signature: %v", tc.pad, err)
			}
		}
	}
}

// TestRSASignatureParamRules checks the combinations refused as OpenSSL's
// default provider refuses them, that a refused SetParams leaves the context
// as it was, and that PSS without a digest means SHA-1.
func TestRSASignatureParamRules(t *testing.T) {
	env := testEnv(t)
	sg := SignatureByID(SigRSA)
	key, _ := rsa.GenerateKey(rand.Reader, 1024)
	st := importRSA(t, env, key)
	ctx := dma(t, int(sg.StateSize()))
	set := func(kv ...string) *Error {
		var l paramList
		for i := 0; i < len(kv); i += 2 {
			b := dma(t, len(kv[i+1]))
			copy(b, kv[i+1])
			l.add(kv[i], TypeUTF8, ptr(b), uintptr(len(b)))
		}
		return sg.SetParams(env, ptr(ctx), l.params())
	}
	c := (*rsaSigCtx)(ptr(ctx))
	for _, tc := range []struct {
		name string
		kv   [][]string // successive SetParams calls; only the last may fail
		ok   bool
	}{
		{"digest then none", [][]string{{"digest", "SHA256"}, {"pad-mode", "none"}}, false},
		{"none then digest", [][]string{{"pad-mode", "none"}, {"digest", "SHA256"}}, false},
		{"mgf1 with pkcs1", [][]string{{"mgf1-digest", "SHA256"}}, false},
		{"saltlen with pkcs1", [][]string{{"saltlen", "20"}}, false},
		{"saltlen before pss in one call", [][]string{{"saltlen", "20", "pad-mode", "pss"}}, true},
		{"pss then mgf1 and saltlen", [][]string{{"pad-mode", "pss"}, {"mgf1-digest", "SHA256", "saltlen", "auto"}}, true},
		{"none alone", [][]string{{"pad-mode", "none"}}, true},
	} {
		if err := sg.Init(env, ptr(ctx), ptr(st), OpVerify, false, "", Params{}); err != nil {
			t.Fatal(err)
		}
		var err *Error
		for i, kv := range tc.kv {
			before := *c
			if err = set(kv...); err != nil {
				if i != len(tc.kv)-1 {
					t.Fatalf("%s: call %d refused: %v", tc.name, i, err)
				}
				if *c != before {
					t.Errorf("%s: a refused SetParams changed the context", tc.name)
				}
			}
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s: got %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	if err := sg.Init(env, ptr(ctx), ptr(st), OpVerify, false, "", Params{}); err != nil {
		t.Fatal(err)
	}
	if err := set("pad-mode", "pss"); err != nil || digestByID(c.md).names[0] != "SHA1" {
		t.Errorf("PSS without a digest: %v, digest %v", err, digestByID(c.md))
	}
}

// MGF1's allocations do not grow with its output (a hash and a sum per
// block, before): a PSS mask of RSA-2048 with SHA-256 is seven blocks, in
// every TLS 1.3 RSA handshake.
func TestMGF1Allocs(t *testing.T) {
	seed := make([]byte, 32)
	allocs := func(n int) float64 {
		out := make([]byte, n)
		return testing.AllocsPerRun(100, func() { mgf1XOR(out, sha256.New, seed) })
	}
	if one, seven := allocs(32), allocs(223); seven > one {
		t.Fatalf("mgf1XOR: %v allocations for one block, %v for seven", one, seven)
	}
}
