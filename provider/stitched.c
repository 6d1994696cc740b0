/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The stitched TLS ciphers AES-128/256-CBC-HMAC-SHA1/SHA256, which libssl
 * swaps in for TLS 1.0 to 1.2 CBC suites without encrypt-then-MAC: it sets
 * "mackey" once, then for each record "tlsaad" (sequence number and header;
 * it reads back "tlsaadpad") and one update in place that seals (MAC, pad,
 * encrypt) or opens (decrypt, check padding and MAC in constant time) the
 * record. Without an AAD an update is plain CBC (what openssl speed runs).
 *
 * The semantics live in Go (dispatch/stitched.go; on the device a record is
 * one chained cipher+HMAC instruction). This file keeps the context's
 * parameters in C, so that keying, "mackey", "tls-version" and every static
 * question start no Go runtime, and runs short records and short plain
 * updates on the CPU path: a twin context of the default provider's same
 * cipher, from cptprov's own library context. Which side takes a record is
 * decided when its AAD arrives (the AAD carries the record's length). The
 * only state that crosses between the sides is the running CBC IV (TLS 1.0
 * chains records; later versions carry an explicit IV but the chain still
 * decides the first ciphertext block).
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA1_Init() & co. for long MAC keys */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>
#include "dispatch.h"
#include "path.h"

#define TLS_AAD_LEN 13
#define MAC_BLOCK 64 /* SHA-1's and SHA-256's block: HMAC's K0 */

struct stitched_alg {
    int id; /* CPT_ALG_* */
    const char *name;
    size_t keylen, maclen;
};

/* Where the record announced by the last AAD goes. */
enum { REC_NONE, REC_TWIN, REC_GO };

/*
 * The path's side is where the running CBC IV is: NONE, both sides agree
 * (after an init with an IV); CPU, the twin went on alone; DEVICE, Go did.
 */
struct stitched_ctx {
    struct cptprov_ctx *prov;
    const struct stitched_alg *alg;
    struct cpt_pending_init pending; /* an init Go applies at its next call */
    struct cpt_path path; /* twin: an EVP_CIPHER_CTX; NULL: everything on the device */
    int record;
    int enc, key_set, iv_set;
    unsigned char oiv[16]; /* the IV the application set last */
    unsigned char k0[MAC_BLOCK]; /* HMAC's key, hashed when longer than a block */
    size_t k0len;
    int mackey_set, go_mackey; /* go_mackey: Go has this MAC key */
    unsigned int tls_version;
    int go_version; /* Go has this tls-version */
    size_t aad_pad;
    /* Go-owned state: plain values, so a copy is a valid duplicate. */
    unsigned char state[CPT_CIPHER_STATE_SIZE] __attribute__((aligned(64)));
};

static OSSL_FUNC_cipher_freectx_fn stitched_freectx;
static OSSL_FUNC_cipher_dupctx_fn stitched_dupctx;
static OSSL_FUNC_cipher_encrypt_init_fn stitched_einit;
static OSSL_FUNC_cipher_decrypt_init_fn stitched_dinit;
static OSSL_FUNC_cipher_update_fn stitched_update;
static OSSL_FUNC_cipher_final_fn stitched_final;
static OSSL_FUNC_cipher_cipher_fn stitched_cipher;
static OSSL_FUNC_cipher_get_ctx_params_fn stitched_get_ctx_params;
static OSSL_FUNC_cipher_set_ctx_params_fn stitched_set_ctx_params;
static OSSL_FUNC_cipher_gettable_ctx_params_fn stitched_gettable_ctx_params;
static OSSL_FUNC_cipher_settable_ctx_params_fn stitched_settable_ctx_params;

static const struct cpt_path_hw stitched_path;

static EVP_CIPHER_CTX *twin(const struct stitched_ctx *c)
{
    return c->path.twin;
}

static int cpu_path(const struct stitched_ctx *c, size_t len)
{
    return twin(c) != NULL && cpt_path_short(&c->path, len);
}

static void *stitched_newctx(void *provctx, const struct stitched_alg *alg)
{
    struct stitched_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c != NULL) {
        c->prov = provctx;
        c->alg = alg;
        cpt_path_init(&c->path, &stitched_path, provctx, alg->id);
    }
    return c;
}

static void stitched_freectx(void *vctx)
{
    struct stitched_ctx *c = vctx;
    const struct cptgo_api *api = cptprov_go_if_running();

    if (c == NULL)
        return;
    if (api != NULL)
        api->cipher_free(c->alg->id, c->state);
    cpt_path_free(&c->path);
    OPENSSL_clear_free(c, sizeof(*c));
}

