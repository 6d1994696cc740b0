// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"hash"
	"strings"
	"unsafe"
)

// RSA signatures: PKCS#1 v1.5 (with DigestInfo, or raw without a digest),
// PSS and no padding. The encoding (EMSA) is the driver's; the private and
// public operations are modular exponentiations on the device.
type rsaSig struct{}

// RSA padding modes (OpenSSL's RSA_*_PADDING numbers, "pad-mode").
const (
	rsaPadPKCS1 = 1
	rsaPadNone  = 3
	rsaPadPSS   = 6
)

// PSS salt lengths (OpenSSL's RSA_PSS_SALTLEN_*).
const (
	saltDigest = -1
	saltAuto   = -2
	saltMax    = -3
	// saltAutoDigestMax (OpenSSL 3.1 and later, and their default): when
	// signing the longest salt up to the digest's length, when verifying
	// any.
	saltAutoDigestMax = -4
)

// saltLowest is the lowest salt-length value the running OpenSSL takes.
func saltLowest(env *Env) int32 {
	if env.openSSLAtLeast(3, 1) {
		return saltAutoDigestMax
	}
	return saltMax
}

// rsaSigCtx is an RSA signature context in C memory.
type rsaSigCtx struct {
	sigBase
	mgf1    uint32 // 0: the message digest
	pad     uint32
	saltLen int32
	_       uint32
	key     pssRestriction // the key's, so that parameters set later keep to it
}

func (rsaSig) Name() string       { return "RSA" }
func (rsaSig) StateSize() uintptr { return unsafe.Sizeof(rsaSigCtx{}) }

func (rsaSig) Init(env *Env, st, key unsafe.Pointer, op int, stream bool, mdName string, params Params) *Error {
	c, k := (*rsaSigCtx)(st), (*rsaKey)(key)
	if k == nil || k.nLen == 0 {
		return errorf(ReasonMissingKey, "RSA signature needs an RSA key")
	}
	if op == OpSign && k.head.Has&KeyHasPrivate == 0 {
		return errorf(ReasonMissingKey, "RSA signing needs a private key")
	}
	*c = rsaSigCtx{pad: rsaPadPKCS1, saltLen: saltAuto, key: k.pss}
	switch {
	case env.openSSLAtLeast(3, 1):
		c.saltLen = saltAutoDigestMax
	case op == OpSign:
		c.saltLen = saltMax
	}
	if r := k.pss; r.isPSS != 0 {
		// An RSA-PSS key signs with PSS only, and within its restrictions.
		c.pad = rsaPadPSS
		if r.md != 0 {
			if digestByID(r.md).use&usePSSKey == 0 || digestByID(r.mgf1).use&usePSSKey == 0 {
				return errorf(ReasonBadParameter, "this RSA-PSS key is restricted to %s with MGF1 over %s: only SHA-1 and SHA-2 restrictions sign, as in OpenSSL", digestByID(r.md).names[0], digestByID(r.mgf1).names[0])
			}
			if mdName == "" {
				mdName = digestByID(r.md).names[0]
			} else if d := digestByName(mdName); d == nil || d.id != r.md {
				return errorf(ReasonDigestNotAllowed, "this RSA-PSS key only signs with %s", digestByID(r.md).names[0])
			}
			c.mgf1 = r.mgf1
			c.saltLen = r.saltMin
			// A key whose minimum salt cannot fit its modulus is unusable.
			maxSalt := int(k.nLen) - digestByID(r.md).size
			if k.bits()&7 == 1 {
				maxSalt--
			}
			if r.saltMin < 0 || int(r.saltMin) > maxSalt {
				return errorf(ReasonInvalidSaltLength, "this RSA-PSS key's minimum salt of %d bytes exceeds the %d its modulus allows", r.saltMin, maxSalt)
			}
		}
	}
	if err := c.start(env, op, stream, mdName, "RSA"); err != nil {
		return err
	}
	return c.setParams(env, params, true)
}

// SetParams applies the parameters to a copy of the context and keeps the
// copy only if the combination is one the default provider accepts too, so
// a refused parameter changes nothing.
func (rsaSig) SetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	return (*rsaSigCtx)(st).setParams(env, params, false)
}

