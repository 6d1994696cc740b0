// SPDX-License-Identifier: Apache-2.0

// The key management exports: import, export, parameters, validation and
// generation of the key types dispatch.KeyType implements.

package main

/*
#include <stdlib.h>
#include <openssl/core.h>
#include "cptabi.h"

// keyparams.c
const char *cpt_intern(const char *name);
int cpt_call_export_cb(void *cb, OSSL_PARAM *params, void *arg);
void cpt_cleanse(void *p, size_t n);
*/
import "C"

import (
	"unsafe"

	"cptprov/dispatch"
)

// keyTypeOf finds the key type and the process environment for a call.
func keyTypeOf(kt C.int) (dispatch.KeyType, *dispatch.Env, *dispatch.Error) {
	return operation("key type", kt, dispatch.KeyTypeByID)
}

//export cptgo_key_import
func cptgo_key_import(kt C.int, state unsafe.Pointer, selection C.int, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.Import(env, state, int(selection), dispatch.ParamsAt(params)))
}

// paramName returns name in static C storage (see cpt_intern).
func paramName(name string) *C.char {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	p := C.cpt_intern(cs)
	if p == nil {
		panic("too many exported parameter names")
	}
	return (*C.char)(unsafe.Pointer(p))
}

// cptgo_key_export hands the key's parameters to OpenSSL's callback, in an
// OSSL_PARAM array built in C memory (C must not keep Go pointers) and wiped
// afterwards: it may hold a private key.
//
//export cptgo_key_export
func cptgo_key_export(kt C.int, state unsafe.Pointer, selection C.int, cb, cbarg unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	params, e := k.Export(env, state, int(selection))
	if e != nil {
		return result(st, e)
	}
	size := (len(params) + 1) * int(C.sizeof_OSSL_PARAM)
	for _, p := range params {
		size += len(p.Data) + 1 // strings keep a NUL after them
	}
	mem := C.calloc(1, C.size_t(size))
	if mem == nil {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: "out of memory"})
	}
	defer func() {
		C.cpt_cleanse(mem, C.size_t(size))
		C.free(mem)
	}()
	buf := unsafe.Slice((*byte)(mem), size)
	arr := unsafe.Slice((*C.OSSL_PARAM)(mem), len(params)+1)
	off := (len(params) + 1) * int(C.sizeof_OSSL_PARAM)
	for i, p := range params {
		data := buf[off : off+len(p.Data)]
		copy(data, p.Data)
		if p.Type == dispatch.TypeUnsigned || p.Type == dispatch.TypeInteger {
			// Big-endian from Go, native (little-endian) order for OpenSSL.
			for a, b := 0, len(data)-1; a < b; a, b = a+1, b-1 {
				data[a], data[b] = data[b], data[a]
			}
		}
		off += len(data) + 1
		arr[i].key = paramName(p.Name)
		arr[i].data_type = C.uint(p.Type)
		if len(data) > 0 {
			arr[i].data = unsafe.Pointer(&data[0])
		}
		arr[i].data_size = C.size_t(len(data))
		arr[i].return_size = ^C.size_t(0)
	}
	if C.cpt_call_export_cb(cb, &arr[0], cbarg) == 0 {
		return C.CPT_ERR // the callback has raised its own error
	}
	return C.CPT_OK
}

//export cptgo_key_get_params
func cptgo_key_get_params(kt C.int, state, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.GetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_key_set_params
func cptgo_key_set_params(kt C.int, state, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.SetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_key_match
func cptgo_key_match(kt C.int, a, b unsafe.Pointer, selection C.int) (rc C.int) {
	defer guard(nil, &rc)
	if k, _, e := keyTypeOf(kt); e == nil && k.Match(a, b, int(selection)) {
		return 1
	}
	return 0
}

//export cptgo_key_validate
func cptgo_key_validate(kt C.int, state unsafe.Pointer, selection C.int, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.Validate(env, state, int(selection)))
}

//export cptgo_keygen_set_params
func cptgo_keygen_set_params(kt C.int, gen, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.GenSetParams(env, gen, dispatch.ParamsAt(params)))
}

//export cptgo_keygen
func cptgo_keygen(kt C.int, gen, state unsafe.Pointer, selection C.int, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("keygen")
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	async, e := k.Generate(env, gen, state, int(selection), waiterOf(wn))
	return pendingResult(nil, 0, async, st, e)
}

//export cptgo_keygen_set_template
func cptgo_keygen_set_template(kt C.int, gen, template unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, _, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.GenSetTemplate(gen, template))
}
