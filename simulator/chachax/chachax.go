// SPDX-License-Identifier: Apache-2.0

// Package chachax is the engines' ChaCha20 and ChaCha20-Poly1305:
// libcrypto's implementation (AVX-512/AVX2 assembly, 5.3 GB/s for ChaCha20
// on this project's CPU against 0.5 GB/s for golang.org/x/crypto's generic
// Go) through EVP, in the device's library context. ChaCha20 is stateless
// here: each call starts from a counter block. A ChaCha20-Poly1305 stream
// is an AEAD handle, C memory the engine refers to from a context.
package chachax

/*
#cgo CFLAGS: -Wall -Wextra -Werror
#cgo LDFLAGS: -lcrypto -lpthread
#include "chachax.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	_ "cptprov/simulator/internal/libctx" // cpt_sim_libctx, for chachax.c
)

var errFailed = errors.New("chachax: libcrypto operation failed")

func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b)))
}

// XORKeyStream XORs src into dst with the keystream that starts skip bytes
// into the block of counter block iv (skip < 64). dst and src may overlap
// only exactly.
func XORKeyStream(key *[32]byte, iv *[16]byte, skip int, dst, src []byte) error {
	if len(dst) < len(src) || skip < 0 || skip >= 64 {
		return errFailed
	}
	if C.cx_chacha20((*C.uint8_t)(&key[0]), (*C.uint8_t)(&iv[0]), C.unsigned(skip), ptr(dst), ptr(src), C.size_t(len(src))) != 1 {
		return errFailed
	}
	return nil
}

// AEAD is a ChaCha20-Poly1305 stream in C memory: its value may be kept
// anywhere, including memory the Go collector does not scan.
type AEAD uintptr

// NewAEAD allocates a stream; Free releases it.
func NewAEAD() (AEAD, error) {
	p := C.cx_aead_new()
	if p == nil {
		return 0, errFailed
	}
	return AEAD(uintptr(p)), nil
}

func (a AEAD) p() unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), uintptr(a)) }

// Free releases the stream.
func (a AEAD) Free() { C.cx_aead_free(a.p()) }

// Clone returns an independent copy of the stream, mid-message included.
func (a AEAD) Clone() (AEAD, error) {
	p := C.cx_aead_clone(a.p())
	if p == nil {
		return 0, errFailed
	}
	return AEAD(uintptr(p)), nil
}

// Start begins a message.
func (a AEAD) Start(key *[32]byte, nonce []byte, enc bool) error {
	if len(nonce) != 12 {
		return errFailed
	}
	e := C.int(0)
	if enc {
		e = 1
	}
	if C.cx_aead_start(a.p(), (*C.uint8_t)(&key[0]), ptr(nonce), e) != 1 {
		return errFailed
	}
	return nil
}

// AAD absorbs additional data (before any data of the message).
func (a AEAD) AAD(aad []byte) error {
	if len(aad) > 0 && C.cx_aead_aad(a.p(), ptr(aad), C.size_t(len(aad))) != 1 {
		return errFailed
	}
	return nil
}

// Data encrypts or decrypts src into dst (exact overlap only).
func (a AEAD) Data(dst, src []byte) error {
	if len(dst) < len(src) {
		return errFailed
	}
	if C.cx_aead_data(a.p(), ptr(dst), ptr(src), C.size_t(len(src))) != 1 {
		return errFailed
	}
	return nil
}

// Seal finishes an encryption and returns its tag.
func (a AEAD) Seal() (tag [16]byte, err error) {
	if C.cx_aead_seal(a.p(), (*C.uint8_t)(&tag[0])) != 1 {
		return tag, errFailed
	}
	return tag, nil
}

// Peek returns the tag of an encryption so far; the message stays open.
func (a AEAD) Peek() (tag [16]byte, err error) {
	if C.cx_aead_peek(a.p(), (*C.uint8_t)(&tag[0])) != 1 {
		return tag, errFailed
	}
	return tag, nil
}

// Open finishes a decryption against the expected tag (1 to 16 bytes).
func (a AEAD) Open(tag []byte) (ok bool, err error) {
	switch C.cx_aead_open(a.p(), ptr(tag), C.size_t(len(tag))) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, errFailed
}
