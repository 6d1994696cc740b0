/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge to OpenSSL ASYNC jobs. Inside a job an operation submits its
 * instruction (a quick call into Go that never waits), then pauses here, in
 * C, with no Go frame on the job's stack: a fiber switch across a Go frame
 * kills the runtime. The device signals the job's eventfd when it is done;
 * the application sees the fd readable and resumes the job, which may also
 * happen spuriously, so the loop waits for the signal itself.
 */

#include <string.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "cptprov.h"

/* The key under which cptprov registers its fd with a wait context. */
static const char cpt_async_key[] = "cptprov";

static void notifier_cleanup(ASYNC_WAIT_CTX *ctx, const void *key, OSSL_ASYNC_FD fd, void *custom)
{
    (void)ctx;
    (void)key;
    (void)fd;
    /* The fd is closed with the last reference, possibly by the device. */
    cpt_notifier_put(custom);
}

/*
 * NULL outside a job (the operation runs synchronously). Inside one, the
 * notifier of the job's wait context, with an extra reference that belongs
 * to the operation about to be submitted.
 *
 * A new notifier is not registered with the wait context yet: that waits
 * until an operation has to pause (cptprov_async_wait). haproxy learns of a
 * wait context's fds only when a job pauses, yet deletes from its poller
 * every fd the context lists when the connection closes: an fd registered
 * by an operation that completed without pausing, on a connection that
 * never paused, was one it had never added, and haproxy aborts on that
 * (seen as "fd_tgid(fd) != 1" in ssl_sock_close once the device woke up
 * fast enough to finish handshake operations before the pause).
 */
/* async_notify: use the application's wait-context callback when it set one
 * (1, the default), or always an fd (0). Set at configuration time. */
int cptprov_async_callbacks = 1;

struct cpt_notifier *cptprov_async_begin(void)
{
    ASYNC_JOB *job = ASYNC_get_current_job();
    ASYNC_WAIT_CTX *wctx;
    struct cpt_notifier *n = NULL;
    OSSL_ASYNC_FD fd;
    void *custom = NULL;
    ASYNC_callback_fn cb = NULL;
    void *cbarg = NULL;

    if (job == NULL || (wctx = ASYNC_get_wait_ctx(job)) == NULL)
        return NULL;
    if (cptprov_async_callbacks && ASYNC_WAIT_CTX_get_callback(wctx, &cb, &cbarg) && cb != NULL) {
        /* Callback mode: a notifier of the operation's own, no fd; the
         * device calls the application's callback when it is done. */
        if ((n = calloc(1, sizeof(*n))) == NULL)
            return NULL;
        n->fd = -1;
        n->cb = cb;
        n->cbarg = cbarg;
        atomic_init(&n->refs, 1);
        ASYNC_WAIT_CTX_set_status(wctx, ASYNC_STATUS_OK);
    } else if (ASYNC_WAIT_CTX_get_fd(wctx, cpt_async_key, &fd, &custom) && custom != NULL) {
        n = custom;
    } else {
        /* Its eventfd comes with the first pause (notifier_fd): most
         * operations finish before their job would pause, and an fd made
         * for them was two system calls for nothing. */
        n = calloc(1, sizeof(*n));
        if (n == NULL)
            return NULL;
        n->fd = -1;
        /* The reference the wait context takes over on registration. */
        atomic_init(&n->refs, 1);
    }
    atomic_store_explicit(&n->state, CPT_NOTIFY_PENDING, memory_order_relaxed);
    n->rc = CPT_ERR;
    n->outl = 0;
    n->st.reason = 0;
    n->st.msg[0] = '\0';
    atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
    return n;
}

/* Gives n the eventfd the device signals once the job waits; 0 when the
 * process has none to give. */
static int notifier_fd(struct cpt_notifier *n)
{
    if (n->fd < 0)
        n->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return n->fd >= 0;
}

/* Registers n's fd with the current job's wait context before a pause. */
static int notifier_register(struct cpt_notifier *n)
{
    ASYNC_JOB *job = ASYNC_get_current_job();
    ASYNC_WAIT_CTX *wctx = job != NULL ? ASYNC_get_wait_ctx(job) : NULL;

    if (wctx == NULL
        || !ASYNC_WAIT_CTX_set_wait_fd(wctx, cpt_async_key, n->fd, n, notifier_cleanup))
        return 0;
    n->wctx = wctx;
    return 1;
}

/*
 * After the operation's outcome has been read from n: a notifier that
 * never had to be registered goes with its operation.
 */
void cptprov_async_end(struct cpt_notifier *n)
{
    if (n->wctx == NULL)
        cpt_notifier_put(n);
}

