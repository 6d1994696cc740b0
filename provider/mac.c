/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HMAC as an EVP_MAC. Over the digests cptprov implements, a message goes to
 * the device's HMAC mode when its first update reaches the family's
 * threshold (cpu_threshold_hmac); shorter ones, TLS's constant-time MAC of
 * CBC records ("tls-data-size") and HMAC over any other digest (MD5 for
 * TLS 1.0's PRF, SHA-3...) run on the calling CPU in a twin context of
 * OpenSSL's default HMAC, so that preferring cptprov never takes a digest
 * away from an application.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include "dispatch.h"
#include "path.h"

/* The digests by the names OpenSSL knows them by (algorithms.def). */
static const struct {
    const char *name, *names;
    int md;
    size_t size, block;
} mac_digests[] = {
#define CPT_DIGEST(ID, num, name, aliases, family, hmac_family, size, blocksize) \
    { name, name aliases, CPT_MD_##ID, size, blocksize },
#include "algorithms.def"
};
#define NDIGESTS (sizeof(mac_digests) / sizeof(mac_digests[0]))

struct cptprov_mac_ctx {
    struct cptprov_ctx *prov;
    int d; /* index in mac_digests; -1: no digest yet, or one only the CPU path has */
    char *other; /* that digest's name */
    int other_xof; /* and it is an XOF, which HMAC refuses at init */
    unsigned char *key; /* as given: the twin takes it so */
    size_t keylen;
    size_t tls_data_size; /* libssl's constant-time record MAC (CPU path) */
    struct cpt_path path; /* the twin: an EVP_MAC_CTX of the default HMAC */
    int twin_keyed; /* the twin holds the current key and digest */
    unsigned char *state; /* Go-owned, CPT_MAC_STATE_SIZE, when first needed */
};

static OSSL_FUNC_mac_newctx_fn hmac_newctx;
static OSSL_FUNC_mac_dupctx_fn hmac_dupctx;
static OSSL_FUNC_mac_freectx_fn hmac_freectx;
static OSSL_FUNC_mac_init_fn hmac_init;
static OSSL_FUNC_mac_update_fn hmac_update;
static OSSL_FUNC_mac_final_fn hmac_final;
static OSSL_FUNC_mac_gettable_ctx_params_fn hmac_gettable_ctx_params;
static OSSL_FUNC_mac_get_ctx_params_fn hmac_get_ctx_params;
static OSSL_FUNC_mac_settable_ctx_params_fn hmac_settable_ctx_params;
static OSSL_FUNC_mac_set_ctx_params_fn hmac_set_ctx_params;

static const struct cpt_path_hw hmac_path;

static int md_id(const struct cptprov_mac_ctx *c)
{
    return c->d < 0 ? 0 : mac_digests[c->d].md;
}

static void *hmac_newctx(void *provctx)
{
    struct cptprov_mac_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c != NULL) {
        c->prov = provctx;
        c->d = -1;
        cpt_path_init(&c->path, &hmac_path, provctx, -1);
    }
    return c;
}

static void hmac_freectx(void *vctx)
{
    struct cptprov_mac_ctx *c = vctx;

    if (c == NULL)
        return;
    cpt_path_free(&c->path);
    OPENSSL_free(c->other);
    OPENSSL_clear_free(c->key, c->keylen);
    OPENSSL_clear_free(c->state, CPT_MAC_STATE_SIZE);
    OPENSSL_free(c);
}

static int set_key(struct cptprov_mac_ctx *c, const unsigned char *key, size_t keylen)
{
    unsigned char *k = OPENSSL_malloc(keylen > 0 ? keylen : 1);

    if (k == NULL)
        return 0;
    memcpy(k, key, keylen);
    OPENSSL_clear_free(c->key, c->keylen);
    c->key = k;
    c->keylen = keylen;
    c->twin_keyed = 0;
    return 1;
}

static void *hmac_dupctx(void *vctx)
{
    struct cptprov_mac_ctx *c = vctx, *d = OPENSSL_malloc(sizeof(*c));

    if (d == NULL)
        return NULL;
    memcpy(d, c, sizeof(*d));
    d->key = NULL;
    d->keylen = 0;
    d->state = NULL;
    d->other = NULL;
    if (!cpt_path_dup(&d->path, &c->path) || (c->key != NULL && !set_key(d, c->key, c->keylen))
        || (c->other != NULL && (d->other = OPENSSL_strdup(c->other)) == NULL)
        || (c->state != NULL
            && (d->state = OPENSSL_memdup(c->state, CPT_MAC_STATE_SIZE)) == NULL)) {
        hmac_freectx(d);
        return NULL;
    }
    return d;
}

static int hmac_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    struct cptprov_mac_ctx *c = vctx;
    const OSSL_PARAM *p;
    const char *name;

    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_DIGEST)) != NULL) {
        size_t i;

        if (!OSSL_PARAM_get_utf8_string_ptr(p, &name))
            return 0;
        for (i = 0; i < NDIGESTS && !cptprov_names_have(mac_digests[i].names, name, strlen(name));
             i++)
            ;
        cpt_path_flush(&c->path);
        OPENSSL_free(c->other);
        c->other = NULL;
        c->d = -1;
        c->path.alg = -1; /* HMAC over a digest only the CPU path has: no counters */
        c->twin_keyed = 0;
        if (i < NDIGESTS) {
            c->d = (int)i;
            c->path.alg = CPT_ALG_MAC_BASE + md_id(c);
        } else {
            /* As the default provider: a digest that cannot be fetched is
             * refused here. */
            OSSL_LIB_CTX *lc = cptprov_cpu_libctx();
            EVP_MD *md = lc != NULL ? EVP_MD_fetch(lc, name, NULL) : NULL;

            if (md == NULL) {
                CPT_RAISE(c->prov, CPT_R_UNSUPPORTED, "HMAC digest \"%s\" cannot be fetched", name);
                return 0;
            }
            c->other_xof = (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
            EVP_MD_free(md);
            if ((c->other = OPENSSL_strdup(name)) == NULL)
                return 0;
        }
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY)) != NULL) {
        const void *k;
        size_t kl;

        if (!OSSL_PARAM_get_octet_string_ptr(p, &k, &kl) || !set_key(c, k, kl))
            return 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_TLS_DATA_SIZE)) != NULL) {
        if (!OSSL_PARAM_get_size_t(p, &c->tls_data_size))
            return 0;
        c->twin_keyed = 0;
    }
    return 1;
}

