/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fork_test.c - cptprov across fork().
 *
 * cptprov starts its Go half lazily, in the process that runs the first
 * cipher operation; a child forked after that loads a private copy of the
 * Go library (a Go runtime does not survive fork()).  These cases check that
 * every combination an application can produce works, or fails cleanly,
 * and never hangs:
 *
 *   use-fork-use        use, fork, use in the child, the child forks a
 *                       grandchild that uses it too; the parent keeps working
 *   fork-before-use     fork before any operation; child and parent use it
 *   object-before-fork  an EVP_CIPHER_CTX keyed (and fed) in the parent is
 *                       continued in the child: right result or clean error
 *   threads-fork        two threads run GCM in a loop while the parent forks
 *   many-children       8 children one after another, then 8 at once
 *   stats-per-process   every child has its own statistics area, cptprov-<pid>.stats
 *   cpu-path-fork       an AES-CBC stream moved between the CPU path and
 *                       the device by the parent, its children and a
 *                       grandchild, all agreeing with the default provider
 *
 * Each case runs in its own process (process group) under a watchdog, and
 * every process it forks has an alarm(): a hang is reported as a failure
 * and never blocks the other cases.  Ends with "N passed, N failed".
 *
 * Usage: fork_test [MODULE_DIR] [--timeout SECONDS] [common options]
 *   MODULE_DIR (or --provider-path) holds cptprov.so, default build.
 *   Without --stats-dir a temporary one is made (and removed).
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#define NALG 3
#define MAXMSG 4096
#define TAGLEN 16
#define IVLEN 12

static const char *const alg_names[NALG] = { "AES-128-GCM", "AES-192-GCM", "AES-256-GCM" };

static cpt_opts g_opts;
static cpt_env g_env; /* set up in each case process */
static EVP_CIPHER *g_c[NALG]; /* provider under test */
static EVP_CIPHER *g_ref[NALG]; /* default provider, reference */
static int g_case_timeout = 60; /* seconds per case */
static int g_child_timeout = 20; /* seconds per forked child */
static int g_stats; /* stats files can be checked */
static uint64_t g_stream; /* PRNG stream counter */

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static int check(int cond, const char *fmt, ...) CPT_PRINTF(2, 3);

/* Counts a check; prints "ok" or "FAIL" with the message. */
static int check(int cond, const char *fmt, ...)
{
    char msg[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (cond) {
        printf("ok   [%s] %s\n", cpt_subtest(), msg);
        fflush(stdout);
    } else {
        cpt_fail_line("%s", msg);
    }
    return cpt_count(cond);
}

/* The first error on the queue as text ("" when empty); keeps the queue. */
static const char *peek_err(char *buf, size_t len)
{
    unsigned long e = ERR_peek_error();

    buf[0] = '\0';
    if (e != 0)
        ERR_error_string_n(e, buf, len);
    return buf;
}

static void rng_init(cpt_rng *r)
{
    cpt_rng_seed(r, g_opts.seed, ((uint64_t)getpid() << 20) ^ ++g_stream);
}

/* ------------------------------------------------------------------ */
/* GCM against the reference                                           */
/* ------------------------------------------------------------------ */

/*
 * Encrypts (enc) or decrypts in up to three pieces ([0,s1) [s1,s2) [s2,len))
 * with a fresh context.  Decryption sets *tag before the final call;
 * encryption stores the tag.  Returns 1 on success.
 */
static int gcm_run(const EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv,
    const unsigned char *aad, size_t aadlen, const unsigned char *in, size_t len, size_t s1,
    size_t s2, unsigned char *out, unsigned char *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t cut[4] = { 0, s1, s2, len };
    size_t off = 0;
    int n, ok = 0;

    if (ctx == NULL)
        return 0;
    if (!EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL))
        goto end;
    if (aadlen > 0 && !EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aadlen))
        goto end;
    for (int i = 0; i < 3; i++) {
        if (cut[i + 1] <= cut[i])
            continue;
        if (!EVP_CipherUpdate(ctx, out + off, &n, in + cut[i], (int)(cut[i + 1] - cut[i])))
            goto end;
        off += (size_t)n;
    }
    if (!enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, tag))
        goto end;
    if (!EVP_CipherFinal_ex(ctx, out + off, &n))
        goto end;
    off += (size_t)n;
    if (off != len)
        goto end;
    if (enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAGLEN, tag))
        goto end;
    ok = 1;
end:
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/*
 * One random message: encrypt with the provider and the reference (the
 * results must be equal), then decrypt with the provider.  On failure why
 * says what went wrong.  Uses about 20 KiB of stack.
 */
