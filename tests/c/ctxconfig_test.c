/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ctxconfig_test - cptprov in several library contexts of one process. The
 * device, its queues, log and statistics area are one per process, set up
 * from the configuration of the first context that activates cptprov: a
 * further context with the same device configuration is accepted and runs
 * on that device (its CPU-path thresholds are its own), one with a
 * different device configuration is refused at activation, with the key,
 * both values and why on the error queue, instead of silently running on
 * the first one's. The contexts accepted keep working after the refusals,
 * and the counters show their digests were computed on the device.
 *
 *   ctxconfig_test [common options]   (--stats-dir is required)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "common.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static cpt_opts g_o;
/* The first context: cptprov configured with the stats_dir alone, the
 * default provider in the reference context. */
static cpt_env g_env;
static cpt_rng g_r;

/*
 * A library context whose configuration knows cptprov's section (keys, then
 * extra lines) without activating it: OSSL_PROVIDER_load then activates it
 * with that section, and its refusal stays on the error queue (OpenSSL 3.0
 * drops the errors of a provider its configuration fails to activate).
 */
static OSSL_LIB_CTX *context(const char *keys, const char *extra, OSSL_PROVIDER **prov)
{
    char conf[] = "/tmp/cpt-ctxconfig-XXXXXX.cnf";
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    int fd = mkstemps(conf, 4);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    *prov = NULL;
    if (lc == NULL || f == NULL) {
        cpt_fail_line("cannot make a library context and its configuration: %s", strerror(errno));
        OSSL_LIB_CTX_free(lc);
        return NULL;
    }
    fprintf(f,
        "openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
        "[provider_sect]\ncptprov = cptprov_sect\n"
        "[cptprov_sect]\nmodule = %s/cptprov.so\n%s%s",
        g_env.module_dir, keys, extra);
    fclose(f);
    if (!OSSL_LIB_CTX_load_config(lc, conf)) {
        cpt_fail_line("OSSL_LIB_CTX_load_config(%s) failed", conf);
        ERR_print_errors_fp(stdout);
        OSSL_LIB_CTX_free(lc);
        unlink(conf);
        return NULL;
    }
    unlink(conf);
    ERR_clear_error();
    *prov = OSSL_PROVIDER_load(lc, "cptprov");
    return lc;
}

static int collect(const char *str, size_t len, void *u)
{
    BIO_write(u, str, (int)len);
    return 1;
}

/* The error queue as text (cleared). */
static char *errors(void)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *data, *s;
    long n;

    ERR_print_errors_cb(collect, b);
    n = BIO_get_mem_data(b, &data);
    s = OPENSSL_strndup(data, (size_t)n);
    BIO_free(b);
    return s;
}

/* SHA2-256 of a message long enough for the device in lc (over the
 * default threshold), against the default provider. */
static void digest_in(OSSL_LIB_CTX *lc, const char *what)
{
    static unsigned char msg[40000];
    unsigned char md[32], ref[32];
    unsigned int n = 0, rn = 0;
    EVP_MD *m = EVP_MD_fetch(lc, "SHA2-256", "provider=cptprov");
    EVP_MD *r = EVP_MD_fetch(g_env.ref_libctx, "SHA2-256", "provider=default");
    size_t len = 33000 + (size_t)cpt_rng_below(&g_r, sizeof(msg) - 33000);
    int ok;

    cpt_rng_fill(&g_r, msg, len);
    ok = m != NULL && r != NULL && EVP_Digest(msg, len, md, &n, m, NULL)
        && EVP_Digest(msg, len, ref, &rn, r, NULL) && n == 32 && rn == 32
        && memcmp(md, ref, 32) == 0;
    if (!CPT_CHECK(ok, "%s: SHA2-256 of %zu bytes as the default provider computes it", what, len))
        ERR_print_errors_fp(stdout);
    EVP_MD_free(m);
    EVP_MD_free(r);
}

