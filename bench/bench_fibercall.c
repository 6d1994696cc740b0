/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How much one call into cptprov's Go half costs from a plain thread stack
 * and from an OpenSSL ASYNC job's stack (a fiber). Without the stack-bounds
 * cache in provider/golib/stackbounds.c the second costs ~42 us on the main
 * thread. A benchmark, run by `make bench`; it prints and never fails on a
 * figure. Usage: bench_fibercall --provider-path DIR
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <openssl/async.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define CALLS 20000

static EVP_CIPHER_CTX *ctx;
static double result_ns;

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* "taglen" is answered by Go (only "ivlen" and "keylen" are answered in C). */
static int calls(void *arg)
{
    size_t taglen = 0;
    OSSL_PARAM p[] = { OSSL_PARAM_size_t("taglen", &taglen), OSSL_PARAM_END };
    double start = now_ns();

    (void)arg;
    for (int i = 0; i < CALLS; i++)
        if (!EVP_CIPHER_CTX_get_params(ctx, p))
            return 0;
    result_ns = (now_ns() - start) / CALLS;
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = "build";
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    EVP_CIPHER *c;
    unsigned char key[16] = { 0 }, iv[12] = { 0 };
    ASYNC_JOB *job = NULL;
    ASYNC_WAIT_CTX *w = ASYNC_WAIT_CTX_new();
    int ret = 0;

    if (argc == 3 && strcmp(argv[1], "--provider-path") == 0)
        path = argv[2];
    OSSL_PROVIDER_set_default_search_path(lc, path);
    if (OSSL_PROVIDER_load(lc, "cptprov") == NULL
        || (c = EVP_CIPHER_fetch(lc, "AES-128-GCM", "provider=cptprov")) == NULL) {
        fprintf(stderr, "cannot load cptprov from %s\n", path);
        return 1;
    }
    ctx = EVP_CIPHER_CTX_new();
    if (!EVP_EncryptInit_ex2(ctx, c, key, iv, NULL) || !calls(NULL))
        return 1;
    for (int round = 0; round < 3; round++) {
        calls(NULL);
        printf("call into Go from a plain stack:   %6.0f ns\n", result_ns);
        if (ASYNC_start_job(&job, w, &ret, calls, NULL, 0) != ASYNC_FINISH || !ret)
            return 1;
        printf("call into Go from an ASYNC job:    %6.0f ns\n", result_ns);
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    ASYNC_WAIT_CTX_free(w);
    OSSL_LIB_CTX_free(lc);
    return 0;
}
