/* SPDX-License-Identifier: Apache-2.0 */
/*
 * abandon_test.c - what haproxy does with ssl-mode-async, on purpose.
 *
 * When a connection closes while its handshake job is paused, haproxy does
 * not resume the job: it waits until the job's async fd is readable, takes
 * that as "the engine is done with this SSL", frees the SSL (and its wait
 * context) and never touches the job again (ssl_async_fd_free). So a
 * provider's wait fd may turn readable only once the operation in flight
 * has finished reading and writing the caller's memory; a signal left over
 * from an earlier operation breaks that and the device writes into freed
 * memory (the heap corruption haproxy workers died of).
 *
 * The harness runs many ASYNC jobs, each a sequence of operations through
 * cptprov (RSA-2048 signatures, AES-256-GCM, SHA-256, all on the device)
 * driven like haproxy: a paused job is resumed only when its fd is
 * readable, and at a readable fd one job in twelve is abandoned instead:
 * its output buffers are filled with a canary and its wait context freed.
 * Checks:
 *   - every job that ran to the end produced the default provider's output;
 *   - after a job finished, its wait fd is not readable (no leftover
 *     signal for the next operation on that context);
 *   - no abandoned job's buffers change after it was abandoned (the device
 *     wrote nothing once the fd was readable);
 *   - every fd a wait context lists when its job finishes or is abandoned
 *     was announced at a pause (haproxy learns of fds only then, from
 *     SSL_get_changed_async_fds, yet deletes every listed fd from its poller
 *     when the connection closes, and aborts on one it never added);
 *   - no job waits forever, and no fd is left open once the device is idle;
 *   - a job whose pauses are blocked still finishes, in one go;
 *   - the signatures were cptprov's (the key is the default provider's, and
 *     a failed import would silently sign with it).
 *
 * Usage: abandon_test [--provider-path DIR] [--jobs N] [--seed S]
 */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include "common.h"

#define OPS 6 /* operations per job */
#define OUTSZ 4112
#define DATASZ 4096
#define INFLIGHT 32
#define CANARY 0xC3
#define THREADS 2 /* haproxy's nbthread 2 */

enum { OP_RSA, OP_GCM, OP_SHA, NKINDS };

static OSSL_LIB_CTX *lc;
static EVP_PKEY *rsa_key;
static unsigned char data[DATASZ], gcm_key[32], gcm_iv[12];
static unsigned char want[NKINDS][OUTSZ];
static size_t want_len[NKINDS];

struct task {
    int kind[OPS];
    unsigned char *out[OPS];
    size_t outl[OPS];
    volatile int cur; /* the operation in progress */
    int done, abandoned, failed;
    ASYNC_JOB *job;
    ASYNC_WAIT_CTX *wctx;
    unsigned long err; /* the error of a failed operation */
    OSSL_ASYNC_FD known[4]; /* the fds announced at pauses, as haproxy knows them */
    size_t nknown;
};

/* One operation into out by provider prov; returns its length, 0 on error. */
static size_t run_op(int kind, const char *prov, unsigned char *out)
{
    char propq[32];
    size_t n = 0;

    snprintf(propq, sizeof(propq), "provider=%s", prov);

    if (kind == OP_RSA) {
        EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lc, rsa_key, propq);
        unsigned char md[32];

        n = OUTSZ;
        SHA256(data, sizeof(data), md);
        if (pc == NULL || EVP_PKEY_sign_init(pc) <= 0
            || strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_CTX_get0_provider(pc)), prov) != 0
            || EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) <= 0
            || EVP_PKEY_CTX_set_signature_md(pc, EVP_sha256()) <= 0
            || EVP_PKEY_sign(pc, out, &n, md, sizeof(md)) <= 0)
            n = 0;
        EVP_PKEY_CTX_free(pc);
    } else if (kind == OP_GCM) {
        EVP_CIPHER *c = EVP_CIPHER_fetch(lc, "AES-256-GCM", propq);
        EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
        int l1 = 0, l2 = 0;

        if (c != NULL && cc != NULL && EVP_EncryptInit_ex2(cc, c, gcm_key, gcm_iv, NULL)
            && EVP_EncryptUpdate(cc, out, &l1, data, sizeof(data))
            && EVP_EncryptFinal_ex(cc, out + l1, &l2)
            && EVP_CIPHER_CTX_ctrl(cc, EVP_CTRL_AEAD_GET_TAG, 16, out + l1 + l2) > 0)
            n = (size_t)(l1 + l2 + 16);
        EVP_CIPHER_CTX_free(cc);
        EVP_CIPHER_free(c);
    } else {
        EVP_MD *md = EVP_MD_fetch(lc, "SHA2-256", propq);
        unsigned int l = 0;

        if (md != NULL && EVP_Digest(data, sizeof(data), out, &l, md, NULL))
            n = l;
        EVP_MD_free(md);
    }
    return n;
}