static int hmac_init(void *vctx, const unsigned char *key, size_t keylen, const OSSL_PARAM params[])
{
    struct cptprov_mac_ctx *c = vctx;

    if (!hmac_set_ctx_params(c, params))
        return 0;
    if (key != NULL && !set_key(c, key, keylen))
        return 0;
    if (c->key == NULL || (c->d < 0 && c->other == NULL)) {
        CPT_RAISE(c->prov, c->key == NULL ? CPT_R_MISSING_KEY : CPT_R_BAD_PARAMETER,
            c->key == NULL ? "HMAC without a key" : "HMAC without a digest");
        return 0;
    }
    if (c->other != NULL && c->other_xof) {
        CPT_RAISE(c->prov, CPT_R_XOF_DIGESTS_NOT_ALLOWED, "HMAC over %s, an XOF", c->other);
        return 0;
    }
    c->path.side = CPT_SIDE_NONE;
    return 1;
}

/* Starts the message in the twin (keying it only when key or digest
 * changed: OpenSSL's HMAC keeps its keyed state across inits). */
static int cpu_start(void *vctx)
{
    struct cptprov_mac_ctx *c = vctx;
    OSSL_PARAM params[3], *p = params;

    if (c->path.twin == NULL && (c->path.twin = cpt_twin_hmac_new()) == NULL)
        return 0;
    if (!c->twin_keyed) {
        *p++ = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
            c->d >= 0 ? (char *)mac_digests[c->d].name : c->other, 0);
        if (c->tls_data_size != 0)
            *p++ = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_TLS_DATA_SIZE, &c->tls_data_size);
        *p = OSSL_PARAM_construct_end();
        if (!EVP_MAC_init(c->path.twin, c->key, c->keylen, params))
            return 0;
        c->twin_keyed = 1;
    } else if (!EVP_MAC_init(c->path.twin, NULL, 0, NULL)) {
        return 0;
    }
    return 1;
}

/* Starts the message on the device, keying the Go state. */
static int device_start(void *vctx)
{
    struct cptprov_mac_ctx *c = vctx;
    const struct cptgo_api *api = cptprov_go(c->prov);
    struct cpt_status st = { 0, "" };

    if (api == NULL)
        return 0;
    if (c->state == NULL && (c->state = OPENSSL_zalloc(CPT_MAC_STATE_SIZE)) == NULL)
        return 0;
    if (api->mac_setkey(md_id(c), c->state, c->key, c->keylen, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "mac_setkey");
        return 0;
    }
    return 1;
}

static int cpu_update(void *vctx, const struct cpt_path_io *io)
{
    struct cptprov_mac_ctx *c = vctx;

    cpt_path_tally(&c->path, io->inl);
    return EVP_MAC_update(c->path.twin, io->in, io->inl);
}

