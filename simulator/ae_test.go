// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"math/big"
	mrand "math/rand"
	"testing"
	"time"

	"cptprov/cptdrv"
	"cptprov/simulator/asym"
)

func aeQueue(t *testing.T) *cptdrv.Queue {
	d := New(Config{AEEngines: 2})
	q, err := cptdrv.NewQueue(d, cptdrv.QueueConfig{Group: cptdrv.GroupAE, Depth: 16, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close(); d.Close() })
	return q
}

// aeDo runs one AE instruction with its operands copied into DMA memory,
// alternately synchronously and through an engine.
func aeDo(t *testing.T, q *cptdrv.Queue, op uint16, p1, p2 uint16, outLen int, fields ...[]byte) (cptdrv.Result, []byte) {
	t.Helper()
	in := bytes.Join(fields, nil)
	dIn, dOut := dmaBuf(t, len(in)+1), dmaBuf(t, outLen+1)
	copy(dIn, in)
	inst := cptdrv.Instruction{Op: op, Param1: p1, Param2: p2, DPtr: cptdrv.Addr(dIn), DLen: uint32(len(in)), RPtr: cptdrv.Addr(dOut), RLen: uint32(outLen)}
	if len(in)%2 == 0 {
		res, err := q.Do(&inst)
		if err != nil {
			t.Fatal(err)
		}
		return res, dOut[:res.RLen]
	}
	ch := make(chan cptdrv.Result, 1)
	if err := q.Submit(&inst, func(r cptdrv.Result) { ch <- r }); err != nil {
		t.Fatal(err)
	}
	res := <-ch
	return res, dOut[:res.RLen]
}

func pad(b []byte, n int) []byte { return append(make([]byte, n-len(b)), b...) }

func TestAEModExp(t *testing.T) {
	q := aeQueue(t)
	for _, bits := range []int{1024, 2048} {
		key, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			t.Fatal(err)
		}
		l := key.Size()
		n := key.N.FillBytes(make([]byte, l))
		m := new(big.Int).Rand(mrand.New(mrand.NewSource(int64(bits))), key.N)
		// Private operation with CRT, then the public one undoes it.
		pl := (bits/2 + 7) / 8
		p, qq := key.Primes[0].FillBytes(make([]byte, pl)), key.Primes[1].FillBytes(make([]byte, pl))
		dp := key.Precomputed.Dp.FillBytes(make([]byte, pl))
		dq := key.Precomputed.Dq.FillBytes(make([]byte, pl))
		qinv := key.Precomputed.Qinv.FillBytes(make([]byte, pl))
		res, sig := aeDo(t, q, cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpCRT), uint16(l), uint16(pl), l, p, qq, dp, dq, qinv, m.FillBytes(make([]byte, l)))
		want := new(big.Int).Exp(m, key.D, key.N).FillBytes(make([]byte, l))
		if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(sig, want) {
			t.Fatalf("%d-bit CRT: %+v", bits, res)
		}
		e := big.NewInt(int64(key.E)).Bytes()
		res, back := aeDo(t, q, cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpPlain), uint16(l), uint16(len(e)), l, n, e, sig)
		if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(back, m.FillBytes(make([]byte, l))) {
			t.Fatalf("%d-bit public op: %+v", bits, res)
		}
		// The public-exponent opcode gives the same, twice (the second
		// time with the modulus's constants from the engine's cache).
		for i := 0; i < 2; i++ {
			res, back = aeDo(t, q, cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpPublic), uint16(l), uint16(len(e)), l, n, e, sig)
			if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(back, m.FillBytes(make([]byte, l))) {
				t.Fatalf("%d-bit public op, public-exponent opcode: %+v", bits, res)
			}
		}
	}
	// Operand lengths that do not add up are refused.
	res, _ := aeDo(t, q, cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpPlain), 8, 1, 8, make([]byte, 10))
	if res.CompCode != cptdrv.CompBadInst {
		t.Fatalf("bad lengths: %+v", res)
	}
}

