/* SPDX-License-Identifier: Apache-2.0 */
/*
 * params_test - the parameters of RSA encryption (PKCS#1 v1.5, OAEP, none,
 * TLS) and RSA signatures (PKCS#1 v1.5, PSS, none) driven through cptprov
 * and OpenSSL's default provider alike, and failing calls of other kinds:
 * for every case both providers must accept, or both refuse at the same
 * step (init and parameters, encrypt/sign, decrypt/verify), and a refusal by
 * cptprov must put a reason on the error queue that is among the default
 * provider's reasons for the same call (evp_test and applications compare
 * reason strings). What either provider encrypts or signs, the other
 * decrypts or verifies.
 *
 *   enc      pad modes by number and by name, OAEP digests and MGF1 digests
 *            (SHA-1, SHA-2, SHA-3, unknown, XOF), labels (none, empty, NULL,
 *            10 KB, kept by EVP_PKEY_CTX_dup, read back with
 *            EVP_PKEY_CTX_get0_rsa_oaep_label), TLS client versions,
 *            implicit rejection (on, off, pad-mode 8; badly padded
 *            ciphertexts of 512 to 3072-bit keys decrypted to the same
 *            synthetic messages); parameters given at init and set after
 *   sig      pad modes, digests and MGF1 digests, salt lengths (numbers,
 *            digest/max/auto/auto-digestmax, negative, too large for the
 *            key, as integers and strings; the salt a PSS signature gets
 *            is as long as the default provider's), RSA-PSS keys'
 *            restrictions, key sizes too small
 *   errors   other refusals: an EC key whose halves do not match, a digest's
 *            size asked for as an octet string, HMAC over SHAKE128
 *   stats    with --stats-dir: cptprov's RSA counters moved
 *
 * Usage: params_test [--provider-path DIR] [common options]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>

#include "common.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
/* The case tables below leave the fields a case does not need zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static cpt_opts g_o;
static cpt_env g_env;
static int g_used_rsa;

/* Side 0 is the reference (the default provider alone), side 1 cptprov. */
struct side {
    OSSL_LIB_CTX *lc;
    const char *propq;
    const char *name;
};
static struct side g_side[2];

/* ================================================================== */
/* Outcomes                                                            */
/* ================================================================== */

#define MAX_REASONS 8

/* How a sequence of calls went: step 0 when every call succeeded, else the
 * step that failed and the reasons it left on the error queue. */
struct outcome {
    int step;
    int nreasons;
    char reasons[MAX_REASONS][80];
    unsigned char out[1024];
    size_t outlen;
};

static void take_errors(struct outcome *o)
{
    unsigned long e;

    o->nreasons = 0;
    while ((e = ERR_get_error()) != 0) {
        const char *r = ERR_reason_error_string(e);

        /* OpenSSL 3.5's EVP adds "provider asym cipher failure" (and the
         * like) after a failing provider call, for asymmetric ciphers when
         * the provider left nothing: EVP's word, no provider's reason. */
        if (ERR_GET_LIB(e) == ERR_LIB_EVP && r != NULL && strncmp(r, "provider ", 9) == 0
            && strlen(r) > 8 && strcmp(r + strlen(r) - 8, " failure") == 0)
            continue;
        if (o->nreasons < MAX_REASONS) {
            if (r != NULL)
                snprintf(o->reasons[o->nreasons], sizeof(o->reasons[0]), "%s", r);
            else
                snprintf(o->reasons[o->nreasons], sizeof(o->reasons[0]), "reason(%d)",
                    ERR_GET_REASON(e));
            o->nreasons++;
        }
    }
}

static int fail_at(struct outcome *o, int step)
{
    o->step = step;
    take_errors(o);
    return 0;
}

static void show(char *buf, size_t len, const struct outcome *o)
{
    size_t n = (size_t)snprintf(buf, len, "step %d", o->step);

    for (int i = 0; i < o->nreasons && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"", i == 0 ? " [" : ", ", o->reasons[i]);
    if (o->nreasons > 0 && n < len)
        snprintf(buf + n, len - n, "]");
}

/* Both sides stopped at the same step; a failure left a reason on
 * cptprov's queue, one of the default provider's when it left any. */
static void compare(const char *what, const struct outcome *ref, const struct outcome *cpt)
{
    char a[400], b[400];
    int match = ref->nreasons == 0;

    show(a, sizeof(a), ref);
    show(b, sizeof(b), cpt);
    cpt_check(ref->step == cpt->step, "%s: default %s, cptprov %s", what, a, b);
    if (ref->step == 0 || ref->step != cpt->step)
        return;
    cpt_check(cpt->nreasons > 0, "%s: cptprov refuses (%s) without a reason on the queue", what, b);
    for (int i = 0; i < cpt->nreasons && !match; i++)
        for (int j = 0; j < ref->nreasons && !match; j++)
            match = strcmp(cpt->reasons[i], ref->reasons[j]) == 0;
    cpt_check(match, "%s: reasons differ: default %s, cptprov %s", what, a, b);
}

/* The context is cptprov's on side 1 (EVP falls back to another provider
 * when a fetch or key export fails). */
static void check_owner(EVP_PKEY_CTX *c, int side, const char *what)
{
    const OSSL_PROVIDER *p = EVP_PKEY_CTX_get0_provider(c);
    const char *name = p != NULL ? OSSL_PROVIDER_get0_name(p) : "none";

    if (side == 1) {
        cpt_check(strcmp(name, g_side[1].name) == 0, "%s: the operation ran in %s, not %s", what,
            name, g_side[1].name);
        g_used_rsa = 1;
    }
}

/* ================================================================== */
/* Parameters                                                          */
/* ================================================================== */

/*
 * A parameter of a case: type 'i' int, 'u' unsigned int, 's' UTF-8
 * string, 'o' octet string s of i bytes, 'L' a 10 KB octet string,
 * 'N' an octet string with NULL data.
 */
struct pspec {
    const char *key;
    char type;
    const char *s;
    long i;
};
#define MAX_PARAMS 5

static unsigned char g_long_label[10240];

struct pbuf {
    OSSL_PARAM p[MAX_PARAMS + 1];
    int ival[MAX_PARAMS];
    unsigned int uval[MAX_PARAMS];
};

static const OSSL_PARAM *build(struct pbuf *b, const struct pspec *ps)
{
    int n = 0;

    for (; n < MAX_PARAMS && ps[n].key != NULL; n++) {
        const struct pspec *s = &ps[n];

        switch (s->type) {
        case 'i':
            b->ival[n] = (int)s->i;
            b->p[n] = OSSL_PARAM_construct_int(s->key, &b->ival[n]);
            break;
        case 'u':
            b->uval[n] = (unsigned int)s->i;
            b->p[n] = OSSL_PARAM_construct_uint(s->key, &b->uval[n]);
            break;
        case 's':
            b->p[n] = OSSL_PARAM_construct_utf8_string(s->key, (char *)s->s, 0);
            break;
        case 'o':
            b->p[n] = OSSL_PARAM_construct_octet_string(s->key, (void *)s->s, (size_t)s->i);
            break;
        case 'L':
            b->p[n] = OSSL_PARAM_construct_octet_string(s->key, g_long_label, sizeof(g_long_label));
            break;
        case 'N':
            b->p[n] = OSSL_PARAM_construct_octet_string(s->key, NULL, 0);
            break;
        }
    }
    b->p[n] = OSSL_PARAM_construct_end();
    return n > 0 ? b->p : NULL;
}

