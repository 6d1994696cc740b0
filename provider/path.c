/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CPU path's mechanism (path.h): moving the state between the sides,
 * finals, the twins' life and the cache of what they are made from.
 */
#include <openssl/err.h>
#include <openssl/provider.h>
#include <pthread.h>
#include "path.h"

/*
 * The CPU path's library context: the default provider only, created on
 * first use (never at load) and kept for the life of the process, since
 * contexts of every cptprov instance may hold its ciphers. Nothing of the
 * application's reaches it: a fresh context reads no configuration file,
 * the default provider is built into libcrypto (no module path), and the
 * application's contexts, which may prefer cptprov itself or hold only the
 * FIPS or the null provider, are never asked for anything.
 */
static OSSL_LIB_CTX *cpu_libctx;
static pthread_once_t cpu_libctx_once = PTHREAD_ONCE_INIT;

static void cpu_libctx_init(void)
{
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();

    if (lc != NULL && OSSL_PROVIDER_load(lc, "default") == NULL) {
        OSSL_LIB_CTX_free(lc);
        lc = NULL;
    }
    cpu_libctx = lc;
}

OSSL_LIB_CTX *cptprov_cpu_libctx(void)
{
    pthread_once(&cpu_libctx_once, cpu_libctx_init);
    return cpu_libctx;
}

/*
 * A CPU-path twin's current IV. OpenSSL 3.5's default provider answers
 * the IV query by trying a pointer form first, which leaves "param of
 * incompatible type" on the error queue even though the query succeeds;
 * libssl takes any error on the queue as the record layer's own failure
 * (every TLS 1.2 CBC connection was lost). What a successful read left
 * there is dropped; a failure keeps its errors.
 */
int cptprov_twin_iv(EVP_CIPHER_CTX *twin, unsigned char *iv, size_t len)
{
    int ok;

    ERR_set_mark();
    ok = EVP_CIPHER_CTX_get_updated_iv(twin, iv, len);
    if (ok)
        ERR_pop_to_mark();
    else
        ERR_clear_last_mark();
    return ok;
}

void cpt_path_init(struct cpt_path *p, const struct cpt_path_hw *hw, const struct cptprov_ctx *prov,
    int alg)
{
    p->hw = hw;
    p->prov = prov;
    p->alg = alg;
    p->side = CPT_SIDE_NONE;
    p->twin = NULL;
    p->tally = (struct cpt_cpu_tally){ 0, 0 };
}

int cpt_path_dup(struct cpt_path *d, const struct cpt_path *s)
{
    d->tally = (struct cpt_cpu_tally){ 0, 0 };
    d->twin = NULL;
    if (s->twin != NULL && s->hw->twin_dup != NULL && (d->twin = s->hw->twin_dup(s->twin)) == NULL)
        return 0;
    return 1;
}

void cpt_path_free(struct cpt_path *p)
{
    cpt_path_flush(p);
    if (p->twin != NULL && p->hw->twin_free != NULL)
        p->hw->twin_free(p->twin);
    p->twin = NULL;
}

void cpt_path_drop(struct cpt_path *p)
{
    ERR_clear_error();
    cpt_path_free(p);
}

int cpt_path_leave(struct cpt_path *p, void *ctx)
{
    if (p->side == CPT_SIDE_CPU && !cpt_path_move(p, ctx, CPT_SIDE_DEVICE))
        return 0;
    cpt_path_drop(p);
    return 1;
}

int cpt_path_cross(struct cpt_path *p, void *ctx, int side)
{
    int r = side == CPT_SIDE_CPU ? p->hw->to_cpu(ctx) : p->hw->to_device(ctx);

    if (r > 0)
        p->side = side;
    return r;
}

int cpt_path_final(struct cpt_path *p, void *ctx, int cpu, unsigned char *out, size_t *outl,
    size_t outsize)
{
    int r = cpu ? cpt_path_move(p, ctx, CPT_SIDE_CPU) : -1;

    if (r == 0 || (r < 0 && !cpt_path_move(p, ctx, CPT_SIDE_DEVICE)))
        return 0;
    if (p->hw->per_message)
        p->side = CPT_SIDE_NONE;
    if (r > 0) {
        cpt_path_flush(p);
        return p->hw->cpu_final(ctx, out, outl, outsize);
    }
    return p->hw->device_final(ctx, out, outl, outsize);
}

/*
 * What the twins are made from, fetched once from cptprov's own library
 * context: ciphers by CPT_ALG_* id, HMAC in a slot of its own. A failed
 * fetch is tried again next time.
 */
#define HMAC_SLOT CPT_MAX_ALGS
static void *_Atomic twin_algs[CPT_MAX_ALGS + 1];
static pthread_mutex_t twin_algs_lock = PTHREAD_MUTEX_INITIALIZER;

static void *twin_alg(int slot, const char *name)
{
    void *a = atomic_load_explicit(&twin_algs[slot], memory_order_acquire);
    OSSL_LIB_CTX *lc;

    if (a != NULL)
        return a;
    pthread_mutex_lock(&twin_algs_lock);
    if ((a = atomic_load(&twin_algs[slot])) == NULL && (lc = cptprov_cpu_libctx()) != NULL) {
        a = slot == HMAC_SLOT ? (void *)EVP_MAC_fetch(lc, name, "provider=default")
                              : (void *)EVP_CIPHER_fetch(lc, name, "provider=default");
        atomic_store_explicit(&twin_algs[slot], a, memory_order_release);
    }
    pthread_mutex_unlock(&twin_algs_lock);
    return a;
}

int cpt_path_cipher_twin(struct cpt_path *p, const char *name, int enc)
{
    EVP_CIPHER *ciph;
    EVP_CIPHER_CTX *t;

    if (p->alg < 0 || p->alg >= CPT_MAX_ALGS || (ciph = twin_alg(p->alg, name)) == NULL
        || (t = EVP_CIPHER_CTX_new()) == NULL)
        return 0;
    if (!EVP_CipherInit_ex2(t, ciph, NULL, NULL, enc, NULL)) {
        EVP_CIPHER_CTX_free(t);
        ERR_clear_error();
        return 0;
    }
    p->twin = t;
    return 1;
}

void *cpt_twin_cipher_dup(void *twin)
{
    EVP_CIPHER_CTX *d = EVP_CIPHER_CTX_new();

    if (d != NULL && !EVP_CIPHER_CTX_copy(d, twin)) {
        EVP_CIPHER_CTX_free(d);
        d = NULL;
    }
    return d;
}

void cpt_twin_cipher_free(void *twin)
{
    EVP_CIPHER_CTX_free(twin);
}

EVP_MAC_CTX *cpt_twin_hmac_new(void)
{
    EVP_MAC *mac = twin_alg(HMAC_SLOT, "HMAC");

    return mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
}

void *cpt_twin_hmac_dup(void *twin)
{
    return EVP_MAC_CTX_dup(twin);
}

void cpt_twin_hmac_free(void *twin)
{
    EVP_MAC_CTX_free(twin);
}
