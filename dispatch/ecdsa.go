// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/subtle"
	"unsafe"

	"cptprov/cptdrv"
)

// ECDSA signatures on the NIST curves. The nonce, the hashing of messages
// and the DER encoding are the driver's; the signature and verification
// arithmetic runs on the device. A hash longer than the order is cut in two
// steps, as with the CPT and its DPDK driver: the driver passes the order's
// byte length of it (deviceHash), the device keeps the order's bit length
// of that (FIPS 186-5 6.4.1, SEC 1 4.1.3), as OpenSSL does.
type ecdsaSig struct{}

// Signature operations (the C side passes them to Init).
const (
	OpSign   = 1
	OpVerify = 2
)

// SigScratchSize is the operand memory of a signature context.
const SigScratchSize = 512

// ecdsaCtx is an ECDSA operation context in C memory.
type ecdsaCtx struct {
	sigBase
}

func (ecdsaSig) Name() string       { return "ECDSA" }
func (ecdsaSig) StateSize() uintptr { return unsafe.Sizeof(ecdsaCtx{}) }

// Init starts an operation with key; with stream set, a message hashed
// with the digest mdName (EVP_DigestSign/Verify), else a pre-hashed input.
func (ecdsaSig) Init(env *Env, st, key unsafe.Pointer, op int, stream bool, mdName string, params Params) *Error {
	c, k := (*ecdsaCtx)(st), (*ecKey)(key)
	if k == nil || k.c() == nil {
		return errorf(ReasonMissingKey, "ECDSA needs an EC key with a group")
	}
	if op == OpSign && k.head.Has&KeyHasPrivate == 0 {
		return errorf(ReasonMissingKey, "ECDSA signing needs a private key")
	}
	if op == OpVerify && k.head.Has&KeyHasPublic == 0 {
		return errorf(ReasonMissingKey, "ECDSA verification needs a public key")
	}
	if err := c.start(env, op, stream, mdName, "ECDSA"); err != nil {
		return err
	}
	return ecdsaSig{}.SetParams(env, st, params)
}

func (ecdsaSig) SetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*ecdsaCtx)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "digest":
			err = c.setDigest(env, p, "ECDSA")
		case "digest-size":
			v, ok := p.Uint64()
			if d := digestByID(c.md); !ok || (d != nil && uint64(d.size) != v) {
				err = errorf(ReasonBadParameter, "parameter \"digest-size\" does not match the digest")
			}
		}
		return err
	})
}

func (ecdsaSig) GetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*ecdsaCtx)(st)
	d := digestByID(c.md)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "digest":
			if d != nil && !p.SetUTF8(d.names[0]) {
				err = errorf(ReasonBadParameter, "parameter \"digest\": buffer too small")
			}
		case "digest-size":
			if d != nil {
				err = setUint(p, name, uint64(d.size))
			}
		case "algorithm-id":
			if d == nil || d.ecdsaAID == nil {
				err = errorf(ReasonBadParameter, "no algorithm identifier for ECDSA without a SHA-1/SHA-2/SHA-3 digest")
			} else if !p.SetOctets(d.ecdsaAID) {
				err = errorf(ReasonBadParameter, "parameter \"algorithm-id\": buffer too small")
			}
		}
		return err
	})
}

// Update hashes more of the message.
func (ecdsaSig) Update(env *Env, st unsafe.Pointer, data []byte) *Error {
	return (*ecdsaCtx)(st).update(data)
}

// sigRoom is the start of both signing calls: done with the largest
// signature's length for a size query (a nil sig), or with an error for a
// buffer too small for it.
func sigRoom(k *ecKey, sig unsafe.Pointer, sigsize int) (int, bool, *Error) {
	maxLen := k.c().sigLen()
	if sig == nil {
		return maxLen, true, nil
	}
	if sigsize < maxLen {
		return 0, true, errorf(ReasonOutputTooSmall, "signature buffer of %d bytes for up to %d", sigsize, maxLen)
	}
	return maxLen, false, nil
}