/* The label a case sets, for checking what get0_rsa_oaep_label returns. */
static int case_label(const struct pspec *ps, const unsigned char **l, size_t *len)
{
    int found = 0;

    for (int n = 0; n < MAX_PARAMS && ps[n].key != NULL; n++) {
        if (strcmp(ps[n].key, OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL) != 0)
            continue;
        found = 1;
        if (ps[n].type == 'L') {
            *l = g_long_label;
            *len = sizeof(g_long_label);
        } else {
            *l = (const unsigned char *)ps[n].s;
            *len = (size_t)ps[n].i;
        }
    }
    return found;
}

/* ================================================================== */
/* Keys                                                                */
/* ================================================================== */

static EVP_PKEY *g_rsa2048, *g_rsa512, *g_pss_restricted, *g_pss_free;

static EVP_PKEY *keygen(const char *type, int bits, const char *md, int saltlen)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(g_side[0].lc, type, g_side[0].propq);
    EVP_PKEY *k = NULL;

    if (c == NULL || EVP_PKEY_keygen_init(c) <= 0 || EVP_PKEY_CTX_set_rsa_keygen_bits(c, bits) <= 0
        || (md != NULL && EVP_PKEY_CTX_set_rsa_pss_keygen_md_name(c, md, NULL) <= 0)
        || (saltlen >= 0 && EVP_PKEY_CTX_set_rsa_pss_keygen_saltlen(c, saltlen) <= 0)
        || EVP_PKEY_keygen(c, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(c);
    return k;
}

static int make_keys(void)
{
    g_rsa2048 = keygen("RSA", 2048, NULL, -1);
    g_rsa512 = keygen("RSA", 512, NULL, -1);
    g_pss_restricted = keygen("RSA-PSS", 2048, "SHA256", 32);
    g_pss_free = keygen("RSA-PSS", 2048, NULL, -1);
    return CPT_CHECK(g_rsa2048 != NULL && g_rsa512 != NULL && g_pss_restricted != NULL
            && g_pss_free != NULL,
        "RSA and RSA-PSS keys");
}

static void free_keys(void)
{
    EVP_PKEY_free(g_rsa2048);
    EVP_PKEY_free(g_rsa512);
    EVP_PKEY_free(g_pss_restricted);
    EVP_PKEY_free(g_pss_free);
}

/* ================================================================== */
/* RSA encryption                                                      */
/* ================================================================== */

#define PAD OSSL_ASYM_CIPHER_PARAM_PAD_MODE
#define OMD OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST
#define MGF OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST
#define LBL OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL
#define TLSV OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION
/* OpenSSL 3.2's; unknown to 3.0's default provider, which ignores it. */
#define IMPLICIT "implicit-rejection"
#define PAD_NO_IMPLICIT 8 /* RSA_PKCS1_NO_IMPLICIT_REJECT_PADDING (3.2) */

struct enc_case {
    const char *name;
    struct pspec p[MAX_PARAMS];
    size_t msglen; /* 0: the longest the case's padding takes */
    int small_key; /* the 512-bit key */
    struct pspec dp[MAX_PARAMS]; /* decryption's parameters, if not p */
};

static const struct enc_case enc_cases[] = {
    { "default padding", { { NULL } }, 100, 0 },
    { "pkcs1 by number", { { PAD, 'i', NULL, RSA_PKCS1_PADDING } }, 0, 0 },
    { "pkcs1 by name", { { PAD, 's', "pkcs1" } }, 0, 0 },
    { "pkcs1, one byte too long", { { PAD, 'i', NULL, RSA_PKCS1_PADDING } }, 256 - 10, 0 },
    { "none by number", { { PAD, 'i', NULL, RSA_NO_PADDING } }, 256, 0 },
    { "none by name", { { PAD, 's', "none" } }, 256, 0 },
    { "none, short input", { { PAD, 'i', NULL, RSA_NO_PADDING } }, 100, 0 },
    { "oaep by number", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING } }, 0, 0 },
    { "oaep by name", { { PAD, 's', "oaep" } }, 0, 0 },
    { "oaep by its old misspelling", { { PAD, 's', "oeap" } }, 0, 0 },
    { "OAEP in capitals", { { PAD, 's', "OAEP" } }, 100, 0 },
    { "unknown pad name", { { PAD, 's', "bogus" } }, 100, 0 },
    { "pss (signatures only)", { { PAD, 'i', NULL, RSA_PKCS1_PSS_PADDING } }, 100, 0 },
    { "pss by name", { { PAD, 's', "pss" } }, 100, 0 },
    { "x931 by number", { { PAD, 'i', NULL, RSA_X931_PADDING } }, 100, 0 },
    { "x931 by name", { { PAD, 's', "x931" } }, 100, 0 },
    { "pad 0", { { PAD, 'i', NULL, 0 } }, 100, 0 },
    { "pad 2", { { PAD, 'i', NULL, 2 } }, 100, 0 },
    { "pad 99", { { PAD, 'i', NULL, 99 } }, 100, 0 },
    { "pad -1", { { PAD, 'i', NULL, -1 } }, 100, 0 },
    { "pad as unsigned", { { PAD, 'u', NULL, RSA_PKCS1_OAEP_PADDING } }, 100, 0 },
    { "tls encryption", { { PAD, 'i', NULL, RSA_PKCS1_WITH_TLS_PADDING } }, 48, 0 },
