/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gcm_test.c - AES-GCM conformance harness for an OpenSSL 3 provider.
 *
 * Compares the provider under test (default: cptprov) with OpenSSL's default
 * provider, loaded into a separate library context.  Sub-tests (select with
 * --only/--skip):
 *
 *   params    cipher/ctx parameters and parameter lists vs default
 *   negative  error paths: return codes vs default, error queue, no crash
 *   kat       known answers from tests/vectors/gcm_kat.txt
 *   diff      random differential encrypt/decrypt (split updates, in place,
 *             odd IV lengths, truncated tags, up to 1 MiB)
 *   tamper    modified tag / ciphertext / AAD / IV must fail in final
 *   tls12     TLS 1.2 record mode exactly as libssl drives it
 *   tls13     TLS 1.3 per-record re-init pattern
 *   dup       EVP_CIPHER_CTX_copy in the middle of a stream
 *   async     differential work inside ASYNC jobs (+ a 2-thread variant
 *             "async2t")
 *   stats     the provider's stats file shows device work
 *
 * Every random case derives from (--seed, sub-test, case index); a failure
 * line names the case so that "--seed S --only NAME --case I" repeats it.
 * The last line is exactly "N passed, N failed".
 */
#include "common.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

/* ================================================================== */
/* Globals and options                                                 */
/* ================================================================== */

#define NALG 3
static const char *const g_alg[NALG] = { "AES-128-GCM", "AES-192-GCM", "AES-256-GCM" };
static const size_t g_klen[NALG] = { 16, 24, 32 };

static cpt_opts g_o;
static cpt_env g_env;
static EVP_CIPHER *g_tc[NALG]; /* provider under test */
static EVP_CIPHER *g_rc[NALG]; /* reference: default provider, own libctx */
static uint64_t g_iters = 500;
static size_t g_jobs = 32;
static int g_expect_async;
static int g_test_is_default; /* the provider under test is "default" */
static long long g_case = -1; /* --case: run only this case index */
static size_t g_maxlen = 1 << 20;
static int g_no_aad; /* --no-aad: random cases without AAD */

/* Per-sub-test bookkeeping (main thread only). */
static unsigned long g_fail_cap = 100; /* --max-fail-lines, 0: no limit */
static unsigned long g_fail_printed, g_fail_suppressed;
static unsigned long g_noerr_default; /* both failed silently, default under test */
static const char *g_sub = "main";

/* Sub-test ids (for deriving per-case seeds). */
enum {
    ST_PARAMS = 1,
    ST_NEG,
    ST_KAT,
    ST_DIFF,
    ST_TAMPER,
    ST_TLS12,
    ST_TLS13,
    ST_DUP,
    ST_ASYNC,
    ST_ASYNC2T
};

static uint64_t case_seed(int st, uint64_t idx)
{
    return cpt_mix64(g_o.seed, ((uint64_t)st << 40) ^ idx);
}

static int case_selected(uint64_t idx)
{
    return g_case < 0 || (uint64_t)g_case == idx;
}

/* Counts a check; prints a FAIL line (capped per sub-test) when !cond. */
static int chk(int cond, const char *fmt, ...) CPT_PRINTF(2, 3);
static int chk(int cond, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    cpt_count(cond);
    if (cond)
        return 1;
    if (g_fail_cap > 0 && g_fail_printed >= g_fail_cap) {
        g_fail_suppressed++;
        return 0;
    }
    g_fail_printed++;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    cpt_fail_line("%s", buf);
    return 0;
}

/* 1 when the calling thread's error queue is non-empty; clears it. */
static int take_errors(void)
{
    int any = ERR_peek_error() != 0;

    if (any && g_o.verbose > 1) {
        fflush(stdout);
        ERR_print_errors_fp(stderr);
    }
    ERR_clear_error();
    return any;
}

/*
 * A call failed on the provider under test (and on the reference): the
 * provider must have left an error on the queue.  OpenSSL's default provider
 * itself fails silently in a few places (tag mismatch, ...); when it is the
 * provider under test those cases are counted as a note, not a failure,
 * unless --strict-errors.
 */
static void need_error(int prov_err, int ref_err, const char *what, const char *repro)
{
    if (prov_err) {
        cpt_count(1);
        return;
    }
    if (ref_err) {
        chk(0, "%s: failed without an error on the queue (default leaves one)%s%s", what,
            repro[0] ? "; " : "", repro);
        return;
    }
    if (g_test_is_default && !g_o.strict_errors) {
        g_noerr_default++;
        cpt_info("%s: default fails without an error on the queue", what);
        return;
    }
    chk(0, "%s: failed without an error on the queue%s%s", what, repro[0] ? "; " : "", repro);
}

static double g_sub_t0;

static void sub_begin(const char *name)
{
    g_sub = name;
    cpt_set_subtest(name);
    g_fail_printed = g_fail_suppressed = 0;
    g_noerr_default = 0;
    g_sub_t0 = cpt_now();
}

static void sub_end(void)
{
    if (g_fail_suppressed > 0)
        cpt_fail_line("%lu further failures not printed (--max-fail-lines %lu)", g_fail_suppressed,
            g_fail_cap);
    if (g_noerr_default > 0)
        cpt_note("%lu failing calls of the default provider left no error "
                 "(not required of default; --strict-errors to require)",
            g_noerr_default);
    cpt_subtest_summary(g_sub, cpt_now() - g_sub_t0);
    cpt_set_subtest("main");
    g_sub = "main";
}

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
        "usage: %s [options]\n"
        "  --iters N        random cases per sub-test scale (default 500)\n"
        "  --jobs N         ASYNC jobs in flight (default 32)\n"
        "  --expect-async   require that some ASYNC jobs paused\n"
        "  --case I         run only random case I of the selected sub-tests\n"
        "  --max-len N      largest random message (default 1048576)\n"
        "  --no-aad         random cases without AAD (diagnosis aid)\n"
        "  --max-fail-lines N  FAIL lines printed per sub-test (default 100, 0: all)\n"
        "--case I selects: diff/tamper/dup case I; tls12 case 2*alg+mode (alg 0..2 =\n"
        "AES-128/192/256, mode 0 whole-IV, 1 four-byte fixed IV); tls13 case alg;\n"
        "async: runs tasks 0..I together\n"
        "sub-tests: params negative kat diff tamper tls12 tls13 dup async async2t stats\n",
        argv0);
    cpt_opts_usage(f);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

static void *xmemdup(const void *src, size_t n)
{
    void *p = xmalloc(n);

    if (n)
        memcpy(p, src, n);
    return p;
}

/* First differing offset of a and b, or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long)i;
    return -1;
}

static int alg_index(const char *name)
{
    for (int i = 0; i < NALG; i++)
        if (strcasecmp(name, g_alg[i]) == 0)
            return i;
    return -1;
}

/* ================================================================== */
/* One AEAD operation as a list of EVP calls ("plan")                  */
/* ================================================================== */

enum step_kind {
    K_INIT_CIPHER, /* EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc) */
    K_INIT_ALL, /* EVP_CipherInit_ex(ctx, cipher, NULL, key, iv, enc) */
    K_INIT_KEYIV, /* EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc) */
    K_INIT_KEY, /* EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, enc) */
    K_INIT_IV, /* EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, enc) */
    K_IVLEN_CTRL, /* EVP_CTRL_AEAD_SET_IVLEN */
    K_IVLEN_PARAM, /* set_params "ivlen" */
    K_SETTAG_CTRL, /* EVP_CTRL_AEAD_SET_TAG */
    K_SETTAG_PARAM, /* set_params "tag" */
    K_AAD, /* EVP_CipherUpdate(ctx, NULL, &l, aad + off, len) */
    K_AAD_NULL, /* EVP_CipherUpdate(ctx, NULL, &l, NULL, 0) */
    K_DATA, /* EVP_CipherUpdate(ctx, out + off, &l, in + off, len) */
    K_FINAL, /* EVP_CipherFinal_ex(ctx, out + len, &l) */
    K_GETTAG_CTRL, /* EVP_CTRL_AEAD_GET_TAG */
    K_GETTAG_PARAM, /* get_params "tag" */
    K_NKINDS
};

static const char *const k_names[K_NKINDS] = { "init(cipher)", "init(cipher,key,iv)",
    "init(key,iv)", "init(key)", "init(iv)", "ctrl(SET_IVLEN)", "set_params(ivlen)",
    "ctrl(SET_TAG)", "set_params(tag)", "update(aad)", "update(NULL aad,0)", "update(data)",
    "final", "ctrl(GET_TAG)", "get_params(tag)" };

typedef struct {
    unsigned char kind;
    size_t off, len;
} step;

#define MAXSTEPS 128
#define MAXPIECES 48

typedef struct {
    int n;
    step s[MAXSTEPS];
} plan;

typedef struct {
    const EVP_CIPHER *cipher;
    int enc;
    const unsigned char *key;
    const unsigned char *iv;
    size_t ivlen;
    const unsigned char *aad;
    size_t aadlen;
    const unsigned char *in; /* == out for in place */
    unsigned char *out; /* len bytes, readable/writable up to out+len */
    size_t len;
    unsigned char *tag; /* enc: receives taglen bytes; dec: expected */
    size_t taglen;
} msg;

/* Where and why a plan stopped. */
typedef struct {
    int step; /* index of the failing step, -1 when all ran */
    int kind;
    int why; /* WHY_* */
    long got; /* outl (WHY_OUTL) */
} exec_res;

enum { WHY_NONE, WHY_RC, WHY_OUTL, WHY_NOCTX };

static void plan_add(plan *p, int kind, size_t off, size_t len)
{
    if (p->n < MAXSTEPS) {
        p->s[p->n].kind = (unsigned char)kind;
        p->s[p->n].off = off;
        p->s[p->n].len = len;
        p->n++;
    }
}

/* Percentiles below `below` (and not in an earlier row) map to [lo, hi]. */
typedef struct {
    unsigned below;
    uint64_t lo, hi;
} pct_range;

/* The value for percentile x from a table covering it: lo when lo == hi
 * (no random draw), else uniform in [lo, hi]. */
static uint64_t pct_pick(cpt_rng *r, unsigned x, const pct_range *t)
{
    while (x >= t->below)
        t++;
    return t->lo == t->hi ? t->lo : cpt_rng_range(r, t->lo, t->hi);
}

/* A random update piece: zero and one byte pieces, small, medium, rest. */
static size_t piece_len(cpt_rng *r, size_t rem)
{
    static const pct_range t[] = { { 8, 0, 0 }, { 16, 1, 1 }, { 40, 2, 31 }, { 62, 32, 600 },
        { 82, 601, 16384 } };
    unsigned x = (unsigned)cpt_rng_below(r, 100);
    size_t v;

    if (x < 82)
        v = pct_pick(r, x, t);
    else if (x < 92)
        v = cpt_rng_below(r, rem + 1);
    else
        v = rem;
    return v < rem ? v : rem;
}

static void add_pieces(plan *p, cpt_rng *r, int kind, size_t total)
{
    size_t off = 0;
    int n = 0;

    while (off < total) {
        size_t rem = total - off;
        size_t l = n == MAXPIECES - 1 ? rem : piece_len(r, rem);

        if (l == 0 && kind == K_AAD && cpt_rng_pct(r, 25))
            plan_add(p, K_AAD_NULL, off, 0);
        else
            plan_add(p, kind, off, l);
        off += l;
        n++;
    }
    if ((total == 0 && cpt_rng_pct(r, 50)) || cpt_rng_pct(r, 10))
        plan_add(p, kind == K_AAD && cpt_rng_pct(r, 30) ? K_AAD_NULL : kind, total, 0);
}

/*
 * Builds the call sequence for m.  seed == 0: the plain sequence (one AAD
 * update, one data update).  Otherwise random: init style (all at once /
 * cipher then key+iv / key then iv / iv then key), ivlen by ctrl or param,
 * tag set early/late, AAD and data split into random pieces.
 */
static void make_plan(plan *p, const msg *m, uint64_t seed)
{
    cpt_rng r;
    int style, setivlen, ivk, tagk, gettagk, tagpos;
    int mark;

    p->n = 0;
    if (seed == 0) {
        if (m->ivlen == 12) {
            plan_add(p, K_INIT_ALL, 0, 0);
        } else {
            plan_add(p, K_INIT_CIPHER, 0, 0);
            plan_add(p, K_IVLEN_CTRL, 0, 0);
            plan_add(p, K_INIT_KEYIV, 0, 0);
        }
        if (!m->enc)
            plan_add(p, K_SETTAG_CTRL, 0, 0);
        plan_add(p, K_AAD, 0, m->aadlen);
        plan_add(p, K_DATA, 0, m->len);
        plan_add(p, K_FINAL, 0, 0);
        if (m->enc)
            plan_add(p, K_GETTAG_CTRL, 0, 0);
        return;
    }
    cpt_rng_seed(&r, seed, 7);
    style = (int)cpt_rng_below(&r, 4);
    setivlen = m->ivlen != 12 || cpt_rng_pct(&r, 20);
    if (style == 1 && setivlen)
        style = 0;
    ivk = cpt_rng_pct(&r, 50) ? K_IVLEN_CTRL : K_IVLEN_PARAM;
    tagk = cpt_rng_pct(&r, 50) ? K_SETTAG_CTRL : K_SETTAG_PARAM;
    gettagk = cpt_rng_pct(&r, 60) ? K_GETTAG_CTRL : K_GETTAG_PARAM;
    tagpos = (int)cpt_rng_below(&r, 10); /* 0: before key, 1-3: after init,
                                          * 4-6: mid stream, 7-9: before final */
    if (style == 1 && tagpos == 0)
        tagpos = 1;

    if (style != 1) {
        plan_add(p, K_INIT_CIPHER, 0, 0);
        if (!m->enc && tagpos == 0)
            plan_add(p, tagk, 0, 0);
    }
    switch (style) {
    case 0:
        if (setivlen)
            plan_add(p, ivk, 0, 0);
        plan_add(p, K_INIT_KEYIV, 0, 0);
        break;
    case 1:
        plan_add(p, K_INIT_ALL, 0, 0);
        break;
    case 2:
        plan_add(p, K_INIT_KEY, 0, 0);
        if (setivlen)
            plan_add(p, ivk, 0, 0);
        plan_add(p, K_INIT_IV, 0, 0);
        break;
    default:
        if (setivlen)
            plan_add(p, ivk, 0, 0);
        plan_add(p, K_INIT_IV, 0, 0);
        plan_add(p, K_INIT_KEY, 0, 0);
        break;
    }
    if (!m->enc && tagpos >= 1 && tagpos <= 3)
        plan_add(p, tagk, 0, 0);
    mark = p->n;
    add_pieces(p, &r, K_AAD, m->aadlen);
    add_pieces(p, &r, K_DATA, m->len);
    if (!m->enc && tagpos >= 4 && tagpos <= 6 && p->n < MAXSTEPS) {
        /* insert the tag step at a random position among the updates */
        int at = mark + (int)cpt_rng_below(&r, (uint64_t)(p->n - mark) + 1);

        memmove(&p->s[at + 1], &p->s[at], (size_t)(p->n - at) * sizeof(step));
        p->s[at].kind = (unsigned char)tagk;
        p->s[at].off = p->s[at].len = 0;
        p->n++;
    }
    if (!m->enc && tagpos >= 7)
        plan_add(p, tagk, 0, 0);
    plan_add(p, K_FINAL, 0, 0);
    if (m->enc)
        plan_add(p, gettagk, 0, 0);
}

