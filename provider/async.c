/*
 * The bridge to OpenSSL ASYNC jobs. Inside a job an operation submits its
 * instruction (a quick call into Go that never waits), then pauses here, in
 * C, with no Go frame on the job's stack: a fiber switch across a Go frame
 * kills the runtime. The device signals the job's eventfd when it is done;
 * the application sees the fd readable and resumes the job, which may also
 * happen spuriously, so the loop checks the completion flag.
 */

#include <string.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "cptprov.h"

/* The key under which cptprov registers its fd with a wait context. */
static const char cpt_async_key[] = "cptprov";

static void notifier_cleanup(ASYNC_WAIT_CTX *ctx, const void *key, OSSL_ASYNC_FD fd,
    void *custom)
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
 */
struct cpt_notifier *cptprov_async_begin(void)
{
    ASYNC_JOB *job = ASYNC_get_current_job();
    ASYNC_WAIT_CTX *wctx;
    struct cpt_notifier *n = NULL;
    OSSL_ASYNC_FD fd;
    void *custom = NULL;

    if (job == NULL || (wctx = ASYNC_get_wait_ctx(job)) == NULL)
        return NULL;
    if (ASYNC_WAIT_CTX_get_fd(wctx, cpt_async_key, &fd, &custom) && custom != NULL) {
        n = custom;
    } else {
        n = calloc(1, sizeof(*n));
        if (n == NULL)
            return NULL;
        n->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (n->fd < 0) {
            free(n);
            return NULL;
        }
        atomic_init(&n->refs, 1); /* the wait context's reference */
        if (!ASYNC_WAIT_CTX_set_wait_fd(wctx, cpt_async_key, n->fd, n, notifier_cleanup)) {
            close(n->fd);
            free(n);
            return NULL;
        }
    }
    atomic_store_explicit(&n->done, 0, memory_order_relaxed);
    n->rc = CPT_ERR;
    n->outl = 0;
    n->st.reason = 0;
    n->st.msg[0] = '\0';
    atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
    return n;
}

/* The operation was not submitted after all: take its reference back. */
void cptprov_async_abort(struct cpt_notifier *n)
{
    if (n != NULL)
        cpt_notifier_put(n);
}

/* Pause until the device has completed the operation; returns its rc. */
int cptprov_async_wait(struct cpt_notifier *n)
{
    uint64_t v;

    while (!atomic_load_explicit(&n->done, memory_order_acquire)) {
        if (!ASYNC_pause_job())
            break;
        /* Drain the count that woke us; the flag says whether we are done. */
        if (read(n->fd, &v, sizeof(v)) < 0) {
            /* EAGAIN: a spurious resume. */
        }
    }
    while (!atomic_load_explicit(&n->done, memory_order_acquire))
        sched_yield(); /* pausing failed: the job machinery is gone */
    return n->rc;
}
