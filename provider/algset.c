/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The algorithms cptprov offers: the `algorithms` key of its openssl.cnf
 * section, applied once at activation to the static tables of every
 * operation type. query_operation and get_capabilities then only hand out
 * what was computed here. Plain table work: no Go, no allocation per call.
 *
 * The rule (docs/configuration.md, the `algorithms` key):
 *  - the value is a list of entries separated by commas and/or spaces; an
 *    entry is `all`, a name, or `-name`; a list whose first entry is `all`
 *    or a removal starts from everything, any other from nothing, and the
 *    entries apply in order;
 *  - a name selects every entry of every operation type that has it among
 *    its colon-separated names, without regard to case (`RSA`: the key
 *    management, the signature and the asymmetric cipher);
 *  - an operation on keys (signature, key exchange, asymmetric cipher)
 *    needs the key managements whose keys OpenSSL hands to it: those whose
 *    query_operation_name for that operation type is one of its names
 *    (ECDSA and ECDH: EC; X25519: X25519; the RSA signature: RSA and
 *    RSA-PSS; the RSA cipher: RSA). OpenSSL 3.0 runs a provider's
 *    operation only on keys of that provider's key management (without
 *    one, the operation is passed over or fails, depending on the
 *    release), so adding an operation adds them, and removing a key
 *    management removes the operations that need it;
 *  - a TLS group is advertised when its key management is offered. libssl
 *    3.0 keeps a group only from the provider whose key management its
 *    fetch returns, so a group of an offered key management must be
 *    advertised, or TLS loses it altogether (with the EC key management
 *    kept for ECDSA but ECDH taken away: "group 'P-256' cannot be set").
 *    The key exchange is fetched on its own, and when cptprov does not
 *    offer it OpenSSL runs it in another provider on the exported key.
 * An unknown name, or nothing left to offer, refuses activation.
 */

#include <stdio.h>
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include "cptprov.h"

/* The tables of cptprov's operation types, in the order of optables. */
enum { T_CIPHER, T_DIGEST, T_MAC, T_KEYMGMT, T_KEYEXCH, T_SIGNATURE, T_ASYM_CIPHER, NTABLES };

/*
 * The ciphers, the stitched ones included, by the names and aliases the
 * default provider gives them (algorithms.def). Here rather than in
 * cipher.c, so that cipher.c and stitched.c do not need each other.
 */
