/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host's signal handlers keep SA_ONSTACK. A handler installed without
 * it runs on whatever stack the thread is on when the signal comes; a host
 * thread that is running Go code then is on a goroutine stack, which the
 * kernel's signal frame (some 3 KiB with the AVX-512 state) can overrun into
 * the stacks and objects next to it. Go's runtime adds SA_ONSTACK to the
 * handlers it finds when it starts, but not to those installed later:
 * `openssl speed` installs its SIGALRM handler again with signal() each
 * time it fires, and OpenSSL 3.5's `-async_jobs 16 rsa2048` died of it.
 * (The runtime's own threads block asynchronous signals: loader.c.)
 *
 * So a host thread leaving Go looks at the handlers again, at most every
 * CHECK_EVERY_NS in the process, and gives SA_ONSTACK back to one that lost
 * it; the thread has an alternate signal stack, Go's, from its first call.
 * What this cannot cover: a handler that loses SA_ONSTACK again within
 * that time and fires meanwhile (one installing itself with signal() on a
 * timer faster than the check). A handler changed between the two
 * sigaction calls by another thread of the host would be set back: the
 * runtime's own start does the same, and hosts install their handlers at
 * start.
 */
#define _GNU_SOURCE /* struct sigaction, SA_ONSTACK */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include "sigstack.h"

/* A check reads every handler, a system call each (about a microsecond in
 * the VMs measured here): every 100 ms that is under 0.1% of a CPU. */
#define CHECK_EVERY_NS 100000000

static _Atomic int64_t last_check;

void cpt_go_sigstack_check(int64_t now)
{
    int64_t prev = atomic_load_explicit(&last_check, memory_order_relaxed);

    if (now - prev < CHECK_EVERY_NS
        || !atomic_compare_exchange_strong_explicit(&last_check, &prev, now, memory_order_relaxed,
            memory_order_relaxed))
        return;
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;

        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) != 0)
            continue; /* glibc's own signals (32, 33) are refused here too */
        if ((sa.sa_flags & SA_ONSTACK) != 0
            || ((sa.sa_flags & SA_SIGINFO) == 0
                && (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN)))
            continue;
        sa.sa_flags |= SA_ONSTACK;
        sigaction(sig, &sa, NULL);
    }
}
