// SPDX-License-Identifier: Apache-2.0

// The key exchange export: ECDH and X25519 derivations.

package main

/*
#include "cptabi.h"
*/
import "C"

import "unsafe"

//export cptgo_derive
func cptgo_derive(kt C.int, key, peer, scratch, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("derive")
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	n, async, e := k.Derive(env, key, peer, scratch, out, int(outsize), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}