// Sign signs a digest (tbs) with the key; with a nil sig it reports the
// largest signature.
func (ecdsaSig) Sign(env *Env, st, key, scratch, sig unsafe.Pointer, sigsize int, tbs []byte, w Waiter) (int, bool, *Error) {
	c, k := (*ecdsaCtx)(st), (*ecKey)(key)
	if n, done, err := sigRoom(k, sig, sigsize); done {
		return n, false, err
	}
	if err := c.checkDigestLen(tbs); err != nil {
		return 0, false, err
	}
	return ecdsaSign(env, k, scratch, sig, tbs, w)
}

func ecdsaSign(env *Env, k *ecKey, scratch, sig unsafe.Pointer, hash []byte, w Waiter) (int, bool, *Error) {
	cv := k.c()
	b := cv.byteLen
	hash = cv.deviceHash(hash)
	mem := unsafe.Slice((*byte)(scratch), SigScratchSize)
	ops := mem[:2*b+len(hash)]
	copy(ops, k.privBytes())
	if err := cv.randomScalar(ops[b : 2*b]); err != nil {
		return 0, false, errorf(ReasonOperationFailed, "drawing an ECDSA nonce: %v", err)
	}
	copy(ops[2*b:], hash)
	out := mem[len(ops) : len(ops)+2*b]
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorECDSA, cptdrv.MinorECDSASign),
		Param1: cv.dev, Param2: uint16(len(hash)),
		DPtr: cptdrv.Addr(ops), DLen: uint32(len(ops)),
		RPtr: cptdrv.Addr(out), RLen: uint32(len(out)),
	}
	n, pending, err := run(env.AE, env.algCounters(algECDSA, "ECDSA"), &inst, w, finishFunc(func(cptdrv.Result) (int, *Error) {
		// sigRoom saw room for the longest signature at sig.
		der := appendDERSignature(unsafe.Slice((*byte)(sig), cv.sigLen())[:0], out[:b], out[b:])
		clear(mem)
		return len(der), nil
	}))
	if !pending && err != nil {
		clear(mem)
	}
	return n, pending, err
}

// Verify checks a DER signature over a digest (tbs). A signature that does
// not verify is an error (ReasonVerifyFailed).
func (ecdsaSig) Verify(env *Env, st, key, scratch unsafe.Pointer, sig, tbs []byte, w Waiter) (bool, *Error) {
	c, k := (*ecdsaCtx)(st), (*ecKey)(key)
	if err := c.checkDigestLen(tbs); err != nil {
		return false, err
	}
	return ecdsaVerify(env, k, scratch, sig, tbs, w)
}

func ecdsaVerify(env *Env, k *ecKey, scratch unsafe.Pointer, sig, hash []byte, w Waiter) (bool, *Error) {
	cv := k.c()
	b := cv.byteLen
	r, s, ok := parseDERSignature(sig, b)
	if !ok {
		return false, errorf(ReasonVerifyFailed, "malformed ECDSA signature")
	}
	hash = cv.deviceHash(hash)
	mem := unsafe.Slice((*byte)(scratch), SigScratchSize)
	ops := mem[:1+2*b+2*b+len(hash)]
	copy(ops, k.pubBytes())
	copy(ops[1+2*b+b-len(r):], r)
	copy(ops[1+3*b+b-len(s):], s)
	copy(ops[1+4*b:], hash)
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorECDSA, cptdrv.MinorECDSAVerify),
		Param1: cv.dev, Param2: uint16(len(hash)),
		DPtr: cptdrv.Addr(ops), DLen: uint32(len(ops)),
	}
	_, pending, err := run(env.AE, env.algCounters(algECDSA, "ECDSA"), &inst, w, finishFunc(func(cptdrv.Result) (int, *Error) {
		return 1, nil
	}))
	return pending, err
}

// deviceHash is the part of hash the device takes, at most the order's
// bytes (the instruction's hash field has no room for more); the device
// keeps the order's bits of them.
func (cv *curve) deviceHash(hash []byte) []byte {
	if n := (cv.bits + 7) / 8; len(hash) > n {
		return hash[:n]
	}
	return hash
}