static void *stitched_dupctx(void *vctx)
{
    struct stitched_ctx *c = vctx, *d;
    const struct cptgo_api *api = cptprov_go_if_running();

    if ((d = OPENSSL_malloc(sizeof(*d))) == NULL)
        return NULL;
    memcpy(d, c, sizeof(*d));
    if (!cpt_path_dup(&d->path, &c->path)) {
        OPENSSL_clear_free(d, sizeof(*d));
        return NULL;
    }
    if (api != NULL)
        api->cipher_dup(d->alg->id, d->state);
    return d;
}

/* Hands the running IV to the twin. */
static int iv_to_twin(void *vctx)
{
    struct stitched_ctx *c = vctx;
    struct cpt_stream_state s;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;

    if (c->path.side != CPT_SIDE_DEVICE)
        return 1;
    /* Go has the IV (in a child after fork(), a new Go half reads it from
     * the context, which is plain memory). */
    if ((api = cptprov_go(c->prov)) == NULL
        || api->cipher_export(c->alg->id, c->state, &c->pending, &s, &st) != CPT_OK
        || !EVP_CipherInit_ex2(twin(c), NULL, NULL, s.iv, c->enc, NULL))
        return 0;
    return 1;
}

/* Hands the running IV to Go. */
static int iv_to_go(void *vctx)
{
    struct stitched_ctx *c = vctx;
    struct cpt_stream_state s;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;

    if (c->path.side != CPT_SIDE_CPU)
        return 1;
    if ((api = cptprov_go(c->prov)) == NULL)
        return 0;
    memset(&s, 0, sizeof(s));
    if (!cptprov_twin_iv(twin(c), s.iv, sizeof(s.iv))) {
        CPT_RAISE(c->prov, CPT_R_INTERNAL, "reading the CPU path's IV");
        return 0;
    }
    s.pad = 1;
    s.enc = c->enc;
    if (api->cipher_import(c->alg->id, c->state, &c->pending, &s, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_import");
        return 0;
    }
    return 1;
}

/* Gives Go the parameters it has not seen (with extra, the record's AAD). */
static int sync_go(struct stitched_ctx *c, const struct cptgo_api *api, const unsigned char *aad)
{
    OSSL_PARAM params[4], *p = params;
    struct cpt_status st = { 0, "" };

    if (c->mackey_set && !c->go_mackey)
        *p++ = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_MAC_KEY, c->k0, c->k0len);
    if (c->tls_version != 0 && !c->go_version)
        *p++ = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &c->tls_version);
    if (aad != NULL)
        *p++ = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, (void *)aad,
            TLS_AAD_LEN);
    *p = OSSL_PARAM_construct_end();
    if (p == params)
        return 1;
    if (api->cipher_set_ctx_params(c->alg->id, c->state, &c->pending, params, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_set_ctx_params");
        return 0;
    }
    c->go_mackey = c->mackey_set;
    c->go_version = c->tls_version != 0;
    return 1;
}

static int stitched_init(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    struct stitched_ctx *c = vctx;
    struct cpt_pending_init *p = &c->pending;

    if (key != NULL && keylen != c->alg->keylen) {
        CPT_RAISE(c->prov, CPT_R_INVALID_KEY_LENGTH, "invalid key length %zu (need %zu)", keylen,
            c->alg->keylen);
        return 0;
    }
    if (iv != NULL && ivlen != sizeof(c->oiv)) {
        CPT_RAISE(c->prov, CPT_R_INVALID_IV_LENGTH, "invalid IV length %zu (need 16)", ivlen);
        return 0;
    }
    p->valid = 1;
    p->enc = c->enc = enc;
    if (key != NULL) {
        memcpy(p->key, key, keylen);
        p->keylen = keylen;
        p->has_key = c->key_set = 1;
        /* A new key forgets the MAC key, on both sides (OpenSSL's rule). */
        c->mackey_set = c->go_mackey = 0;
    }
    if (iv != NULL) {
        memcpy(p->iv, iv, ivlen);
        p->ivlen = ivlen;
        p->has_iv = 1;
        memcpy(c->oiv, iv, ivlen);
        c->iv_set = 1;
    }
    c->record = REC_NONE;
    c->aad_pad = 0;
    if (c->prov->cpu_threshold[c->alg->id] != 0 && twin(c) == NULL)
        (void)cpt_path_cipher_twin(&c->path, c->alg->name, enc);
    /* CBC goes back to the application's IV, which the twin may not hold
     * as its own after a hand-over. */
    if (twin(c) != NULL
        && !EVP_CipherInit_ex2(twin(c), NULL, key, c->iv_set ? c->oiv : NULL, enc, NULL))
        cpt_path_drop(&c->path);
    /* Both sides now start from the same IV (or, never given one, each
     * from where it is). */
    if (c->iv_set)
        c->path.side = CPT_SIDE_NONE;
    else if (twin(c) == NULL)
        c->path.side = CPT_SIDE_DEVICE;
    return stitched_set_ctx_params(vctx, params);
}

