/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One BN_CTX per thread, kept: creating one per operation cost a
 * noticeable share of a public RSA operation. A thread-specific key's
 * destructor frees it when the thread exits, so nothing leaks. Shared by
 * the simulator's engines (simulator/asym, in the device's library
 * context) and the host's RSA result check (internal/rsacheck, which
 * neither fetches nor draws: no library context); each file that includes
 * this has its own key.
 */
#ifndef CPT_BNCTX_H
#define CPT_BNCTX_H

#include <openssl/bn.h>
#include <pthread.h>

static pthread_key_t cpt_bnctx_key;
static pthread_once_t cpt_bnctx_once = PTHREAD_ONCE_INIT;
static int cpt_bnctx_key_ok;

static void cpt_bnctx_free(void *ctx)
{
    BN_CTX_free(ctx);
}

static void cpt_bnctx_init(void)
{
    cpt_bnctx_key_ok = pthread_key_create(&cpt_bnctx_key, cpt_bnctx_free) == 0;
}

/* The calling thread's BN_CTX, made in lc on first use; NULL when out of
 * memory. */
static inline BN_CTX *cpt_thread_bn_ctx(OSSL_LIB_CTX *lc)
{
    BN_CTX *ctx;

    pthread_once(&cpt_bnctx_once, cpt_bnctx_init);
    if (!cpt_bnctx_key_ok)
        return NULL;
    if ((ctx = pthread_getspecific(cpt_bnctx_key)) == NULL) {
        ctx = BN_CTX_new_ex(lc);
        if (ctx != NULL && pthread_setspecific(cpt_bnctx_key, ctx) != 0) {
            BN_CTX_free(ctx);
            ctx = NULL;
        }
    }
    return ctx;
}

#endif
