/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The library context of the simulated device's libcrypto code (ChaCha20
 * through EVP, the big-number and P-256 arithmetic, whose BN_CTX and
 * EC_GROUP say where anything they fetch or draw comes from): the default
 * provider alone, in a context of the device's own. Never the
 * application's default context, which may prefer cptprov itself, hold
 * only the FIPS or the null provider, or follow a configuration file: a
 * fresh context reads no configuration, and the default provider is built
 * into libcrypto, so nothing of OPENSSL_CONF or OPENSSL_MODULES reaches
 * this one. Created on first use (never at load: see the notes on fork)
 * and kept for the life of the process.
 */
#include "libctx.h"

#include <openssl/crypto.h>
#include <openssl/provider.h>
#include <pthread.h>

static OSSL_LIB_CTX *libctx;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
	OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();

	if (lc != NULL && OSSL_PROVIDER_load(lc, "default") == NULL) {
		OSSL_LIB_CTX_free(lc);
		lc = NULL;
	}
	libctx = lc;
}

OSSL_LIB_CTX *cpt_sim_libctx(void)
{
	pthread_once(&once, init);
	return libctx;
}
