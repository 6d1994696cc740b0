/*
 * The provider entry point. Everything here runs at load or configuration
 * time, possibly in a parent that forks workers afterwards: it must not
 * start the Go runtime, and it does not.
 */

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <pthread.h>
#include "cptprov.h"

static OSSL_FUNC_core_get_params_fn *c_get_params;

static const OSSL_PARAM provider_gettable_params[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
    OSSL_PARAM_END
};

static const OSSL_PARAM *cptprov_gettable_params(void *provctx)
{
    (void)provctx;
    return provider_gettable_params;
}

static int cptprov_get_params(void *provctx, OSSL_PARAM params[])
{
    OSSL_PARAM *p;

    (void)provctx;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, "cptprov: OCTEON CPT offload (simulator backend)"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, CPTPROV_VERSION))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, "cptprov " CPTPROV_VERSION " built " __DATE__))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL
        && !OSSL_PARAM_set_int(p, 1))
        return 0;
    return 1;
}

static const OSSL_ALGORITHM *cptprov_query(void *provctx, int operation_id, int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    switch (operation_id) {
    case OSSL_OP_CIPHER:
        return cptprov_ciphers;
    case OSSL_OP_DIGEST:
        return cptprov_digests;
    case OSSL_OP_MAC:
        return cptprov_macs;
    case OSSL_OP_KEYMGMT:
        return cptprov_keymgmts;
    case OSSL_OP_KEYEXCH:
        return cptprov_keyexchs;
    case OSSL_OP_SIGNATURE:
        return cptprov_signatures;
    case OSSL_OP_ASYM_CIPHER:
        return cptprov_asym_ciphers;
    }
    return NULL;
}

/* Static tables only: libssl asks at SSL_CTX_new time, before any fork. */
static int cptprov_get_capabilities(void *provctx, const char *capability, OSSL_CALLBACK *cb,
    void *arg)
{
    (void)provctx;
    if (OPENSSL_strcasecmp(capability, "TLS-GROUP") == 0)
        return cptprov_tls_groups(cb, arg);
    return 0;
}

static const OSSL_ITEM *cptprov_get_reason_strings(void *provctx)
{
    (void)provctx;
    return cptprov_reason_strings;
}

static void cptprov_teardown(void *provctx)
{
    struct cptprov_ctx *p = provctx;

    cptprov_loader_teardown();
    if (p != NULL) {
        OPENSSL_free(p->stats_dir);
        OPENSSL_free(p->faults);
        OPENSSL_free(p);
    }
}

static const OSSL_DISPATCH cptprov_dispatch[] = {
    { OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))cptprov_teardown },
    { OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))cptprov_gettable_params },
    { OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))cptprov_get_params },
    { OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))cptprov_query },
    { OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))cptprov_get_reason_strings },
    { OSSL_FUNC_PROVIDER_GET_CAPABILITIES, (void (*)(void))cptprov_get_capabilities },
    { 0, NULL }
};

/*
 * The CPU path's library context: the default provider only, created on
 * first use (never at load) and kept for the life of the process, since
 * contexts of every cptprov instance may hold its ciphers.
 */
static OSSL_LIB_CTX *cpu_libctx;
static pthread_once_t cpu_libctx_once = PTHREAD_ONCE_INIT;

static void cpu_libctx_init(void)
{
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();

    if (lc != NULL && OSSL_PROVIDER_load(lc, "default") == NULL) {
        OSSL_LIB_CTX_free(lc);
        lc = NULL;
    }
    cpu_libctx = lc;
}

OSSL_LIB_CTX *cptprov_cpu_libctx(void)
{
    pthread_once(&cpu_libctx_once, cpu_libctx_init);
    return cpu_libctx;
}

/*
 * The CPU path's thresholds per family of algorithms, in bytes: the first
 * size where the device path comes within 10% of the CPU path in
 * tests/bench_crossover.sh (README, "Performance"). Configurable per family
 * (cpu_threshold_<family>) or for all (cpu_threshold).
 */
