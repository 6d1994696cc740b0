/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_stitched - TLS record throughput of the stitched ciphers, which
 * openssl speed does not measure (its -evp loop runs them without an AAD:
 * plain CBC). Seals records in place as libssl does ("tlsaad", then one
 * update of payload, MAC and padding) and opens them (TLS 1.2, explicit
 * IV), through four library contexts in one process: the default provider,
 * cptprov as configured (records below cpu_threshold_aes_cbc_hmac on the
 * CPU path), cptprov with every record on the device
 * (CPTPROV_CPU_THRESHOLD=0) and with every record on the CPU path. Median
 * of the runs, interleaved; prints a markdown table.
 *
 *   bench_stitched [--provider-path DIR] [--seconds S] [--runs N] [--sizes "64 1024 16384"] [alg...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

enum { DEFAULT, CPTPROV, DEVICE, CPU, NSIDES };
static const char *const side_threshold[NSIDES] = { NULL, NULL, "0", "1073741824" };
static OSSL_LIB_CTX *g_lc[NSIDES];
static double g_secs = 0.5;

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static EVP_CIPHER_CTX *keyed(EVP_CIPHER *c, int enc)
{
    static const unsigned char key[32] = { 1 }, iv[16] = { 2 }, mk[32] = { 3 };
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int v = 0x0303;
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &v),
        OSSL_PARAM_END };

    if (!EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_MAC_KEY, 20, (void *)mk) <= 0
        || !EVP_CIPHER_CTX_set_params(ctx, p)) {
        ERR_print_errors_fp(stderr);
        exit(1);
    }
    return ctx;
}

/* Seals one record of n payload bytes (after a 16-byte explicit IV) in buf;
 * returns its length. */
static int seal1(EVP_CIPHER_CTX *ctx, unsigned char *buf, size_t n)
{
    unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3 };
    int pad, outl;

    aad[11] = (unsigned char)((n + 16) >> 8);
    aad[12] = (unsigned char)(n + 16);
    pad = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    if (pad <= 0 || !EVP_CipherUpdate(ctx, buf, &outl, buf, (int)(n + 16 + (size_t)pad)))
        return -1;
    return outl;
}

static int open1(EVP_CIPHER_CTX *ctx, unsigned char *buf, size_t len)
{
    unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3 };
    int outl;

    aad[11] = (unsigned char)(len >> 8);
    aad[12] = (unsigned char)len;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) <= 0
        || !EVP_CipherUpdate(ctx, buf, &outl, buf, (int)len))
        return -1;
    return outl;
}

/* Bytes of payload per second for one side, operation and size. */
static double rate(int side, const char *alg, int opening, size_t n)
{
    EVP_CIPHER *c = EVP_CIPHER_fetch(g_lc[side], alg,
        side == DEFAULT ? "provider=default" : "provider=cptprov");
    unsigned char *buf = calloc(1, n + 16 + 64), *rec = calloc(1, n + 16 + 64);
    EVP_CIPHER_CTX *ctx;
    long count = 0;
    int len = 0;
    double t0, t;

    if (c == NULL) {
        fprintf(stderr, "%s: not available\n", alg);
        exit(1);
    }
    if (opening) { /* a record to open, sealed by the same side */
        EVP_CIPHER_CTX *s = keyed(c, 1);

        len = seal1(s, rec, n);
        EVP_CIPHER_CTX_free(s);
    }
    ctx = keyed(c, !opening);
    t0 = now();
    do {
        for (int i = 0; i < 64; i++, count++) {
            int r;

            if (opening) {
                memcpy(buf, rec, (size_t)len); /* the same cost on every side */
                r = open1(ctx, buf, (size_t)len);
            } else {
                r = seal1(ctx, buf, n);
            }
            if (r < 0) {
                ERR_print_errors_fp(stderr);
                exit(1);
            }
        }
        t = now() - t0;
    } while (t < g_secs);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    free(buf);
    free(rec);
    return (double)count * (double)n / t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *path = "build", *sizes = "64 256 1024 4096 16384";
    const char *algs[8];
    int nalg = 0, runs = 3;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--provider-path") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            g_secs = atof(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc)
            sizes = argv[++i];
        else if (nalg < 8)
            algs[nalg++] = argv[i];
    }
    if (nalg == 0) {
        algs[nalg++] = "AES-128-CBC-HMAC-SHA1";
        algs[nalg++] = "AES-256-CBC-HMAC-SHA256";
    }
    if (runs < 1 || runs > 15)
        runs = 3;
    for (int s = 0; s < NSIDES; s++) {
        g_lc[s] = OSSL_LIB_CTX_new();
        /* cptprov reads the threshold override when it is loaded */
        if (side_threshold[s] != NULL)
            setenv("CPTPROV_CPU_THRESHOLD", side_threshold[s], 1);
        else
            unsetenv("CPTPROV_CPU_THRESHOLD");
        if (s != DEFAULT
            && (!OSSL_PROVIDER_set_default_search_path(g_lc[s], path)
                || OSSL_PROVIDER_load(g_lc[s], "cptprov") == NULL)) {
            ERR_print_errors_fp(stderr);
            return 1;
        }
        if (OSSL_PROVIDER_load(g_lc[s], "default") == NULL)
            return 1;
    }
    unsetenv("CPTPROV_CPU_THRESHOLD");
    printf("TLS 1.2 records sealed/opened in place (tlsaad + one update), %.1f s per point, median "
           "of %d\n\n",
        g_secs, runs);
    printf("| algorithm | op | payload bytes | default MB/s | cptprov MB/s | ratio | device-only "
           "MB/s | CPU-path MB/s | device / CPU |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int a = 0; a < nalg; a++) {
        for (int op = 0; op < 2; op++) {
            char *list = strdup(sizes), *save = NULL;

            for (char *tok = strtok_r(list, " ,", &save); tok != NULL;
                 tok = strtok_r(NULL, " ,", &save)) {
                size_t n = (size_t)strtoul(tok, NULL, 10);
                double r[NSIDES][15], med[NSIDES];

                for (int i = 0; i < runs; i++)
                    for (int s = 0; s < NSIDES; s++)
                        r[s][i] = rate(s, algs[a], op, n);
                for (int s = 0; s < NSIDES; s++) {
                    qsort(r[s], (size_t)runs, sizeof(double), cmp);
                    med[s] = r[s][runs / 2];
                }
                printf("| %s | %s | %zu | %.0f | %.0f | %.2fx | %.0f | %.0f | %.2f |\n", algs[a],
                    op ? "open" : "seal", n, med[DEFAULT] / 1e6, med[CPTPROV] / 1e6,
                    med[CPTPROV] / med[DEFAULT], med[DEVICE] / 1e6, med[CPU] / 1e6,
                    med[DEVICE] / med[CPU]);
                fflush(stdout);
            }
            free(list);
        }
    }
    for (int s = 0; s < NSIDES; s++)
        OSSL_LIB_CTX_free(g_lc[s]);
    return 0;
}
