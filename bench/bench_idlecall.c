/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a call into cptprov's Go half costs the whole process when the
 * calling thread was idle before it, as a server's worker is between the
 * events of a handshake (epoll_wait): the process's context switches and
 * CPU time per call (all threads: the Go runtime's own count), beyond the
 * same sleeps without the call. Back-to-back calls cost tens of
 * nanoseconds; after a sleep the runtime's scheduler (sysmon, an M woken
 * to take the P the thread left) wakes threads of its own. A benchmark,
 * run by `make bench-detail`; it prints and never fails on a figure.
 * Usage: bench_idlecall --provider-path DIR
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define ROUNDS 2000

struct usage {
    long switches;
    double cpu_us;
};

static struct usage usage_now(void)
{
    struct rusage r;

    getrusage(RUSAGE_SELF, &r);
    return (struct usage){ r.ru_nvcsw + r.ru_nivcsw,
        (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + r.ru_utime.tv_usec + r.ru_stime.tv_usec };
}

/* ROUNDS of: sleep gap_us, then calls calls into Go (a parameter Go
 * answers); the process's switches and CPU per round. */
static struct usage rounds(EVP_CIPHER_CTX *ctx, unsigned gap_us, int calls)
{
    size_t taglen = 0;
    OSSL_PARAM p[] = { OSSL_PARAM_size_t("taglen", &taglen), OSSL_PARAM_END };
    struct usage a = usage_now(), b;

    for (int i = 0; i < ROUNDS; i++) {
        if (gap_us > 0)
            usleep(gap_us);
        for (int k = 0; k < calls; k++)
            EVP_CIPHER_CTX_get_params(ctx, p);
    }
    b = usage_now();
    return (struct usage){ b.switches - a.switches, b.cpu_us - a.cpu_us };
}

int main(int argc, char **argv)
{
    static const unsigned gaps[] = { 0, 50, 200, 1000, 5000 };
    const char *path = "build";
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    EVP_CIPHER *c;
    unsigned char key[16] = { 0 }, iv[12] = { 0 };

    if (argc == 3 && strcmp(argv[1], "--provider-path") == 0)
        path = argv[2];
    OSSL_PROVIDER_set_default_search_path(lc, path);
    if (OSSL_PROVIDER_load(lc, "cptprov") == NULL
        || (c = EVP_CIPHER_fetch(lc, "AES-128-GCM", "provider=cptprov")) == NULL
        || !EVP_EncryptInit_ex2(ctx, c, key, iv, NULL)) {
        fprintf(stderr, "cannot load cptprov from %s\n", path);
        return 1;
    }
    rounds(ctx, 0, 100); /* Go started, the calling thread known to it */
    printf("calls into Go after the calling thread slept (%d rounds each; per round, beyond the "
           "sleep alone):\n",
        ROUNDS);
    printf("%10s %6s %20s %16s\n", "sleep us", "calls", "context switches", "process CPU us");
    for (size_t i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++) {
        struct usage base = rounds(ctx, gaps[i], 0);

        for (int calls = 1; calls <= 16; calls *= 16) {
            struct usage u = rounds(ctx, gaps[i], calls);

            printf("%10u %6d %20.2f %16.2f\n", gaps[i], calls,
                (double)(u.switches - base.switches) / ROUNDS, (u.cpu_us - base.cpu_us) / ROUNDS);
        }
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    OSSL_LIB_CTX_free(lc);
    return 0;
}
