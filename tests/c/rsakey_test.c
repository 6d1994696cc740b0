/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rsakey_test.c - hostile RSA keys, against the default provider.
 *
 * From a good key of each size (and an RSA-PSS key), variants with one
 * thing wrong -- the public exponent (1, 2, 3 with the old d, 65536, an
 * even 65-bit one), the modulus (even, not p·q), d, a CRT value, d and a
 * CRT value at once, a composite p, d of 0 or n, no CRT values, no private
 * part -- are imported into cptprov and into the default provider, and:
 *
 *   - import, EVP_PKEY_check, _public_check, _private_check and
 *     _pairwise_check give the same verdict in both; a refusal by cptprov
 *     leaves an error, with the default's reasons (all of them, in its
 *     order) when it gives any;
 *   - every signature (PKCS#1 v1.5, PSS, no padding) and every decryption
 *     (PKCS#1 v1.5, OAEP, no padding, TLS pre-master secret) cptprov
 *     releases is right: it verifies under the key, or is the plaintext;
 *     where the default provider's result is right, cptprov's must be
 *     released too (a wrong CRT value is recomputed, as OpenSSL does);
 *     where it fails, it fails with an error. The default provider does
 *     release wrong results for some of these keys (e = 1, or d and dP
 *     both wrong); cptprov never does.
 *   - the same for signatures made inside ASYNC jobs;
 *   - the statistics show the device did the work and rejected the wrong
 *     CRT results.
 *
 * Usage: rsakey_test [common options] [--sizes "1024 2048 ..."]
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "common.h"

static cpt_env g_env;
static cpt_opts g_o;
static cpt_rng g_rng;
/* ASYNC signatures run, and how many of them paused for the device (a job
 * whose operation completes before it would pause does not). */
static size_t g_async_tasks, g_async_paused;

enum {
    V_GOOD,
    V_E1,
    V_E2,
    V_E3,
    V_E65536,
    V_E_EVEN_BIG,
    V_N_EVEN,
    V_N_NOT_PQ,
    V_D,
    V_DP,
    V_DQ,
    V_QINV,
    V_D_AND_DP,
    V_P_COMPOSITE,
    V_D_ZERO,
    V_D_N,
    V_NO_CRT,
    V_PUBLIC,
    NVARIANTS
};
static const char *const vname[NVARIANTS] = { "good", "e=1", "e=2", "e=3", "e=65536", "e=2^64+2",
    "n even", "n not p*q", "d wrong", "dP wrong", "dQ wrong", "qInv wrong", "d and dP wrong",
    "p composite", "d=0", "d=n", "no CRT values", "public only" };

/* The components of a key: n e d p q dP dQ qInv. */
enum { C_N, C_E, C_D, C_P, C_Q, C_DP, C_DQ, C_QINV, NCOMP };
static const char *const cname[NCOMP] = { OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E,
    OSSL_PKEY_PARAM_RSA_D, OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
    OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2,
    OSSL_PKEY_PARAM_RSA_COEFFICIENT1 };

/*
 * A modulus the public check must judge the same way every time. The
 * default provider's check (an enhanced Miller-Rabin test with random bases)
 * refuses a composite n when a base happens to reveal a factor, which for a
 * factor f of n has a chance of about gcd(n-1, f-1)/(f-1) per base: n + 2,
 * or p + 2k times q, often has a factor of a few thousand, and then either
 * answer is right and cptprov's and the default provider's bases disagree
 * now and then. A product of primes of 256 bits and more leaves no such
 * chance. V_N_NOT_PQ: n = p'q, p' the prime after p. V_P_COMPOSITE: p = rs,
 * r and s primes of half p's size, and n = pq (consistent, the rest not).
 */
static void n_from(BIGNUM *out[NCOMP], int v)
{
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *p = BN_dup(out[C_P]), *s = BN_new();
    int half = BN_num_bits(p) / 2;

    if (v == V_N_NOT_PQ) {
        do
            BN_add_word(p, 2);
        while (BN_check_prime(p, ctx, NULL) != 1);
    } else if (BN_generate_prime_ex2(p, half, 0, NULL, NULL, NULL, ctx)
        && BN_generate_prime_ex2(s, BN_num_bits(out[C_P]) - half, 0, NULL, NULL, NULL, ctx)) {
        BN_mul(p, p, s, ctx);
        BN_copy(out[C_P], p);
    }
    BN_mul(out[C_N], p, out[C_Q], ctx);
    BN_free(s);
    BN_free(p);
    BN_CTX_free(ctx);
}

/* The variant's components (NULL: left out), from the good key's. */
static void variant(int v, BIGNUM *const good[NCOMP], BIGNUM *out[NCOMP])
{
    for (int i = 0; i < NCOMP; i++)
        out[i] = BN_dup(good[i]);
    switch (v) {
    case V_E1:
    case V_E2:
    case V_E3:
    case V_E65536:
        BN_set_word(out[C_E], v == V_E1 ? 1 : v == V_E2 ? 2 : v == V_E3 ? 3 : 65536);
        break;
    case V_E_EVEN_BIG:
        BN_set_word(out[C_E], 1);
        BN_lshift(out[C_E], out[C_E], 64);
        BN_add_word(out[C_E], 2);
        break;
    case V_N_EVEN:
        BN_add_word(out[C_N], 1);
        break;
    case V_N_NOT_PQ:
        n_from(out, V_N_NOT_PQ);
        break;
    case V_D:
        BN_add_word(out[C_D], 2);
        break;
    case V_DP:
    case V_D_AND_DP:
        BN_add_word(out[C_DP], 2);
        if (v == V_D_AND_DP)
            BN_add_word(out[C_D], 2);
        break;
    case V_DQ:
        BN_add_word(out[C_DQ], 2);
        break;
    case V_QINV:
        BN_add_word(out[C_QINV], 1);
        break;
    case V_P_COMPOSITE:
        n_from(out, V_P_COMPOSITE);
        break;
    case V_D_ZERO:
        BN_zero(out[C_D]);
        break;
    case V_D_N:
        BN_copy(out[C_D], out[C_N]);
        break;
    case V_NO_CRT:
    case V_PUBLIC:
        for (int i = v == V_PUBLIC ? C_D : C_P; i < NCOMP; i++) {
            BN_free(out[i]);
            out[i] = NULL;
        }
        break;
    }
}

/* The key from its components through the key management propq selects. */
static EVP_PKEY *import(OSSL_LIB_CTX *lc, const char *type, const char *propq,
    BIGNUM *const comp[NCOMP])
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc, type, propq);
    OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
    OSSL_PARAM *p = NULL;
    EVP_PKEY *k = NULL;
    int ok = c != NULL && b != NULL;

    for (int i = 0; ok && i < NCOMP; i++)
        ok = comp[i] == NULL || OSSL_PARAM_BLD_push_BN(b, cname[i], comp[i]);
    if (ok && (p = OSSL_PARAM_BLD_to_param(b)) != NULL && EVP_PKEY_fromdata_init(c) > 0
        && EVP_PKEY_fromdata(c, &k, comp[C_D] != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, p)
            <= 0)
        k = NULL;
    OSSL_PARAM_free(p);
    OSSL_PARAM_BLD_free(b);
    EVP_PKEY_CTX_free(c);
    return k;
}