// setParams is SetParams, or with init the parameters of the init, which
// the default provider applies before it sets the init's digest up.
func (c *rsaSigCtx) setParams(env *Env, params Params, init bool) *Error {
	n := *c
	saltSet, mgf1Set := false, false
	err := params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "digest":
			err = n.setDigest(env, p, "RSA")
		case "mgf1-digest":
			v, _ := p.UTF8()
			if d := sigDigestByName("RSA", v); d == nil {
				err = unsignedDigest(v, "MGF1")
			} else {
				n.mgf1, mgf1Set = d.id, true
			}
		case "pad-mode":
			// As the default provider: a number, or one of its names
			// exactly (another name leaves the mode as it was).
			mode := int(n.pad)
			if v, ok := p.Int32(); ok {
				mode = int(v)
			} else if s, ok := p.UTF8(); ok {
				if m, ok := map[string]int{"pkcs1": rsaPadPKCS1, "none": rsaPadNone, "x931": rsaPadX931, "pss": rsaPadPSS}[s]; ok {
					mode = m
				}
			} else {
				err = errorf(ReasonBadParameter, "parameter \"pad-mode\" must be an integer or a string")
				break
			}
			switch {
			case mode == rsaPadX931 && (n.md == 0 || init):
				err = errorf(ReasonInvalidX931Digest, "X9.31 padding needs a digest")
			case mode != rsaPadPKCS1 && mode != rsaPadNone && mode != rsaPadPSS:
				err = errorf(ReasonIllegalOrUnsupportedPaddingMode, "RSA signature padding must be pkcs1 (1), none (3) or pss (6)")
			default:
				n.pad = uint32(mode)
			}
		case "saltlen":
			saltSet = true
			err = n.setSaltLen(env, p)
		}
		return err
	})
	if err == nil {
		err = n.check(env, saltSet, mgf1Set)
	}
	if err == nil {
		*c = n
	}
	return err
}

func (c *rsaSigCtx) setSaltLen(env *Env, p *Param) *Error {
	if s, ok := p.UTF8(); ok {
		switch {
		case s == "digest":
			c.saltLen = saltDigest
		case s == "max":
			c.saltLen = saltMax
		case s == "auto":
			c.saltLen = saltAuto
		case s == "auto-digestmax" && env.openSSLAtLeast(3, 1):
			c.saltLen = saltAutoDigestMax
		default:
			c.saltLen = atoi(s)
		}
		if c.saltLen < saltLowest(env) {
			return errorf(ReasonInvalidSaltLength, "saltlen %q", s)
		}
		return nil
	}
	if p.DataType != TypeInteger || p.DataSize != 4 || p.Data == nil {
		return errorf(ReasonBadParameter, "parameter \"saltlen\" must be an integer or a string")
	}
	v := *(*int32)(p.Data)
	if v < saltLowest(env) {
		return errorf(ReasonInvalidSaltLength, "saltlen %d", v)
	}
	c.saltLen = v
	return nil
}

// check refuses the combinations OpenSSL's default provider refuses: a
// digest without padding, PSS settings without PSS, anything an RSA-PSS
// key's restrictions exclude. PSS without a digest means SHA-1, as there.
// atoi reads a salt length as the default provider does (C's atoi: leading
// space, a sign, the digits up to the first other character, 0 for none).
func atoi(s string) int32 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n <= 1<<31; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return int32(max(min(n, 1<<31-1), -1<<31))
}

func (c *rsaSigCtx) check(env *Env, saltSet, mgf1Set bool) *Error {
	r := c.key
	switch {
	case r.isPSS != 0 && c.pad != rsaPadPSS:
		return errorf(ReasonIllegalOrUnsupportedPaddingMode, "an RSA-PSS key signs with PSS padding only")
	case c.pad == rsaPadNone && c.md != 0:
		return errorf(ReasonInvalidPaddingMode, "no padding cannot be used with a digest")
	case saltSet && c.pad != rsaPadPSS:
		return errorf(ReasonNotSupported, "a PSS salt length needs PSS padding, set first")
	case mgf1Set && c.pad != rsaPadPSS:
		return errorf(ReasonInvalidMGF1MD, "an MGF1 digest needs PSS padding, set first")
	}
	if c.pad == rsaPadPSS && c.md == 0 && c.stream == 0 {
		c.md = digestByName("SHA1").id
	}
	if r.md == 0 {
		return nil
	}
	mgf1 := c.mgf1
	if mgf1 == 0 {
		mgf1 = c.md
	}
	switch {
	case c.md != r.md || mgf1 != r.mgf1:
		return errorf(ReasonDigestNotAllowed, "this RSA-PSS key only signs with %s and MGF1 with %s", digestByID(r.md).names[0], digestByID(r.mgf1).names[0])
	case c.saltLen >= 0 && c.saltLen < r.saltMin,
		c.saltLen == saltDigest && int(r.saltMin) > digestByID(r.md).size:
		return errorf(ReasonPSSSaltlenTooSmall, "this RSA-PSS key needs a salt of at least %d bytes", r.saltMin)
	case saltSet && (c.saltLen == saltAuto || c.saltLen == saltAutoDigestMax) && (c.op == OpVerify) != env.openSSLAtLeast(3, 4):
		// OpenSSL 3.4 turned the check round: before, a restricted key
		// refused an automatic salt length when verifying, which is where
		// it means detection; since, when signing.
		return errorf(ReasonInvalidSaltLength, "this RSA-PSS key's salt length cannot be automatic")
	}
	return nil
}