static int gcm_once(int ai, cpt_rng *r, size_t maxlen, char *why, size_t wl)
{
    unsigned char key[32], iv[IVLEN], aad[64], tag[TAGLEN], rtag[TAGLEN];
    unsigned char pt[MAXMSG], ct[MAXMSG + 32], rct[MAXMSG + 32], dec[MAXMSG + 32];
    size_t keylen = (size_t)EVP_CIPHER_get_key_length(g_c[ai]);
    size_t len = (size_t)cpt_rng_range(r, 0, maxlen > MAXMSG ? MAXMSG : maxlen);
    size_t aadlen = (size_t)cpt_rng_range(r, 0, sizeof(aad));
    size_t s1 = (size_t)cpt_rng_range(r, 0, len), s2 = (size_t)cpt_rng_range(r, s1, len);
    char e[256];

    cpt_rng_fill(r, key, sizeof(key));
    cpt_rng_fill(r, iv, sizeof(iv));
    cpt_rng_fill(r, aad, aadlen);
    cpt_rng_fill(r, pt, len);
    if (keylen == 0 || keylen > sizeof(key)) {
        snprintf(why, wl, "%s: key length %zu", alg_names[ai], keylen);
        return 0;
    }
    if (!gcm_run(g_ref[ai], 1, key, iv, aad, aadlen, pt, len, s1, s2, rct, rtag)) {
        snprintf(why, wl, "%s: reference encryption failed: %s", alg_names[ai],
            peek_err(e, sizeof(e)));
        ERR_clear_error();
        return 0;
    }
    if (!gcm_run(g_c[ai], 1, key, iv, aad, aadlen, pt, len, s1, s2, ct, tag)) {
        snprintf(why, wl, "%s: encryption of %zu bytes (aad %zu) failed: %s", alg_names[ai], len,
            aadlen, peek_err(e, sizeof(e)));
        ERR_clear_error();
        return 0;
    }
    if (memcmp(ct, rct, len) != 0 || memcmp(tag, rtag, TAGLEN) != 0) {
        snprintf(why, wl,
            "%s: %zu bytes (aad %zu): %s differs from the default "
            "provider's",
            alg_names[ai], len, aadlen, memcmp(ct, rct, len) != 0 ? "ciphertext" : "tag");
        return 0;
    }
    if (!gcm_run(g_c[ai], 0, key, iv, aad, aadlen, ct, len, s2, s2, dec, tag)) {
        snprintf(why, wl, "%s: decryption of %zu bytes failed: %s", alg_names[ai], len,
            peek_err(e, sizeof(e)));
        ERR_clear_error();
        return 0;
    }
    if (memcmp(dec, pt, len) != 0) {
        snprintf(why, wl, "%s: decryption of %zu bytes gave other bytes", alg_names[ai], len);
        return 0;
    }
    return 1;
}

/* iters messages of every algorithm (or only alg when >= 0). */
static int gcm_work(const char *who, int alg, int iters)
{
    cpt_rng r;
    char why[512];

    rng_init(&r);
    for (int ai = 0; ai < NALG; ai++) {
        if (alg >= 0 && ai != alg)
            continue;
        for (int i = 0; i < iters; i++) {
            if (!gcm_once(ai, &r, i == 0 ? 64 : MAXMSG, why, sizeof(why))) {
                cpt_fail_line("%s (pid %ld): %s", who, (long)getpid(), why);
                return 0;
            }
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Processes                                                           */
/* ------------------------------------------------------------------ */

/*
 * Forks a child that runs fn(arg) under alarm(g_child_timeout) and exits
 * (through exit(): at-exit handlers run, as in a real program) with fn's
 * value.  Returns the pid, -1 on error.
 */
static pid_t spawn(int (*fn)(void *), void *arg)
{
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        cpt_fail_line("fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int rc;

        alarm((unsigned)g_child_timeout);
        rc = fn(arg);
        fflush(stdout);
        exit(rc);
    }
    return pid;
}

/*
 * Waits up to secs for pid (killing it after that).  Returns its exit code
 * (>= 0), or -1 when it hung or died by a signal (printed).
 */
static int reap_code(pid_t pid, int secs, const char *what)
{
    double end = cpt_now() + secs;
    int st = 0;

    if (pid <= 0)
        return -1;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);

        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            cpt_fail_line("%s (pid %ld): waitpid: %s", what, (long)pid, strerror(errno));
            return -1;
        }
        if (cpt_now() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            cpt_fail_line("%s (pid %ld) still running after %d s: HANG (killed)", what, (long)pid,
                secs);
            return -1;
        }
        usleep(2000);
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);

        cpt_fail_line("%s (pid %ld) killed by signal %d (%s)%s", what, (long)pid, sig,
            strsignal(sig), sig == SIGALRM ? ": its watchdog fired, HANG" : ": CRASH");
    }
    return -1;
}

/* 1 when pid exited 0 within the child timeout (+ slack). */
static int reap(pid_t pid, const char *what)
{
    int rc = reap_code(pid, g_child_timeout + 5, what);

    if (rc > 0)
        cpt_fail_line("%s (pid %ld) exited with status %d", what, (long)pid, rc);
    return rc == 0;
}

/* ------------------------------------------------------------------ */
/* Stats files                                                         */
/* ------------------------------------------------------------------ */

/*
 * Waits up to ms for pid's file to show alg with device > 0. On the tests'
 * dpdk backend a child forked from a process whose EAL runs cannot start
 * DPDK again and computes on the backend's CPU path: its work counts as
 * software.
 */
static int stats_wait(pid_t pid, const char *alg, int ms, cpt_alg_stats *st, char *why, size_t wl)
{
    double end = cpt_now() + ms / 1000.0;
    const char *b = getenv("CPTPROV_TEST_BACKEND");
    int cpu_children = b != NULL && strcmp(b, "dpdk") == 0 && pid != getpid();

    for (;;) {
        int ok = cpt_stats_read(g_env.stats_dir, "cptprov", pid, alg, st, why, wl);

        if (ok && st->found && (st->device > 0 || (cpu_children && st->software > 0)))
            return 1;
        if (cpt_now() > end) {
            if (ok)
                snprintf(why, wl,
                    "%.300s/cptprov-%ld.stats: %s found=%d ops=%lld "
                    "device=%lld software=%lld errors=%lld",
                    g_env.stats_dir, (long)pid, alg, st->found, st->ops, st->device, st->software,
                    st->errors);
            return 0;
        }
        usleep(50 * 1000);
    }
}