/* Runs steps [from, to) of p on ctx.  Returns 1 when all succeeded. */
static int exec_plan(EVP_CIPHER_CTX *ctx, const plan *p, int from, int to, const msg *m,
    exec_res *res)
{
    res->step = -1;
    res->kind = -1;
    res->why = WHY_NONE;
    res->got = 0;
    for (int i = from; i < to && i < p->n; i++) {
        const step *s = &p->s[i];
        int ok = 0, outl = -12345;
        size_t sz;
        OSSL_PARAM prm[2];

        switch (s->kind) {
        case K_INIT_CIPHER:
            ok = EVP_CipherInit_ex(ctx, m->cipher, NULL, NULL, NULL, m->enc) > 0;
            break;
        case K_INIT_ALL:
            ok = EVP_CipherInit_ex(ctx, m->cipher, NULL, m->key, m->iv, m->enc) > 0;
            break;
        case K_INIT_KEYIV:
            ok = EVP_CipherInit_ex(ctx, NULL, NULL, m->key, m->iv, m->enc) > 0;
            break;
        case K_INIT_KEY:
            ok = EVP_CipherInit_ex(ctx, NULL, NULL, m->key, NULL, m->enc) > 0;
            break;
        case K_INIT_IV:
            ok = EVP_CipherInit_ex(ctx, NULL, NULL, NULL, m->iv, m->enc) > 0;
            break;
        case K_IVLEN_CTRL:
            ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)m->ivlen, NULL) > 0;
            break;
        case K_IVLEN_PARAM:
            sz = m->ivlen;
            prm[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &sz);
            prm[1] = OSSL_PARAM_construct_end();
            ok = EVP_CIPHER_CTX_set_params(ctx, prm) > 0;
            break;
        case K_SETTAG_CTRL:
        case K_GETTAG_CTRL:
            ok = EVP_CIPHER_CTX_ctrl(ctx,
                     s->kind == K_SETTAG_CTRL ? EVP_CTRL_AEAD_SET_TAG : EVP_CTRL_AEAD_GET_TAG,
                     (int)m->taglen, m->tag)
                > 0;
            break;
        case K_SETTAG_PARAM:
        case K_GETTAG_PARAM:
            prm[0] =
                OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, m->tag, m->taglen);
            prm[1] = OSSL_PARAM_construct_end();
            ok = (s->kind == K_SETTAG_PARAM ? EVP_CIPHER_CTX_set_params(ctx, prm)
                                            : EVP_CIPHER_CTX_get_params(ctx, prm))
                > 0;
            break;
        case K_AAD:
            ok = EVP_CipherUpdate(ctx, NULL, &outl, m->aad + s->off, (int)s->len) > 0;
            /* default reports the AAD length; not required */
            outl = (int)s->len;
            break;
        case K_AAD_NULL:
            ok = EVP_CipherUpdate(ctx, NULL, &outl, NULL, 0) > 0;
            outl = 0;
            break;
        case K_DATA:
            ok = EVP_CipherUpdate(ctx, m->out + s->off, &outl, m->in + s->off, (int)s->len) > 0;
            break;
        case K_FINAL:
            ok = EVP_CipherFinal_ex(ctx, m->out + m->len, &outl) > 0;
            break;
        default:
            ok = 0;
            break;
        }
        if (!ok) {
            res->step = i;
            res->kind = s->kind;
            res->why = WHY_RC;
            return 0;
        }
        if ((s->kind == K_DATA && outl != (int)s->len) || (s->kind == K_FINAL && outl != 0)) {
            res->step = i;
            res->kind = s->kind;
            res->why = WHY_OUTL;
            res->got = outl;
            return 0;
        }
    }
    return 1;
}

static void describe_res(const plan *p, const exec_res *r, char *buf, size_t n)
{
    if (r->why == WHY_NONE) {
        snprintf(buf, n, "ok");
    } else if (r->why == WHY_NOCTX) {
        snprintf(buf, n, "EVP_CIPHER_CTX_new failed");
    } else {
        const step *s = &p->s[r->step];

        if (r->why == WHY_OUTL)
            snprintf(buf, n, "step %d/%d %s off=%zu len=%zu returned outl=%ld", r->step, p->n,
                k_names[s->kind], s->off, s->len, r->got);
        else
            snprintf(buf, n, "step %d/%d %s off=%zu len=%zu failed", r->step, p->n,
                k_names[s->kind], s->off, s->len);
    }
}

/* Runs a whole message on a fresh context; the plan is kept in *pl. */
static int run_msg(const msg *m, uint64_t planseed, plan *pl, exec_res *res)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok;

    make_plan(pl, m, planseed);
    if (ctx == NULL) {
        res->step = -1;
        res->why = WHY_NOCTX;
        return 0;
    }
    ok = exec_plan(ctx, pl, 0, pl->n, m, res);
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* Output buffer at a chosen misalignment with a canary after len bytes. */
#define CANARY 32
typedef struct {
    unsigned char *base, *p;
    size_t len;
} obuf;

static void obuf_new(obuf *b, size_t len, unsigned off)
{
    b->base = xmalloc(len + off + CANARY);
    b->p = b->base + off;
    b->len = len;
    memset(b->p + len, 0xA5, CANARY);
}

static int obuf_canary_ok(const obuf *b)
{
    for (size_t i = 0; i < CANARY; i++)
        if (b->p[b->len + i] != 0xA5)
            return 0;
    return 1;
}

static void obuf_free(obuf *b)
{
    free(b->base);
    b->base = b->p = NULL;
}

/* ================================================================== */
/* Random cases                                                        */
/* ================================================================== */

typedef struct {
    int st;
    uint64_t idx;
    int ai;
    unsigned char key[32];
    unsigned char *iv;
    size_t ivlen;
    unsigned char *aad;
    size_t aadlen;
    unsigned char *pt;
    size_t len;
    size_t etaglen, dtaglen; /* tag bytes taken on encrypt / given on decrypt */
    int inplace_e, inplace_d;
    unsigned off_a, off_b; /* buffer misalignment */
    uint64_t plan_e, plan_d; /* 0: plain call sequence */
} gcase;

static const char *sub_name(int st)
{
    switch (st) {
    case ST_DIFF:
        return "diff";
    case ST_TAMPER:
        return "tamper";
    case ST_DUP:
        return "dup";
    case ST_ASYNC:
        return "async";
    case ST_ASYNC2T:
        return "async2t";
    case ST_TLS12:
        return "tls12";
    case ST_TLS13:
        return "tls13";
    default:
        return "?";
    }
}

/* Message length: mostly small, some large, a few boundary sizes. */
static size_t pick_len(cpt_rng *r, size_t maxlen)
{
    static const size_t special[] = { 0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 4095,
        4096, 4097, 16383, 16384, 16385, 65536, 262144, 1048575, 1048576 };
    static const pct_range t[] = { { 45, 0, 64 }, { 70, 65, 1024 }, { 88, 1025, 16384 },
        { 96, 16385, 131072 }, { 100, 131073, 1 << 20 } };
    unsigned x = (unsigned)cpt_rng_below(r, 100);
    size_t v;

    if (x < 10)
        v = special[cpt_rng_below(r, sizeof(special) / sizeof(special[0]))];
    else
        v = pct_pick(r, x, t);
    return v <= maxlen ? v : cpt_rng_below(r, maxlen + 1);
}

static size_t pick_ivlen(cpt_rng *r)
{
    static const pct_range t[] = { { 70, 12, 12 }, { 80, 1, 16 }, { 92, 17, 64 },
        { 100, 65, 128 } };

    return pct_pick(r, (unsigned)cpt_rng_below(r, 100), t);
}

static size_t pick_aadlen(cpt_rng *r)
{
    static const pct_range t[] = { { 25, 0, 0 }, { 30, 13, 13 }, { 60, 1, 32 }, { 85, 33, 256 },
        { 100, 257, 600 } };
    unsigned x = (unsigned)cpt_rng_below(r, 100);

    return g_no_aad ? 0 : pct_pick(r, x, t);
}

static size_t pick_taglen(cpt_rng *r)
{
    return cpt_rng_pct(r, 65) ? 16 : cpt_rng_range(r, 4, 16);
}

static void gen_case(gcase *c, int st, uint64_t idx, size_t maxlen)
{
    cpt_rng r;

    memset(c, 0, sizeof(*c));
    c->st = st;
    c->idx = idx;
    cpt_rng_seed(&r, case_seed(st, idx), 1);
    c->ai = (int)cpt_rng_below(&r, NALG);
    cpt_rng_fill(&r, c->key, sizeof(c->key));
    c->ivlen = pick_ivlen(&r);
    c->iv = xmalloc(c->ivlen);
    cpt_rng_fill(&r, c->iv, c->ivlen);
    c->aadlen = pick_aadlen(&r);
    c->aad = xmalloc(c->aadlen);
    cpt_rng_fill(&r, c->aad, c->aadlen);
    c->len = pick_len(&r, maxlen);
    c->pt = xmalloc(c->len);
    cpt_rng_fill(&r, c->pt, c->len);
    c->etaglen = pick_taglen(&r);
    c->dtaglen = pick_taglen(&r);
    c->inplace_e = cpt_rng_pct(&r, 30);
    c->inplace_d = cpt_rng_pct(&r, 30);
    c->off_a = cpt_rng_pct(&r, 50) ? 0 : (unsigned)cpt_rng_range(&r, 1, 15);
    c->off_b = cpt_rng_pct(&r, 50) ? 0 : (unsigned)cpt_rng_range(&r, 1, 15);
    c->plan_e = cpt_rng_pct(&r, 10) ? 0 : cpt_rng_u64(&r) | 1;
    c->plan_d = cpt_rng_pct(&r, 10) ? 0 : cpt_rng_u64(&r) | 1;
}

static void free_case(gcase *c)
{
    free(c->iv);
    free(c->aad);
    free(c->pt);
    c->iv = c->aad = c->pt = NULL;
}

/* Runs fn on the selected ones of cases 0..n-1 of sub-test st (messages up
 * to min(--max-len, cap) bytes). */
static void run_cases(int st, uint64_t n, size_t cap, void (*fn)(const gcase *c, void *arg),
    void *arg)
{
    for (uint64_t i = 0; i < n; i++) {
        gcase c;

        if (!case_selected(i))
            continue;
        gen_case(&c, st, i, g_maxlen < cap ? g_maxlen : cap);
        fn(&c, arg);
        free_case(&c);
    }
}

static const char *case_repro(const gcase *c)
{
    static char buf[400];

    snprintf(buf, sizeof(buf),
        "[%s ivlen=%zu aad=%zu len=%zu etag=%zu dtag=%zu inplace=%d/%d "
        "misalign=%u/%u] repro: --seed %" PRIu64 " --only %s --case %" PRIu64,
        g_alg[c->ai], c->ivlen, c->aadlen, c->len, c->etaglen, c->dtaglen, c->inplace_e,
        c->inplace_d, c->off_a, c->off_b, g_o.seed, sub_name(c->st), c->idx);
    return buf;
}

static void msg_from_case(msg *m, const gcase *c, const EVP_CIPHER *cipher, int enc)
{
    memset(m, 0, sizeof(*m));
    m->cipher = cipher;
    m->enc = enc;
    m->key = c->key;
    m->iv = c->iv;
    m->ivlen = c->ivlen;
    m->aad = c->aad;
    m->aadlen = c->aadlen;
}

/* Input, output and tag of m; in place: in is first copied to out. */
static void msg_io(msg *m, const unsigned char *in, unsigned char *out, size_t len, int inplace,
    unsigned char *tag, size_t taglen)
{
    if (inplace) {
        if (len)
            memcpy(out, in, len);
        m->in = out;
    } else {
        m->in = in;
    }
    m->out = out;
    m->len = len;
    m->tag = tag;
    m->taglen = taglen;
}

/* Reference encryption of a case (default provider, plain calls). */
static int ref_encrypt(const gcase *c, unsigned char *ct, unsigned char tag[16])
{
    msg m;
    plan *pl = xmalloc(sizeof(*pl));
    exec_res res;
    int ok;

    msg_from_case(&m, c, g_rc[c->ai], 1);
    msg_io(&m, c->pt, ct, c->len, 0, tag, 16);
    ok = run_msg(&m, 0, pl, &res);
    if (!ok) {
        char d[200];

        describe_res(pl, &res, d, sizeof(d));
        chk(0, "reference encryption failed (%s) %s", d, case_repro(c));
        cpt_drain_errors(1);
    }
    free(pl);
    return ok;
}

/* The provider encrypts a case (its plan, in place or not) into out and tag. */
static int prov_encrypt(const gcase *c, obuf *out, unsigned char *tag, plan *pl, exec_res *res)
{
    msg m;

    msg_from_case(&m, c, g_tc[c->ai], 1);
    msg_io(&m, c->pt, out->p, c->len, c->inplace_e, tag, c->etaglen);
    return run_msg(&m, c->plan_e, pl, res);
}

/* The provider decrypts ct with tag (c->dtaglen bytes, the case's plan). */
static int prov_decrypt(const gcase *c, const unsigned char *ct, unsigned char *tag, int inplace,
    obuf *out, plan *pl, exec_res *res)
{
    msg m;

    msg_from_case(&m, c, g_tc[c->ai], 0);
    msg_io(&m, ct, out->p, c->len, inplace, tag, c->dtaglen);
    return run_msg(&m, c->plan_d, pl, res);
}

/* ================================================================== */
/* diff: random differential tests                                     */
/* ================================================================== */

/*
 * One differential case: provider encrypts (random plan) == reference;
 * reference decrypts the provider's output; provider decrypts (random plan,
 * truncated tag) the reference's output.
 */
static void diff_case(const gcase *c)
{
    const char *rp = case_repro(c);
    unsigned char rtag[16], ptag[16];
    unsigned char *rct = xmalloc(c->len + CANARY);
    obuf pct, pdec, rdec;
    plan *pl = xmalloc(sizeof(*pl));
    exec_res res;
    char d[256];
    int ok;

    if (!ref_encrypt(c, rct, rtag)) {
        free(rct);
        free(pl);
        return;
    }

    /* 1. provider encrypts */
    obuf_new(&pct, c->len, c->off_a);
    memset(ptag, 0xEE, sizeof(ptag));
    ERR_clear_error();
    ok = prov_encrypt(c, &pct, ptag, pl, &res);
    describe_res(pl, &res, d, sizeof(d));
    if (!ok) {
        chk(0, "provider encrypt: %s %s", d, rp);
        take_errors();
    } else {
        long at = first_diff(pct.p, rct, c->len);
        long tat = first_diff(ptag, rtag, c->etaglen);

        if (chk(at < 0 && tat < 0 && obuf_canary_ok(&pct) && ERR_peek_error() == 0,
                "provider encrypt differs from default: ciphertext byte %ld, tag "
                "byte %ld, canary %s, error queue %s (%d steps) %s",
                at, tat, obuf_canary_ok(&pct) ? "ok" : "OVERWRITTEN",
                ERR_peek_error() ? "NOT EMPTY after success" : "empty", pl->n, rp)) {
            /* 2. the reference decrypts the provider's output */
            msg r;

            obuf_new(&rdec, c->len, 0);
            msg_from_case(&r, c, g_rc[c->ai], 0);
            msg_io(&r, pct.p, rdec.p, c->len, 0, ptag, c->etaglen);
            ok = run_msg(&r, 0, pl, &res);
            chk(ok && first_diff(rdec.p, c->pt, c->len) < 0,
                "default cannot decrypt the provider's output (tag %zu bytes) %s", c->etaglen, rp);
            obuf_free(&rdec);
        }
        take_errors();
    }
    obuf_free(&pct);

    /* 3. provider decrypts the reference's output */
    obuf_new(&pdec, c->len, c->off_b);
    ERR_clear_error();
    ok = prov_decrypt(c, rct, rtag, c->inplace_d, &pdec, pl, &res);
    describe_res(pl, &res, d, sizeof(d));
    if (!ok) {
        chk(0, "provider decrypt of default's ciphertext: %s %s", d, rp);
    } else {
        long at = first_diff(pdec.p, c->pt, c->len);

        chk(at < 0 && obuf_canary_ok(&pdec) && ERR_peek_error() == 0,
            "provider decrypt: plaintext byte %ld differs, canary %s, error queue "
            "%s (%d steps) %s",
            at, obuf_canary_ok(&pdec) ? "ok" : "OVERWRITTEN",
            ERR_peek_error() ? "NOT EMPTY after success" : "empty", pl->n, rp);
    }
    take_errors();
    obuf_free(&pdec);
    free(rct);
    free(pl);
}

/* sums: plaintext bytes, cases > 128 KiB */
static void diff_one(const gcase *c, void *sums)
{
    size_t *n = sums;

    cpt_info("case %" PRIu64 " %s", c->idx, case_repro(c));
    n[0] += c->len;
    if (c->len > 131072)
        n[1]++;
    diff_case(c);
}

static void test_diff(void)
{
    size_t sums[2] = { 0, 0 };

    run_cases(ST_DIFF, g_iters, SIZE_MAX, diff_one, sums);
    cpt_info("%" PRIu64 " cases, %zu plaintext bytes, %zu cases > 128 KiB", g_iters, sums[0],
        sums[1]);
}

/* ================================================================== */
/* tamper: modified tag / ciphertext / AAD / IV / key must fail        */
/* ================================================================== */

