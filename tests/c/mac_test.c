/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mac_test - HMAC of the provider under test over SHA-1 and SHA-2 against
 * OpenSSL's default provider: random keys (empty to longer than a block)
 * and messages (0 bytes to 1 MiB) in random updates, so that messages
 * start on the CPU path or on the device; contexts copied mid-message;
 * re-inits without a key; digests only the CPU path has (MD5, SHA-3); RFC
 * 4231 vectors; ASYNC jobs; counters.
 *
 *   mac_test [common options] [--iters N] [--maxlen BYTES]
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "common.h"

#define g_names cpt_sha_names
#define NMD CPT_NSHA

static cpt_opts g_o;
static cpt_env g_env;
static EVP_MAC *g_tm, *g_rm; /* under test, reference */
static int g_used[NMD];
static uint64_t g_iters = 300;
static size_t g_maxlen = 1 << 20;

static EVP_MAC *fetch(int ref)
{
    const char *want = ref ? "default" : g_env.name;
    char propq[96];
    EVP_MAC *m;

    snprintf(propq, sizeof(propq), "provider=%s", want);
    m = EVP_MAC_fetch(ref ? g_env.ref_libctx : g_env.libctx, "HMAC", propq);
    if (m != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_MAC_get0_provider(m)), want) != 0) {
        EVP_MAC_free(m);
        m = NULL;
    }
    return m;
}

/*
 * HMACs msg (updates of random sizes when r != NULL), copying the context
 * halfway when copy is set; with again, then a second message with a
 * re-init without key. Returns the MAC length, 0 on failure.
 */
static size_t mac(EVP_MAC *m, const char *md, const unsigned char *key, size_t keylen,
    const unsigned char *msg, size_t len, unsigned char *out, cpt_rng *r, int copy)
{
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(m), *dup = NULL;
    OSSL_PARAM params[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md, 0),
        OSSL_PARAM_END };
    size_t off = 0, n = 0;
    int ok = ctx != NULL && EVP_MAC_init(ctx, key, keylen, params);

    while (ok && off < len) {
        size_t k = cpt_pick_chunk(r, len - off);

        ok = EVP_MAC_update(ctx, msg + off, k);
        off += k;
        if (ok && copy && dup == NULL && off >= len / 2) {
            ok = (dup = EVP_MAC_CTX_dup(ctx)) != NULL
                && EVP_MAC_update(ctx, (const unsigned char *)"x", 1);
            EVP_MAC_CTX_free(ctx);
            ctx = dup;
        }
    }
    if (!ok || !EVP_MAC_final(ctx, out, &n, 64))
        n = 0;
    EVP_MAC_CTX_free(ctx);
    return n;
}

static void test_differential(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 1);
    for (uint64_t it = 0; it < g_iters; it++) {
        size_t i = it % NMD, len = cpt_pick_len(&r, 50, 90, 40000, g_maxlen),
               keylen = (size_t)cpt_rng_below(&r, 300), wl, gl;
        unsigned char *msg = malloc(len + 1), key[300], want[64], got[64];
        int copy = cpt_rng_pct(&r, 25);

        cpt_rng_fill(&r, msg, len);
        cpt_rng_fill(&r, key, keylen);
        wl = mac(g_rm, g_names[i], key, keylen, msg, len, want, NULL, 0);
        gl = mac(g_tm, g_names[i], key, keylen, msg, len, got, &r, copy);
        CPT_CHECK(wl != 0 && gl == wl && memcmp(got, want, wl) == 0,
            "HMAC-%s, %zu-byte key, %zu bytes (copied halfway: %d, seed %llu, iter %llu) equals "
            "the default provider's",
            g_names[i], keylen, len, copy, (unsigned long long)g_o.seed, (unsigned long long)it);
        g_used[i] = 1;
        free(msg);
    }
}

/*
 * HMAC over digests cptprov does not offer (TLS 1.0's MD5, SHA-3) still
 * works when cptprov's HMAC is the one fetched: on the CPU path.
 */
static void test_other_digests(void)
{
    static const char *const others[] = { "MD5", "SHA3-256", "SHA3-512" };
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 5);
    for (size_t k = 0; k < 30; k++) {
        const char *md = others[k % 3];
        size_t len = k % 5 == 0 ? 100000 : (size_t)cpt_rng_below(&r, 3000),
               kl = (size_t)cpt_rng_below(&r, 200);
        unsigned char *msg = malloc(len + 1), key[200], want[64], got[64];
        size_t wl, gl;

        cpt_rng_fill(&r, msg, len);
        cpt_rng_fill(&r, key, kl);
        wl = mac(g_rm, md, key, kl, msg, len, want, NULL, 0);
        gl = mac(g_tm, md, key, kl, msg, len, got, &r, k % 2);
        CPT_CHECK(wl != 0 && gl == wl && memcmp(got, want, wl) == 0,
            "HMAC-%s of %zu bytes equals the default provider's", md, len);
        free(msg);
    }
}