const OSSL_ALGORITHM cptprov_ciphers[] = {
#define CPT_CIPHER(ID, num, name, aliases, family, keylen) \
    { name aliases, CPTPROV_PROPS, cptprov_##ID##_functions, name " on the CPT" },
#define CPT_STITCHED(ID, num, name, family, keylen, digest) \
    { name, CPTPROV_PROPS, cptprov_##ID##_functions,        \
        name " on the CPT (TLS records: one chained instruction)" },
#include "algorithms.def"
    { NULL, NULL, NULL, NULL }
};

static const struct {
    int operation_id;
    const OSSL_ALGORITHM *all;
} optables[NTABLES] = {
    [T_CIPHER] = { OSSL_OP_CIPHER, cptprov_ciphers },
    [T_DIGEST] = { OSSL_OP_DIGEST, cptprov_digests },
    [T_MAC] = { OSSL_OP_MAC, cptprov_macs },
    [T_KEYMGMT] = { OSSL_OP_KEYMGMT, cptprov_keymgmts },
    [T_KEYEXCH] = { OSSL_OP_KEYEXCH, cptprov_keyexchs },
    [T_SIGNATURE] = { OSSL_OP_SIGNATURE, cptprov_signatures },
    [T_ASYM_CIPHER] = { OSSL_OP_ASYM_CIPHER, cptprov_asym_ciphers },
};

/* Entries per table the selection can hold (cipher.c has the most: 16). */
#define MAX_PER_TABLE 64

/* What the entries of the value chose so far: on[table][entry]. */
struct selection {
    unsigned char on[NTABLES][MAX_PER_TABLE];
};

struct cptprov_algset {
    /* Per table: the offered entries, copied, ending with a NULL entry. */
    OSSL_ALGORITHM *offered[NTABLES];
};

static size_t table_size(int t)
{
    size_t n = 0;

    while (optables[t].all[n].algorithm_names != NULL)
        n++;
    return n;
}

/* Whether the len bytes at name are one of alg's names. */
static int has_name(const OSSL_ALGORITHM *alg, const char *name, size_t len)
{
    return cptprov_names_have(alg->algorithm_names, name, len);
}

static size_t first_name_len(const OSSL_ALGORITHM *alg)
{
    return strcspn(alg->algorithm_names, ":");
}

/*
 * The name of the operation of type operation_id that OpenSSL runs on keys
 * of key management km: what its query_operation_name answers, else its
 * first name (as evp_keymgmt_util_query_operation_name does).
 */
static const char *key_operation_name(const OSSL_ALGORITHM *km, int operation_id, size_t *len)
{
    const char *name = NULL;

    for (const OSSL_DISPATCH *d = km->implementation; d->function_id != 0; d++)
        if (d->function_id == OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME)
            name = OSSL_FUNC_keymgmt_query_operation_name(d)(operation_id);
    if (name == NULL) {
        *len = first_name_len(km);
        return km->algorithm_names;
    }
    *len = strlen(name);
    return name;
}

static int on_keys(int t)
{
    return t == T_KEYEXCH || t == T_SIGNATURE || t == T_ASYM_CIPHER;
}

/* Whether entry i of table t (an operation on keys) needs key management k. */
static int needs_keymgmt(int t, size_t i, size_t k)
{
    const char *name;
    size_t len;

    if (!on_keys(t))
        return 0;
    name = key_operation_name(&cptprov_keymgmts[k], optables[t].operation_id, &len);
    return has_name(&optables[t].all[i], name, len);
}

static void select_all(struct selection *s, int on)
{
    memset(s->on, on, sizeof(s->on));
}

static void select_with_keymgmts(struct selection *s, int t, size_t i)
{
    s->on[t][i] = 1;
    for (size_t k = 0, nk = table_size(T_KEYMGMT); k < nk; k++)
        if (needs_keymgmt(t, i, k))
            s->on[T_KEYMGMT][k] = 1;
}

static void deselect_with_dependents(struct selection *s, int t, size_t i)
{
    s->on[t][i] = 0;
    if (t != T_KEYMGMT)
        return;
    for (int u = 0; u < NTABLES; u++)
        for (size_t j = 0, n = table_size(u); j < n; j++)
            if (needs_keymgmt(u, j, i))
                s->on[u][j] = 0;
}

/* Applies one entry of the value; 0 when it names nothing cptprov has. */
static int apply_entry(struct selection *s, const char *entry)
{
    int add = entry[0] != '-';
    const char *name = add ? entry : entry + 1;
    int found = 0;

    if (OPENSSL_strcasecmp(name, "all") == 0) {
        select_all(s, add);
        return 1;
    }
    for (int t = 0; t < NTABLES; t++)
        for (size_t i = 0, n = table_size(t); i < n; i++) {
            if (!has_name(&optables[t].all[i], name, strlen(name)))
                continue;
            found = 1;
            if (add)
                select_with_keymgmts(s, t, i);
            else
                deselect_with_dependents(s, t, i);
        }
    return found;
}

/* Whether an entry before entry i of table t has its first name (RSA, X25519). */
static int named_before(int t, size_t i)
{
    const OSSL_ALGORITHM *alg = &optables[t].all[i];

    for (int u = 0; u <= t; u++)
        for (size_t j = 0, n = u < t ? table_size(u) : i; j < n; j++)
            if (has_name(&optables[u].all[j], alg->algorithm_names, first_name_len(alg)))
                return 1;
    return 0;
}

/* The names an entry may use: each algorithm's first name, once. */
static void accepted_names(char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int t = 0; t < NTABLES; t++)
        for (size_t i = 0, n = table_size(t); i < n && used < len; i++) {
            const OSSL_ALGORITHM *alg = &optables[t].all[i];

            if (!named_before(t, i))
                used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used > 0 ? ", " : "",
                    (int)first_name_len(alg), alg->algorithm_names);
        }
}

/* Why the value was refused (problem), and what the key accepts. */
static void explain(const char *problem, char *why, size_t whylen)
{
    char names[600];

    accepted_names(names, sizeof(names));
    snprintf(why, whylen,
        "%s: use all, NAME or -NAME, separated by commas or spaces, NAME one of %s (or one of "
        "their "
        "aliases)",
        problem, names);
}

static void explain_unknown(const char *entry, char *why, size_t whylen)
{
    char problem[128];

    snprintf(problem, sizeof(problem), "%s is not an algorithm of cptprov", entry);
    explain(problem, why, whylen);
}