// An exponentiation's operand out of range gets its own verdict, not the
// curves' "point not on the curve": a base not below the modulus in each
// opcode, and an even modulus.
func TestAEModExpOutOfRange(t *testing.T) {
	q := aeQueue(t)
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	l, pl := key.Size(), 64
	n, e := key.N.FillBytes(make([]byte, l)), big.NewInt(int64(key.E)).Bytes()
	above := bytes.Repeat([]byte{0xff}, l)
	p, qq := key.Primes[0].FillBytes(make([]byte, pl)), key.Primes[1].FillBytes(make([]byte, pl))
	dp := key.Precomputed.Dp.FillBytes(make([]byte, pl))
	dq := key.Precomputed.Dq.FillBytes(make([]byte, pl))
	qinv := key.Precomputed.Qinv.FillBytes(make([]byte, pl))
	evenN, evenP := append([]byte(nil), n...), append([]byte(nil), p...)
	evenN[l-1] &^= 1
	evenP[pl-1] &^= 1
	one := make([]byte, l)
	one[l-1] = 1
	for _, tc := range []struct {
		name     string
		minor    uint8
		p2       int
		operands [][]byte
	}{
		{"plain", cptdrv.MinorModExpPlain, len(e), [][]byte{n, e, above}},
		{"public", cptdrv.MinorModExpPublic, len(e), [][]byte{n, e, above}},
		{"CRT", cptdrv.MinorModExpCRT, pl, [][]byte{p, qq, dp, dq, qinv, above}},
		{"even modulus", cptdrv.MinorModExpPlain, len(e), [][]byte{evenN, e, one}},
		{"even modulus, public", cptdrv.MinorModExpPublic, len(e), [][]byte{evenN, e, one}},
		{"even CRT prime", cptdrv.MinorModExpCRT, pl, [][]byte{evenP, qq, dp, dq, qinv, one}},
	} {
		res, _ := aeDo(t, q, cptdrv.Op(cptdrv.MajorModExp, tc.minor), uint16(l), uint16(tc.p2), l, tc.operands...)
		if res.CompCode != cptdrv.CompGood || res.UCCode != cptdrv.UCBadOperand {
			t.Errorf("%s: %+v, want UCBadOperand", tc.name, res)
		}
	}
}

// aeResult's verdicts: a failure of the arithmetic itself is an engine
// error (not executed: the driver may retry), invalid input the engine's
// own verdict.
func TestAEResultVerdicts(t *testing.T) {
	for _, tc := range []struct {
		err      error
		onInput  uint8
		comp, uc uint8
	}{
		{nil, cptdrv.UCBadOperand, cptdrv.CompGood, cptdrv.UCSuccess},
		{asym.ErrInternal, cptdrv.UCBadOperand, cptdrv.CompHWError, 0},
		{asym.ErrInternal, cptdrv.UCZeroResult, cptdrv.CompHWError, 0},
		{asym.ErrInput, cptdrv.UCBadOperand, cptdrv.CompGood, cptdrv.UCBadOperand},
		{asym.ErrInput, cptdrv.UCBadPoint, cptdrv.CompGood, cptdrv.UCBadPoint},
		{asym.ErrInput, cptdrv.UCZeroResult, cptdrv.CompGood, cptdrv.UCZeroResult},
		{asym.ErrNotOnCurve, cptdrv.UCZeroResult, cptdrv.CompGood, cptdrv.UCBadPoint},
		{asym.ErrPointAtInfinity, cptdrv.UCBadPoint, cptdrv.CompGood, cptdrv.UCZeroResult},
	} {
		if comp, uc, _ := aeResult(nil, nil, tc.err, tc.onInput); comp != tc.comp || uc != tc.uc {
			t.Errorf("%v (input verdict %d): %d/%d, want %d/%d", tc.err, tc.onInput, comp, uc, tc.comp, tc.uc)
		}
	}
}