static int stitched_einit(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return stitched_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int stitched_dinit(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return stitched_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* "tlsaad": the record goes to the twin if it is short, else to Go. */
static int set_aad(struct stitched_ctx *c, const OSSL_PARAM *p)
{
    unsigned char aad[TLS_AAD_LEN];
    size_t len, ver, payload;
    const struct cptgo_api *api;
    OSSL_PARAM tp[2];

    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != TLS_AAD_LEN) {
        CPT_RAISE(c->prov, CPT_R_INVALID_AAD, "TLS AAD must be a %d-byte octet string",
            TLS_AAD_LEN);
        return 0;
    }
    memcpy(aad, p->data, TLS_AAD_LEN); /* the twin rewrites its length */
    len = (size_t)aad[11] << 8 | aad[12];
    ver = (size_t)aad[9] << 8 | aad[10];
    if (c->enc) {
        payload = len;
        if (ver >= 0x0302) { /* the explicit IV is not MACed */
            if (len < 16) {
                CPT_RAISE(c->prov, CPT_R_INVALID_AAD, "TLS record of %zu bytes has no explicit IV",
                    len);
                return 0;
            }
            payload -= 16;
        }
        c->aad_pad = ((payload + c->alg->maclen + 16) & ~(size_t)15) - payload;
    } else {
        c->aad_pad = c->alg->maclen;
    }
    c->record = REC_NONE;
    if (cpu_path(c, len)) {
        tp[0] =
            OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, aad, TLS_AAD_LEN);
        tp[1] = OSSL_PARAM_construct_end();
        if (EVP_CIPHER_CTX_set_params(twin(c), tp)) {
            c->record = REC_TWIN;
            return 1;
        }
        if (!cpt_path_leave(&c->path, c))
            return 0;
    }
    if ((api = cptprov_go(c->prov)) == NULL || !sync_go(c, api, aad))
        return 0;
    c->record = REC_GO;
    return 1;
}

/*
 * HMAC's K0 of a MAC key longer than a block, its digest, with the
 * low-level functions: the one-shot SHA1() and SHA256() fetch from the
 * application's default library context, which may not have them.
 */
static void long_key_digest(const struct stitched_alg *a, const unsigned char *key, size_t len,
    unsigned char *k0)
{
    SHA_CTX s1;
    SHA256_CTX s256;

    if (a->maclen == SHA_DIGEST_LENGTH) {
        SHA1_Init(&s1);
        SHA1_Update(&s1, key, len);
        SHA1_Final(k0, &s1);
        OPENSSL_cleanse(&s1, sizeof(s1));
    } else {
        SHA256_Init(&s256);
        SHA256_Update(&s256, key, len);
        SHA256_Final(k0, &s256);
        OPENSSL_cleanse(&s256, sizeof(s256));
    }
}

static int stitched_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    struct stitched_ctx *c = vctx;
    const OSSL_PARAM *p;
    size_t keylen;

    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_MAC_KEY)) != NULL) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || (p->data == NULL && p->data_size != 0)) {
            CPT_RAISE(c->prov, CPT_R_BAD_PARAMETER, "parameter \"mackey\" must be an octet string");
            return 0;
        }
        memset(c->k0, 0, sizeof(c->k0));
        if (p->data_size > MAC_BLOCK) { /* HMAC's K0 */
            long_key_digest(c->alg, p->data, p->data_size, c->k0);
            c->k0len = c->alg->maclen;
        } else {
            if (p->data_size != 0)
                memcpy(c->k0, p->data, p->data_size);
            c->k0len = p->data_size;
        }
        c->mackey_set = 1;
        c->go_mackey = 0;
        if (twin(c) != NULL) {
            OSSL_PARAM tp[2] = { OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_MAC_KEY,
                                     c->k0, c->k0len),
                OSSL_PARAM_END };

            if (!EVP_CIPHER_CTX_set_params(twin(c), tp) && !cpt_path_leave(&c->path, c))
                return 0;
        }
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION)) != NULL) {
        if (!OSSL_PARAM_get_uint(p, &c->tls_version)) {
            CPT_RAISE(c->prov, CPT_R_BAD_PARAMETER, "parameter \"tls-version\" must be an integer");
            return 0;
        }
        c->go_version = 0;
        if (twin(c) != NULL) {
            OSSL_PARAM tp[2] = { OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION,
                                     &c->tls_version),
                OSSL_PARAM_END };

            if (!EVP_CIPHER_CTX_set_params(twin(c), tp) && !cpt_path_leave(&c->path, c))
                return 0;
        }
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && (!OSSL_PARAM_get_size_t(p, &keylen) || keylen != c->alg->keylen)) {
        CPT_RAISE(c->prov, CPT_R_INVALID_KEY_LENGTH, "%s takes %zu-byte keys", c->alg->name,
            c->alg->keylen);
        return 0;
    }
    /* Last: it may send the record's parameters to Go. */
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) != NULL)
        return set_aad(c, p);
    return 1;
}

