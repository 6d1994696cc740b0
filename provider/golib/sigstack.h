/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CPT_GO_SIGSTACK_H
#define CPT_GO_SIGSTACK_H

#include <stdint.h>

/* Gives SA_ONSTACK back to the host's handlers that lack it, at most every
 * few milliseconds; now is CLOCK_MONOTONIC in nanoseconds. */
void cpt_go_sigstack_check(int64_t now);

#endif
