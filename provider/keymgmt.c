/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Key management: one generic skeleton; each key type is a row built by
 * CPTPROV_KEYMGMT(). Key objects are C memory whose state Go lays out, with
 * a head (struct cpt_key_head) the C side reads: "has", duplication and
 * freeing never call Go, and a key survives fork() like any C data.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include "cptprov.h"
#include "dispatch.h"

struct cptprov_keytype {
    int id; /* CPT_KEY_* */
    size_t state_size;
    int implicit_domain; /* the type has no domain parameters to set (X25519, RSA) */
    const char *exch_name, *sig_name; /* what query_operation_name answers (NULL: none) */
    const OSSL_PARAM *key_types, *gettable, *settable, *gen_settable;
    const struct cptprov_key_local *local; /* what C answers (NULL: Go answers all) */
};

struct cptprov_keygen {
    struct cptprov_ctx *prov;
    const struct cptprov_keytype *kt;
    int selection;
    unsigned char state[CPT_KEY_STATE_SIZE] __attribute__((aligned(16)));
};

static struct cpt_key_head *head(const struct cptprov_key *k)
{
    return (struct cpt_key_head *)k->state;
}

int cptprov_key_type_id(const struct cptprov_key *k)
{
    return k->kt->id;
}

const struct cptprov_key_local *cptprov_key_local(const struct cptprov_key *k)
{
    return k->kt->local;
}

/* The C answer of a key type's hook, -1 (Go answers) if it has none. */
#define LOCAL(kt, fn, ...) \
    ((kt)->local != NULL && (kt)->local->fn != NULL ? (kt)->local->fn(__VA_ARGS__) : -1)

void cptprov_key_material_changes(struct cptprov_key *k)
{
    atomic_store(&k->sig_size, 0);
    atomic_fetch_add(&k->material, 1);
    for (int i = 0; i < CPTPROV_KEY_SIG_INITS; i++) {
        atomic_store(&k->sig_inits[i].state, 0);
        atomic_store(&k->sig_inits[i].sets_state, 0);
    }
}

int cptprov_key_up_ref(struct cptprov_key *k)
{
    atomic_fetch_add(&k->refs, 1);
    return 1;
}

void cptprov_key_free(void *vk)
{
    struct cptprov_key *k = vk;

    if (k != NULL && atomic_fetch_sub(&k->refs, 1) == 1) {
        if (head(k)->aux != NULL)
            head(k)->aux->free(head(k)->aux);
        OPENSSL_clear_free(k, sizeof(*k) + k->size);
    }
}

static struct cptprov_key *key_new(struct cptprov_ctx *prov, const struct cptprov_keytype *kt)
{
    struct cptprov_key *k = OPENSSL_zalloc(sizeof(*k) + kt->state_size);

    if (k != NULL) {
        k->prov = prov;
        k->kt = kt;
        k->size = kt->state_size;
        atomic_init(&k->refs, 1);
        head(k)->type = (uint32_t)kt->id;
    }
    return k;
}

int cptprov_key_has(const void *vk, int selection)
{
    const struct cptprov_key *k = vk;
    int ok = k != NULL;

    if (ok && (selection & OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS) != 0 && !k->kt->implicit_domain)
        ok = (head(k)->has & CPT_KEY_HAS_DOMAIN) != 0;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0)
        ok = (head(k)->has & CPT_KEY_HAS_PUBLIC) != 0;
    if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0)
        ok = (head(k)->has & CPT_KEY_HAS_PRIVATE) != 0;
    return ok;
}

/* A copy; without the private selection the copy does not have the private part. */
static void *cptprov_key_dup(const void *vk, int selection)
{
    const struct cptprov_key *k = vk;
    struct cptprov_key *d = key_new(k->prov, k->kt);

    if (d == NULL)
        return NULL;
    memcpy(d->state, k->state, k->size);
    head(d)->aux = NULL;
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0)
        head(d)->has &= ~(uint32_t)CPT_KEY_HAS_PRIVATE;
    if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) == 0
        && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0)
        head(d)->has &= CPT_KEY_HAS_DOMAIN;
    return d;
}

