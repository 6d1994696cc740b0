/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A host thread's passes through Go's scheduler (provider/golib/yield.c).
 * Once the runtime's monitor runs as SCHED_BATCH, a synchronous caller must
 * not yield at the end of its calls into Go, and a caller inside an ASYNC
 * job must still yield every 5 ms. A yield hands the caller's P to another
 * of Go's threads, which wakes, gives it back and sleeps again: a voluntary
 * context switch or more on a thread that is not the caller's. So the
 * harness calls into Go about every 100 µs for 300 ms (a key comparison,
 * which never reaches the device, then C work), once outside any job and
 * once inside one, and counts the voluntary switches of the process's
 * other threads but the monitor (whose own polls vary): outside, a few
 * (timers, the statistics); inside, about two per 5 ms. With yields in
 * both (the build before), the first count is as high as the second.
 * Usage: yield_test --provider-path DIR
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <openssl/async.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define RUN_NS 300000000LL /* a phase */
#define STEP_NS 100000LL /* C work between two calls into Go */
#define SYNC_MAX 30 /* other threads' switches allowed outside a job */
#define JOB_MIN 45 /* and needed inside one (60 yields, about 2 each) */

static int passed, failed;
static EVP_PKEY *ka, *kb;

static long long now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void check(int ok, const char *what, long long v)
{
    printf("%s %s (%lld)\n", ok ? "ok  " : "FAIL", what, v);
    if (ok)
        passed++;
    else
        failed++;
}

/*
 * The voluntary context switches of this process's threads but the calling
 * one and the monitor (the SCHED_BATCH one, whose polls are its own), from
 * /proc/self/task/TID/stat's policy (field 41) and status.
 */
static long long other_switches(int *batch_seen)
{
    char path[300], buf[1024];
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    long long sum = 0;
    pid_t self = (pid_t)syscall(SYS_gettid);

    *batch_seen = 0;
    while (d != NULL && (e = readdir(d)) != NULL) {
        FILE *f;
        char *p;
        int field = 2, batch = 0;

        if (e->d_name[0] == '.' || atoi(e->d_name) == self)
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL) {
            for (p++; *p != '\0' && field < 41; p++)
                if (*p == ' ')
                    field++;
            batch = field == 41 && atoi(p) == 3;
        }
        fclose(f);
        if (batch) {
            *batch_seen = 1;
            continue;
        }
        snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        while (fgets(buf, sizeof(buf), f) != NULL)
            if (strncmp(buf, "voluntary_ctxt_switches:", 24) == 0)
                sum += atoll(buf + 24);
        fclose(f);
    }
    if (d != NULL)
        closedir(d);
    return sum;
}

/* Calls into Go about every STEP_NS for RUN_NS; the calls made, or -1 when
 * a comparison gave a wrong answer. */
static int calls(void *arg)
{
    long long end = now_ns() + RUN_NS;
    int n = 0;

    (void)arg;
    while (now_ns() < end) {
        long long next = now_ns() + STEP_NS;

        if (EVP_PKEY_eq(ka, kb) != 0 || EVP_PKEY_eq(ka, ka) != 1)
            return -1;
        n++;
        while (now_ns() < next)
            ;
    }
    return n;
}

static EVP_PKEY *keygen(OSSL_LIB_CTX *lc)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc, "X25519", "provider=cptprov");
    EVP_PKEY *k = NULL;

    if (c == NULL || EVP_PKEY_keygen_init(c) <= 0 || EVP_PKEY_keygen(c, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(c);
    return k;
}

static int job_calls;

/* ASYNC_start_job hands the function a copy of its arguments: the result
 * goes to job_calls. */
static int job_fn(void *arg)
{
    job_calls = calls(arg);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc == 3 && strcmp(argv[1], "--provider-path") == 0 ? argv[2] : "build";
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov, *dflt;
    ASYNC_JOB *job = NULL;
    ASYNC_WAIT_CTX *wctx = ASYNC_WAIT_CTX_new();
    struct timespec ms = { 0, 1000000 };
    long long v0, t;
    int n = 0, ret = 0, batch = 0;

    OSSL_PROVIDER_set_default_search_path(lc, path);
    if ((prov = OSSL_PROVIDER_load(lc, "cptprov")) == NULL
        || (dflt = OSSL_PROVIDER_load(lc, "default")) == NULL) {
        printf("FAIL cannot load cptprov from %s\n", path);
        return 1;
    }
    if ((ka = keygen(lc)) == NULL || (kb = keygen(lc)) == NULL) {
        printf("FAIL X25519 key generation through cptprov\n");
        return 1;
    }
    /* The monitor is made SCHED_BATCH once found sleeping, which it does
     * while a thread holds a P: keep calling into Go until then. */
    for (t = now_ns() + 5000000000LL; !batch && now_ns() < t;) {
        EVP_PKEY_eq(ka, kb);
        nanosleep(&ms, NULL);
        other_switches(&batch);
    }
    check(batch, "the Go runtime's monitor runs as SCHED_BATCH", batch);
    if (batch) {
        v0 = other_switches(&batch);
        n = calls(NULL);
        check(n > 0, "synchronous key comparisons through cptprov", n);
        t = other_switches(&batch) - v0;
        check(t >= 0 && t <= SYNC_MAX,
            "a synchronous caller does not yield: other threads' voluntary switches", t);

        v0 = other_switches(&batch);
        if (ASYNC_start_job(&job, wctx, &ret, job_fn, NULL, 0) != ASYNC_FINISH || ret != 1)
            job_calls = -1;
        n = job_calls;
        check(n > 0, "the same comparisons in an ASYNC job", n);
        t = other_switches(&batch) - v0;
        check(t >= JOB_MIN, "a caller in an ASYNC job yields: other threads' voluntary switches",
            t);
    }
    EVP_PKEY_free(ka);
    EVP_PKEY_free(kb);
    ASYNC_WAIT_CTX_free(wctx);
    OSSL_PROVIDER_unload(prov);
    OSSL_PROVIDER_unload(dflt);
    OSSL_LIB_CTX_free(lc);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
