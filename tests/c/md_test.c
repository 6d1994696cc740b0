/* SPDX-License-Identifier: Apache-2.0 */
/*
 * md_test - the digests of the provider under test (SHA-1 and SHA-2)
 * against OpenSSL's default provider: random messages (0 bytes to 1 MiB) in
 * random update splits, so that messages start on the CPU path or on the
 * device; contexts copied mid-message; FIPS 180-4 example vectors (and the
 * million-'a' messages); the static parameters; many concurrent ASYNC jobs;
 * the provider's counters.
 *
 *   md_test [common options] [--iters N] [--maxlen BYTES]
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
static EVP_MD *g_tm[NMD], *g_rm[NMD]; /* under test, reference */
static int g_used[NMD];
static uint64_t g_iters = 300;
static size_t g_maxlen = 1 << 20;

static EVP_MD *fetch(int ref, const char *name)
{
    const char *want = ref ? "default" : g_env.name;
    char propq[96];
    EVP_MD *md;

    snprintf(propq, sizeof(propq), "provider=%s", want);
    md = EVP_MD_fetch(ref ? g_env.ref_libctx : g_env.libctx, name, propq);
    if (md != NULL && strcmp(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md)), want) != 0) {
        EVP_MD_free(md);
        md = NULL;
    }
    return md;
}

/*
 * Hashes msg in updates of random sizes (r == NULL: one update), copying
 * the context halfway when copy is set and finishing on the copy. Returns
 * the digest length, 0 on failure.
 */
static unsigned int hash(EVP_MD *md, const unsigned char *msg, size_t len, unsigned char *out,
    cpt_rng *r, int copy)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *dup = NULL;
    size_t off = 0;
    unsigned int n = 0;
    int ok = ctx != NULL && EVP_DigestInit_ex2(ctx, md, NULL);

    while (ok && off < len) {
        size_t k = cpt_pick_chunk(r, len - off);

        ok = EVP_DigestUpdate(ctx, msg + off, k);
        off += k;
        if (ok && copy && dup == NULL && off >= len / 2) {
            ok = (dup = EVP_MD_CTX_new()) != NULL && EVP_MD_CTX_copy_ex(dup, ctx);
            /* the original goes on with data of its own, which must not
             * disturb the copy */
            ok = ok && EVP_DigestUpdate(ctx, "x", 1);
            EVP_MD_CTX_free(ctx);
            ctx = dup;
        }
    }
    if (!ok || !EVP_DigestFinal_ex(ctx, out, &n))
        n = 0;
    EVP_MD_CTX_free(ctx);
    return n;
}

static void test_differential(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 1);
    for (uint64_t it = 0; it < g_iters; it++) {
        size_t i = it % NMD, len = cpt_pick_len(&r, 50, 90, 40000, g_maxlen);
        unsigned char *msg = malloc(len + 1), want[64], got[64];
        unsigned int wl, gl;
        int copy = cpt_rng_pct(&r, 25);

        cpt_rng_fill(&r, msg, len);
        wl = hash(g_rm[i], msg, len, want, NULL, 0);
        gl = hash(g_tm[i], msg, len, got, &r, copy);
        CPT_CHECK(wl != 0 && gl == wl && memcmp(got, want, wl) == 0,
            "%s of %zu bytes (copied halfway: %d, seed %llu, iter %llu) equals the default "
            "provider's",
            g_names[i], len, copy, (unsigned long long)g_o.seed, (unsigned long long)it);
        g_used[i] = 1;
        free(msg);
    }
}