/* The job: runs on a 32 KiB fiber stack, so no printing here. */
static int job_fn(void *arg)
{
    struct task *t = *(struct task **)arg;

    for (int k = 0; k < OPS; k++) {
        t->cur = k;
        t->outl[k] = run_op(t->kind[k], "cptprov", t->out[k]);
        if (t->outl[k] == 0) {
            t->failed = 1;
            t->err = ERR_peek_last_error();
        }
    }
    return 1;
}

static int readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };

    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* The wait context's fd (cptprov registers one), -1 if none. */
static int wait_fd(ASYNC_WAIT_CTX *w)
{
    OSSL_ASYNC_FD fds[4];
    size_t n = 0;

    if (!ASYNC_WAIT_CTX_get_all_fds(w, NULL, &n) || n == 0 || n > 4
        || !ASYNC_WAIT_CTX_get_all_fds(w, fds, &n))
        return -1;
    return fds[0];
}

/* A job whose pauses are blocked, as OpenSSL blocks them around some locks:
 * pausing returns at once, so the operation must wait for the device in
 * place. */
static int blocked_fn(void *arg)
{
    unsigned char *out = *(unsigned char **)arg;
    size_t n;

    ASYNC_block_pause();
    n = run_op(OP_RSA, "cptprov", out);
    ASYNC_unblock_pause();
    return n == want_len[OP_RSA] && memcmp(out, want[OP_RSA], n) == 0;
}

/* After ASYNC_start_job: finished, paused, or failed. */
/* At a pause: what haproxy's ssl_async_process_fds learns. */
static void learn_fds(struct task *t)
{
    OSSL_ASYNC_FD add[4], del[4];
    size_t nadd = 0, ndel = 0;

    if (!ASYNC_WAIT_CTX_get_changed_fds(t->wctx, NULL, &nadd, NULL, &ndel) || nadd > 4 || ndel > 4
        || !ASYNC_WAIT_CTX_get_changed_fds(t->wctx, add, &nadd, del, &ndel))
        return;
    for (size_t i = 0; i < ndel; i++)
        for (size_t k = 0; k < t->nknown; k++)
            if (t->known[k] == del[i])
                t->known[k] = t->known[--t->nknown];
    for (size_t i = 0; i < nadd && t->nknown < 4; i++)
        t->known[t->nknown++] = add[i];
}

/* At the end of a job's life: how many listed fds were never announced. */
static size_t unannounced_fds(const struct task *t)
{
    OSSL_ASYNC_FD fds[4];
    size_t n = 0, bad = 0;

    if (!ASYNC_WAIT_CTX_get_all_fds(t->wctx, NULL, &n) || n > 4
        || !ASYNC_WAIT_CTX_get_all_fds(t->wctx, fds, &n))
        return 1;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;

        while (k < t->nknown && t->known[k] != fds[i])
            k++;
        bad += k == t->nknown;
    }
    return bad;
}

static _Atomic size_t unannounced;

static void after_start(struct task *t, int rc, size_t *stale, int *inflight)
{
    int fd;

    if (rc == ASYNC_PAUSE) {
        learn_fds(t);
        return;
    }
    (*inflight)--;
    t->done = 1;
    if (rc != ASYNC_FINISH) {
        t->failed = 1;
        return;
    }
    if ((fd = wait_fd(t->wctx)) >= 0 && readable(fd))
        (*stale)++;
    unannounced += unannounced_fds(t);
    ASYNC_WAIT_CTX_free(t->wctx);
    t->wctx = NULL;
}

/* One thread's share of the jobs, driven like one haproxy thread. */
struct driver {
    struct task *tasks;
    size_t n, next, stale, abandoned;
    uint64_t seed;
    int hung;
};

