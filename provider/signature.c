/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Signatures: one generic skeleton; each scheme is a row built by
 * CPTPROV_SIGNATURE(). Signing and verification run on the device (through
 * the ASYNC bridge inside a job); hashing, DER and nonces live in Go.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include "cptprov.h"
#include "dispatch.h"

struct cptprov_sig {
    struct cptprov_ctx *prov;
    int alg; /* CPT_SIG_* */
    int op; /* CPT_OP_* of the last successful init, 0 before */
    unsigned int keytypes; /* bit (1 << CPT_KEY_*) for each key type the scheme signs with */
    struct cptprov_key *key;
    struct cpt_sig_pending pending; /* an init Go applies at its next call */
    /* The key's slot of the last init without parameters (-1: none), and
     * the settings made since, serialized (sets_append), while they are
     * all known (sets_ok): those kept with the init are its first kept_sets. */
    int slot;
    unsigned int material; /* the key's when the slot was found */
    int sets_ok;
    size_t sets_len;
    unsigned char sets[CPTPROV_SIG_SETS_MAX] __attribute__((aligned(8)));
    /* The kept settings as Go takes them: each set's array, then an empty one. */
    OSSL_PARAM kept[8];
    unsigned char state[CPT_SIG_STATE_SIZE] __attribute__((aligned(16)));
    unsigned char scratch[CPT_SIG_SCRATCH_SIZE] __attribute__((aligned(16)));
};

static void *key_state(struct cptprov_sig *s)
{
    return s->key != NULL ? s->key->state : NULL;
}

static void *sig_new(void *provctx, int alg, unsigned int keytypes)
{
    struct cptprov_sig *s = OPENSSL_zalloc(sizeof(*s));

    if (s != NULL) {
        s->prov = provctx;
        s->alg = alg;
        s->keytypes = keytypes;
    }
    return s;
}

static void cptprov_sig_free(void *vs)
{
    struct cptprov_sig *s = vs;

    if (s == NULL)
        return;
    cptprov_key_free(s->key);
    OPENSSL_clear_free(s, sizeof(*s));
}

/*
 * Settings serialized, to compare them with those a key's slot holds and to
 * keep them: per parameter its key and NUL, type and size bytes, the data
 * 8-byte aligned and a NUL; an empty key ends a set. 0: they do not fit,
 * or one cannot be kept.
 */
static int sets_append(unsigned char *buf, size_t *len, const OSSL_PARAM params[])
{
    size_t n = *len;

    for (const OSSL_PARAM *p = params; p->key != NULL; p++) {
        size_t kl = strlen(p->key) + 1, at;

        if (p->data == NULL || p->data_size > 64 || kl > 32)
            return 0;
        at = (n + kl + 2 + 7) & ~(size_t)7;
        if (at + p->data_size + 1 > CPTPROV_SIG_SETS_MAX)
            return 0;
        memcpy(buf + n, p->key, kl);
        buf[n + kl] = (unsigned char)p->data_type;
        buf[n + kl + 1] = (unsigned char)p->data_size;
        memset(buf + n + kl + 2, 0, at - (n + kl + 2));
        memcpy(buf + at, p->data, p->data_size);
        buf[at + p->data_size] = 0;
        n = at + p->data_size + 1;
    }
    if (n + 1 > CPTPROV_SIG_SETS_MAX)
        return 0;
    buf[n] = 0;
    *len = n + 1;
    return 1;
}

/* Points pending.params at the kept settings (sets[0..len]) as OSSL_PARAM
 * arrays; 0: too many parameters. */
static int kept_bind(struct cptprov_sig *s, size_t len)
{
    size_t n = 0, i = 0, max = sizeof(s->kept) / sizeof(s->kept[0]);

    while (n < len) {
        const char *key = (const char *)s->sets + n;
        size_t kl = strlen(key) + 1, at;

        if (i + 2 >= max)
            return 0;
        if (kl == 1) { /* a set's end */
            s->kept[i++] = (OSSL_PARAM)OSSL_PARAM_END;
            n++;
            continue;
        }
        at = (n + kl + 2 + 7) & ~(size_t)7;
        s->kept[i++] = (OSSL_PARAM){ key, s->sets[n + kl], s->sets + at, s->sets[n + kl + 1],
            OSSL_PARAM_UNMODIFIED };
        n = at + s->sets[n + kl + 1] + 1;
    }
    s->kept[i] = (OSSL_PARAM)OSSL_PARAM_END;
    s->pending.params = s->kept;
    return 1;
}