#define TLSDEC(name, ...)                                               \
    {                                                                   \
        name, { { PAD, 'i', NULL, RSA_PKCS1_PADDING } }, 48, 0,         \
        {                                                               \
            { PAD, 'i', NULL, RSA_PKCS1_WITH_TLS_PADDING }, __VA_ARGS__ \
        }                                                               \
    }
    TLSDEC("tls without a version", { NULL }),
    TLSDEC("tls version 0x0303", { TLSV, 'u', NULL, 0x0303 }),
    TLSDEC("tls version 0x0302 (wrong)", { TLSV, 'u', NULL, 0x0302 }),
    TLSDEC("tls version 0x10000", { TLSV, 'u', NULL, 0x10000 }),
    TLSDEC("tls version as int", { TLSV, 'i', NULL, 0x0303 }),
    TLSDEC("tls negotiated version", { TLSV, 'u', NULL, 0x0302 },
        { OSSL_ASYM_CIPHER_PARAM_TLS_NEGOTIATED_VERSION, 'u', NULL, 0x0303 }),
    { "tls with a version",
        { { PAD, 'i', NULL, RSA_PKCS1_WITH_TLS_PADDING }, { TLSV, 'u', NULL, 0x0303 } }, 48, 0 },
    { "tls version 0x10000",
        { { PAD, 'i', NULL, RSA_PKCS1_WITH_TLS_PADDING }, { TLSV, 'u', NULL, 0x10000 } }, 48, 0 },
    { "tls version as int",
        { { PAD, 'i', NULL, RSA_PKCS1_WITH_TLS_PADDING }, { TLSV, 'i', NULL, 0x0303 } }, 48, 0 },
    { "oaep SHA256", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA256" } }, 0, 0 },
    { "oaep SHA512", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA512" } }, 0, 0 },
    { "oaep SHA512-224", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA512-224" } },
        0, 0 },
    { "oaep SHA512-256",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA2-512/256" } }, 0, 0 },
    { "oaep SHA3-224", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA3-224" } }, 0,
        0 },
    { "oaep SHA3-512", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA3-512" } }, 0,
        0 },
    { "oaep MD5", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "MD5" } }, 0, 0 },
    { "oaep SHAKE128", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHAKE128" } },
        100, 0 },
    { "oaep SHAKE256", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHAKE256" } },
        100, 0 },
    { "oaep BLAKE2B-512",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "BLAKE2B-512" } }, 0, 0 },
    { "oaep mgf1 BLAKE2s256",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { MGF, 's', "BLAKE2s256" } }, 0, 0 },
    { "oaep RIPEMD160", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "RIPEMD160" } },
        0, 0 },
    { "oaep mgf1 MD5", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { MGF, 's', "MD5" } }, 0, 0 },
    { "oaep unknown digest",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "NOSUCHMD" } }, 100, 0 },
    { "oaep digest as int", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 'i', NULL, 1 } },
        100, 0 },
    { "oaep digest in capitals",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "sha256" } }, 0, 0 },
    { "digest before pad", { { OMD, 's', "SHA384" }, { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING } },
        0, 0 },
    { "oaep digest with pkcs1", { { PAD, 'i', NULL, RSA_PKCS1_PADDING }, { OMD, 's', "SHA256" } },
        0, 0 },
    { "oaep SHA512 on a 512-bit key",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA512" } }, 1, 1 },
    { "oaep mgf1 SHA512",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { OMD, 's', "SHA256" },
            { MGF, 's', "SHA512" } },
        0, 0 },
    { "oaep mgf1 SHA3-256",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { MGF, 's', "SHA3-256" } }, 0, 0 },
    { "oaep mgf1 SHA512-224",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { MGF, 's', "SHA512-224" } }, 0, 0 },
    { "oaep mgf1 SHAKE128",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { MGF, 's', "SHAKE128" } }, 0, 0 },
    { "oaep mgf1 SHAKE256",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { MGF, 's', "SHAKE256" } }, 0, 0 },
    { "oaep mgf1 unknown", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { MGF, 's', "NOSUCHMD" } },
        100, 0 },
    { "oaep label",
        { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { LBL, 'o', "cptprov label", 13 } }, 0, 0 },
    { "oaep empty label", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { LBL, 'o', "", 0 } }, 0,
        0 },
    { "oaep NULL label", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { LBL, 'N' } }, 0, 0 },
    { "oaep 10 KB label", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { LBL, 'L' } }, 0, 0 },
    { "oaep 10 KB label, SHA3-384",
        { { PAD, 's', "oaep" }, { OMD, 's', "SHA3-384" }, { LBL, 'L' } }, 0, 0 },
    { "label as a string", { { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING }, { LBL, 's', "label" } }, 0,
        0 },
    { "label before pad", { { LBL, 'o', "first", 5 }, { PAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING } },
        0, 0 },
    { "label with pkcs1", { { PAD, 'i', NULL, RSA_PKCS1_PADDING }, { LBL, 'o', "ignored", 7 } }, 0,
        0 },
    { "pkcs1, implicit rejection off",
        { { PAD, 'i', NULL, RSA_PKCS1_PADDING }, { IMPLICIT, 'u', NULL, 0 } }, 0, 0 },
    { "pkcs1, implicit rejection on",
        { { PAD, 'i', NULL, RSA_PKCS1_PADDING }, { IMPLICIT, 'u', NULL, 1 } }, 0, 0 },
    { "pkcs1, implicit rejection 2", { { IMPLICIT, 'i', NULL, 2 } }, 0, 1 },
    { "implicit rejection as a string", { { IMPLICIT, 's', "0" } }, 100, 0 },
    { "pad 8, decrypted with it", { { NULL } }, 100, 0, { { PAD, 'i', NULL, PAD_NO_IMPLICIT } } },
    { "pad 8", { { PAD, 'i', NULL, PAD_NO_IMPLICIT } }, 100, 0 },
};

/* The longest message a case's padding takes on key k (0: unknown). */
static size_t max_msg(const struct enc_case *ec, EVP_PKEY *k)
{
    size_t n = (size_t)EVP_PKEY_get_size(k);
    int pad = RSA_PKCS1_PADDING, hl = 20;

    for (int i = 0; i < MAX_PARAMS && ec->p[i].key != NULL; i++) {
        if (strcmp(ec->p[i].key, PAD) == 0)
            pad = ec->p[i].type == 's' ? (strcmp(ec->p[i].s, "none") == 0 ? RSA_NO_PADDING
                          : strcmp(ec->p[i].s, "pkcs1") == 0              ? RSA_PKCS1_PADDING
                                                                          : RSA_PKCS1_OAEP_PADDING)
                                       : (int)ec->p[i].i;
        if (strcmp(ec->p[i].key, OMD) == 0 && ec->p[i].type == 's') {
            EVP_MD *md = EVP_MD_fetch(g_side[0].lc, ec->p[i].s, NULL);

            if (md != NULL)
                hl = EVP_MD_get_size(md);
            EVP_MD_free(md);
        }
    }
    switch (pad) {
    case RSA_NO_PADDING:
        return n;
    case RSA_PKCS1_OAEP_PADDING:
        return n - 2 * (size_t)hl - 2;
    default:
        return n - 11;
    }
}

/* A context of side s for the case: params at init (at_init) or set after. */
static EVP_PKEY_CTX *enc_ctx(int s, EVP_PKEY *k, const struct pspec *ps, const char *name,
    int decrypt, int at_init, struct outcome *o)
{
    struct pbuf b;
    const OSSL_PARAM *params = build(&b, ps);
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(g_side[s].lc, k, g_side[s].propq);
    int ok;

    if (c == NULL) {
        fail_at(o, 1);
        return NULL;
    }
    if (at_init)
        ok = (decrypt ? EVP_PKEY_decrypt_init_ex(c, params) : EVP_PKEY_encrypt_init_ex(c, params))
            > 0;
    else
        ok = (decrypt ? EVP_PKEY_decrypt_init(c) : EVP_PKEY_encrypt_init(c)) > 0
            && (params == NULL || EVP_PKEY_CTX_set_params(c, params) > 0);
    if (!ok) {
        fail_at(o, 1);
        EVP_PKEY_CTX_free(c);
        return NULL;
    }
    check_owner(c, s, name);
    return c;
}