static const struct {
    const char *key;
    size_t dflt;
    int ids[7];
} cpu_families[] = {
    { "cpu_threshold_aes_cbc", 4096, { CPT_ALG_AES_128_CBC, CPT_ALG_AES_192_CBC, CPT_ALG_AES_256_CBC } },
    { "cpu_threshold_aes_ctr", 4096, { CPT_ALG_AES_128_CTR, CPT_ALG_AES_192_CTR, CPT_ALG_AES_256_CTR } },
    { "cpu_threshold_des_ede3_cbc", CPT_DES_EDE3_THRESHOLD, { CPT_ALG_DES_EDE3_CBC } },
    { "cpu_threshold_chacha20", CPT_CHACHA20_THRESHOLD, { CPT_ALG_CHACHA20 } },
    { "cpu_threshold_chacha20_poly1305", CPT_CHACHA20_POLY1305_THRESHOLD,
        { CPT_ALG_CHACHA20_POLY1305 } },
    { "cpu_threshold_sha1", CPT_SHA1_THRESHOLD, { CPT_ALG_MD_BASE + CPT_MD_SHA1 } },
    { "cpu_threshold_sha256", CPT_SHA256_THRESHOLD,
        { CPT_ALG_MD_BASE + CPT_MD_SHA224, CPT_ALG_MD_BASE + CPT_MD_SHA256 } },
    { "cpu_threshold_sha512", CPT_SHA512_THRESHOLD,
        { CPT_ALG_MD_BASE + CPT_MD_SHA384, CPT_ALG_MD_BASE + CPT_MD_SHA512,
            CPT_ALG_MD_BASE + CPT_MD_SHA512_224, CPT_ALG_MD_BASE + CPT_MD_SHA512_256 } },
    { "cpu_threshold_hmac", CPT_HMAC_THRESHOLD,
        { CPT_ALG_MAC_BASE + CPT_MD_SHA1, CPT_ALG_MAC_BASE + CPT_MD_SHA224,
            CPT_ALG_MAC_BASE + CPT_MD_SHA256, CPT_ALG_MAC_BASE + CPT_MD_SHA384,
            CPT_ALG_MAC_BASE + CPT_MD_SHA512, CPT_ALG_MAC_BASE + CPT_MD_SHA512_224,
            CPT_ALG_MAC_BASE + CPT_MD_SHA512_256 } },
    { "cpu_threshold_aes_cbc_hmac", CPT_AES_CBC_HMAC_THRESHOLD,
        { CPT_ALG_AES_128_CBC_HMAC_SHA1, CPT_ALG_AES_256_CBC_HMAC_SHA1,
            CPT_ALG_AES_128_CBC_HMAC_SHA256, CPT_ALG_AES_256_CBC_HMAC_SHA256 } },
};
#define NFAMILIES (sizeof(cpu_families) / sizeof(cpu_families[0]))

/* Sets the thresholds: defaults, cpu_threshold, cpu_threshold_<family>,
 * then CPTPROV_CPU_THRESHOLD (tests) over everything. */
static void set_thresholds(struct cptprov_ctx *p, const char *all, char *const *family)
{
    const char *env = getenv("CPTPROV_CPU_THRESHOLD");

    for (size_t f = 0; f < NFAMILIES; f++) {
        const char *v = family[f] != NULL ? family[f] : all;
        size_t t = v != NULL ? (size_t)strtoull(v, NULL, 10) : cpu_families[f].dflt;

        if (env != NULL && env[0] != '\0')
            t = (size_t)strtoull(env, NULL, 10);
        for (size_t i = 0; i < 7 && cpu_families[f].ids[i] != 0; i++)
            p->cpu_threshold[cpu_families[f].ids[i]] = t;
    }
}

/* Reads the provider's configuration section (strings only at this stage). */
/* on/off, yes/no, true/false, 1/0: 1 or 0; -1 for anything else. */
static int parse_switch(const char *v)
{
    static const char *const on[] = { "on", "yes", "true", "1" }, *const off[] = { "off", "no", "false", "0" };

    for (size_t i = 0; i < 4; i++) {
        if (OPENSSL_strcasecmp(v, on[i]) == 0)
            return 1;
        if (OPENSSL_strcasecmp(v, off[i]) == 0)
            return 0;
    }
    return -1;
}

/* A non-negative decimal integer below limit into *out; 0 if v is not one. */
static int parse_count(const char *v, long limit, int *out)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < 0 || n >= limit)
        return 0;
    *out = (int)n;
    return 1;
}

/*
 * The fault-handling policy: fallback, request_timeout_ms, retries,
 * breaker_threshold, breaker_cooldown_ms; CPTPROV_FALLBACK and
 * CPTPROV_REQUEST_TIMEOUT_MS (tests) override the first two. A bad value
 * refuses activation, naming the key, the value and what is accepted.
 */