static void *cptprov_sig_dup(void *vs)
{
    struct cptprov_sig *s = vs, *d = OPENSSL_memdup(s, sizeof(*s));

    if (d == NULL)
        return NULL;
    if (d->key != NULL)
        cptprov_key_up_ref(d->key);
    if (d->pending.params != NULL)
        kept_bind(d, d->sets_len); /* it fitted in s */
    return d;
}

/* The key's slot of an init Go accepted with it before, or -1. */
static int init_seen(struct cptprov_key *k, int alg, int op, int stream, const char *md)
{
    for (int i = 0; i < CPTPROV_KEY_SIG_INITS; i++) {
        const struct cptprov_sig_init_seen *e = &k->sig_inits[i];

        if (atomic_load_explicit(&e->state, memory_order_acquire) == 2 && e->alg == alg
            && e->op == op && e->stream == stream && strcmp(e->mdname, md) == 0)
            return i;
    }
    return -1;
}

static int init_remember(struct cptprov_key *k, int alg, int op, int stream, const char *md)
{
    int i = init_seen(k, alg, op, stream, md);

    if (strlen(md) >= CPT_SIG_MDNAME_MAX || i >= 0)
        return i;
    for (i = 0; i < CPTPROV_KEY_SIG_INITS; i++) {
        struct cptprov_sig_init_seen *e = &k->sig_inits[i];
        int free_slot = 0;

        if (atomic_compare_exchange_strong(&e->state, &free_slot, 1)) {
            e->alg = alg;
            e->op = op;
            e->stream = stream;
            strcpy(e->mdname, md);
            atomic_store(&e->sets_state, 0);
            atomic_store_explicit(&e->state, 2, memory_order_release);
            return i;
        }
    }
    return -1;
}

/* After the context's first signature since its init: the key's slot
 * learns the settings made in between, if it has none yet. */
static void sets_remember(struct cptprov_sig *s)
{
    struct cptprov_sig_init_seen *e;
    int free_list = 0;

    if (s->slot < 0 || !s->sets_ok || atomic_load(&s->key->material) != s->material)
        return;
    e = &s->key->sig_inits[s->slot];
    s->slot = -1;
    if (atomic_compare_exchange_strong(&e->sets_state, &free_list, 1)) {
        memcpy(e->sets, s->sets, s->sets_len);
        e->sets_len = s->sets_len;
        atomic_store_explicit(&e->sets_state, 2, memory_order_release);
    }
}

/*
 * Settings after a kept init that repeat, in order, those another context
 * made after the same init (which Go accepted): kept too, their outcome
 * known. 1: kept; 0: Go must take them (the record goes on when it does).
 */
static int sets_keep(struct cptprov_sig *s, const OSSL_PARAM params[])
{
    const struct cptprov_sig_init_seen *e;
    size_t n = s->sets_len;

    if (s->slot < 0 || !s->sets_ok || atomic_load(&s->key->material) != s->material)
        return 0;
    if (!sets_append(s->sets, &n, params)) {
        s->sets_ok = 0;
        return 0;
    }
    e = &s->key->sig_inits[s->slot];
    if (!s->pending.valid || atomic_load_explicit(&e->sets_state, memory_order_acquire) != 2
        || n > e->sets_len
        || memcmp(e->sets + s->sets_len, s->sets + s->sets_len, n - s->sets_len) != 0
        || !kept_bind(s, n))
        return 0;
    s->sets_len = n;
    return 1;
}

static int sig_init(struct cptprov_sig *s, void *vkey, int op, int stream, const char *mdname,
    const OSSL_PARAM params[])
{
    struct cptprov_key *k = vkey;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;
    const char *md = mdname != NULL ? mdname : "";
    int plain = params == NULL || params[0].key == NULL;

    if (k != NULL) {
        if ((s->keytypes & (1u << cptprov_key_type_id(k))) == 0) {
            CPT_RAISE(s->prov, CPT_R_INVALID_KEY, "the key is not of this signature's type");
            return 0;
        }
        cptprov_key_up_ref(k);
        cptprov_key_free(s->key);
        s->key = k;
    }
    if (s->key == NULL) {
        CPT_RAISE(s->prov, CPT_R_MISSING_KEY, "no key");
        return 0;
    }
    s->op = 0;
    s->pending.valid = 0;
    s->pending.params = NULL;
    s->slot = -1;
    s->material = atomic_load(&s->key->material);
    s->sets_len = 0;
    s->sets_ok = plain;
    if (plain && (s->slot = init_seen(s->key, s->alg, op, stream, md)) >= 0) {
        s->pending.op = op;
        s->pending.stream = stream;
        strcpy(s->pending.mdname, md); /* init_seen: it fits */
        s->pending.valid = 1;
        s->op = op;
        return 1;
    }
    if ((api = cptprov_go(s->prov)) == NULL)
        return 0;
    if (api->sig_init(s->alg, s->state, s->key->state, op, stream, mdname, params, &st) != CPT_OK) {
        cptprov_raise_status(s->prov, &st, "signature_init");
        return 0;
    }
    if (plain)
        s->slot = init_remember(s->key, s->alg, op, stream, md);
    s->op = op;
    return 1;
}