/* Calls into Go; each raises what Go reported. */
/* clang-format would take the macro's if for a statement of its own. */
/* clang-format off */
#define GO_OR_FAIL(p, api)                       \
    const struct cptgo_api *api = cptprov_go(p); \
    if (api == NULL)                             \
        return 0
/* clang-format on */

static int cptprov_key_match(const void *va, const void *vb, int selection)
{
    const struct cptprov_key *a = va, *b = vb;

    if (a->kt != b->kt)
        return 0;
    GO_OR_FAIL(a->prov, api);
    return api->key_match(a->kt->id, a->state, b->state, selection);
}

static int cptprov_key_validate(const void *vk, int selection, int checktype)
{
    const struct cptprov_key *k = vk;
    struct cpt_call call;

    (void)checktype;
    if (LOCAL(k->kt, validate, k, selection) == 1)
        return 1;
    if (!cptprov_call_begin(&call, k->prov, cptprov_go(k->prov), 0))
        return 0;
    return cptprov_finish(&call,
        call.api->key_validate(k->kt->id, (void *)k->state, selection, &call.st), NULL,
        "key_validate");
}

static int cptprov_key_import(void *vk, int selection, const OSSL_PARAM params[])
{
    struct cptprov_key *k = vk;
    struct cpt_call call;

    cptprov_key_material_changes(k);
    if (!cptprov_call_begin(&call, k->prov, cptprov_go(k->prov), 0))
        return 0;
    return cptprov_finish(&call,
        call.api->key_import(k->kt->id, k->state, selection, params, &call.st), NULL, "key_import");
}

static int cptprov_key_export(void *vk, int selection, OSSL_CALLBACK *cb, void *cbarg)
{
    struct cptprov_key *k = vk;
    struct cpt_status st = { 0, "" };

    GO_OR_FAIL(k->prov, api);
    if (api->key_export(k->kt->id, k->state, selection, (void *)cb, cbarg, &st) != CPT_OK) {
        if (st.reason != 0)
            cptprov_raise_status(k->prov, &st, "key_export");
        return 0;
    }
    return 1;
}

static int cptprov_key_get_params(void *vk, OSSL_PARAM params[])
{
    struct cptprov_key *k = vk;
    struct cpt_call call;

    if (params == NULL || params[0].key == NULL || LOCAL(k->kt, get_params, k, params) == 1)
        return 1;
    if (!cptprov_call_begin(&call, k->prov, cptprov_go(k->prov), 0))
        return 0;
    return cptprov_finish(&call, call.api->key_get_params(k->kt->id, k->state, params, &call.st),
        NULL, "key_get_params");
}

static int cptprov_key_set_params(void *vk, const OSSL_PARAM params[])
{
    struct cptprov_key *k = vk;
    struct cpt_call call;

    if (params == NULL || params[0].key == NULL)
        return 1;
    cptprov_key_material_changes(k);
    if (LOCAL(k->kt, set_params, k, params) == 1)
        return 1;
    if (!cptprov_call_begin(&call, k->prov, cptprov_go(k->prov), 0))
        return 0;
    return cptprov_finish(&call, call.api->key_set_params(k->kt->id, k->state, params, &call.st),
        NULL, "key_set_params");
}

static int cptprov_keygen_set_params(void *vg, const OSSL_PARAM params[])
{
    struct cptprov_keygen *g = vg;
    struct cpt_call call;

    if (params == NULL || params[0].key == NULL
        || LOCAL(g->kt, gen_set_params, g->state, params) == 1)
        return 1;
    if (!cptprov_call_begin(&call, g->prov, cptprov_go(g->prov), 0)
        || !cptprov_finish(&call,
            call.api->keygen_set_params(g->kt->id, g->state, params, &call.st), NULL,
            "keygen_set_params"))
        return 0;
    if (g->kt->local != NULL && g->kt->local->gen_learn != NULL)
        g->kt->local->gen_learn(g->state, params);
    return 1;
}