static int stitched_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct stitched_ctx *c = vctx;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) != NULL
        && !OSSL_PARAM_set_size_t(p, c->aad_pad))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, c->alg->keylen))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, sizeof(c->oiv)))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) != NULL
        && !OSSL_PARAM_set_octet_string(p, c->oiv, sizeof(c->oiv))
        && !OSSL_PARAM_set_octet_ptr(p, c->oiv, sizeof(c->oiv)))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) != NULL) {
        OSSL_PARAM one[2] = { *p, OSSL_PARAM_END };

        /* The side that holds the running IV answers. */
        if (c->path.side != CPT_SIDE_DEVICE && twin(c) != NULL) {
            if (!EVP_CIPHER_CTX_get_params(twin(c), one))
                goto bad;
        } else {
            if ((api = cptprov_go(c->prov)) == NULL)
                return 0;
            if (api->cipher_get_ctx_params(c->alg->id, c->state, &c->pending, one, &st) != CPT_OK) {
                cptprov_raise_status(c->prov, &st, "cipher_get_ctx_params");
                return 0;
            }
        }
        p->return_size = one[0].return_size;
    }
    return 1;
bad:
    CPT_RAISE(c->prov, CPT_R_BAD_PARAMETER, "parameter \"%s\" of the wrong type or size", p->key);
    return 0;
}

static int cpu_update(void *vctx, const struct cpt_path_io *io)
{
    struct stitched_ctx *c = vctx;
    int len;

    cpt_path_tally(&c->path, io->inl);
    if (io->outsize < io->inl) {
        CPT_RAISE(c->prov, CPT_R_OUTPUT_TOO_SMALL, "output buffer too small: %zu bytes for %zu",
            io->outsize, io->inl);
        return 0;
    }
    if (io->oneshot) {
        if (EVP_Cipher(twin(c), io->out, io->in, (unsigned int)io->inl) <= 0)
            return 0;
        *io->outl = io->inl;
        return 1;
    }
    if (!EVP_CipherUpdate(twin(c), io->out, &len, io->in, (int)io->inl))
        return 0;
    *io->outl = (size_t)len;
    return 1;
}

static int device_update(void *vctx, const struct cpt_path_io *io)
{
    struct stitched_ctx *c = vctx;
    const struct cptgo_api *api;

    if ((api = cptprov_go(c->prov)) == NULL)
        return 0;
    if (c->record == REC_NONE && !c->key_set) {
        CPT_RAISE(c->prov, CPT_R_MISSING_KEY, "no key set");
        return 0;
    }
    return cptprov_cipher_run(c->prov, api, c->alg->id, c->state, &c->pending, io);
}

/* Every update is a whole record, or plain CBC: no final on either side. */
static const struct cpt_path_hw stitched_path = { iv_to_twin, iv_to_go, cpu_update, device_update,
    NULL, NULL, cpt_twin_cipher_dup, cpt_twin_cipher_free, 0 };

/* An update (oneshot 0) or EVP_Cipher (oneshot 1): a record or plain CBC. */
static int stitched_run(struct stitched_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
    const unsigned char *in, size_t inl, int oneshot)
{
    int record = c->record, rc;

    *outl = 0;
    if (record == REC_TWIN && twin(c) == NULL) {
        /* the CPU path was given up after the record's AAD went to it */
        c->record = REC_NONE;
        CPT_RAISE(c->prov, CPT_R_WRONG_STATE, "the record's AAD must be set again");
        return 0;
    }
    rc =
        cpt_path_update(&c->path, c, record == REC_TWIN || (record == REC_NONE && cpu_path(c, inl)),
            &(struct cpt_path_io){ out, outl, outsize, in, inl, oneshot });
    c->record = REC_NONE; /* the next update is plain CBC, or has an AAD of its own */
    return rc;
}

