/* SPDX-License-Identifier: Apache-2.0 */
/*
 * common.c - shared helpers for the cptprov C test harnesses (see common.h).
 */
#include "common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>

#include "../../dpdk/shim/cptdpdk.h"

/* cptstat beside the provider module (cpt_env_init). */
static char cptstat_path[4200];

/* ================================================================== */
/* Accounting                                                          */
/* ================================================================== */

static pthread_mutex_t acc_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long acc_passed, acc_failed, acc_notes;
static unsigned long sub_base_passed, sub_base_failed, sub_base_notes;
static int acc_verbose;
static _Thread_local const char *tl_subtest = "main";

void cpt_set_verbose(int v)
{
    acc_verbose = v;
}
int cpt_verbose(void)
{
    return acc_verbose;
}

void cpt_set_subtest(const char *name)
{
    tl_subtest = name;
    pthread_mutex_lock(&acc_lock);
    sub_base_passed = acc_passed;
    sub_base_failed = acc_failed;
    sub_base_notes = acc_notes;
    pthread_mutex_unlock(&acc_lock);
}

const char *cpt_subtest(void)
{
    return tl_subtest;
}

static void vline(const char *tag, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&acc_lock);
    fprintf(stdout, "%s [%s] ", tag, tl_subtest);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&acc_lock);
}

void cpt_fail_line(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vline("FAIL", fmt, ap);
    va_end(ap);
}

void cpt_note(const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&acc_lock);
    acc_notes++;
    pthread_mutex_unlock(&acc_lock);
    va_start(ap, fmt);
    vline("NOTE", fmt, ap);
    va_end(ap);
}

void cpt_info(const char *fmt, ...)
{
    va_list ap;

    if (!acc_verbose)
        return;
    va_start(ap, fmt);
    vline("INFO", fmt, ap);
    va_end(ap);
}

int cpt_count(int ok)
{
    pthread_mutex_lock(&acc_lock);
    if (ok)
        acc_passed++;
    else
        acc_failed++;
    pthread_mutex_unlock(&acc_lock);
    return ok;
}

int cpt_check(int cond, const char *fmt, ...)
{
    if (!cond) {
        va_list ap;

        va_start(ap, fmt);
        vline("FAIL", fmt, ap);
        va_end(ap);
    }
    return cpt_count(cond);
}

int cpt_check_at(int cond, const char *file, int line, const char *fmt, ...)
{
    if (!cond) {
        char msg[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        cpt_fail_line("%s:%d: %s", file, line, msg);
        ERR_print_errors_fp(stdout);
    }
    ERR_clear_error();
    return cpt_count(cond);
}

unsigned long cpt_passed(void)
{
    return acc_passed;
}
unsigned long cpt_failed(void)
{
    return acc_failed;
}
unsigned long cpt_notes(void)
{
    return acc_notes;
}

void cpt_subtest_summary(const char *name, double seconds)
{
    pthread_mutex_lock(&acc_lock);
    printf("[%s] ok=%lu fail=%lu notes=%lu time=%.2fs\n", name, acc_passed - sub_base_passed,
        acc_failed - sub_base_failed, acc_notes - sub_base_notes, seconds);
    fflush(stdout);
    pthread_mutex_unlock(&acc_lock);
}

int cpt_finish(void)
{
    fflush(stderr);
    printf("%lu passed, %lu failed\n", acc_passed, acc_failed);
    fflush(stdout);
    return acc_failed == 0 ? 0 : 1;
}

double cpt_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cpt_drain_errors(int print)
{
    int any = ERR_peek_error() != 0;

    if (print && any) {
        pthread_mutex_lock(&acc_lock);
        fflush(stdout);
        ERR_print_errors_fp(stderr);
        fflush(stderr);
        pthread_mutex_unlock(&acc_lock);
    }
    ERR_clear_error();
    return any;
}

/* ================================================================== */
/* Options                                                             */
/* ================================================================== */

void cpt_opts_init(cpt_opts *o)
{
    struct timespec ts;

    memset(o, 0, sizeof(*o));
    o->provider = "cptprov";
    o->provider_path = "build";
    clock_gettime(CLOCK_REALTIME, &ts);
    o->seed =
        cpt_mix64((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec, (uint64_t)getpid())
        & 0xffffffffffffULL;
}

int cpt_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (s == NULL || *s == '\0' || *s == '-')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno != 0 || *end != '\0')
        return 0;
    *out = (uint64_t)v;
    return 1;
}

int cpt_opts_parse_one(cpt_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *val = NULL;
    int takes = 0;
    /* options that take a string value */
    const struct {
        const char *name;
        const char **dst;
    } str_opts[] = {
        { "--provider", &o->provider },
        { "--provider-path", &o->provider_path },
        { "--stats-dir", &o->stats_dir },
        { "--only", &o->only },
        { "--skip", &o->skip },
    };

#define CPT_NEEDVAL()                                        \
    do {                                                     \
        if (*i + 1 >= argc) {                                \
            fprintf(stderr, "option %s needs a value\n", a); \
            return -1;                                       \
        }                                                    \
        val = argv[*i + 1];                                  \
        takes = 1;                                           \
    } while (0)

    for (size_t k = 0; k < sizeof(str_opts) / sizeof(str_opts[0]); k++) {
        if (strcmp(a, str_opts[k].name) == 0) {
            CPT_NEEDVAL();
            *str_opts[k].dst = val;
            *i += takes;
            return 1;
        }
    }
    if (strcmp(a, "--no-stats") == 0) {
        o->no_stats = 1;
    } else if (strcmp(a, "--seed") == 0) {
        CPT_NEEDVAL();
        if (!cpt_parse_u64(val, &o->seed)) {
            fprintf(stderr, "bad --seed value '%s'\n", val);
            return -1;
        }
        o->seed_given = 1;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
        o->verbose++;
    } else if (strcmp(a, "--strict-errors") == 0) {
        o->strict_errors = 1;
    } else {
        return 0;
    }
#undef CPT_NEEDVAL
    *i += takes;
    return 1;
}

void cpt_opts_usage(FILE *f)
{
    fprintf(f,
        "common options:\n"
        "  --provider NAME        provider under test (default cptprov; 'default'\n"
        "                         runs the harness against OpenSSL's default provider)\n"
        "  --provider-path DIR    directory holding NAME.so (default build)\n"
        "  --stats-dir DIR        load the provider through a temporary openssl.cnf\n"
        "                         with stats_dir = DIR and check its counters (cptstat)\n"
        "  --no-stats             skip the statistics check\n"
        "  --seed N               PRNG seed (default: time based; always printed)\n"
        "  --only a,b  --skip a,b select sub-tests by name\n"
        "  --strict-errors        a failing call must leave an error on the queue even\n"
        "                         where the default provider leaves none\n"
        "  -v, --verbose          more output (error queues, per-case info)\n");
}

