// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"unsafe"

	"golang.org/x/crypto/ripemd160"
)

// RSA encryption: PKCS#1 v1.5, OAEP, no padding, and the TLS pre-master
// secret mode of OpenSSL (pad-mode 7), whose failures are indistinguishable
// from success. Padding and its (constant-time) checks are the driver's; the
// exponentiations are the device's.
type rsaEnc struct{}

const (
	rsaPadOAEP = 4
	rsaPadX931 = 5
	rsaPadTLS  = 7 // RSA_PKCS1_WITH_TLS_PADDING
	// rsaPadPKCS1Explicit is PKCS#1 v1.5 decryption without implicit
	// rejection (RSA_PKCS1_NO_IMPLICIT_REJECT_PADDING, OpenSSL 3.2).
	rsaPadPKCS1Explicit = 8
	tlsPMSLen           = 48

	OpEncrypt = 1
	OpDecrypt = 2
)

// rsaEncCtx is an RSA encryption context in C memory. The OAEP label, of
// any length, is the C side's (provider/asymcipher.c), which passes it to
// Encrypt and Decrypt.
type rsaEncCtx struct {
	op        uint32
	pad       uint32
	md        uint32 // OAEP digest, 0: SHA-1
	mgf1      uint32 // 0: the OAEP digest
	clientVer uint32
	altVer    uint32
	// implicitRejection is "implicit-rejection" (OpenSSL 3.2 and later; 1
	// unless set): PKCS#1 v1.5 decryption answers a bad padding with a
	// synthetic message rather than an error.
	implicitRejection uint32
}

func (rsaEnc) Name() string       { return "RSA" }
func (rsaEnc) StateSize() uintptr { return unsafe.Sizeof(rsaEncCtx{}) }

func (rsaEnc) Init(env *Env, st, key unsafe.Pointer, op int, params Params) *Error {
	c, k := (*rsaEncCtx)(st), (*rsaKey)(key)
	if k == nil || k.nLen == 0 {
		return errorf(ReasonMissingKey, "RSA encryption needs an RSA key")
	}
	if op == OpDecrypt && k.head.Has&KeyHasPrivate == 0 {
		return errorf(ReasonMissingKey, "RSA decryption needs a private key")
	}
	*c = rsaEncCtx{op: uint32(op), pad: rsaPadPKCS1, implicitRejection: 1}
	return rsaEnc{}.SetParams(env, st, params)
}

func (rsaEnc) SetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*rsaEncCtx)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "pad-mode":
			// As the default provider: any number but PSS's, and by name
			// (exactly) one of its own, an unknown name being mode 0; a
			// mode that cannot encrypt fails at the operation.
			if v, ok := p.Int32(); ok {
				if v == rsaPadPSS {
					err = errorf(ReasonIllegalOrUnsupportedPaddingMode, "PSS padding is for signatures only")
				} else {
					c.pad = uint32(v)
				}
			} else if s, ok := p.UTF8(); ok {
				c.pad = uint32(map[string]int{"pkcs1": rsaPadPKCS1, "none": rsaPadNone, "oaep": rsaPadOAEP, "oeap": rsaPadOAEP, "x931": rsaPadX931}[s])
			} else {
				err = errorf(ReasonBadParameter, "parameter \"pad-mode\" must be an integer or a string")
			}
		case "digest", "mgf1-digest":
			v, ok := p.UTF8()
			d := oaepDigestByName(v)
			switch {
			case !ok:
				err = errorf(paramTypeReason(p, TypeUTF8), "parameter %q must be a string", name)
			case d == nil:
				err = errorf(ReasonUnsupported, "parameter %q: digest %q not supported", name, v)
			case name == "digest":
				c.md = d.id
			default:
				c.mgf1 = d.id
			}
		case "tls-client-version", "tls-negotiated-version", "implicit-rejection":
			if name == "implicit-rejection" && !env.openSSLAtLeast(3, 2) {
				break // unknown to OpenSSL 3.0 and 3.1
			}
			v, ok := p.Uint64()
			switch {
			case !ok || v > 0xffffffff:
				err = errorf(paramTypeReason(p, TypeInteger, TypeUnsigned), "parameter %q must be an unsigned int", name)
			case name == "tls-client-version":
				c.clientVer = uint32(v)
			case name == "tls-negotiated-version":
				c.altVer = uint32(v)
			default:
				c.implicitRejection = uint32(v)
			}
		}
		return err
	})
}

