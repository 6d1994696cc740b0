// SPDX-License-Identifier: Apache-2.0

// The digest and HMAC exports: messages hashed on the device.

package main

/*
#include "cptabi.h"
*/
import "C"

import (
	"unsafe"

	"cptprov/dispatch"
)

// hashStream is a digest or HMAC over one: messages hashed on the device.
type hashStream interface {
	Update(env *dispatch.Env, st, in unsafe.Pointer, inl int, w dispatch.Waiter) (bool, *dispatch.Error)
	Final(env *dispatch.Env, st, out unsafe.Pointer, outsize int, w dispatch.Waiter) (int, bool, *dispatch.Error)
}

// hashOf finds the digest (or HMAC over it) with CPT_MD_* id md and the
// process environment for a call.
func hashOf(md C.int, hmac bool) (hashStream, *dispatch.Env, *dispatch.Error) {
	byID := func(id int) hashStream {
		if m := dispatch.MDByID(id); m != nil && !hmac {
			return m
		} else if m := dispatch.MACByID(id); m != nil && hmac {
			return m
		}
		return nil
	}
	return operation("digest id", md, byID)
}

func hashUpdate(md C.int, hmac bool, state, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) C.int {
	h, env, e := hashOf(md, hmac)
	if e != nil {
		return result(st, e)
	}
	async, e := h.Update(env, state, in, int(inl), waiterOf(wn))
	return pendingResult(nil, 0, async, st, e)
}

func hashFinal(md C.int, hmac bool, state, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) C.int {
	h, env, e := hashOf(md, hmac)
	if e != nil {
		return result(st, e)
	}
	n, async, e := h.Final(env, state, out, int(outsize), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

//export cptgo_digest_update
func cptgo_digest_update(md C.int, state unsafe.Pointer, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("digest_update")
	return hashUpdate(md, false, state, in, inl, wn, st)
}

//export cptgo_digest_final
func cptgo_digest_final(md C.int, state unsafe.Pointer, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("digest_final")
	return hashFinal(md, false, state, out, outl, outsize, wn, st)
}

//export cptgo_mac_setkey
func cptgo_mac_setkey(md C.int, state unsafe.Pointer, key unsafe.Pointer, keylen C.size_t, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	h, _, e := hashOf(md, true)
	if e != nil {
		return result(st, e)
	}
	var k []byte
	if keylen > 0 {
		k = unsafe.Slice((*byte)(key), int(keylen))
	}
	return result(st, h.(*dispatch.MAC).SetKey(state, k))
}

//export cptgo_mac_update
func cptgo_mac_update(md C.int, state unsafe.Pointer, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("mac_update")
	return hashUpdate(md, true, state, in, inl, wn, st)
}

//export cptgo_mac_final
func cptgo_mac_final(md C.int, state unsafe.Pointer, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("mac_final")
	return hashFinal(md, true, state, out, outl, outsize, wn, st)
}