static void enc_run(const struct enc_case *ec, int at_init)
{
    EVP_PKEY *k = ec->small_key ? g_rsa512 : g_rsa2048;
    unsigned char msg[1024];
    size_t mlen = ec->msglen != 0 ? ec->msglen : max_msg(ec, k);
    struct outcome enc[2], dec[2][2], tampered[2];
    char what[200];

    cpt_rng_fill(&(cpt_rng){ { 1, 2, 3, 4 } }, msg, sizeof(msg));
    msg[0] = 0; /* below the modulus, for no padding */
    if (mlen == 48) { /* a TLS pre-master secret of version 0x0303 */
        msg[0] = 3;
        msg[1] = 3;
    }
    for (int s = 0; s < 2; s++) {
        EVP_PKEY_CTX *c;
        const unsigned char *want = NULL;
        size_t wantlen = 0;

        memset(&enc[s], 0, sizeof(enc[s]));
        if ((c = enc_ctx(s, k, ec->p, ec->name, 0, at_init, &enc[s])) == NULL)
            continue;
        /* What was set reads back, on the context and on a copy. */
        if (case_label(ec->p, &want, &wantlen)) {
            EVP_PKEY_CTX *d = EVP_PKEY_CTX_dup(c);
            unsigned char *got = NULL, *got2 = NULL;
            int n = EVP_PKEY_CTX_get0_rsa_oaep_label(c, &got);
            int n2 = d != NULL ? EVP_PKEY_CTX_get0_rsa_oaep_label(d, &got2) : -1;

            /* The default provider's dupctx fails on an empty label (its
             * OPENSSL_memdup of 0 bytes returns NULL); cptprov's copies it. */
            if (s == 0 && d == NULL && wantlen == 0)
                n2 = 0;
            if (want != NULL)
                cpt_check(n == (int)wantlen && n2 == n
                        && (n == 0
                            || (memcmp(got, want, wantlen) == 0
                                && memcmp(got2, want, wantlen) == 0)),
                    "%s (%s): the label reads back (%d and %d bytes of %zu)", ec->name,
                    g_side[s].name, n, n2, wantlen);
            EVP_PKEY_CTX_free(d);
            ERR_clear_error();
        }
        enc[s].outlen = sizeof(enc[s].out);
        if (EVP_PKEY_encrypt(c, enc[s].out, &enc[s].outlen, msg, mlen) <= 0)
            fail_at(&enc[s], 2);
        EVP_PKEY_CTX_free(c);
    }
    snprintf(what, sizeof(what), "encrypt %s (%s)", ec->name, at_init ? "at init" : "set after");
    compare(what, &enc[0], &enc[1]);
    /* Each side's ciphertext, decrypted by both, through a copy of the
     * context that was set up. */
    for (int e = 0; e < 2; e++) {
        if (enc[e].step != 0)
            continue;
        for (int s = 0; s < 2; s++) {
            struct outcome *o = &dec[e][s];
            EVP_PKEY_CTX *c, *d = NULL;

            memset(o, 0, sizeof(*o));
            c = enc_ctx(s, k, ec->dp[0].key != NULL ? ec->dp : ec->p, ec->name, 1, at_init, o);
            if (c == NULL)
                continue;
            if ((d = EVP_PKEY_CTX_dup(c)) == NULL) {
                cpt_check(s == 0, "%s: cptprov cannot copy the context", ec->name);
                ERR_clear_error();
                d = c;
                c = NULL;
            }
            EVP_PKEY_CTX_free(c);
            o->outlen = sizeof(o->out);
            if (EVP_PKEY_decrypt(d, o->out, &o->outlen, enc[e].out, enc[e].outlen) <= 0)
                fail_at(o, 3);
            /* A damaged ciphertext, and one a byte short (a number with a
             * leading zero left out, or none). */
            if (o->step == 0 && e == 0) {
                struct outcome bad[2];
                unsigned char ct[1024];
                size_t outl;

                memcpy(ct, enc[e].out, enc[e].outlen);
                for (int t = 0; t < 2; t++) {
                    memset(&bad[t], 0, sizeof(bad[t]));
                    outl = sizeof(bad[t].out);
                    if (t == 0)
                        ct[enc[e].outlen / 2] ^= 0x40;
                    if (EVP_PKEY_decrypt(d, bad[t].out, &outl, t == 0 ? ct : ct + 1,
                            enc[e].outlen - (size_t)t)
                        <= 0)
                        fail_at(&bad[t], 4);
                    bad[t].outlen = outl;
                    if (s == 0) {
                        tampered[t] = bad[t];
                        continue;
                    }
                    snprintf(what, sizeof(what), "decrypt a %s (%s)",
                        t == 0 ? "damaged ciphertext" : "ciphertext a byte short", ec->name);
                    compare(what, &tampered[t], &bad[t]);
                    /* Implicit rejection's message is the same for the same
                     * key and ciphertext, whichever provider derives it (a
                     * TLS secret's substitute is random). */
                    if (tampered[t].step == 0 && bad[t].step == 0 && mlen != 48)
                        cpt_check(tampered[t].outlen == bad[t].outlen
                                && memcmp(tampered[t].out, bad[t].out, bad[t].outlen) == 0,
                            "%s: both providers decrypt to the same bytes (%zu and %zu)", what,
                            tampered[t].outlen, bad[t].outlen);
                }
            }
            EVP_PKEY_CTX_free(d);
        }
        snprintf(what, sizeof(what), "decrypt %s's %s (%s)", g_side[e].name, ec->name,
            at_init ? "at init" : "set after");
        compare(what, &dec[e][0], &dec[e][1]);
        for (int s = 0; s < 2; s++) {
            int tls = dec[e][s].outlen == 48 && mlen == 48;

            if (dec[e][s].step == 0)
                cpt_check(tls
                        || (dec[e][s].outlen == mlen && memcmp(dec[e][s].out, msg, mlen) == 0),
                    "%s: %s gets the message back", what, g_side[s].name);
        }
        /* (A TLS secret of the wrong version is 48 random bytes.) */
        if (dec[e][0].step == 0 && dec[e][1].step == 0 && ec->dp[0].key == NULL)
            cpt_check(dec[e][0].outlen == dec[e][1].outlen
                    && memcmp(dec[e][0].out, dec[e][1].out, dec[e][0].outlen) == 0,
                "%s: both providers decrypt to the same bytes", what);
    }
}

/*
 * A plaintext for enc_synthetic's ciphertext i (n bytes): PKCS#1 v1.5
 * padding right (a message of random length, none, the longest) or wrong
 * in each way the check looks for, or random bytes. Returns 0 for a random
 * ciphertext instead.
 */
static int synthetic_plain(unsigned char *em, size_t n, int i, cpt_rng *r)
{
    size_t zero;

    cpt_rng_fill(r, em, n);
    for (size_t j = 2; j < n; j++)
        em[j] |= em[j] == 0; /* no zero byte yet */
    em[0] = 0;
    em[1] = 2;
    zero = 10 + (size_t)cpt_rng_below(r, (uint32_t)(n - 10));
    switch (i % 9) {
    case 0: /* a message of random length */
        break;
    case 1: /* an empty message */
        zero = n - 1;
        break;
    case 2: /* the longest message: 8 bytes of padding */
        zero = 10;
        break;
    case 3: /* 7 bytes of padding */
        zero = 9;
        break;
    case 4: /* no zero byte */
        return 1;
    case 5: /* block type 1 */
        em[1] = 1;
        break;
    case 6: /* a first byte not 0 (the number stays below the modulus) */
        em[0] = 1;
        em[1] = 0;
        break;
    default:
        return 0;
    }
    em[zero] = 0;
    return 1;
}

