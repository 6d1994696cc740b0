/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Key exchange: one generic skeleton over the key objects of keymgmt.c. The
 * derivation runs on the device, asynchronously inside an ASYNC job.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include "cptprov.h"
#include "dispatch.h"

struct cptprov_exch {
    struct cptprov_ctx *prov;
    int kt; /* CPT_KEY_* this exchange works with */
    struct cptprov_key *key, *peer;
    /* Device operands (private key and peer point): wiped when freed. */
    unsigned char scratch[CPT_EXCH_SCRATCH_SIZE] __attribute__((aligned(16)));
};

static void *exch_new(void *provctx, int kt)
{
    struct cptprov_exch *x = OPENSSL_zalloc(sizeof(*x));

    if (x != NULL) {
        x->prov = provctx;
        x->kt = kt;
    }
    return x;
}

static void cptprov_exch_free(void *vx)
{
    struct cptprov_exch *x = vx;

    if (x == NULL)
        return;
    cptprov_key_free(x->key);
    cptprov_key_free(x->peer);
    OPENSSL_clear_free(x, sizeof(*x));
}

static void *cptprov_exch_dup(void *vx)
{
    struct cptprov_exch *x = vx, *d = OPENSSL_memdup(x, sizeof(*x));

    if (d == NULL)
        return NULL;
    if (d->key != NULL)
        cptprov_key_up_ref(d->key);
    if (d->peer != NULL)
        cptprov_key_up_ref(d->peer);
    return d;
}

/* Takes a reference to k in *slot if it is a key of this exchange's type. */
static int take_key(struct cptprov_exch *x, struct cptprov_key **slot, void *vk, const char *what)
{
    struct cptprov_key *k = vk;

    if (k == NULL || cptprov_key_type_id(k) != x->kt) {
        CPT_RAISE(x->prov, CPT_R_INVALID_KEY, "%s is not a key of this exchange's type", what);
        return 0;
    }
    cptprov_key_up_ref(k);
    cptprov_key_free(*slot);
    *slot = k;
    return 1;
}

static int cptprov_exch_init(void *vx, void *vk, const OSSL_PARAM params[])
{
    (void)params;
    return take_key(vx, &((struct cptprov_exch *)vx)->key, vk, "the private key");
}

static int cptprov_exch_set_peer(void *vx, void *vk)
{
    return take_key(vx, &((struct cptprov_exch *)vx)->peer, vk, "the peer key");
}

/*
 * The size query libssl makes before every derivation: with both keys in
 * place, the key type's C answer (Go answers the rest, and every error).
 */
static int size_in_c(const struct cptprov_exch *x, size_t *secretlen)
{
    const struct cptprov_key_local *l;
    int n;

    if (x->key == NULL || x->peer == NULL || (l = cptprov_key_local(x->key)) == NULL
        || l->secret_size == NULL || (n = l->secret_size(x->key, x->peer)) < 0)
        return 0;
    *secretlen = (size_t)n;
    return 1;
}

static int cptprov_exch_derive(void *vx, unsigned char *secret, size_t *secretlen, size_t outlen)
{
    struct cptprov_exch *x = vx;
    struct cpt_call call;

    if (secret == NULL && size_in_c(x, secretlen))
        return 1;
    if (!cptprov_call_begin(&call, x->prov, cptprov_go(x->prov), secret != NULL))
        return 0;
    return cptprov_finish(&call,
        call.api->derive(x->kt, x->key != NULL ? x->key->state : NULL,
            x->peer != NULL ? x->peer->state : NULL, x->scratch, secret, secretlen, outlen, call.n,
            &call.st),
        secretlen, "derive");
}

/*
 * ECDH parameters: the cofactor mode is accepted (every curve here has
 * cofactor 1, so it changes nothing); a key derivation function is not
 * offered, and asking for one is an error rather than silently ignored.
 */
static int cptprov_exch_set_params(void *vx, const OSSL_PARAM params[])
{
    struct cptprov_exch *x = vx;
    const OSSL_PARAM *p;
    int mode;
    const char *kdf = NULL;

    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_EXCHANGE_PARAM_EC_ECDH_COFACTOR_MODE)) != NULL
        && (!OSSL_PARAM_get_int(p, &mode) || mode < -1 || mode > 1)) {
        CPT_RAISE(x->prov, CPT_R_BAD_PARAMETER, "ecdh-cofactor-mode must be -1, 0 or 1");
        return 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_EXCHANGE_PARAM_KDF_TYPE)) != NULL
        && (!OSSL_PARAM_get_utf8_string_ptr(p, &kdf) || kdf[0] != '\0')) {
        CPT_RAISE(x->prov, CPT_R_BAD_PARAMETER, "no key derivation function is offered with ECDH");
        return 0;
    }
    return 1;
}

static const OSSL_PARAM ecdh_settable[] = {
    OSSL_PARAM_int(OSSL_EXCHANGE_PARAM_EC_ECDH_COFACTOR_MODE, NULL),
    OSSL_PARAM_utf8_string(OSSL_EXCHANGE_PARAM_KDF_TYPE, NULL, 0), OSSL_PARAM_END
};

static const OSSL_PARAM *cptprov_exch_settable(void *vx, void *provctx)
{
    (void)vx;
    (void)provctx;
    return ecdh_settable;
}

#define CPTPROV_EXCH(lc, KT)                                                                     \
    static void *cptprov_##lc##_exch_new(void *provctx)                                          \
    {                                                                                            \
        return exch_new(provctx, KT);                                                            \
    }                                                                                            \
    static const OSSL_DISPATCH cptprov_##lc##_keyexch_functions[] = {                            \
        CPT_FN(KEYEXCH_NEWCTX, keyexch_newctx, cptprov_##lc##_exch_new),                         \
        CPT_FN(KEYEXCH_FREECTX, keyexch_freectx, cptprov_exch_free),                             \
        CPT_FN(KEYEXCH_DUPCTX, keyexch_dupctx, cptprov_exch_dup),                                \
        CPT_FN(KEYEXCH_INIT, keyexch_init, cptprov_exch_init),                                   \
        CPT_FN(KEYEXCH_SET_PEER, keyexch_set_peer, cptprov_exch_set_peer),                       \
        CPT_FN(KEYEXCH_DERIVE, keyexch_derive, cptprov_exch_derive),                             \
        CPT_FN(KEYEXCH_SET_CTX_PARAMS, keyexch_set_ctx_params, cptprov_exch_set_params),         \
        CPT_FN(KEYEXCH_SETTABLE_CTX_PARAMS, keyexch_settable_ctx_params, cptprov_exch_settable), \
        CPT_FN_END                                                                               \
    };

CPTPROV_EXCH(x25519, CPT_KEY_X25519)
CPTPROV_EXCH(ecdh, CPT_KEY_EC)

const OSSL_ALGORITHM cptprov_keyexchs[] = { { "X25519:1.3.101.110", CPTPROV_PROPS,
                                                cptprov_x25519_keyexch_functions,
                                                "X25519 key exchange on the CPT" },
    { "ECDH", CPTPROV_PROPS, cptprov_ecdh_keyexch_functions,
        "ECDH on the CPT (NIST prime curves)" },
    { NULL, NULL, NULL, NULL } };
