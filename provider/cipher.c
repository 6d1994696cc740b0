/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ciphers: one generic skeleton; each algorithm is a row of parameters and a
 * dispatch table built by CPTPROV_CIPHER(). The semantics live in Go
 * (package dispatch); this file moves calls across, bridges ASYNC jobs and
 * runs short work on the CPU path (path.h), whose hooks are the stream
 * ciphers' (cipher_stream.c) or the AEADs' (cipher_aead.c). The static
 * questions are answered in cipher_params.c, without Go.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include "dispatch.h"
#include "cipher.h"

static OSSL_FUNC_cipher_freectx_fn cipher_freectx;
static OSSL_FUNC_cipher_dupctx_fn cipher_dupctx;
static OSSL_FUNC_cipher_encrypt_init_fn cipher_einit;
static OSSL_FUNC_cipher_decrypt_init_fn cipher_dinit;
static OSSL_FUNC_cipher_update_fn cipher_update;
static OSSL_FUNC_cipher_final_fn cipher_final;
static OSSL_FUNC_cipher_cipher_fn cipher_cipher;
static OSSL_FUNC_cipher_get_ctx_params_fn cipher_get_ctx_params;
static OSSL_FUNC_cipher_set_ctx_params_fn cipher_set_ctx_params;

static void *cipher_newctx(void *provctx, const struct cptprov_cipher_alg *alg)
{
    struct cptprov_cipher_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c != NULL) {
        c->prov = provctx;
        c->alg = alg;
        cpt_path_init(&c->path, alg->aead ? &cptprov_cipher_aead_path : &cptprov_cipher_stream_path,
            provctx, alg->id);
    }
    return c;
}

static void cipher_freectx(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api = cptprov_go_if_running();

    if (c == NULL)
        return;
    if (api != NULL && c->go_seen)
        api->cipher_free(c->alg->id, c->state);
    cpt_path_free(&c->path);
    OPENSSL_clear_free(c, sizeof(*c));
}

static void *cipher_dupctx(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx, *d;
    const struct cptgo_api *api = cptprov_go_if_running();

    d = OPENSSL_malloc(sizeof(*d));
    if (d == NULL)
        return NULL;
    memcpy(d, c, sizeof(*d));
    if (!cpt_path_dup(&d->path, &c->path)) {
        OPENSSL_clear_free(d, sizeof(*d));
        return NULL;
    }
    if (api != NULL && d->go_seen)
        api->cipher_dup(d->alg->id, d->state);
    cptprov_cipher_deferred_bind(d);
    return d;
}

const struct cptgo_api *cptprov_cipher_go(struct cptprov_cipher_ctx *c)
{
    c->go_seen = 1;
    return cptprov_go(c->prov);
}

/* Starts a stream or message in the twin too (creating it on first use). */
static void cpu_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, size_t ivlen, int enc)
{
    if (c->prov->cpu_threshold[c->alg->id] == 0)
        return;
    if (cipher_twin(c) == NULL) {
        if (!cpt_path_cipher_twin(&c->path, c->alg->name, enc))
            return;
        c->cpu.pad = 1;
        c->cpu.twin_ivlen = c->alg->ivlen;
    }
    if (c->alg->aead)
        cptprov_aead_cpu_init(c, key, iv, ivlen, enc);
    else
        cptprov_stream_cpu_init(c, key, iv, enc);
}

/*
 * The common init (new IV, same or new key, no parameters) is validated
 * here and handed to Go with the next call for this context; an init with
 * parameters goes to Go at once.
 */
static int cipher_init(void *vctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
    size_t ivlen, const OSSL_PARAM params[], int enc)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cpt_pending_init *p = &c->pending;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };

    /* Settings kept after the init kept now would come before this one. */
    int after = p->params != NULL && !p->params_first;

    if (c->cpu.tls == CPT_TLS_TWIN)
        return cptprov_aead_tls_twin_init(c, key, iv, params, enc);
    if ((params == NULL || params[0].key == NULL) && !after) {
        if (key != NULL && keylen != c->alg->keylen) {
            CPT_RAISE(c->prov, CPT_R_INVALID_KEY_LENGTH, "invalid key length %zu (need %zu)",
                keylen, c->alg->keylen);
            return 0;
        }
        if (iv != NULL && c->alg->aead && (ivlen == 0 || ivlen > c->alg->max_ivlen)) {
            CPT_RAISE(c->prov, CPT_R_INVALID_IV_LENGTH, "invalid IV length %zu (1 to %zu bytes)",
                ivlen, c->alg->max_ivlen);
            return 0;
        }
        if (iv != NULL && !c->alg->aead && ivlen != c->alg->ivlen) {
            CPT_RAISE(c->prov, CPT_R_INVALID_IV_LENGTH, "invalid IV length %zu (need %zu)", ivlen,
                c->alg->ivlen);
            return 0;
        }
        p->valid = 1;
        p->enc = enc;
        if (c->alg->aead)
            cptprov_aead_init_pending(c, iv != NULL);
        if (key != NULL) {
            memcpy(p->key, key, keylen);
            p->keylen = keylen;
            p->has_key = 1;
        }
        if (iv != NULL) {
            memcpy(p->iv, iv, ivlen);
            p->ivlen = ivlen;
            p->has_iv = 1;
        }
        cpu_init(c, key, iv, ivlen, enc);
        return 1;
    }
    /* parameters: the device path takes the stream; the twin learns the key */
    c->path.side = CPT_SIDE_DEVICE;
    cpu_init(c, key, NULL, 0, enc);
    c->path.side = CPT_SIDE_DEVICE;
    if (OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION) != NULL)
        c->cpu.tls = CPT_TLS_DEVICE;
    if ((api = cptprov_cipher_go(c)) == NULL)
        return 0;
    if (api->cipher_init(c->alg->id, c->state, p, enc, (void *)key, keylen, (void *)iv, ivlen,
            (void *)params, &st)
        != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_init");
        return 0;
    }
    return 1;
}

