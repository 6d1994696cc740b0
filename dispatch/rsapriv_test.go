// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"math/big"
	"testing"
	"time"

	"cptprov/cptdrv"
	"cptprov/simulator"
	"cptprov/stats"
)

// faultEnv is testEnv with a fault plan on the device and, when soft is
// not nil, that software fallback behind an absent device.
func faultEnv(t *testing.T, plan string, soft cptdrv.Software) (*Env, *simulator.Device) {
	t.Helper()
	cfg := simulator.Config{SEEngines: 1, AEEngines: 2, Absent: soft != nil}
	dev := simulator.New(cfg)
	if plan != "" {
		p, err := simulator.ParseFaultPlan(plan)
		if err != nil {
			t.Fatal(err)
		}
		dev.SetFaults(p)
	}
	qc := cptdrv.QueueConfig{Depth: 64, Timeout: 5 * time.Second}
	if soft != nil {
		qc.Policy.Software = soft
	}
	qc.Group = cptdrv.GroupSE
	se, err := cptdrv.NewQueue(dev, qc)
	if err != nil {
		t.Fatal(err)
	}
	qc.Group = cptdrv.GroupAE
	ae, err := cptdrv.NewQueue(dev, qc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { se.Close(); ae.Close(); dev.Close() })
	return NewEnv(se, ae, stats.New(nil), dev.Forget, 1), dev
}

// corruptingSoftware is a software fallback that gets every CRT result
// wrong: the check must hold on the fallback's path too.
type corruptingSoftware struct{ dev *simulator.Device }

func (s corruptingSoftware) Compute(inst *cptdrv.Instruction) {
	s.dev.Compute(inst)
	if inst.Op == cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpCRT) {
		cptdrv.Bytes(inst.RPtr, int(inst.RLen))[7] ^= 0x10
	}
}

// rsaSignOnce signs a SHA-256 digest with PKCS#1 v1.5 into sig (pre-filled
// with 0xAA so that a released byte shows), returning the error.
func rsaSignOnce(t *testing.T, env *Env, st []byte, async bool, sig []byte, h []byte) *Error {
	t.Helper()
	sg := SignatureByID(SigRSA)
	ctx, scratch := dma(t, int(sg.StateSize())), dma(t, SigScratchSize)
	md := dma(t, 6)
	copy(md, "SHA256")
	var l paramList
	l.add("digest", TypeUTF8, ptr(md), 6)
	if err := sg.Init(env, ptr(ctx), ptr(st), OpSign, false, "", l.params()); err != nil {
		t.Fatal(err)
	}
	digest := dma(t, len(h))
	copy(digest, h)
	for i := range sig {
		sig[i] = 0xaa
	}
	_, err := call(async, func(w Waiter) (int, bool, *Error) {
		return sg.Sign(env, ptr(ctx), ptr(st), ptr(scratch), ptr(sig), len(sig), digest, w)
	})
	return err
}

// TestRSAPrivateCatchesCRTFaults: with every other CRT exponentiation
// wrong on the device, every signature and every decryption is still right
// (recomputed without CRT), synchronously and asynchronously, and each
// wrong result is counted.
func TestRSAPrivateCatchesCRTFaults(t *testing.T) {
	env, dev := faultEnv(t, "crt:every=2", nil)
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	st := importRSA(t, env, key)
	sig := dma(t, 256)
	h := sha256.Sum256([]byte("Bellcore"))
	const rounds = 12
	for i := 0; i < rounds; i++ {
		async := i%2 == 1
		if err := rsaSignOnce(t, env, st, async, sig, h[:]); err != nil {
			t.Fatalf("sign %d (async %v): %v", i, async, err)
		}
		if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, h[:], sig); err != nil {
			t.Fatalf("sign %d (async %v): a signature that does not verify was released", i, async)
		}
	}
	ac := AsymCipherByID(AsymRSA)
	ctx, out := dma(t, int(ac.StateSize())), dma(t, 256)
	msg := []byte("pre-master secret")
	for i := 0; i < rounds; i++ {
		ct, _ := rsa.EncryptPKCS1v15(rand.Reader, &key.PublicKey, msg)
		in := dma(t, len(ct))
		copy(in, ct)
		if err := ac.Init(env, ptr(ctx), ptr(st), OpDecrypt, Params{}); err != nil {
			t.Fatal(err)
		}
		n, err := call(i%2 == 1, func(w Waiter) (int, bool, *Error) {
			return ac.Decrypt(env, ptr(ctx), ptr(st), ptr(out), len(out), in, nil, w)
		})
		if err != nil || !bytes.Equal(out[:n], msg) {
			t.Fatalf("decrypt %d: %v, %x", i, err, out[:n])
		}
	}
	faults := dev.Stats().Faults
	if faults < rounds || env.Checks.Rejected.Load() != faults || env.Checks.Recomputed.Load() != faults {
		t.Fatalf("faults injected %d, results rejected %d, recomputed %d", faults, env.Checks.Rejected.Load(), env.Checks.Recomputed.Load())
	}
}