static void *keygen_init(void *provctx, const struct cptprov_keytype *kt, int selection,
    const OSSL_PARAM params[])
{
    struct cptprov_keygen *g = OPENSSL_zalloc(sizeof(*g));

    if (g == NULL)
        return NULL;
    g->prov = provctx;
    g->kt = kt;
    g->selection = selection;
    if (!cptprov_keygen_set_params(g, params)) {
        OPENSSL_clear_free(g, sizeof(*g));
        return NULL;
    }
    return g;
}

/* Generation runs on the device, asynchronously inside an ASYNC job. */
static void *cptprov_keygen(void *vg, OSSL_CALLBACK *cb, void *cbarg)
{
    struct cptprov_keygen *g = vg;
    struct cptprov_key *k;
    struct cpt_call call;
    const struct cptgo_api *api;

    (void)cb;
    (void)cbarg;
    if ((k = key_new(g->prov, g->kt)) == NULL)
        return NULL;
    if ((g->selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0
        && LOCAL(g->kt, gen_domain, g->state, k) == 1)
        return k;
    if ((api = cptprov_go(g->prov)) == NULL) {
        cptprov_key_free(k);
        return NULL;
    }
    cptprov_call_begin(&call, g->prov, api, 1);
    if (!cptprov_finish(&call,
            api->keygen(g->kt->id, g->state, k->state, g->selection, call.n, &call.st), NULL,
            "keygen")) {
        cptprov_key_free(k);
        return NULL;
    }
    return k;
}

static int cptprov_keygen_set_template(void *vg, void *vtemplate)
{
    struct cptprov_keygen *g = vg;
    struct cptprov_key *t = vtemplate;
    struct cpt_call call;

    if (t == NULL || t->kt != g->kt) {
        CPT_RAISE(g->prov, CPT_R_INVALID_KEY, "the template is not a key of this type");
        return 0;
    }
    if (LOCAL(g->kt, gen_template, g->state, t) == 1)
        return 1;
    if (!cptprov_call_begin(&call, g->prov, cptprov_go(g->prov), 0))
        return 0;
    return cptprov_finish(&call,
        call.api->keygen_set_template(g->kt->id, g->state, t->state, &call.st), NULL,
        "keygen_set_template");
}

static void cptprov_keygen_cleanup(void *vg)
{
    OPENSSL_clear_free(vg, sizeof(struct cptprov_keygen));
}

static const OSSL_PARAM *import_export_types(const struct cptprov_keytype *kt, int selection)
{
    return (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0 ? kt->key_types : NULL;
}

static const char *operation_name(const struct cptprov_keytype *kt, int operation_id)
{
    switch (operation_id) {
    case OSSL_OP_KEYEXCH:
        return kt->exch_name;
    case OSSL_OP_SIGNATURE:
        return kt->sig_name;
    case OSSL_OP_ASYM_CIPHER:
        return kt->id == CPT_KEY_RSA ? "RSA" : NULL;
    }
    return NULL;
}

/* One key type: its row, and the functions that bind the row. */
#define CPTPROV_KEYMGMT(lc, ID, SIZE, IMPLICIT, EXCH, SIG, KEYTYPES, GETTABLE, SETTABLE,           \
    GENSETTABLE, LOCAL)                                                                            \
    static const struct cptprov_keytype cptprov_##lc##_kt = { ID, SIZE, IMPLICIT, EXCH, SIG,       \
        KEYTYPES, GETTABLE, SETTABLE, GENSETTABLE, LOCAL };                                        \
    static void *cptprov_##lc##_new(void *provctx)                                                 \
    {                                                                                              \
        return key_new(provctx, &cptprov_##lc##_kt);                                               \
    }                                                                                              \
    static void *cptprov_##lc##_gen_init(void *provctx, int selection, const OSSL_PARAM params[])  \
    {                                                                                              \
        return keygen_init(provctx, &cptprov_##lc##_kt, selection, params);                        \
    }                                                                                              \
    static const OSSL_PARAM *cptprov_##lc##_types(int selection)                                   \
    {                                                                                              \
        return import_export_types(&cptprov_##lc##_kt, selection);                                 \
    }                                                                                              \
    static const OSSL_PARAM *cptprov_##lc##_gettable(void *provctx)                                \
    {                                                                                              \
        (void)provctx;                                                                             \
        return GETTABLE;                                                                           \
    }                                                                                              \
    static const OSSL_PARAM *cptprov_##lc##_settable(void *provctx)                                \
    {                                                                                              \
        (void)provctx;                                                                             \
        return SETTABLE;                                                                           \
    }                                                                                              \
    static const OSSL_PARAM *cptprov_##lc##_gen_settable(void *genctx, void *provctx)              \
    {                                                                                              \
        (void)genctx;                                                                              \
        (void)provctx;                                                                             \
        return GENSETTABLE;                                                                        \
    }                                                                                              \
    static const char *cptprov_##lc##_opname(int operation_id)                                     \
    {                                                                                              \
        return operation_name(&cptprov_##lc##_kt, operation_id);                                   \
    }                                                                                              \
    static const OSSL_DISPATCH cptprov_##lc##_keymgmt_functions[] = {                              \
        CPT_FN(KEYMGMT_NEW, keymgmt_new, cptprov_##lc##_new),                                      \
        CPT_FN(KEYMGMT_FREE, keymgmt_free, cptprov_key_free),                                      \
        CPT_FN(KEYMGMT_DUP, keymgmt_dup, cptprov_key_dup),                                         \
        CPT_FN(KEYMGMT_HAS, keymgmt_has, cptprov_key_has),                                         \
        CPT_FN(KEYMGMT_MATCH, keymgmt_match, cptprov_key_match),                                   \
        CPT_FN(KEYMGMT_VALIDATE, keymgmt_validate, cptprov_key_validate),                          \
        CPT_FN(KEYMGMT_IMPORT, keymgmt_import, cptprov_key_import),                                \
        CPT_FN(KEYMGMT_IMPORT_TYPES, keymgmt_import_types, cptprov_##lc##_types),                  \
        CPT_FN(KEYMGMT_EXPORT, keymgmt_export, cptprov_key_export),                                \
        CPT_FN(KEYMGMT_EXPORT_TYPES, keymgmt_export_types, cptprov_##lc##_types),                  \
        CPT_FN(KEYMGMT_GET_PARAMS, keymgmt_get_params, cptprov_key_get_params),                    \
        CPT_FN(KEYMGMT_GETTABLE_PARAMS, keymgmt_gettable_params, cptprov_##lc##_gettable),         \
        CPT_FN(KEYMGMT_SET_PARAMS, keymgmt_set_params, cptprov_key_set_params),                    \
        CPT_FN(KEYMGMT_SETTABLE_PARAMS, keymgmt_settable_params, cptprov_##lc##_settable),         \
        CPT_FN(KEYMGMT_GEN_INIT, keymgmt_gen_init, cptprov_##lc##_gen_init),                       \
        CPT_FN(KEYMGMT_GEN_SET_PARAMS, keymgmt_gen_set_params, cptprov_keygen_set_params),         \
        CPT_FN(KEYMGMT_GEN_SETTABLE_PARAMS, keymgmt_gen_settable_params,                           \
            cptprov_##lc##_gen_settable),                                                          \
        CPT_FN(KEYMGMT_GEN, keymgmt_gen, cptprov_keygen),                                          \
        CPT_FN(KEYMGMT_GEN_CLEANUP, keymgmt_gen_cleanup, cptprov_keygen_cleanup),                  \
        CPT_FN(KEYMGMT_GEN_SET_TEMPLATE, keymgmt_gen_set_template, cptprov_keygen_set_template),   \
        CPT_FN(KEYMGMT_QUERY_OPERATION_NAME, keymgmt_query_operation_name, cptprov_##lc##_opname), \
        CPT_FN_END                                                                                 \
    };

/* X25519, with the parameter lists of OpenSSL's own implementation. */
static const OSSL_PARAM x25519_key_types[] = { OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY,
                                                   NULL, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0), OSSL_PARAM_END };
static const OSSL_PARAM x25519_gettable[] = { OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0), OSSL_PARAM_END };
static const OSSL_PARAM x25519_settable[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0), OSSL_PARAM_END
};
static const OSSL_PARAM x25519_gen_settable[] = {
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0), OSSL_PARAM_END
};

CPTPROV_KEYMGMT(x25519, CPT_KEY_X25519, CPT_KEY_STATE_SIZE, 1, "X25519", NULL, x25519_key_types,
    x25519_gettable, x25519_settable, x25519_gen_settable, &cptprov_x25519_local)

/* EC on the named prime curves, with the parameter lists OpenSSL uses for them. */
static const OSSL_PARAM ec_key_types[] = { OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL,
                                               0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0), OSSL_PARAM_END };
static const OSSL_PARAM ec_gettable[] = { OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_DEFAULT_DIGEST, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0), OSSL_PARAM_END };
static const OSSL_PARAM ec_settable[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, NULL, 0), OSSL_PARAM_END
};
static const OSSL_PARAM ec_gen_settable[] = { OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
                                                  NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, NULL, 0), OSSL_PARAM_END };

CPTPROV_KEYMGMT(ec, CPT_KEY_EC, CPT_KEY_STATE_SIZE, 0, "ECDH", "ECDSA", ec_key_types, ec_gettable,
    ec_settable, ec_gen_settable, &cptprov_ec_local)

/* RSA, with the parameter lists of OpenSSL's own (two primes). */
static const OSSL_PARAM rsa_key_types[] = { OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_N, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, NULL, 0), OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_D, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_FACTOR1, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_FACTOR2, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_EXPONENT1, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_EXPONENT2, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_COEFFICIENT1, NULL, 0), OSSL_PARAM_END };
static const OSSL_PARAM rsa_gettable[] = { OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_DEFAULT_DIGEST, NULL, 0), OSSL_PARAM_END };
static const OSSL_PARAM rsa_settable[] = { OSSL_PARAM_END };
static const OSSL_PARAM rsa_gen_settable[] = { OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_BITS, NULL),
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, NULL),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, NULL, 0), OSSL_PARAM_END };

