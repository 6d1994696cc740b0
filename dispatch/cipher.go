// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
)

// Cipher is the EVP semantics of one cipher over an operation context that
// lives in C memory (st points to StateSize() zeroed bytes at newctx; a
// zeroed context is a valid fresh one, so newctx needs no Go call).
type Cipher interface {
	Name() string
	StateSize() uintptr
	Init(env *Env, st unsafe.Pointer, enc bool, key []byte, keySet bool, iv []byte, ivSet bool, params Params) *Error
	// Update returns pending=true when w is non-nil and the result will be
	// delivered through w.Complete.
	Update(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (outl int, pending bool, err *Error)
	Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (outl int, pending bool, err *Error)
	GetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error
	SetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error
	// Dup fixes up a byte-for-byte copy of a context.
	Dup(env *Env, st unsafe.Pointer)
	// Free forgets what the device caches for the context.
	Free(env *Env, st unsafe.Pointer)
}

// OneShotCipher is implemented by the ciphers whose EVP_Cipher() differs
// from an update: the unauthenticated modes process exactly what they are
// given, without buffering or padding.
type OneShotCipher interface {
	OneShot(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (outl int, pending bool, err *Error)
}

// StreamState is the state of an unauthenticated cipher stream as the C
// side's CPU path and the device path hand it over (struct
// cpt_stream_state).
type StreamState struct {
	IV     [16]byte
	Buf    [16]byte
	BufLen uint32
	Num    uint32
	Pad    int32
	Enc    int32
}

// StreamCipher is implemented by the ciphers whose streams can move
// between the device and the C side's CPU path.
type StreamCipher interface {
	ExportStream(env *Env, st unsafe.Pointer) StreamState
	ImportStream(env *Env, st unsafe.Pointer, s StreamState) *Error
}

// AEADShadow is the head of every AEAD context's state that the C side
// reads and writes too (struct cpt_aead_shadow in cptabi.h): the IV length,
// and what lets the C side finish a message without calling Go.
type AEADShadow struct {
	IVLen      uint64
	FinalReady uint32
	FinalDone  uint32
	Enc        uint32
	TagLen     uint32
	Tag        [16]byte
	RunTag     [16]byte
}

// finalDoneIVUsed in FinalDone (CPT_FINAL_DONE_IV_USED): the C side's CPU
// path finished a message with the IV of the init it still holds for Go.
const finalDoneIVUsed = 2

// Counter slots of the asymmetric algorithms (Env.algCounters), after the
// ciphers' ids.
const (
	algX25519 = 32 + iota
	algEC     // EC key generation and checks
	algECDH
	algECDSA
	algRSA
)

// maxAlg bounds the algorithm ids (CPT_ALG_*).
const maxAlg = 64

//go:generate go run ../internal/algdef/gen -def ../provider/algorithms.def -o algorithms_gen.go

// cipherRow is a cipher of the list of algorithms (provider/algorithms.def,
// copied to cipherRows in algorithms_gen.go).
type cipherRow struct {
	id     int
	name   string
	family family
	keyLen int
	digest int // the stitched ciphers: the HMAC's digest (MD*)
}

// family is a family of the list; a cipher's family is its implementation.
type family uint8

// cipherFamilies makes the cipher of a row of the list.
var cipherFamilies = [numFamilies]func(r cipherRow) Cipher{
	famAESGCM:           func(r cipherRow) Cipher { return newGCM(r.id, r.name, r.keyLen) },
	famAESCBC:           blockFamily(16, cptdrv.CipherAESCBC, true, false),
	famAESCTR:           blockFamily(16, cptdrv.CipherAESCTR, false, false),
	famDESEDE3CBC:       blockFamily(8, cptdrv.Cipher3DESCBC, true, false),
	famCHACHA20:         blockFamily(16, cptdrv.CipherChaCha20, false, true),
	famCHACHA20POLY1305: func(r cipherRow) Cipher { return newChaChaPoly(r.id, r.name, r.keyLen) },
	famAESCBCHMAC:       func(r cipherRow) Cipher { return newStitched(r) },
}

// blockFamily makes the ciphers of a family of blockCipher.
func blockFamily(block int, device uint16, padded, chacha bool) func(r cipherRow) Cipher {
	return func(r cipherRow) Cipher {
		return blockCipher{id: r.id, name: r.name, keyLen: r.keyLen, block: block, device: device, padded: padded, chacha: chacha}
	}
}

// ciphers holds the cipher of each row by id; a family without an
// implementation here leaves its rows out (TestAlgorithmList fails).
var ciphers = func() (t [maxAlg]Cipher) {
	for _, r := range cipherRows {
		if f := cipherFamilies[r.family]; f != nil {
			t[r.id] = f(r)
		}
	}
	return t
}()

// CipherByID returns the cipher for a CPT_ALG_* id, or nil.
func CipherByID(id int) Cipher {
	if id < 0 || id >= maxAlg {
		return nil
	}
	return ciphers[id]
}

// MaxStateSize is the largest context any cipher needs; the C side reserves
// this much (CPT_CIPHER_STATE_SIZE) and the Go library checks it at start.
func MaxStateSize() uintptr {
	var m uintptr
	for _, c := range ciphers {
		if c != nil {
			m = max(m, c.StateSize())
		}
	}
	return m
}
