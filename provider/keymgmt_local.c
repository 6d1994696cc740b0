/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Key management answered in C, for the key types of TLS key shares. libssl
 * makes a share with some ten key-management calls around the two that
 * compute (the key pair's generation and the derivation): a parameter
 * generation, a group check, a template, the peer's public key set, its
 * public check, the sizes EVP caches of each key, the bytes of our public
 * key, the secret's size. Most are a few lines on the key's state (struct
 * cpt_x25519_key, struct cpt_ec_key), and each was a call into Go. The
 * common case is answered here; whatever else (an error to raise, a
 * parameter unknown here, anything that computes) returns -1 and goes to
 * Go, so that every refusal and its reason stay Go's.
 */
#include <string.h>
#include <strings.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include "cptprov.h"

static struct cpt_x25519_key *x25519(const struct cptprov_key *k)
{
    return (struct cpt_x25519_key *)k->state;
}

/*
 * The sizes EVP caches of every key it takes in and the public key's bytes
 * (pub NULL: the key has none, Go raises the error), the same questions of
 * both key types.
 */
static int sizes_and_pub(OSSL_PARAM params[], int bits, int secbits, int maxsize,
    const unsigned char *pub, size_t publen)
{
    for (OSSL_PARAM *p = params; p->key != NULL; p++) {
        int ok;

        if (strcmp(p->key, OSSL_PKEY_PARAM_BITS) == 0)
            ok = OSSL_PARAM_set_int(p, bits);
        else if (strcmp(p->key, OSSL_PKEY_PARAM_SECURITY_BITS) == 0)
            ok = OSSL_PARAM_set_int(p, secbits);
        else if (strcmp(p->key, OSSL_PKEY_PARAM_MAX_SIZE) == 0)
            ok = OSSL_PARAM_set_int(p, maxsize);
        else if (strcmp(p->key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY) == 0
            || strcmp(p->key, OSSL_PKEY_PARAM_PUB_KEY) == 0)
            ok = pub != NULL && OSSL_PARAM_set_octet_string(p, pub, publen);
        else
            ok = 0;
        if (!ok)
            return -1;
    }
    return 1;
}

static int x25519_get_params(const struct cptprov_key *k, OSSL_PARAM params[])
{
    const struct cpt_x25519_key *x = x25519(k);

    return sizes_and_pub(params, 253, 128, CPT_X25519_LEN,
        (x->head.has & CPT_KEY_HAS_PUBLIC) != 0 ? x->pub : NULL, sizeof(x->pub));
}

static int x25519_set_params(struct cptprov_key *k, const OSSL_PARAM params[])
{
    struct cpt_x25519_key *x = x25519(k);
    const OSSL_PARAM *p = params;

    /* What libssl sends: the peer's key share, alone. */
    if (strcmp(p->key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY) != 0 || p[1].key != NULL
        || p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != CPT_X25519_LEN
        || p->data == NULL || x->head.aux != NULL)
        return -1;
    OPENSSL_cleanse(x->priv, sizeof(x->priv));
    memcpy(x->pub, p->data, sizeof(x->pub));
    x->head.has = CPT_KEY_HAS_PUBLIC;
    return 1;
}

/* A key pair's check recomputes the public key on the device: Go's. */
static int x25519_validate(const struct cptprov_key *k, int selection)
{
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0
        || ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0
            && (x25519(k)->head.has & CPT_KEY_HAS_PUBLIC) == 0))
        return -1;
    return 1;
}

static int x25519_gen_set_params(void *gen, const OSSL_PARAM params[])
{
    (void)gen;
    for (const OSSL_PARAM *p = params; p->key != NULL; p++)
        if (strcmp(p->key, OSSL_PKEY_PARAM_GROUP_NAME) != 0
            || p->data_type != OSSL_PARAM_UTF8_STRING || p->data == NULL || p->data_size != 6
            || strncasecmp(p->data, "x25519", 6) != 0)
            return -1;
    return 1;
}

/* X25519 has no domain parameters: a generation without key material makes
 * an empty key, and a template gives nothing. */
static int x25519_gen_template(void *gen, const struct cptprov_key *t)
{
    (void)gen;
    (void)t;
    return 1;
}

static int x25519_gen_domain(const void *gen, struct cptprov_key *k)
{
    (void)gen;
    (void)k;
    return 1;
}

static int x25519_secret_size(const struct cptprov_key *k, const struct cptprov_key *peer)
{
    if ((x25519(k)->head.has & CPT_KEY_HAS_PRIVATE) == 0
        || (x25519(peer)->head.has & CPT_KEY_HAS_PUBLIC) == 0)
        return -1;
    return CPT_X25519_LEN;
}

const struct cptprov_key_local cptprov_x25519_local = {
    .get_params = x25519_get_params,
    .set_params = x25519_set_params,
    .validate = x25519_validate,
    .gen_set_params = x25519_gen_set_params,
    .gen_template = x25519_gen_template,
    .gen_domain = x25519_gen_domain,
    .secret_size = x25519_secret_size,
};