func (rsaEnc) GetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*rsaEncCtx)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "pad-mode":
			err = setUint(p, name, uint64(c.pad))
		case "digest", "mgf1-digest":
			d := c.oaepDigest()
			if name == "mgf1-digest" {
				d = c.mgf1Digest(d)
			}
			if !p.SetUTF8(d.names[0]) {
				err = errorf(ReasonBadParameter, "parameter %q: buffer too small", name)
			}
		case "tls-client-version":
			err = setUint(p, name, uint64(c.clientVer))
		case "tls-negotiated-version":
			err = setUint(p, name, uint64(c.altVer))
		case "implicit-rejection":
			if env.openSSLAtLeast(3, 2) {
				err = setUint(p, name, uint64(c.implicitRejection))
			}
		}
		return err
	})
}

func (c *rsaEncCtx) oaepDigest() *digest {
	if d := oaepDigestByID(c.md); d != nil {
		return d
	}
	return digestByName("SHA1")
}

// Encrypt pads in and runs the public operation on the device.
func (rsaEnc) Encrypt(env *Env, st, key, out unsafe.Pointer, outsize int, in, label []byte, w Waiter) (int, bool, *Error) {
	c, k := (*rsaEncCtx)(st), (*rsaKey)(key)
	l := int(k.nLen)
	if out == nil {
		return l, false, nil
	}
	if outsize < l {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer of %d bytes for %d", outsize, l)
	}
	em := make([]byte, l)
	switch c.pad {
	case rsaPadNone:
		if len(in) > l {
			return 0, false, errorf(ReasonDataTooLargeForKeySize, "unpadded RSA input of %d bytes for a %d-byte modulus", len(in), l)
		}
		if len(in) < l {
			return 0, false, errorf(ReasonDataTooSmallForKeySize, "unpadded RSA input of %d bytes for a %d-byte modulus", len(in), l)
		}
		copy(em, in)
	case rsaPadPKCS1:
		if len(in) > l-11 {
			return 0, false, errorf(ReasonDataTooLargeForKeySize, "input of %d bytes too long for a %d-byte key", len(in), l)
		}
		em[1] = 2
		ps := em[2 : l-len(in)-1]
		if err := nonZeroRandom(ps); err != nil {
			return 0, false, errorf(ReasonOperationFailed, "padding: %v", err)
		}
		copy(em[l-len(in):], in)
	case rsaPadOAEP:
		d, mgf := c.oaepDigest(), c.mgf1Digest(c.oaepDigest())
		if err := oaepXOFCheck(env, d); err != nil {
			return 0, false, err
		}
		hl := d.size
		if len(in) > l-2*hl-2 {
			return 0, false, errorf(ReasonDataTooLargeForKeySize, "input of %d bytes too long for OAEP with a %d-byte key", len(in), l)
		}
		if err := oaepXOFCheck(env, mgf); err != nil {
			return 0, false, err
		}
		seed, db := em[1:1+hl], em[1+hl:]
		lh := d.newHash()
		lh.Write(label)
		copy(db, lh.Sum(nil))
		db[len(db)-len(in)-1] = 1
		copy(db[len(db)-len(in):], in)
		if _, err := rand.Read(seed); err != nil {
			return 0, false, errorf(ReasonOperationFailed, "OAEP seed: %v", err)
		}
		mgf1XOR(db, mgf.newHash, seed)
		mgf1XOR(seed, mgf.newHash, db)
	default:
		return 0, false, errorf(ReasonUnknownPaddingType, "padding %d cannot encrypt", int32(c.pad))
	}
	pending, err := rsaPublic(env, k, em, unsafe.Slice((*byte)(out), l), w)
	return l, pending, err
}

// oaepXOFCheck refuses SHAKE as an OAEP or MGF1 digest where the running
// OpenSSL does: since 3.4 SHAKE has no default output length, and OAEP
// takes a digest's length from it (EVP_MD_get_size, 0).
func oaepXOFCheck(env *Env, d *digest) *Error {
	if d.noDefaultLength(env) {
		return errorf(ReasonInvalidLength, "%s has no output length for OAEP (OpenSSL 3.4 and later)", d.names[0])
	}
	return nil
}