func (rsaSig) GetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*rsaSigCtx)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "digest":
			if d := digestByID(c.md); d != nil && !p.SetUTF8(d.names[0]) {
				err = errorf(ReasonBadParameter, "parameter \"digest\": buffer too small")
			}
		case "pad-mode":
			if p.DataType == TypeUTF8 {
				p.SetUTF8(map[uint32]string{rsaPadPKCS1: "pkcs1", rsaPadNone: "none", rsaPadPSS: "pss"}[c.pad])
			} else {
				err = setUint(p, name, uint64(c.pad))
			}
		}
		return err
	})
}

func (rsaSig) Update(env *Env, st unsafe.Pointer, data []byte) *Error {
	return (*rsaSigCtx)(st).update(data)
}

// encode builds the encoded message (the input of the private operation)
// for a digest, per the context's padding.
func (c *rsaSigCtx) encode(k *rsaKey, tbs []byte) ([]byte, *Error) {
	l := int(k.nLen)
	d := digestByID(c.md)
	switch c.pad {
	case rsaPadNone:
		if len(tbs) != l {
			r := ReasonDataTooSmallForKeySize
			if len(tbs) > l {
				r = ReasonDataTooLargeForKeySize
			}
			return nil, errorf(r, "unpadded RSA input of %d bytes for a %d-byte modulus", len(tbs), l)
		}
		return append([]byte(nil), tbs...), nil
	case rsaPadPKCS1:
		t := tbs
		if d != nil {
			if len(tbs) != d.size {
				return nil, errorf(ReasonInvalidDigestLength, "input of %d bytes for a %d-byte digest", len(tbs), d.size)
			}
			t = append(d.digestInfo(), tbs...)
		}
		if len(t) > l-11 {
			r := ReasonDataTooLargeForKeySize
			if d != nil {
				r = ReasonDigestTooBigForRSAKey
			}
			return nil, errorf(r, "RSA key too small for this input")
		}
		em := make([]byte, l)
		em[1] = 1
		for i := 2; i < l-len(t)-1; i++ {
			em[i] = 0xff
		}
		copy(em[l-len(t):], t)
		return em, nil
	case rsaPadPSS:
		if d == nil {
			return nil, errorf(ReasonInvalidDigest, "RSA-PSS needs a digest")
		}
		if len(tbs) != d.size {
			return nil, errorf(ReasonInvalidDigestLength, "input of %d bytes for a %d-byte digest", len(tbs), d.size)
		}
		return c.pssEncode(k, d, tbs)
	}
	return nil, errorf(ReasonBadParameter, "RSA padding %d", c.pad)
}

func (c *rsaSigCtx) mgf1Digest(d *digest) *digest {
	if m := digestByID(c.mgf1); m != nil {
		return m
	}
	return d
}

