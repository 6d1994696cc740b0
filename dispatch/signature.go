// SPDX-License-Identifier: Apache-2.0

package dispatch

import "unsafe"

// Signature is the EVP semantics of one signature scheme over an operation
// context in C memory (StateSize bytes) and a key's state. Sign and Verify
// work on a digest; Update, SignFinal and VerifyFinal on a message hashed
// here (EVP_DigestSign/Verify). scratch is SigScratchSize bytes of C memory
// for device operands.
type Signature interface {
	Name() string
	StateSize() uintptr
	Init(env *Env, st, key unsafe.Pointer, op int, stream bool, mdName string, params Params) *Error
	SetParams(env *Env, st unsafe.Pointer, params Params) *Error
	GetParams(env *Env, st unsafe.Pointer, params Params) *Error
	Update(env *Env, st unsafe.Pointer, data []byte) *Error
	Sign(env *Env, st, key, scratch, sig unsafe.Pointer, sigsize int, tbs []byte, w Waiter) (int, bool, *Error)
	Verify(env *Env, st, key, scratch unsafe.Pointer, sig, tbs []byte, w Waiter) (bool, *Error)
	SignFinal(env *Env, st, key, scratch, sig unsafe.Pointer, sigsize int, w Waiter) (int, bool, *Error)
	VerifyFinal(env *Env, st, key, scratch unsafe.Pointer, sig []byte, w Waiter) (bool, *Error)
}

// Recoverer is a Signature whose signatures carry their data (RSA).
type Recoverer interface {
	VerifyRecover(env *Env, st, key unsafe.Pointer, sig, out []byte) (int, *Error)
}

// Signature ids shared with the C side (cptabi.h CPT_SIG_*).
const (
	SigECDSA = 1
	SigRSA   = 2
)

var signatures = [maxAlg]Signature{
	SigECDSA: ecdsaSig{},
	SigRSA:   rsaSig{},
}

// SignatureByID returns the signature scheme for a CPT_SIG_* id, or nil.
func SignatureByID(id int) Signature {
	if id < 0 || id >= maxAlg {
		return nil
	}
	return signatures[id]
}

// MaxSigStateSize is the largest signature or asymmetric cipher context.
func MaxSigStateSize() uintptr {
	m := rsaEnc{}.StateSize()
	for _, s := range signatures {
		if s != nil {
			m = max(m, s.StateSize())
		}
	}
	return m
}

// AsymCipher is the EVP semantics of an asymmetric cipher (RSA encryption)
// over an operation context in C memory and a key's state.
type AsymCipher interface {
	Name() string
	StateSize() uintptr
	Init(env *Env, st, key unsafe.Pointer, op int, params Params) *Error
	SetParams(env *Env, st unsafe.Pointer, params Params) *Error
	GetParams(env *Env, st unsafe.Pointer, params Params) *Error
	// label is the OAEP label, which the C side keeps (it has no bound on
	// its length, as in OpenSSL).
	Encrypt(env *Env, st, key, out unsafe.Pointer, outsize int, in, label []byte, w Waiter) (int, bool, *Error)
	Decrypt(env *Env, st, key, out unsafe.Pointer, outsize int, in, label []byte, w Waiter) (int, bool, *Error)
}

// Asymmetric cipher ids shared with the C side (cptabi.h CPT_ASYM_*).
const AsymRSA = 1

// AsymCipherByID returns the asymmetric cipher for a CPT_ASYM_* id, or nil.
func AsymCipherByID(id int) AsymCipher {
	if id == AsymRSA {
		return rsaEnc{}
	}
	return nil
}

// sigBase is what every signature context holds: the operation, the digest,
// and for EVP_DigestSign/Verify the message's running hash (plain values, in
// C memory).
type sigBase struct {
	op     uint32
	md     uint32 // digest id, 0 while none is set
	stream uint32 // a message is being hashed here
	_      uint32
	hs     hashState
}

// start begins an operation: op, and with stream a message hashed with the
// digest mdName.
func (b *sigBase) start(env *Env, op int, stream bool, mdName, scheme string) *Error {
	b.hs.reset()
	*b = sigBase{op: uint32(op)}
	if mdName != "" {
		d, err := sigDigest(env, scheme, mdName)
		if err != nil {
			return err
		}
		b.md = d.id
	}
	if stream {
		if b.md == 0 {
			return errorf(ReasonBadParameter, "no digest for %s over a message", scheme)
		}
		b.stream = 1
	}
	return nil
}

// sigDigestByName finds a digest scheme signs with: ECDSA takes every
// digest, RSA those for useRSA, as the default provider does.
func sigDigestByName(scheme, name string) *digest {
	d := digestByName(name)
	if d != nil && scheme == (rsaSig{}).Name() && d.use&useRSA == 0 {
		return nil
	}
	return d
}

// sigDigest is sigDigestByName with the running OpenSSL's rules and the
// default provider's reason for a digest it refuses.
func sigDigest(env *Env, scheme, name string) (*digest, *Error) {
	d := sigDigestByName(scheme, name)
	switch {
	case d == nil:
		return nil, unsignedDigest(name, scheme)
	case d.noDefaultLength(env):
		return nil, errorf(ReasonInvalidDigest, "%s has no output length for %s (OpenSSL 3.4 and later)", d.names[0], scheme)
	}
	return d, nil
}

// setDigest takes the "digest" parameter, which cannot change in the middle
// of a hashed message.
func (b *sigBase) setDigest(env *Env, p *Param, scheme string) *Error {
	v, ok := p.UTF8()
	d, derr := sigDigest(env, scheme, v)
	switch {
	case !ok:
		return errorf(ReasonBadParameter, "parameter \"digest\" must be a UTF-8 string")
	case derr != nil:
		return derr
	case b.stream != 0 && b.hs.n != 0 && d.id != b.md:
		return errorf(ReasonWrongState, "the digest cannot change while a message is hashed")
	}
	b.md = d.id
	return nil
}

// checkDigestLen refuses a pre-hashed input whose length is not the digest's.
func (b *sigBase) checkDigestLen(tbs []byte) *Error {
	if d := digestByID(b.md); d != nil && b.stream == 0 && len(tbs) != d.size {
		return errorf(ReasonInvalidDigestLength, "input of %d bytes for a %d-byte digest", len(tbs), d.size)
	}
	return nil
}

// unsignedDigest is the error for a digest signatures do not take: one
// OpenSSL knows (an XOF, MD5) is not allowed, another is not a digest.
func unsignedDigest(name, scheme string) *Error {
	if oaepDigestByName(name) != nil {
		return errorf(ReasonDigestNotAllowed, "digest %q not allowed with %s", name, scheme)
	}
	return errorf(ReasonInvalidDigest, "digest %q not supported with %s", name, scheme)
}

// update hashes more of the message.
func (b *sigBase) update(data []byte) *Error {
	d := digestByID(b.md)
	if b.stream == 0 || d == nil {
		return errorf(ReasonWrongState, "not hashing a message")
	}
	h, err := b.hs.load(d)
	if err != nil {
		return err
	}
	h.Write(data)
	return b.hs.save(h)
}

// messageHash finishes the message's hash and resets the running state.
func (b *sigBase) messageHash() ([]byte, *Error) {
	if b.stream == 0 {
		return nil, errorf(ReasonWrongState, "not hashing a message")
	}
	h, err := b.hs.load(digestByID(b.md))
	if err != nil {
		return nil, err
	}
	b.hs.reset()
	return h.Sum(nil), nil
}
