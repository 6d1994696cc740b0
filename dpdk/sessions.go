// SPDX-License-Identifier: Apache-2.0

package dpdk

/*
#include <stdlib.h>
#include "shimcalls.h"
*/
import "C"

import (
	"crypto/sha256"
	"sync"
	"unsafe"
)

// A session is a key as a device holds it. Cipher and AEAD sessions belong
// to a context's key (its KeyID): made at the key's first request, freed
// when the driver forgets the key (the context is freed or re-keyed).
// Exponentiation sessions belong to a modulus and exponent: the CPT's
// instructions carry them inline, so they are cached by their hash, a few
// at a time, as the simulator caches Montgomery set-ups. A hash's session
// has no key: one per queue pair serves every message. An HMAC session
// serves one request: HMAC contexts have no key identity, and a key kept
// in a cache would outlive the context that held it.
type session struct {
	ptr  unsafe.Pointer
	cd   *cryptodev
	asym bool
	key  sessKey
	raw  [32]byte // the key bytes it was made of (cipher sessions)
	n    uint32
	refs int32 // requests in flight using it, +1 while cached
	uses int   // requests made with it (exponentiation sessions)
}

type sessKey struct {
	keyID  uint64
	sum    [sha256.Size]byte // exponentiation: of modulus || exponent
	alg    uint32
	dir    int
	aad    uint32
	tag    uint32
	dev    int
	qp     int
	aead   bool
	modexp bool
	hash   bool
}

const (
	modexpSessions = 128
	// modexpUses is how many requests an exponentiation session serves
	// before it is made again: DPDK 22.11's crypto_openssl keeps working
	// memory of every request in the session until the session is freed.
	modexpUses = 1024
)

type sessions struct {
	mu     sync.Mutex
	m      map[sessKey]*session
	byKey  map[uint64][]*session
	modexp []*session // cached exponentiation sessions, oldest first
}

func (s *sessions) init() {
	s.m = map[sessKey]*session{}
	s.byKey = map[uint64][]*session{}
}

// cipher returns the session of a cipher or AEAD key for qp, made if
// needed; nil when the device refuses it (the CPU path computes then).
func (s *sessions) cipher(qp *qpair, k sessKey, key []byte) *session {
	cd := qp.dev
	k.dev, k.qp = cd.id, qp.id
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.m[k]; ss != nil {
		if int(ss.n) != len(key) || string(ss.raw[:ss.n]) != string(key) {
			return nil // a stale key identity: never use another key's session
		}
		ss.refs++
		return ss
	}
	var errbuf [256]C.char
	var p unsafe.Pointer
	kp := (*C.uint8_t)(unsafe.Pointer(&key[0]))
	cd.ctl.RLock()
	if k.aead {
		p = C.shim_sess_aead(C.int(cd.id), C.uint32_t(k.alg), C.int(k.dir), kp, C.uint32_t(len(key)), C.uint32_t(k.aad), C.uint32_t(k.tag), &errbuf[0], C.size_t(len(errbuf)))
	} else {
		p = C.shim_sess_cipher(C.int(cd.id), C.uint32_t(k.alg), C.int(k.dir), kp, C.uint32_t(len(key)), &errbuf[0], C.size_t(len(errbuf)))
	}
	cd.ctl.RUnlock()
	if p == nil {
		return nil
	}
	ss := &session{ptr: p, cd: cd, key: k, n: uint32(len(key)), refs: 2}
	copy(ss.raw[:], key)
	s.m[k] = ss
	s.byKey[k.keyID] = append(s.byKey[k.keyID], ss)
	return ss
}

// modExp returns the session of base^exp mod mod for qp.
func (s *sessions) modExp(qp *qpair, mod, exp []byte) *session {
	cd := qp.dev
	h := sha256.New()
	h.Write(mod)
	h.Write([]byte{0})
	h.Write(exp)
	k := sessKey{dev: cd.id, qp: qp.id, modexp: true, alg: uint32(len(mod))}
	h.Sum(k.sum[:0])
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.m[k]; ss != nil {
		ss.refs++
		if ss.uses++; ss.uses >= modexpUses {
			s.dropModExpLocked(ss)
		}
		return ss
	}
	var errbuf [256]C.char
	cd.ctl.RLock()
	p := C.shim_sess_modexp(C.int(cd.id), (*C.uint8_t)(unsafe.Pointer(&mod[0])), C.uint32_t(len(mod)),
		(*C.uint8_t)(unsafe.Pointer(&exp[0])), C.uint32_t(len(exp)), &errbuf[0], C.size_t(len(errbuf)))
	cd.ctl.RUnlock()
	if p == nil {
		return nil
	}
	ss := &session{ptr: p, cd: cd, asym: true, key: k, refs: 2}
	s.m[k] = ss
	s.modexp = append(s.modexp, ss)
	if len(s.modexp) > modexpSessions {
		s.dropModExpLocked(s.modexp[0])
	}
	return ss
}

// auth returns a session of hash or HMAC alg (a CPTDPDK_* bit) for qp:
// the cached one of a hash (key nil), a new one of an HMAC key.
func (s *sessions) auth(qp *qpair, alg uint32, key []byte) *session {
	cd := qp.dev
	k := sessKey{dev: cd.id, qp: qp.id, alg: alg, hash: true}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key == nil {
		if ss := s.m[k]; ss != nil {
			ss.refs++
			return ss
		}
	}
	var errbuf [256]C.char
	var kp *C.uint8_t
	if len(key) > 0 {
		kp = (*C.uint8_t)(unsafe.Pointer(&key[0]))
	}
	cd.ctl.RLock()
	p := C.shim_sess_auth(C.int(cd.id), C.uint32_t(alg), kp, C.uint32_t(len(key)), &errbuf[0], C.size_t(len(errbuf)))
	cd.ctl.RUnlock()
	if p == nil {
		return nil
	}
	ss := &session{ptr: p, cd: cd, key: k, refs: 1}
	if key == nil {
		ss.refs = 2
		s.m[k] = ss
	}
	return ss
}

// dropModExpLocked takes an exponentiation session out of the cache; the
// requests still using it keep it until they finish.
func (s *sessions) dropModExpLocked(ss *session) {
	for i, x := range s.modexp {
		if x == ss {
			s.modexp = append(s.modexp[:i], s.modexp[i+1:]...)
			break
		}
	}
	delete(s.m, ss.key)
	s.unrefLocked(ss)
}

// release drops a request's reference.
func (s *sessions) release(ss *session) {
	s.mu.Lock()
	s.unrefLocked(ss)
	s.mu.Unlock()
}

func (s *sessions) unrefLocked(ss *session) {
	if ss.refs--; ss.refs == 0 {
		ss.cd.ctl.RLock()
		C.shim_sess_free(C.int(ss.cd.id), ss.ptr, boolInt(ss.asym))
		ss.cd.ctl.RUnlock()
		clear(ss.raw[:])
	}
}

// cached is how many sessions the caches hold (exponentiations, hashes):
// those of dpdk_sessions that no key or request does.
func (s *sessions) cached() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.modexp)
	for k := range s.m {
		if k.hash {
			n++
		}
	}
	return n
}

// forget drops the sessions of a key identity.
func (s *sessions) forget(keyID uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.byKey[keyID] {
		delete(s.m, ss.key)
		s.unrefLocked(ss)
	}
	delete(s.byKey, keyID)
}

// freeAll drops every cached session (the device is closing; nothing is in
// flight).
func (s *sessions) freeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, ss := range s.m {
		delete(s.m, k)
		s.unrefLocked(ss)
	}
	s.byKey = map[uint64][]*session{}
	s.modexp = nil
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