CPTPROV_KEYMGMT(rsa, CPT_KEY_RSA, CPT_KEY_STATE_SIZE_RSA, 1, NULL, "RSA", rsa_key_types,
    rsa_gettable, rsa_settable, rsa_gen_settable, NULL)

/* RSA-PSS: RSA keys for PSS only, with optional restrictions. */
#define PSS_RESTRICTIONS                                                  \
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_DIGEST, NULL, 0),          \
        OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MASKGENFUNC, NULL, 0), \
        OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST, NULL, 0), \
        OSSL_PARAM_int(OSSL_PKEY_PARAM_RSA_PSS_SALTLEN, NULL)
static const OSSL_PARAM rsapss_key_types[] = { OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_N, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, NULL, 0), OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_D, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_FACTOR1, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_FACTOR2, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_EXPONENT1, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_EXPONENT2, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_COEFFICIENT1, NULL, 0), PSS_RESTRICTIONS, OSSL_PARAM_END };
static const OSSL_PARAM rsapss_gen_settable[] = { OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_BITS, NULL),
    OSSL_PARAM_size_t(OSSL_PKEY_PARAM_RSA_PRIMES, NULL),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_RSA_E, NULL, 0), PSS_RESTRICTIONS, OSSL_PARAM_END };

CPTPROV_KEYMGMT(rsapss, CPT_KEY_RSA_PSS, CPT_KEY_STATE_SIZE_RSA, 1, NULL, "RSA", rsapss_key_types,
    rsa_gettable, rsa_settable, rsapss_gen_settable, NULL)