/* Device operations of SHA2-256 in this process's statistics, or -1. */
static long long device_ops(void)
{
    cpt_alg_stats st;
    char why[256];

    if (!cpt_stats_read(g_env.stats_dir, g_env.name, getpid(), "SHA2-256", &st, why, sizeof(why))
        || !st.found)
        return -1;
    return st.device;
}

/* The counters reach want: the statistics are published from time to time. */
static void check_device_ops(long long want)
{
    long long got = -1;

    for (double end = cpt_now() + 3.5; (got = device_ops()) < want && cpt_now() < end;)
        usleep(100000);
    CPT_CHECK(got >= want,
        "SHA2-256 on the device: %lld operations counted, %lld expected at least", got, want);
}

static const struct {
    const char *name, *lines, *key, *value, *first;
} g_refused[] = {
    { "ring_depth", "ring_depth = 1024\n", "ring_depth", "1024", "(default)" },
    { "log_level", "log_level = error\n", "log_level", "error", "warn" },
    { "async_notify", "async_notify = fd\n", "async_notify", "fd", "auto" },
    { "fallback", "fallback = off\n", "fallback", "off", "on" },
    { "no stats_dir", NULL, "stats_dir", "(unset)", NULL },
};

int main(int argc, char **argv)
{
    char keys[4200];
    OSSL_LIB_CTX *second;
    OSSL_PROVIDER *prov;

    if (!OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL))
        return 1;
    if (cpt_parse_harness_args(&g_o, argc, argv, NULL, NULL) != 0)
        return 2;
    if (g_o.stats_dir == NULL) {
        fprintf(stderr, "ctxconfig_test needs --stats-dir\n");
        return 2;
    }
    cpt_set_subtest("same configuration");
    if (!CPT_CHECK(cpt_env_init(&g_env, &g_o), "the first context activates cptprov"))
        return cpt_finish();
    cpt_rng_seed(&g_r, g_o.seed, 0);
    snprintf(keys, sizeof(keys), "stats_dir = %s\n", g_env.stats_dir);
    printf("ctxconfig_test: seed %llu, stats %s\n", (unsigned long long)g_o.seed, g_env.stats_dir);
    /* The CPU path's thresholds are per context: the second one's differs. */
    second = context(keys, "cpu_threshold = 100\n", &prov);
    if (!CPT_CHECK(second != NULL && prov != NULL,
            "a second context with the same device configuration "
            "activates cptprov")) {
        ERR_print_errors_fp(stdout);
        return cpt_finish();
    }
    digest_in(g_env.libctx, "first context");
    digest_in(second, "second context");
    check_device_ops(2);

    cpt_set_subtest("different configuration");
    for (size_t i = 0; i < NELEM(g_refused); i++) {
        OSSL_PROVIDER *p;
        OSSL_LIB_CTX *other;
        char *err, value[64], first[64];

        snprintf(value, sizeof(value), "\"%s\"", g_refused[i].value);
        snprintf(first, sizeof(first), "\"%s\"",
            g_refused[i].first != NULL ? g_refused[i].first : "");
        other = context(g_refused[i].lines != NULL ? keys : "",
            g_refused[i].lines != NULL ? g_refused[i].lines : "", &p);
        err = errors();
        CPT_CHECK(other != NULL && p == NULL, "%s: a context with %s = %s is refused",
            g_refused[i].name, g_refused[i].key, g_refused[i].value);
        CPT_CHECK(err != NULL && strstr(err, g_refused[i].key) != NULL && strstr(err, value) != NULL
                && (g_refused[i].first == NULL || strstr(err, first) != NULL)
                && strstr(err, "one per process") != NULL,
            "%s: the error queue names the key, both values and why: %s", g_refused[i].name,
            err != NULL ? err : "(none)");
        OPENSSL_free(err);
        OSSL_PROVIDER_unload(p);
        OSSL_LIB_CTX_free(other);
    }

    cpt_set_subtest("after the refusals");
    digest_in(g_env.libctx, "first context");
    digest_in(second, "second context");
    check_device_ops(4);

    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(second);
    cpt_env_free(&g_env);
    return cpt_finish();
}