/*
 * PKCS#1 v1.5 decryption of ciphertexts mostly not padded right (raw RSA
 * of synthetic_plain's plaintexts, random numbers below the modulus, some
 * with leading zero bytes left out). Where the default provider rejects
 * implicitly (OpenSSL 3.2 and later), both must return the same message
 * for each (the synthetic one for a bad padding); where it does not, both
 * refuse the same ones. Then again with implicit rejection off, by
 * parameter and by pad-mode 8, where the default provider knows those.
 */
static void enc_synthetic(EVP_PKEY *k, cpt_rng *r)
{
    static const struct pspec modes[][MAX_PARAMS] = {
        { { NULL } },
        { { IMPLICIT, 'u', NULL, 0 } },
        { { PAD, 'i', NULL, PAD_NO_IMPLICIT } },
    };
    static const char *const mode_name[] = { "default", "implicit-rejection 0", "pad-mode 8" };
    size_t n = (size_t)EVP_PKEY_get_size(k);
    char what[200];

    for (size_t m = 0; m < NELEM(modes); m++) {
        unsigned agree = 0, synthetic = 0;

        for (int i = 0; i < 40; i++) {
            unsigned char ct[1024], em[1024];
            size_t len = n;
            struct outcome o[2];
            EVP_PKEY_CTX *raw = EVP_PKEY_CTX_new_from_pkey(g_side[0].lc, k, g_side[0].propq);

            if (synthetic_plain(em, n, i, r)) {
                if (raw == NULL || EVP_PKEY_encrypt_init(raw) <= 0
                    || EVP_PKEY_CTX_set_rsa_padding(raw, RSA_NO_PADDING) <= 0
                    || EVP_PKEY_encrypt(raw, ct, &len, em, n) <= 0)
                    cpt_check(0, "raw RSA encryption with the default provider");
            } else {
                cpt_rng_fill(r, ct, n);
                ct[0] = 0; /* below the modulus */
                if (i % 9 == 8) { /* a number with leading zeros left out */
                    ct[1] = 0;
                    len = n - 2;
                    memmove(ct, ct + 2, len);
                }
            }
            EVP_PKEY_CTX_free(raw);
            ERR_clear_error();
            snprintf(what, sizeof(what), "%zu-bit key, %s, ciphertext %d (kind %d) of %zu bytes",
                8 * n, mode_name[m], i, i % 9, len);
            for (int s = 0; s < 2; s++) {
                EVP_PKEY_CTX *c;

                memset(&o[s], 0, sizeof(o[s]));
                if ((c = enc_ctx(s, k, modes[m], what, 1, 1, &o[s])) == NULL)
                    continue;
                o[s].outlen = sizeof(o[s].out);
                if (EVP_PKEY_decrypt(c, o[s].out, &o[s].outlen, ct, len) <= 0)
                    fail_at(&o[s], 3);
                EVP_PKEY_CTX_free(c);
            }
            compare(what, &o[0], &o[1]);
            if (o[0].step == 0 && o[1].step == 0) {
                synthetic++;
                agree += cpt_check(o[0].outlen == o[1].outlen
                        && memcmp(o[0].out, o[1].out, o[0].outlen) == 0,
                    "%s: both providers decrypt to the same bytes (%zu and %zu)", what, o[0].outlen,
                    o[1].outlen);
            }
        }
        cpt_info("%zu-bit key, %s: %u of 40 ciphertexts decrypted (alike on both: %u)", 8 * n,
            mode_name[m], synthetic, agree);
    }
}

static void test_enc(void)
{
    if (!make_keys())
        return;
    cpt_rng_fill(&(cpt_rng){ { 5, 6, 7, 8 } }, g_long_label, sizeof(g_long_label));
    for (size_t i = 0; i < NELEM(enc_cases); i++)
        for (int at_init = 0; at_init < 2; at_init++)
            enc_run(&enc_cases[i], at_init);
    {
        cpt_rng r = { { 9, 10, 11, 12 } };
        EVP_PKEY *k3072 = keygen("RSA", 3072, NULL, -1);

        enc_synthetic(g_rsa512, &r);
        enc_synthetic(g_rsa2048, &r);
        if (CPT_CHECK(k3072 != NULL, "an RSA-3072 key"))
            enc_synthetic(k3072, &r);
        EVP_PKEY_free(k3072);
    }
    free_keys();
}

/* ================================================================== */
/* RSA signatures                                                      */
/* ================================================================== */

#define SPAD OSSL_SIGNATURE_PARAM_PAD_MODE
#define SMD OSSL_SIGNATURE_PARAM_DIGEST
#define SMGF OSSL_SIGNATURE_PARAM_MGF1_DIGEST
#define SALT OSSL_SIGNATURE_PARAM_PSS_SALTLEN
#define PSS                                    \
    {                                          \
        SPAD, 'i', NULL, RSA_PKCS1_PSS_PADDING \
    }

enum { K_RSA, K_SMALL, K_PSS, K_PSS_FREE };

struct sig_case {
    const char *name;
    int key;
    const char *md; /* EVP_DigestSign's digest; NULL: EVP_PKEY_sign of a digest */
    struct pspec p[MAX_PARAMS];
    int tbslen; /* EVP_PKEY_sign: the input's length (0: the digest's) */
};