/* One of the four checks through the key's own key management; the
 * reason strings of the errors it raised go to why, in order (or ""). */
static int check(OSSL_LIB_CTX *lc, EVP_PKEY *k, int which, char *why, size_t whylen)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(lc, k, NULL);
    int rc = -1;
    unsigned long e;
    size_t used = 0;

    ERR_clear_error();
    if (c != NULL)
        rc = which == 0  ? EVP_PKEY_check(c)
            : which == 1 ? EVP_PKEY_public_check(c)
            : which == 2 ? EVP_PKEY_private_check(c)
                         : EVP_PKEY_pairwise_check(c);
    why[0] = '\0';
    while ((e = ERR_get_error()) != 0 && used < whylen) {
        const char *r = ERR_reason_error_string(e);

        used += (size_t)snprintf(why + used, whylen - used, "%s%s", used ? ", " : "",
            r != NULL ? r : "?");
    }
    ERR_clear_error();
    EVP_PKEY_CTX_free(c);
    return rc > 0;
}

static const char *const check_name[4] = { "check", "public_check", "private_check",
    "pairwise_check" };

enum { S_PKCS1, S_PSS, S_NONE, NSIGS };
static const char *const sname[NSIGS] = { "PKCS#1 v1.5", "PSS", "no padding" };