// pssEncode is EMSA-PSS-ENCODE (RFC 8017 section 9.1.1).
func (c *rsaSigCtx) pssEncode(k *rsaKey, d *digest, mHash []byte) ([]byte, *Error) {
	emBits := k.bits() - 1
	emLen := (emBits + 7) / 8
	sLen := int(c.saltLen)
	switch c.saltLen {
	case saltDigest:
		sLen = d.size
	case saltMax, saltAuto:
		sLen = emLen - d.size - 2
	case saltAutoDigestMax:
		sLen = min(emLen-d.size-2, d.size)
	}
	if emLen < d.size+sLen+2 || sLen < 0 {
		return nil, errorf(ReasonDataTooLargeForKeySize, "RSA key too small for PSS with this digest and salt")
	}
	salt := make([]byte, sLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, errorf(ReasonOperationFailed, "drawing a PSS salt: %v", err)
	}
	h := d.newHash()
	h.Write(make([]byte, 8))
	h.Write(mHash)
	h.Write(salt)
	hv := h.Sum(nil)
	db := make([]byte, emLen-d.size-1)
	db[len(db)-sLen-1] = 1
	copy(db[len(db)-sLen:], salt)
	mgf1XOR(db, c.mgf1Digest(d).newHash, hv)
	db[0] &= 0xff >> (8*emLen - emBits)
	em := append(append(db, hv...), 0xbc)
	out := make([]byte, k.nLen)
	copy(out[int(k.nLen)-emLen:], em)
	return out, nil
}

// pssVerify is EMSA-PSS-VERIFY; em is the public operation's output.
func (c *rsaSigCtx) pssVerify(k *rsaKey, d *digest, mHash, em []byte) bool {
	emBits := k.bits() - 1
	emLen := (emBits + 7) / 8
	em = em[len(em)-emLen:]
	if len(em) < d.size+2 || em[len(em)-1] != 0xbc {
		return false
	}
	db := append([]byte(nil), em[:emLen-d.size-1]...)
	hv := em[emLen-d.size-1 : emLen-1]
	if db[0]&^(0xff>>(8*emLen-emBits)) != 0 {
		return false
	}
	mgf1XOR(db, c.mgf1Digest(d).newHash, hv)
	db[0] &= 0xff >> (8*emLen - emBits)
	i := bytes.IndexByte(db, 1)
	if i < 0 || !bytes.Equal(db[:i], make([]byte, i)) {
		return false
	}
	salt := db[i+1:]
	switch c.saltLen {
	case saltDigest:
		if len(salt) != d.size {
			return false
		}
	case saltMax:
		if len(salt) != emLen-d.size-2 {
			return false
		}
	case saltAuto, saltAutoDigestMax:
	default:
		if len(salt) != int(c.saltLen) {
			return false
		}
	}
	h := d.newHash()
	h.Write(make([]byte, 8))
	h.Write(mHash)
	h.Write(salt)
	return subtle.ConstantTimeCompare(h.Sum(nil), hv) == 1
}

// mgf1XOR xors MGF1(seed) into out (RFC 8017 appendix B.2.1).
func mgf1XOR(out []byte, newHash func() hash.Hash, seed []byte) {
	var counter [4]byte
	var sum [64]byte // the largest digest's output: no allocation per block
	h := newHash()
	done := 0
	for done < len(out) {
		h.Reset()
		h.Write(seed)
		h.Write(counter[:])
		for _, b := range h.Sum(sum[:0]) {
			if done == len(out) {
				break
			}
			out[done] ^= b
			done++
		}
		for i := 3; i >= 0; i-- {
			if counter[i]++; counter[i] != 0 {
				break
			}
		}
	}
}

func (rsaSig) Sign(env *Env, st, key, scratch, sig unsafe.Pointer, sigsize int, tbs []byte, w Waiter) (int, bool, *Error) {
	c, k := (*rsaSigCtx)(st), (*rsaKey)(key)
	return c.sign(env, k, sig, sigsize, tbs, w)
}

func (c *rsaSigCtx) sign(env *Env, k *rsaKey, sig unsafe.Pointer, sigsize int, tbs []byte, w Waiter) (int, bool, *Error) {
	l := int(k.nLen)
	if sig == nil {
		return l, false, nil
	}
	if sigsize < l {
		return 0, false, errorf(ReasonOutputTooSmall, "signature buffer of %d bytes for %d", sigsize, l)
	}
	em, err := c.encode(k, tbs)
	if err != nil {
		return 0, false, err
	}
	pending, err := rsaPrivate(env, k, em, unsafe.Slice((*byte)(sig), l), w)
	return l, pending, err
}

func (rsaSig) SignFinal(env *Env, st, key, scratch, sig unsafe.Pointer, sigsize int, w Waiter) (int, bool, *Error) {
	c, k := (*rsaSigCtx)(st), (*rsaKey)(key)
	if sig == nil {
		return int(k.nLen), false, nil
	}
	h, err := c.messageHash()
	if err != nil {
		return 0, false, err
	}
	return c.sign(env, k, sig, sigsize, h, w)
}