func (c *rsaEncCtx) mgf1Digest(d *digest) *digest {
	if m := oaepDigestByID(c.mgf1); m != nil {
		return m
	}
	return d
}

func nonZeroRandom(b []byte) error {
	if _, err := rand.Read(b); err != nil {
		return err
	}
	for i := range b {
		for b[i] == 0 {
			if _, err := rand.Read(b[i : i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Decrypt runs the private operation on the device into operand memory and
// removes the padding, in constant time, in the completion.
func (rsaEnc) Decrypt(env *Env, st, key, out unsafe.Pointer, outsize int, in, label []byte, w Waiter) (int, bool, *Error) {
	c, k := (*rsaEncCtx)(st), (*rsaKey)(key)
	l := int(k.nLen)
	if c.pad == rsaPadTLS {
		if out == nil {
			return tlsPMSLen, false, nil
		}
		if outsize < tlsPMSLen {
			return 0, false, errorf(ReasonBadLength, "output buffer of %d bytes for the 48-byte secret", outsize)
		}
	} else if out == nil {
		return l, false, nil
	} else if outsize < l {
		return 0, false, errorf(ReasonBadLength, "output buffer of %d bytes for %d", outsize, l)
	}
	if len(in) > l {
		return 0, false, errorf(ReasonDataGreaterThanModLen, "ciphertext of %d bytes for a %d-byte modulus", len(in), l)
	}
	if len(in) < l {
		// A number with leading zeros left out, as OpenSSL reads it.
		in = append(make([]byte, l-len(in)), in...)
	}
	if c.pad == rsaPadTLS && c.clientVer == 0 {
		return 0, false, errorf(ReasonBadTLSClientVersion, "TLS padding needs tls-client-version")
	}
	if c.pad == rsaPadOAEP {
		d := c.oaepDigest()
		for _, x := range []*digest{d, c.mgf1Digest(d)} {
			if err := oaepXOFCheck(env, x); err != nil {
				return 0, false, err
			}
		}
	}
	// Drawn before the decryption, so that a failure costs the same.
	var fake [tlsPMSLen]byte
	if c.pad == rsaPadTLS {
		if _, err := rand.Read(fake[:]); err != nil {
			return 0, false, errorf(ReasonOperationFailed, "drawing a substitute secret: %v", err)
		}
	}
	// OpenSSL 3.2 made implicit rejection PKCS#1 v1.5's default, and
	// pad-mode 8 the way to ask for the padding error instead.
	pad := c.pad
	var kdk []byte
	if env.openSSLAtLeast(3, 2) {
		switch {
		case pad == rsaPadPKCS1Explicit:
			pad = rsaPadPKCS1
		case pad == rsaPadPKCS1 && c.implicitRejection != 0:
			kdk = rsaKDK(k.d[:l], in)
		}
	}
	block := dmaScratch(env, l)
	dst := unsafe.Slice((*byte)(out), outsize)
	// The completion may run after the C side has changed its label.
	md, mgf, label := c.oaepDigest(), c.mgf1Digest(c.oaepDigest()), append([]byte(nil), label...)
	clientVer, altVer := c.clientVer, c.altVer
	release := func() {
		clear(kdk)
		block.release()
	}
	finish := func() (int, *Error) {
		em := block.b
		defer release()
		switch pad {
		case rsaPadNone:
			if len(dst) < l {
				return 0, errorf(ReasonOutputTooSmall, "output buffer of %d bytes for %d", len(dst), l)
			}
			return copy(dst, em), nil
		case rsaPadTLS:
			tlsUnpad(dst[:tlsPMSLen], em, fake[:], clientVer, altVer)
			return tlsPMSLen, nil
		case rsaPadPKCS1:
			if kdk != nil {
				return pkcs1ImplicitUnpad(dst, em, kdk), nil
			}
			n, ok := pkcs1Unpad(em)
			if ok != 1 || n > len(dst) {
				return 0, errorf(ReasonPKCSDecodingError, "RSA decryption failed (PKCS#1 v1.5)")
			}
			return copy(dst, em[l-n:]), nil
		case rsaPadOAEP:
			n, ok := oaepUnpad(em, md, mgf, label)
			if ok != 1 || n > len(dst) {
				return 0, errorf(ReasonOAEPDecodingError, "RSA decryption failed (OAEP)")
			}
			return copy(dst, em[l-n:]), nil
		}
		return 0, errorf(ReasonUnknownPaddingType, "padding %d cannot decrypt", int32(pad))
	}
	// The private operation, then the unpadding once the block is there.
	pending, err := rsaPrivate(env, k, in, block.b, wrapWaiter(w, finish, release))
	if err != nil {
		release()
		return 0, false, err
	}
	if pending {
		return 0, true, nil
	}
	n, e := finish()
	return n, false, e
}

// wrapWaiter runs finish when the device is done, and reports its outcome
// to w; when the device failed, it runs cleanup instead (nil w: synchronous,
// nothing to wrap).
func wrapWaiter(w Waiter, finish func() (int, *Error), cleanup func()) Waiter {
	if w == nil {
		return nil
	}
	return finishingWaiter{w, finish, cleanup}
}

type finishingWaiter struct {
	w       Waiter
	finish  func() (int, *Error)
	cleanup func()
}

func (f finishingWaiter) Complete(n int, err *Error) {
	if err != nil {
		f.cleanup()
		f.w.Complete(0, err)
		return
	}
	f.w.Complete(f.finish())
}

// pkcs1Unpad checks EME-PKCS1-v1_5 padding in constant time and returns the
// message length (ok = 1) or ok = 0.
func pkcs1Unpad(em []byte) (int, int) {
	good := subtle.ConstantTimeByteEq(em[0], 0) & subtle.ConstantTimeByteEq(em[1], 2)
	zeroIndex, lookingForZero := 0, 1
	for i := 2; i < len(em); i++ {
		isZero := subtle.ConstantTimeByteEq(em[i], 0)
		zeroIndex = subtle.ConstantTimeSelect(lookingForZero&isZero, i, zeroIndex)
		lookingForZero &= ^isZero & 1
	}
	good &= ^lookingForZero & 1
	good &= subtle.ConstantTimeLessOrEq(2+8, zeroIndex) // eight padding bytes at least
	return subtle.ConstantTimeSelect(good, len(em)-zeroIndex-1, 0), good
}

// rsaKDK is the key-derivation key of implicit rejection for ciphertext c
// (as long as the modulus) under private exponent d (as long too): HMAC-
// SHA256 keyed with SHA-256(d) over c, as OpenSSL's derive_kdk.
func rsaKDK(d, c []byte) []byte {
	dh := sha256.Sum256(d)
	defer clear(dh[:])
	m := hmac.New(sha256.New, dh[:])
	m.Write(c)
	return m.Sum(nil)
}

// rsaPRF is the pseudo-random function of implicit rejection (OpenSSL's
// ossl_rsa_prf): n bytes of HMAC-SHA256 under kdk over a 16-bit counter,
// label and the output length in bits (16 bits: n is at most a modulus).
func rsaPRF(kdk []byte, label string, n int) []byte {
	out := make([]byte, 0, n+sha256.Size)
	m := hmac.New(sha256.New, kdk)
	for iter := 0; len(out) < n; iter++ {
		m.Reset()
		m.Write([]byte{byte(iter >> 8), byte(iter)})
		m.Write([]byte(label))
		m.Write([]byte{byte(n * 8 >> 8), byte(n * 8)})
		out = m.Sum(out)
	}
	return out[:n]
}

// rsaSyntheticTries is how many candidate lengths of the synthetic message
// implicit rejection draws (the last one short enough wins).
const rsaSyntheticTries = 128

// pkcs1ImplicitUnpad is EME-PKCS1-v1_5 decoding with implicit rejection
// (OpenSSL's ossl_rsa_padding_check_PKCS1_type_2): a bad padding yields a
// synthetic message derived from kdk instead of an error, the same one for
// the same key and ciphertext, so that neither the outcome nor the time
// nor the memory touched tells a bad padding from a good one. Writes the
// message to out (at least len(em) bytes) and returns its length.
func pkcs1ImplicitUnpad(out, em, kdk []byte) int {
	l := len(em)
	synthetic := rsaPRF(kdk, "message", l)
	lengths := rsaPRF(kdk, "length", 2*rsaSyntheticTries)
	maxLen := l - 2 - 8 // 00 02, eight bytes of padding at least
	mask := maxLen
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	synLen := 0
	for i := 0; i < len(lengths); i += 2 {
		cand := (int(lengths[i])<<8 | int(lengths[i+1])) & mask
		synLen = subtle.ConstantTimeSelect(subtle.ConstantTimeLessOrEq(cand+1, maxLen), cand, synLen)
	}
	n, good := pkcs1Unpad(em)
	// Where the message starts is no secret: either message is as likely.
	start := subtle.ConstantTimeSelect(good, l-n, l-synLen)
	for i := start; i < l; i++ {
		out[i-start] = byte(subtle.ConstantTimeSelect(good, int(em[i]), int(synthetic[i])))
	}
	return l - start
}

// oaepUnpad is EME-OAEP decoding (RFC 8017 section 7.1.2) in constant time.
func oaepUnpad(em []byte, d, mgf *digest, label []byte) (int, int) {
	hl := d.size
	if len(em) < 2*hl+2 {
		return 0, 0
	}
	seed := append([]byte(nil), em[1:1+hl]...)
	db := append([]byte(nil), em[1+hl:]...)
	mgf1XOR(seed, mgf.newHash, db)
	mgf1XOR(db, mgf.newHash, seed)
	lh := d.newHash()
	lh.Write(label)
	good := subtle.ConstantTimeByteEq(em[0], 0) & subtle.ConstantTimeCompare(db[:hl], lh.Sum(nil))
	rest := db[hl:]
	lookingForIndex, index, invalid := 1, 0, 0
	for i := range rest {
		equals0 := subtle.ConstantTimeByteEq(rest[i], 0)
		equals1 := subtle.ConstantTimeByteEq(rest[i], 1)
		index = subtle.ConstantTimeSelect(lookingForIndex&equals1, i, index)
		lookingForIndex = subtle.ConstantTimeSelect(equals1, 0, lookingForIndex)
		invalid = subtle.ConstantTimeSelect(lookingForIndex&^equals0, 1, invalid)
	}
	good &= ^(invalid | lookingForIndex) & 1
	n := len(rest) - index - 1
	// Put the message at the end of em, where the caller copies it from.
	copy(em[len(em)-len(rest):], rest)
	return subtle.ConstantTimeSelect(good, n, 0), good
}

// tlsUnpad writes the 48-byte pre-master secret, or fake when the padding or
// the version inside is wrong, without a branch on either (as OpenSSL's
// ossl_rsa_padding_check_PKCS1_type_2_TLS).
func tlsUnpad(out, em, fake []byte, clientVer, altVer uint32) {
	fl := len(em)
	good := subtle.ConstantTimeByteEq(em[0], 0) & subtle.ConstantTimeByteEq(em[1], 2)
	for i := 2; i < fl-tlsPMSLen-1; i++ {
		good &= ^subtle.ConstantTimeByteEq(em[i], 0) & 1
	}
	good &= subtle.ConstantTimeByteEq(em[fl-tlsPMSLen-1], 0)
	ver := subtle.ConstantTimeByteEq(em[fl-tlsPMSLen], byte(clientVer>>8)) & subtle.ConstantTimeByteEq(em[fl-tlsPMSLen+1], byte(clientVer))
	if altVer > 0 {
		ver |= subtle.ConstantTimeByteEq(em[fl-tlsPMSLen], byte(altVer>>8)) & subtle.ConstantTimeByteEq(em[fl-tlsPMSLen+1], byte(altVer))
	}
	good &= ver
	for i := 0; i < tlsPMSLen; i++ {
		out[i] = byte(subtle.ConstantTimeSelect(good, int(em[fl-tlsPMSLen+i]), int(fake[i])))
	}
}

// oaepDigests are the digests OAEP takes beyond the table's: the default
// provider's OAEP takes any digest it can fetch, and hashes nothing with
// them that must be saved half-done (the label, MGF1's seeds), which the
// table's digests must allow.
var oaepDigests = []*digest{
	{106, []string{"RIPEMD-160", "RIPEMD160", "RIPEMD", "RMD160", "1.3.36.3.2.1"}, 20, ripemd160.New, nil, 0},
}

func oaepDigestByName(name string) *digest {
	if d := digestByName(name); d != nil {
		return d
	}
	return digestNamed(oaepDigests, name)
}

func oaepDigestByID(id uint32) *digest {
	if d := digestByID(id); d != nil {
		return d
	}
	return digestWithID(oaepDigests, id)
}
