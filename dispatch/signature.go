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
	Encrypt(env *Env, st, key, out unsafe.Pointer, outsize int, in []byte, w Waiter) (int, bool, *Error)
	Decrypt(env *Env, st, key, out unsafe.Pointer, outsize int, in []byte, w Waiter) (int, bool, *Error)
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