enum { TM_TAG, TM_CT, TM_AAD, TM_IV, TM_KEY, TM_TAGLEN, TM_N };
static const char *const tm_names[TM_N] = { "tag", "ciphertext", "aad", "iv", "key", "tag-length" };

/* Decrypts with a tampered input on cipher; returns exec result. */
static int tamper_decrypt(const gcase *c, const EVP_CIPHER *cipher, int what,
    const unsigned char *ct, const unsigned char *tag, uint64_t planseed, cpt_rng *r, plan *pl,
    exec_res *res, int *had_err)
{
    unsigned char t[16], key[32];
    unsigned char *iv = xmemdup(c->iv, c->ivlen);
    unsigned char *aad = xmemdup(c->aad, c->aadlen);
    unsigned char *in = xmemdup(ct, c->len);
    obuf out;
    msg m;
    size_t taglen = c->dtaglen;
    int ok;

    memcpy(t, tag, 16);
    memcpy(key, c->key, sizeof(key));
    switch (what) {
    case TM_TAG:
        t[cpt_rng_below(r, taglen)] ^= (unsigned char)(1u << cpt_rng_below(r, 8));
        break;
    case TM_CT:
        in[cpt_rng_below(r, c->len)] ^= (unsigned char)(1u << cpt_rng_below(r, 8));
        break;
    case TM_AAD:
        aad[cpt_rng_below(r, c->aadlen)] ^= (unsigned char)(1u << cpt_rng_below(r, 8));
        break;
    case TM_IV:
        iv[cpt_rng_below(r, c->ivlen)] ^= (unsigned char)(1u << cpt_rng_below(r, 8));
        break;
    case TM_KEY:
        key[cpt_rng_below(r, g_klen[c->ai])] ^= (unsigned char)(1u << cpt_rng_below(r, 8));
        break;
    default: /* TM_TAGLEN: a longer tag whose extra bytes are wrong */
        taglen = c->dtaglen + 1;
        t[c->dtaglen] ^= 0x5a;
        break;
    }
    obuf_new(&out, c->len, 0);
    msg_from_case(&m, c, cipher, 0);
    m.key = key;
    m.iv = iv;
    m.aad = aad;
    msg_io(&m, in, out.p, c->len, 0, t, taglen);
    ERR_clear_error();
    ok = run_msg(&m, planseed, pl, res);
    *had_err = take_errors();
    obuf_free(&out);
    free(iv);
    free(aad);
    free(in);
    return ok;
}

static void tamper_case(const gcase *c, void *unused)
{
    const char *rp = case_repro(c);
    unsigned char rtag[16];
    unsigned char *rct = xmalloc(c->len + CANARY);
    plan *pl = xmalloc(sizeof(*pl)), *rpl = xmalloc(sizeof(*rpl));
    cpt_rng r;

    (void)unused;
    if (!ref_encrypt(c, rct, rtag))
        goto out;
    cpt_rng_seed(&r, case_seed(ST_TAMPER, c->idx), 99);
    for (int what = 0; what < TM_N; what++) {
        exec_res pres, rres;
        int perr, rerr, pok, rok;
        cpt_rng r1, r2;
        char d[256], what_s[128];

        if ((what == TM_CT && c->len == 0) || (what == TM_AAD && c->aadlen == 0)
            || (what == TM_TAGLEN && c->dtaglen >= 16))
            continue;
        /* same modification on both providers */
        r1 = r;
        r2 = r;
        pok = tamper_decrypt(c, g_tc[c->ai], what, rct, rtag, c->plan_d, &r1, pl, &pres, &perr);
        rok = tamper_decrypt(c, g_rc[c->ai], what, rct, rtag, 0, &r2, rpl, &rres, &rerr);
        r = r1;
        describe_res(pl, &pres, d, sizeof(d));
        snprintf(what_s, sizeof(what_s), "tampered %s: provider decrypt", tm_names[what]);
        if (rok) {
            chk(0, "tampered %s: the DEFAULT provider accepted it (harness bug?) %s",
                tm_names[what], rp);
            continue;
        }
        if (!chk(!pok && pres.why == WHY_RC && pres.kind == K_FINAL,
                "%s: expected final to fail, got %s %s", what_s, pok ? "success" : d, rp))
            continue;
        need_error(perr, rerr, what_s, rp);
    }
out:
    free(rct);
    free(pl);
    free(rpl);
}

static void test_tamper(void)
{
    run_cases(ST_TAMPER, g_iters / 2 + 1, 4096, tamper_case, NULL);
}

/* ================================================================== */
/* kat: known answers                                                   */
/* ================================================================== */

static const char *g_argv0;

/* Runs one KAT direction; returns 1 on the expected outcome. */
static int kat_run(const EVP_CIPHER *cipher, int enc, const unsigned char *key,
    const unsigned char *iv, size_t ivlen, const unsigned char *aad, size_t aadlen,
    const unsigned char *in, size_t len, const unsigned char *expect, const unsigned char *tag,
    size_t taglen, int expect_fail, uint64_t planseed, int inplace, char *why, size_t whylen,
    int *had_err)
{
    obuf out;
    unsigned char t[16];
    plan *pl = xmalloc(sizeof(*pl));
    exec_res res;
    msg m;
    int ok, good;

    obuf_new(&out, len, 0);
    memset(&m, 0, sizeof(m));
    m.cipher = cipher;
    m.enc = enc;
    m.key = key;
    m.iv = iv;
    m.ivlen = ivlen;
    m.aad = aad;
    m.aadlen = aadlen;
    if (enc)
        memset(t, 0xEE, sizeof(t)); /* GET_TAG must write it */
    else
        memcpy(t, tag, taglen);
    msg_io(&m, in, out.p, len, inplace, t, taglen);
    ERR_clear_error();
    ok = run_msg(&m, planseed, pl, &res);
    *had_err = take_errors();
    describe_res(pl, &res, why, whylen);
    if (expect_fail) {
        good = !ok && res.why == WHY_RC && res.kind == K_FINAL;
        if (!good && ok)
            snprintf(why, whylen, "succeeded, expected final to fail");
    } else if (!ok) {
        good = 0;
    } else if (first_diff(out.p, expect, len) >= 0) {
        good = 0;
        snprintf(why, whylen, "%s differs at byte %ld", enc ? "ciphertext" : "plaintext",
            first_diff(out.p, expect, len));
    } else if (enc && first_diff(t, tag, taglen) >= 0) {
        char h1[40], h2[40];

        good = 0;
        snprintf(why, whylen, "tag %s, expected %s", cpt_hex_encode(t, taglen, h1),
            cpt_hex_encode(tag, taglen, h2));
    } else {
        good = obuf_canary_ok(&out);
        if (!good)
            snprintf(why, whylen, "wrote past the end of the output");
    }
    obuf_free(&out);
    free(pl);
    return good;
}

static void test_kat(void)
{
    char path[4200];
    cpt_recfile rf;
    size_t nrun = 0;

    if (!cpt_find_file(g_argv0, "tests/vectors/gcm_kat.txt", path, sizeof(path))) {
        chk(0, "cannot find tests/vectors/gcm_kat.txt (run from the repository root)");
        return;
    }
    if (!cpt_recfile_load(path, &rf)) {
        chk(0, "cannot parse %s", path);
        return;
    }
    for (size_t i = 0; i < rf.n; i++) {
        const cpt_record *rec = &rf.recs[i];
        const char *cn = cpt_record_get(rec, "Cipher");
        const char *op = cpt_record_get(rec, "Operation");
        const char *result = cpt_record_get(rec, "Result");
        const char *line = cpt_record_get(rec, "Line");
        unsigned char *key, *iv, *aad, *tag, *pt, *ct;
        size_t keyl, ivl, aadl, tagl, ptl, ctl;
        int ai, dec_only, expect_fail, bad = 0, ref_err = 0;

        if (cn == NULL)
            continue;
        ai = alg_index(cn);
        bad |= cpt_record_get_hex(rec, "Key", &key, &keyl) != 1;
        bad |= cpt_record_get_hex(rec, "IV", &iv, &ivl) != 1;
        bad |= cpt_record_get_hex(rec, "AAD", &aad, &aadl) < 0;
        bad |= cpt_record_get_hex(rec, "Tag", &tag, &tagl) != 1;
        bad |= cpt_record_get_hex(rec, "Plaintext", &pt, &ptl) < 0;
        bad |= cpt_record_get_hex(rec, "Ciphertext", &ct, &ctl) < 0;
        dec_only = op != NULL && strcasecmp(op, "DECRYPT") == 0;
        expect_fail = result != NULL && strcasecmp(result, "CIPHERFINAL_ERROR") == 0;
        if (ai < 0 || bad || ptl != ctl || tagl < 1 || tagl > 16 || keyl != g_klen[ai]) {
            chk(0, "gcm_kat.txt record at line %d (OpenSSL line %s) is malformed", rec->line,
                line ? line : "?");
        } else {
            /* (cipher, enc, planseed, inplace) variants; variant 0 on the
             * reference validates the vector itself */
            for (int v = 0; v < 4; v++) {
                for (int enc = 1; enc >= 0; enc--) {
                    const EVP_CIPHER *cipher = v == 0 ? g_rc[ai] : g_tc[ai];
                    uint64_t ps = v <= 1 ? 0 : case_seed(ST_KAT, i * 8 + v * 2 + enc) | 1;
                    char why[300];
                    int herr;

                    if (enc && (dec_only || expect_fail))
                        continue;
                    if (!kat_run(cipher, enc, key, iv, ivl, aad, aadl, enc ? pt : ct, ptl,
                            enc ? ct : pt, tag, tagl, !enc && expect_fail, ps, v == 3, why,
                            sizeof(why), &herr)) {
                        chk(0,
                            "KAT line %d (OpenSSL evpciph_aes_common.txt:%s) %s "
                            "%s%s%s ivlen=%zu aad=%zu len=%zu tag=%zu: %s",
                            rec->line, line ? line : "?", g_alg[ai], enc ? "encrypt" : "decrypt",
                            v == 0 ? " by the DEFAULT provider (vector bad?)"
                                   : (v == 1 ? " (plain calls)" : " (split updates)"),
                            v == 3 ? " in place" : "", ivl, aadl, ptl, tagl, why);
                        continue;
                    }
                    cpt_count(1);
                    nrun++;
                    if (!enc && expect_fail && v == 0)
                        ref_err = herr;
                    if (!enc && expect_fail && v == 1) {
                        char rp[80];

                        snprintf(rp, sizeof(rp), "KAT line %d", rec->line);
                        need_error(herr, ref_err, "KAT negative decrypt", rp);
                    }
                }
            }
        }
        free(key);
        free(iv);
        free(aad);
        free(tag);
        free(pt);
        free(ct);
    }
    cpt_info("%zu records, %zu runs", rf.n, nrun);
    cpt_recfile_free(&rf);
}

/* ================================================================== */
/* params: parameters and parameter lists vs default                   */
/* ================================================================== */

typedef struct {
    int rc, modified;
    uint64_t u;
    int64_t i;
    unsigned char b[160];
    size_t rsz;
} pval;

/* Gets one parameter of a cipher (ctx == NULL) or a context. */
static void pget(EVP_CIPHER *cipher, EVP_CIPHER_CTX *ctx, const char *key, unsigned type,
    size_t osz, pval *v)
{
    OSSL_PARAM p[2];

    memset(v, 0, sizeof(*v));
    memset(v->b, 0xCC, sizeof(v->b));
    if (osz > sizeof(v->b))
        osz = sizeof(v->b);
    switch (type) {
    case OSSL_PARAM_INTEGER:
        p[0] = OSSL_PARAM_construct_int64(key, &v->i);
        break;
    case OSSL_PARAM_UNSIGNED_INTEGER:
        p[0] = OSSL_PARAM_construct_uint64(key, &v->u);
        break;
    case OSSL_PARAM_UTF8_STRING:
        p[0] = OSSL_PARAM_construct_utf8_string(key, (char *)v->b, sizeof(v->b));
        break;
    default:
        p[0] = OSSL_PARAM_construct_octet_string(key, v->b, osz);
        break;
    }
    p[1] = OSSL_PARAM_construct_end();
    v->rc =
        (ctx != NULL ? EVP_CIPHER_CTX_get_params(ctx, p) : EVP_CIPHER_get_params(cipher, p)) > 0;
    v->modified = OSSL_PARAM_modified(&p[0]);
    v->rsz = p[0].return_size;
    ERR_clear_error();
}

/*
 * Parameters whose answers must equal default's.  Differences in the other
 * listed parameters (tlsaadpad before any TLS AAD, updated-iv, tlsivgen, ...)
 * are reported once per key as a NOTE: no caller reads them in those states.
 */
static int strict_param(const char *key)
{
    static const char *const strict[] = { OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN,
        OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_AEAD_TAG,
        OSSL_CIPHER_PARAM_MODE, OSSL_CIPHER_PARAM_BLOCK_SIZE, OSSL_CIPHER_PARAM_AEAD,
        OSSL_CIPHER_PARAM_CUSTOM_IV, OSSL_CIPHER_PARAM_CTS, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK,
        OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL };

    for (int i = 0; strict[i] != NULL; i++)
        if (strcmp(strict[i], key) == 0)
            return 1;
    return 0;
}

/* Fails for strict keys; notes other keys once per key. */
static int pdiff(const char *key, const char *fmt, ...) CPT_PRINTF(2, 3);
static int pdiff(const char *key, const char *fmt, ...)
{
    static char noted[16][32];
    static int nnoted;
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (strict_param(key))
        return chk(0, "%s", buf);
    for (int i = 0; i < nnoted; i++)
        if (strcmp(noted[i], key) == 0)
            return 0;
    if (nnoted < 16)
        snprintf(noted[nnoted++], sizeof(noted[0]), "%s", key);
    cpt_note("%s (non-essential parameter; further differences of \"%s\" not shown)", buf, key);
    return 0;
}

/* Compares one parameter on both sides; returns 1 when equal. */
static int pcmp(const char *where, const char *key, unsigned type, size_t osz, EVP_CIPHER *tc,
    EVP_CIPHER_CTX *tctx, EVP_CIPHER *rc, EVP_CIPHER_CTX *rctx)
{
    pval a, b;
    char ha[330], hb[330];

    pget(tc, tctx, key, type, osz, &a);
    pget(rc, rctx, key, type, osz, &b);
    if (a.rc != b.rc)
        return pdiff(key, "%s: get \"%s\" returns %d on the provider, %d on default", where, key,
            a.rc, b.rc);
    if (!a.rc)
        return cpt_count(1);
    switch (type) {
    case OSSL_PARAM_INTEGER:
        if (a.i != b.i)
            return pdiff(key, "%s: \"%s\" = %" PRId64 ", default %" PRId64, where, key, a.i, b.i);
        return cpt_count(1);
    case OSSL_PARAM_UNSIGNED_INTEGER:
        if (a.u != b.u)
            return pdiff(key, "%s: \"%s\" = %" PRIu64 ", default %" PRIu64, where, key, a.u, b.u);
        return cpt_count(1);
    default:
        if (a.rsz != b.rsz || a.rsz > sizeof(a.b) || memcmp(a.b, b.b, a.rsz) != 0) {
            size_t la = a.rsz < sizeof(a.b) ? a.rsz : sizeof(a.b);
            size_t lb = b.rsz < sizeof(b.b) ? b.rsz : sizeof(b.b);

            return pdiff(key, "%s: \"%s\" = %s (%zu bytes), default %s (%zu bytes)", where, key,
                cpt_hex_encode(a.b, la, ha), a.rsz, cpt_hex_encode(b.b, lb, hb), b.rsz);
        }
        return cpt_count(1);
    }
}

/* The keys of two parameter lists must be the same. */
static void cmp_lists(const char *what, const OSSL_PARAM *t, const OSSL_PARAM *r)
{
    char missing[512] = "", extra[512] = "";

    for (const OSSL_PARAM *p = r; p != NULL && p->key != NULL; p++) {
        const OSSL_PARAM *q = OSSL_PARAM_locate_const(t, p->key);

        if (q == NULL) {
            strncat(missing, " ", sizeof(missing) - strlen(missing) - 1);
            strncat(missing, p->key, sizeof(missing) - strlen(missing) - 1);
        } else if (q->data_type != p->data_type) {
            cpt_note("%s: \"%s\" has data type %u, default %u", what, p->key, q->data_type,
                p->data_type);
        }
    }
    for (const OSSL_PARAM *p = t; p != NULL && p->key != NULL; p++)
        if (OSSL_PARAM_locate_const(r, p->key) == NULL) {
            strncat(extra, " ", sizeof(extra) - strlen(extra) - 1);
            strncat(extra, p->key, sizeof(extra) - strlen(extra) - 1);
        }
    chk(t != NULL && missing[0] == '\0' && extra[0] == '\0',
        "%s: list %s; missing vs default:%s; extra:%s", what, t == NULL ? "is NULL" : "differs",
        missing[0] ? missing : " none", extra[0] ? extra : " none");
}