/* EC on the named prime curves: Go wrote the group's sizes into the key. */
static struct cpt_ec_key *ec(const struct cptprov_key *k)
{
    return (struct cpt_ec_key *)k->state;
}

static int ec_get_params(const struct cptprov_key *k, OSSL_PARAM params[])
{
    const struct cpt_ec_key *e = ec(k);

    if (e->group.curve == 0)
        return -1;
    return sizes_and_pub(params, e->group.bits, e->group.secbits, e->group.siglen,
        (e->head.has & CPT_KEY_HAS_PUBLIC) != 0 ? e->pub : NULL, 1 + 2 * (size_t)e->group.bytelen);
}

/*
 * A public check has nothing to compute here: every public point a key
 * holds was checked on the curve when it was set (import, the peer's share)
 * or computed by the device (generation). A key pair's check recomputes
 * the point: Go's.
 */
static int ec_validate(const struct cptprov_key *k, int selection)
{
    const struct cpt_ec_key *e = ec(k);

    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 || e->group.curve == 0
        || ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0
            && (e->head.has & CPT_KEY_HAS_PUBLIC) == 0))
        return -1;
    return 1;
}

static int ec_gen_template(void *gen, const struct cptprov_key *t)
{
    if (ec(t)->group.curve == 0)
        return -1;
    ((struct cpt_ec_gen *)gen)->group = ec(t)->group;
    return 1;
}

static int ec_gen_domain(const void *gen, struct cptprov_key *k)
{
    const struct cpt_ec_gen *g = gen;

    if (g->group.curve == 0)
        return -1;
    ec(k)->group = g->group;
    ec(k)->head.has = CPT_KEY_HAS_DOMAIN;
    return 1;
}

static int ec_secret_size(const struct cptprov_key *k, const struct cptprov_key *peer)
{
    const struct cpt_ec_key *e = ec(k), *p = ec(peer);

    if ((e->head.has & CPT_KEY_HAS_PRIVATE) == 0 || (p->head.has & CPT_KEY_HAS_PUBLIC) == 0
        || e->group.curve == 0 || e->group.curve != p->group.curve)
        return -1;
    return e->group.bytelen;
}

/*
 * The groups Go has set by name in a generation, kept for the process (a
 * group's values are Go's constants): libssl names the group of every EC
 * key share. A name is kept as given; Go takes others (aliases, another
 * case) and they are kept in turn, while slots last.
 */
#define EC_NAMES 8
#define EC_NAME_MAX 32
static struct {
    atomic_int state; /* 0 free, 1 being written, 2 set */
    size_t len;
    char name[EC_NAME_MAX];
    struct cpt_ec_group group;
} ec_names[EC_NAMES];

/* The name of a generation's params that set only the group, or NULL. */
static const char *ec_group_name(const OSSL_PARAM params[], size_t *len)
{
    const OSSL_PARAM *p = params;

    if (strcmp(p->key, OSSL_PKEY_PARAM_GROUP_NAME) != 0 || p[1].key != NULL
        || p->data_type != OSSL_PARAM_UTF8_STRING || p->data == NULL || p->data_size == 0
        || p->data_size >= EC_NAME_MAX || strnlen(p->data, p->data_size) != p->data_size)
        return NULL;
    *len = p->data_size;
    return p->data;
}

static int ec_gen_set_params(void *gen, const OSSL_PARAM params[])
{
    size_t len;
    const char *name = ec_group_name(params, &len);

    for (int i = 0; name != NULL && i < EC_NAMES; i++)
        if (atomic_load_explicit(&ec_names[i].state, memory_order_acquire) == 2
            && ec_names[i].len == len && memcmp(ec_names[i].name, name, len) == 0) {
            ((struct cpt_ec_gen *)gen)->group = ec_names[i].group;
            return 1;
        }
    return -1;
}

static void ec_gen_learn(const void *gen, const OSSL_PARAM params[])
{
    const struct cpt_ec_gen *g = gen;
    size_t len;
    const char *name = ec_group_name(params, &len);
    struct cpt_ec_gen probe;

    if (name == NULL || g->group.curve == 0 || ec_gen_set_params(&probe, params) == 1)
        return;
    for (int i = 0; i < EC_NAMES; i++) {
        int free_slot = 0;

        if (atomic_compare_exchange_strong(&ec_names[i].state, &free_slot, 1)) {
            ec_names[i].len = len;
            memcpy(ec_names[i].name, name, len);
            ec_names[i].group = g->group;
            atomic_store_explicit(&ec_names[i].state, 2, memory_order_release);
            return;
        }
    }
}

const struct cptprov_key_local cptprov_ec_local = {
    .get_params = ec_get_params,
    .validate = ec_validate,
    .gen_set_params = ec_gen_set_params,
    .gen_learn = ec_gen_learn,
    .gen_template = ec_gen_template,
    .gen_domain = ec_gen_domain,
    .secret_size = ec_secret_size,
};