static void *drive(void *arg)
{
    struct driver *d = arg;
    int inflight = 0;
    cpt_rng r;

    cpt_rng_seed(&r, d->seed, 2);
    for (double last = cpt_now(); d->next < d->n || inflight > 0;) {
        struct pollfd pfd[INFLIGHT];
        struct task *who[INFLIGHT];
        int np = 0, rc;

        while (d->next < d->n && inflight < INFLIGHT) {
            struct task *t = &d->tasks[d->next++];

            t->wctx = ASYNC_WAIT_CTX_new();
            inflight++;
            rc = ASYNC_start_job(&t->job, t->wctx, &(int){ 0 }, job_fn, &t, sizeof(t));
            after_start(t, rc, &d->stale, &inflight);
        }
        for (size_t i = 0; i < d->next; i++) {
            struct task *t = &d->tasks[i];

            if (t->done || t->abandoned)
                continue;
            pfd[np].fd = wait_fd(t->wctx);
            pfd[np].events = POLLIN;
            who[np++] = t;
        }
        if (np == 0)
            continue;
        if (poll(pfd, (nfds_t)np, 1000) <= 0) {
            if (cpt_now() - last > 20) {
                d->hung = np;
                break;
            }
            continue;
        }
        last = cpt_now();
        for (int i = 0; i < np; i++) {
            struct task *t = who[i];

            if (!(pfd[i].revents & POLLIN))
                continue;
            if (cpt_rng_pct(&r, 8)) {
                /* haproxy: the connection is gone; the SSL is freed. */
                for (int k = 0; k < OPS; k++)
                    memset(t->out[k], CANARY, OUTSZ);
                unannounced += unannounced_fds(t);
                ASYNC_WAIT_CTX_free(t->wctx);
                t->wctx = NULL;
                t->abandoned = 1;
                inflight--;
                d->abandoned++;
                continue;
            }
            rc = ASYNC_start_job(&t->job, t->wctx, &(int){ 0 }, job_fn, &t, sizeof(t));
            after_start(t, rc, &d->stale, &inflight);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *path = "build";
    size_t njobs = 300, stale = 0, abandoned = 0, finished = 0, wrong = 0, written = 0;
    uint64_t seed = (uint64_t)time(NULL);
    OSSL_PROVIDER *pc, *pd;
    struct task *tasks;
    EVP_PKEY_CTX *kc;
    size_t next = 0;
    int fds0, fds1 = -1, hung = 0;
    struct driver drv[THREADS] = { { 0 } };
    pthread_t th[THREADS];
    cpt_rng r;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--provider-path") == 0)
            path = argv[i + 1];
        else if (strcmp(argv[i], "--jobs") == 0)
            njobs = (size_t)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--seed") == 0)
            seed = strtoull(argv[i + 1], NULL, 0);
    }
    printf("seed %llu\n", (unsigned long long)seed);
    cpt_rng_seed(&r, seed, 1);
    /* Every operation on the device: the fast ones are what left a signal
     * behind (done before the job even paused). */
    setenv("CPTPROV_CPU_THRESHOLD", "0", 1);
    lc = OSSL_LIB_CTX_new();
    OSSL_PROVIDER_set_default_search_path(lc, path);
    if ((pc = OSSL_PROVIDER_load(lc, "cptprov")) == NULL
        || (pd = OSSL_PROVIDER_load(lc, "default")) == NULL) {
        printf("cannot load the providers\n");
        return 1;
    }
    cpt_rng_fill(&r, data, sizeof(data));
    cpt_rng_fill(&r, gcm_key, sizeof(gcm_key));
    cpt_rng_fill(&r, gcm_iv, sizeof(gcm_iv));
    kc = EVP_PKEY_CTX_new_from_name(lc, "RSA", "provider=default");
    CPT_CHECK(kc != NULL && EVP_PKEY_keygen_init(kc) > 0
            && EVP_PKEY_CTX_set_rsa_keygen_bits(kc, 2048) > 0 && EVP_PKEY_keygen(kc, &rsa_key) > 0,
        "an RSA-2048 key");
    EVP_PKEY_CTX_free(kc);
    for (int k = 0; k < NKINDS; k++)
        CPT_CHECK((want_len[k] = run_op(k, "default", want[k])) > 0,
            "the default provider's output of operation %d", k);
    /* Warm up outside any job (starts the device), then count the fds. */
    {
        unsigned char tmp[OUTSZ];

        CPT_CHECK(run_op(OP_GCM, "cptprov", tmp) == want_len[OP_GCM], "a warm-up outside jobs");
    }
    fds0 = cpt_open_fds(0);

    tasks = calloc(njobs, sizeof(*tasks));
    for (size_t i = 0; i < njobs; i++)
        for (int k = 0; k < OPS; k++) {
            tasks[i].kind[k] = (int)cpt_rng_below(&r, NKINDS);
            tasks[i].out[k] = malloc(OUTSZ);
        }

    for (int i = 0; i < THREADS; i++) {
        drv[i].tasks = tasks + i * (njobs / THREADS);
        drv[i].n = i + 1 < THREADS ? njobs / THREADS : njobs - i * (njobs / THREADS);
        drv[i].seed = cpt_mix64(seed, (uint64_t)i);
        CPT_CHECK(pthread_create(&th[i], NULL, drive, &drv[i]) == 0, "driver thread %d", i);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        stale += drv[i].stale;
        abandoned += drv[i].abandoned;
        hung += drv[i].hung;
        next += drv[i].n;
    }
    {
        ASYNC_WAIT_CTX *w = ASYNC_WAIT_CTX_new();
        ASYNC_JOB *job = NULL;
        unsigned char *out = malloc(OUTSZ);
        int ret = 0, rc = ASYNC_start_job(&job, w, &ret, blocked_fn, &out, sizeof(out));

        CPT_CHECK(rc == ASYNC_FINISH && ret == 1,
            "a job with pauses blocked finishes in one go with the right signature (rc %d, ret %d)",
            rc, ret);
        ASYNC_WAIT_CTX_free(w);
        free(out);
    }
    CPT_CHECK(hung == 0, "no job waits forever (%d paused jobs saw no readable fd for 20 s)", hung);

    /* Give the device time to (wrongly) write, then look. */
    usleep(300 * 1000);
    for (size_t i = 0; i < next; i++) {
        struct task *t = &tasks[i];

        if (t->abandoned) {
            for (int k = 0; k < OPS; k++)
                for (size_t b = 0; b < OUTSZ; b++)
                    if (t->out[k][b] != CANARY) {
                        written++;
                        k = OPS;
                        break;
                    }
        } else if (t->done) {
            finished++;
            for (int k = 0; k < OPS; k++)
                if (t->failed || t->outl[k] != want_len[t->kind[k]]
                    || memcmp(t->out[k], want[t->kind[k]], t->outl[k]) != 0) {
                    wrong++;
                    char why[256];

                    ERR_error_string_n(t->err, why, sizeof(why));
                    cpt_note("job %zu operation %d (kind %d): %s (%s)", i, k, t->kind[k],
                        t->outl[k] == 0                          ? "failed"
                            : t->outl[k] != want_len[t->kind[k]] ? "wrong length"
                                                                 : "wrong output",
                        t->err != 0 ? why : "no error");
                    break;
                }
        }
    }
    /* Not more than before (a file the statistics writer had open when fds0
     * was counted may be closed now). */
    for (int tries = 0; tries < 50 && (fds1 = cpt_open_fds(0)) > fds0; tries++)
        usleep(100 * 1000);
    CPT_CHECK(abandoned > 0 && finished > 0, "%zu jobs finished, %zu abandoned at a readable fd",
        finished, abandoned);
    CPT_CHECK(wrong == 0, "every finished job has the default provider's outputs (%zu wrong)",
        wrong);
    CPT_CHECK(stale == 0,
        "no finished job's wait fd stays readable (%zu did: a signal left over for the "
        "next operation)",
        stale);
    CPT_CHECK(written == 0,
        "no abandoned job's buffers written after its fd was readable (%zu were)", written);
    CPT_CHECK(unannounced == 0,
        "every fd a wait context lists at the end of its job was announced at a "
        "pause (%zu were not)",
        (size_t)unannounced);
    CPT_CHECK(fds1 <= fds0, "open fds back to %d once the device is idle (%d)", fds0, fds1);
    if (fds1 > fds0)
        cpt_open_fds(1);
    printf("jobs %zu: finished %zu, abandoned %zu, wrong %zu, stale signals %zu, writes after "
           "abandon %zu\n",
        next, finished, abandoned, wrong, stale, written);
    /* The abandoned jobs stay paused in libcrypto's pool, as in haproxy;
     * the providers are left loaded for them. */
    (void)pc;
    (void)pd;
    return cpt_finish();
}