/* Compares every gettable ctx parameter of default's list. */
static void pcmp_all_ctx(const char *where, int ai, EVP_CIPHER_CTX *tctx, EVP_CIPHER_CTX *rctx)
{
    const OSSL_PARAM *list = EVP_CIPHER_gettable_ctx_params(g_rc[ai]);

    for (const OSSL_PARAM *p = list; p != NULL && p->key != NULL; p++) {
        size_t osz = strcmp(p->key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0 ? 16 : 128;

        pcmp(where, p->key, p->data_type, osz, NULL, tctx, NULL, rctx);
    }
    chk(EVP_CIPHER_CTX_get_iv_length(tctx) == EVP_CIPHER_CTX_get_iv_length(rctx),
        "%s: EVP_CIPHER_CTX_get_iv_length %d, default %d", where,
        EVP_CIPHER_CTX_get_iv_length(tctx), EVP_CIPHER_CTX_get_iv_length(rctx));
    chk(EVP_CIPHER_CTX_get_key_length(tctx) == EVP_CIPHER_CTX_get_key_length(rctx),
        "%s: EVP_CIPHER_CTX_get_key_length %d, default %d", where,
        EVP_CIPHER_CTX_get_key_length(tctx), EVP_CIPHER_CTX_get_key_length(rctx));
    chk(EVP_CIPHER_CTX_get_tag_length(tctx) == EVP_CIPHER_CTX_get_tag_length(rctx),
        "%s: EVP_CIPHER_CTX_get_tag_length %d, default %d", where,
        EVP_CIPHER_CTX_get_tag_length(tctx), EVP_CIPHER_CTX_get_tag_length(rctx));
    chk(EVP_CIPHER_CTX_get_block_size(tctx) == 1
            && EVP_CIPHER_CTX_get_mode(tctx) == EVP_CIPH_GCM_MODE,
        "%s: EVP_CIPHER_CTX_get_block_size %d / get_mode %d", where,
        EVP_CIPHER_CTX_get_block_size(tctx), EVP_CIPHER_CTX_get_mode(tctx));
    ERR_clear_error();
}

/*
 * Drives a context to a state: 0 cipher only, 1 key+iv, 2 ivlen 16 then
 * key+iv, 3 mid stream (data, no AAD), 4 after final (dec: 8-byte tag set).
 */
static int drive_state(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c, int enc, int state,
    const unsigned char *key, const unsigned char *iv, const unsigned char *tag)
{
    unsigned char buf[64], data[40];
    int l;

    memset(data, 0x42, sizeof(data));
    if (EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) <= 0)
        return 0;
    if (state == 0)
        return 1;
    if (state == 2 && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 16, NULL) <= 0)
        return 0;
    if (EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc) <= 0)
        return 0;
    if (state <= 2)
        return 1;
    if (EVP_CipherUpdate(ctx, buf, &l, data, 20) <= 0)
        return 0;
    if (state == 3)
        return 1;
    if (!enc && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 8, (void *)tag) <= 0)
        return 0;
    if (EVP_CipherUpdate(ctx, buf, &l, data + 20, 20) <= 0)
        return 0;
    return EVP_CipherFinal_ex(ctx, buf, &l) > 0;
}

/* "iv-generated" of a context (-1: not answered). */
static long iv_generated(EVP_CIPHER_CTX *ctx)
{
    unsigned int v = 7;
    OSSL_PARAM p[2] = { OSSL_PARAM_uint("iv-generated", &v), OSSL_PARAM_END };

    if (!EVP_CIPHER_CTX_get_params(ctx, p) || !OSSL_PARAM_modified(p))
        return -1;
    return v;
}

/* One message of 40 bytes (decryptions set a made-up tag and fail final). */
static void iv_gen_message(EVP_CIPHER_CTX *ctx, int enc)
{
    unsigned char buf[64], data[40] = { 0 }, tag[16] = { 0 };
    int l;

    if (EVP_CipherUpdate(ctx, buf, &l, data, sizeof(data)) > 0 && !enc)
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, sizeof(tag), tag);
    EVP_CipherFinal_ex(ctx, buf, &l);
    ERR_clear_error();
}

/*
 * "iv-generated" (OpenSSL 3.4 and later, where the default provider lists
 * it): whether the context drew an IV itself, for a message without one or
 * for a TLS fixed IV when encrypting; it stays set for the context's life
 * and its copies. Against the default provider, where it lists the
 * parameter.
 */
static void test_iv_generated(int ai, const unsigned char *key, const unsigned char *iv)
{
    static const char *const cases[] = { "enc key+iv", "enc key only", "enc key only, then key+iv",
        "dec key only", "enc TLS fixed IV", "dec TLS fixed IV", "copy of enc key only",
        "enc key+iv, then key only" };
    EVP_CIPHER *tc = g_tc[ai], *rc = g_rc[ai];
    char where[160];

    if (OSSL_PARAM_locate_const(EVP_CIPHER_gettable_ctx_params(rc), "iv-generated") == NULL)
        return;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        EVP_CIPHER_CTX *ctx[2] = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
        EVP_CIPHER *c[2] = { tc, rc };
        long v[2];
        int enc = k != 3 && k != 5;

        snprintf(where, sizeof(where), "%s iv-generated after %s", g_alg[ai], cases[k]);
        for (int s = 0; s < 2; s++) {
            EVP_CIPHER_CTX *x = ctx[s];

            EVP_CipherInit_ex(x, c[s], NULL, key, k == 0 || k == 7 ? iv : NULL, enc);
            if (k == 4 || k == 5) {
                EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IV_FIXED, 4, (void *)iv);
            } else {
                iv_gen_message(x, enc);
                if (k == 2 || k == 7)
                    EVP_CipherInit_ex(x, NULL, NULL, key, k == 2 ? iv : NULL, enc);
                if (k == 2 || k == 7)
                    iv_gen_message(x, enc);
            }
            if (k == 6) {
                EVP_CIPHER_CTX *d = EVP_CIPHER_CTX_new();

                EVP_CIPHER_CTX_copy(d, x);
                EVP_CIPHER_CTX_free(x);
                ctx[s] = x = d;
            }
            ERR_clear_error();
            v[s] = iv_generated(x);
            ERR_clear_error();
        }
        chk(v[0] == v[1] && v[1] >= 0, "%s: %ld, default %ld", where, v[0], v[1]);
        EVP_CIPHER_CTX_free(ctx[0]);
        EVP_CIPHER_CTX_free(ctx[1]);
    }
}

