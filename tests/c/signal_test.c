/* SPDX-License-Identifier: Apache-2.0 */
/*
 * signal_test.c - the host's signal handlers, installed after the Go half
 * started and without SA_ONSTACK, never run on a goroutine's stack.
 *
 * `openssl speed` stops each test with SIGALRM, and its handler installs
 * itself again with signal(), which sets no SA_ONSTACK. Go's runtime adds
 * SA_ONSTACK to the handlers it finds when it starts, not to later ones. A
 * handler without it runs on whatever stack the thread is on; on a Go
 * thread that is a goroutine stack of a few KiB, which the kernel's signal
 * frame (some 3 KiB with AVX-512 state) overruns into the stacks and
 * objects next to it: `openssl speed -async_jobs 16 rsa2048` on OpenSSL 3.5
 * died with "found pointer to free object" and "unexpected return pc".
 *
 * Here, after the first operation has started the Go half, the host
 * installs a SIGUSR1 handler with sigaction() without SA_ONSTACK and a
 * SIGALRM handler with signal() that installs itself again each time, as
 * openssl speed's does, on a timer every 250 ms. Operations go on until
 * cptprov has given SA_ONSTACK back to both (sigstack.c: at most 100 ms
 * after a change, checked here); then, for --seconds, a thread sends
 * SIGUSR1 to the process every 50 us while ASYNC jobs and synchronous
 * calls sign with ECDSA P-256 and RSA-2048, encrypt and decrypt with RSA
 * and derive X25519 secrets on the device, each result checked with the
 * default provider. The process must live, the handlers must have run, and
 * every thread the Go half started must block asynchronous signals (/proc:
 * SigBlk), so that the kernel hands them to the host's own threads, as
 * without cptprov.
 *
 * Usage: signal_test [--provider-path DIR] [--seconds N]
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "common.h"

#define NJOBS 16

static cpt_env g_env;
static EVP_PKEY *g_ec, *g_rsa, *g_x, *g_xpeer;
static atomic_long g_alarms, g_usr1;
static atomic_int g_stop;
static unsigned char g_msg[32];
static unsigned char g_secret[32];

static void on_alarm(int sig)
{
    /* As openssl speed does: signal() again, without SA_ONSTACK. */
    signal(sig, on_alarm);
    atomic_fetch_add(&g_alarms, 1);
}

static void on_usr1(int sig)
{
    (void)sig;
    atomic_fetch_add(&g_usr1, 1);
}

static void *sender(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_stop)) {
        kill(getpid(), SIGUSR1);
        usleep(50);
    }
    return NULL;
}

/* One operation of kind k through cptprov; 1 when its result checks. */
static int one_op(size_t k)
{
    unsigned char out[512], back[512];
    size_t n = sizeof(out), m = sizeof(back);
    EVP_PKEY_CTX *c = NULL, *v = NULL;
    int ok = 0;

    switch (k % 4) {
    case 0: /* ECDSA P-256 sign, verified by the default provider */
    case 1: /* RSA-2048 PKCS#1 sign, likewise */ {
        EVP_PKEY *key = k % 4 == 0 ? g_ec : g_rsa;

        c = EVP_PKEY_CTX_new_from_pkey(g_env.libctx, key, g_env.propq);
        v = EVP_PKEY_CTX_new_from_pkey(g_env.ref_libctx, key, "provider=default");
        ok = c != NULL && v != NULL && EVP_PKEY_sign_init(c) > 0
            && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) > 0
            && EVP_PKEY_sign(c, out, &n, g_msg, sizeof(g_msg)) > 0 && EVP_PKEY_verify_init(v) > 0
            && EVP_PKEY_CTX_set_signature_md(v, EVP_sha256()) > 0
            && EVP_PKEY_verify(v, out, n, g_msg, sizeof(g_msg)) == 1;
        break;
    }
    case 2: /* RSA-2048 encrypt, then decrypt, both on the device */
        c = EVP_PKEY_CTX_new_from_pkey(g_env.libctx, g_rsa, g_env.propq);
        v = EVP_PKEY_CTX_new_from_pkey(g_env.libctx, g_rsa, g_env.propq);
        ok = c != NULL && v != NULL && EVP_PKEY_encrypt_init(c) > 0
            && EVP_PKEY_encrypt(c, out, &n, g_msg, sizeof(g_msg)) > 0
            && EVP_PKEY_decrypt_init(v) > 0 && EVP_PKEY_decrypt(v, back, &m, out, n) > 0
            && m == sizeof(g_msg) && memcmp(back, g_msg, m) == 0;
        break;
    default: /* X25519 */
        c = EVP_PKEY_CTX_new_from_pkey(g_env.libctx, g_x, g_env.propq);
        n = sizeof(out);
        ok = c != NULL && EVP_PKEY_derive_init(c) > 0 && EVP_PKEY_derive_set_peer(c, g_xpeer) > 0
            && EVP_PKEY_derive(c, out, &n) > 0 && n == sizeof(g_secret)
            && memcmp(out, g_secret, n) == 0;
    }
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_CTX_free(v);
    return ok;
}

static int job_fn(void *arg)
{
    return one_op((size_t)(intptr_t)arg);
}

/* Whether sig's handler has SA_ONSTACK. */
static int onstack(int sig)
{
    struct sigaction sa;

    return sigaction(sig, NULL, &sa) == 0 && (sa.sa_flags & SA_ONSTACK) != 0;
}

/* Whether thread tid blocks SIGALRM and SIGUSR1 (-1: unreadable). */
static int blocks_async(pid_t tid)
{
    char path[64], line[256];
    unsigned long long blk = 0;
    int found = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "SigBlk: %llx", &blk) == 1)
            found = 1;
    fclose(f);
    if (!found)
        return -1;
    return (blk >> (SIGALRM - 1) & 1) && (blk >> (SIGUSR1 - 1) & 1);
}