static int device_update(void *vctx, const struct cpt_path_io *io)
{
    struct cptprov_mac_ctx *c = vctx;
    struct cpt_call call;

    if (!cptprov_call_begin(&call, c->prov, cptprov_go(c->prov), 1))
        return 0;
    return cptprov_finish(&call,
        call.api->mac_update(md_id(c), c->state, io->in, io->inl, call.n, &call.st), NULL,
        "mac_update");
}

static int cpu_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_mac_ctx *c = vctx;

    return EVP_MAC_final(c->path.twin, out, outl, outsize);
}

static int device_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_mac_ctx *c = vctx;
    struct cpt_call call;

    if (!cptprov_call_begin(&call, c->prov, cptprov_go(c->prov), 1))
        return 0;
    return cptprov_finish(&call,
        call.api->mac_final(md_id(c), c->state, out, outl, outsize, call.n, &call.st), outl,
        "mac_final");
}

static const struct cpt_path_hw hmac_path = { cpu_start, device_start, cpu_update, device_update,
    cpu_final, device_final, cpt_twin_hmac_dup, cpt_twin_hmac_free, 1 };

static int hmac_update(void *vctx, const unsigned char *in, size_t inl)
{
    struct cptprov_mac_ctx *c = vctx;
    /* TLS's record MAC and digests the device lacks: the CPU's. */
    int cpu = c->tls_data_size != 0 || c->d < 0 || cpt_path_short(&c->path, inl);

    if (inl == 0)
        return 1;
    return cpt_path_update(&c->path, c, cpt_path_decide(&c->path, cpu),
        &(struct cpt_path_io){ .in = in, .inl = inl });
}

static int hmac_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_mac_ctx *c = vctx;

    *outl = 0;
    return cpt_path_final(&c->path, c, c->path.side != CPT_SIDE_DEVICE, out, outl, outsize);
}

static int hmac_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct cptprov_mac_ctx *c = vctx;
    OSSL_PARAM *p;
    size_t size = 0, block = 0;

    if (c->d >= 0) {
        size = mac_digests[c->d].size;
        block = mac_digests[c->d].block;
    } else if (c->other != NULL) {
        OSSL_LIB_CTX *lc = cptprov_cpu_libctx();
        EVP_MD *md = lc != NULL ? EVP_MD_fetch(lc, c->other, "provider=default") : NULL;

        if (md != NULL) {
            size = (size_t)EVP_MD_get_size(md);
            block = (size_t)EVP_MD_get_block_size(md);
        }
        EVP_MD_free(md);
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_SIZE)) != NULL
        && !OSSL_PARAM_set_size_t(p, size))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_BLOCK_SIZE)) != NULL
        && !OSSL_PARAM_set_size_t(p, block))
        return 0;
    return 1;
}

static const OSSL_PARAM hmac_gettable_ctx[] = { OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, NULL),
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_BLOCK_SIZE, NULL), OSSL_PARAM_END };

static const OSSL_PARAM hmac_settable_ctx[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, NULL,
                                                    0),
    OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, NULL, 0),
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_TLS_DATA_SIZE, NULL), OSSL_PARAM_END };

static CPTPROV_CTX_PARAMS_FN(hmac_gettable_ctx_params,
    hmac_gettable_ctx) static CPTPROV_CTX_PARAMS_FN(hmac_settable_ctx_params, hmac_settable_ctx)

    static const OSSL_DISPATCH cptprov_hmac_functions[] = {
        CPT_FN(MAC_NEWCTX, mac_newctx, hmac_newctx), CPT_FN(MAC_DUPCTX, mac_dupctx, hmac_dupctx),
        CPT_FN(MAC_FREECTX, mac_freectx, hmac_freectx), CPT_FN(MAC_INIT, mac_init, hmac_init),
        CPT_FN(MAC_UPDATE, mac_update, hmac_update), CPT_FN(MAC_FINAL, mac_final, hmac_final),
        CPT_FN(MAC_GETTABLE_CTX_PARAMS, mac_gettable_ctx_params, hmac_gettable_ctx_params),
        CPT_FN(MAC_GET_CTX_PARAMS, mac_get_ctx_params, hmac_get_ctx_params),
        CPT_FN(MAC_SETTABLE_CTX_PARAMS, mac_settable_ctx_params, hmac_settable_ctx_params),
        CPT_FN(MAC_SET_CTX_PARAMS, mac_set_ctx_params, hmac_set_ctx_params), CPT_FN_END
    };

const OSSL_ALGORITHM cptprov_macs[] = {
    { "HMAC", CPTPROV_PROPS, cptprov_hmac_functions, "HMAC on the CPT" }, { NULL, NULL, NULL, NULL }
};
