// SPDX-License-Identifier: Apache-2.0

// Package libctx holds the simulated device's OpenSSL library context
// (libctx.c): the engines' libcrypto code (simulator/chachax,
// simulator/asym) takes everything it fetches or draws from it, never from
// the application's default context. Its C function cpt_sim_libctx is
// called from those packages' C code, which import this one for it.
package libctx

/*
#cgo CFLAGS: -Wall -Wextra -Werror
#cgo LDFLAGS: -lcrypto -lpthread
#include "libctx.h"
*/
import "C"