const OSSL_ALGORITHM cptprov_keymgmts[] = { { "RSA:rsaEncryption:1.2.840.113549.1.1.1",
                                                CPTPROV_PROPS, cptprov_rsa_keymgmt_functions,
                                                "RSA keys on the CPT" },
    { "RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10", CPTPROV_PROPS, cptprov_rsapss_keymgmt_functions,
        "RSA-PSS keys on the CPT" },
    { "X25519:1.3.101.110", CPTPROV_PROPS, cptprov_x25519_keymgmt_functions,
        "X25519 keys on the CPT" },
    { "EC:id-ecPublicKey:1.2.840.10045.2.1", CPTPROV_PROPS, cptprov_ec_keymgmt_functions,
        "EC keys on the CPT (NIST prime curves)" },
    { NULL, NULL, NULL, NULL } };

/*
 * TLS groups whose key management cptprov implements, with OpenSSL's own
 * names, ids and version ranges (providers/common/capabilities.c). OpenSSL
 * 3.0 keeps a group only if the key management fetched for it comes from
 * the provider that announced it, so each must be announced here.
 */
struct tls_group {
    unsigned int id, secbits;
    int mintls, maxtls, mindtls, maxdtls;
};
static const struct tls_group g_x25519 = { 0x001D, 128, 0x0301, 0, 0xFEFF, 0 },
                              g_p192 = { 0x0013, 80, 0x0301, 0x0303, 0xFEFF, 0xFEFD },
                              g_p224 = { 0x0015, 112, 0x0301, 0x0303, 0xFEFF, 0xFEFD },
                              g_p256 = { 0x0017, 128, 0x0301, 0, 0xFEFF, 0 },
                              g_p384 = { 0x0018, 192, 0x0301, 0, 0xFEFF, 0 },
                              g_p521 = { 0x0019, 256, 0x0301, 0, 0xFEFF, 0 };

