// SPDX-License-Identifier: Apache-2.0

// The signature exports: RSA and ECDSA signing, verification and
// recovery through dispatch.Signature.

package main

/*
#include "cptabi.h"
*/
import "C"

import (
	"unsafe"

	"cptprov/dispatch"
)

// signatureOf finds the signature scheme and the process environment.
func signatureOf(alg C.int) (dispatch.Signature, *dispatch.Env, *dispatch.Error) {
	return operation("signature", alg, dispatch.SignatureByID)
}

// sigOf is signatureOf for a context with an init the C side kept: it is
// applied first, then the settings kept after it (C keeps only inits and
// settings Go accepted before in the same order with the same key).
func sigOf(alg C.int, state unsafe.Pointer, p *C.struct_cpt_sig_pending, key unsafe.Pointer) (dispatch.Signature, *dispatch.Env, *dispatch.Error) {
	s, env, e := signatureOf(alg)
	if e == nil && p != nil && p.valid != 0 {
		p.valid = 0
		kept := p.params
		p.params = nil
		e = s.Init(env, state, key, int(p.op), p.stream != 0, C.GoString(&p.mdname[0]), dispatch.ParamsAt(nil))
		if e == nil {
			e = dispatch.ParamLists(kept, func(ps dispatch.Params) *dispatch.Error { return s.SetParams(env, state, ps) })
		}
	}
	return s, env, e
}

// hashRest hashes the rest of the message a final call carries
// (EVP_DigestSign and EVP_DigestVerify in one call; tbs NULL: none).
func hashRest(s dispatch.Signature, env *dispatch.Env, state unsafe.Pointer, final C.int, tbs unsafe.Pointer, tbslen C.size_t) *dispatch.Error {
	if final == 0 || tbs == nil {
		return nil
	}
	return s.Update(env, state, goBytes(tbs, tbslen))
}

//export cptgo_sig_init
func cptgo_sig_init(alg C.int, state, key unsafe.Pointer, op, stream C.int, mdname *C.char, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	md := ""
	if mdname != nil {
		md = C.GoString(mdname)
	}
	return result(st, s.Init(env, state, key, int(op), stream != 0, md, dispatch.ParamsAt(params)))
}

//export cptgo_sig_set_params
func cptgo_sig_set_params(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_sig_pending, key, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := sigOf(alg, state, pending, key)
	if e != nil {
		return result(st, e)
	}
	return result(st, s.SetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_sig_get_params
func cptgo_sig_get_params(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_sig_pending, key, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := sigOf(alg, state, pending, key)
	if e != nil {
		return result(st, e)
	}
	return result(st, s.GetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_sig_update
func cptgo_sig_update(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_sig_pending, key, data unsafe.Pointer, n C.size_t, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := sigOf(alg, state, pending, key)
	if e != nil {
		return result(st, e)
	}
	return result(st, s.Update(env, state, goBytes(data, n)))
}

//export cptgo_sig_sign
func cptgo_sig_sign(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_sig_pending, key, scratch, sig unsafe.Pointer, siglen *C.size_t, sigsize C.size_t, tbs unsafe.Pointer, tbslen C.size_t, final C.int, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("sign")
	s, env, e := sigOf(alg, state, pending, key)
	if e != nil {
		return result(st, e)
	}
	var n int
	var async bool
	if e = hashRest(s, env, state, final, tbs, tbslen); e != nil {
		return result(st, e)
	}
	if final != 0 {
		n, async, e = s.SignFinal(env, state, key, scratch, sig, int(sigsize), waiterOf(wn))
	} else {
		n, async, e = s.Sign(env, state, key, scratch, sig, int(sigsize), goBytes(tbs, tbslen), waiterOf(wn))
	}
	return pendingResult(siglen, n, async, st, e)
}

//export cptgo_sig_verify
func cptgo_sig_verify(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_sig_pending, key, scratch, sig unsafe.Pointer, siglen C.size_t, tbs unsafe.Pointer, tbslen C.size_t, final C.int, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := sigOf(alg, state, pending, key)
	if e != nil {
		return result(st, e)
	}
	var async bool
	if e = hashRest(s, env, state, final, tbs, tbslen); e != nil {
		return result(st, e)
	}
	if final != 0 {
		async, e = s.VerifyFinal(env, state, key, scratch, goBytes(sig, siglen), waiterOf(wn))
	} else {
		async, e = s.Verify(env, state, key, scratch, goBytes(sig, siglen), goBytes(tbs, tbslen), waiterOf(wn))
	}
	return pendingResult(nil, 0, async, st, e)
}

//export cptgo_sig_verify_recover
func cptgo_sig_verify_recover(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_sig_pending, key, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, sig unsafe.Pointer, siglen C.size_t, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := sigOf(alg, state, pending, key)
	if e != nil {
		return result(st, e)
	}
	r, ok := s.(dispatch.Recoverer)
	if !ok {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonBadParameter, Msg: s.Name() + " signatures carry no data to recover"})
	}
	var dst []byte
	if out != nil {
		dst = goBytes(out, outsize)
		if dst == nil {
			dst = []byte{}
		}
	}
	n, e := r.VerifyRecover(env, state, key, goBytes(sig, siglen), dst)
	return pendingResult(outl, n, false, st, e)
}