static int cipher_einit(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return cipher_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int cipher_dinit(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return cipher_init(vctx, key, keylen, iv, ivlen, params, 0);
}

int cptprov_cipher_run(struct cptprov_ctx *prov, const struct cptgo_api *api, int alg, void *state,
    struct cpt_pending_init *pending, const struct cpt_path_io *io)
{
    struct cpt_call call;

    if (!cptprov_call_begin(&call, prov, api, 1))
        return 0;
    return cptprov_finish(&call,
        (io->oneshot ? api->cipher_oneshot : api->cipher_update)(alg, state, pending, io->out,
            io->outl, io->outsize, (void *)io->in, io->inl, call.n, &call.st),
        io->outl, io->oneshot ? "cipher_cipher" : "cipher_update");
}

/* The device's side of both hook tables. The status blocks are only
 * for it: zeroing one costs a 64-byte CPU-path call a tenth of its time. */
int cptprov_cipher_device_update(void *vctx, const struct cpt_path_io *io)
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api = cptprov_cipher_go(c);

    if (api == NULL)
        return 0;
    return cptprov_cipher_run(c->prov, api, c->alg->id, c->state, &c->pending, io);
}

int cptprov_cipher_device_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cpt_call call;

    if (!cptprov_call_begin(&call, c->prov, cptprov_cipher_go(c), 1))
        return 0;
    return cptprov_finish(&call,
        call.api->cipher_final(c->alg->id, c->state, &c->pending, out, outl, outsize, call.n,
            &call.st),
        outl, "cipher_final");
}

static int cipher_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
    const unsigned char *in, size_t inl)
{
    struct cptprov_cipher_ctx *c = vctx;

    *outl = 0;
    if (c->alg->aead)
        return cptprov_aead_update(c, out, outl, outsize, in, inl);
    return cpt_path_update(&c->path, c, c->cpu.tls == CPT_TLS_NONE && cpt_path_short(&c->path, inl),
        &(struct cpt_path_io){ out, outl, outsize, in, inl, 0 });
}

static int cipher_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_cipher_ctx *c = vctx;

    *outl = 0;
    if (c->alg->aead)
        return cptprov_aead_final(c, out, outl, outsize);
    return cpt_path_final(&c->path, c, c->path.side == CPT_SIDE_CPU, out, outl, outsize);
}

/*
 * EVP_Cipher(): for AEAD ciphers an update, or final for a NULL input; for
 * the others exactly the input, without buffering or padding, on the device.
 */
static int cipher_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
    const unsigned char *in, size_t inl)
{
    struct cptprov_cipher_ctx *c = vctx;

    if (c->alg->aead) {
        if (in == NULL)
            return cipher_final(vctx, out, outl, outsize);
        return cipher_update(vctx, out, outl, outsize, in, inl);
    }
    *outl = 0;
    return cpt_path_update(&c->path, c, 0, &(struct cpt_path_io){ out, outl, outsize, in, inl, 1 });
}

/* For a call only Go answers: a stream goes to the device; an AEAD's
 * message stays where it runs. */
static int stream_to_go(struct cptprov_cipher_ctx *c)
{
    return c->alg->aead || cpt_path_move(&c->path, c, CPT_SIDE_DEVICE);
}

static int cipher_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };

    if (params != NULL && c->cpu.tls == CPT_TLS_TWIN)
        return cptprov_aead_tls_twin_get(c, params);
    if (params == NULL || cptprov_cipher_get_params_in_c(c, params) == 1)
        return 1;
    if ((api = cptprov_cipher_go(c)) == NULL || !stream_to_go(c))
        return 0;
    if (api->cipher_get_ctx_params(c->alg->id, c->state, &c->pending, params, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_get_ctx_params");
        return 0;
    }
    return 1;
}