func TestAEEC(t *testing.T) {
	q := aeQueue(t)
	for _, tc := range []struct {
		id    uint16
		curve ecdh.Curve
		ec    elliptic.Curve
		b     int
	}{{cptdrv.CurveP256, ecdh.P256(), elliptic.P256(), 32}, {cptdrv.CurveP384, ecdh.P384(), elliptic.P384(), 48}, {cptdrv.CurveP521, ecdh.P521(), elliptic.P521(), 66}} {
		a, _ := tc.curve.GenerateKey(rand.Reader)
		peer, _ := tc.curve.GenerateKey(rand.Reader)
		res, pub := aeDo(t, q, cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCFixed), tc.id, 0, 1+2*tc.b, a.Bytes())
		if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(pub, a.PublicKey().Bytes()) {
			t.Fatalf("curve %d fixed-base: %+v", tc.id, res)
		}
		want, _ := a.ECDH(peer.PublicKey())
		res, shared := aeDo(t, q, cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCShared), tc.id, 0, tc.b, a.Bytes(), peer.PublicKey().Bytes())
		if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(shared, want) {
			t.Fatalf("curve %d shared secret: %+v", tc.id, res)
		}
		bad := peer.PublicKey().Bytes()
		bad[len(bad)-1] ^= 1
		if res, _ := aeDo(t, q, cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCShared), tc.id, 0, tc.b, a.Bytes(), bad); res.UCCode != cptdrv.UCBadPoint {
			t.Fatalf("curve %d point off the curve: %+v", tc.id, res)
		}
		// ECDSA: the device's signature verifies with crypto/ecdsa, and the
		// device verifies crypto/ecdsa's.
		priv, _ := ecdsa.GenerateKey(tc.ec, rand.Reader)
		hash := sha256.Sum256([]byte("cptprov"))
		k, _ := ecdsa.GenerateKey(tc.ec, rand.Reader)
		res, rs := aeDo(t, q, cptdrv.Op(cptdrv.MajorECDSA, cptdrv.MinorECDSASign), tc.id, 32, 2*tc.b,
			priv.D.FillBytes(make([]byte, tc.b)), k.D.FillBytes(make([]byte, tc.b)), hash[:])
		if res.UCCode != cptdrv.UCSuccess || !ecdsa.Verify(&priv.PublicKey, hash[:], new(big.Int).SetBytes(rs[:tc.b]), new(big.Int).SetBytes(rs[tc.b:])) {
			t.Fatalf("curve %d ECDSA sign: %+v", tc.id, res)
		}
		r, s, _ := ecdsa.Sign(rand.Reader, priv, hash[:])
		pubBytes := elliptic.Marshal(tc.ec, priv.X, priv.Y)
		for _, tamper := range []bool{false, true} {
			h := hash
			if tamper {
				h[0] ^= 1
			}
			res, _ := aeDo(t, q, cptdrv.Op(cptdrv.MajorECDSA, cptdrv.MinorECDSAVerify), tc.id, 32, 0, pubBytes, pad(r.Bytes(), tc.b), pad(s.Bytes(), tc.b), h[:])
			if want := map[bool]uint8{false: cptdrv.UCSuccess, true: cptdrv.UCVerifyFail}[tamper]; res.UCCode != want {
				t.Fatalf("curve %d ECDSA verify (tampered=%v): %+v", tc.id, tamper, res)
			}
		}
	}
}

