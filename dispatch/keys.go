// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
)

// Key selection bits (OSSL_KEYMGMT_SELECT_*).
const (
	SelectPrivate = 0x01
	SelectPublic  = 0x02
	SelectDomain  = 0x04
	SelectOther   = 0x80
	SelectKeypair = SelectPrivate | SelectPublic
)

// KeyHead starts every key's state (struct cpt_key_head in cptabi.h): the C
// side answers "has" and duplicates keys from it without calling Go.
type KeyHead struct {
	Has  uint32 // KeyHasPublic | KeyHasPrivate
	Type uint32
	// Aux is what the key derives once and keeps (a struct cpt_key_aux in
	// C memory; an RSA key's result check), set atomically on first use.
	// The key's free frees it and a copy starts without it; whatever
	// rewrites a key's material frees it first.
	Aux unsafe.Pointer
}

const (
	KeyHasPublic  = 1
	KeyHasPrivate = 2
	KeyHasDomain  = 4 // the key's domain parameters (EC group) are set
)

// KeyParam is one parameter a key exports: its OSSL_PARAM name, type
// (TypeOctet, or TypeUnsigned for a big-endian number the C side converts
// to native order) and value.
type KeyParam struct {
	Name string
	Type uint32
	Data []byte
}

// KeyType is the key management and key exchange of one key type over key
// data in C memory (StateSize bytes, zeroed at creation, KeyHead first) and
// key-generation contexts (GenStateSize bytes).
type KeyType interface {
	Name() string
	StateSize() uintptr
	GenStateSize() uintptr
	Import(env *Env, st unsafe.Pointer, selection int, params Params) *Error
	Export(env *Env, st unsafe.Pointer, selection int) ([]KeyParam, *Error)
	GetParams(env *Env, st unsafe.Pointer, params Params) *Error
	SetParams(env *Env, st unsafe.Pointer, params Params) *Error
	Match(a, b unsafe.Pointer, selection int) bool
	// Validate checks the parts of the key selection names, as
	// EVP_PKEY_check and its kin ask; nil when they are good.
	Validate(env *Env, st unsafe.Pointer, selection int) *Error
	GenSetParams(env *Env, gen unsafe.Pointer, params Params) *Error
	// GenSetTemplate takes the domain parameters of a template key.
	GenSetTemplate(gen, template unsafe.Pointer) *Error
	// Generate fills the key st from the generation context gen: domain
	// parameters only, or a key pair, as selection says.
	Generate(env *Env, gen, st unsafe.Pointer, selection int, w Waiter) (bool, *Error)
	// Derive computes the shared secret of key and peer into out; with a nil
	// out it reports the secret's size. scratch is ScratchSize bytes of C
	// memory the operation may use for device operands.
	Derive(env *Env, key, peer, scratch, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error)
}

// ScratchSize is the operand memory an exchange context provides.
const ScratchSize = 256

// Key type ids shared with the C side (cptabi.h CPT_KEY_*).
const (
	KeyX25519 = 1
	KeyEC     = 2
	KeyRSA    = 3
	KeyRSAPSS = 4
)

var keyTypes = [maxAlg]KeyType{
	KeyX25519: x25519{},
	KeyEC:     ec{},
	KeyRSA:    rsaKT{},
	KeyRSAPSS: rsaKT{pss: true},
}

// KeyTypeByID returns the key type for a CPT_KEY_* id, or nil.
func KeyTypeByID(id int) KeyType {
	if id < 0 || id >= maxAlg {
		return nil
	}
	return keyTypes[id]
}

// MaxKeyStateSize is the largest key state any key type needs.
func MaxKeyStateSize() uintptr {
	var m uintptr
	for _, k := range keyTypes {
		if k != nil {
			m = max(m, k.StateSize(), k.GenStateSize())
		}
	}
	return m
}

// fixedBase has the device compute a key's public half pub from its
// private half priv (a fixed-base multiplication on curve) and marks the
// public half present once it is there; with w nil, synchronously.
func fixedBase(env *Env, head *KeyHead, curve uint16, priv, pub []byte, alg int, name string, w Waiter) (bool, *Error) {
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCFixed),
		Param1: curve,
		DPtr:   uintptr(unsafe.Pointer(&priv[0])), DLen: uint32(len(priv)),
		RPtr: uintptr(unsafe.Pointer(&pub[0])), RLen: uint32(len(pub)),
	}
	_, pending, err := run(env.AE, env.algCounters(alg, name), &inst, w, finishFunc(func(cptdrv.Result) (int, *Error) {
		head.Has |= KeyHasPublic
		return 0, nil
	}))
	return pending, err
}
