/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fault_test.c - cptprov while the device misbehaves (CPTPROV_FAULTS).
 *
 * Runs operations of nine kinds through cptprov -- SHA-256 and AES-256-GCM
 * of 40 KiB, HMAC-SHA256, RSA-2048 PKCS#1 signatures, RSA-2048 PKCS#1,
 * OAEP and TLS pre-master-secret decryptions, ECDH P-256 and X25519
 * derivations -- synchronously and inside ASYNC jobs, and compares every
 * output with the default provider's. The TLS mode is the one where a
 * wrong private-key result would pass unnoticed: a bad padding yields
 * random bytes and success. With --expect ok (the software
 * fallback on) every operation must succeed with the right output; with
 * --expect clean (fallback off) each must either succeed with the right
 * output or fail with an error on the error queue, and some must fail. In
 * both: no wrong output, no job left hanging, the fds back where they were.
 * Ends with a summary line of what the statistics area says the device and
 * the driver did (faults, device failures, retries, fallbacks, timeouts).
 *
 * With --soak S it then goes on for S seconds of such rounds: the resident
 * set must stay flat after a warm-up (a leak check with a stated limit)
 * and the fds where they were.
 *
 * Usage: fault_test [common options] --expect ok|clean [--ops N] [--soak SECONDS]
 * The fault plan and the policy come from the environment: CPTPROV_FAULTS,
 * CPTPROV_FALLBACK, CPTPROV_REQUEST_TIMEOUT_MS.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "common.h"

enum { K_SHA, K_GCM, K_HMAC, K_RSA, K_RSA_PKCS1, K_RSA_OAEP, K_RSA_TLS, K_ECDH, K_X25519, NKINDS };
static const char *const kind_name[NKINDS] = { "SHA-256", "AES-256-GCM", "HMAC-SHA256", "RSA-2048",
    "RSA-2048-decrypt-PKCS1", "RSA-2048-decrypt-OAEP", "RSA-2048-decrypt-TLS", "ECDH-P256",
    "X25519" };

#define BIG 40960 /* above every CPU-path threshold: the device's business */
#define OUTSZ (BIG + 64)

static cpt_env g_env;
static unsigned char g_data[BIG], g_key[32], g_iv[12];
static EVP_PKEY *g_rsa, *g_ec[2], *g_x[2]; /* made by the default provider */
static unsigned char g_want[NKINDS][OUTSZ];
/* Ciphertexts of g_data's first 48 bytes for the decryption kinds (by
 * the default provider; the TLS one carries version 0x0303 first). */
static unsigned char g_ct[3][256];
static size_t g_want_len[NKINDS];

static size_t op_digest(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    EVP_MD *md = EVP_MD_fetch(lc, "SHA2-256", pq);
    unsigned int l = 0;
    int ok = md != NULL && EVP_Digest(g_data, BIG, out, &l, md, NULL);

    EVP_MD_free(md);
    return ok ? l : 0;
}

static size_t op_gcm(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    EVP_CIPHER *c = EVP_CIPHER_fetch(lc, "AES-256-GCM", pq);
    EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
    int l1 = 0, l2 = 0, ok;

    ok = c != NULL && cc != NULL && EVP_EncryptInit_ex2(cc, c, g_key, g_iv, NULL)
        && EVP_EncryptUpdate(cc, out, &l1, g_data, BIG) && EVP_EncryptFinal_ex(cc, out + l1, &l2)
        && EVP_CIPHER_CTX_ctrl(cc, EVP_CTRL_AEAD_GET_TAG, 16, out + l1 + l2) > 0;
    EVP_CIPHER_CTX_free(cc);
    EVP_CIPHER_free(c);
    return ok ? (size_t)(l1 + l2 + 16) : 0;
}

static size_t op_hmac(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    EVP_MAC *m = EVP_MAC_fetch(lc, "HMAC", pq);
    EVP_MAC_CTX *mc = m != NULL ? EVP_MAC_CTX_new(m) : NULL;
    OSSL_PARAM p[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA2-256", 0),
        OSSL_PARAM_END };
    size_t l = 0;
    int ok = mc != NULL && EVP_MAC_init(mc, g_key, sizeof(g_key), p)
        && EVP_MAC_update(mc, g_data, 3000) && EVP_MAC_final(mc, out, &l, OUTSZ);

    EVP_MAC_CTX_free(mc);
    EVP_MAC_free(m);
    return ok ? l : 0;
}