static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;

    while (p != NULL && *p != '\0') {
        const char *e = strchr(p, ',');
        size_t l = e != NULL ? (size_t)(e - p) : strlen(p);

        if (l == n && strncmp(p, name, n) == 0)
            return 1;
        p = e != NULL ? e + 1 : NULL;
    }
    return 0;
}

int cpt_selected(const cpt_opts *o, const char *name)
{
    if (o->only != NULL && !in_list(o->only, name))
        return 0;
    if (o->skip != NULL && in_list(o->skip, name))
        return 0;
    return 1;
}

/* ================================================================== */
/* Provider environment                                                */
/* ================================================================== */

static int mkdir_p(const char *path)
{
    char tmp[4096];
    size_t len = strlen(path);

    if (len == 0 || len >= sizeof(tmp))
        return 0;
    memcpy(tmp, path, len + 1);
    for (char *p = tmp + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return 0;
    return 1;
}

static int abs_path(const char *in, char *out, size_t outlen)
{
    char *r = realpath(in, NULL);

    if (r == NULL)
        return 0;
    if (strlen(r) >= outlen) {
        free(r);
        return 0;
    }
    strcpy(out, r);
    free(r);
    return 1;
}

/* Prints the message and OpenSSL's error queue to stderr; returns 0. */
/* The tests' profile of backend b, tests/backends/b.conf (relative to the
 * repository root, where the tests run); NULL, with why on stderr. */
static FILE *test_backend_profile(const char *b)
{
    char path[256];
    FILE *in;

    snprintf(path, sizeof(path), "tests/backends/%s.conf", b);
    if ((in = fopen(path, "r")) == NULL)
        fprintf(stderr, "CPTPROV_TEST_BACKEND=%s: %s: %s\n", b, path, strerror(errno));
    return in;
}

/*
 * CPTPROV_TEST_BACKEND=NAME runs the harness on another backend: the lines
 * of tests/backends/NAME.conf (relative to the repository root, where the
 * tests run) go into the provider's section.
 */
static int test_backend_lines(FILE *out)
{
    const char *b = getenv("CPTPROV_TEST_BACKEND");
    char line[512];
    FILE *in;

    if (b == NULL || b[0] == '\0')
        return 1;
    if ((in = test_backend_profile(b)) == NULL)
        return 0;
    while (fgets(line, sizeof(line), in) != NULL)
        if (line[0] != '#')
            fputs(line, out);
    fclose(in);
    return 1;
}

static int env_fail(const char *fmt, ...) CPT_PRINTF(1, 2);
static int env_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    ERR_print_errors_fp(stderr);
    return 0;
}

int cpt_env_init(cpt_env *env, const cpt_opts *o)
{
    int is_default = strcmp(o->provider, "default") == 0;

    memset(env, 0, sizeof(*env));
    if (strlen(o->provider) >= sizeof(env->name)) {
        fprintf(stderr, "provider name too long\n");
        return 0;
    }
    strcpy(env->name, o->provider);
    snprintf(env->propq, sizeof(env->propq), "provider=%s", o->provider);

    if (!is_default && !abs_path(o->provider_path, env->module_dir, sizeof(env->module_dir))) {
        fprintf(stderr, "provider path '%s': %s\n", o->provider_path, strerror(errno));
        return 0;
    }
    if (!is_default)
        snprintf(cptstat_path, sizeof(cptstat_path), "%s/cptstat", env->module_dir);

    env->libctx = OSSL_LIB_CTX_new();
    env->ref_libctx = OSSL_LIB_CTX_new();
    if (env->libctx == NULL || env->ref_libctx == NULL) {
        fprintf(stderr, "OSSL_LIB_CTX_new failed\n");
        return 0;
    }

    if (o->stats_dir != NULL) {
        char conf[] = "/tmp/cpt-test-openssl-XXXXXX.cnf";
        int fd;
        FILE *f;
        int ok;

        if (!mkdir_p(o->stats_dir)
            || !abs_path(o->stats_dir, env->stats_dir, sizeof(env->stats_dir))) {
            fprintf(stderr, "stats dir '%s': %s\n", o->stats_dir, strerror(errno));
            return 0;
        }
        fd = mkstemps(conf, 4);
        if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
            fprintf(stderr, "cannot create temporary config: %s\n", strerror(errno));
            return 0;
        }
        fprintf(f,
            "openssl_conf = openssl_init\n"
            "[openssl_init]\n"
            "providers = provider_sect\n"
            "[provider_sect]\n"
            "default = default_sect\n");
        if (!is_default)
            fprintf(f, "%s = %s_sect\n", env->name, env->name);
        fprintf(f, "[default_sect]\nactivate = 1\n");
        if (!is_default) {
            fprintf(f,
                "[%s_sect]\n"
                "module = %s/%s.so\n"
                "stats_dir = %s\n",
                env->name, env->module_dir, env->name, env->stats_dir);
            if (!test_backend_lines(f)) {
                fclose(f);
                return 0;
            }
            fprintf(f, "activate = 1\n");
        }
        fclose(f);
        ok = OSSL_LIB_CTX_load_config(env->libctx, conf);
        if (!ok) {
            env_fail("OSSL_LIB_CTX_load_config(%s) failed:\n", conf);
            fprintf(stderr, "(config left in place for inspection)\n");
            return 0;
        }
        unlink(conf);
    } else {
        if (!is_default) {
            if (!OSSL_PROVIDER_set_default_search_path(env->libctx, env->module_dir))
                return env_fail("OSSL_PROVIDER_set_default_search_path failed\n");
            env->prov = OSSL_PROVIDER_load(env->libctx, env->name);
            if (env->prov == NULL)
                return env_fail("OSSL_PROVIDER_load(%s) from %s failed:\n", env->name,
                    env->module_dir);
        }
        env->prov_dflt = OSSL_PROVIDER_load(env->libctx, "default");
        if (env->prov_dflt == NULL)
            return env_fail("loading the default provider failed\n");
    }
    if (!OSSL_PROVIDER_available(env->libctx, env->name))
        return env_fail("provider %s is not available after loading\n", env->name);

    env->ref_prov = OSSL_PROVIDER_load(env->ref_libctx, "default");
    if (env->ref_prov == NULL)
        return env_fail("loading the reference default provider failed\n");
    ERR_clear_error();
    return 1;
}

/*
 * Two device counters of this process on the tests' dpdk backend, read
 * until done(a, b) holds or 3.5 s have passed; 0 when the backend is not
 * the tests' dpdk (nothing to check).
 */