/* ------------------------------------------------------------------ */
/* Case: use, fork, use                                                */
/* ------------------------------------------------------------------ */

static int c1_grandchild(void *arg)
{
    (void)arg;
    return gcm_work("grandchild", -1, 3) ? 0 : 1;
}

static int c1_child(void *arg)
{
    int ok;
    pid_t g;

    (void)arg;
    ok = gcm_work("child", -1, 3);
    g = spawn(c1_grandchild, NULL);
    ok &= reap(g, "grandchild");
    ok &= gcm_work("child after its grandchild exited", -1, 2);
    return ok ? 0 : 1;
}

static int c1_plain_child(void *arg)
{
    (void)arg;
    return gcm_work("second child", 2, 3) ? 0 : 1;
}

static void case_use_fork_use(void)
{
    pid_t pid;

    if (!check(gcm_work("parent", -1, 3), "parent: GCM matches the default provider"))
        return;
    pid = spawn(c1_child, NULL);
    check(reap(pid, "child"),
        "child (new contexts, all key sizes) and the "
        "grandchild it forked both work and exit 0");
    check(gcm_work("parent after the children exited", -1, 3),
        "parent keeps working after its children exited");
    pid = spawn(c1_plain_child, NULL);
    check(reap(pid, "second child"), "a second child forked later works too");
    check(gcm_work("parent at the end", 2, 2), "parent still works at the end");
}

/* ------------------------------------------------------------------ */
/* Case: fork before first use                                         */
/* ------------------------------------------------------------------ */

static int c2_child(void *arg)
{
    (void)arg;
    return gcm_work("child", -1, 3) ? 0 : 1;
}

static void case_fork_before_use(void)
{
    pid_t pid;
    int pok;

    /* Loaded and fetched, but no operation yet: no Go anywhere. */
    pid = spawn(c2_child, NULL);
    pok = gcm_work("parent", -1, 3); /* concurrently with the child */
    check(reap(pid, "child"), "child forked before any operation works");
    check(pok, "parent works while and after that child runs");
    pid = spawn(c2_child, NULL);
    check(reap(pid, "later child"), "a child forked after the parent's first use works");
}

/* ------------------------------------------------------------------ */
/* Case: object created before fork                                    */
/* ------------------------------------------------------------------ */

#define C3_LEN 3000
#define C3_SPLIT 1000 /* bytes processed before the fork */

typedef struct {
    const char *name;
    int enc;
    int variant; /* 0: continue, 1: dup then continue, 2: re-init with a new IV */
    unsigned char key[32], iv[IVLEN], iv2[IVLEN], aad[40];
    unsigned char msg[C3_LEN]; /* plaintext */
    unsigned char rct[C3_LEN], rtag[TAGLEN]; /* reference encryption (iv) */
    unsigned char rct2[C3_LEN], rtag2[TAGLEN]; /* reference encryption (iv2) */
    EVP_CIPHER_CTX *ctx; /* provider, fed up to C3_SPLIT */
    unsigned char out[C3_LEN + 32];
    size_t outl;
} c3_stream;

enum { C3_RIGHT = 0, C3_BAD = 1, C3_CLEAN_ERROR = 10 };

/* Sets up a stream in the parent: keyed, AAD and C3_SPLIT bytes fed. */
static int c3_setup(c3_stream *s, int enc, int variant, const char *name, cpt_rng *r)
{
    const int ai = 2; /* AES-256-GCM */
    int n;

    memset(s, 0, sizeof(*s));
    s->name = name;
    s->enc = enc;
    s->variant = variant;
    cpt_rng_fill(r, s->key, sizeof(s->key));
    cpt_rng_fill(r, s->iv, sizeof(s->iv));
    cpt_rng_fill(r, s->iv2, sizeof(s->iv2));
    cpt_rng_fill(r, s->aad, sizeof(s->aad));
    cpt_rng_fill(r, s->msg, sizeof(s->msg));
    if (!gcm_run(g_ref[ai], 1, s->key, s->iv, s->aad, sizeof(s->aad), s->msg, C3_LEN, 0, 0, s->rct,
            s->rtag)
        || !gcm_run(g_ref[ai], 1, s->key, s->iv2, s->aad, sizeof(s->aad), s->msg, C3_LEN, 0, 0,
            s->rct2, s->rtag2))
        return 0;
    if ((s->ctx = EVP_CIPHER_CTX_new()) == NULL
        || !EVP_CipherInit_ex2(s->ctx, g_c[ai], s->key, s->iv, enc, NULL)
        || !EVP_CipherUpdate(s->ctx, NULL, &n, s->aad, (int)sizeof(s->aad))
        || !EVP_CipherUpdate(s->ctx, s->out, &n, enc ? s->msg : s->rct, C3_SPLIT))
        return 0;
    s->outl = (size_t)n;
    return 1;
}