static size_t op_sign(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lc, g_rsa, pq);
    size_t l = OUTSZ;
    int ok = pc != NULL && EVP_PKEY_sign_init(pc) > 0
        && EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) > 0
        && EVP_PKEY_CTX_set_signature_md(pc, EVP_sha256()) > 0
        && EVP_PKEY_sign(pc, out, &l, g_data, 32) > 0;

    EVP_PKEY_CTX_free(pc);
    return ok ? l : 0;
}

static const int dec_pad[3] = { RSA_PKCS1_PADDING, RSA_PKCS1_OAEP_PADDING,
    RSA_PKCS1_WITH_TLS_PADDING };

static size_t rsa_decrypt(OSSL_LIB_CTX *lc, const char *pq, int i, unsigned char *out)
{
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lc, g_rsa, pq);
    unsigned int ver = 0x0303;
    OSSL_PARAM p[] = { OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION, &ver),
        OSSL_PARAM_END };
    size_t l = OUTSZ;
    int ok = pc != NULL && EVP_PKEY_decrypt_init(pc) > 0
        && EVP_PKEY_CTX_set_rsa_padding(pc, dec_pad[i]) > 0
        && (dec_pad[i] != RSA_PKCS1_WITH_TLS_PADDING || EVP_PKEY_CTX_set_params(pc, p) > 0)
        && EVP_PKEY_decrypt(pc, out, &l, g_ct[i], sizeof(g_ct[i])) > 0;

    EVP_PKEY_CTX_free(pc);
    return ok ? l : 0;
}

static size_t op_dec_pkcs1(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    return rsa_decrypt(lc, pq, 0, out);
}

static size_t op_dec_oaep(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    return rsa_decrypt(lc, pq, 1, out);
}

static size_t op_dec_tls(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    return rsa_decrypt(lc, pq, 2, out);
}

/* The ciphertexts, made once by the default provider. */
static int make_ciphertexts(void)
{
    int ok = 1;

    g_data[0] = 0x03;
    g_data[1] = 0x03;
    for (int i = 0; i < 3 && ok; i++) {
        EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(g_env.ref_libctx, g_rsa, "provider=default");
        size_t l = sizeof(g_ct[i]);

        ok = pc != NULL && EVP_PKEY_encrypt_init(pc) > 0
            && EVP_PKEY_CTX_set_rsa_padding(pc, i == 1 ? RSA_PKCS1_OAEP_PADDING : RSA_PKCS1_PADDING)
                > 0
            && EVP_PKEY_encrypt(pc, g_ct[i], &l, g_data, 48) > 0 && l == sizeof(g_ct[i]);
        EVP_PKEY_CTX_free(pc);
    }
    return ok;
}

static size_t derive(OSSL_LIB_CTX *lc, const char *pq, EVP_PKEY *const pair[2], unsigned char *out)
{
    EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lc, pair[0], pq);
    size_t l = OUTSZ;
    int ok = pc != NULL && EVP_PKEY_derive_init(pc) > 0 && EVP_PKEY_derive_set_peer(pc, pair[1]) > 0
        && EVP_PKEY_derive(pc, out, &l) > 0;

    EVP_PKEY_CTX_free(pc);
    return ok ? l : 0;
}

static size_t op_ecdh(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    return derive(lc, pq, g_ec, out);
}

static size_t op_x25519(OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    return derive(lc, pq, g_x, out);
}

static size_t (*const op_fn[NKINDS])(OSSL_LIB_CTX *, const char *, unsigned char *) = { op_digest,
    op_gcm, op_hmac, op_sign, op_dec_pkcs1, op_dec_oaep, op_dec_tls, op_ecdh, op_x25519 };

/* What one operation came to. */
enum { R_GOOD, R_WRONG, R_CLEAN_FAIL, R_SILENT_FAIL };

struct task {
    int kind, outcome;
    unsigned char out[OUTSZ];
    char why[300]; /* the first error of a failure */
};

static int run_task(void *arg)
{
    struct task *t = arg;
    size_t n;

    ERR_clear_error();
    n = op_fn[t->kind](g_env.libctx, g_env.propq, t->out);
    t->why[0] = '\0';
    if (n == 0) {
        t->outcome = ERR_peek_error() != 0 ? R_CLEAN_FAIL : R_SILENT_FAIL;
        const char *data = NULL;
        int flags = 0;
        unsigned long e = ERR_peek_error_data(&data, &flags);

        ERR_error_string_n(e, t->why, sizeof(t->why));
        if (data != NULL && (flags & ERR_TXT_STRING) != 0) /* cptprov's detail */
            snprintf(t->why + strlen(t->why), sizeof(t->why) - strlen(t->why), " (%s)", data);
    } else {
        t->outcome =
            n == g_want_len[t->kind] && memcmp(t->out, g_want[t->kind], n) == 0 ? R_GOOD : R_WRONG;
    }
    ERR_clear_error();
    return 1;
}