static void test_params(void)
{
    static const char *const states[] = { "after init(cipher)", "after init(key,iv)", "ivlen 16",
        "mid stream", "after final" };
    static const int ivlens[] = { 1, 8, 11, 12, 13, 16, 60, 64, 100, 127, 128, 129, 0, 256, -1 };
    unsigned char key[32], iv[256], dtag[16];
    char where[160];

    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (unsigned char)(i * 7 + 1);
    for (size_t i = 0; i < sizeof(iv); i++)
        iv[i] = (unsigned char)(i * 13 + 5);

    for (int ai = 0; ai < NALG; ai++) {
        EVP_CIPHER *tc = g_tc[ai], *rc = g_rc[ai];
        const OSSL_PARAM *gl = EVP_CIPHER_gettable_params(rc);

        /* algorithm level */
        snprintf(where, sizeof(where), "%s cipher", g_alg[ai]);
        chk(EVP_CIPHER_get_mode(tc) == EVP_CIPH_GCM_MODE, "%s: mode %d, expected EVP_CIPH_GCM_MODE",
            where, EVP_CIPHER_get_mode(tc));
        chk((EVP_CIPHER_get_flags(tc) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0,
            "%s: EVP_CIPH_FLAG_AEAD_CIPHER not set (flags %#lx)", where, EVP_CIPHER_get_flags(tc));
        chk(EVP_CIPHER_get_flags(tc) == EVP_CIPHER_get_flags(rc), "%s: flags %#lx, default %#lx",
            where, EVP_CIPHER_get_flags(tc), EVP_CIPHER_get_flags(rc));
        chk(EVP_CIPHER_get_block_size(tc) == 1, "%s: block size %d", where,
            EVP_CIPHER_get_block_size(tc));
        chk(EVP_CIPHER_get_key_length(tc) == (int)g_klen[ai]
                && EVP_CIPHER_get_key_length(tc) == EVP_CIPHER_get_key_length(rc),
            "%s: key length %d", where, EVP_CIPHER_get_key_length(tc));
        chk(EVP_CIPHER_get_iv_length(tc) == 12, "%s: iv length %d", where,
            EVP_CIPHER_get_iv_length(tc));
        chk(EVP_CIPHER_get_nid(tc) == EVP_CIPHER_get_nid(rc), "%s: nid %d, default %d", where,
            EVP_CIPHER_get_nid(tc), EVP_CIPHER_get_nid(rc));
        chk(EVP_CIPHER_is_a(tc, g_alg[ai]) && EVP_CIPHER_is_a(tc, EVP_CIPHER_get0_name(rc)),
            "%s: EVP_CIPHER_is_a fails (name %s)", where, EVP_CIPHER_get0_name(tc));
        for (const OSSL_PARAM *p = gl; p != NULL && p->key != NULL; p++)
            pcmp(where, p->key, p->data_type, 128, tc, NULL, rc, NULL);

        snprintf(where, sizeof(where), "%s gettable_params", g_alg[ai]);
        cmp_lists(where, EVP_CIPHER_gettable_params(tc), gl);
        snprintf(where, sizeof(where), "%s gettable_ctx_params", g_alg[ai]);
        cmp_lists(where, EVP_CIPHER_gettable_ctx_params(tc), EVP_CIPHER_gettable_ctx_params(rc));
        snprintf(where, sizeof(where), "%s settable_ctx_params", g_alg[ai]);
        cmp_lists(where, EVP_CIPHER_settable_ctx_params(tc), EVP_CIPHER_settable_ctx_params(rc));

        /* context level, per state */
        memset(dtag, 0x77, sizeof(dtag));
        for (int enc = 1; enc >= 0; enc--) {
            for (int st = 0; st < 5; st++) {
                EVP_CIPHER_CTX *tx = EVP_CIPHER_CTX_new(), *rx = EVP_CIPHER_CTX_new();
                int a, b;

                snprintf(where, sizeof(where), "%s %s ctx %s", g_alg[ai], enc ? "enc" : "dec",
                    states[st]);
                a = drive_state(tx, tc, enc, st, key, iv, dtag);
                b = drive_state(rx, rc, enc, st, key, iv, dtag);
                ERR_clear_error();
                /* dec final fails on both (the tag is made up) */
                if (chk(a == b, "%s: reaching the state returns %d, default %d", where, a, b)
                    && (a || st == 4)) {
                    pcmp_all_ctx(where, ai, tx, rx);
                    if (st == 1) {
                        snprintf(where, sizeof(where), "%s %s ctx gettable/settable", g_alg[ai],
                            enc ? "enc" : "dec");
                        cmp_lists(where, EVP_CIPHER_CTX_gettable_params(tx),
                            EVP_CIPHER_CTX_gettable_params(rx));
                        cmp_lists(where, EVP_CIPHER_CTX_settable_params(tx),
                            EVP_CIPHER_CTX_settable_params(rx));
                    }
                }
                EVP_CIPHER_CTX_free(tx);
                EVP_CIPHER_CTX_free(rx);
            }
        }

        /* ivlen set/get before the IV, valid and invalid */
        for (size_t k = 0; k < sizeof(ivlens) / sizeof(ivlens[0]); k++) {
            for (int enc = 1; enc >= 0; enc--) {
                EVP_CIPHER_CTX *tx = EVP_CIPHER_CTX_new(), *rx = EVP_CIPHER_CTX_new();
                int a, b;

                snprintf(where, sizeof(where), "%s %s SET_IVLEN(%d)", g_alg[ai],
                    enc ? "enc" : "dec", ivlens[k]);
                EVP_CipherInit_ex(tx, tc, NULL, NULL, NULL, enc);
                EVP_CipherInit_ex(rx, rc, NULL, NULL, NULL, enc);
                a = EVP_CIPHER_CTX_ctrl(tx, EVP_CTRL_AEAD_SET_IVLEN, ivlens[k], NULL) > 0;
                b = EVP_CIPHER_CTX_ctrl(rx, EVP_CTRL_AEAD_SET_IVLEN, ivlens[k], NULL) > 0;
                ERR_clear_error();
                chk(a == b, "%s returns %d, default %d", where, a, b);
                chk(EVP_CIPHER_CTX_get_iv_length(tx) == EVP_CIPHER_CTX_get_iv_length(rx),
                    "%s: then get_iv_length %d, default %d", where,
                    EVP_CIPHER_CTX_get_iv_length(tx), EVP_CIPHER_CTX_get_iv_length(rx));
                a = EVP_CipherInit_ex(tx, NULL, NULL, key, iv, enc) > 0;
                b = EVP_CipherInit_ex(rx, NULL, NULL, key, iv, enc) > 0;
                ERR_clear_error();
                chk(a == b, "%s: then init(key,iv) returns %d, default %d", where, a, b);
                pcmp(where, OSSL_CIPHER_PARAM_IVLEN, OSSL_PARAM_UNSIGNED_INTEGER, 0, NULL, tx, NULL,
                    rx);
                pcmp(where, OSSL_CIPHER_PARAM_IV, OSSL_PARAM_OCTET_STRING, 128, NULL, tx, NULL, rx);
                EVP_CIPHER_CTX_free(tx);
                EVP_CIPHER_CTX_free(rx);
            }
        }

        /* tag set (dec) then taglen; tag get (enc, no AAD) of every length */
        for (int n = 1; n <= 16; n++) {
            EVP_CIPHER_CTX *tx = EVP_CIPHER_CTX_new(), *rx = EVP_CIPHER_CTX_new();
            int a, b;

            snprintf(where, sizeof(where), "%s dec SET_TAG(%d)", g_alg[ai], n);
            EVP_CipherInit_ex(tx, tc, NULL, key, iv, 0);
            EVP_CipherInit_ex(rx, rc, NULL, key, iv, 0);
            a = EVP_CIPHER_CTX_ctrl(tx, EVP_CTRL_AEAD_SET_TAG, n, dtag) > 0;
            b = EVP_CIPHER_CTX_ctrl(rx, EVP_CTRL_AEAD_SET_TAG, n, dtag) > 0;
            ERR_clear_error();
            chk(a == b, "%s returns %d, default %d", where, a, b);
            pcmp(where, OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_PARAM_UNSIGNED_INTEGER, 0, NULL, tx,
                NULL, rx);
            EVP_CIPHER_CTX_free(tx);
            EVP_CIPHER_CTX_free(rx);
        }
        for (int n = 1; n <= 16; n++) {
            EVP_CIPHER_CTX *tx = EVP_CIPHER_CTX_new(), *rx = EVP_CIPHER_CTX_new();
            unsigned char out[64], t1[16], t2[16];
            int l, a, b;

            snprintf(where, sizeof(where), "%s enc GET_TAG(%d) after final", g_alg[ai], n);
            memset(t1, 0, sizeof(t1));
            memset(t2, 0, sizeof(t2));
            a = EVP_CipherInit_ex(tx, tc, NULL, key, iv, 1) > 0
                && EVP_CipherUpdate(tx, out, &l, iv, 33) > 0
                && EVP_CipherFinal_ex(tx, out + 33, &l) > 0
                && EVP_CIPHER_CTX_ctrl(tx, EVP_CTRL_AEAD_GET_TAG, n, t1) > 0;
            b = EVP_CipherInit_ex(rx, rc, NULL, key, iv, 1) > 0
                && EVP_CipherUpdate(rx, out, &l, iv, 33) > 0
                && EVP_CipherFinal_ex(rx, out + 33, &l) > 0
                && EVP_CIPHER_CTX_ctrl(rx, EVP_CTRL_AEAD_GET_TAG, n, t2) > 0;
            ERR_clear_error();
            chk(a == b && memcmp(t1, t2, sizeof(t1)) == 0,
                "%s: returns %d (default %d), tag bytes %s", where, a, b,
                memcmp(t1, t2, sizeof(t1)) == 0 ? "equal" : "DIFFER");
            pcmp(where, OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_PARAM_UNSIGNED_INTEGER, 0, NULL, tx,
                NULL, rx);
            EVP_CIPHER_CTX_free(tx);
            EVP_CIPHER_CTX_free(rx);
        }
        test_iv_generated(ai, key, iv);
    }
}

/* ================================================================== */
/* negative: error paths, compared with default                        */
/* ================================================================== */

enum {
    N_SETKEYLEN_NOKEY,
    N_SETKEYLEN_KEYED,
    N_UPD_NOKEY,
    N_AAD_NOKEY,
    N_UPD_NOIV_DEC,
    N_UPD_NOIV_ENC,
    N_FINAL_NOTAG,
    N_SETTAG_LEN,
    N_SETTAG_ENC,
    N_UNKNOWN_PARAM,
    N_UNKNOWN_PLUS_IVLEN,
    N_SET_PADDING,
    N_WRONGTYPE,
    N_GETTAG_SIZE,
    N_GETTAG_BEFORE_FINAL,
    N_GETTAG_DEC,
    N_AAD_AFTER_DATA,
    N_UPD_AFTER_FINAL,
    N_FINAL_TWICE,
    N_IVLEN_BAD,
    N_IVFIXED_BAD,
    N_TLSAAD_BAD,
    N_TLS_NOT_INPLACE,
    N_TLS_SHORT,
    N_IVGEN_NOFIXED,
    N_SETIVINV_ENC,
    N_REINIT_NOIV_DEC,
    N_UNKNOWN_CTRL,
    N_SETTAG_NULL_DEC,
    N_NEG_DEC_AFTER_BADFINAL
};

typedef struct {
    int id, arg;
    const char *name;
    int evp_only; /* EVP refuses before reaching the provider: no error needed */
} neg_case;

static const neg_case g_neg[] = {
    { N_SETKEYLEN_NOKEY, -1, "set_key_length(keylen-1) before key", 0 },
    { N_SETKEYLEN_NOKEY, 1, "set_key_length(keylen+1) before key", 0 },
    { N_SETKEYLEN_NOKEY, 8, "set_key_length(keylen+8) before key", 0 },
    { N_SETKEYLEN_NOKEY, -100, "set_key_length(0) before key", 0 },
    { N_SETKEYLEN_NOKEY, 0, "set_key_length(keylen) before key", 0 },
    { N_SETKEYLEN_KEYED, 8, "set_key_length(keylen+8) after key", 0 },
    { N_SETKEYLEN_KEYED, 0, "set_key_length(keylen) after key", 0 },
    { N_UPD_NOKEY, 1, "encrypt update without key or IV", 0 },
    { N_UPD_NOKEY, 0, "decrypt update without key or IV", 0 },
    { N_UPD_NOKEY, 3, "encrypt update with IV but no key", 0 },
    { N_UPD_NOKEY, 2, "decrypt update with IV but no key", 0 },
    { N_AAD_NOKEY, 1, "encrypt AAD update without key", 0 },
    { N_AAD_NOKEY, 0, "decrypt AAD update without key", 0 },
    { N_UPD_NOIV_DEC, 0, "decrypt update with key but no IV", 0 },
    { N_UPD_NOIV_ENC, 0, "encrypt update with key but no IV", 0 },
    { N_FINAL_NOTAG, 0, "decrypt final without tag (with data)", 0 },
    { N_FINAL_NOTAG, 1, "decrypt final without tag (empty message)", 0 },
    { N_SETTAG_LEN, 17, "SET_TAG with 17 bytes", 0 },
    { N_SETTAG_LEN, 32, "SET_TAG with 32 bytes", 0 },
    { N_SETTAG_LEN, 0, "SET_TAG with 0 bytes", 0 },
    { N_SETTAG_LEN, 16, "SET_TAG with 16 bytes", 0 },
    { N_SETTAG_ENC, 16, "SET_TAG on an encryption context", 0 },
    { N_SETTAG_NULL_DEC, 16, "SET_TAG(16, NULL) on a decryption context", 0 },
    { N_UNKNOWN_PARAM, 0, "set_params with an unknown key", 0 },
    { N_UNKNOWN_PARAM, 1, "set_params with an unknown key before init(key)", 0 },
    { N_UNKNOWN_PLUS_IVLEN, 0, "set_params unknown key + ivlen 16", 0 },
    { N_SET_PADDING, 0, "EVP_CIPHER_CTX_set_padding(0)", 0 },
    { N_SET_PADDING, 1, "EVP_CIPHER_CTX_set_padding(1)", 0 },
    { N_WRONGTYPE, 0, "set \"ivlen\" as UTF8 string", 0 },
    { N_WRONGTYPE, 1, "set \"ivlen\" as octet string", 0 },
    { N_WRONGTYPE, 2, "set \"tag\" as unsigned integer", 0 },
    { N_WRONGTYPE, 3, "set \"tlsaad\" as unsigned integer", 0 },
    { N_WRONGTYPE, 4, "set \"ivlen\" as int -1", 0 },
    { N_WRONGTYPE, 5, "set \"tlsivfixed\" as UTF8 string", 0 },
    { N_GETTAG_SIZE, 0, "GET_TAG(0) after final", 0 },
    { N_GETTAG_SIZE, 1, "GET_TAG(1) after final", 0 },
    { N_GETTAG_SIZE, 3, "GET_TAG(3) after final", 0 },
    { N_GETTAG_SIZE, 16, "GET_TAG(16) after final", 0 },
    { N_GETTAG_SIZE, 17, "GET_TAG(17) after final", 0 },
    { N_GETTAG_SIZE, 32, "GET_TAG(32) after final", 0 },
    { N_GETTAG_SIZE, 64, "GET_TAG(64) after final", 0 },
    { N_GETTAG_SIZE, 1000, "get_params \"tag\" into a 0-byte buffer", 0 },
    { N_GETTAG_SIZE, 1017, "get_params \"tag\" into a 17-byte buffer", 0 },
    { N_GETTAG_BEFORE_FINAL, 0, "GET_TAG(16) before final", 0 },
    { N_GETTAG_DEC, 0, "GET_TAG(16) on a decryption context after a good final", 0 },
    { N_NEG_DEC_AFTER_BADFINAL, 0, "decrypt: final again after a failed final", 0 },
    { N_AAD_AFTER_DATA, 1, "encrypt: AAD after data", 0 },
    { N_AAD_AFTER_DATA, 0, "decrypt: AAD after data", 0 },
    { N_UPD_AFTER_FINAL, 1, "encrypt: update after final", 0 },
    { N_UPD_AFTER_FINAL, 0, "decrypt: update after final", 0 },
    { N_FINAL_TWICE, 1, "encrypt: final twice", 0 },
    { N_IVLEN_BAD, 0, "SET_IVLEN(0)", 0 },
    { N_IVLEN_BAD, 129, "SET_IVLEN(129)", 0 },
    { N_IVLEN_BAD, 1024, "SET_IVLEN(1024)", 0 },
    { N_IVLEN_BAD, -1, "SET_IVLEN(-1)", 1 },
    { N_IVFIXED_BAD, 3, "SET_IV_FIXED(3)", 0 },
    { N_IVFIXED_BAD, 5, "SET_IV_FIXED(5) (leaves 7 < 8 bytes)", 0 },
    { N_IVFIXED_BAD, 12, "SET_IV_FIXED(12)", 0 },
    { N_IVFIXED_BAD, 4, "SET_IV_FIXED(4)", 0 },
    { N_TLSAAD_BAD, 12, "TLS1_AAD with 12 bytes", 0 },
    { N_TLSAAD_BAD, 14, "TLS1_AAD with 14 bytes", 0 },
    { N_TLSAAD_BAD, 100, "encrypt TLS1_AAD with record length 7", 0 },
    { N_TLSAAD_BAD, 101, "decrypt TLS1_AAD with record length 23", 0 },
    { N_TLS_NOT_INPLACE, 1, "TLS 1.2 encrypt record not in place", 0 },
    { N_TLS_NOT_INPLACE, 0, "TLS 1.2 decrypt record not in place", 0 },
    { N_TLS_SHORT, 1, "TLS 1.2 encrypt record of 23 bytes", 0 },
    { N_TLS_SHORT, 0, "TLS 1.2 decrypt record of 23 bytes", 0 },
    { N_IVGEN_NOFIXED, 0, "GCM_IV_GEN without SET_IV_FIXED", 0 },
    { N_SETIVINV_ENC, 0, "GCM_SET_IV_INV on an encryption context", 0 },
    { N_REINIT_NOIV_DEC, 1, "encrypt again after final, re-init key only", 0 },
    { N_REINIT_NOIV_DEC, 0, "decrypt again after final, re-init key only", 0 },
    { N_UNKNOWN_CTRL, 0, "ctrl EVP_CTRL_SET_RC5_ROUNDS", 0 },
};

static const unsigned char neg_key[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
static const unsigned char neg_iv[16] = { 0xca, 0xfe, 0xba, 0xbe, 1, 2, 3, 4, 5, 6, 7, 8 };

/* Empty-AAD encryption of 20 bytes of 0x42 (for a valid decrypt). */
static int neg_ct(const EVP_CIPHER *c, unsigned char ct[20], unsigned char tag[16])
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char in[20];
    int l, ok;

    memset(in, 0x42, sizeof(in));
    ok = EVP_EncryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0
        && EVP_EncryptUpdate(ctx, ct, &l, in, 20) > 0 && EVP_EncryptFinal_ex(ctx, ct + 20, &l) > 0
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* Encrypts 20 bytes of in on ctx (no AAD) through final. */
static int neg_enc_final(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c, const unsigned char *in,
    unsigned char *out)
{
    int l;

    return EVP_EncryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0
        && EVP_EncryptUpdate(ctx, out, &l, in, 20) > 0 && EVP_EncryptFinal_ex(ctx, out, &l) > 0;
}

/*
 * Starts decrypting neg_ct()'s message on ctx with its tag set, up to (not
 * including) final; the data update gets 20 bytes of in, or of the real
 * ciphertext when in is NULL.
 */
static int neg_dec_start(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c, const unsigned char *in,
    unsigned char *out)
{
    unsigned char ct[40], tag[16];
    int l;

    return neg_ct(c, ct, tag) && EVP_DecryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
        && EVP_DecryptUpdate(ctx, out, &l, in != NULL ? in : ct, 20) > 0;
}

/*
 * Runs one negative scenario.  Returns the normalized result of the call
 * under test (1 success, 0 failure; other values encode extra findings) or
 * -1 when the setup failed; *err tells whether that call left an error.
 */
static int neg_run(const neg_case *nc, const EVP_CIPHER *c, int ai, int *err)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char buf[160], out[160], aad[13];
    OSSL_PARAM prm[3];
    int l, rc = -1, enc = nc->arg & 1;
    int keylen = (int)g_klen[ai];
    unsigned int ui = 1;
    size_t sz;

    memset(buf, 0x42, sizeof(buf));
    *err = 0;
    if (ctx == NULL)
        return -1;
#define SETUP(x)      \
    do {              \
        if (!(x))     \
            goto out; \
    } while (0)
#define CALL(x)                       \
    do {                              \
        ERR_clear_error();            \
        rc = (x);                     \
        *err = ERR_peek_error() != 0; \
    } while (0)

    switch (nc->id) {
    case N_SETKEYLEN_NOKEY:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, NULL, NULL) > 0);
        CALL(EVP_CIPHER_CTX_set_key_length(ctx, nc->arg == -100 ? 0 : keylen + nc->arg) > 0);
        if (rc == 1
            && EVP_CIPHER_CTX_get_key_length(ctx) != keylen + (nc->arg == -100 ? -keylen : nc->arg))
            rc = 2; /* claimed success but the key length did not change */
        break;
    case N_SETKEYLEN_KEYED:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0);
        CALL(EVP_CIPHER_CTX_set_key_length(ctx, keylen + nc->arg) > 0);
        break;
    case N_UPD_NOKEY:
        SETUP(EVP_CipherInit_ex(ctx, c, NULL, NULL, nc->arg & 2 ? neg_iv : NULL, enc) > 0);
        CALL(EVP_CipherUpdate(ctx, out, &l, buf, 16) > 0);
        break;
    case N_AAD_NOKEY:
        SETUP(EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) > 0);
        CALL(EVP_CipherUpdate(ctx, NULL, &l, buf, 16) > 0);
        break;
    case N_UPD_NOIV_DEC:
        SETUP(EVP_DecryptInit_ex(ctx, c, NULL, neg_key, NULL) > 0);
        CALL(EVP_DecryptUpdate(ctx, out, &l, buf, 16) > 0);
        break;
    case N_UPD_NOIV_ENC:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, NULL) > 0);
        CALL(EVP_EncryptUpdate(ctx, out, &l, buf, 16) > 0);
        break;
    case N_FINAL_NOTAG:
        SETUP(EVP_DecryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0);
        if (nc->arg == 0)
            SETUP(EVP_DecryptUpdate(ctx, NULL, &l, buf, 5) > 0
                && EVP_DecryptUpdate(ctx, out, &l, buf, 20) > 0);
        CALL(EVP_DecryptFinal_ex(ctx, out, &l) > 0);
        break;
    case N_SETTAG_LEN:
        SETUP(EVP_DecryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, nc->arg, buf) > 0);
        break;
    case N_SETTAG_ENC:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, nc->arg, buf) > 0);
        break;
    case N_SETTAG_NULL_DEC:
        SETUP(EVP_DecryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, nc->arg, NULL) > 0);
        break;
    case N_UNKNOWN_PARAM:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, nc->arg ? NULL : neg_key, nc->arg ? NULL : neg_iv)
            > 0);
        prm[0] = OSSL_PARAM_construct_uint("cpt-no-such-param", &ui);
        prm[1] = OSSL_PARAM_construct_end();
        CALL(EVP_CIPHER_CTX_set_params(ctx, prm) > 0);
        break;
    case N_UNKNOWN_PLUS_IVLEN:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, NULL, NULL) > 0);
        sz = 16;
        prm[0] = OSSL_PARAM_construct_uint("cpt-no-such-param", &ui);
        prm[1] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &sz);
        prm[2] = OSSL_PARAM_construct_end();
        CALL(EVP_CIPHER_CTX_set_params(ctx, prm) > 0);
        if (rc == 1 && EVP_CIPHER_CTX_get_iv_length(ctx) != 16)
            rc = 2; /* accepted, but ivlen not applied */
        break;
    case N_SET_PADDING:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0);
        CALL(EVP_CIPHER_CTX_set_padding(ctx, nc->arg) > 0);
        break;
    case N_WRONGTYPE:
        SETUP(EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, nc->arg == 2 ? 0 : 1) > 0);
        switch (nc->arg) {
        case 0:
            prm[0] =
                OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_AEAD_IVLEN, (char *)"16", 0);
            break;
        case 1:
            prm[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_IVLEN, buf, 8);
            break;
        case 2:
            prm[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_AEAD_TAG, &ui);
            break;
        case 3:
            prm[0] = OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, &ui);
            break;
        case 4:
            l = -1;
            prm[0] = OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_AEAD_IVLEN, &l);
            break;
        default:
            prm[0] = OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED,
                (char *)"abcd", 0);
            break;
        }
        prm[1] = OSSL_PARAM_construct_end();
        CALL(EVP_CIPHER_CTX_set_params(ctx, prm) > 0);
        break;
    case N_GETTAG_SIZE:
        SETUP(neg_enc_final(ctx, c, buf, out));
        if (nc->arg >= 1000) {
            prm[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, out,
                (size_t)(nc->arg - 1000));
            prm[1] = OSSL_PARAM_construct_end();
            CALL(EVP_CIPHER_CTX_get_params(ctx, prm) > 0);
        } else {
            CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, nc->arg, out) > 0);
        }
        break;
    case N_GETTAG_BEFORE_FINAL:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0
            && EVP_EncryptUpdate(ctx, out, &l, buf, 20) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out) > 0);
        break;
    case N_GETTAG_DEC:
        SETUP(neg_dec_start(ctx, c, NULL, out) && EVP_DecryptFinal_ex(ctx, out, &l) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out) > 0);
        break;
    case N_AAD_AFTER_DATA:
        SETUP(EVP_CipherInit_ex(ctx, c, NULL, neg_key, neg_iv, enc) > 0
            && EVP_CipherUpdate(ctx, NULL, &l, buf, 7) > 0
            && EVP_CipherUpdate(ctx, out, &l, buf, 20) > 0);
        CALL(EVP_CipherUpdate(ctx, NULL, &l, buf, 7) > 0);
        break;
    case N_UPD_AFTER_FINAL:
    case N_FINAL_TWICE:
        if (enc)
            SETUP(neg_enc_final(ctx, c, buf, out));
        else
            SETUP(neg_dec_start(ctx, c, NULL, out) && EVP_DecryptFinal_ex(ctx, out, &l) > 0);
        if (nc->id == N_FINAL_TWICE)
            CALL(EVP_CipherFinal_ex(ctx, out, &l) > 0);
        else
            CALL(EVP_CipherUpdate(ctx, out, &l, buf, 16) > 0);
        break;
    case N_REINIT_NOIV_DEC:
        if (enc)
            SETUP(neg_enc_final(ctx, c, buf, out)
                && EVP_EncryptInit_ex(ctx, NULL, NULL, neg_key, NULL) > 0);
        else
            SETUP(neg_dec_start(ctx, c, NULL, out) && EVP_DecryptFinal_ex(ctx, out, &l) > 0
                && EVP_DecryptInit_ex(ctx, NULL, NULL, neg_key, NULL) > 0);
        CALL(EVP_CipherUpdate(ctx, out, &l, buf, 16) > 0);
        break;
    case N_NEG_DEC_AFTER_BADFINAL:
        /* final fails (buf is not the ciphertext); libssl would stop here */
        SETUP(neg_dec_start(ctx, c, buf, out) && EVP_DecryptFinal_ex(ctx, out, &l) <= 0);
        CALL(EVP_DecryptFinal_ex(ctx, out, &l) > 0);
        break;
    case N_IVLEN_BAD:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, NULL, NULL) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, nc->arg, NULL) > 0);
        break;
    case N_IVFIXED_BAD:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, NULL) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, nc->arg, buf) > 0);
        break;
    case N_TLSAAD_BAD:
        memset(aad, 0, sizeof(aad));
        aad[8] = 23;
        aad[9] = 3;
        aad[10] = 3;
        enc = nc->arg != 101;
        SETUP(EVP_CipherInit_ex(ctx, c, NULL, neg_key, NULL, enc) > 0
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, buf) > 0);
        if (nc->arg >= 100) {
            aad[12] = nc->arg == 100 ? 7 : 23;
            CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) > 0);
        } else {
            unsigned char a2[16];

            memset(a2, 0, sizeof(a2));
            a2[nc->arg - 1] = 40;
            CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, nc->arg, a2) > 0);
        }
        break;
    case N_TLS_NOT_INPLACE:
    case N_TLS_SHORT: {
        int reclen = nc->id == N_TLS_SHORT ? 23 : 8 + 20 + 16;

        memset(aad, 0, sizeof(aad));
        aad[8] = 23;
        aad[9] = 3;
        aad[10] = 3;
        aad[12] = (unsigned char)(enc ? reclen - 16 : reclen);
        SETUP(EVP_CipherInit_ex(ctx, c, NULL, neg_key, NULL, enc) > 0
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, buf) > 0);
        if (nc->id == N_TLS_SHORT) {
            /* the AAD itself may already be refused; then that is the call */
            ERR_clear_error();
            l = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
            if (l <= 0) {
                *err = ERR_peek_error() != 0;
                rc = 3; /* refused at the AAD */
                break;
            }
            CALL(EVP_CipherUpdate(ctx, buf, &l, buf, reclen) > 0);
        } else {
            SETUP(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
            CALL(EVP_CipherUpdate(ctx, out, &l, buf, reclen) > 0);
        }
        break;
    }
    case N_IVGEN_NOFIXED:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, NULL) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_IV_GEN, 8, out) > 0);
        break;
    case N_SETIVINV_ENC:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, NULL) > 0
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, buf) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_INV, 8, buf) > 0);
        break;
    case N_UNKNOWN_CTRL:
        SETUP(EVP_EncryptInit_ex(ctx, c, NULL, neg_key, neg_iv) > 0);
        CALL(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_SET_RC5_ROUNDS, 12, NULL) > 0);
        break;
    default:
        break;
    }