int main(int argc, char **argv)
{
    cpt_opts o;
    const char *secs_arg = NULL;
    double seconds, end;
    pthread_t snd;
    struct itimerval it = { { 0, 250000 }, { 0, 250000 } };
    struct sigaction sa;
    size_t rounds = 0, ops = 0, wrong = 0, paused = 0, go_threads = 0, open_threads = 0;
    pid_t me = (pid_t)syscall(SYS_gettid);
    DIR *d;
    struct dirent *e;

    if (!cpt_parse_bare_args(&o, argc, argv, (const char *const[]){ "--seconds" }, &secs_arg, 1)) {
        fprintf(stderr, "usage: %s [common options] [--seconds N]\n", argv[0]);
        return 2;
    }
    seconds = secs_arg != NULL ? atof(secs_arg) : 4;
    if (!cpt_env_init(&g_env, &o))
        return 1;
    memset(g_msg, 0x3c, sizeof(g_msg));
    g_ec = EVP_PKEY_Q_keygen(g_env.ref_libctx, NULL, "EC", "P-256");
    g_rsa = EVP_PKEY_Q_keygen(g_env.ref_libctx, NULL, "RSA", (size_t)2048);
    g_x = EVP_PKEY_Q_keygen(g_env.ref_libctx, NULL, "X25519");
    g_xpeer = EVP_PKEY_Q_keygen(g_env.ref_libctx, NULL, "X25519");
    {
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(g_env.ref_libctx, g_x, "provider=default");
        size_t n = sizeof(g_secret);

        CPT_CHECK(g_ec != NULL && g_rsa != NULL && g_xpeer != NULL && c != NULL
                && EVP_PKEY_derive_init(c) > 0 && EVP_PKEY_derive_set_peer(c, g_xpeer) > 0
                && EVP_PKEY_derive(c, g_secret, &n) > 0 && n == sizeof(g_secret),
            "keys and the default provider's X25519 secret");
        EVP_PKEY_CTX_free(c);
    }
    /* The first operation starts the Go half; the handlers come after. */
    CPT_CHECK(one_op(0), "a first signature (the Go half starts)");
    signal(SIGALRM, on_alarm);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    CPT_CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "a SIGUSR1 handler without SA_ONSTACK");
    CPT_CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "SIGALRM every 250 ms");
    /* The host's handlers get SA_ONSTACK back while it works. */
    for (end = cpt_now() + 3; cpt_now() < end && !(onstack(SIGALRM) && onstack(SIGUSR1));)
        if (!one_op(rounds++)) {
            CPT_CHECK(0, "an operation before the signals");
            break;
        }
    CPT_CHECK(onstack(SIGALRM) && onstack(SIGUSR1),
        "SA_ONSTACK is back on both handlers after %zu operations", rounds);
    rounds = 0;
    CPT_CHECK(pthread_create(&snd, NULL, sender, NULL) == 0, "a thread sending SIGUSR1");
    for (end = cpt_now() + seconds; cpt_now() < end; rounds++) {
        cpt_jobs j;
        void *args[NJOBS];
        int results[NJOBS];
        unsigned char p[NJOBS];

        for (int i = 0; i < NJOBS; i++)
            args[i] = (void *)(intptr_t)(i + (int)rounds);
        memset(&j, 0, sizeof(j));
        j.fn = job_fn;
        j.args = args;
        j.ntasks = NJOBS;
        j.max_inflight = NJOBS;
        j.seed = rounds;
        j.timeout_s = 60;
        j.results = results;
        j.paused = p;
        if (!cpt_jobs_run(&j)) {
            CPT_CHECK(0, "round %zu's jobs ran", rounds);
            break;
        }
        paused += j.tasks_paused;
        for (int i = 0; i < NJOBS; i++) {
            ops++;
            wrong += results[i] != 1;
            /* and one synchronous call of the same kind */
            ops++;
            wrong += !one_op((size_t)i + rounds);
        }
    }
    /* Threads: this one, the sender, and those the Go half started. */
    if ((d = opendir("/proc/self/task")) != NULL) {
        while ((e = readdir(d)) != NULL) {
            pid_t tid = (pid_t)atoi(e->d_name);

            if (tid <= 0 || tid == me)
                continue;
            if (blocks_async(tid) == 1)
                go_threads++;
            else
                open_threads++;
        }
        closedir(d);
    }
    atomic_store(&g_stop, 1);
    pthread_join(snd, NULL);
    it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &it, NULL);
    CPT_CHECK(wrong == 0, "every result checks (%zu of %zu wrong)", wrong, ops);
    CPT_CHECK(paused > 0, "jobs paused (%zu)", paused);
    CPT_CHECK(atomic_load(&g_alarms) >= (long)seconds && atomic_load(&g_usr1) > 1000,
        "the handlers ran (%ld SIGALRM, %ld SIGUSR1)", atomic_load(&g_alarms),
        atomic_load(&g_usr1));
    /* The sender is the one thread besides this one that may take them. */
    CPT_CHECK(go_threads > 0 && open_threads <= 1,
        "the Go half's threads block asynchronous signals (%zu do, %zu other threads)", go_threads,
        open_threads);
    printf("signal_test: %zu rounds, %zu operations, %ld SIGALRM, %ld SIGUSR1\n", rounds, ops,
        atomic_load(&g_alarms), atomic_load(&g_usr1));
    EVP_PKEY_free(g_ec);
    EVP_PKEY_free(g_rsa);
    EVP_PKEY_free(g_x);
    EVP_PKEY_free(g_xpeer);
    cpt_env_free(&g_env);
    return cpt_finish();
}