static int cipher_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };
    int r;

    if (params == NULL || params[0].key == NULL)
        return 1;
    if ((r = cptprov_aead_tls_twin_set(c, params)) >= 0)
        return r;
    if (cptprov_cipher_set_params_in_c(c, params) == 1 || cptprov_cipher_defer_tls(c, params) == 1)
        return 1;
    if (cptprov_cipher_tls_setting(params))
        c->cpu.tls = CPT_TLS_DEVICE;
    c->cpu.iv_fresh = 0; /* Go's IV rules decide about this message */
    if ((api = cptprov_cipher_go(c)) == NULL || !stream_to_go(c))
        return 0;
    /* an AEAD message not yet decided is the device's, with its AAD */
    if (c->alg->aead && c->path.side == CPT_SIDE_NONE && c->cpu.aad_len != 0
        && !cpt_path_move(&c->path, c, CPT_SIDE_DEVICE))
        return 0;
    if (api->cipher_set_ctx_params(c->alg->id, c->state, &c->pending, (void *)params, &st)
        != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_set_ctx_params");
        return 0;
    }
    return 1;
}

/*
 * One algorithm: its parameter row, newctx, get_params and dispatch table.
 * kind is aead or generic: which context parameters it lists.
 */
#define CPTPROV_CIPHER(lc, ID, NAME, MODE, keybytes, ivbytes, maxiv, blkbytes, kind)            \
    static const struct cptprov_cipher_alg lc##_alg = { ID, NAME, MODE, keybytes, ivbytes,      \
        blkbytes, AEAD_##kind, CUSTOM_IV_##kind, maxiv, CHACHA_##kind };                        \
    CPTPROV_ALG_FUNCS(cipher, lc, cipher_newctx, cptprov_cipher_get_params)                     \
    const OSSL_DISPATCH cptprov_##lc##_functions[] = { CPT_FN(CIPHER_NEWCTX, cipher_newctx,     \
                                                           lc##_newctx),                        \
        CPT_FN(CIPHER_FREECTX, cipher_freectx, cipher_freectx),                                 \
        CPT_FN(CIPHER_DUPCTX, cipher_dupctx, cipher_dupctx),                                    \
        CPT_FN(CIPHER_ENCRYPT_INIT, cipher_encrypt_init, cipher_einit),                         \
        CPT_FN(CIPHER_DECRYPT_INIT, cipher_decrypt_init, cipher_dinit),                         \
        CPT_FN(CIPHER_UPDATE, cipher_update, cipher_update),                                    \
        CPT_FN(CIPHER_FINAL, cipher_final, cipher_final),                                       \
        CPT_FN(CIPHER_CIPHER, cipher_cipher, cipher_cipher),                                    \
        CPT_FN(CIPHER_GET_PARAMS, cipher_get_params, lc##_get_params),                          \
        CPT_FN(CIPHER_GET_CTX_PARAMS, cipher_get_ctx_params, cipher_get_ctx_params),            \
        CPT_FN(CIPHER_SET_CTX_PARAMS, cipher_set_ctx_params, cipher_set_ctx_params),            \
        CPT_FN(CIPHER_GETTABLE_PARAMS, cipher_gettable_params, cptprov_cipher_static_gettable), \
        CPT_FN(CIPHER_GETTABLE_CTX_PARAMS, cipher_gettable_ctx_params,                          \
            cptprov_##kind##_gettable_ctx_params),                                              \
        CPT_FN(CIPHER_SETTABLE_CTX_PARAMS, cipher_settable_ctx_params,                          \
            cptprov_##kind##_settable_ctx_params),                                              \
        CPT_FN_END };

/* What each kind is: AEAD, custom IV (EVP's flag), ChaCha's counter. */
#define AEAD_aead 1
#define CUSTOM_IV_aead 1
#define CHACHA_aead 0
#define AEAD_generic 0
#define CUSTOM_IV_generic 0
#define CHACHA_generic 0
#define AEAD_chacha 0
#define CUSTOM_IV_chacha 1
#define CHACHA_chacha 1
#define AEAD_chachapoly 1
#define CUSTOM_IV_chachapoly 1
#define CHACHA_chachapoly 1

/* What each family of algorithms.def is: mode, IV length, longest IV,
 * block size, kind. */
#define FAMILY_aes_gcm EVP_CIPH_GCM_MODE, 12, 128, 1, aead
#define FAMILY_aes_cbc EVP_CIPH_CBC_MODE, 16, 16, 16, generic
#define FAMILY_aes_ctr EVP_CIPH_CTR_MODE, 16, 16, 1, generic
#define FAMILY_des_ede3_cbc EVP_CIPH_CBC_MODE, 8, 8, 8, generic
#define FAMILY_chacha20 0, 16, 16, 1, chacha
#define FAMILY_chacha20_poly1305 0, 12, 12, 1, chachapoly

/* Two steps, so that the family's properties become arguments. */
#define CIPHER_ROW(ID, NAME, keybytes, family) CIPHER_ROW_(ID, NAME, keybytes, family)
#define CIPHER_ROW_(ID, NAME, keybytes, mode, ivbytes, maxiv, blkbytes, kind) \
    CPTPROV_CIPHER(ID, CPT_ALG_##ID, NAME, mode, keybytes, ivbytes, maxiv, blkbytes, kind)
#define CPT_CIPHER(ID, num, name, aliases, family, keylen) \
    CIPHER_ROW(ID, name, keylen, FAMILY_##family)
#include "algorithms.def"