// SignFinal signs the hashed message.
func (ecdsaSig) SignFinal(env *Env, st, key, scratch, sig unsafe.Pointer, sigsize int, w Waiter) (int, bool, *Error) {
	c, k := (*ecdsaCtx)(st), (*ecKey)(key)
	if n, done, err := sigRoom(k, sig, sigsize); done {
		return n, false, err
	}
	h, err := c.messageHash()
	if err != nil {
		return 0, false, err
	}
	return ecdsaSign(env, k, scratch, sig, h, w)
}

// VerifyFinal checks a signature over the hashed message.
func (ecdsaSig) VerifyFinal(env *Env, st, key, scratch unsafe.Pointer, sig []byte, w Waiter) (bool, *Error) {
	c, k := (*ecdsaCtx)(st), (*ecKey)(key)
	h, err := c.messageHash()
	if err != nil {
		return false, err
	}
	return ecdsaVerify(env, k, scratch, sig, h, w)
}

// derSignature encodes ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }.
func derSignature(r, s []byte) []byte { return appendDERSignature(nil, r, s) }

// appendDERSignature appends the encoding of derSignature to dst: the
// signing path writes it straight into the caller's buffer, without
// allocating.
func appendDERSignature(dst, r, s []byte) []byte {
	r, s = derMagnitude(r), derMagnitude(s)
	body := derIntegerLen(r) + derIntegerLen(s)
	dst = append(dst, 0x30)
	if body >= 0x80 {
		dst = append(dst, 0x81)
	}
	dst = append(dst, byte(body))
	return appendDERInteger(appendDERInteger(dst, r), s)
}

var derZero = []byte{0}

// derMagnitude is v without its leading zero bytes (one zero for 0).
func derMagnitude(v []byte) []byte {
	if v = bytes.TrimLeft(v, "\x00"); len(v) == 0 {
		return derZero
	}
	return v
}

// derIntegerLen is the length of the INTEGER of magnitude v: tag, length,
// and a zero byte ahead of a top bit that would make it negative.
func derIntegerLen(v []byte) int { return 2 + len(v) + int(v[0]>>7) }

func appendDERInteger(dst, v []byte) []byte {
	dst = append(dst, 0x02, byte(derIntegerLen(v)-2))
	if v[0]&0x80 != 0 {
		dst = append(dst, 0)
	}
	return append(dst, v...)
}

// parseDERSignature takes r and s (big-endian, at most b bytes each) from a
// DER signature, accepting only the canonical encoding, as OpenSSL does.
func parseDERSignature(sig []byte, b int) (r, s []byte, ok bool) {
	if len(sig) < 8 || sig[0] != 0x30 {
		return nil, nil, false
	}
	body, n := sig[2:], int(sig[1])
	if sig[1] == 0x81 {
		if len(sig) < 3 {
			return nil, nil, false
		}
		body, n = sig[3:], int(sig[2])
	} else if sig[1] > 0x80 {
		return nil, nil, false
	}
	if n != len(body) {
		return nil, nil, false
	}
	readInt := func(in []byte) ([]byte, []byte, bool) {
		if len(in) < 3 || in[0] != 0x02 || int(in[1]) > len(in)-2 || in[1] == 0 || in[1] >= 0x80 {
			return nil, nil, false
		}
		v := in[2 : 2+int(in[1])]
		if v[0]&0x80 != 0 {
			return nil, nil, false // negative
		}
		return bytes.TrimLeft(v, "\x00"), in[2+int(in[1]):], true
	}
	var rest []byte
	if r, rest, ok = readInt(body); !ok {
		return nil, nil, false
	}
	if s, rest, ok = readInt(rest); !ok || len(rest) != 0 {
		return nil, nil, false
	}
	if len(r) == 0 || len(s) == 0 || len(r) > b || len(s) > b {
		return nil, nil, false
	}
	// Only the canonical (minimal) encoding re-encodes to the same bytes.
	if subtle.ConstantTimeCompare(derSignature(r, s), sig) != 1 {
		return nil, nil, false
	}
	return r, s, true
}
