/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_ops - what an operation costs the application's thread: signs (or
 * derives) with a provider, synchronously or as ASYNC jobs, counting the
 * calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) and the wall time.
 * With cptprov in ASYNC jobs, the thread submits, pauses and sleeps in
 * poll() while the device works: its CPU per operation is the offload gain.
 *
 *   bench_ops --provider NAME [--provider-path DIR] --alg ALG
 *             [--jobs N (0: synchronous)] [--seconds S]
 *   ALG: rsa2048 rsa4096 ecdsap256 ecdsap384 ecdhp256 ecdhx25519
 *        x25519gen p256gen (key generation, as a TLS server's ECDHE share)
 *
 * Prints one line: alg=.. provider=.. jobs=.. ops=.. wall_s=.. thread_cpu_s=..
 * ops_per_s=.. cpu_us_per_op=.. proc_cpu_us_per_op=.. (the whole process:
 * the calling thread, the simulator's engines and the Go runtime, which
 * share the machine's CPUs and so bound its rate)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "common.h"

static cpt_env g_env;
static EVP_PKEY *g_key, *g_peer;
static const char *g_alg;
static int g_derive;
static const char *g_gen_type, *g_gen_group; /* key generation */

static double clock_s(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static EVP_PKEY *keygen(const char *type, const char *param, const char *value, int bits)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(g_env.libctx, type, g_env.propq);
    EVP_PKEY *k = NULL;
    OSSL_PARAM p[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
    size_t b = (size_t)bits;

    if (param != NULL)
        p[0] = OSSL_PARAM_construct_utf8_string(param, (char *)value, 0);
    else if (bits > 0)
        p[0] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &b);
    if (c == NULL || EVP_PKEY_keygen_init(c) <= 0 || !EVP_PKEY_CTX_set_params(c, p)
        || EVP_PKEY_generate(c, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(c);
    return k;
}

static int setup(void)
{
    static const struct {
        const char *name, *type, *param, *value;
        int bits, derive; /* derive 2: key generation */
    } algs[] = {
        { "rsa2048", "RSA", NULL, NULL, 2048, 0 },
        { "rsa4096", "RSA", NULL, NULL, 4096, 0 },
        { "ecdsap256", "EC", OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0, 0 },
        { "ecdsap384", "EC", OSSL_PKEY_PARAM_GROUP_NAME, "P-384", 0, 0 },
        { "ecdhp256", "EC", OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0, 1 },
        { "ecdhx25519", "X25519", NULL, NULL, 0, 1 },
        { "x25519gen", "X25519", NULL, NULL, 0, 2 },
        { "p256gen", "EC", OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0, 2 },
    };

    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
        if (strcmp(algs[i].name, g_alg) != 0)
            continue;
        g_derive = algs[i].derive;
        if (g_derive == 2) {
            g_gen_type = algs[i].type;
            g_gen_group = algs[i].value;
            return 1;
        }
        g_key = keygen(algs[i].type, algs[i].param, algs[i].value, algs[i].bits);
        if (g_derive)
            g_peer = keygen(algs[i].type, algs[i].param, algs[i].value, algs[i].bits);
        return g_key != NULL && (!g_derive || g_peer != NULL);
    }
    return 0;
}

/* One operation: a signature of a SHA-256 digest, a key derivation or a
 * key generation. */
static int one_op(void *arg)
{
    unsigned char dgst[32] = { 1, 2, 3 }, out[600];
    size_t outl = sizeof(out);
    EVP_PKEY_CTX *c;
    int ok;

    (void)arg;
    if (g_derive == 2) {
        EVP_PKEY *k = keygen(g_gen_type, g_gen_group != NULL ? OSSL_PKEY_PARAM_GROUP_NAME : NULL,
            g_gen_group, 0);

        EVP_PKEY_free(k);
        return k != NULL;
    }
    c = EVP_PKEY_CTX_new_from_pkey(g_env.libctx, g_key, g_env.propq);
    if (g_derive)
        ok = c != NULL && EVP_PKEY_derive_init(c) > 0 && EVP_PKEY_derive_set_peer(c, g_peer) > 0
            && EVP_PKEY_derive(c, out, &outl) > 0;
    else
        ok = c != NULL && EVP_PKEY_sign_init(c) > 0 && EVP_PKEY_sign(c, out, &outl, dgst, 32) > 0;
    EVP_PKEY_CTX_free(c);
    return ok;
}

int main(int argc, char **argv)
{
    static const char *const names[] = { "--alg", "--jobs", "--seconds" };
    const char *values[3] = { NULL, NULL, NULL };
    cpt_opts o;
    uint64_t jobs = 0, ops = 0;
    double seconds = 2, w0, c0, p0, wall, cpu, pcpu;
    int ok = cpt_parse_bare_args(&o, argc, argv, names, values, 3);

    g_alg = values[0];
    if (ok && values[1] != NULL)
        ok = cpt_parse_u64(values[1], &jobs);
    if (values[2] != NULL)
        seconds = atof(values[2]);
    if (!ok || g_alg == NULL || seconds <= 0) {
        fprintf(stderr, "usage: %s [common options] --alg ALG [--jobs N] [--seconds S]\n", argv[0]);
        cpt_opts_usage(stderr);
        return 2;
    }
    if (!cpt_env_init(&g_env, &o) || !setup()) {
        fprintf(stderr, "bench_ops: cannot set up %s with %s\n", g_alg, o.provider);
        ERR_print_errors_fp(stderr);
        return 1;
    }
    one_op(NULL); /* warm up: the Go runtime, the engines, the key cache */
    w0 = clock_s(CLOCK_MONOTONIC);
    c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    p0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (jobs == 0) {
        while (ok && clock_s(CLOCK_MONOTONIC) - w0 < seconds) {
            for (int k = 0; ok && k < 16; k++, ops++)
                ok = one_op(NULL);
        }
    } else {
        /* rounds of operations, jobs at a time in flight, until time is up */
        enum { ROUND = 256 };
        static void *args[ROUND];
        static int results[ROUND];
        static unsigned char paused[ROUND];

        while (ok && clock_s(CLOCK_MONOTONIC) - w0 < seconds) {
            cpt_jobs j;

            memset(&j, 0, sizeof(j));
            j.fn = one_op;
            j.args = args;
            j.ntasks = ROUND;
            j.max_inflight = (size_t)jobs;
            j.seed = 1;
            j.timeout_s = 60;
            j.results = results;
            j.paused = paused;
            ok = cpt_jobs_run(&j);
            for (int k = 0; k < ROUND; k++)
                ok = ok && results[k] == 1;
            ops += ROUND;
        }
    }
    wall = clock_s(CLOCK_MONOTONIC) - w0;
    cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    pcpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - p0;
    if (!ok) {
        fprintf(stderr, "bench_ops: an operation failed\n");
        ERR_print_errors_fp(stderr);
    } else {
        printf("alg=%s provider=%s jobs=%llu ops=%llu wall_s=%.4f thread_cpu_s=%.4f ops_per_s=%.1f "
               "cpu_us_per_op=%.3f proc_cpu_us_per_op=%.3f\n",
            g_alg, o.provider, (unsigned long long)jobs, (unsigned long long)ops, wall, cpu,
            (double)ops / wall, cpu * 1e6 / (double)ops, pcpu * 1e6 / (double)ops);
    }
    EVP_PKEY_free(g_key);
    EVP_PKEY_free(g_peer);
    cpt_env_free(&g_env);
    return ok ? 0 : 1;
}