/*
 * Continues (or re-initialises) the stream and compares.  Returns C3_RIGHT,
 * C3_CLEAN_ERROR (a call returned 0 with an error on the queue) or C3_BAD;
 * how says what happened.
 */
static int c3_continue(c3_stream *s, EVP_CIPHER_CTX *ctx, char *how, size_t hl)
{
    const unsigned char *in = s->enc ? s->msg : s->rct;
    const unsigned char *want = s->enc ? s->rct : s->msg;
    const unsigned char *wtag = s->rtag;
    unsigned char tag[TAGLEN];
    const char *step;
    char e[256];
    int n;

    if (s->variant == 2) {
        /* Same key, new IV, whole message. */
        in = s->enc ? s->msg : s->rct2;
        want = s->enc ? s->rct2 : s->msg;
        wtag = s->rtag2;
        step = "re-init with a new IV";
        if (!EVP_CipherInit_ex2(ctx, NULL, NULL, s->iv2, s->enc, NULL))
            goto fail;
        step = "AAD";
        if (!EVP_CipherUpdate(ctx, NULL, &n, s->aad, (int)sizeof(s->aad)))
            goto fail;
        s->outl = 0;
        step = "first part";
        if (!EVP_CipherUpdate(ctx, s->out, &n, in, C3_SPLIT))
            goto fail;
        s->outl = (size_t)n;
    }
    step = "update";
    if (!EVP_CipherUpdate(ctx, s->out + s->outl, &n, in + C3_SPLIT, C3_LEN - C3_SPLIT))
        goto fail;
    s->outl += (size_t)n;
    if (!s->enc) {
        step = "set tag";
        if (!EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, (void *)wtag))
            goto fail;
    }
    step = "final";
    if (!EVP_CipherFinal_ex(ctx, s->out + s->outl, &n))
        goto fail;
    s->outl += (size_t)n;
    if (s->enc) {
        step = "get tag";
        if (!EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAGLEN, tag))
            goto fail;
    }
    if (s->outl != C3_LEN || memcmp(s->out, want, C3_LEN) != 0) {
        size_t i = 0;

        while (i < s->outl && i < C3_LEN && s->out[i] == want[i])
            i++;
        snprintf(how, hl,
            "WRONG RESULT: %zu bytes out (want %d), first "
            "difference at byte %zu",
            s->outl, C3_LEN, i);
        return C3_BAD;
    }
    if (s->enc && memcmp(tag, wtag, TAGLEN) != 0) {
        snprintf(how, hl, "WRONG RESULT: the tag differs from the default provider's");
        return C3_BAD;
    }
    snprintf(how, hl, "right result (same %s as the default provider)",
        s->enc ? "ciphertext and tag" : "plaintext, tag verified");
    return C3_RIGHT;
fail:
    if (ERR_peek_error() == 0) {
        snprintf(how, hl, "'%s' returned 0 with NO error on the queue", step);
        return C3_BAD;
    }
    snprintf(how, hl, "clean error at '%s': %s", step, peek_err(e, sizeof(e)));
    ERR_clear_error();
    return C3_CLEAN_ERROR;
}

static int c3_child(void *arg)
{
    c3_stream *s = arg;
    EVP_CIPHER_CTX *ctx = s->ctx, *dup = NULL;
    char how[512];
    int rc;

    if (s->variant == 1) {
        /* Duplicate the inherited context, drop the original, go on. */
        dup = EVP_CIPHER_CTX_new();
        if (dup == NULL || !EVP_CIPHER_CTX_copy(dup, ctx)) {
            char e[256];

            if (ERR_peek_error() == 0) {
                printf("NOTE [%s] %s: EVP_CIPHER_CTX_copy returned 0 with NO "
                       "error on the queue\n",
                    cpt_subtest(), s->name);
                return C3_BAD;
            }
            printf("NOTE [%s] %s: clean error at 'EVP_CIPHER_CTX_copy': %s\n", cpt_subtest(),
                s->name, peek_err(e, sizeof(e)));
            return C3_CLEAN_ERROR;
        }
        EVP_CIPHER_CTX_free(ctx);
        ctx = dup;
    }
    rc = c3_continue(s, ctx, how, sizeof(how));
    printf("NOTE [%s] %s in the child: %s\n", cpt_subtest(), s->name, how);
    fflush(stdout);
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}

static void case_object_before_fork(void)
{
    static c3_stream st[4];
    static const struct {
        const char *name;
        int enc, variant;
    } v[4] = {
        { "encryption stream continued", 1, 0 },
        { "decryption stream continued", 0, 0 },
        { "encryption stream duplicated (EVP_CIPHER_CTX_copy) and continued", 1, 1 },
        { "keyed context re-initialised with a new IV", 1, 2 },
    };
    cpt_rng r;
    char how[512];

    rng_init(&r);
    for (int i = 0; i < 4; i++) {
        if (!check(c3_setup(&st[i], v[i].enc, v[i].variant, v[i].name, &r),
                "parent: set up '%s' (key, IV, AAD, %d of %d bytes)", v[i].name, C3_SPLIT,
                C3_LEN)) {
            cpt_drain_errors(1);
            return;
        }
    }
    for (int i = 0; i < 4; i++) {
        pid_t pid = spawn(c3_child, &st[i]);
        int rc = reap_code(pid, g_child_timeout + 5, v[i].name);

        check(rc == C3_RIGHT || rc == C3_CLEAN_ERROR, "child: %s: %s", v[i].name,
            rc == C3_RIGHT             ? "right result"
                : rc == C3_CLEAN_ERROR ? "failed cleanly (EVP call returned 0, error on the queue)"
                : rc < 0               ? "hang or crash"
                                       : "wrong result or an error without a queue entry");
    }
    /* The parent's own copies are untouched by what the children did. */
    for (int i = 0; i < 4; i++) {
        int rc;

        if (st[i].variant != 0)
            continue;
        rc = c3_continue(&st[i], st[i].ctx, how, sizeof(how));
        check(rc == C3_RIGHT, "parent continues its own '%s' after the children: %s", st[i].name,
            how);
    }
    for (int i = 0; i < 4; i++)
        EVP_CIPHER_CTX_free(st[i].ctx);
}