static const struct sig_case sig_cases[] = {
    { "pkcs1 SHA256", K_RSA, "SHA256", { { SPAD, 'i', NULL, RSA_PKCS1_PADDING } } },
    { "pkcs1 by name", K_RSA, "SHA256", { { SPAD, 's', "pkcs1" } } },
    { "PKCS1 in capitals", K_RSA, "SHA256", { { SPAD, 's', "PKCS1" } } },
    { "oaep (encryption only)", K_RSA, "SHA256", { { SPAD, 'i', NULL, RSA_PKCS1_OAEP_PADDING } } },
    { "oaep by name", K_RSA, "SHA256", { { SPAD, 's', "oaep" } } },
    { "unknown pad name", K_RSA, "SHA256", { { SPAD, 's', "bogus" } } },
    { "pad 0", K_RSA, "SHA256", { { SPAD, 'i', NULL, 0 } } },
    { "pad 99", K_RSA, "SHA256", { { SPAD, 'i', NULL, 99 } } },
    { "tls pad", K_RSA, "SHA256", { { SPAD, 'i', NULL, RSA_PKCS1_WITH_TLS_PADDING } } },
    { "x931 SHA256", K_RSA, "SHA256", { { SPAD, 'i', NULL, RSA_X931_PADDING } } },
    { "none with a digest", K_RSA, "SHA256", { { SPAD, 'i', NULL, RSA_NO_PADDING } } },
    { "none, raw", K_RSA, NULL, { { SPAD, 'i', NULL, RSA_NO_PADDING } }, 256 },
    { "none, raw, short", K_RSA, NULL, { { SPAD, 'i', NULL, RSA_NO_PADDING } }, 100 },
    { "pkcs1 raw 36 bytes", K_RSA, NULL, { { SPAD, 'i', NULL, RSA_PKCS1_PADDING } }, 36 },
    { "pkcs1 raw too long", K_RSA, NULL, { { SPAD, 'i', NULL, RSA_PKCS1_PADDING } }, 250 },
    { "pkcs1 SHA256 digest", K_RSA, NULL,
        { { SPAD, 'i', NULL, RSA_PKCS1_PADDING }, { SMD, 's', "SHA256" } } },
    { "pkcs1 SHA256, short digest", K_RSA, NULL,
        { { SPAD, 'i', NULL, RSA_PKCS1_PADDING }, { SMD, 's', "SHA256" } }, 20 },
    { "pkcs1 SHA3-512", K_RSA, "SHA3-512", { { NULL } } },
    { "pkcs1 SHA512-224", K_RSA, "SHA512-224", { { NULL } } },
    { "pkcs1 SHA512 on 512 bits", K_SMALL, "SHA512", { { NULL } } },
    { "pkcs1 unknown digest", K_RSA, NULL, { { SMD, 's', "NOSUCHMD" } } },
    { "pkcs1 SHAKE128", K_RSA, NULL, { { SMD, 's', "SHAKE128" } } },
    { "pss SHA256", K_RSA, "SHA256", { PSS } },
    { "pss by name", K_RSA, "SHA256", { { SPAD, 's', "pss" } } },
    { "pss digest", K_RSA, NULL, { PSS, { SMD, 's', "SHA256" } } },
    { "pss without a digest", K_RSA, NULL, { PSS } },
    { "pss mgf1 SHA512", K_RSA, "SHA256", { PSS, { SMGF, 's', "SHA512" } } },
    { "pss mgf1 SHA3-256", K_RSA, "SHA256", { PSS, { SMGF, 's', "SHA3-256" } } },
    { "pss mgf1 unknown", K_RSA, "SHA256", { PSS, { SMGF, 's', "NOSUCHMD" } } },
    { "mgf1 before pss", K_RSA, "SHA256", { { SMGF, 's', "SHA256" }, PSS } },
    { "mgf1 with pkcs1", K_RSA, "SHA256",
        { { SPAD, 'i', NULL, RSA_PKCS1_PADDING }, { SMGF, 's', "SHA256" } } },
    { "salt 0", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, 0 } } },
    { "salt 20", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, 20 } } },
    { "salt 222 (the most)", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, 222 } } },
    { "salt 223 (too long)", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, 223 } } },
    { "salt 100000", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, 100000 } } },
    { "salt -1 (digest)", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, -1 } } },
    { "salt -2 (auto)", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, -2 } } },
    { "salt -3 (max)", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, -3 } } },
    { "salt -4", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, -4 } } },
    { "salt \"digest\"", K_RSA, "SHA256", { PSS, { SALT, 's', "digest" } } },
    { "salt \"max\"", K_RSA, "SHA256", { PSS, { SALT, 's', "max" } } },
    { "salt \"auto\"", K_RSA, "SHA256", { PSS, { SALT, 's', "auto" } } },
    { "salt \"auto-digestmax\"", K_RSA, "SHA256", { PSS, { SALT, 's', "auto-digestmax" } } },
    { "salt -5", K_RSA, "SHA256", { PSS, { SALT, 'i', NULL, -5 } } },
    { "salt \"-4\"", K_RSA, "SHA256", { PSS, { SALT, 's', "-4" } } },
    { "salt -4, SHA512 on 512 bits", K_SMALL, "SHA512", { PSS, { SALT, 'i', NULL, -4 } } },
    { "salt -4, SHA256 on 512 bits", K_SMALL, "SHA256", { PSS, { SALT, 'i', NULL, -4 } } },
    { "salt \"32\"", K_RSA, "SHA256", { PSS, { SALT, 's', "32" } } },
    { "salt \"-3\"", K_RSA, "SHA256", { PSS, { SALT, 's', "-3" } } },
    { "salt \"-9\"", K_RSA, "SHA256", { PSS, { SALT, 's', "-9" } } },
    { "salt \"bogus\"", K_RSA, "SHA256", { PSS, { SALT, 's', "bogus" } } },
    { "salt \"12abc\"", K_RSA, "SHA256", { PSS, { SALT, 's', "12abc" } } },
    { "salt as unsigned", K_RSA, "SHA256", { PSS, { SALT, 'u', NULL, 20 } } },
    { "salt with pkcs1", K_RSA, "SHA256",
        { { SPAD, 'i', NULL, RSA_PKCS1_PADDING }, { SALT, 'i', NULL, 20 } } },
    { "salt before pss", K_RSA, "SHA256", { { SALT, 'i', NULL, 20 }, PSS } },
    { "pss SHA512 on 512 bits", K_SMALL, "SHA512", { PSS } },
    { "pss SHA256 on 512 bits, salt digest", K_SMALL, "SHA256", { PSS, { SALT, 'i', NULL, -1 } } },
    { "restricted key, SHA256", K_PSS, "SHA256", { { NULL } } },
    { "restricted key, SHA384", K_PSS, "SHA384", { { NULL } } },
    { "restricted key, mgf1 SHA384", K_PSS, "SHA256", { { SMGF, 's', "SHA384" } } },
    { "restricted key, salt 16", K_PSS, "SHA256", { { SALT, 'i', NULL, 16 } } },
    { "restricted key, salt 40", K_PSS, "SHA256", { { SALT, 'i', NULL, 40 } } },
    { "restricted key, salt digest", K_PSS, "SHA256", { { SALT, 's', "digest" } } },
    { "restricted key, salt auto", K_PSS, "SHA256", { { SALT, 's', "auto" } } },
    { "restricted key, salt auto-digestmax", K_PSS, "SHA256", { { SALT, 's', "auto-digestmax" } } },
    { "restricted key, salt -4", K_PSS, "SHA256", { { SALT, 'i', NULL, -4 } } },
    { "restricted key, salt -2", K_PSS, "SHA256", { { SALT, 'i', NULL, -2 } } },
    { "restricted key, pkcs1", K_PSS, "SHA256", { { SPAD, 'i', NULL, RSA_PKCS1_PADDING } } },
    { "restricted key, none", K_PSS, NULL, { { SPAD, 'i', NULL, RSA_NO_PADDING } }, 256 },
    { "pss key, SHA384", K_PSS_FREE, "SHA384", { { NULL } } },
    { "pss key, pkcs1", K_PSS_FREE, "SHA256", { { SPAD, 's', "pkcs1" } } },
};

static EVP_PKEY *sig_key(int which)
{
    switch (which) {
    case K_SMALL:
        return g_rsa512;
    case K_PSS:
        return g_pss_restricted;
    case K_PSS_FREE:
        return g_pss_free;
    }
    return g_rsa2048;
}

/* Side s signs (verify = 0) or verifies sig; on success o->out is the
 * signature (or the verified one). */