static int set_policy(struct cptprov_ctx *p, char *const v[5])
{
    static const char *const keys[5] = { "fallback", "request_timeout_ms", "retries", "breaker_threshold",
        "breaker_cooldown_ms" };
    const char *env;
    const char *val[5];
    int *out[5] = { &p->cfg.fallback, &p->cfg.timeout_ms, &p->cfg.retries, &p->cfg.breaker_threshold,
        &p->cfg.breaker_cooldown_ms };

    for (int i = 0; i < 5; i++)
        val[i] = v[i];
    if ((env = getenv("CPTPROV_FALLBACK")) != NULL && env[0] != '\0')
        val[0] = env;
    if ((env = getenv("CPTPROV_REQUEST_TIMEOUT_MS")) != NULL && env[0] != '\0')
        val[1] = env;
    p->cfg.fallback = 1;
    for (int i = 0; i < 5; i++) {
        int ok;

        if (val[i] == NULL)
            continue;
        if (i == 0)
            ok = (p->cfg.fallback = parse_switch(val[i])) >= 0;
        else
            ok = parse_count(val[i], i == 2 ? 11 : 3600 * 1000 + 1, out[i]) && (i == 2 || *out[i] > 0);
        if (!ok) {
            cptprov_raise(p, CPT_R_BAD_CONFIG, OPENSSL_FILE, OPENSSL_LINE, "read_config",
                "cptprov: %s = \"%s\" is not valid: %s", keys[i], val[i],
                i == 0 ? "use on or off" : i == 2 ? "use 0 to 10" : "use a whole number from 1 to 3600000");
            return 0;
        }
    }
    if (val[2] != NULL && p->cfg.retries == 0)
        p->cfg.retries = -1; /* 0 in the file: no retry (0 in the ABI: the default) */
    return 1;
}

static int read_config(const OSSL_CORE_HANDLE *handle, struct cptprov_ctx *p)
{
    char *stats_dir = NULL, *engines = NULL, *depth = NULL, *faults = NULL, *cpu = NULL;
    char *spin = NULL, *policy[5] = { NULL };
    char *family[NFAMILIES] = { NULL };
    OSSL_PARAM params[12 + NFAMILIES] = {
        OSSL_PARAM_utf8_ptr("fallback", &policy[0], 0),
        OSSL_PARAM_utf8_ptr("request_timeout_ms", &policy[1], 0),
        OSSL_PARAM_utf8_ptr("retries", &policy[2], 0),
        OSSL_PARAM_utf8_ptr("breaker_threshold", &policy[3], 0),
        OSSL_PARAM_utf8_ptr("breaker_cooldown_ms", &policy[4], 0),
        OSSL_PARAM_utf8_ptr("engine_spin_us", &spin, 0),
        OSSL_PARAM_utf8_ptr("cpu_threshold", &cpu, 0),
        OSSL_PARAM_utf8_ptr("stats_dir", &stats_dir, 0),
        OSSL_PARAM_utf8_ptr("engines", &engines, 0),
        OSSL_PARAM_utf8_ptr("ring_depth", &depth, 0),
        OSSL_PARAM_utf8_ptr("faults", &faults, 0),
    };
    const char *env;

    for (size_t f = 0; f < NFAMILIES; f++)
        params[11 + f] = OSSL_PARAM_construct_utf8_ptr(cpu_families[f].key, &family[f], 0);
    params[11 + NFAMILIES] = OSSL_PARAM_construct_end();
    if (c_get_params == NULL || !c_get_params(handle, params))
        return 0;
    if (stats_dir != NULL && stats_dir[0] != '\0')
        p->stats_dir = OPENSSL_strdup(stats_dir);
    if ((env = getenv("CPTPROV_FAULTS")) != NULL && env[0] != '\0')
        faults = (char *)env;
    if (faults != NULL && faults[0] != '\0')
        p->faults = OPENSSL_strdup(faults);
    if (engines != NULL)
        p->cfg.se_engines = p->cfg.ae_engines = atoi(engines);
    if (depth != NULL)
        p->cfg.ring_depth = atoi(depth);
    if (spin != NULL)
        p->cfg.spin_us = atoi(spin);
    set_thresholds(p, cpu, family);
    if (!set_policy(p, policy))
        return 0;
    p->cfg.stats_dir = p->stats_dir;
    p->cfg.cpu_counters = cptprov_cpu_counters;
    p->cfg.faults = p->faults;
    return 1;
}

/*
 * Keep this module mapped for the life of the process: wait contexts and
 * atexit hold pointers to its functions, and the Go half it loads can never
 * be unloaded anyway.
 */
static void pin_module(void)
{
    Dl_info info;

    if (dladdr((void *)pin_module, &info) != 0 && info.dli_fname != NULL)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

__attribute__((visibility("default")))
int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
    const OSSL_DISPATCH **out, void **provctx)
{
    struct cptprov_ctx *p;
    const OSSL_DISPATCH *d;

    for (d = in; d->function_id != 0; d++)
        if (d->function_id == OSSL_FUNC_CORE_GET_PARAMS)
            c_get_params = OSSL_FUNC_core_get_params(d);
    if (!cptprov_errors_init(in) || !cptprov_loader_init())
        return 0;
    p = OPENSSL_zalloc(sizeof(*p));
    if (p == NULL)
        return 0;
    p->handle = handle;
    if (!read_config(handle, p)) {
        cptprov_teardown(p);
        return 0;
    }
    pin_module();
    *out = cptprov_dispatch;
    *provctx = p;
    return 1;
}
