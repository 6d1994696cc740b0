// SPDX-License-Identifier: Apache-2.0

// The asymmetric cipher exports: RSA encryption and decryption through
// dispatch.AsymCipher.

package main

/*
#include "cptabi.h"
*/
import "C"

import (
	"unsafe"

	"cptprov/dispatch"
)

// asymOf finds the asymmetric cipher and the process environment.
func asymOf(alg C.int) (dispatch.AsymCipher, *dispatch.Env, *dispatch.Error) {
	return operation("asymmetric cipher", alg, dispatch.AsymCipherByID)
}

//export cptgo_asym_init
func cptgo_asym_init(alg C.int, state, key unsafe.Pointer, op C.int, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	a, env, e := asymOf(alg)
	if e != nil {
		return result(st, e)
	}
	return result(st, a.Init(env, state, key, int(op), dispatch.ParamsAt(params)))
}

//export cptgo_asym_params
func cptgo_asym_params(alg C.int, state, params unsafe.Pointer, set C.int, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	a, env, e := asymOf(alg)
	if e != nil {
		return result(st, e)
	}
	if set != 0 {
		return result(st, a.SetParams(env, state, dispatch.ParamsAt(params)))
	}
	return result(st, a.GetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_asym_crypt
func cptgo_asym_crypt(alg C.int, state, key, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, in unsafe.Pointer, inl C.size_t, decrypt C.int, label unsafe.Pointer, labell C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("crypt")
	a, env, e := asymOf(alg)
	if e != nil {
		return result(st, e)
	}
	var n int
	var async bool
	if decrypt != 0 {
		n, async, e = a.Decrypt(env, state, key, out, int(outsize), goBytes(in, inl), goBytes(label, labell), waiterOf(wn))
	} else {
		n, async, e = a.Encrypt(env, state, key, out, int(outsize), goBytes(in, inl), goBytes(label, labell), waiterOf(wn))
	}
	return pendingResult(outl, n, async, st, e)
}