static void sig_one(int s, const struct sig_case *sc, int verify, const unsigned char *tbs,
    size_t tbslen, const unsigned char *sig, size_t siglen, struct outcome *o)
{
    EVP_PKEY *k = sig_key(sc->key);
    struct pbuf b;
    const OSSL_PARAM *params = build(&b, sc->p);
    EVP_MD_CTX *m = NULL;
    EVP_PKEY_CTX *c = NULL;
    int ok;

    memset(o, 0, sizeof(*o));
    if (sc->md != NULL) {
        m = EVP_MD_CTX_new();
        ok = m != NULL
            && (verify ? EVP_DigestVerifyInit_ex(m, &c, sc->md, g_side[s].lc, g_side[s].propq, k,
                    params)
                       : EVP_DigestSignInit_ex(m, &c, sc->md, g_side[s].lc, g_side[s].propq, k,
                           params))
                > 0;
    } else {
        c = EVP_PKEY_CTX_new_from_pkey(g_side[s].lc, k, g_side[s].propq);
        ok = c != NULL && (verify ? EVP_PKEY_verify_init(c) : EVP_PKEY_sign_init(c)) > 0
            && (params == NULL || EVP_PKEY_CTX_set_params(c, params) > 0);
    }
    if (!ok) {
        fail_at(o, 1);
        goto end;
    }
    check_owner(c, s, sc->name);
    o->outlen = sizeof(o->out);
    if (verify) {
        ok = (m != NULL ? EVP_DigestVerify(m, sig, siglen, tbs, tbslen)
                        : EVP_PKEY_verify(c, sig, siglen, tbs, tbslen))
            == 1;
        if (ok) {
            memcpy(o->out, sig, siglen);
            o->outlen = siglen;
        }
    } else {
        ok = (m != NULL ? EVP_DigestSign(m, o->out, &o->outlen, tbs, tbslen)
                        : EVP_PKEY_sign(c, o->out, &o->outlen, tbs, tbslen))
            > 0;
    }
    if (!ok)
        fail_at(o, verify ? 3 : 2);
end:
    if (m != NULL)
        EVP_MD_CTX_free(m);
    else
        EVP_PKEY_CTX_free(c);
}

/*
 * Which salt lengths a PSS signature verifies under (by the default
 * provider): bit 0 "digest", bit 1 "max"; -1 when the case is not PSS.
 * Two signatures with the same bits have salts of the same kind: the
 * default length changed in OpenSSL 3.1 ("auto-digestmax").
 */
static int salt_probe(const struct sig_case *sc, const unsigned char *tbs, size_t tbslen,
    const struct outcome *sig)
{
    static const char *const lens[] = { "digest", "max" };
    int bits = 0, pss = sc->key == K_PSS || sc->key == K_PSS_FREE;

    for (int i = 0; i < MAX_PARAMS && sc->p[i].key != NULL; i++)
        if (strcmp(sc->p[i].key, SPAD) == 0)
            pss = sc->p[i].type == 'i' ? sc->p[i].i == RSA_PKCS1_PSS_PADDING
                                       : strcmp(sc->p[i].s, "pss") == 0;
    if (!pss || sc->md == NULL)
        return -1;
    for (int b = 0; b < 2; b++) {
        struct sig_case probe = *sc;
        struct outcome o;
        int n = 0;

        while (n < MAX_PARAMS - 1 && probe.p[n].key != NULL)
            n++;
        probe.p[n] = (struct pspec){ SALT, 's', lens[b] };
        sig_one(0, &probe, 1, tbs, tbslen, sig->out, sig->outlen, &o);
        ERR_clear_error();
        bits |= (o.step == 0) << b;
    }
    return bits;
}

static void sig_run(const struct sig_case *sc)
{
    unsigned char tbs[512];
    size_t tbslen = sc->md != NULL ? 300 : sc->tbslen != 0 ? (size_t)sc->tbslen : 32;
    struct outcome sign[2], ver[2][2];
    char what[200];

    cpt_rng_fill(&(cpt_rng){ { 9, 10, 11, 12 } }, tbs, sizeof(tbs));
    tbs[0] = 0;
    for (int s = 0; s < 2; s++)
        sig_one(s, sc, 0, tbs, tbslen, NULL, 0, &sign[s]);
    snprintf(what, sizeof(what), "sign %s", sc->name);
    compare(what, &sign[0], &sign[1]);
    /* Deterministic paddings sign alike. */
    if (sign[0].step == 0 && sign[1].step == 0 && !strstr(sc->name, "pss")
        && !strstr(sc->name, "salt") && sc->key != K_PSS && sc->key != K_PSS_FREE)
        cpt_check(sign[0].outlen == sign[1].outlen
                && memcmp(sign[0].out, sign[1].out, sign[0].outlen) == 0,
            "%s: both providers make the same signature", what);
    if (sign[0].step == 0 && sign[1].step == 0) {
        int a = salt_probe(sc, tbs, tbslen, &sign[0]), b = salt_probe(sc, tbs, tbslen, &sign[1]);

        cpt_check(a == b,
            "%s: the salt lengths differ (verified as digest/max: default's %d, cptprov's %d)",
            what, a, b);
    }
    for (int e = 0; e < 2; e++) {
        if (sign[e].step != 0)
            continue;
        for (int s = 0; s < 2; s++)
            sig_one(s, sc, 1, tbs, tbslen, sign[e].out, sign[e].outlen, &ver[e][s]);
        snprintf(what, sizeof(what), "verify %s's %s", g_side[e].name, sc->name);
        compare(what, &ver[e][0], &ver[e][1]);
    }
}

static void test_sig(void)
{
    if (!make_keys())
        return;
    for (size_t i = 0; i < NELEM(sig_cases); i++)
        sig_run(&sig_cases[i]);
    free_keys();
}

/* ================================================================== */
/* Other refusals                                                      */
/* ================================================================== */

/* An EC P-256 key whose public half is another key's, imported into side
 * s; EVP_PKEY_check must refuse it. */
static void ec_mismatch(int s, struct outcome *o)
{
    EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(g_side[0].lc, "EC", g_side[0].propq);
    EVP_PKEY *a = NULL, *b = NULL, *k = NULL;
    BIGNUM *priv = NULL;
    unsigned char pub[133];
    size_t publen = 0;
    OSSL_PARAM_BLD *bld = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *c = NULL;

    memset(o, 0, sizeof(*o));
    if (g == NULL || EVP_PKEY_keygen_init(g) <= 0 || EVP_PKEY_CTX_set_group_name(g, "P-256") <= 0
        || EVP_PKEY_keygen(g, &a) <= 0 || EVP_PKEY_keygen(g, &b) <= 0
        || !EVP_PKEY_get_bn_param(a, OSSL_PKEY_PARAM_PRIV_KEY, &priv)
        || !EVP_PKEY_get_octet_string_param(b, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof(pub), &publen)
        || (bld = OSSL_PARAM_BLD_new()) == NULL
        || !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0)
        || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv)
        || !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, publen)
        || (params = OSSL_PARAM_BLD_to_param(bld)) == NULL) {
        fail_at(o, 9);
        goto end;
    }
    EVP_PKEY_CTX_free(g);
    if ((g = EVP_PKEY_CTX_new_from_name(g_side[s].lc, "EC", g_side[s].propq)) == NULL
        || EVP_PKEY_fromdata_init(g) <= 0 || EVP_PKEY_fromdata(g, &k, EVP_PKEY_KEYPAIR, params) <= 0
        || (c = EVP_PKEY_CTX_new_from_pkey(g_side[s].lc, k, g_side[s].propq)) == NULL) {
        fail_at(o, 1);
        goto end;
    }
    if (s == 1) {
        const OSSL_PROVIDER *p = EVP_PKEY_get0_provider(k);

        cpt_check(p != NULL && strcmp(OSSL_PROVIDER_get0_name(p), g_side[1].name) == 0,
            "the mismatched EC key is %s's", g_side[1].name);
    }
    if (EVP_PKEY_check(c) == 1)
        goto end;
    fail_at(o, 2);