static int cptprov_sign_init(void *vs, void *key, const OSSL_PARAM params[])
{
    return sig_init(vs, key, CPT_OP_SIGN, 0, NULL, params);
}

static int cptprov_verify_init(void *vs, void *key, const OSSL_PARAM params[])
{
    return sig_init(vs, key, CPT_OP_VERIFY, 0, NULL, params);
}

static int cptprov_verify_recover_init(void *vs, void *key, const OSSL_PARAM params[])
{
    return sig_init(vs, key, CPT_OP_VERIFY, 0, NULL, params);
}

static int cptprov_verify_recover(void *vs, unsigned char *rout, size_t *routlen, size_t routsize,
    const unsigned char *sig, size_t siglen)
{
    struct cptprov_sig *s = vs;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api = cptprov_go(s->prov);

    if (api == NULL || s->key == NULL)
        return 0;
    if (api->sig_verify_recover(s->alg, s->state, &s->pending, s->key->state, rout, routlen,
            routsize, sig, siglen, &st)
        != CPT_OK) {
        cptprov_raise_status(s->prov, &st, "verify_recover");
        return 0;
    }
    return 1;
}

static int cptprov_digest_sign_init(void *vs, const char *mdname, void *key,
    const OSSL_PARAM params[])
{
    return sig_init(vs, key, CPT_OP_SIGN, 1, mdname, params);
}

static int cptprov_digest_verify_init(void *vs, const char *mdname, void *key,
    const OSSL_PARAM params[])
{
    return sig_init(vs, key, CPT_OP_VERIFY, 1, mdname, params);
}

static int sign(struct cptprov_sig *s, unsigned char *sig, size_t *siglen, size_t sigsize,
    const unsigned char *tbs, size_t tbslen, int final)
{
    const struct cptgo_api *api;
    struct cpt_call call;
    size_t known;

    if (s->key == NULL)
        return 0;
    if (sig == NULL && s->op == CPT_OP_SIGN && (known = atomic_load(&s->key->sig_size)) != 0) {
        *siglen = known;
        return 1;
    }
    api = cptprov_go(s->prov);
    if (!cptprov_call_begin(&call, s->prov, api, sig != NULL)
        || !cptprov_finish(&call,
            api->sig_sign(s->alg, s->state, &s->pending, s->key->state, s->scratch, sig, siglen,
                sigsize, tbs, tbslen, final, call.n, &call.st),
            siglen, final ? "digest_sign_final" : "sign"))
        return 0;
    if (sig == NULL && s->op == CPT_OP_SIGN)
        atomic_store(&s->key->sig_size, *siglen);
    else
        sets_remember(s);
    return 1;
}

static int verify(struct cptprov_sig *s, const unsigned char *sig, size_t siglen,
    const unsigned char *tbs, size_t tbslen, int final)
{
    const struct cptgo_api *api = cptprov_go(s->prov);
    struct cpt_call call;

    if (s->key == NULL || !cptprov_call_begin(&call, s->prov, api, 1)
        || !cptprov_finish(&call,
            api->sig_verify(s->alg, s->state, &s->pending, s->key->state, s->scratch, sig, siglen,
                tbs, tbslen, final, call.n, &call.st),
            NULL, final ? "digest_verify_final" : "verify"))
        return 0;
    sets_remember(s);
    return 1;
}

static int cptprov_sign(void *vs, unsigned char *sig, size_t *siglen, size_t sigsize,
    const unsigned char *tbs, size_t tbslen)
{
    return sign(vs, sig, siglen, sigsize, tbs, tbslen, 0);
}

static int cptprov_verify(void *vs, const unsigned char *sig, size_t siglen,
    const unsigned char *tbs, size_t tbslen)
{
    return verify(vs, sig, siglen, tbs, tbslen, 0);
}

