/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Asymmetric ciphers (RSA encryption): the generic skeleton over the key
 * objects of keymgmt.c. The exponentiation runs on the device, through the
 * ASYNC bridge inside a job; padding lives in Go.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include "cptprov.h"
#include "dispatch.h"

struct cptprov_asym {
    struct cptprov_ctx *prov;
    int alg; /* CPT_ASYM_* */
    int keytype;
    struct cptprov_key *key;
    /* The OAEP label: kept here rather than in Go's state, as OpenSSL puts
     * no bound on its length. NULL: none (an empty label). */
    unsigned char *label;
    size_t label_len;
    unsigned char state[CPT_SIG_STATE_SIZE] __attribute__((aligned(16)));
};

static void *asym_new(void *provctx, int alg, int keytype)
{
    struct cptprov_asym *a = OPENSSL_zalloc(sizeof(*a));

    if (a != NULL) {
        a->prov = provctx;
        a->alg = alg;
        a->keytype = keytype;
    }
    return a;
}

static void cptprov_asym_free(void *va)
{
    struct cptprov_asym *a = va;

    if (a == NULL)
        return;
    cptprov_key_free(a->key);
    OPENSSL_free(a->label);
    OPENSSL_clear_free(a, sizeof(*a));
}

static void *cptprov_asym_dup(void *va)
{
    struct cptprov_asym *a = va, *d = OPENSSL_memdup(a, sizeof(*a));

    if (d == NULL)
        return NULL;
    /* An empty label is a byte of memory: OPENSSL_memdup(p, 0) is NULL. */
    if (a->label != NULL && (d->label = OPENSSL_malloc(a->label_len + 1)) == NULL) {
        OPENSSL_clear_free(d, sizeof(*d));
        return NULL;
    }
    if (a->label != NULL)
        memcpy(d->label, a->label, a->label_len);
    if (d->key != NULL)
        cptprov_key_up_ref(d->key);
    return d;
}

/* Takes the OAEP label from params, if there is one; the rest is Go's. */
static int asym_set_label(struct cptprov_asym *a, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL);
    void *label = NULL;
    size_t len = 0;

    if (p == NULL)
        return 1;
    if (!OSSL_PARAM_get_octet_string(p, &label, 0, &len)) {
        CPT_RAISE(a->prov, CPT_R_BAD_PARAMETER, "parameter \"%s\" must be an octet string",
            OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL);
        return 0;
    }
    OPENSSL_free(a->label);
    a->label = label;
    a->label_len = len;
    return 1;
}

static int asym_init(struct cptprov_asym *a, void *vkey, int op, const OSSL_PARAM params[])
{
    struct cptprov_key *k = vkey;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;

    if (k == NULL || cptprov_key_type_id(k) != a->keytype) {
        CPT_RAISE(a->prov, CPT_R_INVALID_KEY, "the key is not of this cipher's type");
        return 0;
    }
    cptprov_key_up_ref(k);
    cptprov_key_free(a->key);
    a->key = k;
    if ((api = cptprov_go(a->prov)) == NULL)
        return 0;
    OPENSSL_free(a->label);
    a->label = NULL;
    a->label_len = 0;
    if (api->asym_init(a->alg, a->state, k->state, op, params, &st) != CPT_OK) {
        cptprov_raise_status(a->prov, &st, "asym_cipher_init");
        return 0;
    }
    return asym_set_label(a, params);
}

static int cptprov_encrypt_init(void *va, void *key, const OSSL_PARAM params[])
{
    return asym_init(va, key, CPT_OP_ENCRYPT, params);
}

static int cptprov_decrypt_init(void *va, void *key, const OSSL_PARAM params[])
{
    return asym_init(va, key, CPT_OP_DECRYPT, params);
}

static int asym_crypt(struct cptprov_asym *a, unsigned char *out, size_t *outlen, size_t outsize,
    const unsigned char *in, size_t inlen, int decrypt)
{
    const struct cptgo_api *api = cptprov_go(a->prov);
    struct cpt_call call;

    /* Only a call that writes its output may go pending, not a size query. */
    if (a->key == NULL || !cptprov_call_begin(&call, a->prov, api, out != NULL))
        return 0;
    return cptprov_finish(&call,
        api->asym_crypt(a->alg, a->state, a->key->state, out, outlen, outsize, in, inlen, decrypt,
            a->label, a->label_len, call.n, &call.st),
        outlen, decrypt ? "decrypt" : "encrypt");
}

static int cptprov_encrypt(void *va, unsigned char *out, size_t *outlen, size_t outsize,
    const unsigned char *in, size_t inlen)
{
    return asym_crypt(va, out, outlen, outsize, in, inlen, 0);
}

static int cptprov_decrypt(void *va, unsigned char *out, size_t *outlen, size_t outsize,
    const unsigned char *in, size_t inlen)
{
    return asym_crypt(va, out, outlen, outsize, in, inlen, 1);
}