/* FIPS 180-4 examples (NIST's "Example Algorithms" documents). */
static void test_kat(void)
{
    static const struct {
        const char *md, *msg, *hex;
        int million_a;
    } v[] = {
        { "SHA1", "abc", "a9993e364706816aba3e25717850c26c9cd0d89d", 0 },
        { "SHA1", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1", 0 },
        { "SHA1", NULL, "34aa973cd4c4daa4f61eeb2bdbad27316534016f", 1 },
        { "SHA2-224", "abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7", 0 },
        { "SHA2-256", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            0 },
        { "SHA2-256", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", 0 },
        { "SHA2-256", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", 0 },
        { "SHA2-256", NULL, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", 1 },
        { "SHA2-384", "abc",
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baec"
            "a134c825a7",
            0 },
        { "SHA2-512", "abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c"
            "23a3feebbd"
            "454d4423643ce80e2a9ac94fa54ca49f",
            0 },
        { "SHA2-512", NULL,
            "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb043"
            "2ce577c31b"
            "eb009c5c2c49aa2e4eadb217ad8cc09b",
            1 },
        { "SHA2-512/224", "abc", "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa", 0 },
        { "SHA2-512/256", "abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
            0 },
    };

    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
        size_t i, len = v[k].million_a ? 1000000 : strlen(v[k].msg), wl;
        unsigned char *msg = malloc(len + 1), *want = NULL, got[64];

        for (i = 0; i < NMD && strcmp(g_names[i], v[k].md) != 0; i++)
            ;
        if (v[k].million_a)
            memset(msg, 'a', len);
        else
            memcpy(msg, v[k].msg, len);
        if (CPT_CHECK(i < NMD && cpt_hex_decode(v[k].hex, &want, &wl), "vector %zu is well formed",
                k)) {
            for (int split = 0; split < 2; split++) {
                cpt_rng r;
                unsigned int gl;

                cpt_rng_seed(&r, g_o.seed, 100 + k);
                gl = hash(g_tm[i], msg, len, got, split ? &r : NULL, 0);
                CPT_CHECK(gl == wl && memcmp(got, want, wl) == 0, "%s vector %zu (%s)", v[k].md, k,
                    split ? "random updates" : "one update");
            }
            g_used[i] = 1;
        }
        free(msg);
        free(want);
    }
}

static void test_params(void)
{
    for (size_t i = 0; i < NMD; i++) {
        CPT_CHECK(EVP_MD_get_size(g_tm[i]) == EVP_MD_get_size(g_rm[i])
                && EVP_MD_get_block_size(g_tm[i]) == EVP_MD_get_block_size(g_rm[i])
                && (EVP_MD_get_flags(g_tm[i]) & EVP_MD_FLAG_XOF) == 0,
            "%s: size %d, block size %d as the default provider's", g_names[i],
            EVP_MD_get_size(g_tm[i]), EVP_MD_get_block_size(g_tm[i]));
    }
}

struct job {
    size_t i;
    unsigned char *msg, out[64];
    size_t len;
    unsigned int n;
};

static int job_fn(void *arg)
{
    struct job *j = arg;

    j->n = hash(g_tm[j->i], j->msg, j->len, j->out, NULL, 0);
    return j->n != 0;
}

static void job_make(void *job, int k, cpt_rng *r)
{
    struct job *jb = job;

    jb->i = (size_t)k % NMD;
    jb->len = 32768 + (size_t)cpt_rng_below(r, 40000); /* on the device */
    jb->msg = malloc(jb->len);
    cpt_rng_fill(r, jb->msg, jb->len);
}

static void job_check(void *job, int k)
{
    struct job *jb = job;
    unsigned char want[64];
    unsigned int wl = hash(g_rm[jb->i], jb->msg, jb->len, want, NULL, 0);

    CPT_CHECK(jb->n == wl && memcmp(jb->out, want, wl) == 0,
        "async job %d (%s, %zu bytes) equals the default provider's", k, g_names[jb->i], jb->len);
    g_used[jb->i] = 1;
    free(jb->msg);
}

static void test_async(void)
{
    static const cpt_async_test t = { 64, sizeof(struct job), 4, "digests", job_make, job_fn,
        job_check };

    cpt_async_run(&g_env, g_o.seed, &t);
}

/* Messages started on either path: the counters show both. */
static void test_stats(void)
{
    for (size_t i = 0; i < NMD; i++)
        if (g_used[i])
            cpt_stats_check_paths(&g_env, &g_o, g_names[i]);
}

static const cpt_named_test g_tests[] = {
    { "kat", test_kat },
    { "params", test_params },
    { "differential", test_differential },
    { "async", test_async },
    { "stats", test_stats },
};

int main(int argc, char **argv)
{
    int rc = cpt_harness_start("md_test", &g_o, &g_env, argc, argv, &g_iters, &g_maxlen);

    if (rc >= 0)
        return rc;
    for (size_t i = 0; i < NMD; i++) {
        g_tm[i] = fetch(0, g_names[i]);
        g_rm[i] = fetch(1, g_names[i]);
        if (!CPT_CHECK(g_tm[i] != NULL && g_rm[i] != NULL, "%s is fetched from both providers",
                g_names[i]))
            return cpt_finish();
    }
    cpt_run_tests(&g_o, g_tests, sizeof(g_tests) / sizeof(g_tests[0]));
    for (size_t i = 0; i < NMD; i++) {
        EVP_MD_free(g_tm[i]);
        EVP_MD_free(g_rm[i]);
    }
    cpt_env_free(&g_env);
    return cpt_finish();
}