/* ------------------------------------------------------------------ */
/* Case: threads + fork                                                */
/* ------------------------------------------------------------------ */

typedef struct {
    int alg;
    atomic_int *stop;
    atomic_ulong iters;
    atomic_ulong fails;
    char why[512];
} c4_worker;

static void *c4_thread(void *arg)
{
    c4_worker *w = arg;
    cpt_rng r;
    char why[512];

    cpt_set_subtest("threads-fork");
    cpt_rng_seed(&r, g_opts.seed, (uint64_t)(uintptr_t)w);
    while (!atomic_load(w->stop)) {
        if (!gcm_once(w->alg, &r, 2048, why, sizeof(why))) {
            if (atomic_fetch_add(&w->fails, 1) == 0)
                snprintf(w->why, sizeof(w->why), "%s", why);
        }
        atomic_fetch_add(&w->iters, 1);
    }
    return NULL;
}

static int c4_child(void *arg)
{
    (void)arg;
    /* Only pre-fetched ciphers: nothing that takes a lock a parent thread
     * might have held at fork time. */
    return gcm_work("child forked while threads ran", -1, 3) ? 0 : 1;
}

static int wait_iters(c4_worker *w, int nw, unsigned long at_least, int secs)
{
    double end = cpt_now() + secs;

    for (;;) {
        int all = 1;

        for (int i = 0; i < nw; i++)
            if (atomic_load(&w[i].iters) < at_least)
                all = 0;
        if (all)
            return 1;
        if (cpt_now() > end)
            return 0;
        usleep(1000);
    }
}

static void case_threads_fork(void)
{
    static c4_worker w[2];
    pthread_t t[2];
    static atomic_int stop;
    int started = 0, ok, nchild = 3, okc = 0;
    unsigned long before[2];

    atomic_store(&stop, 0);
    for (int i = 0; i < 2; i++) {
        memset(&w[i], 0, sizeof(w[i]));
        w[i].alg = i == 0 ? 2 : 0;
        w[i].stop = &stop;
        atomic_init(&w[i].iters, 0);
        atomic_init(&w[i].fails, 0);
        if (pthread_create(&t[i], NULL, c4_thread, &w[i]) != 0) {
            check(0, "pthread_create: %s", strerror(errno));
            break;
        }
        started++;
    }
    if (started < 2)
        goto join;
    ok = wait_iters(w, 2, 5, 10);
    check(ok, "two threads run GCM in a loop (%lu and %lu messages before forking)",
        atomic_load(&w[0].iters), atomic_load(&w[1].iters));
    if (!ok)
        goto join;
    for (int i = 0; i < nchild; i++) {
        pid_t pid = spawn(c4_child, NULL);

        okc += reap(pid, "child forked while threads ran");
        usleep(10 * 1000);
    }
    check(okc == nchild, "%d of %d children forked while the threads ran GCM work", okc, nchild);
    before[0] = atomic_load(&w[0].iters);
    before[1] = atomic_load(&w[1].iters);
    ok = wait_iters(w, 2, (before[0] > before[1] ? before[0] : before[1]) + 3, 10);
    check(ok,
        "the parent's threads keep running after the forks (%lu -> %lu, "
        "%lu -> %lu messages)",
        before[0], atomic_load(&w[0].iters), before[1], atomic_load(&w[1].iters));
join:
    atomic_store(&stop, 1);
    for (int i = 0; i < started; i++) {
        struct timespec ts;
        int rc;

        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 10;
        rc = pthread_timedjoin_np(t[i], NULL, &ts);
        if (!check(rc == 0, "thread %d finished (join: %s)", i, rc == 0 ? "ok" : strerror(rc))) {
            /* A thread is stuck: this process cannot end cleanly. */
            printf("NOTE [%s] a thread is stuck: giving up on this case\n", cpt_subtest());
            return;
        }
        check(atomic_load(&w[i].fails) == 0, "thread %d: %lu messages, %lu failed%s%s", i,
            atomic_load(&w[i].iters), atomic_load(&w[i].fails), w[i].why[0] ? ": " : "", w[i].why);
    }
}

/* ------------------------------------------------------------------ */
/* Case: many children                                                 */
/* ------------------------------------------------------------------ */

static int c5_child(void *arg)
{
    (void)arg;
    return gcm_work("child", -1, 2) ? 0 : 1;
}