#define TLS_GROUP(tlsname, realname, alg, g)                                              \
    {                                                                                     \
        OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME, tlsname, sizeof(tlsname)), \
            OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME_INTERNAL, realname,     \
                sizeof(realname)),                                                        \
            OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_ALG, alg, sizeof(alg)),      \
            OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_ID, (unsigned int *)&(g).id),       \
            OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_SECURITY_BITS,                      \
                (unsigned int *)&(g).secbits),                                            \
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_TLS, (int *)&(g).mintls),        \
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_TLS, (int *)&(g).maxtls),        \
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_DTLS, (int *)&(g).mindtls),      \
            OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_DTLS, (int *)&(g).maxdtls),      \
            OSSL_PARAM_END                                                                \
    }

static const OSSL_PARAM tls_groups[][10] = {
    TLS_GROUP("secp192r1", "prime192v1", "EC", g_p192),
    TLS_GROUP("P-192", "prime192v1", "EC", g_p192),
    TLS_GROUP("secp224r1", "secp224r1", "EC", g_p224),
    TLS_GROUP("P-224", "secp224r1", "EC", g_p224),
    TLS_GROUP("secp256r1", "prime256v1", "EC", g_p256),
    TLS_GROUP("P-256", "prime256v1", "EC", g_p256),
    TLS_GROUP("secp384r1", "secp384r1", "EC", g_p384),
    TLS_GROUP("P-384", "secp384r1", "EC", g_p384),
    TLS_GROUP("secp521r1", "secp521r1", "EC", g_p521),
    TLS_GROUP("P-521", "secp521r1", "EC", g_p521),
    TLS_GROUP("x25519", "X25519", "X25519", g_x25519),
};

int cptprov_tls_groups(OSSL_CALLBACK *cb, void *arg)
{
    for (size_t i = 0; i < sizeof(tls_groups) / sizeof(tls_groups[0]); i++)
        if (!cb(tls_groups[i], arg))
            return 0;
    return 1;
}
