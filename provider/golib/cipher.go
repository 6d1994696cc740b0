// SPDX-License-Identifier: Apache-2.0

// The cipher exports: symmetric ciphers, AEADs and the stitched
// AES-CBC-HMAC ciphers, all through dispatch.Cipher.

package main

/*
#include "cptabi.h"
*/
import "C"

import (
	"unsafe"

	"cptprov/dispatch"
)

// cipherOf finds the cipher and the process environment for a call, and
// applies what the C side kept pending for the context: an init and the
// parameters set after it (or before it, params_first), in their order.
func cipherOf(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init) (dispatch.Cipher, *dispatch.Env, *dispatch.Error) {
	c, env, e := operation("cipher id", alg, dispatch.CipherByID)
	if e != nil || pending == nil {
		return c, env, e
	}
	params := dispatch.ParamsAt(pending.params)
	kept := pending.params != nil
	pending.params = nil
	if kept && (pending.params_first != 0 || pending.valid == 0) {
		if e = c.SetCtxParams(env, state, params); e != nil {
			pending.valid = 0
			return nil, nil, e
		}
		params = dispatch.Params{}
	}
	if pending.valid != 0 {
		pending.valid = 0
		key := unsafe.Slice((*byte)(unsafe.Pointer(&pending.key[0])), len(pending.key))
		iv := unsafe.Slice((*byte)(unsafe.Pointer(&pending.iv[0])), len(pending.iv))
		e = c.Init(env, state, pending.enc != 0, key[:pending.keylen], pending.has_key != 0, iv[:pending.ivlen], pending.has_iv != 0, params)
		clear(key)
		pending.has_key, pending.has_iv, pending.keylen, pending.ivlen = 0, 0, 0, 0
		if e != nil {
			return nil, nil, e
		}
	}
	return c, env, nil
}

//export cptgo_cipher_init
func cptgo_cipher_init(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, enc C.int, key unsafe.Pointer, keylen C.size_t, iv unsafe.Pointer, ivlen C.size_t, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("init")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	return result(st, c.Init(env, state, enc != 0, goBytes(key, keylen), key != nil, goBytes(iv, ivlen), iv != nil, dispatch.ParamsAt(params)))
}

//export cptgo_cipher_update
func cptgo_cipher_update(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("update")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	n, async, e := c.Update(env, state, out, int(outsize), in, int(inl), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

//export cptgo_cipher_final
func cptgo_cipher_final(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("final")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	n, async, e := c.Final(env, state, out, int(outsize), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

//export cptgo_cipher_oneshot
func cptgo_cipher_oneshot(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("oneshot")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	o, ok := c.(dispatch.OneShotCipher)
	if !ok {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonWrongState, Msg: c.Name() + " has no one-shot operation"})
	}
	n, async, e := o.OneShot(env, state, out, int(outsize), in, int(inl), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

// streamOf is cipherOf for the calls that hand a stream's state over
// between the C side's CPU twin and the device.
func streamOf(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init) (dispatch.StreamCipher, *dispatch.Env, *dispatch.Error) {
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return nil, nil, e
	}
	s, ok := c.(dispatch.StreamCipher)
	if !ok {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonWrongState, Msg: c.Name() + " has no stream state"}
	}
	return s, env, nil
}

//export cptgo_cipher_export
func cptgo_cipher_export(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out *C.struct_cpt_stream_state, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := streamOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	*(*dispatch.StreamState)(unsafe.Pointer(out)) = s.ExportStream(env, state)
	return C.CPT_OK
}

//export cptgo_cipher_import
func cptgo_cipher_import(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, in *C.struct_cpt_stream_state, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := streamOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	return result(st, s.ImportStream(env, state, *(*dispatch.StreamState)(unsafe.Pointer(in))))
}

//export cptgo_cipher_get_ctx_params
func cptgo_cipher_get_ctx_params(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("get_params")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	return result(st, c.GetCtxParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_cipher_set_ctx_params
func cptgo_cipher_set_ctx_params(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("set_params")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	return result(st, c.SetCtxParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_cipher_dup
func cptgo_cipher_dup(alg C.int, state unsafe.Pointer) (rc C.int) {
	defer guard(nil, &rc)
	if c, env, e := cipherOf(alg, nil, nil); e == nil {
		c.Dup(env, state)
	}
	return C.CPT_OK
}

//export cptgo_cipher_free
func cptgo_cipher_free(alg C.int, state unsafe.Pointer) {
	defer func() { recover() }()
	if c, env, e := cipherOf(alg, nil, nil); e == nil {
		c.Free(env, state)
	}
}