/* Applies the value's entries in order; 0 (why filled in) on an unknown one. */
static int apply_value(struct selection *s, const char *value, char *why, size_t whylen)
{
    static const char separators[] = ", \t";
    char *copy = OPENSSL_strdup(value), *save = NULL, *entry;
    int ok = copy != NULL;

    if (!ok)
        snprintf(why, whylen, "out of memory");
    entry = ok ? strtok_r(copy, separators, &save) : NULL;
    /* A list that begins by taking away, or with all, takes away from everything. */
    select_all(s, entry != NULL && (entry[0] == '-' || OPENSSL_strcasecmp(entry, "all") == 0));
    for (; ok && entry != NULL; entry = strtok_r(NULL, separators, &save))
        if (!(ok = apply_entry(s, entry)))
            explain_unknown(entry, why, whylen);
    OPENSSL_free(copy);
    return ok;
}

static int nothing_selected(const struct selection *s)
{
    for (int t = 0; t < NTABLES; t++)
        for (size_t i = 0, n = table_size(t); i < n; i++)
            if (s->on[t][i])
                return 0;
    return 1;
}

/* A NULL-terminated copy of the selected entries of table t. */
static OSSL_ALGORITHM *copy_selected(const struct selection *s, int t)
{
    size_t n = table_size(t), kept = 0;
    OSSL_ALGORITHM *out = OPENSSL_zalloc((n + 1) * sizeof(*out));

    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (s->on[t][i])
            out[kept++] = optables[t].all[i];
    return out;
}

void cptprov_algset_free(struct cptprov_algset *a)
{
    if (a == NULL)
        return;
    for (int t = 0; t < NTABLES; t++)
        OPENSSL_free(a->offered[t]);
    OPENSSL_free(a);
}

static struct cptprov_algset *algset_from(const struct selection *s)
{
    struct cptprov_algset *a = OPENSSL_zalloc(sizeof(*a));
    int ok = a != NULL;

    for (int t = 0; ok && t < NTABLES; t++)
        ok = (a->offered[t] = copy_selected(s, t)) != NULL;
    if (!ok) {
        cptprov_algset_free(a);
        return NULL;
    }
    return a;
}

static int tables_fit(char *why, size_t whylen)
{
    for (int t = 0; t < NTABLES; t++)
        if (table_size(t) > MAX_PER_TABLE) {
            snprintf(why, whylen, "internal error: more than %d algorithms of one operation type",
                MAX_PER_TABLE);
            return 0;
        }
    return 1;
}

struct cptprov_algset *cptprov_algset_new(const char *value, char *why, size_t whylen)
{
    struct selection s;
    struct cptprov_algset *a;

    if (!tables_fit(why, whylen))
        return NULL;
    if (value == NULL)
        select_all(&s, 1);
    else if (!apply_value(&s, value, why, whylen))
        return NULL;
    if (nothing_selected(&s)) {
        explain("it leaves cptprov no algorithm to offer", why, whylen);
        return NULL;
    }
    if ((a = algset_from(&s)) == NULL)
        snprintf(why, whylen, "out of memory");
    return a;
}

const OSSL_ALGORITHM *cptprov_algset_query(const struct cptprov_algset *a, int operation_id)
{
    for (int t = 0; t < NTABLES; t++)
        if (optables[t].operation_id == operation_id)
            return a->offered[t];
    return NULL;
}

/* The caller's callback, and the key managements whose groups pass. */
struct group_filter {
    OSSL_CALLBACK *cb;
    void *arg;
    const OSSL_ALGORITHM *keymgmts;
};

/* Passes a TLS group on when its key management is offered. */
static int filter_group(const OSSL_PARAM params[], void *arg)
{
    const struct group_filter *f = arg;
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_CAPABILITY_TLS_GROUP_ALG);
    const char *alg = NULL;

    if (p == NULL || !OSSL_PARAM_get_utf8_string_ptr(p, &alg))
        return 0;
    for (const OSSL_ALGORITHM *km = f->keymgmts; km->algorithm_names != NULL; km++)
        if (has_name(km, alg, strlen(alg)))
            return f->cb(params, f->arg);
    return 1; /* not advertised; go on with the next group */
}

int cptprov_algset_tls_groups(const struct cptprov_algset *a, OSSL_CALLBACK *cb, void *arg)
{
    struct group_filter f = { cb, arg, a->offered[T_KEYMGMT] };

    return cptprov_tls_groups(filter_group, &f);
}