static void case_many_children(void)
{
    enum { N = 8 };
    pid_t pids[N];
    int ok = 0;

    check(gcm_work("parent", -1, 2), "parent: GCM works before forking");
    for (int i = 0; i < N; i++) {
        pid_t pid = spawn(c5_child, NULL);

        ok += reap(pid, "sequential child");
    }
    check(ok == N, "%d of %d children forked one after another succeeded", ok, N);
    for (int i = 0; i < N; i++)
        pids[i] = spawn(c5_child, NULL);
    ok = 0;
    for (int i = 0; i < N; i++)
        ok += reap(pids[i], "concurrent child");
    check(ok == N, "%d of %d children running at the same time succeeded", ok, N);
    check(gcm_work("parent after 16 children", -1, 1), "parent still works");
}

/* ------------------------------------------------------------------ */
/* Case: stats per process                                             */
/* ------------------------------------------------------------------ */

#define C6_PARENT_MSGS 150
#define C6_CHILD_MSGS 4

static int c6_grandchild(void *arg)
{
    (void)arg;
    return gcm_work("grandchild", 1, C6_CHILD_MSGS) ? 0 : 1;
}

/* arg: the algorithm index.  Child 0 also checks its grandchild's file. */
static int c6_child(void *arg)
{
    int ai = (int)(intptr_t)arg, ok;

    ok = gcm_work("child", ai, C6_CHILD_MSGS);
    if (ok && ai == 0) {
        pid_t g = spawn(c6_grandchild, NULL);
        cpt_alg_stats st;
        char why[600];

        ok = reap(g, "grandchild");
        if (ok && !stats_wait(g, alg_names[1], 3000, &st, why, sizeof(why))) {
            cpt_fail_line("grandchild %ld has no usable stats file: %s", (long)g, why);
            ok = 0;
        }
        if (ok)
            printf("ok   [%s] grandchild %ld: stats file with %s device=%lld\n", cpt_subtest(),
                (long)g, alg_names[1], st.device);
    }
    return ok ? 0 : 1;
}

static void case_stats_per_process(void)
{
    enum { N = NALG };
    pid_t pids[N];
    int exited[N];
    cpt_alg_stats st;
    char why[600];

    if (!g_stats) {
        printf("NOTE [%s] no statistics file for this provider: case skipped\n", cpt_subtest());
        return;
    }
    /* Many AES-256-GCM operations in the parent before any fork. */
    if (!check(gcm_work("parent", 2, C6_PARENT_MSGS),
            "parent: %d AES-256-GCM "
            "messages before forking",
            C6_PARENT_MSGS))
        return;
    for (int i = 0; i < N; i++) {
        pids[i] = spawn(c6_child, (void *)(intptr_t)i);
        exited[i] = reap(pids[i], "child");
        check(exited[i], "child %ld (%s%s) exited 0", (long)pids[i], alg_names[i],
            i == 0 ? ", checked its grandchild's stats file" : "");
    }
    for (int i = 0; i < N; i++) {
        if (!exited[i])
            continue;
        if (check(stats_wait(pids[i], alg_names[i], 3000, &st, why, sizeof(why)),
                "child %ld: cptprov-%ld.stats has %s device > 0%s%s", (long)pids[i], (long)pids[i],
                alg_names[i], st.found ? "" : "; ", st.found ? "" : why)) {
            /* ops of this child only, not the parent's inherited counts. */
            check(st.ops > 0 && st.ops <= 16 * C6_CHILD_MSGS,
                "child %ld counts only its own %s operations (ops=%lld, "
                "device=%lld; the parent did %d messages before the fork)",
                (long)pids[i], alg_names[i], st.ops, st.device, C6_PARENT_MSGS);
        } else {
            printf("    %s\n", why);
        }
        if (i != 2) {
            cpt_alg_stats s2;

            if (cpt_stats_read(g_env.stats_dir, "cptprov", pids[i], "AES-256-GCM", &s2, why,
                    sizeof(why)))
                check(!s2.found || s2.ops == 0,
                    "child %ld (which used only %s) shows no AES-256-GCM "
                    "operations inherited from the parent (found=%d ops=%lld)",
                    (long)pids[i], alg_names[i], s2.found, s2.ops);
        }
    }
    /* The parent (still running) writes its own file at least once a second. */
    if (!stats_wait(getpid(), "AES-256-GCM", 3000, &st, why, sizeof(why)))
        check(0, "parent %ld: no stats file with AES-256-GCM device > 0 within 3 s: %s",
            (long)getpid(), why);
    else
        check(st.ops >= C6_PARENT_MSGS,
            "parent %ld: its own stats file shows its "
            "AES-256-GCM work (ops=%lld device=%lld)",
            (long)getpid(), st.ops, st.device);
}

/* ------------------------------------------------------------------ */
/* Case: the CPU path across fork                                      */
/* ------------------------------------------------------------------ */

/*
 * An AES-256-CBC stream that the parent began with short updates (the CPU
 * path's twin, in cptprov's own library context) and long ones (the device)
 * goes on in children and a grandchild, which move it between the two
 * again; every process's output must be the default provider's.
 */
#define C7_LEN 40000
static unsigned char c7_key[32], c7_iv[16], c7_msg[C7_LEN], c7_want[C7_LEN + 16];
static EVP_CIPHER_CTX *c7_ctx;
static size_t c7_done_in, c7_done_out;
static unsigned char c7_out[C7_LEN + 16];

/* Feeds the rest of the message in sizes alternating around the
 * threshold, then checks the whole output. */
