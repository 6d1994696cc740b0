// SPDX-License-Identifier: Apache-2.0

// Package sha2x is the engines' SHA-384 and SHA-512 family: libcrypto's
// SHA512 implementation (AVX2 assembly), through its public low-level API,
// because Go's is 16% slower on this project's CPU. The running state is a
// SHA512_CTX, a plain struct the engine keeps in the hash context between
// pieces of a message.
package sha2x

/*
#cgo CFLAGS: -Wall -Wextra -Werror -DOPENSSL_SUPPRESS_DEPRECATED -I${SRCDIR}/../../include
#cgo LDFLAGS: -lcrypto
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>
#include "sha512t.h"

static int sha2x_state_size(void) { return (int)sizeof(SHA512_CTX); }

// kind: 384, 512, 224 (SHA-512/224), 256 (SHA-512/256)
static int sha2x_init(void *st, int kind)
{
	SHA512_CTX *c = st;

	if (kind == 384)
		return SHA384_Init(c);
	if (kind == 224 || kind == 256)
		return cpt_sha512t_init(c, kind);
	return SHA512_Init(c);
}

static int sha2x_update(void *st, const void *p, size_t n) { return SHA512_Update(st, p, n); }

static int sha2x_final(void *st, unsigned char *out)
{
	SHA512_CTX *c = st;
	unsigned char full[SHA512_DIGEST_LENGTH];
	unsigned int len = c->md_len;
	int ok;

	// SHA512_Final writes md_len bytes (48 for SHA-384, 28/32 for the
	// truncated ones, whose md_len sha2x_init set).
	ok = SHA512_Final(full, c);
	memcpy(out, full, len);
	OPENSSL_cleanse(full, sizeof(full));
	return ok;
}
*/
import "C"

import "unsafe"

// StateSize is the bytes of running state a message needs.
var StateSize = int(C.sha2x_state_size())

// Kind selects the member of the family: 384, 512, or 224 and 256 for
// SHA-512/224 and SHA-512/256.
type Kind int

// Size is the digest length.
func (k Kind) Size() int {
	if k == 512 {
		return 64
	}
	return int(k) / 8
}

// Init starts a message in st (StateSize bytes).
func Init(st []byte, k Kind) bool {
	return len(st) >= StateSize && C.sha2x_init(unsafe.Pointer(&st[0]), C.int(k)) == 1
}

// Update hashes p into the message in st.
func Update(st, p []byte) bool {
	if len(p) == 0 {
		return true
	}
	return C.sha2x_update(unsafe.Pointer(&st[0]), unsafe.Pointer(&p[0]), C.size_t(len(p))) == 1
}

// Final writes the digest (k.Size() bytes) to out.
func Final(st, out []byte) bool {
	return C.sha2x_final(unsafe.Pointer(&st[0]), (*C.uchar)(unsafe.Pointer(&out[0]))) == 1
}