/* Signs tbs (a SHA-256 digest, or a block below n without padding). */
static int sign(OSSL_LIB_CTX *lc, EVP_PKEY *k, const char *propq, int how, const unsigned char *tbs,
    size_t tbslen, unsigned char *sig, size_t *siglen)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(lc, k, propq);
    int pad = how == S_PKCS1 ? RSA_PKCS1_PADDING
        : how == S_PSS       ? RSA_PKCS1_PSS_PADDING
                             : RSA_NO_PADDING;
    int ok = c != NULL && EVP_PKEY_sign_init(c) > 0 && EVP_PKEY_CTX_set_rsa_padding(c, pad) > 0
        && (how == S_NONE || EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) > 0)
        && (how != S_PSS || EVP_PKEY_CTX_set_rsa_pss_saltlen(c, RSA_PSS_SALTLEN_DIGEST) > 0)
        && EVP_PKEY_sign(c, sig, siglen, tbs, tbslen) > 0;

    EVP_PKEY_CTX_free(c);
    return ok;
}

/* Verifies by the default provider, under the key k (its n and e). */
static int verify(EVP_PKEY *k, int how, const unsigned char *tbs, size_t tbslen,
    const unsigned char *sig, size_t siglen)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(g_env.ref_libctx, k, "provider=default");
    int pad = how == S_PKCS1 ? RSA_PKCS1_PADDING
        : how == S_PSS       ? RSA_PKCS1_PSS_PADDING
                             : RSA_NO_PADDING;
    int ok;

    if (how == S_NONE) {
        /* No padding: the signature is right if s^e mod n is the block. */
        unsigned char rec[1024];
        size_t rl = sizeof(rec);

        ok = c != NULL && EVP_PKEY_verify_recover_init(c) > 0
            && EVP_PKEY_CTX_set_rsa_padding(c, pad) > 0
            && EVP_PKEY_verify_recover(c, rec, &rl, sig, siglen) > 0 && rl == tbslen
            && memcmp(rec, tbs, rl) == 0;
    } else {
        ok = c != NULL && EVP_PKEY_verify_init(c) > 0 && EVP_PKEY_CTX_set_rsa_padding(c, pad) > 0
            && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) > 0
            && (how != S_PSS || EVP_PKEY_CTX_set_rsa_pss_saltlen(c, RSA_PSS_SALTLEN_DIGEST) > 0)
            && EVP_PKEY_verify(c, sig, siglen, tbs, tbslen) > 0;
    }
    ERR_clear_error();
    EVP_PKEY_CTX_free(c);
    return ok;
}

enum { D_PKCS1, D_OAEP, D_NONE, D_TLS, NDECS };
static const char *const dname[NDECS] = { "PKCS#1 v1.5", "OAEP", "no padding", "TLS pre-master" };
static const int dpad[NDECS] = { RSA_PKCS1_PADDING, RSA_PKCS1_OAEP_PADDING, RSA_NO_PADDING,
    RSA_PKCS1_WITH_TLS_PADDING };

