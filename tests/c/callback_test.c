/* SPDX-License-Identifier: Apache-2.0 */
/*
 * callback_test.c - ASYNC jobs notified through the wait context's callback
 * (OpenSSL's callback mode, ASYNC_WAIT_CTX_set_callback) instead of an fd.
 *
 * Jobs of RSA-2048 signatures and AES-256-GCM over 40 KiB (both on the
 * device) run with a callback set on their wait contexts; the driver
 * resumes a paused job only once its callback has run. With --expect
 * callback (async_notify = auto, the default) every operation's completion
 * must come through the callback, the job's wait context must hold no fd
 * and report ASYNC_STATUS_OK; with --expect fd (CPTPROV_ASYNC_NOTIFY=fd)
 * the callback must never run and the fd must carry the completion. Every
 * output must equal the default provider's.
 *
 * Usage: callback_test [--provider-path DIR] --expect callback|fd
 */
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/async.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "common.h"

#define NTASKS 48
#define BIG 40960

static cpt_env g_env;
static EVP_PKEY *g_rsa;
static unsigned char g_data[BIG], g_key[32], g_iv[12];
static unsigned char g_want[2][BIG + 16];
static size_t g_want_len[2];

struct task {
    int kind;
    atomic_int ready; /* the callback ran since the last resume */
    atomic_int callbacks;
    size_t outl;
    unsigned char out[BIG + 16];
};

static int on_done(void *arg)
{
    struct task *t = arg;

    atomic_fetch_add(&t->callbacks, 1);
    atomic_store(&t->ready, 1);
    return 1;
}

static size_t run_op(int kind, OSSL_LIB_CTX *lc, const char *pq, unsigned char *out)
{
    size_t n = 0;

    if (kind == 0) {
        EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lc, g_rsa, pq);

        n = BIG;
        if (pc == NULL || EVP_PKEY_sign_init(pc) <= 0
            || EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PADDING) <= 0
            || EVP_PKEY_CTX_set_signature_md(pc, EVP_sha256()) <= 0
            || EVP_PKEY_sign(pc, out, &n, g_data, 32) <= 0)
            n = 0;
        EVP_PKEY_CTX_free(pc);
    } else {
        EVP_CIPHER *c = EVP_CIPHER_fetch(lc, "AES-256-GCM", pq);
        EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
        int l1 = 0, l2 = 0;

        if (c != NULL && cc != NULL && EVP_EncryptInit_ex2(cc, c, g_key, g_iv, NULL)
            && EVP_EncryptUpdate(cc, out, &l1, g_data, BIG)
            && EVP_EncryptFinal_ex(cc, out + l1, &l2)
            && EVP_CIPHER_CTX_ctrl(cc, EVP_CTRL_AEAD_GET_TAG, 16, out + l1 + l2) > 0)
            n = (size_t)(l1 + l2 + 16);
        EVP_CIPHER_CTX_free(cc);
        EVP_CIPHER_free(c);
    }
    return n;
}

static int job_fn(void *arg)
{
    struct task *t = *(struct task **)arg;

    t->outl = run_op(t->kind, g_env.libctx, g_env.propq, t->out);
    return 1;
}