#undef SETUP
#undef CALL
out:
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}

static void test_negative(void)
{
    for (int ai = 0; ai < NALG; ai++) {
        for (size_t i = 0; i < sizeof(g_neg) / sizeof(g_neg[0]); i++) {
            const neg_case *nc = &g_neg[i];
            int perr, rerr, a, b;
            char what[200];

            a = neg_run(nc, g_tc[ai], ai, &perr);
            b = neg_run(nc, g_rc[ai], ai, &rerr);
            snprintf(what, sizeof(what), "%s: %s", g_alg[ai], nc->name);
            if (b < 0) {
                chk(0, "%s: setup fails on the DEFAULT provider (harness bug)", what);
                continue;
            }
            if (!chk(a == b, "%s: provider %s, default %s", what,
                    a < 0        ? "fails in the setup"
                        : a == 0 ? "fails"
                        : a == 1 ? "succeeds"
                        : a == 2 ? "claims success without effect"
                                 : "refuses the TLS AAD",
                    b == 0       ? "fails"
                        : b == 1 ? "succeeds"
                                 : "refuses the TLS AAD"))
                continue;
            if ((a == 0 || a == 3) && !nc->evp_only)
                need_error(perr, rerr, what, "");
            else if (a == 0 || a == 3)
                cpt_count(1);
        }
    }
}

/* ================================================================== */
/* tls12: TLS 1.2 record mode as libssl drives it                      */
/* ================================================================== */

#define TLS_EXPL 8
#define TLS_TAG 16

static size_t pick_record_len(cpt_rng *r)
{
    static const pct_range t[] = { { 5, 0, 0 }, { 35, 1, 64 }, { 75, 65, 1500 },
        { 90, 1501, 16383 }, { 100, 16384, 16384 } };

    return pct_pick(r, (unsigned)cpt_rng_below(r, 100), t);
}

static void tls12_aad(unsigned char aad[13], uint64_t seq, int type, size_t len)
{
    for (int i = 0; i < 8; i++)
        aad[i] = (unsigned char)(seq >> (56 - 8 * i));
    aad[8] = (unsigned char)type;
    aad[9] = 3;
    aad[10] = 3;
    aad[11] = (unsigned char)(len >> 8);
    aad[12] = (unsigned char)len;
}

/* init(key, NULL IV) + SET_IV_FIXED(fixedlen) (4, or -1 with a whole IV). */
static EVP_CIPHER_CTX *tls12_ctx(const EVP_CIPHER *c, int enc, const unsigned char *key,
    const unsigned char *iv, int fixedlen)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (ctx == NULL || EVP_CipherInit_ex(ctx, c, NULL, key, NULL, enc) <= 0
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, fixedlen, (void *)iv) <= 0) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/*
 * One record in place: rec = [explicit nonce | payload | tag].  aadlen is
 * the record length field of the AAD (payload + 8 when sealing, the whole
 * record when opening).  Returns EVP_CipherUpdate's outl, -1 when the AAD
 * ctrl did not return 16 (*pad), -2 when the update failed.
 */
static int tls12_record(EVP_CIPHER_CTX *ctx, uint64_t seq, int type, unsigned char *rec,
    size_t reclen, size_t aadlen, int *pad)
{
    unsigned char aad[13];
    int outl = -12345;

    tls12_aad(aad, seq, type, aadlen);
    *pad = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    if (*pad != TLS_TAG)
        return -1;
    if (EVP_CipherUpdate(ctx, rec, &outl, rec, (int)reclen) <= 0)
        return -2;
    return outl;
}

/* One connection: encrypting/decrypting contexts on the provider (pe, pd) and
 * on default (re, rd), the records sealed by each, scratch and plaintext. */
typedef struct {
    EVP_CIPHER_CTX *pe, *re, *pd, *rd;
    unsigned char *prec, *rrec, *tmp, *pl;
} tls_conn;

/* Buffers of bufsize bytes; contexts new (new_ctxs) or NULL. */
static void tls_conn_new(tls_conn *t, size_t bufsize, int new_ctxs)
{
    t->pe = new_ctxs ? EVP_CIPHER_CTX_new() : NULL;
    t->re = new_ctxs ? EVP_CIPHER_CTX_new() : NULL;
    t->pd = new_ctxs ? EVP_CIPHER_CTX_new() : NULL;
    t->rd = new_ctxs ? EVP_CIPHER_CTX_new() : NULL;
    t->prec = xmalloc(bufsize);
    t->rrec = xmalloc(bufsize);
    t->tmp = xmalloc(bufsize);
    t->pl = xmalloc(bufsize);
}

/* Reports a connection given up after 3 bad records, then frees it. */
static void tls_conn_end(tls_conn *t, unsigned long bad, const char *label)
{
    if (bad >= 3)
        cpt_fail_line("%s: stopped this connection after 3 failed records", label);
    take_errors();
    EVP_CIPHER_CTX_free(t->pe);
    EVP_CIPHER_CTX_free(t->re);
    EVP_CIPHER_CTX_free(t->pd);
    EVP_CIPHER_CTX_free(t->rd);
    free(t->prec);
    free(t->rrec);
    free(t->tmp);
    free(t->pl);
}

static const char *tls_res(int r)
{
    static char b[4][32];
    static int k;

    k = (k + 1) % 4;
    if (r == -1)
        return "TLS1_AAD ctrl failed";
    if (r == -2)
        return "update failed";
    snprintf(b[k], sizeof(b[k]), "outl %d", r);
    return b[k];
}

/* One TLS 1.2 connection direction: mode 0 whole-IV (-1), 1 four-byte fixed. */
static void tls12_run(int ai, int mode, uint64_t cidx, size_t nrec)
{
    cpt_rng r;
    unsigned char key[32], iv[12], riv[12];
    tls_conn t;
    char ctxs[200];
    unsigned long bad = 0;

    tls_conn_new(&t, 16384 + 64, 0);
    cpt_rng_seed(&r, case_seed(ST_TLS12, cidx), 3);
    cpt_rng_fill(&r, key, sizeof(key));
    cpt_rng_fill(&r, iv, sizeof(iv));
    snprintf(ctxs, sizeof(ctxs), "%s %s", g_alg[ai],
        mode == 0 ? "SET_IV_FIXED(-1, whole IV)" : "SET_IV_FIXED(4)");
    t.pe = tls12_ctx(g_tc[ai], 1, key, iv, mode == 0 ? -1 : 4);
    if (mode == 0)
        t.re = tls12_ctx(g_rc[ai], 1, key, iv, -1);
    t.pd = tls12_ctx(g_tc[ai], 0, key, iv, 4);
    t.rd = tls12_ctx(g_rc[ai], 0, key, iv, 4);
    if (!chk(t.pe != NULL && t.pd != NULL,
            "%s: provider context setup (init key, NULL IV; "
            "SET_IV_FIXED) failed; repro: --seed %" PRIu64 " --only tls12 --case %" PRIu64,
            ctxs, g_o.seed, cidx)
        || !chk(t.rd != NULL && (mode != 0 || t.re != NULL), "%s: default setup failed", ctxs))
        goto out;
    take_errors();

    for (size_t i = 0; i < nrec && bad < 3; i++) {
        size_t plen = pick_record_len(&r), reclen = TLS_EXPL + plen + TLS_TAG;
        int type = cpt_rng_pct(&r, 90) ? 23 : 22;
        int ppad, rpad, po, ro;
        char where[300];

        snprintf(where, sizeof(where),
            "%s record %zu (payload %zu); repro: --seed %" PRIu64 " --only tls12 --case %" PRIu64,
            ctxs, i, plen, g_o.seed, cidx);
        cpt_rng_fill(&r, t.pl, plen);
        /* seal on the provider */
        cpt_rng_fill(&r, t.prec, reclen); /* garbage in nonce and tag space */
        memcpy(t.prec + TLS_EXPL, t.pl, plen);
        ERR_clear_error();
        po = tls12_record(t.pe, i, type, t.prec, reclen, plen + TLS_EXPL, &ppad);
        if (!chk(po == (int)reclen && ppad == TLS_TAG && ERR_peek_error() == 0,
                "seal: TLS1_AAD returned %d, %s (expected outl %zu)%s: %s", ppad, tls_res(po),
                reclen, ERR_peek_error() ? ", error queue not empty" : "", where)) {
            bad++;
            take_errors();
            continue;
        }
        if (mode == 1 && i == 0) {
            /* the provider chose the explicit nonce: continue from it on default */
            memcpy(riv, iv, 4);
            memcpy(riv + 4, t.prec, 8);
            t.re = tls12_ctx(g_rc[ai], 1, key, riv, -1);
            if (!chk(t.re != NULL, "default setup failed: %s", where))
                break;
        }
        /* the same record on default */
        memset(t.rrec, 0, reclen);
        memcpy(t.rrec + TLS_EXPL, t.pl, plen);
        ro = tls12_record(t.re, i, type, t.rrec, reclen, plen + TLS_EXPL, &rpad);
        if (!chk(ro == (int)reclen, "default seal failed (%s): %s", tls_res(ro), where))
            break;
        {
            long at = first_diff(t.prec, t.rrec, reclen);

            if (!chk(at < 0, "sealed record differs from default at byte %ld (%s): %s", at,
                    at < 0                             ? ""
                        : at < TLS_EXPL                ? "explicit nonce"
                        : at < (long)(TLS_EXPL + plen) ? "ciphertext"
                                                       : "tag",
                    where))
                bad++;
        }

        /* tampered copy of default's record: both openers must refuse it */
        if (cpt_rng_pct(&r, 12)) {
            int pe_err, re_err, tpad, tmode = (int)cpt_rng_below(&r, 3);
            size_t tpos = cpt_rng_below(&r, reclen);
            unsigned char tbit = (unsigned char)(1u << cpt_rng_below(&r, 8));
            uint64_t tseq = tmode == 1 ? i ^ (1ULL << cpt_rng_below(&r, 64)) : i;
            int ttype = tmode == 2 ? type ^ 1 : type;

            memcpy(t.tmp, t.rrec, reclen);
            if (tmode == 0)
                t.tmp[tpos] ^= tbit;
            ERR_clear_error();
            po = tls12_record(t.pd, tseq, ttype, t.tmp, reclen, reclen, &tpad);
            pe_err = take_errors();
            memcpy(t.tmp, t.rrec, reclen);
            if (tmode == 0)
                t.tmp[tpos] ^= tbit;
            ro = tls12_record(t.rd, tseq, ttype, t.tmp, reclen, reclen, &tpad);
            re_err = take_errors();
            if (chk(po == -2 && ro == -2,
                    "open of a tampered record (%s) returned %s "
                    "(default: %s), expected the update to fail: %s",
                    tmode == 0       ? "flipped bit"
                        : tmode == 1 ? "wrong sequence number"
                                     : "wrong content type",
                    tls_res(po), tls_res(ro), where))
                need_error(pe_err, re_err, "TLS 1.2 open of a tampered record", where);
        }

        /* provider opens default's record, default opens the provider's */
        memcpy(t.tmp, t.rrec, reclen);
        ERR_clear_error();
        po = tls12_record(t.pd, i, type, t.tmp, reclen, reclen, &ppad);
        if (chk(po == (int)plen && ppad == TLS_TAG && ERR_peek_error() == 0,
                "open of default's record: TLS1_AAD returned %d, %s (expected outl "
                "%zu)%s: %s",
                ppad, tls_res(po), plen, ERR_peek_error() ? ", error queue not empty" : "", where))
            chk(first_diff(t.tmp + TLS_EXPL, t.pl, plen) < 0,
                "open of default's record: plaintext differs at byte %ld: %s",
                first_diff(t.tmp + TLS_EXPL, t.pl, plen), where);
        else
            bad++;
        take_errors();
        memcpy(t.tmp, t.prec, reclen);
        ro = tls12_record(t.rd, i, type, t.tmp, reclen, reclen, &rpad);
        if (chk(ro == (int)plen, "default cannot open the provider's record (%s): %s", tls_res(ro),
                where))
            chk(first_diff(t.tmp + TLS_EXPL, t.pl, plen) < 0,
                "default opens the provider's record to a different plaintext: %s", where);
        take_errors();
    }
out:
    tls_conn_end(&t, bad, ctxs);
}