static int asym_params(struct cptprov_asym *a, const OSSL_PARAM params[], int set)
{
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;
    OSSL_PARAM *p;

    if (params == NULL || params[0].key == NULL)
        return 1;
    if ((api = cptprov_go(a->prov)) == NULL)
        return 0;
    if (api->asym_params(a->alg, a->state, params, set, &st) != CPT_OK) {
        cptprov_raise_status(a->prov, &st,
            set ? "asym_cipher_set_ctx_params" : "asym_cipher_get_ctx_params");
        return 0;
    }
    if (set)
        return asym_set_label(a, params);
    p = OSSL_PARAM_locate((OSSL_PARAM *)params, OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL);
    if (p != NULL && !OSSL_PARAM_set_octet_ptr(p, a->label, a->label_len)) {
        CPT_RAISE(a->prov, CPT_R_BAD_PARAMETER, "parameter \"%s\" must be an octet pointer",
            OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL);
        return 0;
    }
    return 1;
}

static int cptprov_asym_get_params(void *va, OSSL_PARAM params[])
{
    return asym_params(va, params, 0);
}

static int cptprov_asym_set_params(void *va, const OSSL_PARAM params[])
{
    return asym_params(va, params, 1);
}

/*
 * The parameter lists of OpenSSL's own RSA encryption. "implicit-rejection"
 * first: OpenSSL 3.2 added it (no name in 3.0's headers), and older
 * versions get the lists after it.
 */
static const OSSL_PARAM rsa_enc_gettable[] = { OSSL_PARAM_uint("implicit-rejection", NULL),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL, OSSL_PARAM_OCTET_PTR, NULL, 0),
    OSSL_PARAM_uint(OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION, NULL),
    OSSL_PARAM_uint(OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION, NULL), OSSL_PARAM_END };
static const OSSL_PARAM rsa_enc_settable[] = { OSSL_PARAM_uint("implicit-rejection", NULL),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST_PROPS, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST_PROPS, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL, NULL, 0),
    OSSL_PARAM_uint(OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION, NULL),
    OSSL_PARAM_uint(OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION, NULL), OSSL_PARAM_END };

/* GETTABLE and SETTABLE begin with the entry OpenSSL 3.2 added. */
#define CPTPROV_ASYM(lc, ALG, KEYTYPE, GETTABLE, SETTABLE)                                       \
    static void *cptprov_##lc##_newctx(void *provctx)                                            \
    {                                                                                            \
        return asym_new(provctx, ALG, KEYTYPE);                                                  \
    }                                                                                            \
    static const OSSL_PARAM *cptprov_##lc##_gettable(void *va, void *provctx)                    \
    {                                                                                            \
        (void)va;                                                                                \
        (void)provctx;                                                                           \
        return GETTABLE + (cptprov_openssl_at_least(3, 2) ? 0 : 1);                              \
    }                                                                                            \
    static const OSSL_PARAM *cptprov_##lc##_settable(void *va, void *provctx)                    \
    {                                                                                            \
        (void)va;                                                                                \
        (void)provctx;                                                                           \
        return SETTABLE + (cptprov_openssl_at_least(3, 2) ? 0 : 1);                              \
    }                                                                                            \
    static const OSSL_DISPATCH cptprov_##lc##_asym_cipher_functions[] = {                        \
        CPT_FN(ASYM_CIPHER_NEWCTX, asym_cipher_newctx, cptprov_##lc##_newctx),                   \
        CPT_FN(ASYM_CIPHER_FREECTX, asym_cipher_freectx, cptprov_asym_free),                     \
        CPT_FN(ASYM_CIPHER_DUPCTX, asym_cipher_dupctx, cptprov_asym_dup),                        \
        CPT_FN(ASYM_CIPHER_ENCRYPT_INIT, asym_cipher_encrypt_init, cptprov_encrypt_init),        \
        CPT_FN(ASYM_CIPHER_ENCRYPT, asym_cipher_encrypt, cptprov_encrypt),                       \
        CPT_FN(ASYM_CIPHER_DECRYPT_INIT, asym_cipher_decrypt_init, cptprov_decrypt_init),        \
        CPT_FN(ASYM_CIPHER_DECRYPT, asym_cipher_decrypt, cptprov_decrypt),                       \
        CPT_FN(ASYM_CIPHER_GET_CTX_PARAMS, asym_cipher_get_ctx_params, cptprov_asym_get_params), \
        CPT_FN(ASYM_CIPHER_GETTABLE_CTX_PARAMS, asym_cipher_gettable_ctx_params,                 \
            cptprov_##lc##_gettable),                                                            \
        CPT_FN(ASYM_CIPHER_SET_CTX_PARAMS, asym_cipher_set_ctx_params, cptprov_asym_set_params), \
        CPT_FN(ASYM_CIPHER_SETTABLE_CTX_PARAMS, asym_cipher_settable_ctx_params,                 \
            cptprov_##lc##_settable),                                                            \
        CPT_FN_END                                                                               \
    };

CPTPROV_ASYM(rsa, CPT_ASYM_RSA, CPT_KEY_RSA, rsa_enc_gettable, rsa_enc_settable)

const OSSL_ALGORITHM cptprov_asym_ciphers[] = {
    { "RSA:rsaEncryption:1.2.840.113549.1.1.1", CPTPROV_PROPS, cptprov_rsa_asym_cipher_functions,
        "RSA encryption on the CPT" },
    { NULL, NULL, NULL, NULL }
};
