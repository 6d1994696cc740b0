/* SPDX-License-Identifier: Apache-2.0 */
/* Errors reach the application through the core's error upcalls. */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cptprov.h"

static OSSL_FUNC_core_new_error_fn *c_new_error;
static OSSL_FUNC_core_set_error_debug_fn *c_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *c_vset_error;

const OSSL_ITEM cptprov_reason_strings[] = {
#define CPT_REASON(ID, num, string) { CPT_R_##ID, (string) },
#define CPT_COMMON_REASON CPT_REASON
#define CPT_FATAL_REASON CPT_REASON
#include "reasons.def"
    { 0, NULL }
};

int cptprov_errors_init(const OSSL_DISPATCH *in)
{
    for (; in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            c_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            c_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            c_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        }
    }
    return c_new_error != NULL && c_set_error_debug != NULL && c_vset_error != NULL;
}

void cptprov_raise(const struct cptprov_ctx *p, int reason, const char *file, int line,
    const char *func, const char *fmt, ...)
{
    va_list ap;

    if (p == NULL || c_new_error == NULL)
        return;
    c_new_error(p->handle);
    c_set_error_debug(p->handle, file, line, func);
    va_start(ap, fmt);
    c_vset_error(p->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

/*
 * The live provider contexts, for the calls OpenSSL makes without one (an
 * algorithm's static get_params): any of them raises cptprov's reasons.
 */
#define LIVE_MAX 16
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct cptprov_ctx *live[LIVE_MAX];

void cptprov_errors_register(const struct cptprov_ctx *p, int add)
{
    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < LIVE_MAX; i++) {
        if (add ? live[i] == NULL : live[i] == p) {
            live[i] = add ? p : NULL;
            break;
        }
    }
    pthread_mutex_unlock(&live_lock);
}

void cptprov_raise_any(int reason, const char *file, int line, const char *func, const char *fmt,
    ...)
{
    const struct cptprov_ctx *p = NULL;
    va_list ap;

    pthread_mutex_lock(&live_lock);
    for (int i = 0; i < LIVE_MAX && p == NULL; i++)
        p = live[i];
    if (p != NULL && c_new_error != NULL) {
        c_new_error(p->handle);
        c_set_error_debug(p->handle, file, line, func);
        va_start(ap, fmt);
        c_vset_error(p->handle, (uint32_t)reason, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&live_lock);
}

/*
 * The status's message may carry further errors, one per line as
 * "reason<TAB>message" (the Go side's Error.Next): each is raised after
 * the first, in order, as OpenSSL's key checks raise one error per rule.
 */
void cptprov_raise_status(const struct cptprov_ctx *p, const struct cpt_status *st,
    const char *func)
{
    int reason = st->reason != 0 ? st->reason : CPT_R_INTERNAL;
    const char *m = st->msg, *nl;

    if (*m == '\0') {
        cptprov_raise(p, reason, "libcptgo", 0, func, "%s", "operation failed");
        return;
    }
    for (;;) {
        nl = memchr(m, '\n', strnlen(m, sizeof(st->msg) - (size_t)(m - st->msg)));
        cptprov_raise(p, reason, "libcptgo", 0, func, "%.*s",
            (int)(nl != NULL ? nl - m : (ptrdiff_t)strlen(m)), m);
        if (nl == NULL)
            return;
        m = nl + 1;
        reason = (int)strtol(m, (char **)&nl, 10);
        if (*nl != '\t' || reason == 0)
            return;
        m = nl + 1;
    }
}