static int rsa_crypt(OSSL_LIB_CTX *lc, EVP_PKEY *k, const char *propq, int how, int decrypt,
    const unsigned char *in, size_t inlen, unsigned char *out, size_t *outlen)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(lc, k, propq);
    unsigned int ver = 0x0303;
    OSSL_PARAM p[] = { OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION, &ver),
        OSSL_PARAM_END };
    int pad = decrypt ? dpad[how] : how == D_TLS ? RSA_PKCS1_PADDING : dpad[how];
    int ok = c != NULL && (decrypt ? EVP_PKEY_decrypt_init(c) : EVP_PKEY_encrypt_init(c)) > 0
        && EVP_PKEY_CTX_set_rsa_padding(c, pad) > 0
        && (!decrypt || how != D_TLS || EVP_PKEY_CTX_set_params(c, p) > 0)
        && (decrypt ? EVP_PKEY_decrypt(c, out, outlen, in, inlen)
                    : EVP_PKEY_encrypt(c, out, outlen, in, inlen))
            > 0;

    EVP_PKEY_CTX_free(c);
    return ok;
}

/* A signature made inside an ASYNC job. */
struct sign_task {
    EVP_PKEY *k;
    unsigned char tbs[32], sig[1024];
    size_t siglen;
    int ok;
};

static int sign_job(void *arg)
{
    struct sign_task *t = arg;

    t->siglen = sizeof(t->sig);
    t->ok =
        sign(g_env.libctx, t->k, g_env.propq, S_PKCS1, t->tbs, sizeof(t->tbs), t->sig, &t->siglen);
    if (!t->ok)
        t->ok = ERR_peek_error() != 0 ? 0 : -1;
    ERR_clear_error();
    return 1;
}