int main(int argc, char **argv)
{
    cpt_opts o;
    const char *expect = NULL;
    struct task *tasks;
    size_t wrong = 0, nofd_ok = 0, pauses = 0, fd_waits = 0, callbacks = 0, status_ok = 0;
    int hung = 0;

    if (!cpt_parse_bare_args(&o, argc, argv, (const char *const[]){ "--expect" }, &expect, 1))
        expect = NULL;
    if (expect == NULL || (strcmp(expect, "callback") != 0 && strcmp(expect, "fd") != 0)) {
        fprintf(stderr, "usage: %s [common options] --expect callback|fd\n", argv[0]);
        return 2;
    }
    if (!cpt_env_init(&g_env, &o))
        return 1;
    g_rsa = EVP_PKEY_Q_keygen(g_env.ref_libctx, NULL, "RSA", (size_t)2048);
    memset(g_data, 0x5a, sizeof(g_data));
    memset(g_key, 7, sizeof(g_key));
    memset(g_iv, 9, sizeof(g_iv));
    for (int k = 0; k < 2; k++)
        CPT_CHECK(g_rsa != NULL
                && (g_want_len[k] = run_op(k, g_env.ref_libctx, "provider=default", g_want[k])) > 0,
            "the default provider's output %d", k);
    tasks = calloc(NTASKS, sizeof(*tasks));
    for (int i = 0; i < NTASKS && !hung; i++) {
        struct task *t = &tasks[i];
        ASYNC_JOB *job = NULL;
        ASYNC_WAIT_CTX *w = ASYNC_WAIT_CTX_new();
        int ret, rc;

        t->kind = i % 2;
        ASYNC_WAIT_CTX_set_callback(w, on_done, t);
        for (;;) {
            atomic_store(&t->ready, 0);
            rc = ASYNC_start_job(&job, w, &ret, job_fn, &t, sizeof(t));
            if (rc != ASYNC_PAUSE)
                break;
            pauses++;
            if (ASYNC_WAIT_CTX_get_status(w) == ASYNC_STATUS_OK)
                status_ok++;
            {
                OSSL_ASYNC_FD fds[4];
                size_t nfds = 0;

                ASYNC_WAIT_CTX_get_all_fds(w, NULL, &nfds);
                if (nfds == 0)
                    nofd_ok++;
                if (strcmp(expect, "fd") == 0 && nfds > 0 && nfds <= 4
                    && ASYNC_WAIT_CTX_get_all_fds(w, fds, &nfds)) {
                    struct pollfd pfd = { .fd = fds[0], .events = POLLIN };

                    if (poll(&pfd, 1, 20000) == 1)
                        fd_waits++;
                    else
                        hung = 1;
                    continue;
                }
            }
            /* Callback mode: resume once the callback ran. */
            for (double end = cpt_now() + 20; !atomic_load(&t->ready); usleep(20))
                if (cpt_now() > end) {
                    hung = 1;
                    break;
                }
            if (hung)
                break;
        }
        CPT_CHECK(rc == ASYNC_FINISH, "job %d finished (%d)", i, rc);
        if (t->outl != g_want_len[t->kind] || memcmp(t->out, g_want[t->kind], t->outl) != 0)
            wrong++;
        callbacks += (size_t)atomic_load(&t->callbacks);
        ASYNC_WAIT_CTX_free(w);
    }
    CPT_CHECK(!hung, "no job waited forever");
    CPT_CHECK(wrong == 0, "every output is the default provider's (%zu wrong)", wrong);
    CPT_CHECK(pauses > 0, "jobs paused (%zu times)", pauses);
    if (strcmp(expect, "callback") == 0) {
        CPT_CHECK(callbacks >= pauses && callbacks > 0,
            "the callback carried the completions (%zu callbacks, %zu "
            "pauses)",
            callbacks, pauses);
        CPT_CHECK(nofd_ok == pauses, "no fd in a paused job's wait context (%zu of %zu)", nofd_ok,
            pauses);
        CPT_CHECK(status_ok == pauses, "ASYNC_STATUS_OK at every pause (%zu of %zu)", status_ok,
            pauses);
    } else {
        CPT_CHECK(callbacks == 0, "with async_notify = fd the callback never runs (%zu)",
            callbacks);
        CPT_CHECK(fd_waits == pauses, "every pause ended by the fd (%zu of %zu)", fd_waits, pauses);
    }
    printf("callback_test (%s): %d jobs, %zu pauses, %zu callbacks, %zu fd waits\n", expect, NTASKS,
        pauses, callbacks, fd_waits);
    free(tasks);
    EVP_PKEY_free(g_rsa);
    cpt_env_free(&g_env);
    return cpt_finish();
}