static int stitched_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
    const unsigned char *in, size_t inl)
{
    return stitched_run(vctx, out, outl, outsize, in, inl, 0);
}

static int stitched_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
    const unsigned char *in, size_t inl)
{
    return stitched_run(vctx, out, outl, outsize, in, inl, 1);
}

/* Every update is complete: final only checks that there is a key. */
static int stitched_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct stitched_ctx *c = vctx;

    (void)out;
    (void)outsize;
    *outl = 0;
    cpt_path_flush(&c->path);
    if (!c->key_set) {
        CPT_RAISE(c->prov, CPT_R_MISSING_KEY, "no key set");
        return 0;
    }
    return 1;
}

/* OpenSSL's lists, without the multiblock parameters (not offered). */
static const OSSL_PARAM stitched_gettable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0), OSSL_PARAM_END
};

static const OSSL_PARAM stitched_settable_ctx[] = {
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_MAC_KEY, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL), OSSL_PARAM_END
};

static CPTPROV_CTX_PARAMS_FN(stitched_gettable_ctx_params,
    stitched_gettable_ctx) static CPTPROV_CTX_PARAMS_FN(stitched_settable_ctx_params,
    stitched_settable_ctx)

    /* Flags as the default provider's, except that multiblock is not offered. */
    static int stitched_get_params(OSSL_PARAM params[], const struct stitched_alg *a)
{
    return cptprov_cipher_static_params(params, EVP_CIPH_CBC_MODE, 1, 0, a->keylen, 16, 16);
}

/* One algorithm: its row, newctx, get_params and dispatch table. */
#define CPTPROV_STITCHED(lc, ID, NAME, keybytes, macbytes)                                      \
    static const struct stitched_alg lc##_alg = { ID, NAME, keybytes, macbytes };               \
    CPTPROV_ALG_FUNCS(cipher, lc, stitched_newctx, stitched_get_params)                         \
    const OSSL_DISPATCH cptprov_##lc##_functions[] = { CPT_FN(CIPHER_NEWCTX, cipher_newctx,     \
                                                           lc##_newctx),                        \
        CPT_FN(CIPHER_FREECTX, cipher_freectx, stitched_freectx),                               \
        CPT_FN(CIPHER_DUPCTX, cipher_dupctx, stitched_dupctx),                                  \
        CPT_FN(CIPHER_ENCRYPT_INIT, cipher_encrypt_init, stitched_einit),                       \
        CPT_FN(CIPHER_DECRYPT_INIT, cipher_decrypt_init, stitched_dinit),                       \
        CPT_FN(CIPHER_UPDATE, cipher_update, stitched_update),                                  \
        CPT_FN(CIPHER_FINAL, cipher_final, stitched_final),                                     \
        CPT_FN(CIPHER_CIPHER, cipher_cipher, stitched_cipher),                                  \
        CPT_FN(CIPHER_GET_PARAMS, cipher_get_params, lc##_get_params),                          \
        CPT_FN(CIPHER_GET_CTX_PARAMS, cipher_get_ctx_params, stitched_get_ctx_params),          \
        CPT_FN(CIPHER_SET_CTX_PARAMS, cipher_set_ctx_params, stitched_set_ctx_params),          \
        CPT_FN(CIPHER_GETTABLE_PARAMS, cipher_gettable_params, cptprov_cipher_static_gettable), \
        CPT_FN(CIPHER_GETTABLE_CTX_PARAMS, cipher_gettable_ctx_params,                          \
            stitched_gettable_ctx_params),                                                      \
        CPT_FN(CIPHER_SETTABLE_CTX_PARAMS, cipher_settable_ctx_params,                          \
            stitched_settable_ctx_params),                                                      \
        CPT_FN_END };

/* The MAC's length: the size of the row's digest. */
enum {
#define CPT_DIGEST(ID, num, name, aliases, family, hmac_family, size, blocksize) \
    MD_SIZE_##ID = (size),
#include "algorithms.def"
};
#define CPT_STITCHED(ID, num, name, family, keylen, digest) \
    CPTPROV_STITCHED(ID, CPT_ALG_##ID, name, keylen, MD_SIZE_##digest)
#include "algorithms.def"
