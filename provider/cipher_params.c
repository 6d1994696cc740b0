/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ciphers' parameters that need no Go: the static ones (get_params, the
 * lists of what is gettable and settable, as OpenSSL's own ciphers list
 * them), and the context parameters EVP and libssl ask for around every
 * init and record, answered from the state's shared head.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "cipher.h"

static size_t shadow_ivlen(const struct cptprov_cipher_ctx *c)
{
    const struct cpt_aead_shadow *sh = cipher_shadow(c);

    if (c->pending.valid && c->pending.has_iv)
        return c->pending.ivlen;
    return sh->ivlen != 0 ? (size_t)sh->ivlen : c->alg->ivlen;
}

/* Parameter names compared cheaply: most differ in the first byte. */
static int key_is(const char *key, const char *name)
{
    return key[0] == name[0] && strcmp(key, name) == 0;
}

/*
 * EVP asks for "ivlen" (and sets it to the value it already has) around
 * every init; those need no trip into Go. Returns -1 when Go must answer.
 */
int cptprov_cipher_get_params_in_c(const struct cptprov_cipher_ctx *c, OSSL_PARAM params[])
{
    const struct cpt_aead_shadow *sh = cipher_shadow(c);
    int enc = c->pending.valid ? c->pending.enc : (int)sh->enc;
    OSSL_PARAM *p;

    for (p = params; p->key != NULL; p++) {
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG) && c->alg->aead && enc
            && sh->tag_len == sizeof(sh->tag) && p->data_type == OSSL_PARAM_OCTET_STRING
            && p->data != NULL && p->data_size >= 1 && p->data_size <= sizeof(sh->tag))
            continue; /* an encryption's tag, after final: TLS 1.3 asks for it every record */
        /* What a TLS 1.2 record grows by, asked after every "tlsaad": the tag. */
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD) && c->alg->aead)
            continue;
        if (!key_is(p->key, OSSL_CIPHER_PARAM_IVLEN) && !key_is(p->key, OSSL_CIPHER_PARAM_KEYLEN))
            return -1;
    }
    for (p = params; p->key != NULL; p++) {
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            memcpy(p->data, sh->tag, p->data_size);
            p->return_size = p->data_size;
            continue;
        }
        size_t v = key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD) ? sizeof(sh->tag)
            : !key_is(p->key, OSSL_CIPHER_PARAM_IVLEN)                 ? c->alg->keylen
            : c->alg->aead                                             ? shadow_ivlen(c)
                                                                       : c->alg->ivlen;
        if (!OSSL_PARAM_set_size_t(p, v))
            return -1; /* let Go produce the error */
    }
    return 1;
}

int cptprov_cipher_set_params_in_c(const struct cptprov_cipher_ctx *c, const OSSL_PARAM params[])
{
    struct cpt_aead_shadow *sh = cipher_shadow(c);
    int enc = c->pending.valid ? c->pending.enc : (int)sh->enc;
    const OSSL_PARAM *p;
    size_t v;

    if (!c->alg->aead)
        return -1;
    for (p = params; p->key != NULL; p++) {
        /* EVP_CipherInit_ex sends "padding" to every cipher; AEADs ignore it. */
        if (key_is(p->key, OSSL_CIPHER_PARAM_PADDING))
            continue;
        /*
         * A decryption's expected tag (TLS 1.3 sets one every record), or
         * for ChaCha20-Poly1305 only its length, as OpenSSL's allows. Go
         * reads it from the shadow; so does the CPU path.
         */
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG) && p->data_type == OSSL_PARAM_OCTET_STRING
            && p->data_size >= 1 && p->data_size <= sizeof(sh->tag)
            && (c->alg->chacha ? p->data == NULL || !enc : p->data != NULL && !enc)) {
            if (p->data != NULL)
                memcpy(sh->tag, p->data, p->data_size);
            sh->tag_len = (uint32_t)p->data_size;
            continue;
        }
        if (!key_is(p->key, OSSL_CIPHER_PARAM_AEAD_IVLEN) || !OSSL_PARAM_get_size_t(p, &v)
            || v != shadow_ivlen(c))
            return -1;
    }
    return 1;
}