static int cptprov_digest_update(void *vs, const unsigned char *data, size_t len)
{
    struct cptprov_sig *s = vs;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api = cptprov_go(s->prov);

    if (api == NULL)
        return 0;
    if (api->sig_update(s->alg, s->state, &s->pending, key_state(s), data, len, &st) != CPT_OK) {
        cptprov_raise_status(s->prov, &st, "digest_update");
        return 0;
    }
    return 1;
}

static int cptprov_digest_sign_final(void *vs, unsigned char *sig, size_t *siglen, size_t sigsize)
{
    return sign(vs, sig, siglen, sigsize, NULL, 0, 1);
}

static int cptprov_digest_verify_final(void *vs, const unsigned char *sig, size_t siglen)
{
    return verify(vs, sig, siglen, NULL, 0, 1);
}

/* One-shot forms, as libssl calls them (EVP_DigestSign, EVP_DigestVerify):
 * the message and the signature in one call into Go. */
static int cptprov_digest_sign(void *vs, unsigned char *sig, size_t *siglen, size_t sigsize,
    const unsigned char *tbs, size_t tbslen)
{
    if (sig == NULL)
        return cptprov_digest_sign_final(vs, NULL, siglen, sigsize);
    return sign(vs, sig, siglen, sigsize, tbs != NULL ? tbs : (const unsigned char *)"", tbslen, 1);
}

static int cptprov_digest_verify(void *vs, const unsigned char *sig, size_t siglen,
    const unsigned char *tbs, size_t tbslen)
{
    return verify(vs, sig, siglen, tbs != NULL ? tbs : (const unsigned char *)"", tbslen, 1);
}

static int sig_params(struct cptprov_sig *s, OSSL_PARAM params[], int set)
{
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;
    int rc;

    if (params == NULL || params[0].key == NULL || (set && sets_keep(s, params)))
        return 1;
    if ((api = cptprov_go(s->prov)) == NULL)
        return 0;
    rc = set ? api->sig_set_params(s->alg, s->state, &s->pending, key_state(s), params, &st)
             : api->sig_get_params(s->alg, s->state, &s->pending, key_state(s), params, &st);
    if (rc != CPT_OK) {
        cptprov_raise_status(s->prov, &st,
            set ? "signature_set_ctx_params" : "signature_get_ctx_params");
        s->sets_ok = 0;
        return 0;
    }
    if (set && s->sets_ok)
        s->sets_ok = sets_append(s->sets, &s->sets_len, params);
    return 1;
}

static int cptprov_sig_get_params(void *vs, OSSL_PARAM params[])
{
    return sig_params(vs, params, 0);
}

static int cptprov_sig_set_params(void *vs, const OSSL_PARAM params[])
{
    return sig_params(vs, (OSSL_PARAM *)params, 1);
}

/* The parameter lists of OpenSSL's own ECDSA. */
static const OSSL_PARAM ecdsa_gettable[] = {
    OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, NULL, 0),
    OSSL_PARAM_size_t(OSSL_SIGNATURE_PARAM_DIGEST_SIZE, NULL),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0), OSSL_PARAM_END
};
static const OSSL_PARAM ecdsa_settable[] = { OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST,
                                                 NULL, 0),
    OSSL_PARAM_size_t(OSSL_SIGNATURE_PARAM_DIGEST_SIZE, NULL),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PROPERTIES, NULL, 0), OSSL_PARAM_END };