/* The operation was not submitted after all: take its reference back. */
void cptprov_async_abort(struct cpt_notifier *n)
{
    if (n != NULL) {
        cptprov_async_end(n);
        cpt_notifier_put(n);
    }
}

/*
 * Tests: CPTPROV_TEST_WAIT_DELAY_US=N sleeps a random 0..N-1 us between
 * submission and wait, as a loaded host's scheduler does to the submitting
 * thread, so that the device often finishes before the job pauses.
 */
static pthread_once_t test_delay_once = PTHREAD_ONCE_INIT;
static int test_delay_us;

static void test_delay_init(void)
{
    const char *e = getenv("CPTPROV_TEST_WAIT_DELAY_US");

    test_delay_us = e != NULL ? atoi(e) : 0;
}

static unsigned test_rand(void)
{
    static __thread unsigned x = 2463534242u;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

static int notify_done(struct cpt_notifier *n)
{
    return atomic_load_explicit(&n->state, memory_order_acquire) == CPT_NOTIFY_DONE;
}

/*
 * Pause until the device has completed the operation; returns its rc.
 *
 * An operation the device finished before this point needs no signal: it
 * never had to wait (cpt_notifier's state). One that did consumes exactly
 * its own signal from the eventfd. A count left behind would make the fd
 * readable while the NEXT operation is still in flight, and haproxy takes
 * a readable async fd of a closing connection as "the job is over" and
 * frees the SSL (ssl_async_fd_free): the device would then write into
 * freed memory. The device sets DONE, then signals: the outcome is in n
 * once DONE is seen, and the signal is certain to come.
 */
int cptprov_async_wait(struct cpt_notifier *n)
{
    struct pollfd pfd = { .fd = -1, .events = POLLIN };
    uint64_t v;
    int pending = CPT_NOTIFY_PENDING;

    pthread_once(&test_delay_once, test_delay_init);
    if (test_delay_us > 0)
        usleep((useconds_t)(test_rand() % (unsigned)test_delay_us));

    if (n->cb != NULL) {
        /* Callback mode: the application resumes the job once its callback
         * ran; a resume before that (or a job that cannot pause) waits. */
        while (!notify_done(n))
            if (!ASYNC_pause_job())
                sched_yield();
        return n->rc;
    }
    if (!notifier_fd(n)) {
        /* No fd to wait on (out of descriptors): the device does not
         * signal a PENDING notifier, so wait for DONE without one. */
        while (!notify_done(n))
            sched_yield();
        return n->rc;
    }
    pfd.fd = n->fd;

    /* Done already: nothing was signalled, and nothing is to be read. */
    if (!atomic_compare_exchange_strong_explicit(&n->state, &pending, CPT_NOTIFY_WAITING,
            memory_order_acq_rel, memory_order_acquire))
        return n->rc;
    /* The device signals from now on. Not done yet (a spurious resume,
     * too): pause. */
    while (!notify_done(n)) {
        int registered_now = 0;

        if (n->wctx == NULL)
            registered_now = notifier_register(n);
        if (n->wctx != NULL && ASYNC_pause_job())
            continue;
        /* Not pausable (pauses blocked, or the job machinery gone): block
         * on the fd. An fd registered for this pause goes again, unseen. */
        if (registered_now && ASYNC_WAIT_CTX_clear_fd(n->wctx, cpt_async_key))
            n->wctx = NULL;
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
            sched_yield();
    }
    /* Done: the device's signal follows at once; consume exactly it. */
    while (read(n->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        if (errno != EINTR && poll(&pfd, 1, -1) < 0 && errno != EINTR)
            sched_yield();
    return n->rc;
}

int cptprov_call_begin(struct cpt_call *call, struct cptprov_ctx *p, const struct cptgo_api *api,
    int async)
{
    call->prov = p;
    call->api = api;
    call->n = NULL;
    call->st = (struct cpt_status){ 0, "" };
    if (api == NULL)
        return 0;
    if (async)
        call->n = cptprov_async_begin();
    return 1;
}

int cptprov_finish(struct cpt_call *call, int rc, size_t *outl, const char *func)
{
    struct cpt_notifier *n = call->n;

    if (rc == CPT_PENDING) {
        rc = cptprov_async_wait(n);
        if (rc == CPT_OK && outl != NULL)
            *outl = n->outl;
        else if (rc != CPT_OK)
            cptprov_raise_status(call->prov, &n->st, func);
        cptprov_async_end(n);
        return rc == CPT_OK;
    }
    cptprov_async_abort(n);
    if (rc != CPT_OK) {
        cptprov_raise_status(call->prov, &call->st, func);
        return 0;
    }
    return 1;
}