/* An INTEGER or UNSIGNED_INTEGER parameter Go reads as the same value. */
static int tls_uint(const OSSL_PARAM *p, uint64_t *v)
{
    return (p->data_type == OSSL_PARAM_INTEGER || p->data_type == OSSL_PARAM_UNSIGNED_INTEGER)
        && p->data != NULL && (p->data_size == 4 || p->data_size == 8)
        && OSSL_PARAM_get_uint64(p, v);
}

/* Whether Go will take this TLS 1.2 AAD (OpenSSL's gcm_tls_init and
 * chacha20_poly1305_tls_init): its record length holds the explicit
 * nonce and, when opening, the tag. */
static int tls_aad_ok(const struct cptprov_cipher_ctx *c, const unsigned char *aad, int enc)
{
    size_t n = (size_t)aad[11] << 8 | aad[12], need = c->alg->chacha ? 0 : 8;

    return n >= need + (enc ? 0 : 16);
}

void cptprov_cipher_deferred_bind(struct cptprov_cipher_ctx *c)
{
    struct cipher_deferred *d = &c->deferred;
    OSSL_PARAM *p = d->params;

    if (c->pending.params == NULL)
        return;
    if (d->set & CPT_DEFER_IVFIXED)
        *p++ = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, d->ivfixed,
            d->ivfixed_len);
    if (d->set & CPT_DEFER_VERSION)
        *p++ = OSSL_PARAM_construct_uint64(OSSL_CIPHER_PARAM_TLS_VERSION, &d->version);
    if (d->set & CPT_DEFER_MACSIZE)
        *p++ = OSSL_PARAM_construct_uint64(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &d->macsize);
    if (d->set & CPT_DEFER_AAD)
        *p++ = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, d->aad,
            sizeof(d->aad));
    *p = OSSL_PARAM_construct_end();
    c->pending.params = d->params;
}

int cptprov_cipher_tls_setting(const OSSL_PARAM params[])
{
    return OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD) != NULL
        || OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED) != NULL
        || OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION) != NULL;
}

/*
 * libssl's TLS 1.2 settings of an AEAD context ("tlsivfixed" once a key,
 * "tls-version" and "tls-mac-size" once a key, "tlsaad" before every
 * record), checked here as Go checks them and kept for its next call, the
 * record's, which applies them first: they cost no call of their own.
 * They keep their order with an init kept in C (pending): all after it,
 * or all before it. 1: kept; -1: Go must take them (and raise any error).
 */
int cptprov_cipher_defer_tls(struct cptprov_cipher_ctx *c, const OSSL_PARAM params[])
{
    struct cpt_aead_shadow *sh = cipher_shadow(c);
    struct cipher_deferred *d = &c->deferred, n;
    int enc = c->pending.valid ? c->pending.enc : (int)sh->enc;
    const OSSL_PARAM *p;

    if (!c->alg->aead || c->cpu.aad_len != 0)
        return -1;
    if (c->pending.params != NULL && c->pending.params_first == c->pending.valid)
        return -1; /* set before the init kept now: these come after it */
    n = c->pending.params != NULL ? *d : (struct cipher_deferred){ 0 };
    for (p = params; p->key != NULL; p++) {
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)
            && p->data_type == OSSL_PARAM_OCTET_STRING && p->data != NULL
            && p->data_size == sizeof(n.aad) && tls_aad_ok(c, p->data, enc)) {
            memcpy(n.aad, p->data, sizeof(n.aad));
            n.set |= CPT_DEFER_AAD;
        } else if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)
            && p->data_type == OSSL_PARAM_OCTET_STRING && p->data != NULL
            && (c->alg->chacha ? p->data_size == 12
                               : p->data_size >= 4 && p->data_size <= sizeof(n.ivfixed)
                        && p->data_size + 8 <= shadow_ivlen(c))) {
            memcpy(n.ivfixed, p->data, p->data_size);
            n.ivfixed_len = p->data_size;
            n.set |= CPT_DEFER_IVFIXED;
        } else if (key_is(p->key, OSSL_CIPHER_PARAM_TLS_VERSION) && tls_uint(p, &n.version)
            && n.version <= 0xffff) {
            n.set |= CPT_DEFER_VERSION;
        } else if (key_is(p->key, OSSL_CIPHER_PARAM_TLS_MAC_SIZE) && tls_uint(p, &n.macsize)) {
            n.set |= CPT_DEFER_MACSIZE;
        } else {
            return -1;
        }
    }
    if (c->pending.params == NULL)
        c->pending.params_first = !c->pending.valid;
    *d = n;
    c->pending.params = d->params;
    cptprov_cipher_deferred_bind(c);
    c->cpu.tls = CPT_TLS_DEVICE;
    c->cpu.iv_fresh = 0;
    sh->final_ready = 0; /* a final now is Go's to refuse, as after any setting */
    return 1;
}