static int c7_finish(const char *who)
{
    static const size_t sizes[] = { 17, 5000, 3, 100, 9000, 64 };
    int n, ok = 1;

    for (size_t k = 0; ok && c7_done_in < C7_LEN; k++) {
        size_t len = sizes[k % 6];

        len = len > C7_LEN - c7_done_in ? C7_LEN - c7_done_in : len;
        ok = EVP_EncryptUpdate(c7_ctx, c7_out + c7_done_out, &n, c7_msg + c7_done_in, (int)len);
        c7_done_in += len;
        c7_done_out += (size_t)n;
    }
    ok = ok && EVP_EncryptFinal_ex(c7_ctx, c7_out + c7_done_out, &n);
    c7_done_out += ok ? (size_t)n : 0;
    ok = ok && c7_done_out == C7_LEN + 16 && memcmp(c7_out, c7_want, c7_done_out) == 0;
    if (!ok)
        cpt_fail_line("%s (pid %ld): the stream's output differs from the default provider's", who,
            (long)getpid());
    return ok;
}

static int c7_grandchild(void *arg)
{
    (void)arg;
    return c7_finish("grandchild") ? 0 : 1;
}

static int c7_child(void *arg)
{
    int n, ok;

    (void)arg;
    /* a short update on the inherited twin, a long one to the device (a
     * runtime of the child's own), then the grandchild finishes a copy */
    ok = EVP_EncryptUpdate(c7_ctx, c7_out + c7_done_out, &n, c7_msg + c7_done_in, 33);
    c7_done_in += 33;
    c7_done_out += (size_t)n;
    ok = ok && EVP_EncryptUpdate(c7_ctx, c7_out + c7_done_out, &n, c7_msg + c7_done_in, 12000);
    c7_done_in += 12000;
    c7_done_out += (size_t)n;
    if (!ok) {
        cpt_fail_line("child (pid %ld): an update failed", (long)getpid());
        return 1;
    }
    if (!reap(spawn(c7_grandchild, NULL), "grandchild"))
        return 1;
    return c7_finish("child") ? 0 : 1;
}

static void case_cpu_path_fork(void)
{
    EVP_CIPHER *c = cpt_fetch_cipher(&g_env, 0, "AES-256-CBC");
    EVP_CIPHER *r = cpt_fetch_cipher(&g_env, 1, "AES-256-CBC");
    EVP_CIPHER_CTX *ref = EVP_CIPHER_CTX_new();
    cpt_rng rng;
    int n, m, ok;

    rng_init(&rng);
    cpt_rng_fill(&rng, c7_key, sizeof(c7_key));
    cpt_rng_fill(&rng, c7_iv, sizeof(c7_iv));
    cpt_rng_fill(&rng, c7_msg, sizeof(c7_msg));
    ok = c != NULL && r != NULL && EVP_EncryptInit_ex2(ref, r, c7_key, c7_iv, NULL)
        && EVP_EncryptUpdate(ref, c7_want, &n, c7_msg, C7_LEN)
        && EVP_EncryptFinal_ex(ref, c7_want + n, &m);
    c7_ctx = EVP_CIPHER_CTX_new();
    ok = ok && EVP_EncryptInit_ex2(c7_ctx, c, c7_key, c7_iv, NULL);
    /* the parent: CPU path, device, CPU path */
    for (size_t len = 0, k = 0; ok && k < 3; k++, c7_done_in += len) {
        len = k == 1 ? 6000 : 45;
        ok = EVP_EncryptUpdate(c7_ctx, c7_out + c7_done_out, &n, c7_msg + c7_done_in, (int)len);
        c7_done_out += (size_t)n;
    }
    if (check(ok, "parent: reference and first updates")) {
        for (int i = 0; i < 3; i++)
            check(reap(spawn(c7_child, NULL), "child"), "child %d carried the stream on", i);
        check(c7_finish("parent"), "the parent finished the stream itself after its children");
    }
    EVP_CIPHER_CTX_free(c7_ctx);
    EVP_CIPHER_CTX_free(ref);
    EVP_CIPHER_free(c);
    EVP_CIPHER_free(r);
}

/* ------------------------------------------------------------------ */
/* Driver                                                              */
/* ------------------------------------------------------------------ */

static const cpt_named_test cases[] = {
    { "use-fork-use", case_use_fork_use },
    { "fork-before-use", case_fork_before_use },
    { "object-before-fork", case_object_before_fork },
    { "threads-fork", case_threads_fork },
    { "many-children", case_many_children },
    { "stats-per-process", case_stats_per_process },
    { "cpu-path-fork", case_cpu_path_fork },
};

struct shared_counts {
    volatile unsigned long passed, failed;
    volatile int reported;
};