/*
 * An init with a new IV after a TLS fixed IV (both kept in C until the next
 * call into Go): the IV set last is the message's, as in OpenSSL.
 */
static void tls12_then_init(int ai)
{
    unsigned char key[32], fixed[4], iv[12], pt[48], ct[2][48], tag[2][16];
    int ok[2];

    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (unsigned char)(i * 7 + ai);
    memset(fixed, 0xa5, sizeof(fixed));
    memset(iv, 0x3c, sizeof(iv));
    memset(pt, 0x11, sizeof(pt));
    for (int p = 0; p < 2; p++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        OSSL_PARAM ver[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
        int v = 0x0303, n, f; /* TLS 1.2 */

        ver[0] = OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &v);
        ok[p] = ctx != NULL
            && EVP_CipherInit_ex(ctx, p ? g_rc[ai] : g_tc[ai], NULL, key, NULL, 1) > 0
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed) > 0
            && EVP_CIPHER_CTX_set_params(ctx, ver) > 0
            && EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, 1) > 0
            && EVP_EncryptUpdate(ctx, ct[p], &n, pt, (int)sizeof(pt)) > 0 && n == (int)sizeof(pt)
            && EVP_EncryptFinal_ex(ctx, ct[p] + n, &f) > 0
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag[p]) > 0;
        EVP_CIPHER_CTX_free(ctx);
    }
    chk(ok[0] && ok[1] && memcmp(ct[0], ct[1], sizeof(pt)) == 0 && memcmp(tag[0], tag[1], 16) == 0,
        "%s: init(key), TLS fixed IV, tls-version, init(IV), message: as the default provider",
        g_alg[ai]);
    ERR_clear_error();
}

static void test_tls12(void)
{
    size_t nrec = 100 + (size_t)g_iters / 3;

    for (int ai = 0; ai < NALG; ai++)
        tls12_then_init(ai);

    for (int ai = 0; ai < NALG; ai++)
        for (int mode = 0; mode < 2; mode++)
            if (case_selected((uint64_t)(ai * 2 + mode)))
                tls12_run(ai, mode, (uint64_t)(ai * 2 + mode), nrec);
}

/* ================================================================== */
/* tls13: the TLS 1.3 per-record pattern                               */
/* ================================================================== */

/* cipher-only init, SET_IVLEN(12), init(key) - as tls13_set_crypto_state */
static int tls13_setup(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c, int enc, const unsigned char *key)
{
    EVP_CIPHER_CTX_reset(ctx);
    return EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) > 0
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) > 0
        && EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, enc) > 0;
}

/*
 * Seals (enc) or opens one record in place: rec = [inner plaintext n | tag].
 * Returns 0 on success, else the number of the failing call (1 init(iv),
 * 2 SET_TAG, 3 AAD, 4 update, 5 final, 6 length, 7 GET_TAG).
 */
static int tls13_record(EVP_CIPHER_CTX *ctx, int enc, const unsigned char *siv, uint64_t seq,
    unsigned char *rec, size_t n)
{
    unsigned char nonce[12], hdr[5];
    int lenu = -1, lenf = -1, l;

    memcpy(nonce, siv, 12);
    for (int i = 0; i < 8; i++)
        nonce[4 + i] ^= (unsigned char)(seq >> (56 - 8 * i));
    hdr[0] = 23;
    hdr[1] = 3;
    hdr[2] = 3;
    hdr[3] = (unsigned char)((n + TLS_TAG) >> 8);
    hdr[4] = (unsigned char)(n + TLS_TAG);
    if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, enc) <= 0)
        return 1;
    if (!enc && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TLS_TAG, rec + n) <= 0)
        return 2;
    if (EVP_CipherUpdate(ctx, NULL, &l, hdr, 5) <= 0)
        return 3;
    if (EVP_CipherUpdate(ctx, rec, &lenu, rec, (int)n) <= 0)
        return 4;
    if (EVP_CipherFinal_ex(ctx, rec + lenu, &lenf) <= 0)
        return 5;
    if ((size_t)(lenu + lenf) != n)
        return 6;
    if (enc && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TLS_TAG, rec + n) <= 0)
        return 7;
    return 0;
}

static const char *const tls13_steps[] = { "ok", "init(nonce)", "SET_TAG", "update(header)",
    "update(record)", "final", "length mismatch", "GET_TAG" };

static void tls13_run(int ai, uint64_t cidx, size_t nrec)
{
    cpt_rng r;
    unsigned char key[32], siv[12];
    tls_conn t;
    unsigned long bad = 0;
    uint64_t seq = 0;
    int epoch = 0;

    tls_conn_new(&t, 16385 + 64, 1);
    cpt_rng_seed(&r, case_seed(ST_TLS13, cidx), 4);
    for (size_t i = 0; i < nrec && bad < 3; i++, seq++) {
        size_t n = pick_record_len(&r) + 1; /* + content type byte */
        char where[300];
        int pr, rr;

        if (i % 64 == 0) {
            /* new traffic keys (handshake -> application -> key updates) */
            epoch++;
            seq = 0;
            cpt_rng_fill(&r, key, sizeof(key));
            cpt_rng_fill(&r, siv, sizeof(siv));
            if (!chk(tls13_setup(t.pe, g_tc[ai], 1, key) && tls13_setup(t.pd, g_tc[ai], 0, key),
                    "%s: provider setup (init cipher, SET_IVLEN 12, init key) failed; "
                    "repro: --seed %" PRIu64 " --only tls13 --case %" PRIu64,
                    g_alg[ai], g_o.seed, cidx)
                || !chk(tls13_setup(t.re, g_rc[ai], 1, key) && tls13_setup(t.rd, g_rc[ai], 0, key),
                    "%s: default setup failed", g_alg[ai]))
                break;
            take_errors();
        }
        snprintf(where, sizeof(where),
            "%s key epoch %d record %" PRIu64 " (%zu bytes); repro: --seed %" PRIu64
            " --only tls13 --case %" PRIu64,
            g_alg[ai], epoch, seq, n, g_o.seed, cidx);
        cpt_rng_fill(&r, t.pl, n);
        memcpy(t.prec, t.pl, n);
        memcpy(t.rrec, t.pl, n);
        memset(t.prec + n, 0xEE, TLS_TAG);
        memset(t.rrec + n, 0x11, TLS_TAG);
        ERR_clear_error();
        pr = tls13_record(t.pe, 1, siv, seq, t.prec, n);
        rr = tls13_record(t.re, 1, siv, seq, t.rrec, n);
        if (!chk(rr == 0, "default seal failed at %s: %s", tls13_steps[rr], where))
            break;
        if (!chk(pr == 0, "provider seal failed at %s: %s", tls13_steps[pr], where)) {
            bad++;
            take_errors();
            continue;
        }
        {
            long at = first_diff(t.prec, t.rrec, n + TLS_TAG);

            if (!chk(at < 0, "sealed record differs from default at byte %ld (%s): %s", at,
                    at < (long)n ? "ciphertext" : "tag", where))
                bad++;
        }
        if (cpt_rng_pct(&r, 10)) {
            int perr, rerr, tr;

            memcpy(t.tmp, t.rrec, n + TLS_TAG);
            t.tmp[cpt_rng_below(&r, n + TLS_TAG)] ^= (unsigned char)(1u << cpt_rng_below(&r, 8));
            ERR_clear_error();
            tr = tls13_record(t.pd, 0, siv, seq, t.tmp, n);
            perr = take_errors();
            memcpy(t.tmp, t.rrec, n + TLS_TAG);
            t.tmp[n] ^= 1;
            (void)tls13_record(t.rd, 0, siv, seq, t.tmp, n);
            rerr = take_errors();
            if (chk(tr == 5, "open of a tampered record: %s, expected final to fail: %s",
                    tls13_steps[tr], where))
                need_error(perr, rerr, "TLS 1.3 open of a tampered record", where);
        }
        memcpy(t.tmp, t.rrec, n + TLS_TAG);
        ERR_clear_error();
        pr = tls13_record(t.pd, 0, siv, seq, t.tmp, n);
        if (chk(pr == 0 && ERR_peek_error() == 0,
                "provider cannot open default's record (%s%s): %s", tls13_steps[pr],
                ERR_peek_error() ? ", error queue not empty" : "", where))
            chk(first_diff(t.tmp, t.pl, n) < 0,
                "provider opens default's record to a different plaintext: %s", where);
        else
            bad++;
        take_errors();
        memcpy(t.tmp, t.prec, n + TLS_TAG);
        rr = tls13_record(t.rd, 0, siv, seq, t.tmp, n);
        chk(rr == 0 && first_diff(t.tmp, t.pl, n) < 0,
            "default cannot open the provider's record (%s): %s", tls13_steps[rr], where);
        take_errors();
    }
    tls_conn_end(&t, bad, g_alg[ai]);
}

static void test_tls13(void)
{
    size_t nrec = 200 + (size_t)g_iters / 2;

    for (int ai = 0; ai < NALG; ai++)
        if (case_selected((uint64_t)ai))
            tls13_run(ai, (uint64_t)ai, nrec);
}

/* ================================================================== */
/* dup: EVP_CIPHER_CTX_copy in the middle of a stream                  */
/* ================================================================== */

static int g_used[NALG]; /* algorithms exercised on the provider (main thread) */

/* How much AAD and data steps [0, k) of p consumed. */
static void consumed(const plan *p, int k, size_t *aad, size_t *data)
{
    *aad = *data = 0;
    for (int i = 0; i < k && i < p->n; i++) {
        const step *s = &p->s[i];

        if ((s->kind == K_AAD || s->kind == K_AAD_NULL) && s->off + s->len > *aad)
            *aad = s->off + s->len;
        if (s->kind == K_DATA && s->off + s->len > *data)
            *data = s->off + s->len;
    }
}

static void dup_case(const gcase *c, int enc)
{
    const char *rp = case_repro(c);
    cpt_rng r;
    plan *pl = xmalloc(sizeof(*pl));
    msg m1, m2;
    unsigned char *aad2 = xmemdup(c->aad, c->aadlen), *pt2 = xmemdup(c->pt, c->len);
    unsigned char *ct1 = xmalloc(c->len + CANARY), *ct2 = xmalloc(c->len + CANARY);
    unsigned char t1[16], t2[16], tagA[16], tagB[16];
    obuf oa, ob;
    EVP_CIPHER_CTX *A = EVP_CIPHER_CTX_new(), *B = NULL;
    exec_res ra, rb;
    size_t aad_done, data_done;
    int k, diverge, order, okA = 1, okB = 1, resetB = 0;
    char where[200], d[256];
    gcase c2 = *c;

    cpt_rng_seed(&r, case_seed(ST_DUP, c->idx), 5 + (uint64_t)enc);
    msg_from_case(&m1, c, g_tc[c->ai], enc);
    m1.len = c->len;
    m1.taglen = enc ? c->etaglen : c->dtaglen;
    make_plan(pl, &m1, c->plan_e | 1);
    k = 1 + (int)cpt_rng_below(&r, (uint64_t)(pl->n - 1)); /* copy after step k-1 */
    consumed(pl, k, &aad_done, &data_done);
    diverge = cpt_rng_pct(&r, 60);
    order = (int)cpt_rng_below(&r, 3);
    if (diverge) {
        cpt_rng_fill(&r, aad2 + aad_done, c->aadlen - aad_done);
        cpt_rng_fill(&r, pt2 + data_done, c->len - data_done);
    }
    snprintf(where, sizeof(where),
        "%s copy after step %d/%d (%s), aad %zu/data %zu "
        "consumed, %s, order %d",
        enc ? "encrypt" : "decrypt", k, pl->n, k_names[pl->s[k - 1].kind], aad_done, data_done,
        diverge ? "streams diverge" : "same stream", order);

    /* references for both messages */
    c2.aad = aad2;
    c2.pt = pt2;
    if (!ref_encrypt(c, ct1, t1) || !ref_encrypt(&c2, ct2, t2))
        goto out;

    /* message 1 on A, message 2 on B */
    obuf_new(&oa, c->len, c->off_a);
    obuf_new(&ob, c->len, c->off_b);
    m2 = m1;
    m2.aad = aad2;
    if (enc) {
        memset(tagA, 0xEE, sizeof(tagA));
        memset(tagB, 0xEE, sizeof(tagB));
        m1.in = c->pt;
        m2.in = pt2;
        m1.tag = tagA;
        m2.tag = tagB;
    } else {
        m1.in = ct1;
        m2.in = ct2;
        memcpy(tagA, t1, 16);
        memcpy(tagB, t2, 16);
        m1.tag = tagA;
        m2.tag = tagB;
        /* B inherits A's tag if it was set before the copy */
        for (int i = 0; i < k; i++)
            if (pl->s[i].kind == K_SETTAG_CTRL || pl->s[i].kind == K_SETTAG_PARAM)
                resetB = diverge;
    }
    m1.out = oa.p;
    m2.out = ob.p;

    if (A == NULL || !exec_plan(A, pl, 0, k, &m1, &ra)) {
        describe_res(pl, &ra, d, sizeof(d));
        chk(0, "dup: provider failed before the copy: %s; %s %s", d, where, rp);
        goto out2;
    }
    B = EVP_CIPHER_CTX_new();
    ERR_clear_error();
    if (!chk(B != NULL && EVP_CIPHER_CTX_copy(B, A) > 0, "dup: EVP_CIPHER_CTX_copy failed; %s %s",
            where, rp))
        goto out2;
    if (data_done)
        memcpy(ob.p, oa.p, data_done); /* output produced before the copy */

    if (order == 0) {
        okA = exec_plan(A, pl, k, pl->n, &m1, &ra);
        EVP_CIPHER_CTX_free(A);
        A = NULL;
        if (resetB)
            okB = EVP_CIPHER_CTX_ctrl(B, EVP_CTRL_AEAD_SET_TAG, (int)m2.taglen, tagB) > 0;
        okB = okB && exec_plan(B, pl, k, pl->n, &m2, &rb);
    } else if (order == 1) {
        if (resetB)
            okB = EVP_CIPHER_CTX_ctrl(B, EVP_CTRL_AEAD_SET_TAG, (int)m2.taglen, tagB) > 0;
        okB = okB && exec_plan(B, pl, k, pl->n, &m2, &rb);
        EVP_CIPHER_CTX_free(B);
        B = NULL;
        okA = exec_plan(A, pl, k, pl->n, &m1, &ra);
    } else {
        if (resetB)
            okB = EVP_CIPHER_CTX_ctrl(B, EVP_CTRL_AEAD_SET_TAG, (int)m2.taglen, tagB) > 0;
        for (int i = k; i < pl->n; i++) {
            if (okA)
                okA = exec_plan(A, pl, i, i + 1, &m1, &ra);
            if (okB)
                okB = exec_plan(B, pl, i, i + 1, &m2, &rb);
        }
    }
    describe_res(pl, &ra, d, sizeof(d));
    if (chk(okA, "dup: original context after the copy: %s; %s %s", d, where, rp))
        chk(first_diff(oa.p, enc ? ct1 : c->pt, c->len) < 0
                && (!enc || first_diff(tagA, t1, m1.taglen) < 0) && obuf_canary_ok(&oa),
            "dup: original context output differs from default (byte %ld, tag %s); %s %s",
            first_diff(oa.p, enc ? ct1 : c->pt, c->len),
            enc && first_diff(tagA, t1, m1.taglen) >= 0 ? "differs" : "ok", where, rp);
    describe_res(pl, &rb, d, sizeof(d));
    if (chk(okB, "dup: copied context: %s; %s %s", d, where, rp))
        chk(first_diff(ob.p, enc ? ct2 : pt2, c->len) < 0
                && (!enc || first_diff(tagB, t2, m2.taglen) < 0) && obuf_canary_ok(&ob),
            "dup: copied context output differs from default (byte %ld, tag %s); %s %s",
            first_diff(ob.p, enc ? ct2 : pt2, c->len),
            enc && first_diff(tagB, t2, m2.taglen) >= 0 ? "differs" : "ok", where, rp);
out2:
    take_errors();
    obuf_free(&oa);
    obuf_free(&ob);
out:
    EVP_CIPHER_CTX_free(A);
    EVP_CIPHER_CTX_free(B);
    free(pl);
    free(aad2);
    free(pt2);
    free(ct1);
    free(ct2);
}

static void dup_both(const gcase *c, void *unused)
{
    (void)unused;
    g_used[c->ai] = 1;
    dup_case(c, 1);
    dup_case(c, 0);
}