/* Static algorithm parameters: answered in C, before any Go exists. */
int cptprov_cipher_get_params(OSSL_PARAM params[], const struct cptprov_cipher_alg *a)
{
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL
        && !OSSL_PARAM_set_uint(p, a->mode))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) != NULL
        && !OSSL_PARAM_set_int(p, a->aead))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) != NULL
        && !OSSL_PARAM_set_int(p, a->custom_iv))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) != NULL && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, a->keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL
        && !OSSL_PARAM_set_size_t(p, a->blocksize))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, a->ivlen))
        return 0;
    return 1;
}

int cptprov_cipher_static_params(OSSL_PARAM params[], unsigned int mode, int aead, int custom_iv,
    size_t keylen, size_t blocksize, size_t ivlen)
{
    const struct cptprov_cipher_alg a = { 0, NULL, mode, keylen, ivlen, blocksize, aead, custom_iv,
        ivlen, 0 };

    return cptprov_cipher_get_params(params, &a);
}

/*
 * The same parameter lists as OpenSSL's own AEAD ciphers (tls-version and
 * tls-mac-size are accepted without being listed, as there).
 */
static const OSSL_PARAM cipher_gettable[] = { OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL), OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL), OSSL_PARAM_END };

/*
 * "iv-generated" (whether the context drew the IV itself) first: OpenSSL
 * 3.4 added it (no name in 3.0's headers), and older versions get the list
 * after it.
 */
static const OSSL_PARAM aead_gettable_ctx[] = { OSSL_PARAM_uint("iv-generated", NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0), OSSL_PARAM_END };

static const OSSL_PARAM aead_settable_ctx[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN,
                                                    NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0), OSSL_PARAM_END };

/* The lists of OpenSSL's own block and stream ciphers. */
static const OSSL_PARAM generic_gettable_ctx[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN,
                                                       NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL), OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, NULL, 0), OSSL_PARAM_END };

static const OSSL_PARAM generic_settable_ctx[] = { OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL), OSSL_PARAM_END };

/* The lists of OpenSSL's ChaCha20 and ChaCha20-Poly1305. */
static const OSSL_PARAM chacha_ctx[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL), OSSL_PARAM_END };

static const OSSL_PARAM chachapoly_gettable_ctx[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN,
                                                          NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL), OSSL_PARAM_END };

static const OSSL_PARAM chachapoly_settable_ctx[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN,
                                                          NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0), OSSL_PARAM_END };

const OSSL_PARAM *cptprov_cipher_static_gettable(void *provctx)
{
    (void)provctx;
    return cipher_gettable;
}

/* The context parameter lists of each kind of cipher. */
CPTPROV_CTX_PARAMS_FN(cptprov_aead_gettable_ctx_params,
    aead_gettable_ctx + (cptprov_openssl_at_least(3, 4) ? 0 : 1))
CPTPROV_CTX_PARAMS_FN(cptprov_aead_settable_ctx_params, aead_settable_ctx)
CPTPROV_CTX_PARAMS_FN(cptprov_generic_gettable_ctx_params, generic_gettable_ctx)
CPTPROV_CTX_PARAMS_FN(cptprov_generic_settable_ctx_params, generic_settable_ctx)
CPTPROV_CTX_PARAMS_FN(cptprov_chacha_gettable_ctx_params, chacha_ctx)
CPTPROV_CTX_PARAMS_FN(cptprov_chacha_settable_ctx_params, chacha_ctx)
CPTPROV_CTX_PARAMS_FN(cptprov_chachapoly_gettable_ctx_params, chachapoly_gettable_ctx)
CPTPROV_CTX_PARAMS_FN(cptprov_chachapoly_settable_ctx_params, chachapoly_settable_ctx)