end:
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_CTX_free(g);
    EVP_PKEY_free(a);
    EVP_PKEY_free(b);
    EVP_PKEY_free(k);
    BN_free(priv);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
}

/* A digest's size (or block size) asked for into an OCTET STRING, from the
 * algorithm (EVP_MD_get_params) or a context (EVP_MD_CTX_get_params). */
static void md_size_octets(int s, const char *name, int from_ctx, struct outcome *o)
{
    EVP_MD *md = EVP_MD_fetch(g_side[s].lc, "SHA256", g_side[s].propq);
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    unsigned char buf[16];
    OSSL_PARAM p[2];
    int ok;

    memset(o, 0, sizeof(*o));
    p[0] = OSSL_PARAM_construct_octet_string(name, buf, sizeof(buf));
    p[1] = OSSL_PARAM_construct_end();
    if (md == NULL || m == NULL || (from_ctx && EVP_DigestInit_ex(m, md, NULL) <= 0)) {
        fail_at(o, 9);
    } else {
        if (s == 1)
            cpt_check(strcmp(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md)), g_side[1].name)
                    == 0,
                "SHA256 is %s's", g_side[1].name);
        ok = from_ctx ? EVP_MD_CTX_get_params(m, p) : EVP_MD_get_params(md, p);
        if (ok <= 0 || !OSSL_PARAM_modified(p))
            fail_at(o, 1);
    }
    EVP_MD_CTX_free(m);
    EVP_MD_free(md);
}

/* HMAC over SHAKE128: the digest given to EVP_MAC_init, or set before. */
static void hmac_shake(int s, int set_first, struct outcome *o)
{
    EVP_MAC *mac = EVP_MAC_fetch(g_side[s].lc, "HMAC", g_side[s].propq);
    EVP_MAC_CTX *m = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
    unsigned char key[16] = { 1 }, out[64];
    size_t outl = 0;
    OSSL_PARAM p[2];

    memset(o, 0, sizeof(*o));
    p[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHAKE128", 0);
    p[1] = OSSL_PARAM_construct_end();
    if (m == NULL)
        fail_at(o, 9);
    else if (set_first && !EVP_MAC_CTX_set_params(m, p))
        fail_at(o, 1);
    else if (!EVP_MAC_init(m, key, sizeof(key), set_first ? NULL : p))
        fail_at(o, 2);
    else if (!EVP_MAC_update(m, key, sizeof(key)))
        fail_at(o, 3);
    else if (!EVP_MAC_final(m, out, &outl, sizeof(out)))
        fail_at(o, 4);
    EVP_MAC_CTX_free(m);
    EVP_MAC_free(mac);
}

static void test_errors(void)
{
    struct outcome o[2];
    static const char *mdparams[] = { OSSL_DIGEST_PARAM_SIZE, OSSL_DIGEST_PARAM_BLOCK_SIZE };

    for (int s = 0; s < 2; s++)
        ec_mismatch(s, &o[s]);
    compare("EVP_PKEY_check of an EC key whose halves do not match", &o[0], &o[1]);
    cpt_check(o[0].step == 2, "the default provider refuses the mismatched EC key at the check");
    /* An unknown HMAC digest is refused when it is set. */
    for (int s = 0; s < 2; s++) {
        EVP_MAC *mac = EVP_MAC_fetch(g_side[s].lc, "HMAC", g_side[s].propq);
        EVP_MAC_CTX *m = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
        OSSL_PARAM p[2] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "NOSUCHMD", 0),
            OSSL_PARAM_construct_end() };

        memset(&o[s], 0, sizeof(o[s]));
        if (m == NULL)
            fail_at(&o[s], 9);
        else if (!EVP_MAC_CTX_set_params(m, p))
            fail_at(&o[s], 1);
        EVP_MAC_CTX_free(m);
        EVP_MAC_free(mac);
    }
    compare("HMAC over an unknown digest", &o[0], &o[1]);
    for (size_t i = 0; i < NELEM(mdparams); i++) {
        for (int from_ctx = 0; from_ctx < 2; from_ctx++) {
            char what[120];

            for (int s = 0; s < 2; s++)
                md_size_octets(s, mdparams[i], from_ctx, &o[s]);
            snprintf(what, sizeof(what), "%s \"%s\" as an octet string",
                from_ctx ? "EVP_MD_CTX_get_params" : "EVP_MD_get_params", mdparams[i]);
            /* Neither provider has a digest context parameter: EVP
             * refuses those by itself, without a reason. */
            if (from_ctx)
                cpt_check(o[0].step == o[1].step, "%s: default step %d, cptprov step %d", what,
                    o[0].step, o[1].step);
            else
                compare(what, &o[0], &o[1]);
        }
    }
    for (int set_first = 0; set_first < 2; set_first++) {
        for (int s = 0; s < 2; s++)
            hmac_shake(s, set_first, &o[s]);
        compare(set_first ? "HMAC over SHAKE128 set before init"
                          : "HMAC over SHAKE128 given to init",
            &o[0], &o[1]);
        cpt_check(o[1].step == 2, "HMAC over SHAKE128 is refused by cptprov at init (step %d)",
            o[1].step);
    }
}

static void test_stats(void)
{
    const char *algs[] = { "RSA", NULL };

    if (g_env.stats_dir[0] == '\0' || g_o.no_stats || !g_used_rsa) {
        cpt_info("skipped (no --stats-dir)");
        return;
    }
    cpt_stats_check(g_env.stats_dir, g_env.name, getpid(), algs, 3500, g_o.verbose);
}

static const cpt_named_test g_subtests[] = {
    { "enc", test_enc },
    { "sig", test_sig },
    { "errors", test_errors },
    { "stats", test_stats },
};

int main(int argc, char **argv)
{
    int rc;

    cpt_opts_init(&g_o);
    if (cpt_parse_harness_args(&g_o, argc, argv, NULL, NULL) != 0)
        return 2;
    cpt_set_verbose(g_o.verbose);
    printf("params_test: provider=%s\n", g_o.provider);
    fflush(stdout);
    if (!cpt_env_init(&g_env, &g_o)) {
        cpt_check(0, "cannot load provider '%s'", g_o.provider);
        return cpt_finish();
    }
    g_side[0] = (struct side){ g_env.ref_libctx, "provider=default", "default" };
    g_side[1] = (struct side){ g_env.libctx, g_env.propq, g_env.name };
    cpt_run_tests(&g_o, g_subtests, NELEM(g_subtests));
    rc = cpt_finish();
    cpt_env_free(&g_env);
    return rc;
}