/* One context, several messages: re-init without a key keeps it. */
static void test_reinit(void)
{
    static unsigned char msg[70000] = { 2 };
    unsigned char key[20] = { 1 }, out[2][128];

    for (size_t i = 0; i < NMD; i++) {
        int ok = 1;

        for (int p = 0; p < 2; p++) {
            EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(p ? g_tm : g_rm);
            OSSL_PARAM params[] = {
                OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)g_names[i], 0), OSSL_PARAM_END
            };
            size_t n;

            memset(out[p], 0, sizeof(out[p]));
            /* a short message (CPU path), then a long one (device) */
            ok = ok && ctx != NULL && EVP_MAC_init(ctx, key, sizeof(key), params)
                && EVP_MAC_update(ctx, msg, 10) && EVP_MAC_final(ctx, out[p], &n, 64)
                && EVP_MAC_init(ctx, NULL, 0, NULL) && EVP_MAC_update(ctx, msg, sizeof(msg))
                && EVP_MAC_final(ctx, out[p] + 64, &n, 64);
            EVP_MAC_CTX_free(ctx);
        }
        CPT_CHECK(ok && memcmp(out[0], out[1], sizeof(out[0])) == 0,
            "HMAC-%s: messages after a re-init without a key agree", g_names[i]);
        g_used[i] = 1;
    }
}

/* RFC 4231 test cases 1 and 2. */
static void test_kat(void)
{
    static const struct {
        const char *md, *key_hex, *data, *mac_hex;
    } v[] = {
        { "SHA2-224", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There",
            "896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22" },
        { "SHA2-256", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
        { "SHA2-384", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There",
            "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152"
            "e8b2fa9cb6" },
        { "SHA2-512", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There",
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b27"
            "4eaea3f4e4be9d914eeb61f1702e696c203a126854" },
        { "SHA2-224", "4a656665", "what do ya want for nothing?",
            "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44" },
        { "SHA2-256", "4a656665", "what do ya want for nothing?",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
        { "SHA2-384", "4a656665", "what do ya want for nothing?",
            "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239"
            "ecfab21649" },
        { "SHA2-512", "4a656665", "what do ya want for nothing?",
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f"
            "65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737" },
    };

    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
        unsigned char *key = NULL, *want = NULL, got[64];
        size_t kl, wl, gl;

        if (!CPT_CHECK(cpt_hex_decode(v[k].key_hex, &key, &kl)
                    && cpt_hex_decode(v[k].mac_hex, &want, &wl),
                "vector %zu is well formed", k))
            goto next;
        for (int prov = 0; prov < 2; prov++) {
            gl = mac(prov ? g_tm : g_rm, v[k].md, key, kl, (const unsigned char *)v[k].data,
                strlen(v[k].data), got, NULL, 0);
            CPT_CHECK(gl == wl && memcmp(got, want, wl) == 0, "RFC 4231 HMAC-%s vector %zu (%s)",
                v[k].md, k, prov ? g_env.name : "default");
        }
    next:
        free(key);
        free(want);
    }
}

struct job {
    size_t i;
    unsigned char key[32], *msg, out[64];
    size_t len, n;
};

static int job_fn(void *arg)
{
    struct job *j = arg;

    j->n = mac(g_tm, g_names[j->i], j->key, sizeof(j->key), j->msg, j->len, j->out, NULL, 0);
    return j->n != 0;
}

static void job_make(void *job, int k, cpt_rng *r)
{
    struct job *jb = job;

    jb->i = (size_t)k % NMD;
    jb->len = 65536 + (size_t)cpt_rng_below(r, 40000); /* on the device */
    jb->msg = malloc(jb->len);
    cpt_rng_fill(r, jb->msg, jb->len);
    cpt_rng_fill(r, jb->key, sizeof(jb->key));
}

static void job_check(void *job, int k)
{
    struct job *jb = job;
    unsigned char want[64];
    size_t wl =
        mac(g_rm, g_names[jb->i], jb->key, sizeof(jb->key), jb->msg, jb->len, want, NULL, 0);

    CPT_CHECK(jb->n == wl && memcmp(jb->out, want, wl) == 0,
        "async job %d (HMAC-%s, %zu bytes) equals the default provider's", k, g_names[jb->i],
        jb->len);
    g_used[jb->i] = 1;
    free(jb->msg);
}

static void test_async(void)
{
    static const cpt_async_test t = { 64, sizeof(struct job), 4, "HMACs", job_make, job_fn,
        job_check };

    cpt_async_run(&g_env, g_o.seed, &t);
}

/* Messages started on either path: the counters show both. */
static void test_stats(void)
{
    for (size_t i = 0; i < NMD; i++) {
        char name[64];

        snprintf(name, sizeof(name), "HMAC-%s", g_names[i]);
        if (g_used[i])
            cpt_stats_check_paths(&g_env, &g_o, name);
    }
}

static const cpt_named_test g_tests[] = {
    { "kat", test_kat },
    { "differential", test_differential },
    { "reinit", test_reinit },
    { "other-digests", test_other_digests },
    { "async", test_async },
    { "stats", test_stats },
};

int main(int argc, char **argv)
{
    int rc = cpt_harness_start("mac_test", &g_o, &g_env, argc, argv, &g_iters, &g_maxlen);

    if (rc >= 0)
        return rc;
    g_tm = fetch(0);
    g_rm = fetch(1);
    if (!CPT_CHECK(g_tm != NULL && g_rm != NULL, "HMAC is fetched from both providers"))
        return cpt_finish();
    cpt_run_tests(&g_o, g_tests, sizeof(g_tests) / sizeof(g_tests[0]));
    EVP_MAC_free(g_tm);
    EVP_MAC_free(g_rm);
    cpt_env_free(&g_env);
    return cpt_finish();
}