static void test_variants(const char *type, int bits)
{
    EVP_PKEY *good;
    BIGNUM *gc[NCOMP] = { NULL };
    unsigned char tbs[1024], sig[2][1024], ct[1024], pt[2][1024], msg[48];
    int nbytes = (bits + 7) / 8, pss = strcmp(type, "RSA-PSS") == 0;

    {
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(g_env.ref_libctx, type, "provider=default");
        size_t b = (size_t)bits;
        OSSL_PARAM p[] = { OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &b),
            OSSL_PARAM_END };

        good = NULL;
        if (c == NULL || EVP_PKEY_keygen_init(c) <= 0 || !EVP_PKEY_CTX_set_params(c, p)
            || EVP_PKEY_generate(c, &good) <= 0)
            good = NULL;
        EVP_PKEY_CTX_free(c);
    }
    if (!CPT_CHECK(good != NULL, "%s-%d key from the default provider", type, bits))
        return;
    for (int i = 0; i < NCOMP; i++)
        CPT_CHECK(EVP_PKEY_get_bn_param(good, cname[i], &gc[i]), "%s-%d's %s", type, bits,
            cname[i]);
    for (int v = 0; v < NVARIANTS; v++) {
        BIGNUM *comp[NCOMP];
        EVP_PKEY *kd, *kc;
        char wd[256], wc[256];

        variant(v, gc, comp);
        kd = import(g_env.ref_libctx, type, "provider=default", comp);
        ERR_clear_error();
        kc = import(g_env.libctx, type, g_env.propq, comp);
        CPT_CHECK((kd != NULL) == (kc != NULL) && (kc != NULL || ERR_peek_error() != 0),
            "%s-%d %s: import %s as the default provider's (%s)", type, bits, vname[v],
            kc ? "accepted" : "refused", kd ? "accepted" : "refused");
        ERR_clear_error();
        if (kd == NULL || kc == NULL)
            goto next;

        for (int w = 0; w < 4; w++) {
            int rd = check(g_env.ref_libctx, kd, w, wd, sizeof(wd)),
                rc = check(g_env.libctx, kc, w, wc, sizeof(wc));

            CPT_CHECK(rd == rc && (rc || wc[0] != '\0')
                    && (rc || wd[0] == '\0' || strcmp(wd, wc) == 0),
                "%s-%d %s: %s %s (\"%s\"), the default provider %s (\"%s\")", type, bits, vname[v],
                check_name[w], rc ? "passes" : "fails", wc, rd ? "passes" : "fails", wd);
        }
        if (v == V_PUBLIC)
            goto next;

        /* Signatures. */
        for (int s = pss ? S_PSS : 0; s < (pss ? S_PSS + 1 : NSIGS); s++) {
            size_t tl = s == S_NONE ? (size_t)nbytes : 32,
                   sl[2] = { sizeof(sig[0]), sizeof(sig[1]) };
            int okd, right_d, okc;

            cpt_rng_fill(&g_rng, tbs, tl);
            if (s == S_NONE)
                tbs[0] = 0; /* below n */
            okd = sign(g_env.ref_libctx, kd, "provider=default", s, tbs, tl, sig[0], &sl[0]);
            right_d = okd && verify(kd, s, tbs, tl, sig[0], sl[0]);
            ERR_clear_error();
            okc = sign(g_env.libctx, kc, g_env.propq, s, tbs, tl, sig[1], &sl[1]);
            if (okc)
                CPT_CHECK(verify(kd, s, tbs, tl, sig[1], sl[1]),
                    "%s-%d %s: the %s signature cptprov released "
                    "verifies",
                    type, bits, vname[v], sname[s]);
            else
                CPT_CHECK(ERR_peek_error() != 0, "%s-%d %s: the %s signature failed with an error",
                    type, bits, vname[v], sname[s]);
            if (right_d)
                CPT_CHECK(okc,
                    "%s-%d %s: cptprov signs (%s) where the default provider's signature is right",
                    type, bits, vname[v], sname[s]);
            ERR_clear_error();
        }

        /* Decryptions of what the default provider encrypts under the key. */
        for (int d = 0; d < (pss ? 0 : NDECS); d++) {
            size_t ml = d == D_NONE ? (size_t)nbytes : sizeof(msg), cl = sizeof(ct),
                   pl[2] = { sizeof(pt[0]), sizeof(pt[1]) };
            unsigned char *m = d == D_NONE ? tbs : msg;
            int okd, okc;

            cpt_rng_fill(&g_rng, m, ml);
            if (d == D_NONE)
                m[0] = 0;
            if (d == D_TLS)
                m[0] = 3, m[1] = 3;
            if (!rsa_crypt(g_env.ref_libctx, kd, "provider=default", d, 0, m, ml, ct, &cl)) {
                ERR_clear_error();
                continue; /* no ciphertext (a modulus the default cannot use either) */
            }
            okd = rsa_crypt(g_env.ref_libctx, kd, "provider=default", d, 1, ct, cl, pt[0], &pl[0])
                && pl[0] == ml && memcmp(pt[0], m, ml) == 0;
            ERR_clear_error();
            okc = rsa_crypt(g_env.libctx, kc, g_env.propq, d, 1, ct, cl, pt[1], &pl[1]);
            if (!okc)
                CPT_CHECK(ERR_peek_error() != 0, "%s-%d %s: %s decryption failed with an error",
                    type, bits, vname[v], dname[d]);
            else if (d != D_TLS) /* TLS: a wrong block yields random bytes, by design */
                CPT_CHECK(pl[1] == ml && memcmp(pt[1], m, ml) == 0,
                    "%s-%d %s: the %s plaintext cptprov "
                    "released is right",
                    type, bits, vname[v], dname[d]);
            if (okd)
                CPT_CHECK(okc && pl[1] == ml && memcmp(pt[1], m, ml) == 0,
                    "%s-%d %s: cptprov decrypts (%s) "
                    "where the default provider does",
                    type, bits, vname[v], dname[d]);
            ERR_clear_error();
        }

        /* The CRT variants in ASYNC jobs: recomputed, or refused. */
        if (!pss && (v == V_DP || v == V_QINV || v == V_D_AND_DP || v == V_GOOD)) {
            enum { NT = 8 };
            struct sign_task tasks[NT];
            void *args[NT];
            int results[NT];
            unsigned char paused[NT];
            cpt_jobs j;

            for (int i = 0; i < NT; i++) {
                tasks[i].k = kc;
                cpt_rng_fill(&g_rng, tasks[i].tbs, sizeof(tasks[i].tbs));
                args[i] = &tasks[i];
            }
            cpt_jobs_check(&j, sign_job, args, NT, cpt_rng_u64(&g_rng), results, paused);
            for (int i = 0; i < NT; i++) {
                if (v == V_D_AND_DP)
                    CPT_CHECK(tasks[i].ok == 0,
                        "%s-%d %s: async signature %d refused with an error (%d)", type, bits,
                        vname[v], i, tasks[i].ok);
                else
                    CPT_CHECK(tasks[i].ok == 1
                            && verify(kd, S_PKCS1, tasks[i].tbs, 32, tasks[i].sig, tasks[i].siglen),
                        "%s-%d %s: async signature %d released and right", type, bits, vname[v], i);
            }
            g_async_tasks += NT;
            g_async_paused += j.tasks_paused;
        }
    next:
        EVP_PKEY_free(kd);
        EVP_PKEY_free(kc);
        for (int i = 0; i < NCOMP; i++)
            BN_free(comp[i]);
    }
    for (int i = 0; i < NCOMP; i++)
        BN_free(gc[i]);
    EVP_PKEY_free(good);
}