// TestRSAPrivateRecomputesForBadCRTKey: a key whose dP (or qInv) is wrong
// signs correctly, as OpenSSL's default provider does, and a key whose d is
// wrong as well gets no signature at all: not a byte of the wrong one
// reaches the caller's buffer.
func TestRSAPrivateRecomputesForBadCRTKey(t *testing.T) {
	env := testEnv(t)
	var events []CheckEvent
	env.OnCheckFailed = func(ev CheckEvent) { events = append(events, ev) }
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	h := sha256.Sum256([]byte("a bad key"))
	sig := dma(t, 256)
	bad := *key
	bad.Precomputed.Dp = new(big.Int).Add(key.Precomputed.Dp, big.NewInt(2))
	for _, async := range []bool{false, true} {
		st := importRSA(t, env, &bad)
		if err := rsaSignOnce(t, env, st, async, sig, h[:]); err != nil {
			t.Fatalf("bad dP (async %v): %v", async, err)
		}
		if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, h[:], sig); err != nil {
			t.Fatalf("bad dP (async %v): a wrong signature was released", async)
		}
	}
	worse := bad
	worse.D = new(big.Int).Add(key.D, big.NewInt(2))
	for _, async := range []bool{false, true} {
		st := importRSA(t, env, &worse)
		err := rsaSignOnce(t, env, st, async, sig, h[:])
		if err == nil || err.Reason != ReasonOperationFailed {
			t.Fatalf("bad dP and d (async %v): %v", async, err)
		}
		if !bytes.Equal(sig, bytes.Repeat([]byte{0xaa}, 256)) {
			t.Fatalf("bad dP and d (async %v): the output buffer was written", async)
		}
	}
	if len(events) != 6 || !events[0].CRT || !events[0].Recomputed || events[5].CRT || events[5].Recomputed {
		t.Fatalf("check events: %+v", events)
	}
	if env.Checks.Rejected.Load() != 6 || env.Checks.Recomputed.Load() != 4 {
		t.Fatalf("rejected %d, recomputed %d", env.Checks.Rejected.Load(), env.Checks.Recomputed.Load())
	}
}

// TestRSAPrivateChecksTheFallback: the software fallback's results are
// checked as the device's are.
func TestRSAPrivateChecksTheFallback(t *testing.T) {
	dev := simulator.New(simulator.Config{SEEngines: 1, AEEngines: 1})
	t.Cleanup(dev.Close)
	env, _ := faultEnv(t, "", corruptingSoftware{dev})
	var soft int
	env.OnCheckFailed = func(ev CheckEvent) {
		if ev.Software {
			soft++
		}
	}
	key, _ := rsa.GenerateKey(rand.Reader, 1024)
	st := importRSA(t, env, key)
	sig := dma(t, 128)
	h := sha256.Sum256([]byte("fallback"))
	for _, async := range []bool{false, true} {
		if err := rsaSignOnce(t, env, st, async, sig, h[:]); err != nil {
			t.Fatalf("async %v: %v", async, err)
		}
		if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, h[:], sig); err != nil {
			t.Fatalf("async %v: the fallback's wrong signature was released", async)
		}
	}
	if soft != 2 {
		t.Fatalf("software results rejected: %d, want 2", soft)
	}
}

// The check of a key with usable primes (mod p and q) and of one without
// (mod n).
func BenchmarkRSAResultCheck(b *testing.B) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	m := make([]byte, 256)
	m[1] = 1
	s := new(big.Int).Exp(new(big.Int).SetBytes(m), key.D, key.N).FillBytes(make([]byte, 256))
	for _, crt := range []bool{true, false} {
		k := &rsaKey{nLen: 256, eLen: 3}
		key.N.FillBytes(k.n[:256])
		copy(k.e[:], []byte{1, 0, 1})
		if crt {
			k.pLen, k.hasCRT = 128, 1
			key.Primes[0].FillBytes(k.p[:128])
			key.Primes[1].FillBytes(k.q[:128])
		}
		b.Run(map[bool]string{true: "primes", false: "modulus"}[crt], func(b *testing.B) {
			if !rsaResultOK(k, m, s) {
				b.Fatal("a right result fails its check")
			}
			for b.Loop() {
				rsaResultOK(k, m, s)
			}
		})
		k.dropCheck()
	}
}

func BenchmarkRSASign2048(b *testing.B) {
	env := testEnv(b)
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	st := importRSA(&testing.T{}, env, key)
	sg := SignatureByID(SigRSA)
	ctx, scratch, sig := dma(b, int(sg.StateSize())), dma(b, SigScratchSize), dma(b, 256)
	if err := sg.Init(env, ptr(ctx), ptr(st), OpSign, false, "", Params{}); err != nil {
		b.Fatal(err)
	}
	h := dma(b, 32)
	for b.Loop() {
		if _, _, err := sg.Sign(env, ptr(ctx), ptr(st), ptr(scratch), ptr(sig), 256, h, nil); err != nil {
			b.Fatal(err)
		}
	}
}
