/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C helpers of the key exports (keys.go), here because a Go file with
 * //export may only declare C in its preamble (cgo copies it into
 * libcptgo.h, which cptprov.so compiles against).
 */
#include <pthread.h>
#include <string.h>
#include <openssl/core.h>

/* Parameter names exported keys use, in static storage: OSSL_PARAM_dup
 * (EVP_PKEY_todata) keeps pointers to the names of the arrays it copies. */
static char cpt_names[64][32];
static int cpt_nnames;
static pthread_mutex_t cpt_names_mu = PTHREAD_MUTEX_INITIALIZER;

__attribute__((visibility("hidden"))) const char *cpt_intern(const char *name)
{
    const char *r = NULL;

    pthread_mutex_lock(&cpt_names_mu);
    for (int i = 0; i < cpt_nnames && r == NULL; i++)
        if (strcmp(cpt_names[i], name) == 0)
            r = cpt_names[i];
    if (r == NULL && cpt_nnames < 64 && strlen(name) < sizeof(cpt_names[0])) {
        strcpy(cpt_names[cpt_nnames], name);
        r = cpt_names[cpt_nnames++];
    }
    pthread_mutex_unlock(&cpt_names_mu);
    return r;
}

__attribute__((visibility("hidden"))) int cpt_call_export_cb(void *cb, OSSL_PARAM *params,
    void *arg)
{
    return ((OSSL_CALLBACK *)cb)(params, arg);
}

/* Zeroing the libcrypto way without linking libcrypto into the Go half. */
__attribute__((visibility("hidden"))) void cpt_cleanse(void *p, size_t n)
{
    volatile unsigned char *v = p;

    while (n-- > 0)
        *v++ = 0;
}