static int test_backend_counters(const cpt_env *env, const char *na, long long *a, const char *nb,
    long long *b, int (*done)(long long, long long))
{
    const char *be = getenv("CPTPROV_TEST_BACKEND");
    size_t len;
    char *doc;

    *a = *b = -1;
    if (be == NULL || strcmp(be, "dpdk") != 0 || env->stats_dir[0] == '\0')
        return 0;
    for (double end = cpt_now() + 3.5; cpt_now() < end; usleep(100000)) {
        if ((doc = cpt_stats_json(env->stats_dir, getpid(), &len)) == NULL)
            continue;
        *a = cpt_stats_device_counter(doc, na);
        *b = cpt_stats_device_counter(doc, nb);
        free(doc);
        if (done(*a, *b))
            break;
    }
    return 1;
}

static int both_zero(long long a, long long b)
{
    return a == 0 && b == 0;
}

static int all_cached(long long sessions, long long cached)
{
    return sessions >= 0 && sessions == cached;
}

/*
 * On the tests' dpdk backend, once the harness has freed its contexts: no
 * device session is left but the exponentiation sessions the backend
 * caches (those belong to a modulus and exponent, not to a context).
 */
static void check_test_backend_sessions(const cpt_env *env)
{
    long long sessions, cached;

    if (env->libctx == NULL
        || !test_backend_counters(env, "dpdk_sessions", &sessions, "dpdk_sessions_cached", &cached,
            all_cached))
        return;
    CPT_CHECK(all_cached(sessions, cached),
        "dpdk backend: %lld device sessions left after the contexts were freed, %lld of them "
        "cached exponentiations (want no others)",
        sessions, cached);
}

void cpt_env_free(cpt_env *env)
{
    check_test_backend_sessions(env);
    if (env->prov != NULL)
        OSSL_PROVIDER_unload(env->prov);
    if (env->prov_dflt != NULL)
        OSSL_PROVIDER_unload(env->prov_dflt);
    env->prov = env->prov_dflt = NULL;
    OSSL_LIB_CTX_free(env->libctx);
    env->libctx = NULL;
    if (env->ref_prov != NULL)
        OSSL_PROVIDER_unload(env->ref_prov);
    env->ref_prov = NULL;
    OSSL_LIB_CTX_free(env->ref_libctx);
    env->ref_libctx = NULL;
}

const char *cpt_cipher_provider_name(const EVP_CIPHER *c)
{
    const OSSL_PROVIDER *p = c != NULL ? EVP_CIPHER_get0_provider(c) : NULL;
    const char *n = p != NULL ? OSSL_PROVIDER_get0_name(p) : NULL;

    return n != NULL ? n : "?";
}

EVP_CIPHER *cpt_fetch_cipher(const cpt_env *env, int ref, const char *alg)
{
    OSSL_LIB_CTX *lc = ref ? env->ref_libctx : env->libctx;
    const char *want = ref ? "default" : env->name;
    char propq[96];
    EVP_CIPHER *c;

    snprintf(propq, sizeof(propq), "provider=%s", want);
    c = EVP_CIPHER_fetch(lc, alg, propq);
    if (c == NULL) {
        fprintf(stdout, "cannot fetch %s with '%s'\n", alg, propq);
        cpt_drain_errors(1);
        return NULL;
    }
    if (strcmp(cpt_cipher_provider_name(c), want) != 0) {
        fprintf(stdout, "%s fetched with '%s' came from provider '%s'\n", alg, propq,
            cpt_cipher_provider_name(c));
        EVP_CIPHER_free(c);
        return NULL;
    }
    return c;
}

int cpt_fetch_cipher_pairs(const cpt_env *env, EVP_CIPHER **tc, EVP_CIPHER **rc, size_t n,
    const char *(*name)(size_t i))
{
    for (size_t i = 0; i < n; i++) {
        tc[i] = cpt_fetch_cipher(env, 0, name(i));
        rc[i] = cpt_fetch_cipher(env, 1, name(i));
        if (!CPT_CHECK(tc[i] != NULL && rc[i] != NULL, "%s is fetched from both providers",
                name(i)))
            return 0;
    }
    return 1;
}

void cpt_free_cipher_pairs(EVP_CIPHER **tc, EVP_CIPHER **rc, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        EVP_CIPHER_free(tc[i]);
        EVP_CIPHER_free(rc[i]);
    }
}

int cpt_run_cipher_tests(const cpt_opts *o, cpt_env *env, EVP_CIPHER **tc, EVP_CIPHER **rc,
    size_t n, const char *(*name)(size_t i), const cpt_named_test *tests, size_t ntests)
{
    if (cpt_fetch_cipher_pairs(env, tc, rc, n, name))
        cpt_run_tests(o, tests, ntests);
    cpt_free_cipher_pairs(tc, rc, n);
    cpt_env_free(env);
    return cpt_finish();
}

const char *const cpt_sha_names[CPT_NSHA] = {
    "SHA1",
    "SHA2-224",
    "SHA2-256",
    "SHA2-384",
    "SHA2-512",
    "SHA2-512/224",
    "SHA2-512/256",
};

int cpt_harness_start(const char *name, cpt_opts *o, cpt_env *env, int argc, char **argv,
    uint64_t *iters, size_t *maxlen)
{
    if (cpt_parse_harness_args(o, argc, argv, iters, maxlen) != 0)
        return 2;
    if (!cpt_env_init(env, o))
        return 1;
    printf("%s: provider %s, seed %llu\n", name, env->name, (unsigned long long)o->seed);
    return -1;
}

int cpt_pkey_crypt_final(EVP_PKEY_CTX *c, int ok, int decrypt, const unsigned char *in,
    size_t inlen, unsigned char *out, size_t *outlen)
{
    ok = ok
        && (decrypt ? EVP_PKEY_decrypt(c, out, outlen, in, inlen)
                    : EVP_PKEY_encrypt(c, out, outlen, in, inlen))
            > 0;
    EVP_PKEY_CTX_free(c);
    return ok;
}

void cpt_free_n(size_t n, ...)
{
    va_list ap;

    va_start(ap, n);
    while (n-- > 0)
        free(va_arg(ap, void *));
    va_end(ap);
}

/* ================================================================== */
/* PRNG                                                                */
/* ================================================================== */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t cpt_mix64(uint64_t a, uint64_t b)
{
    uint64_t x = a ^ (b * 0xd6e8feb86659fd93ULL);

    splitmix64(&x);
    return splitmix64(&x);
}