static const char *g_sizes = "1024 2048 3072";

static void test_rsa(void)
{
    char *copy = strdup(g_sizes), *save = NULL;

    for (char *t = strtok_r(copy, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save))
        test_variants("RSA", atoi(t));
    free(copy);
}

static void test_rsa_pss(void)
{
    test_variants("RSA-PSS", 2048);
}

/* The device did the work (in ASYNC jobs too), and its check caught the
 * wrong CRT results. */
static void test_counters(void)
{
    cpt_alg_stats st;
    char why[256];
    char *doc;
    size_t len;

    CPT_CHECK(g_async_tasks == 0 || g_async_paused > 0,
        "ASYNC signatures paused for the device (%zu of %zu)", g_async_paused, g_async_tasks);
    if (g_env.stats_dir[0] == '\0') {
        cpt_info("no stats dir: counters not checked");
        return;
    }
    usleep(300 * 1000); /* the driver's counters reach the area 4 times a second */
    CPT_CHECK(cpt_stats_read(g_env.stats_dir, "cptprov", getpid(), "RSA", &st, why, sizeof(why))
            && st.found && st.device > 0,
        "the statistics show RSA operations on the device (%lld)", st.device);
    doc = cpt_stats_json(g_env.stats_dir, getpid(), &len);
    CPT_CHECK(cpt_stats_device_counter(doc, "results_rejected") > 0
            && cpt_stats_device_counter(doc, "results_recomputed") > 0
            && cpt_stats_device_counter(doc, "results_recomputed")
                < cpt_stats_device_counter(doc, "results_rejected"),
        "the statistics show wrong results rejected (%lld), some recomputed (%lld)",
        cpt_stats_device_counter(doc, "results_rejected"),
        cpt_stats_device_counter(doc, "results_recomputed"));
    free(doc);
}

static const cpt_named_test g_tests[] = {
    { "rsa", test_rsa },
    { "rsa-pss", test_rsa_pss },
    { "counters", test_counters },
};

int main(int argc, char **argv)
{
    cpt_opts_init(&g_o);
    for (int i = 1; i < argc; i++) {
        int rc = cpt_opts_parse_one(&g_o, argc, argv, &i);

        if (rc == 1)
            continue;
        if (rc == 0 && i + 1 < argc && strcmp(argv[i], "--sizes") == 0) {
            g_sizes = argv[++i];
            continue;
        }
        fprintf(stderr, "usage: %s [common options] [--sizes \"1024 2048 ...\"]\n", argv[0]);
        cpt_opts_usage(stderr);
        return 2;
    }
    if (!cpt_env_init(&g_env, &g_o))
        return 1;
    cpt_rng_seed(&g_rng, g_o.seed, 16);
    printf("rsakey_test: provider %s, seed %llu\n", g_env.name, (unsigned long long)g_o.seed);
    cpt_run_tests(&g_o, g_tests, sizeof(g_tests) / sizeof(g_tests[0]));
    cpt_env_free(&g_env);
    return cpt_finish();
}