/* EXTRA: further dispatch entries of the scheme (may be empty). */
#define CPTPROV_SIGNATURE(lc, ALG, KEYTYPE, GETTABLE, SETTABLE, EXTRA)                             \
    static void *cptprov_##lc##_newctx(void *provctx, const char *propq)                           \
    {                                                                                              \
        (void)propq;                                                                               \
        return sig_new(provctx, ALG, KEYTYPE);                                                     \
    }                                                                                              \
    static const OSSL_PARAM *cptprov_##lc##_gettable(void *vs, void *provctx)                      \
    {                                                                                              \
        (void)vs;                                                                                  \
        (void)provctx;                                                                             \
        return GETTABLE;                                                                           \
    }                                                                                              \
    static const OSSL_PARAM *cptprov_##lc##_settable(void *vs, void *provctx)                      \
    {                                                                                              \
        (void)vs;                                                                                  \
        (void)provctx;                                                                             \
        return SETTABLE;                                                                           \
    }                                                                                              \
    static const OSSL_DISPATCH cptprov_##lc##_signature_functions[] = {                            \
        CPT_FN(SIGNATURE_NEWCTX, signature_newctx, cptprov_##lc##_newctx),                         \
        CPT_FN(SIGNATURE_FREECTX, signature_freectx, cptprov_sig_free),                            \
        CPT_FN(SIGNATURE_DUPCTX, signature_dupctx, cptprov_sig_dup),                               \
        CPT_FN(SIGNATURE_SIGN_INIT, signature_sign_init, cptprov_sign_init),                       \
        CPT_FN(SIGNATURE_SIGN, signature_sign, cptprov_sign),                                      \
        CPT_FN(SIGNATURE_VERIFY_INIT, signature_verify_init, cptprov_verify_init),                 \
        CPT_FN(SIGNATURE_VERIFY, signature_verify, cptprov_verify),                                \
        CPT_FN(SIGNATURE_DIGEST_SIGN_INIT, signature_digest_sign_init, cptprov_digest_sign_init),  \
        CPT_FN(SIGNATURE_DIGEST_SIGN_UPDATE, signature_digest_sign_update, cptprov_digest_update), \
        CPT_FN(SIGNATURE_DIGEST_SIGN_FINAL, signature_digest_sign_final,                           \
            cptprov_digest_sign_final),                                                            \
        CPT_FN(SIGNATURE_DIGEST_SIGN, signature_digest_sign, cptprov_digest_sign),                 \
        CPT_FN(SIGNATURE_DIGEST_VERIFY_INIT, signature_digest_verify_init,                         \
            cptprov_digest_verify_init),                                                           \
        CPT_FN(SIGNATURE_DIGEST_VERIFY_UPDATE, signature_digest_verify_update,                     \
            cptprov_digest_update),                                                                \
        CPT_FN(SIGNATURE_DIGEST_VERIFY_FINAL, signature_digest_verify_final,                       \
            cptprov_digest_verify_final),                                                          \
        CPT_FN(SIGNATURE_DIGEST_VERIFY, signature_digest_verify, cptprov_digest_verify),           \
        CPT_FN(SIGNATURE_GET_CTX_PARAMS, signature_get_ctx_params, cptprov_sig_get_params),        \
        CPT_FN(SIGNATURE_GETTABLE_CTX_PARAMS, signature_gettable_ctx_params,                       \
            cptprov_##lc##_gettable),                                                              \
        CPT_FN(SIGNATURE_SET_CTX_PARAMS, signature_set_ctx_params, cptprov_sig_set_params),        \
        CPT_FN(SIGNATURE_SETTABLE_CTX_PARAMS, signature_settable_ctx_params,                       \
            cptprov_##lc##_settable),                                                              \
        EXTRA CPT_FN_END                                                                           \
    };

CPTPROV_SIGNATURE(ecdsa, CPT_SIG_ECDSA, 1u << CPT_KEY_EC, ecdsa_gettable, ecdsa_settable, )

/* The parameter lists of OpenSSL's own RSA signatures. */
static const OSSL_PARAM rsa_gettable[] = { OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL,
                                               0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE, NULL, 0), OSSL_PARAM_END };
static const OSSL_PARAM rsa_settable[] = { OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL,
                                               0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PROPERTIES, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PAD_MODE, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_DIGEST, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_PROPERTIES, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, NULL, 0), OSSL_PARAM_END };

/* RSA signatures also carry their data: verify-recover. */
#define RSA_RECOVER                                                      \
    CPT_FN(SIGNATURE_VERIFY_RECOVER_INIT, signature_verify_recover_init, \
        cptprov_verify_recover_init),                                    \
        CPT_FN(SIGNATURE_VERIFY_RECOVER, signature_verify_recover, cptprov_verify_recover),

CPTPROV_SIGNATURE(rsa, CPT_SIG_RSA, (1u << CPT_KEY_RSA) | (1u << CPT_KEY_RSA_PSS), rsa_gettable,
    rsa_settable, RSA_RECOVER)

const OSSL_ALGORITHM cptprov_signatures[] = {
    { "ECDSA", CPTPROV_PROPS, cptprov_ecdsa_signature_functions, "ECDSA on the CPT" },
    { "RSA:rsaEncryption:1.2.840.113549.1.1.1", CPTPROV_PROPS, cptprov_rsa_signature_functions,
        "RSA signatures on the CPT" },
    { NULL, NULL, NULL, NULL }
};