static EVP_PKEY *keygen(const char *type, const char *group)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(g_env.ref_libctx, type, NULL);
    EVP_PKEY *k = NULL;
    OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
    size_t bits = 2048;

    p[0] = group != NULL
        ? OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)group, 0)
        : OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits);
    if (c == NULL || EVP_PKEY_keygen_init(c) <= 0
        || (strcmp(type, "X25519") != 0 && !EVP_PKEY_CTX_set_params(c, p))
        || EVP_PKEY_generate(c, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(c);
    return k;
}

/* One round: the first half of the tasks synchronously, the second half in
 * ASYNC jobs. Returns 1 when no job hung. */
static int round_of(struct task *tasks, void **args, uint64_t n, int *results,
    unsigned char *paused, uint64_t seed, cpt_jobs *j)
{
    for (uint64_t i = 0; i < n / 2; i++)
        run_task(&tasks[i]);
    memset(j, 0, sizeof(*j));
    j->fn = run_task;
    j->args = args + n / 2;
    j->ntasks = n - n / 2;
    j->max_inflight = 16;
    j->spurious_pct = 10;
    j->new_wctx_pct = 30;
    j->seed = seed;
    j->timeout_s = 30;
    j->results = results;
    j->paused = paused;
    return cpt_jobs_run(j) && !j->timed_out;
}

/* Resident set size in KiB. */
static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * Rounds of operations for `seconds`: every output right (--expect ok) or
 * failed cleanly, the resident set flat after the first quarter (warm-up:
 * caches, the runtime's heap reaching its size) within limit_kib, and the
 * open fds no more than fds0.
 */
static void soak(struct task *tasks, void **args, uint64_t n, int *results, unsigned char *paused,
    uint64_t seed, double seconds, long limit_kib, int fds0, int expect_ok)
{
    double start = cpt_now(), warm = start + seconds / 4;
    long rss_warm = 0, rss_max = 0, rss0 = rss_kib();
    unsigned long rounds = 0, bad = 0, hung = 0;
    int fds_max = 0;
    cpt_jobs j;

    while (cpt_now() - start < seconds) {
        if (!round_of(tasks, args, n, results, paused, seed + rounds, &j))
            hung++;
        for (uint64_t i = 0; i < n; i++) {
            const struct task *t = &tasks[i];

            if (t->outcome == R_WRONG || t->outcome == R_SILENT_FAIL
                || (expect_ok && t->outcome != R_GOOD)) {
                if (bad++ < 10) /* which, and why: a soak's failures are rare */
                    printf("soak: round %lu: %s %s %s %s\n", rounds, i >= n / 2 ? "async" : "sync",
                        kind_name[t->kind],
                        t->outcome == R_WRONG             ? "wrong output"
                            : t->outcome == R_SILENT_FAIL ? "failed without an error on the queue"
                                                          : "failed:",
                        t->why);
            }
        }
        rounds++;
        if (cpt_now() >= warm) {
            long r = rss_kib();
            int f = cpt_open_fds(0);

            if (rss_warm == 0)
                rss_warm = r;
            rss_max = r > rss_max ? r : rss_max;
            fds_max = f > fds_max ? f : fds_max;
        }
    }
    CPT_CHECK(bad == 0 && hung == 0, "soak: %lu rounds, %lu bad operations, %lu hung rounds",
        rounds, bad, hung);
    CPT_CHECK(rss_max - rss_warm <= limit_kib,
        "soak: resident set after warm-up %ld KiB, at most %ld KiB (limit +%ld)", rss_warm, rss_max,
        limit_kib);
    /* Two more: the statistics writer may have its file open, and the
     * eventfd of a job's wait context lives until the driver completes an
     * operation the watchdog took back from a stalled engine, which may be
     * after its round (seen: fd -> anon_inode:[eventfd], gone by the end;
     * the run's leak check is fault_test's fds at exit). */
    CPT_CHECK(fds_max <= fds0 + 2, "soak: open fds between rounds at most %d (%d before)", fds_max,
        fds0);
    printf("soak: %.0f s, %lu operations, RSS %ld KiB at start, %ld after warm-up, %ld at most; "
           "fds %d, at most %d\n",
        seconds, rounds * (unsigned long)n, rss0, rss_warm, rss_max, fds0, fds_max);
}

int main(int argc, char **argv)
{
    cpt_opts o;
    const char *expect = NULL;
    uint64_t nops = 240;
    int ok = 1, fds0, fds1, leaked;
    double soak_s = 0;
    size_t count[2][4] = { { 0 } };
    struct task *tasks;
    void **args;
    int *results;
    unsigned char *paused;
    cpt_jobs j;
    cpt_rng r;

    cpt_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        int rc = cpt_opts_parse_one(&o, argc, argv, &i);

        if (rc == 1)
            continue;
        if (rc == 0 && i + 1 < argc && strcmp(argv[i], "--expect") == 0)
            expect = argv[++i];
        else if (rc == 0 && i + 1 < argc && strcmp(argv[i], "--soak") == 0)
            soak_s = atof(argv[++i]);
        else if (rc == 0 && i + 1 < argc && strcmp(argv[i], "--ops") == 0)
            ok = cpt_parse_u64(argv[++i], &nops) && nops >= NKINDS;
        else
            ok = 0;
    }
    if (!ok || expect == NULL || (strcmp(expect, "ok") != 0 && strcmp(expect, "clean") != 0)) {
        fprintf(stderr, "usage: %s [common options] --expect ok|clean [--ops N] [--soak SECONDS]\n",
            argv[0]);
        cpt_opts_usage(stderr);
        return 2;
    }
    if (!cpt_env_init(&g_env, &o))
        return 1;
    cpt_rng_seed(&r, o.seed, 7);
    cpt_rng_fill(&r, g_data, sizeof(g_data));
    cpt_rng_fill(&r, g_key, sizeof(g_key));
    cpt_rng_fill(&r, g_iv, sizeof(g_iv));
    g_rsa = keygen("RSA", NULL);
    g_ec[0] = keygen("EC", "P-256");
    g_ec[1] = keygen("EC", "P-256");
    g_x[0] = keygen("X25519", NULL);
    g_x[1] = keygen("X25519", NULL);
    CPT_CHECK(g_rsa && g_ec[0] && g_ec[1] && g_x[0] && g_x[1], "keys from the default provider");
    CPT_CHECK(g_rsa && make_ciphertexts(), "RSA ciphertexts from the default provider");
    for (int k = 0; k < NKINDS; k++)
        CPT_CHECK((g_want_len[k] = op_fn[k](g_env.ref_libctx, "provider=default", g_want[k])) > 0,
            "the default provider's %s", kind_name[k]);
    if (cpt_failed() != 0)
        return cpt_finish();
    /* Count the fds once the device (and the runtime behind it) is up. */
    {
        struct task warm = { .kind = K_SHA };

        run_task(&warm);
    }
    fds0 = cpt_open_fds(0);

    tasks = calloc(nops, sizeof(*tasks));
    args = calloc(nops, sizeof(*args));
    results = calloc(nops, sizeof(*results));
    paused = calloc(nops, 1);
    for (uint64_t i = 0; i < nops; i++) {
        tasks[i].kind = (int)(i % NKINDS);
        args[i] = &tasks[i];
    }
    CPT_CHECK(round_of(tasks, args, nops, results, paused, o.seed, &j),
        "the ASYNC jobs ran to completion (none hung)");
    for (uint64_t i = 0; i < nops; i++) {
        struct task *t = &tasks[i];

        count[i >= nops / 2][t->outcome]++;
        if (t->outcome == R_WRONG || t->outcome == R_SILENT_FAIL
            || (t->outcome != R_GOOD && expect[0] == 'o'))
            cpt_fail_line("%s %s: %s", i >= nops / 2 ? "async" : "sync", kind_name[t->kind],
                t->outcome == R_WRONG             ? "wrong output"
                    : t->outcome == R_SILENT_FAIL ? "failed without an error on the queue"
                                                  : "failed");
    }
    for (int a = 0; a < 2; a++) {
        const char *mode = a ? "async" : "sync";

        CPT_CHECK(count[a][R_WRONG] == 0, "%s: no wrong output (%zu)", mode, count[a][R_WRONG]);
        CPT_CHECK(count[a][R_SILENT_FAIL] == 0, "%s: every failure raised an error (%zu did not)",
            mode, count[a][R_SILENT_FAIL]);
        if (expect[0] == 'o')
            CPT_CHECK(count[a][R_CLEAN_FAIL] == 0,
                "%s: with the fallback, no operation fails (%zu did)", mode,
                count[a][R_CLEAN_FAIL]);
    }
    if (expect[0] == 'c')
        CPT_CHECK(count[0][R_CLEAN_FAIL] + count[1][R_CLEAN_FAIL] > 0,
            "without the fallback some operations fail (the faults were active)");
    /* Every request slot and fd comes back once the device has drained. */
    /* Not more than before (a file the statistics writer had open when fds0
     * was counted may be closed now). */
    for (int tries = 0; tries < 50 && (fds1 = cpt_open_fds(0)) > fds0; tries++)
        usleep(100 * 1000);
    CPT_CHECK(fds1 <= fds0, "no more open fds than the %d before (%d)", fds0, fds1);
    leaked = fds1 > fds0 ? fds1 - fds0 : 0;
    if (g_env.stats_dir[0] != '\0') {
        long long faults, fallbacks, failures, retries, rejected, recomputed;
        const char *plan = getenv("CPTPROV_FAULTS");

        size_t len;
        char *doc;

        usleep(300 * 1000); /* device counters reach the statistics area 4 times a second */
        doc = cpt_stats_json(g_env.stats_dir, getpid(), &len);
        if (cpt_stats_device_counter(doc, "faults") < 0) {
            /* No device process at all (absent, no fallback): nothing to count. */
            CPT_CHECK(expect[0] == 'c', "the statistics area exists");
            printf("summary: plan \"%s\", fallback off: no device; operations %llu, wrong %zu, "
                   "failed cleanly "
                   "%zu, hangs %d, fd leaks %d\n",
                getenv("CPTPROV_FAULTS") ? getenv("CPTPROV_FAULTS") : "", (unsigned long long)nops,
                count[0][R_WRONG] + count[1][R_WRONG],
                count[0][R_CLEAN_FAIL] + count[1][R_CLEAN_FAIL], j.timed_out, leaked);
            free(doc);
            goto done;
        }
        faults = cpt_stats_device_counter(doc, "faults");
        fallbacks = cpt_stats_device_counter(doc, "fallbacks");
        failures = cpt_stats_device_counter(doc, "device_failures");
        retries = cpt_stats_device_counter(doc, "retries");
        rejected = cpt_stats_device_counter(doc, "results_rejected");
        recomputed = cpt_stats_device_counter(doc, "results_recomputed");
        /* A wrong CRT result is caught and recomputed: with CRT faults it
         * is the check, not luck, that kept every output right. */
        if (plan != NULL && strstr(plan, "crt") != NULL)
            CPT_CHECK(rejected > 0 && recomputed == rejected,
                "CRT faults caught by the result check: %lld "
                "rejected, %lld recomputed",
                rejected, recomputed);
        else
            CPT_CHECK(rejected == 0, "no private-key result rejected without CRT faults (%lld)",
                rejected);
        CPT_CHECK(faults > 0 || getenv("CPTPROV_FAULTS") == NULL
                || strcmp(getenv("CPTPROV_FAULTS"), "absent") == 0,
            "the statistics show the injected faults (%lld)", faults);
        if (expect[0] == 'o')
            CPT_CHECK(failures <= retries + fallbacks,
                "every device failure was retried or computed in "
                "software (failures %lld, retries %lld, fallbacks %lld)",
                failures, retries, fallbacks);
        else
            CPT_CHECK(fallbacks == 0, "no fallback with the fallback off (%lld)", fallbacks);
        printf("summary: plan \"%s\", fallback %s: faults injected %lld, operations %llu (sync "
               "%llu, async "
               "%llu), wrong %zu, failed cleanly %zu, hangs %d, fd leaks %d; device failures %lld, "
               "retries "
               "%lld, fallbacks %lld, timeouts %lld, resets %lld, private-key results rejected "
               "%lld (recomputed %lld)\n",
            plan != NULL ? plan : "",
            getenv("CPTPROV_FALLBACK") ? getenv("CPTPROV_FALLBACK") : "on", faults,
            (unsigned long long)nops, (unsigned long long)(nops / 2),
            (unsigned long long)(nops - nops / 2), count[0][R_WRONG] + count[1][R_WRONG],
            count[0][R_CLEAN_FAIL] + count[1][R_CLEAN_FAIL], j.timed_out, leaked, failures, retries,
            fallbacks,
            cpt_stats_device_counter(doc, "timeouts")
                + cpt_stats_device_counter(doc, "ae_timeouts"),
            cpt_stats_device_counter(doc, "resets"), rejected, recomputed);
        free(doc);
    }
done:
    if (soak_s > 0)
        soak(tasks, args, nops, results, paused, o.seed, soak_s, 4 * 1024, fds0, expect[0] == 'o');
    free(tasks);
    free(args);
    free(results);
    free(paused);
    EVP_PKEY_free(g_rsa);
    for (int i = 0; i < 2; i++) {
        EVP_PKEY_free(g_ec[i]);
        EVP_PKEY_free(g_x[i]);
    }
    cpt_env_free(&g_env);
    return cpt_finish();
}