// Verify runs the public operation on the device and checks the encoding
// against the digest once the result is there (in the completion, inside
// an ASYNC job).
func (rsaSig) Verify(env *Env, st, key, scratch unsafe.Pointer, sig, tbs []byte, w Waiter) (bool, *Error) {
	c, k := (*rsaSigCtx)(st), (*rsaKey)(key)
	return c.verify(env, k, sig, tbs, w)
}

func (c *rsaSigCtx) verify(env *Env, k *rsaKey, sig, tbs []byte, w Waiter) (bool, *Error) {
	l := int(k.nLen)
	if len(sig) != l {
		return false, errorf(ReasonWrongSignatureLength, "RSA signature of %d bytes for a %d-byte modulus", len(sig), l)
	}
	if err := rsaPublicOK(k); err != nil {
		return false, err
	}
	out := dmaScratch(env, l)
	cc, digestCopy := *c, append([]byte(nil), tbs...)
	check := func() (int, *Error) {
		defer out.release()
		d := digestByID(cc.md)
		ok := false
		switch cc.pad {
		case rsaPadPSS:
			ok = d != nil && len(digestCopy) == d.size && cc.pssVerify(k, d, digestCopy, out.b)
		default:
			want, err := cc.encode(k, digestCopy)
			ok = err == nil && subtle.ConstantTimeCompare(want, out.b) == 1
		}
		if !ok {
			return 0, errorf(ReasonVerifyFailed, "RSA signature verification failed")
		}
		return 1, nil
	}
	pending, err := rsaPublic(env, k, sig, out.b, wrapWaiter(w, check, out.release))
	if err != nil {
		out.release()
		return false, err
	}
	if pending {
		return true, nil
	}
	_, err = check()
	return false, err
}

func (rsaSig) VerifyFinal(env *Env, st, key, scratch unsafe.Pointer, sig []byte, w Waiter) (bool, *Error) {
	c, k := (*rsaSigCtx)(st), (*rsaKey)(key)
	h, err := c.messageHash()
	if err != nil {
		return false, err
	}
	return c.verify(env, k, sig, h, w)
}

// VerifyRecover returns what a signature carries: the digest (PKCS#1 v1.5
// with a digest set), the signed data (PKCS#1 v1.5 without one) or the raw
// block (no padding), after the public operation on the device.
func (rsaSig) VerifyRecover(env *Env, st, key unsafe.Pointer, sig []byte, out []byte) (int, *Error) {
	c, k := (*rsaSigCtx)(st), (*rsaKey)(key)
	l := int(k.nLen)
	// A shorter signature is a number with its leading zeros left out, as
	// RSA_public_decrypt reads it.
	if len(sig) > l {
		return 0, errorf(ReasonDataGreaterThanModLen, "RSA signature of %d bytes for a %d-byte modulus", len(sig), l)
	}
	if out == nil {
		return l, nil
	}
	if err := rsaPublicOK(k); err != nil {
		return 0, err
	}
	buf := dmaScratch(env, l)
	defer buf.release()
	if _, err := rsaPublic(env, k, sig, buf.b, nil); err != nil {
		return 0, err
	}
	em := buf.b
	var rec []byte
	switch c.pad {
	case rsaPadNone:
		rec = em
	case rsaPadPKCS1:
		// 00 01 FF..FF 00 payload, at least eight FF bytes.
		i := 2
		for i < l && em[i] == 0xff {
			i++
		}
		if em[0] != 0 || em[1] != 1 || i < 10 || i >= l || em[i] != 0 {
			return 0, errorf(ReasonVerifyFailed, "not a PKCS#1 v1.5 signature block")
		}
		rec = em[i+1:]
		if d := digestByID(c.md); d != nil {
			prefix := d.digestInfo()
			if len(rec) != len(prefix)+d.size || !bytes.Equal(rec[:len(prefix)], prefix) {
				return 0, errorf(ReasonVerifyFailed, "the signature does not carry a %s digest", d.names[0])
			}
			rec = rec[len(prefix):]
		}
	default:
		return 0, errorf(ReasonBadParameter, "verify-recover needs PKCS#1 v1.5 or no padding")
	}
	if len(out) < len(rec) {
		return 0, errorf(ReasonOutputTooSmall, "output buffer of %d bytes for %d", len(out), len(rec))
	}
	return copy(out, rec), nil
}