size_t cpt_pick_len(cpt_rng *r, unsigned short_pct, unsigned mid_pct, size_t mid, size_t maxlen)
{
    unsigned p = (unsigned)cpt_rng_below(r, 100);

    if (p < short_pct)
        return (size_t)cpt_rng_below(r, 300);
    if (p < mid_pct)
        return (size_t)cpt_rng_below(r, mid);
    return (size_t)cpt_rng_below(r, maxlen + 1);
}

size_t cpt_pick_chunk(cpt_rng *r, size_t left)
{
    size_t k = left;

    if (r != NULL) {
        k = cpt_rng_pct(r, 50) ? (size_t)cpt_rng_below(r, 200) : (size_t)cpt_rng_below(r, k + 1);
        k = k > left ? left : k;
    }
    return k;
}

void cpt_rng_seed(cpt_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = cpt_mix64(seed, stream + 0x51ed270b27dULL);

    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t cpt_rng_u64(cpt_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t cpt_rng_below(cpt_rng *r, uint64_t n)
{
    uint64_t lim, v;

    if (n == 0)
        return 0;
    lim = UINT64_MAX - (UINT64_MAX % n);
    do {
        v = cpt_rng_u64(r);
    } while (v >= lim);
    return v % n;
}

uint64_t cpt_rng_range(cpt_rng *r, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return lo;
    return lo + cpt_rng_below(r, hi - lo + 1);
}

int cpt_rng_pct(cpt_rng *r, unsigned pct)
{
    return cpt_rng_below(r, 100) < pct;
}

void cpt_rng_fill(cpt_rng *r, void *buf, size_t len)
{
    unsigned char *p = buf;

    while (len >= 8) {
        uint64_t v = cpt_rng_u64(r);

        memcpy(p, &v, 8);
        p += 8;
        len -= 8;
    }
    if (len > 0) {
        uint64_t v = cpt_rng_u64(r);

        memcpy(p, &v, len);
    }
}

/* ================================================================== */
/* Hex and record files                                                */
/* ================================================================== */

char *cpt_hex_encode(const unsigned char *buf, size_t len, char *out)
{
    static const char hx[] = "0123456789abcdef";

    for (size_t i = 0; i < len; i++) {
        out[2 * i] = hx[buf[i] >> 4];
        out[2 * i + 1] = hx[buf[i] & 15];
    }
    out[2 * len] = '\0';
    return out;
}

void cpt_hex_dump(FILE *f, const char *label, const unsigned char *buf, size_t len, size_t max)
{
    size_t n = (max > 0 && len > max) ? max : len;

    fprintf(f, "    %s (%zu):", label, len);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%02x", (i % 32 == 0 && i > 0) ? "\n      " : (i == 0 ? " " : ""), buf[i]);
    if (n < len)
        fprintf(f, "...");
    fputc('\n', f);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int cpt_hex_decode(const char *hex, unsigned char **out, size_t *outlen)
{
    size_t n = strlen(hex), k = 0;
    unsigned char *b = malloc(n / 2 + 1);
    int hi = -1;

    if (b == NULL)
        return 0;
    for (const char *p = hex; *p != '\0'; p++) {
        int v;

        if (isspace((unsigned char)*p))
            continue;
        v = hexval((unsigned char)*p);
        if (v < 0) {
            free(b);
            return 0;
        }
        if (hi < 0) {
            hi = v;
        } else {
            b[k++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        free(b);
        return 0;
    }
    *out = b;
    *outlen = k;
    return 1;
}

static char *trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int rec_add(cpt_record *r, const char *name, const char *value, int line)
{
    cpt_kv *nkv = realloc(r->kv, (r->n + 1) * sizeof(*nkv));

    if (nkv == NULL)
        return 0;
    r->kv = nkv;
    r->kv[r->n].name = strdup(name);
    r->kv[r->n].value = strdup(value);
    if (r->kv[r->n].name == NULL || r->kv[r->n].value == NULL) {
        free(r->kv[r->n].name);
        free(r->kv[r->n].value);
        return 0;
    }
    if (r->n == 0)
        r->line = line;
    r->n++;
    return 1;
}

int cpt_recfile_load(const char *path, cpt_recfile *rf)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, *pem = NULL;
    size_t cap = 0, pemlen = 0;
    int lineno = 0, ok = 0;
    cpt_record cur = { NULL, 0, 0 };

    memset(rf, 0, sizeof(*rf));
    if (f == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return 0;
    }
    for (;;) {
        ssize_t got = getline(&line, &cap, f);
        char *s, *eq;

        lineno++;
        s = got >= 0 ? trim(line) : NULL;
        if (pemlen > 0 || (s != NULL && cur.n > 0 && strncmp(s, "-----BEGIN ", 11) == 0)) {
            /* A PEM block, kept whole (with its newlines) as the field "PEM". */
            size_t l = s != NULL ? strlen(s) : 0;
            char *np;

            if (l == 0) {
                fprintf(stderr, "%s:%d: PEM block not terminated\n", path, lineno);
                goto done;
            }
            np = realloc(pem, pemlen + l + 2);
            if (np == NULL)
                goto done;
            pem = np;
            memcpy(pem + pemlen, s, l);
            pemlen += l;
            pem[pemlen++] = '\n';
            pem[pemlen] = '\0';
            if (strncmp(s, "-----END ", 9) == 0) {
                if (!rec_add(&cur, "PEM", pem, lineno))
                    goto done;
                pemlen = 0;
            }
            continue;
        }
        if (s == NULL || *s == '\0' || *s == '#') {
            if ((s == NULL || *s == '\0') && cur.n > 0) {
                cpt_record *nr = realloc(rf->recs, (rf->n + 1) * sizeof(*nr));

                if (nr == NULL)
                    goto done;
                rf->recs = nr;
                rf->recs[rf->n++] = cur;
                memset(&cur, 0, sizeof(cur));
            }
            if (s == NULL)
                break;
            continue;
        }
        eq = strchr(s, '=');
        if (eq == NULL) {
            fprintf(stderr, "%s:%d: expected 'Name = value'\n", path, lineno);
            goto done;
        }
        *eq = '\0';
        if (!rec_add(&cur, trim(s), trim(eq + 1), lineno))
            goto done;
    }
    ok = 1;
done:
    free(line);
    free(pem);
    fclose(f);
    if (!ok) {
        for (size_t i = 0; i < cur.n; i++) {
            free(cur.kv[i].name);
            free(cur.kv[i].value);
        }
        free(cur.kv);
        cpt_recfile_free(rf);
    }
    return ok;
}

void cpt_recfile_free(cpt_recfile *rf)
{
    for (size_t i = 0; i < rf->n; i++) {
        for (size_t j = 0; j < rf->recs[i].n; j++) {
            free(rf->recs[i].kv[j].name);
            free(rf->recs[i].kv[j].value);
        }
        free(rf->recs[i].kv);
    }
    free(rf->recs);
    rf->recs = NULL;
    rf->n = 0;
}

const char *cpt_record_get(const cpt_record *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcasecmp(r->kv[i].name, name) == 0)
            return r->kv[i].value;
    return NULL;
}

int cpt_record_get_hex(const cpt_record *r, const char *name, unsigned char **out, size_t *len)
{
    const char *v = cpt_record_get(r, name);

    if (v == NULL) {
        *out = malloc(1);
        *len = 0;
        return 0;
    }
    return cpt_hex_decode(v, out, len) ? 1 : -1;
}

int cpt_find_file(const char *argv0, const char *rel, char *out, size_t outlen)
{
    char dir[4096];
    const char *slash;
    size_t dl;

    if (access(rel, R_OK) == 0) {
        snprintf(out, outlen, "%s", rel);
        return 1;
    }
    slash = argv0 != NULL ? strrchr(argv0, '/') : NULL;
    if (slash == NULL)
        return 0;
    dl = (size_t)(slash - argv0);
    if (dl >= sizeof(dir))
        return 0;
    memcpy(dir, argv0, dl);
    dir[dl] = '\0';
    snprintf(out, outlen, "%s/../%s", dir, rel);
    if (access(out, R_OK) == 0)
        return 1;
    snprintf(out, outlen, "%s/%s", dir, rel);
    return access(out, R_OK) == 0;
}

/* ================================================================== */
/* Stats file                                                          */
/* ================================================================== */

static char *read_stream(FILE *f, size_t *len)
{
    char *buf = NULL;
    size_t cap = 0, n = 0;

    for (;;) {
        size_t got;

        if (cap - n < 4096) {
            char *nb = realloc(buf, cap + 65536);

            if (nb == NULL) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap += 65536;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

char *cpt_stats_json(const char *stats_dir, pid_t pid, size_t *len)
{
    char cmd[8600], *buf;
    FILE *f;

    if (cptstat_path[0] == '\0') {
        errno = ENOENT;
        return NULL;
    }
    snprintf(cmd, sizeof(cmd), "'%s' -dir '%s' -keep-dead -json -pid %ld 2>/dev/null", cptstat_path,
        stats_dir, (long)pid);
    if ((f = popen(cmd, "r")) == NULL)
        return NULL;
    buf = read_stream(f, len);
    pclose(f);
    if (buf != NULL && strstr(buf, "\"pid\"") == NULL) {
        free(buf);
        errno = ENOENT; /* no statistics area for pid */
        return NULL;
    }
    return buf;
}

/* Finds "key" (with quotes) in [b, e) and parses the number after ':'. */
static int json_number(const char *b, const char *e, const char *key, long long *v)
{
    char pat[80];
    size_t pl;

    snprintf(pat, sizeof(pat), "\"%s\"", key);
    pl = strlen(pat);
    for (const char *p = b; p + pl <= e; p++) {
        if (strncasecmp(p, pat, pl) != 0)
            continue;
        p += pl;
        while (p < e && isspace((unsigned char)*p))
            p++;
        if (p >= e || *p != ':')
            continue;
        p++;
        while (p < e && isspace((unsigned char)*p))
            p++;
        if (p < e && (isdigit((unsigned char)*p) || *p == '-')) {
            *v = strtoll(p, NULL, 10);
            return 1;
        }
        return 0;
    }
    return 0;
}

long long cpt_stats_device_counter(const char *doc, const char *name)
{
    char key[64];
    const char *p;

    snprintf(key, sizeof(key), "\"%s\":", name);
    if (doc == NULL || (p = strstr(doc, key)) == NULL)
        return -1;
    return strtoll(p + strlen(key), NULL, 10);
}

int cpt_stats_read(const char *stats_dir, const char *prefix, pid_t pid, const char *alg,
    cpt_alg_stats *st, char *why, size_t whylen)
{
    char path[4200], pat[96];
    size_t len;
    char *buf, *p, *obj, *end;
    long long fpid = -1;
    int depth;

    memset(st, 0, sizeof(*st));
    snprintf(path, sizeof(path), "%s/%s-%ld.stats", stats_dir, prefix, (long)pid);
    buf = cpt_stats_json(stats_dir, pid, &len);
    if (buf == NULL) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return 0;
    }
    if (!json_number(buf, buf + len, "pid", &fpid) || fpid != (long long)pid) {
        snprintf(why, whylen, "%s: \"pid\" is %lld, expected %ld", path, fpid, (long)pid);
        free(buf);
        return 0;
    }
    snprintf(pat, sizeof(pat), "\"%s\"", alg);
    p = strcasestr(buf, pat);
    if (p == NULL) {
        free(buf);
        return 1; /* file fine, algorithm absent */
    }
    obj = strchr(p + strlen(pat), '{');
    if (obj == NULL) {
        snprintf(why, whylen, "%s: no object after %s", path, pat);
        free(buf);
        return 0;
    }
    depth = 0;
    for (end = obj; *end != '\0'; end++) {
        if (*end == '{')
            depth++;
        else if (*end == '}' && --depth == 0)
            break;
    }
    if (*end == '\0') {
        snprintf(why, whylen, "%s: unterminated object for %s", path, pat);
        free(buf);
        return 0;
    }
    st->found = 1;
    json_number(obj, end, "ops", &st->ops);
    json_number(obj, end, "bytes", &st->bytes);
    json_number(obj, end, "device", &st->device);
    json_number(obj, end, "software", &st->software);
    json_number(obj, end, "errors", &st->errors);
    free(buf);
    return 1;
}

int cpt_stats_check(const char *stats_dir, const char *prefix, pid_t pid, const char *const *algs,
    int timeout_ms, int verbose)
{
    double deadline = cpt_now() + timeout_ms / 1000.0;
    char why[512];
    int nalg = 0, all_ok;

    while (algs[nalg] != NULL)
        nalg++;
    for (;;) {
        int good = 0;

        why[0] = '\0';
        all_ok = 1;
        for (int i = 0; i < nalg; i++) {
            cpt_alg_stats st;

            if (!cpt_stats_read(stats_dir, prefix, pid, algs[i], &st, why, sizeof(why)) || !st.found
                || st.ops <= 0 || st.bytes <= 0)
                all_ok = 0;
            else
                good++;
        }
        if (all_ok || cpt_now() > deadline)
            break;
        usleep(100 * 1000);
    }
    for (int i = 0; i < nalg; i++) {
        cpt_alg_stats st;
        int ok = cpt_stats_read(stats_dir, prefix, pid, algs[i], &st, why, sizeof(why));

        if (!ok) {
            cpt_check(0, "stats file for pid %ld: %s", (long)pid, why);
            continue;
        }
        if (verbose || !st.found || st.ops <= 0 || st.bytes <= 0)
            printf("    stats %s: found=%d ops=%lld bytes=%lld device=%lld "
                   "software=%lld errors=%lld\n",
                algs[i], st.found, st.ops, st.bytes, st.device, st.software, st.errors);
        cpt_check(st.found && st.ops > 0 && st.bytes > 0,
            "stats %s/%s-%ld.stats: %s counters not > 0 (found=%d ops=%lld "
            "bytes=%lld)",
            stats_dir, prefix, (long)pid, algs[i], st.found, st.ops, st.bytes);
    }
    return all_ok;
}

/* ================================================================== */
/* ASYNC job runner                                                    */
/* ================================================================== */

typedef struct {
    cpt_task_fn fn;
    void *arg;
} tramp_args;

static int tramp(void *p)
{
    const tramp_args *t = p;

    return t->fn(t->arg);
}

typedef struct {
    ASYNC_JOB *job;
    ASYNC_WAIT_CTX *wctx;
    size_t task;
    int ret;
    int busy; /* task started and not finished */
    int resume; /* to be resumed in this round */
    size_t fd_off; /* index of first pollfd in this round */
    size_t nfds; /* fds in this round */
} job_slot;

/* Handles the return code of ASYNC_start_job for slot s. */
static void job_after(cpt_jobs *j, job_slot *s, int rc, size_t *inflight, double *last_progress,
    cpt_rng *rng)
{
    switch (rc) {
    case ASYNC_PAUSE:
        j->pauses++;
        if (!j->paused[s->task]) {
            j->paused[s->task] = 1;
            j->tasks_paused++;
        }
        return;
    case ASYNC_FINISH:
        j->results[s->task] = s->ret;
        break;
    case ASYNC_ERR:
    default:
        j->async_errors++;
        j->results[s->task] = -1;
        break;
    }
    s->job = NULL;
    s->busy = 0;
    (*inflight)--;
    *last_progress = cpt_now();
    if (s->wctx != NULL && cpt_rng_pct(rng, j->new_wctx_pct)) {
        ASYNC_WAIT_CTX_free(s->wctx);
        s->wctx = NULL;
    }
}

int cpt_jobs_run(cpt_jobs *j)
{
    job_slot *slots = calloc(j->max_inflight ? j->max_inflight : 1, sizeof(*slots));
    size_t nslots = j->max_inflight ? j->max_inflight : 1;
    struct pollfd *pfds = NULL;
    size_t pcap = 0;
    OSSL_ASYNC_FD *fdbuf = NULL;
    size_t fdcap = 0;
    size_t next = 0, inflight = 0;
    double last_progress = cpt_now();
    cpt_rng rng;
    int ok = 1;

    j->tasks_paused = j->pauses = j->fd_waits = j->nofd_resumes = 0;
    j->spurious_resumes = j->max_fds = j->async_errors = j->no_jobs = 0;
    j->timed_out = 0;
    memset(j->paused, 0, j->ntasks);
    for (size_t i = 0; i < j->ntasks; i++)
        j->results[i] = -1;
    if (slots == NULL)
        return 0;
    cpt_rng_seed(&rng, j->seed, 0xa5);

    while (next < j->ntasks || inflight > 0) {
        size_t npfd = 0;
        int any_nofd = 0, any_resume = 0;

        /* Start new tasks in free slots. */
        for (size_t k = 0; k < nslots && next < j->ntasks; k++) {
            job_slot *s = &slots[k];
            tramp_args ta;
            int rc;

            if (s->busy)
                continue;
            if (s->wctx == NULL && (s->wctx = ASYNC_WAIT_CTX_new()) == NULL) {
                ok = 0;
                goto out;
            }
            ta.fn = j->fn;
            ta.arg = j->args[next];
            s->task = next;
            s->job = NULL;
            s->ret = 0;
            rc = ASYNC_start_job(&s->job, s->wctx, &s->ret, tramp, &ta, sizeof(ta));
            if (rc == ASYNC_NO_JOBS) {
                j->no_jobs++;
                break; /* retry later */
            }
            next++;
            s->busy = 1;
            inflight++;
            job_after(j, s, rc, &inflight, &last_progress, &rng);
        }
        if (inflight == 0)
            continue;

        /* Collect the fds of all paused jobs. */
        for (size_t k = 0; k < nslots; k++) {
            job_slot *s = &slots[k];
            size_t n = 0;

            s->resume = 0;
            s->nfds = 0;
            if (!s->busy)
                continue;
            if (!ASYNC_WAIT_CTX_get_all_fds(s->wctx, NULL, &n))
                n = 0;
            if (n > fdcap) {
                OSSL_ASYNC_FD *nb = realloc(fdbuf, n * sizeof(*nb));

                if (nb == NULL) {
                    ok = 0;
                    goto out;
                }
                fdbuf = nb;
                fdcap = n;
            }
            if (n > 0 && !ASYNC_WAIT_CTX_get_all_fds(s->wctx, fdbuf, &n))
                n = 0;
            if (n > j->max_fds)
                j->max_fds = n;
            if (npfd + n > pcap) {
                size_t nc = (npfd + n) * 2 + 16;
                struct pollfd *np = realloc(pfds, nc * sizeof(*np));

                if (np == NULL) {
                    ok = 0;
                    goto out;
                }
                pfds = np;
                pcap = nc;
            }
            s->fd_off = npfd;
            s->nfds = n;
            for (size_t f = 0; f < n; f++) {
                pfds[npfd].fd = fdbuf[f];
                pfds[npfd].events = POLLIN;
                pfds[npfd].revents = 0;
                npfd++;
            }
            if (n == 0)
                any_nofd = 1;
        }

        if (npfd > 0) {
            int pr = poll(pfds, npfd, any_nofd ? 0 : 20);

            if (pr < 0 && errno != EINTR) {
                perror("poll");
                ok = 0;
                goto out;
            }
        } else if (any_nofd) {
            sched_yield();
        }

        /* Decide which paused jobs to resume. */
        for (size_t k = 0; k < nslots; k++) {
            job_slot *s = &slots[k];
            int readable = 0;

            if (!s->busy)
                continue;
            for (size_t f = 0; f < s->nfds; f++)
                if (pfds[s->fd_off + f].revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL))
                    readable = 1;
            if (readable) {
                j->fd_waits++;
                s->resume = 1;
            } else if (s->nfds == 0) {
                j->nofd_resumes++;
                s->resume = 1;
            } else if (j->spurious_pct > 0 && cpt_rng_pct(&rng, j->spurious_pct)) {
                j->spurious_resumes++;
                s->resume = 1;
            }
        }
        for (size_t k = 0; k < nslots; k++) {
            job_slot *s = &slots[k];
            int rc;

            if (!s->busy || !s->resume)
                continue;
            any_resume = 1;
            rc = ASYNC_start_job(&s->job, s->wctx, &s->ret, tramp, NULL, 0);
            job_after(j, s, rc, &inflight, &last_progress, &rng);
        }
        (void)any_resume;

        if (inflight > 0 && j->timeout_s > 0 && cpt_now() - last_progress > j->timeout_s) {
            j->timed_out = 1;
            ok = 0;
            /* Paused jobs cannot be abandoned safely: leak them. */
            for (size_t k = 0; k < nslots; k++) {
                if (slots[k].busy) {
                    slots[k].wctx = NULL;
                    slots[k].busy = 0;
                }
            }
            break;
        }
    }
out:
    for (size_t k = 0; k < nslots; k++) {
        if (slots[k].busy)
            ok = 0; /* only on allocation failure paths; leak */
        else if (slots[k].wctx != NULL)
            ASYNC_WAIT_CTX_free(slots[k].wctx);
    }
    free(slots);
    free(pfds);
    free(fdbuf);
    if (j->async_errors > 0)
        ok = 0;
    return ok;
}

/* ================================================================== */
/* What the differential harnesses share                              */
/* ================================================================== */

void cpt_run_tests(const cpt_opts *o, const cpt_named_test *tests, size_t n)
{
    for (size_t t = 0; t < n; t++) {
        double t0 = cpt_now();

        if (!cpt_selected(o, tests[t].name))
            continue;
        cpt_set_subtest(tests[t].name);
        tests[t].fn();
        cpt_subtest_summary(tests[t].name, cpt_now() - t0);
    }
}

int cpt_parse_bare_args(cpt_opts *o, int argc, char **argv, const char *const *names,
    const char **values, size_t n)
{
    cpt_opts_init(o);
    o->no_stats = 1;
    for (int i = 1; i < argc; i++) {
        int r = cpt_opts_parse_one(o, argc, argv, &i);
        size_t k = 0;

        if (r == 1)
            continue;
        while (k < n && strcmp(argv[i], names[k]) != 0)
            k++;
        if (r != 0 || k == n || i + 1 >= argc)
            return 0;
        values[k] = argv[++i];
    }
    return 1;
}

int cpt_parse_harness_args(cpt_opts *o, int argc, char **argv, uint64_t *iters, size_t *maxlen)
{
    cpt_opts_init(o);
    for (int i = 1; i < argc; i++) {
        int r = cpt_opts_parse_one(o, argc, argv, &i);
        uint64_t v;

        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (iters != NULL && strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            if (!cpt_parse_u64(argv[++i], iters))
                return 2;
        } else if (maxlen != NULL && strcmp(argv[i], "--maxlen") == 0 && i + 1 < argc) {
            if (!cpt_parse_u64(argv[++i], &v))
                return 2;
            *maxlen = (size_t)v;
        } else {
            fprintf(stderr, "usage: %s [--iters N] [--maxlen BYTES]\n", argv[0]);
            cpt_opts_usage(stderr);
            return 2;
        }
    }
    cpt_set_verbose(o->verbose);
    return 0;
}

/* cpt_jobs_run of j set up anew (20% spurious resumes), counted as a check. */
static void jobs_check(cpt_jobs *j, cpt_task_fn fn, void **args, size_t n, uint64_t seed,
    int *results, unsigned char *paused, size_t inflight, unsigned wctx_pct, int timeout_s)
{
    memset(j, 0, sizeof(*j));
    j->fn = fn;
    j->args = args;
    j->ntasks = n;
    j->max_inflight = inflight;
    j->spurious_pct = 20;
    j->new_wctx_pct = wctx_pct;
    j->seed = seed;
    j->timeout_s = timeout_s;
    j->results = results;
    j->paused = paused;
    CPT_CHECK(cpt_jobs_run(j), "the ASYNC jobs ran to completion");
}

void cpt_jobs_check(cpt_jobs *j, cpt_task_fn fn, void **args, size_t n, uint64_t seed, int *results,
    unsigned char *paused)
{
    jobs_check(j, fn, args, n, seed, results, paused, 32, 30, 60);
}

/* The dpdk backend's test hook (dpdk/selftest.go): the algorithms whose
 * self-test it spoils, as a bit mask, and one bit that mutes the devices. */
#define DPDK_SPOIL_MUTE 0x80000000u

static unsigned long dpdk_spoil(void)
{
    const char *spoil = getenv("CPTPROV_TEST_DPDK_SPOIL");

    return spoil != NULL ? strtoul(spoil, NULL, 0) : 0;
}

/* Whether jobs of provider should pause: not the default provider's,
 * which never pause, and not with the dpdk self-test's mute devices,
 * where the CPU path computes all and nothing waits for a device. */
static int pauses_expected(const char *provider)
{
    return strcmp(provider, "default") != 0 && !(dpdk_spoil() & DPDK_SPOIL_MUTE);
}

int cpt_async_retry(const char *provider, size_t paused, int round)
{
    if (paused != 0 || round >= CPT_ASYNC_ROUNDS || !pauses_expected(provider))
        return 0;
    cpt_note("round %d: no job paused; again in %d ms", round, 25 * round);
    usleep((useconds_t)(25000 * round));
    return 1;
}

void cpt_check_paused(const char *provider, const char *what, size_t paused, size_t n, int rounds)
{
    if (pauses_expected(provider))
        CPT_CHECK(paused > 0, "%s went asynchronous (%zu of %zu jobs paused, round %d)", what,
            paused, n, rounds);
}

size_t cpt_jobs_check_async(cpt_jobs *j, cpt_task_fn fn, void **args, size_t n, uint64_t seed)
{
    int *results = calloc(n, sizeof(*results));
    unsigned char *paused = calloc(n, 1);

    cpt_jobs_check(j, fn, args, n, seed, results, paused);
    free(results);
    free(paused);
    return j->tasks_paused;
}

void cpt_async_run(const cpt_env *env, uint64_t seed, const cpt_async_test *t)
{
    unsigned char *jobs = calloc(t->n, t->size);
    void **args = calloc(t->n, sizeof(*args));
    size_t paused = 0;
    int round = 0;
    cpt_jobs j;
    cpt_rng r;

    cpt_rng_seed(&r, seed, t->stream);
    do {
        round++;
        memset(jobs, 0, t->n * t->size);
        for (size_t k = 0; k < t->n; k++) {
            args[k] = jobs + k * t->size;
            t->make(args[k], (int)k, &r);
        }
        paused = cpt_jobs_check_async(&j, t->run, args, t->n, seed + (uint64_t)round - 1);
        for (size_t k = 0; k < t->n; k++)
            t->check(args[k], (int)k);
    } while (cpt_async_retry(env->name, paused, round));
    cpt_check_paused(env->name, t->what, paused, t->n, round);
    free(args);
    free(jobs);
}

void cpt_jobs_check_all(cpt_jobs *j, cpt_task_fn fn, void **args, size_t n, uint64_t seed,
    int *results, unsigned char *paused)
{
    jobs_check(j, fn, args, n, seed, results, paused, n, 0, 30);
}

/*
 * On the tests' dpdk backend, whether the backend computes alg on its CPU
 * path because every device offering it failed the backend's self-test
 * (dpdk/selftest.go): the dpdk_selftest_off counter's CPTDPDK_* bits.
 */
static int dpdk_selftest_off(const cpt_env *env, const char *alg)
{
    static const struct {
        const char *pat;
        unsigned bit;
    } algs[] = {
        { "AES-*-GCM", CPTDPDK_AES_GCM },
        { "id-aes*-GCM", CPTDPDK_AES_GCM },
        { "ChaCha20-Poly1305", CPTDPDK_CHACHAPOLY },
        { "AES-*-CBC", CPTDPDK_AES_CBC },
        { "AES-*-CTR", CPTDPDK_AES_CTR },
        { "DES-EDE3-CBC", CPTDPDK_DES3_CBC },
        { "SHA1", CPTDPDK_SHA1 },
        { "SHA2-224", CPTDPDK_SHA224 },
        { "SHA2-256", CPTDPDK_SHA256 },
        { "SHA2-384", CPTDPDK_SHA384 },
        { "SHA2-512", CPTDPDK_SHA512 },
        { "RSA*", CPTDPDK_MODEXP },
    };
    unsigned bit = 0;
    long long off = -1;
    size_t len;
    char *doc;

    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]) && bit == 0; i++)
        if (fnmatch(algs[i].pat, alg, FNM_CASEFOLD) == 0)
            bit = algs[i].bit;
    if (bit == 0 || env->stats_dir[0] == '\0')
        return 0;
    if ((doc = cpt_stats_json(env->stats_dir, getpid(), &len)) != NULL) {
        off = cpt_stats_device_counter(doc, "dpdk_selftest_off");
        free(doc);
    }
    /* the test hook's spoiled algorithms (dpdk/selftest.go) must be off,
     * all of them with its mute devices */
    if (dpdk_spoil() & (bit | DPDK_SPOIL_MUTE))
        CPT_CHECK(off > 0 && (off & bit),
            "%s: spoiled in the dpdk backend's self-test, yet not off its devices (%lld)", alg,
            off);
    if (off > 0 && (off & bit))
        cpt_info("%s: on the CPU path (its devices failed the dpdk backend's self-test)", alg);
    return off > 0 && (off & bit);
}

void cpt_stats_check_paths(const cpt_env *env, const cpt_opts *o, const char *alg)
{
    const char *thr = getenv("CPTPROV_CPU_THRESHOLD"), *faults = getenv("CPTPROV_FAULTS");
    int cpu_path = thr == NULL || strcmp(thr, "0") != 0, ok = 0;
    /* On a backend that computes some algorithms on the CPU itself (the
     * tests' dpdk), those count as software. */
    int offered = cpt_test_backend_offers(alg);
    /* Under injected faults the driver computes some operations in
     * software: software may count even with the CPU path off. */
    int fallbacks = faults != NULL && faults[0] != '\0';
    cpt_alg_stats st;
    char why[256] = "";

    if (o->no_stats || env->stats_dir[0] == '\0' || strcmp(env->name, "default") == 0) {
        cpt_info("statistics of %s not checked", alg);
        return;
    }
    if (offered == 2 && dpdk_selftest_off(env, alg))
        offered = 0;
    memset(&st, 0, sizeof(st));
    /* the counters are live in the statistics area */
    for (double end = cpt_now() + 3.5; !ok && cpt_now() < end; usleep(100000))
        ok = cpt_stats_read(env->stats_dir, env->name, getpid(), alg, &st, why, sizeof(why))
            && st.found && st.ops > 0 && st.bytes > 0
            && (offered == 0 ? st.software > 0
                    : offered == 2
                    ? st.device > 0
                    : st.device > 0 && (cpu_path ? st.software > 0 : fallbacks || st.software == 0))
            && st.ops >= st.device + st.software;
    CPT_CHECK(ok, "%s counters: ops %lld, bytes %lld, device %lld, software %lld%s%s", alg, st.ops,
        st.bytes, st.device, st.software, why[0] ? ": " : "", why);
    cpt_check_test_backend(env);
}

/*
 * On the tests' dpdk backend (CPTPROV_TEST_BACKEND=dpdk): DPDK's devices
 * did work (their dpdk_<device> counters), and nothing of theirs is out
 * (ops and mbufs all back in their pools).
 */
int cpt_test_backend_offers(const char *alg)
{
    const char *b = getenv("CPTPROV_TEST_BACKEND");
    char line[512];
    int found = 0;
    FILE *in;

    if (b == NULL || b[0] == '\0')
        return 1;
    if ((in = test_backend_profile(b)) == NULL)
        return 1;
    while (!found && fgets(line, sizeof(line), in) != NULL) {
        char *save = NULL, *pat;

        if (strncmp(line, "# device:", 9) != 0)
            continue;
        for (pat = strtok_r(line + 9, " \t\n", &save); !found && pat != NULL;
             pat = strtok_r(NULL, " \t\n", &save))
            found = fnmatch(pat, alg, FNM_CASEFOLD) == 0;
    }
    fclose(in);
    return found ? 2 : 0;
}

void cpt_check_test_backend(const cpt_env *env)
{
    long long out, mbufs;

    if (!test_backend_counters(env, "dpdk_ops_out", &out, "dpdk_mbufs_out", &mbufs, both_zero))
        return;
    CPT_CHECK(both_zero(out, mbufs), "dpdk backend: ops out %lld, mbufs out %lld (want 0)", out,
        mbufs);
}

int cpt_open_fds(int show)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        char path[300], target[256];
        ssize_t len;

        n++;
        if (!show || e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        len = readlink(path, target, sizeof(target) - 1);
        target[len > 0 ? len : 0] = '\0';
        fprintf(stderr, "  fd %s -> %s\n", e->d_name, target);
    }
    closedir(d);
    return n;
}