static void test_dup(void)
{
    run_cases(ST_DUP, g_iters / 3 + 1, 65536, dup_both, NULL);
}

/* ================================================================== */
/* async: differential work inside ASYNC jobs                          */
/* ================================================================== */

/*
 * One task.  Everything a job touches lives here, on the heap: job stacks
 * are 32 KiB without a guard page.  Jobs share the thread's error queue, so
 * no job looks at it.
 */
typedef struct {
    gcase c;
    unsigned char *rct; /* reference ciphertext */
    unsigned char rtag[16];
    unsigned char *badtag; /* non-NULL: also a tampered-tag decrypt */
    obuf pct, pdec;
    unsigned char ptag[16];
    plan *pl;
    exec_res res;
    int in_job;
    int stage; /* where it went wrong (for the report) */
} atask;

enum {
    AS_OK = 1,
    AS_ENC = -1,
    AS_ENC_CMP = -2,
    AS_DEC = -3,
    AS_DEC_CMP = -4,
    AS_TAMPER = -5,
    AS_NOJOB = -6
};

static int async_task(void *arg)
{
    atask *t = arg;
    const gcase *c = &t->c;

    t->in_job = ASYNC_get_current_job() != NULL;
    memset(t->ptag, 0xEE, sizeof(t->ptag));
    if (!t->in_job)
        return t->stage = AS_NOJOB;
    /* provider encrypts */
    if (!prov_encrypt(c, &t->pct, t->ptag, t->pl, &t->res))
        return t->stage = AS_ENC;
    if (first_diff(t->pct.p, t->rct, c->len) >= 0 || first_diff(t->ptag, t->rtag, c->etaglen) >= 0
        || !obuf_canary_ok(&t->pct))
        return t->stage = AS_ENC_CMP;
    /* provider decrypts default's ciphertext */
    if (!prov_decrypt(c, t->rct, t->rtag, c->inplace_d, &t->pdec, t->pl, &t->res))
        return t->stage = AS_DEC;
    if (first_diff(t->pdec.p, c->pt, c->len) >= 0 || !obuf_canary_ok(&t->pdec))
        return t->stage = AS_DEC_CMP;
    /* a tampered tag must fail in final, also asynchronously */
    if (t->badtag != NULL) {
        if (prov_decrypt(c, t->rct, t->badtag, 0, &t->pdec, t->pl, &t->res)
            || t->res.kind != K_FINAL)
            return t->stage = AS_TAMPER;
    }
    return t->stage = AS_OK;
}

typedef struct {
    atask *tasks;
    void **args;
    cpt_jobs j;
    int ran;
} abatch;

static void abatch_new(abatch *b, int st, uint64_t idx0, size_t n, size_t inflight, uint64_t seed)
{
    memset(b, 0, sizeof(*b));
    b->tasks = calloc(n, sizeof(*b->tasks));
    b->args = calloc(n ? n : 1, sizeof(void *));
    if (b->tasks == NULL || b->args == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        atask *t = &b->tasks[i];
        cpt_rng r;

        gen_case(&t->c, st, idx0 + i, g_maxlen < 262144 ? g_maxlen : 262144);
        g_used[t->c.ai] = 1;
        t->rct = xmalloc(t->c.len + CANARY);
        if (!ref_encrypt(&t->c, t->rct, t->rtag))
            memset(t->rtag, 0, 16);
        cpt_rng_seed(&r, case_seed(st, idx0 + i), 77);
        if (cpt_rng_pct(&r, 15)) {
            t->badtag = xmemdup(t->rtag, 16);
            t->badtag[cpt_rng_below(&r, t->c.dtaglen)] ^= 0x10;
        }
        obuf_new(&t->pct, t->c.len, t->c.off_a);
        obuf_new(&t->pdec, t->c.len, t->c.off_b);
        t->pl = xmalloc(sizeof(plan));
        b->args[i] = t;
    }
    b->j.fn = async_task;
    b->j.args = b->args;
    b->j.ntasks = n;
    b->j.max_inflight = inflight;
    b->j.spurious_pct = 25;
    b->j.new_wctx_pct = 20;
    b->j.seed = seed;
    b->j.timeout_s = 20;
    b->j.results = calloc(n ? n : 1, sizeof(int));
    b->j.paused = calloc(n ? n : 1, 1);
    if (b->j.results == NULL || b->j.paused == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
}

/* Checks and reports a finished batch (main thread). */
static void abatch_check(abatch *b, const char *label)
{
    cpt_jobs *j = &b->j;
    static const char *const stages[] = { "", "provider encrypt failed",
        "provider encryption differs from default", "provider decrypt failed",
        "provider decryption differs", "tampered tag not refused in final",
        "task did not run inside an ASYNC job" };

    chk(b->ran && !j->timed_out && j->async_errors == 0,
        "%s: job runner: %s (timed out %d, ASYNC_ERR %zu)", label,
        b->ran ? "not all tasks completed" : "failed", j->timed_out, j->async_errors);
    for (size_t i = 0; i < j->ntasks; i++) {
        atask *t = &b->tasks[i];
        int rc = j->results[i];
        char d[256];

        if (rc == AS_OK) {
            cpt_count(1);
            continue;
        }
        if (rc == -1 && t->stage == 0) {
            chk(0, "%s: task %zu never ran to completion %s", label, i, case_repro(&t->c));
            continue;
        }
        describe_res(t->pl, &t->res, d, sizeof(d));
        chk(0, "%s: %s (%s)%s %s", label, -rc >= 1 && -rc <= 6 ? stages[-rc] : "?",
            rc == AS_ENC || rc == AS_DEC || rc == AS_TAMPER ? d : "",
            j->paused[i] ? " [job paused]" : " [no pause]", case_repro(&t->c));
    }
    printf("    %s: %zu tasks, %zu in flight: %zu paused (%zu pauses), %zu fd wake-ups, "
           "%zu spurious resumes, %zu resumes without fd, max %zu fds per wait ctx, "
           "%zu ASYNC_NO_JOBS\n",
        label, j->ntasks, j->max_inflight, j->tasks_paused, j->pauses, j->fd_waits,
        j->spurious_resumes, j->nofd_resumes, j->max_fds, j->no_jobs);
    if (g_expect_async)
        chk(j->tasks_paused > 0,
            "%s: --expect-async, but no job paused (the provider "
            "ran every operation synchronously inside the jobs)",
            label);
    else if (j->tasks_paused == 0 && !g_test_is_default)
        cpt_note("%s: no job paused", label);
    if (j->max_fds > 1)
        cpt_note("%s: a wait context held %zu fds at once", label, j->max_fds);
    take_errors();
}

static void abatch_free(abatch *b)
{
    for (size_t i = 0; i < b->j.ntasks; i++) {
        atask *t = &b->tasks[i];

        /* a task abandoned after a timeout may still be referenced: leak it */
        if (b->j.timed_out && b->j.results[i] == -1)
            continue;
        free_case(&t->c);
        free(t->rct);
        free(t->badtag);
        obuf_free(&t->pct);
        obuf_free(&t->pdec);
        free(t->pl);
    }
    if (!b->j.timed_out)
        free(b->tasks);
    free(b->args);
    free(b->j.results);
    free(b->j.paused);
}

static size_t async_ntasks(void)
{
    size_t n = g_jobs * 4;

    if (n < (size_t)g_iters / 2)
        n = (size_t)g_iters / 2;
    if (g_case >= 0)
        n = (size_t)g_case + 1;
    return n;
}

static void test_async(void)
{
    abatch b;
    char label[64];

    abatch_new(&b, ST_ASYNC, 0, async_ntasks(), g_jobs, case_seed(ST_ASYNC, 1ULL << 32));
    snprintf(label, sizeof(label), "async (%zu jobs)", g_jobs);
    b.ran = cpt_jobs_run(&b.j);
    abatch_check(&b, label);
    abatch_free(&b);
}

static void *async_thread(void *arg)
{
    abatch *b = arg;

    b->ran = cpt_jobs_run(&b->j);
    ERR_clear_error();
    OPENSSL_thread_stop();
    return NULL;
}

/* Two threads, each running its own jobs at the same time. */
static void test_async2t(void)
{
    abatch b[2];
    pthread_t th[2];
    size_t per = (g_jobs + 1) / 2, n = async_ntasks() / 2 + 1;
    int started[2] = { 0, 0 };

    /* thread k runs cases k*n .. k*n+n-1 */
    for (int k = 0; k < 2; k++)
        abatch_new(&b[k], ST_ASYNC2T, (uint64_t)k * n, n, per,
            case_seed(ST_ASYNC2T, (1ULL << 32) + (uint64_t)k));
    for (int k = 0; k < 2; k++) {
        if (pthread_create(&th[k], NULL, async_thread, &b[k]) != 0)
            chk(0, "async2t: pthread_create: %s", strerror(errno));
        else
            started[k] = 1;
    }
    for (int k = 0; k < 2; k++) {
        char label[64];

        if (!started[k])
            continue;
        pthread_join(th[k], NULL);
        snprintf(label, sizeof(label), "async2t thread %d (%zu jobs)", k, per);
        abatch_check(&b[k], label);
    }
    for (int k = 0; k < 2; k++)
        abatch_free(&b[k]);
}

/* ================================================================== */
/* stats: the provider's statistics file                               */
/* ================================================================== */

static void test_stats(void)
{
    const char *prefix = g_env.name;
    double deadline;
    cpt_alg_stats st[NALG];
    int ok[NALG], any = 0;
    char why[512];

    if (g_o.no_stats) {
        cpt_info("skipped (--no-stats)");
        return;
    }
    if (g_test_is_default) {
        cpt_note("the default provider writes no statistics file: skipped");
        return;
    }
    if (!chk(g_env.stats_dir[0] != '\0',
            "the provider was not loaded with a stats_dir (give --stats-dir DIR or "
            "--no-stats)"))
        return;
    for (int i = 0; i < NALG; i++)
        any |= g_used[i];
    if (!any) {
        cpt_note("no sub-test used the provider for data: nothing to check");
        return;
    }
    /* the file is rewritten at least once a second */
    deadline = cpt_now() + 3.5;
    for (;;) {
        int all = 1;

        for (int i = 0; i < NALG; i++) {
            ok[i] = !g_used[i]
                || (cpt_stats_read(g_env.stats_dir, prefix, getpid(), g_alg[i], &st[i], why,
                        sizeof(why))
                    && st[i].found && st[i].ops > 0 && st[i].bytes > 0 && st[i].device > 0);
            all &= ok[i];
        }
        if (all || cpt_now() > deadline)
            break;
        usleep(100 * 1000);
    }
    for (int i = 0; i < NALG; i++) {
        if (!g_used[i])
            continue;
        why[0] = '\0';
        if (!cpt_stats_read(g_env.stats_dir, prefix, getpid(), g_alg[i], &st[i], why,
                sizeof(why))) {
            chk(0, "stats file for pid %ld: %s", (long)getpid(), why);
            continue;
        }
        printf("    stats %s: found=%d ops=%lld bytes=%lld device=%lld software=%lld "
               "errors=%lld\n",
            g_alg[i], st[i].found, st[i].ops, st[i].bytes, st[i].device, st[i].software,
            st[i].errors);
        chk(st[i].found && st[i].ops > 0 && st[i].bytes > 0 && st[i].device > 0,
            "%s/%s-%ld.stats: %s shows no device work (found=%d ops=%lld bytes=%lld "
            "device=%lld software=%lld)",
            g_env.stats_dir, prefix, (long)getpid(), g_alg[i], st[i].found, st[i].ops, st[i].bytes,
            st[i].device, st[i].software);
    }
}

/* @@SUBTESTS-END@@ (new sub-tests go above this line) */

/* ================================================================== */
/* main                                                                */
/* ================================================================== */

static const cpt_named_test g_subtests[] = {
    { "params", test_params },
    { "negative", test_negative },
    { "kat", test_kat },
    { "diff", test_diff },
    { "tamper", test_tamper },
    { "tls12", test_tls12 },
    { "tls13", test_tls13 },
    { "dup", test_dup },
    { "async", test_async },
    { "async2t", test_async2t },
    { "stats", test_stats },
};

static int load_ciphers(void)
{
    int ok = 1;

    for (int i = 0; i < NALG; i++) {
        g_tc[i] = cpt_fetch_cipher(&g_env, 0, g_alg[i]);
        g_rc[i] = cpt_fetch_cipher(&g_env, 1, g_alg[i]);
        if (g_tc[i] == NULL || g_rc[i] == NULL) {
            chk(0, "cannot fetch %s from %s and from default", g_alg[i], g_env.name);
            ok = 0;
            continue;
        }
        if (!chk(strcmp(cpt_cipher_provider_name(g_tc[i]), g_env.name) == 0
                    && strcmp(cpt_cipher_provider_name(g_rc[i]), "default") == 0,
                "%s: implementation from '%s'/'%s', expected '%s'/'default'", g_alg[i],
                cpt_cipher_provider_name(g_tc[i]), cpt_cipher_provider_name(g_rc[i]), g_env.name))
            ok = 0;
    }
    return ok;
}

/* argv[*i] is `name` followed by a number >= min: *v, and *i moves past it. */
static int num_opt(int argc, char **argv, int *i, const char *name, uint64_t min, uint64_t *v)
{
    if (strcmp(argv[*i], name) != 0 || *i + 1 >= argc || !cpt_parse_u64(argv[*i + 1], v)
        || *v < min)
        return 0;
    (*i)++;
    return 1;
}

int main(int argc, char **argv)
{
    double t0 = cpt_now();
    char tmpstats[] = "/tmp/cpt-gcm-stats-XXXXXX";
    int rc;

    g_argv0 = argv[0];
    cpt_opts_init(&g_o);
    for (int i = 1; i < argc; i++) {
        int r = cpt_opts_parse_one(&g_o, argc, argv, &i);
        uint64_t v;

        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (num_opt(argc, argv, &i, "--iters", 0, &v)) {
            g_iters = v;
        } else if (num_opt(argc, argv, &i, "--jobs", 1, &v)) {
            g_jobs = (size_t)v;
        } else if (num_opt(argc, argv, &i, "--case", 0, &v)) {
            g_case = (long long)v;
        } else if (num_opt(argc, argv, &i, "--max-len", 0, &v)) {
            g_maxlen = (size_t)v;
        } else if (num_opt(argc, argv, &i, "--max-fail-lines", 0, &v)) {
            g_fail_cap = (unsigned long)v;
        } else if (strcmp(argv[i], "--no-aad") == 0) {
            g_no_aad = 1;
        } else if (strcmp(argv[i], "--expect-async") == 0) {
            g_expect_async = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else {
            fprintf(stderr, "unknown or malformed option '%s'\n", argv[i]);
            usage(stderr, argv[0]);
            return 2;
        }
    }
    cpt_set_verbose(g_o.verbose);
    g_test_is_default = strcmp(g_o.provider, "default") == 0;
    if (!g_test_is_default && !g_o.no_stats && g_o.stats_dir == NULL
        && cpt_selected(&g_o, "stats")) {
        /* The stats check needs the provider loaded with a stats_dir. */
        if (mkdtemp(tmpstats) != NULL)
            g_o.stats_dir = tmpstats;
    }
    printf("gcm_test: provider=%s seed=%" PRIu64 " iters=%" PRIu64 " jobs=%zu%s%s\n", g_o.provider,
        g_o.seed, g_iters, g_jobs, g_o.stats_dir ? " stats-dir=" : "",
        g_o.stats_dir ? g_o.stats_dir : "");
    fflush(stdout);

    if (!cpt_env_init(&g_env, &g_o)) {
        chk(0, "cannot load provider '%s'", g_o.provider);
        return cpt_finish();
    }
    if (!load_ciphers()) {
        rc = cpt_finish();
        cpt_env_free(&g_env);
        return rc;
    }
    for (size_t i = 0; i < sizeof(g_subtests) / sizeof(g_subtests[0]); i++) {
        if (!cpt_selected(&g_o, g_subtests[i].name))
            continue;
        sub_begin(g_subtests[i].name);
        g_subtests[i].fn();
        sub_end();
        ERR_clear_error();
    }
    printf("total time %.2fs (seed %" PRIu64 ")\n", cpt_now() - t0, g_o.seed);
    for (int i = 0; i < NALG; i++) {
        EVP_CIPHER_free(g_tc[i]);
        EVP_CIPHER_free(g_rc[i]);
    }
    rc = cpt_finish();
    cpt_env_free(&g_env);
    return rc;
}
