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

// Cipher IDs shared with the C side (provider/cptabi.h CPT_ALG_*).
const (
	AlgAES128GCM  = 1
	AlgAES192GCM  = 2
	AlgAES256GCM  = 3
	AlgAES128CBC  = 4
	AlgAES192CBC  = 5
	AlgAES256CBC  = 6
	AlgAES128CTR  = 7
	AlgAES192CTR  = 8
	AlgAES256CTR  = 9
	AlgDESEDE3CBC = 10
	AlgChaCha20   = 11
	AlgChaChaPoly = 12
)

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

var ciphers = [maxAlg]Cipher{
	AlgAES128GCM:  newGCM(AlgAES128GCM, "AES-128-GCM", 16),
	AlgAES192GCM:  newGCM(AlgAES192GCM, "AES-192-GCM", 24),
	AlgAES256GCM:  newGCM(AlgAES256GCM, "AES-256-GCM", 32),
	AlgAES128CBC:  blockCipher{id: AlgAES128CBC, name: "AES-128-CBC", keyLen: 16, block: 16, device: cptdrv.CipherAESCBC, padded: true},
	AlgAES192CBC:  blockCipher{id: AlgAES192CBC, name: "AES-192-CBC", keyLen: 24, block: 16, device: cptdrv.CipherAESCBC, padded: true},
	AlgAES256CBC:  blockCipher{id: AlgAES256CBC, name: "AES-256-CBC", keyLen: 32, block: 16, device: cptdrv.CipherAESCBC, padded: true},
	AlgAES128CTR:  blockCipher{id: AlgAES128CTR, name: "AES-128-CTR", keyLen: 16, block: 16, device: cptdrv.CipherAESCTR},
	AlgAES192CTR:  blockCipher{id: AlgAES192CTR, name: "AES-192-CTR", keyLen: 24, block: 16, device: cptdrv.CipherAESCTR},
	AlgAES256CTR:  blockCipher{id: AlgAES256CTR, name: "AES-256-CTR", keyLen: 32, block: 16, device: cptdrv.CipherAESCTR},
	AlgDESEDE3CBC: blockCipher{id: AlgDESEDE3CBC, name: "DES-EDE3-CBC", keyLen: 24, block: 8, device: cptdrv.Cipher3DESCBC, padded: true},
	AlgChaCha20:   blockCipher{id: AlgChaCha20, name: "ChaCha20", keyLen: 32, block: 16, device: cptdrv.CipherChaCha20, chacha: true},
	AlgChaChaPoly: newChaChaPoly(AlgChaChaPoly),
}

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