// ECDSA hashes of every length up to the order's bytes: the device keeps
// the order's leftmost bits, as crypto/ecdsa does (P-521's order has 521
// bits in 66 bytes); a longer hash is the driver's to cut, so a bad
// instruction.
func TestAEECDSAHashLength(t *testing.T) {
	q := aeQueue(t)
	sign, verify := cptdrv.Op(cptdrv.MajorECDSA, cptdrv.MinorECDSASign), cptdrv.Op(cptdrv.MajorECDSA, cptdrv.MinorECDSAVerify)
	for _, tc := range []struct {
		id uint16
		ec elliptic.Curve
		b  int
	}{{cptdrv.CurveP224, elliptic.P224(), 28}, {cptdrv.CurveP256, elliptic.P256(), 32}, {cptdrv.CurveP384, elliptic.P384(), 48}, {cptdrv.CurveP521, elliptic.P521(), 66}} {
		priv, _ := ecdsa.GenerateKey(tc.ec, rand.Reader)
		d, pub := priv.D.FillBytes(make([]byte, tc.b)), elliptic.Marshal(tc.ec, priv.X, priv.Y)
		for h := 0; h <= tc.b+1; h++ {
			hash := make([]byte, h)
			rand.Read(hash)
			k, _ := ecdsa.GenerateKey(tc.ec, rand.Reader)
			res, rs := aeDo(t, q, sign, tc.id, uint16(h), 2*tc.b, d, k.D.FillBytes(make([]byte, tc.b)), hash)
			r, s, err := ecdsa.Sign(rand.Reader, priv, hash)
			if err != nil {
				t.Fatal(err)
			}
			vres, _ := aeDo(t, q, verify, tc.id, uint16(h), 0, pub, pad(r.Bytes(), tc.b), pad(s.Bytes(), tc.b), hash)
			if h > tc.b {
				if res.CompCode != cptdrv.CompBadInst || vres.CompCode != cptdrv.CompBadInst {
					t.Fatalf("curve %d, %d-byte hash: sign %+v, verify %+v, want bad instructions", tc.id, h, res, vres)
				}
				continue
			}
			if res.UCCode != cptdrv.UCSuccess || !ecdsa.Verify(&priv.PublicKey, hash, new(big.Int).SetBytes(rs[:tc.b]), new(big.Int).SetBytes(rs[tc.b:])) {
				t.Fatalf("curve %d, %d-byte hash: the device's signature (%+v) does not verify", tc.id, h, res)
			}
			if vres.UCCode != cptdrv.UCSuccess {
				t.Fatalf("curve %d, %d-byte hash: the device refuses crypto/ecdsa's signature: %+v", tc.id, h, vres)
			}
		}
	}
}

func TestAEX25519(t *testing.T) {
	q := aeQueue(t)
	a, _ := ecdh.X25519().GenerateKey(rand.Reader)
	b, _ := ecdh.X25519().GenerateKey(rand.Reader)
	res, pub := aeDo(t, q, cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCFixed), cptdrv.CurveX25519, 0, 32, a.Bytes())
	if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(pub, a.PublicKey().Bytes()) {
		t.Fatalf("X25519 public key: %+v", res)
	}
	want, _ := a.ECDH(b.PublicKey())
	res, shared := aeDo(t, q, cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCShared), cptdrv.CurveX25519, 0, 32, a.Bytes(), b.PublicKey().Bytes())
	if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(shared, want) {
		t.Fatalf("X25519 shared secret: %+v", res)
	}
	// A low-order peer point gives the all-zero secret, which must be refused.
	if res, _ := aeDo(t, q, cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCShared), cptdrv.CurveX25519, 0, 32, a.Bytes(), make([]byte, 32)); res.UCCode != cptdrv.UCZeroResult {
		t.Fatalf("all-zero X25519 result: %+v", res)
	}
}

// AE instructions on the symmetric queue, and the reverse, are refused.
func TestAEGroupMismatch(t *testing.T) {
	_, se := newQueue(t, Config{SEEngines: 1})
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCFixed), Param1: cptdrv.CurveX25519}
	if res, err := se.Do(&inst); err != nil || res.CompCode != cptdrv.CompBadInst {
		t.Fatalf("AE opcode on the SE queue: %v %+v", err, res)
	}
}
