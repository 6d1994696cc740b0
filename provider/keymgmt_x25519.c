/* SPDX-License-Identifier: Apache-2.0 */
/*
 * X25519 key management answered in C. libssl makes a TLS key share with
 * nine key-management calls around the two that compute (the key pair's
 * generation and the derivation): a parameter generation that makes an empty
 * key, a group check, a template, the peer's public key set, its public
 * check, and the sizes and bytes of our public key. Each is a few lines on
 * the key's state, and each was a call into Go. The common case is answered
 * here; whatever else (an error to raise, a parameter unknown here) returns
 * -1 and goes to Go, so that every refusal and its reason stay Go's.
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

static int x25519_get_params(const struct cptprov_key *k, OSSL_PARAM params[])
{
    const struct cpt_x25519_key *x = x25519(k);

    for (OSSL_PARAM *p = params; p->key != NULL; p++) {
        int ok;

        if (strcmp(p->key, OSSL_PKEY_PARAM_BITS) == 0)
            ok = OSSL_PARAM_set_int(p, 253);
        else if (strcmp(p->key, OSSL_PKEY_PARAM_SECURITY_BITS) == 0)
            ok = OSSL_PARAM_set_int(p, 128);
        else if (strcmp(p->key, OSSL_PKEY_PARAM_MAX_SIZE) == 0)
            ok = OSSL_PARAM_set_int(p, CPT_X25519_LEN);
        else if (strcmp(p->key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY) == 0
            || strcmp(p->key, OSSL_PKEY_PARAM_PUB_KEY) == 0)
            ok = (x->head.has & CPT_KEY_HAS_PUBLIC) != 0
                && OSSL_PARAM_set_octet_string(p, x->pub, sizeof(x->pub));
        else
            ok = 0;
        if (!ok)
            return -1;
    }
    return 1;
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

static int x25519_gen_set_params(const OSSL_PARAM params[])
{
    for (const OSSL_PARAM *p = params; p->key != NULL; p++)
        if (strcmp(p->key, OSSL_PKEY_PARAM_GROUP_NAME) != 0
            || p->data_type != OSSL_PARAM_UTF8_STRING || p->data == NULL || p->data_size != 6
            || strncasecmp(p->data, "x25519", 6) != 0)
            return -1;
    return 1;
}

/* X25519 has no domain parameters: a generation without key material makes
 * an empty key, and a template gives nothing. */
const struct cptprov_key_local cptprov_x25519_local = {
    .get_params = x25519_get_params,
    .set_params = x25519_set_params,
    .validate = x25519_validate,
    .gen_set_params = x25519_gen_set_params,
    .no_domain = 1,
};
