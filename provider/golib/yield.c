/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether the calling host thread should pass through Go's scheduler before
 * it returns to C (see cptdrv/sched.go): a thread that calls into Go often
 * keeps its P between the calls, and the P's scheduling tick only moves
 * when the thread yields. After a gap of 10 ms the runtime has taken the P
 * back already. every_ns is cptdrv.YieldEvery, as the engines use it.
 *
 * With sync_exempt (the monitor runs as SCHED_BATCH: cptdrv.MonitorBatch),
 * a thread outside an ASYNC job does not yield: a synchronous caller
 * executes its own instructions, and the monitor's preemption requests and
 * P takes cost it less than the yields did. A thread in a job (haproxy's
 * ssl-mode-async) still yields: its operations run on the engines, and
 * without the yields its server spent more CPU per handshake
 * (docs/performance.md). The same clock reading paces the check of the
 * host's signal handlers (sigstack.c).
 */
#include <stdint.h>
#include <time.h>
#include <openssl/async.h>
#include "sigstack.h"

/* the runtime's 10 ms, after which it takes an unused P back */
#define TAKEN_AFTER_NS 10000000

static __thread int64_t last_call, last_yield;

int cpt_go_yield_due(int64_t every_ns, int sync_exempt)
{
    struct timespec ts;
    int64_t now, prev;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    cpt_go_sigstack_check(now);
    prev = last_call;
    last_call = now;
    if (sync_exempt && ASYNC_get_current_job() == NULL)
        return 0;
    if (now - prev >= TAKEN_AFTER_NS) {
        last_yield = now;
        return 0;
    }
    if (now - last_yield >= every_ns) {
        last_yield = now;
        return 1;
    }
    return 0;
}