/* Body of a case process: loads the provider, runs the case, reports. */
static int run_case_process(const cpt_named_test *c, struct shared_counts *sh)
{
    /* The driver's own counts were inherited: report only this case's. */
    unsigned long base_passed = cpt_passed(), base_failed = cpt_failed();
    int ok = 1;

    setpgid(0, 0);
    alarm((unsigned)g_case_timeout); /* backstop: the driver also watches */
    cpt_set_subtest(c->name);
    if (!cpt_env_init(&g_env, &g_opts)) {
        cpt_count(0);
        cpt_fail_line("cannot load the provider");
        ok = 0;
    }
    for (int i = 0; ok && i < NALG; i++) {
        g_c[i] = cpt_fetch_cipher(&g_env, 0, alg_names[i]);
        g_ref[i] = cpt_fetch_cipher(&g_env, 1, alg_names[i]);
        if (g_c[i] == NULL || g_ref[i] == NULL) {
            cpt_count(0);
            cpt_fail_line("cannot fetch %s", alg_names[i]);
            ok = 0;
        }
    }
    if (ok)
        c->fn();
    sh->passed = cpt_passed() - base_passed;
    sh->failed = cpt_failed() - base_failed;
    sh->reported = 1;
    fflush(stdout);
    /* No cleanup on purpose: exit() runs OpenSSL's and cptprov's at-exit
     * handlers, as in any program; a hang there is caught by the driver. */
    exit(sh->failed == 0 ? 0 : 1);
}

static char tmp_stats_dir[256];

static void remove_tmp_stats_dir(void)
{
    DIR *d;
    struct dirent *e;

    if (tmp_stats_dir[0] == '\0')
        return;
    if ((d = opendir(tmp_stats_dir)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            char p[600];

            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof(p), "%s/%s", tmp_stats_dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(tmp_stats_dir);
}

static void usage(const char *argv0)
{
    fprintf(stderr,
        "usage: %s [MODULE_DIR] [--timeout SECONDS] [options]\n"
        "cases: ",
        argv0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        fprintf(stderr, "%s%s", i ? ", " : "", cases[i].name);
    fprintf(stderr, "\n");
    cpt_opts_usage(stderr);
}

int main(int argc, char **argv)
{
    struct shared_counts *sh;
    double t_all = cpt_now();
    int keep = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    cpt_opts_init(&g_opts);
    for (int i = 1; i < argc; i++) {
        int r = cpt_opts_parse_one(&g_opts, argc, argv, &i);

        if (r < 0) {
            usage(argv[0]);
            return 2;
        }
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            g_case_timeout = atoi(argv[++i]);
            if (g_case_timeout < 5)
                g_case_timeout = 5;
            if (g_child_timeout > g_case_timeout - 2)
                g_child_timeout = g_case_timeout - 2;
        } else if (strcmp(argv[i], "--keep") == 0) {
            keep = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(argv[0]);
            return 0;
        } else if (argv[i][0] != '-') {
            g_opts.provider_path = argv[i];
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            usage(argv[0]);
            return 2;
        }
    }
    cpt_set_verbose(g_opts.verbose);
    g_stats = !g_opts.no_stats && strcmp(g_opts.provider, "default") != 0;
    if (g_opts.stats_dir == NULL) {
        snprintf(tmp_stats_dir, sizeof(tmp_stats_dir), "%s/cpt-fork-test-XXXXXX",
            getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
        if (mkdtemp(tmp_stats_dir) == NULL) {
            perror("mkdtemp");
            return 2;
        }
        g_opts.stats_dir = tmp_stats_dir;
    }
    printf("fork_test: provider %s from %s, stats_dir %s, seed %llu\n", g_opts.provider,
        g_opts.provider_path, g_opts.stats_dir, (unsigned long long)g_opts.seed);

    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 2;
    }

    /* This process never touches OpenSSL: each case starts from scratch. */
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
        const cpt_named_test *c = &cases[ci];
        double t0 = cpt_now(), end = t0 + g_case_timeout + 5;
        int st = 0, hung = 0;
        pid_t pid;

        if (!cpt_selected(&g_opts, c->name))
            continue;
        cpt_set_subtest(c->name);
        memset((void *)sh, 0, sizeof(*sh));
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0) {
            perror("fork");
            cpt_count(0);
            continue;
        }
        if (pid == 0)
            run_case_process(c, sh);
        setpgid(pid, pid); /* also done by the child; whichever runs first */
        for (;;) {
            pid_t w = waitpid(pid, &st, WNOHANG);

            if (w == pid)
                break;
            if (w < 0 && errno != EINTR) {
                perror("waitpid");
                break;
            }
            if (cpt_now() > end) {
                hung = 1;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
                break;
            }
            usleep(5000);
        }
        /* Whatever the case left behind (stuck grandchildren, ...). */
        kill(-pid, SIGKILL);

        for (unsigned long k = 0; k < sh->passed; k++)
            cpt_count(1);
        for (unsigned long k = 0; k < sh->failed; k++)
            cpt_count(0);
        if (hung) {
            cpt_check(0, "case process still running after %d s: HANG (killed)",
                g_case_timeout + 5);
        } else if (WIFSIGNALED(st)) {
            int sig = WTERMSIG(st);

            cpt_check(0, "case process killed by signal %d (%s)%s", sig, strsignal(sig),
                sig == SIGALRM ? ": watchdog, HANG" : ": CRASH");
        } else if (!sh->reported) {
            cpt_check(0, "case process exited %d without reporting", WEXITSTATUS(st));
        } else if (WEXITSTATUS(st) != 0 && sh->failed == 0) {
            cpt_check(0, "case process exited %d", WEXITSTATUS(st));
        }
        printf("[%s] ok=%lu fail=%lu%s time=%.2fs\n", c->name, sh->passed, sh->failed,
            hung ? " HANG" : "", cpt_now() - t0);
    }
    if (!keep)
        remove_tmp_stats_dir();
    printf("fork_test: %.2fs\n", cpt_now() - t_all);
    return cpt_finish();
}
