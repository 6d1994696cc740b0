/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dpdk_shim_test: the cptdpdk shim (dpdk/shim) against OpenSSL's default
 * provider, on DPDK's software cryptodevs (crypto_openssl,
 * crypto_aesni_gcm, crypto_aesni_mb), without hugepages or PCI.
 *
 * It checks what the shim promises the Go side: EAL start with nothing on
 * stdout/stderr and the caller's CPU affinity kept, -2 from a forked
 * child, device descriptions, and for every algorithm a device offers
 * (cptdpdk_info.algs) random requests in bursts compared with EVP / BN:
 * AES-GCM and ChaCha20-Poly1305 both ways and with tampered tags,
 * AES-CBC/CTR, 3DES-CBC, SHA-1..SHA-512, HMAC, modexp. Then a stopped
 * device's requests come back as errors, sessions are freed, the pools
 * are empty and the devices close.
 *
 *   dpdk_shim_test [--seed N] [--iters N] [-v]
 * Exit status: 0 all checks passed, 1 a failure, 77 no usable EAL.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "../../dpdk/shim/cptdpdk.h"

#define MAX_DATA 16384u

static unsigned long checks, failures;
static int verbose;
static int iters = 4;

static void CPT_FAIL(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void CPT_FAIL(const char *fmt, ...)
{
    va_list ap;

    failures++;
    fputs("FAIL: ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

#define CHECK(cond, ...)           \
    do {                           \
        checks++;                  \
        if (!(cond))               \
            CPT_FAIL(__VA_ARGS__); \
    } while (0)

/* ---- random ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rndn(uint32_t n)
{
    return n ? (uint32_t)(rnd() % n) : 0;
}

static void rndbytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd();
}

/* ---- logging ---- */

static unsigned long log_lines, log_by_level[8];
static char log_text[1 << 16];
static size_t log_used;

static void logcb(int level, const char *msg, size_t len)
{
    log_lines++;
    if (level >= 0 && level < 8)
        log_by_level[level]++;
    /* kept for later: stdout is captured during eal_init */
    if (verbose > 1 && log_used + len + 16 < sizeof(log_text))
        log_used += (size_t)snprintf(log_text + log_used, sizeof(log_text) - log_used,
            "  dpdk[%d]: %.*s\n", level, (int)len, msg);
}

/* ---- requests ---- */

/* One request with its buffers and what it must produce. */
struct job {
    struct cptdpdk_req r;
    uint8_t *in, *out, *exp;
    uint8_t *orig; /* out as it was at enqueue: an auth failure leaves it so */
    uint32_t explen;
    uint8_t iv[16], aad[64], tag[16], exptag[16];
    int expect; /* CPTDPDK_* */
    int done;
    struct cptdpdk_done d;
};

static void job_free(struct job *j)
{
    if (j->out != j->in)
        free(j->out);
    free(j->in);
    free(j->exp);
    free(j->orig);
    memset(j, 0, sizeof(*j));
}

static void verify_jobs(struct job *jobs, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        struct job *j = &jobs[i];

        if (!j->done)
            continue;
        CHECK(j->d.status == j->expect, "%s #%d (len %u+%u): status %d, want %d", what, i,
            j->r.in0len, j->r.inlen, j->d.status, j->expect);
        if (j->d.status != j->expect)
            continue;
        if (j->expect == CPTDPDK_OK) {
            CHECK(j->d.outlen == j->explen, "%s #%d: outlen %u, want %u", what, i, j->d.outlen,
                j->explen);
            CHECK(j->explen == 0 || memcmp(j->out, j->exp, j->explen) == 0,
                "%s #%d (len %u+%u): output differs from OpenSSL's", what, i, j->r.in0len,
                j->r.inlen);
        } else if (j->expect == CPTDPDK_AUTH_FAILED) {
            CHECK(j->orig == NULL || memcmp(j->out, j->orig, j->r.outlen) == 0,
                "%s #%d: out changed by a failed decryption", what, i);
        }
    }
}

/*
 * Submits jobs on (dev, qp): enqueues as much as the device takes, polls
 * completions a few at a time, until every job is back (or 20 s).
 */
static void submit_jobs(int dev, int qp, struct job *jobs, int n, const char *what)
{
    struct cptdpdk_req reqs[64];
    int next = 0, back = 0;
    time_t start = time(NULL);

    for (int i = 0; i < n; i++) {
        jobs[i].r.tag_id = 0x1000u + (uint64_t)i;
        jobs[i].done = 0;
        if (jobs[i].orig != NULL && jobs[i].out != NULL)
            memcpy(jobs[i].orig, jobs[i].out, jobs[i].r.outlen);
    }
    while (back < n) {
        if (next < n) {
            int k = n - next < 64 ? n - next : 64;
            int t;

            for (int i = 0; i < k; i++)
                reqs[i] = jobs[next + i].r;
            t = cptdpdk_enqueue(dev, qp, reqs, k);
            if (t < 0) {
                CPT_FAIL("%s: enqueue on dev %d qp %d: -1", what, dev, qp);
                return;
            }
            next += t;
        }
        for (;;) {
            struct cptdpdk_done d[3];
            int m = cptdpdk_dequeue(dev, qp, d, 3);

            for (int i = 0; i < m; i++) {
                uint64_t id = d[i].tag_id - 0x1000u;

                if (id >= (uint64_t)n || jobs[id].done) {
                    CPT_FAIL("%s: dequeued unknown or repeated tag %llu", what,
                        (unsigned long long)d[i].tag_id);
                    continue;
                }
                jobs[id].done = 1;
                jobs[id].d = d[i];
                back++;
            }
            if (m < 3)
                break;
        }
        if (time(NULL) - start > 20) {
            CPT_FAIL("%s: %d of %d requests not back after 20 s", what, n - back, n);
            break;
        }
    }
}

static int wrong_output(const struct job *j)
{
    return j->done && j->expect == CPTDPDK_OK && j->d.status == CPTDPDK_OK && j->explen > 0
        && memcmp(j->out, j->exp, j->explen) != 0;
}

/*
 * Runs jobs as one burst (submit_jobs), then checks each one's status and
 * output (verify_jobs). A job whose output the burst got wrong runs again
 * alone first: right alone, the wrong result is the device's defect with
 * bursts (crypto_aesni_mb's DES-EDE3-CBC on intel-ipsec-mb 2.0's AVX-512
 * code, see dpdk/selftest.go), which the backend's self-test keeps off
 * the device, and not the shim's mapping of the request, which is what
 * this test checks; it fails when wrong alone too.
 */
static void run_jobs(int dev, int qp, struct job *jobs, int n, const char *what)
{
    int defects = 0;

    submit_jobs(dev, qp, jobs, n, what);
    for (int i = 0; n > 1 && i < n; i++) {
        struct job *j = &jobs[i];

        if (!wrong_output(j))
            continue;
        memcpy(j->out, j->orig, j->r.outlen); /* the input too, in place */
        submit_jobs(dev, qp, j, 1, what);
        defects += j->done && !wrong_output(j);
    }
    if (defects > 0)
        printf("%s: %d of %d results of one burst wrong, each right alone: the device's "
               "defect\n",
            what, defects, n);
    verify_jobs(jobs, n, what);
}

/* A random split of the input into in0 || in (in0 empty half the time;
 * blk: in0 is whole blocks). */
static void split_input(struct job *j, uint32_t len, uint32_t blk)
{
    uint32_t in0 = 0;

    if (len && rndn(2)) {
        in0 = rndn(len + 1);
        if (blk > 1)
            in0 -= in0 % blk;
    }
    j->r.in0 = j->in;
    j->r.in0len = in0;
    j->r.in = j->in + in0;
    j->r.inlen = len - in0;
}

/* Output buffer: separate, or the input buffer itself (out may equal in). */
static void alloc_io(struct job *j, uint32_t len, uint32_t outlen)
{
    j->in = malloc(len ? len : 1);
    rndbytes(j->in, len);
    if (outlen <= len && rndn(3) == 0)
        j->out = j->in;
    else
        memset(j->out = malloc(outlen ? outlen : 1), 0x5c, outlen);
    j->r.out = j->out;
    j->r.outlen = outlen;
    j->orig = malloc(outlen ? outlen : 1);
    memcpy(j->orig, j->out, outlen);
}

/* An AEAD request of session sess over the job's buffers: 12-byte IV,
 * aadlen bytes of AAD, a 16-byte tag. */
static void aead_req(struct job *j, void *sess, uint32_t aadlen)
{
    j->r.sess = sess;
    j->r.kind = CPTDPDK_OP_AEAD;
    j->r.iv = j->iv;
    j->r.ivlen = 12;
    j->r.aad = j->aad;
    j->r.aadlen = aadlen;
    j->r.tag = j->tag;
    j->r.taglen = 16;
}

/* ---- OpenSSL references ---- */

static int evp_crypt(const EVP_CIPHER *c, int enc, const uint8_t *key, const uint8_t *iv,
    const uint8_t *aad, int aadlen, const uint8_t *in, int len, uint8_t *out, uint8_t *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok, n = 0, m = 0;

    ok = EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc) && EVP_CIPHER_CTX_set_padding(ctx, 0);
    if (ok && aadlen)
        ok = EVP_CipherUpdate(ctx, NULL, &n, aad, aadlen);
    if (ok && len)
        ok = EVP_CipherUpdate(ctx, out, &n, in, len);
    else
        n = 0;
    ok = ok && EVP_CipherFinal_ex(ctx, out + n, &m);
    if (ok && tag != NULL)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    EVP_CIPHER_CTX_free(ctx);
    return ok && n + m == len;
}

/* ---- tests ---- */

static const uint32_t edge_lens[] = { 0, 1, 15, 16, 17, 16384 };

static uint32_t data_len(int i, uint32_t blk)
{
    uint32_t len;

    if (i < (int)(sizeof(edge_lens) / sizeof(edge_lens[0])))
        len = edge_lens[i];
    else
        len = rndn(rndn(4) == 0 ? MAX_DATA + 1 : 600);
    if (blk > 1)
        len -= len % blk;
    return len;
}

static void test_aead(int dev, int qp, uint32_t alg, const char *name)
{
    static const uint32_t keys_gcm[] = { 16, 24, 32 }, keys_cp[] = { 32 };
    const uint32_t *keys = alg == CPTDPDK_AES_GCM ? keys_gcm : keys_cp;
    int nkeys = alg == CPTDPDK_AES_GCM ? 3 : 1;
    char err[256], what[96];

    for (int k = 0; k < nkeys; k++) {
        const EVP_CIPHER *c = alg == CPTDPDK_CHACHAPOLY ? EVP_chacha20_poly1305()
            : keys[k] == 16                             ? EVP_aes_128_gcm()
            : keys[k] == 24                             ? EVP_aes_192_gcm()
                                                        : EVP_aes_256_gcm();
        for (int it = 0; it < iters; it++) {
            uint8_t key[32];
            uint32_t aadlen = it == 0 ? 0 : it == 1 ? 64 : rndn(65);
            void *se, *sd;
            enum { N = 10 };
            struct job enc[N], dec[N];

            rndbytes(key, sizeof(key));
            snprintf(what, sizeof(what), "dev %d %s-%u aad %u", dev, name, keys[k] * 8, aadlen);
            se = cptdpdk_sess_aead(dev, alg, CPTDPDK_DIR_ENCRYPT, key, keys[k], aadlen, 16, err,
                sizeof(err));
            sd = cptdpdk_sess_aead(dev, alg, CPTDPDK_DIR_DECRYPT, key, keys[k], aadlen, 16, err,
                sizeof(err));
            CHECK(se != NULL && sd != NULL, "%s: session: %s", what, err);
            if (se == NULL || sd == NULL) {
                cptdpdk_sess_free(dev, se, 0);
                cptdpdk_sess_free(dev, sd, 0);
                continue;
            }
            memset(enc, 0, sizeof(enc));
            memset(dec, 0, sizeof(dec));
            for (int i = 0; i < N; i++) {
                struct job *j = &enc[i];
                uint32_t len = data_len(it == 0 ? i : N, 0);

                alloc_io(j, len, len);
                split_input(j, len, 0);
                rndbytes(j->iv, 12);
                rndbytes(j->aad, aadlen);
                aead_req(j, se, aadlen);
                j->exp = malloc(len ? len : 1);
                j->explen = len;
                j->expect = CPTDPDK_OK;
                if (!evp_crypt(c, 1, key, j->iv, j->aad, (int)aadlen, j->in, (int)len, j->exp,
                        j->exptag))
                    CPT_FAIL("%s: EVP encrypt", what);
            }
            /* dec[i] takes OpenSSL's ciphertext before the encrypt jobs run
             * (out may alias in). */
            for (int i = 0; i < N; i++) {
                struct job *e = &enc[i], *j = &dec[i];
                uint32_t len = e->explen;

                alloc_io(j, len, len);
                memcpy(j->in, e->exp, len);
                split_input(j, len, 0);
                memcpy(j->iv, e->iv, 12);
                memcpy(j->aad, e->aad, aadlen);
                memcpy(j->tag, e->exptag, 16);
                j->expect = CPTDPDK_OK;
                if (i % 3 == 2) { /* tampered tag */
                    j->tag[rndn(16)] ^= (uint8_t)(1u << rndn(8));
                    j->expect = CPTDPDK_AUTH_FAILED;
                } else if (i % 5 == 4 && (len || aadlen)) { /* tampered data or AAD */
                    if (len)
                        j->in[rndn(len)] ^= 0x80;
                    else
                        j->aad[rndn(aadlen)] ^= 0x01;
                    j->expect = CPTDPDK_AUTH_FAILED;
                }
                aead_req(j, sd, aadlen);
                j->exp = malloc(len ? len : 1);
                /* the plaintext: the encrypt job's input (kept before aliasing) */
                j->explen = len;
            }
            for (int i = 0; i < N; i++)
                memcpy(dec[i].exp, enc[i].in, enc[i].explen);
            run_jobs(dev, qp, enc, N, what);
            for (int i = 0; i < N; i++)
                if (enc[i].done && enc[i].d.status == CPTDPDK_OK)
                    CHECK(memcmp(enc[i].tag, enc[i].exptag, 16) == 0, "%s #%d: tag differs", what,
                        i);
            snprintf(what + strlen(what), sizeof(what) - strlen(what), " decrypt");
            run_jobs(dev, qp, dec, N, what);
            for (int i = 0; i < N; i++) {
                job_free(&enc[i]);
                job_free(&dec[i]);
            }
            cptdpdk_sess_free(dev, se, 0);
            cptdpdk_sess_free(dev, sd, 0);
        }
    }
}

static void test_cipher(int dev, int qp, uint32_t alg)
{
    static const uint32_t keys_aes[] = { 16, 24, 32 }, keys_des[] = { 24 };
    const uint32_t *keys = alg == CPTDPDK_DES3_CBC ? keys_des : keys_aes;
    int nkeys = alg == CPTDPDK_DES3_CBC ? 1 : 3;
    uint32_t blk = alg == CPTDPDK_DES3_CBC ? 8 : 16, ivlen = blk;
    const char *name = alg == CPTDPDK_AES_CBC ? "AES-CBC"
        : alg == CPTDPDK_AES_CTR              ? "AES-CTR"
                                              : "DES-EDE3-CBC";
    char err[256], what[96];

    for (int k = 0; k < nkeys; k++) {
        const EVP_CIPHER *c = alg == CPTDPDK_DES3_CBC ? EVP_des_ede3_cbc()
            : alg == CPTDPDK_AES_CBC                  ? (keys[k] == 16 ? EVP_aes_128_cbc()
                                       : keys[k] == 24                 ? EVP_aes_192_cbc()
                                                                       : EVP_aes_256_cbc())
                                                      : (keys[k] == 16        ? EVP_aes_128_ctr()
                                                              : keys[k] == 24 ? EVP_aes_192_ctr()
                                                                              : EVP_aes_256_ctr());

        for (int dir = CPTDPDK_DIR_ENCRYPT; dir <= CPTDPDK_DIR_DECRYPT; dir++)
            for (int it = 0; it < iters; it++) {
                enum { N = 10 };
                struct job jobs[N];
                uint8_t key[32];
                void *s;

                rndbytes(key, sizeof(key));
                snprintf(what, sizeof(what), "dev %d %s-%u %s", dev, name, keys[k] * 8,
                    dir == CPTDPDK_DIR_ENCRYPT ? "encrypt" : "decrypt");
                s = cptdpdk_sess_cipher(dev, alg, dir, key, keys[k], err, sizeof(err));
                CHECK(s != NULL, "%s: session: %s", what, err);
                if (s == NULL)
                    continue;
                memset(jobs, 0, sizeof(jobs));
                for (int i = 0; i < N; i++) {
                    struct job *j = &jobs[i];
                    uint32_t len = data_len(it == 0 ? i : N, blk);

                    alloc_io(j, len, len);
                    split_input(j, len, blk);
                    rndbytes(j->iv, ivlen);
                    j->r.sess = s;
                    j->r.kind = CPTDPDK_OP_CIPHER;
                    j->r.iv = j->iv;
                    j->r.ivlen = ivlen;
                    j->exp = malloc(len ? len : 1);
                    j->explen = len;
                    j->expect = CPTDPDK_OK;
                    if (!evp_crypt(c, dir == CPTDPDK_DIR_ENCRYPT, key, j->iv, NULL, 0, j->in,
                            (int)len, j->exp, NULL))
                        CPT_FAIL("%s: EVP", what);
                }
                run_jobs(dev, qp, jobs, N, what);
                for (int i = 0; i < N; i++)
                    job_free(&jobs[i]);
                cptdpdk_sess_free(dev, s, 0);
            }
    }
}

static const struct {
    uint32_t bit;
    const char *md;
    uint32_t block;
    int hmac;
} auths[] = {
    { CPTDPDK_SHA1, "SHA1", 64, 0 },
    { CPTDPDK_SHA224, "SHA224", 64, 0 },
    { CPTDPDK_SHA256, "SHA256", 64, 0 },
    { CPTDPDK_SHA384, "SHA384", 128, 0 },
    { CPTDPDK_SHA512, "SHA512", 128, 0 },
    { CPTDPDK_HMAC_SHA1, "SHA1", 64, 1 },
    { CPTDPDK_HMAC_SHA224, "SHA224", 64, 1 },
    { CPTDPDK_HMAC_SHA256, "SHA256", 64, 1 },
    { CPTDPDK_HMAC_SHA384, "SHA384", 128, 1 },
    { CPTDPDK_HMAC_SHA512, "SHA512", 128, 1 },
};

static void test_auth(int dev, int qp, int a)
{
    const EVP_MD *md = EVP_get_digestbyname(auths[a].md);
    uint32_t dlen = (uint32_t)EVP_MD_get_size(md);
    char err[256], what[96];

    for (int it = 0; it < iters; it++) {
        enum { N = 10 };
        struct job jobs[N];
        uint8_t key[128];
        uint32_t keylen = 0;
        void *s;

        if (auths[a].hmac) {
            keylen = it == 0 ? 1 : it == 1 ? auths[a].block : 1 + rndn(auths[a].block);
            rndbytes(key, keylen);
        }
        snprintf(what, sizeof(what), "dev %d %s%s key %u", dev, auths[a].hmac ? "HMAC-" : "",
            auths[a].md, keylen);
        s = cptdpdk_sess_auth(dev, auths[a].bit, auths[a].hmac ? key : NULL, keylen, err,
            sizeof(err));
        CHECK(s != NULL, "%s: session: %s", what, err);
        if (s == NULL)
            continue;
        memset(jobs, 0, sizeof(jobs));
        for (int i = 0; i < N; i++) {
            struct job *j = &jobs[i];
            uint32_t len = data_len(it == 0 ? i : N, 0);
            unsigned int n = 0;

            alloc_io(j, len, dlen);
            split_input(j, len, 0);
            j->r.sess = s;
            j->r.kind = CPTDPDK_OP_AUTH;
            j->exp = malloc(64);
            j->explen = dlen;
            j->expect = CPTDPDK_OK;
            if (auths[a].hmac) {
                if (HMAC(md, key, (int)keylen, j->in, len, j->exp, &n) == NULL || n != dlen)
                    CPT_FAIL("%s: HMAC", what);
            } else if (!EVP_Digest(j->in, len, j->exp, &n, md, NULL) || n != dlen) {
                CPT_FAIL("%s: EVP_Digest", what);
            }
        }
        run_jobs(dev, qp, jobs, N, what);
        for (int i = 0; i < N; i++)
            job_free(&jobs[i]);
        cptdpdk_sess_free(dev, s, 0);
    }
}

static void test_modexp(int dev, int qp, uint32_t max_modlen)
{
    static const int bits[] = { 512, 768, 1000, 1024, 1536, 2048, 3072, 4096 };
    BN_CTX *bctx = BN_CTX_new();
    char err[256], what[96];

    for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
        int nb = bits[b];
        uint32_t modlen = (uint32_t)(nb + 7) / 8;

        if (max_modlen && modlen > max_modlen)
            continue;
        for (int e = 0; e < 4; e++) {
            enum { N = 4 };
            BIGNUM *m = BN_new(), *x = BN_new(), *base = BN_new(), *r = BN_new();
            uint8_t modb[1025], expb[1024];
            uint32_t explen, modblen = modlen;
            struct job jobs[N];
            void *s;

            /* odd, or even now and then (no Montgomery) */
            BN_rand(m, nb, BN_RAND_TOP_ONE, e == 3 ? BN_RAND_BOTTOM_ANY : BN_RAND_BOTTOM_ODD);
            if (e == 0)
                BN_set_word(x, 3);
            else if (e == 1)
                BN_set_word(x, 65537);
            else
                BN_rand(x, nb, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY);
            if (BN_is_zero(x))
                BN_one(x);
            /* the modulus with a leading zero byte sometimes */
            if (rndn(2)) {
                modb[0] = 0;
                BN_bn2binpad(m, modb + 1, (int)modlen);
                modblen = modlen + 1;
            } else {
                BN_bn2binpad(m, modb, (int)modlen);
            }
            explen = (uint32_t)BN_bn2bin(x, expb);
            snprintf(what, sizeof(what), "dev %d modexp %d-bit exp %u bytes", dev, nb, explen);
            s = cptdpdk_sess_modexp(dev, modb, modblen, expb, explen, err, sizeof(err));
            CHECK(s != NULL, "%s: session: %s", what, err);
            if (s == NULL) {
                BN_free(m);
                BN_free(x);
                BN_free(base);
                BN_free(r);
                continue;
            }
            memset(jobs, 0, sizeof(jobs));
            for (int i = 0; i < N; i++) {
                struct job *j = &jobs[i];
                uint32_t inlen = modlen;

                if (i == 0)
                    BN_zero(base);
                else if (i == 1)
                    BN_one(base);
                else
                    BN_rand_range(base, m);
                j->in = malloc(modlen);
                if (i == 3) /* no leading zeros on the base */
                    inlen = (uint32_t)BN_bn2bin(base, j->in);
                else
                    BN_bn2binpad(base, j->in, (int)modlen);
                j->out = malloc(modlen);
                memset(j->out, 0xa5, modlen);
                split_input(j, inlen, 0);
                j->r.sess = s;
                j->r.kind = CPTDPDK_OP_MODEXP;
                j->r.out = j->out;
                j->r.outlen = modlen;
                j->exp = malloc(modlen);
                j->explen = modlen;
                j->expect = CPTDPDK_OK;
                if (!BN_mod_exp(r, base, x, m, bctx) || BN_bn2binpad(r, j->exp, (int)modlen) < 0)
                    CPT_FAIL("%s: BN_mod_exp", what);
            }
            run_jobs(dev, qp, jobs, N, what);
            for (int i = 0; i < N; i++)
                job_free(&jobs[i]);
            cptdpdk_sess_free(dev, s, 1);
            BN_free(m);
            BN_free(x);
            BN_free(base);
            BN_free(r);
        }
    }
    BN_CTX_free(bctx);
}

/* Requests the shim must not take, and a stopped device. */
static void test_edges(int dev, uint32_t algs)
{
    struct cptdpdk_usage u;
    uint8_t *big = calloc(1, MAX_DATA + 2), out[64], key[16] = { 1 };
    struct cptdpdk_req r;
    struct cptdpdk_done d[8];
    char err[256];
    uint32_t alg = algs & CPTDPDK_SHA256 ? CPTDPDK_SHA256
        : algs & CPTDPDK_HMAC_SHA256     ? CPTDPDK_HMAC_SHA256
                                         : 0;
    void *s;
    int n;

    if (alg == 0 && (algs & CPTDPDK_AES_GCM) == 0)
        goto out;
    if (alg)
        s = cptdpdk_sess_auth(dev, alg, alg == CPTDPDK_HMAC_SHA256 ? key : NULL,
            alg == CPTDPDK_HMAC_SHA256 ? 16 : 0, err, sizeof(err));
    else
        s = cptdpdk_sess_aead(dev, CPTDPDK_AES_GCM, CPTDPDK_DIR_ENCRYPT, key, 16, 0, 16, err,
            sizeof(err));
    CHECK(s != NULL, "dev %d edges: session: %s", dev, err);
    if (s == NULL)
        goto out;
    memset(&r, 0, sizeof(r));
    r.sess = s;
    r.kind = alg ? CPTDPDK_OP_AUTH : CPTDPDK_OP_AEAD;
    r.in = big;
    r.out = alg ? out : big;
    r.outlen = alg ? 64 : 0;
    r.iv = key;
    r.ivlen = 12;
    r.tag = out;
    r.taglen = 16;

    /* longer than max_data: in0 + in */
    r.in0 = big;
    r.in0len = 1;
    r.inlen = MAX_DATA;
    n = cptdpdk_enqueue(dev, 0, &r, 1);
    CHECK(n == 0, "dev %d: request of max_data+1 bytes: enqueue returned %d", dev, n);
    /* the wrong kind for the session */
    r.in0len = 0;
    r.inlen = 100;
    r.kind = CPTDPDK_OP_CIPHER;
    n = cptdpdk_enqueue(dev, 0, &r, 1);
    CHECK(n == 0, "dev %d: request of the wrong kind: enqueue returned %d", dev, n);
    r.kind = alg ? CPTDPDK_OP_AUTH : CPTDPDK_OP_AEAD;

    /* more than the depth at once: the device takes part, all come back */
    {
        enum { FLOOD = 150 };
        struct cptdpdk_req fl[FLOOD];
        int sent = 0, back = 0, first = -1;
        time_t t0 = time(NULL);

        for (int i = 0; i < FLOOD; i++) {
            fl[i] = r;
            fl[i].tag_id = 1000u + (uint64_t)i;
        }
        while (back < FLOOD && time(NULL) - t0 < 20) {
            if (sent < FLOOD) {
                n = cptdpdk_enqueue(dev, 0, fl + sent, FLOOD - sent);
                if (first < 0)
                    first = n;
                sent += n > 0 ? n : 0;
            }
            n = cptdpdk_dequeue(dev, 0, d, 8);
            for (int i = 0; i < n; i++)
                CHECK(d[i].status == CPTDPDK_OK && d[i].tag_id >= 1000u
                        && d[i].tag_id < 1000u + FLOOD,
                    "dev %d flood: status %d tag %llu", dev, d[i].status,
                    (unsigned long long)d[i].tag_id);
            back += n;
        }
        CHECK(first > 0 && first <= 64, "dev %d flood: first enqueue took %d of %d (depth 64)", dev,
            first, FLOOD);
        CHECK(back == FLOOD, "dev %d flood: %d of %d back", dev, back, FLOOD);
    }

    /* a stopped device returns what it held as errors */
    for (int i = 0; i < 4; i++) {
        r.tag_id = 100u + (uint64_t)i;
        n = cptdpdk_enqueue(dev, 0, &r, 1);
        CHECK(n == 1, "dev %d: enqueue before stop: %d", dev, n);
    }
    cptdpdk_dev_stop(dev);
    n = cptdpdk_enqueue(dev, 0, &r, 1);
    CHECK(n == -1, "dev %d: enqueue on a stopped device returned %d", dev, n);
    n = cptdpdk_dequeue(dev, 0, d, 8);
    CHECK(n == 4, "dev %d: dequeue on a stopped device returned %d, want 4", dev, n);
    for (int i = 0; i < n; i++)
        CHECK(d[i].status == CPTDPDK_ERROR && d[i].tag_id >= 100 && d[i].tag_id < 104,
            "dev %d: stopped request: status %d tag %llu", dev, d[i].status,
            (unsigned long long)d[i].tag_id);
    cptdpdk_dev_usage(dev, &u);
    CHECK(u.ops == 0 && u.mbufs == 0, "dev %d: after stop: %u ops %u mbufs out", dev, u.ops,
        u.mbufs);
    n = cptdpdk_dev_restart(dev, err, sizeof(err));
    CHECK(n == 0, "dev %d: restart: %s", dev, err);
    r.tag_id = 7;
    n = cptdpdk_enqueue(dev, 0, &r, 1);
    CHECK(n == 1, "dev %d: enqueue after restart: %d", dev, n);
    n = 0;
    for (int tries = 0; tries < 1000000 && n == 0; tries++)
        n = cptdpdk_dequeue(dev, 0, d, 8);
    CHECK(n == 1 && d[0].tag_id == 7 && d[0].status == CPTDPDK_OK,
        "dev %d: after restart: %d back, status %d", dev, n, n ? d[0].status : -1);

    /* close refuses while a session is out */
    n = cptdpdk_dev_close(dev, err, sizeof(err));
    CHECK(n == -1 && strstr(err, "1 sym session") != NULL,
        "dev %d: close with a session out: %d (%s)", dev, n, err);
    cptdpdk_sess_free(dev, s, 0);
out:
    free(big);
}

static void print_algs(uint32_t algs)
{
    static const char *names[] = { "AES_GCM", "CHACHAPOLY", "AES_CBC", "AES_CTR", "DES3_CBC",
        "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "HMAC_SHA1", "HMAC_SHA224", "HMAC_SHA256",
        "HMAC_SHA384", "HMAC_SHA512", "MODEXP" };

    for (int b = 0; b < 16; b++)
        if (algs & (1u << b))
            printf(" %s", names[b]);
    printf("\n");
}

/* fd's output (a file) so far; NULL when empty. */
static char *slurp(int fd)
{
    struct stat st;
    char *p;

    if (fstat(fd, &st) != 0 || st.st_size == 0)
        return NULL;
    p = calloc(1, (size_t)st.st_size + 1);
    if (pread(fd, p, (size_t)st.st_size, 0) < 0) {
        free(p);
        return strdup("(unreadable)");
    }
    return p;
}

static int capture(int fd, int *saved)
{
    char path[] = "/tmp/cptdpdk_test_XXXXXX";
    int t = mkstemp(path);

    if (t < 0)
        return -1;
    unlink(path);
    fflush(NULL);
    *saved = dup(fd);
    dup2(t, fd);
    return t;
}

static void uncapture(int fd, int saved)
{
    fflush(NULL);
    dup2(saved, fd);
    close(saved);
}

/*
 * The EAL leaves its runtime directory (and the telemetry socket in it)
 * behind without rte_eal_cleanup, which the shim never calls: remove it.
 * Its place, as eal_create_runtime_dir: /var/run/dpdk for root, else
 * $XDG_RUNTIME_DIR/dpdk or /tmp/dpdk.
 */
static void remove_runtime_dir(const char *prefix)
{
    const char *base = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
    char dir[512], sock[600];

    snprintf(dir, sizeof(dir), "%s/dpdk/%s", base != NULL ? base : "/tmp", prefix);
    snprintf(sock, sizeof(sock), "%s/dpdk_telemetry.v2", dir);
    unlink(sock);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    char prefix[64], err[256];
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    char *eal[] = { "dpdk_shim_test", "--no-huge", "--no-pci", "--no-shconf", "-m", "256", "-l",
        "0", prefix, "--vdev=crypto_openssl0", "--vdev=crypto_aesni_gcm0",
        "--vdev=crypto_aesni_mb0" };
    int neal = (int)(sizeof(eal) / sizeof(eal[0]));
    cpu_set_t all, before, after;
    int ndev, t1, t2, s1, s2, ncpu;
    char *o1, *o2;
    pid_t pid;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "-v") == 0)
            verbose++;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--iters N] [-v]\n", argv[0]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    rng_state = seed;
    printf("dpdk_shim_test: seed %llu\n", (unsigned long long)seed);
    snprintf(prefix, sizeof(prefix), "--file-prefix=cptdpdk_test_%d", (int)getpid());

    /* affinity: all CPUs before (-l 0 would pin this thread to CPU 0) */
    ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(&all);
    for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
    pthread_getaffinity_np(pthread_self(), sizeof(before), &before);

    t1 = capture(1, &s1);
    t2 = capture(2, &s2);
    ndev = cptdpdk_eal_init(neal, eal, logcb, 7, err, sizeof(err));
    uncapture(1, s1);
    uncapture(2, s2);
    o1 = slurp(t1);
    o2 = slurp(t2);
    close(t1);
    close(t2);
    CHECK(o2 == NULL, "EAL init wrote to stderr:\n%s", o2 ? o2 : "");
    CHECK(o1 == NULL, "EAL init wrote to stdout:\n%s", o1 ? o1 : "");
    free(o1);
    free(o2);
    fputs(log_text, stdout);
    log_used = 0;
    log_text[0] = 0;
    printf("eal_init: %d cryptodevs, %lu log lines (err %lu warn %lu notice %lu info %lu debug "
           "%lu)\n",
        ndev, log_lines, log_by_level[3], log_by_level[4], log_by_level[5], log_by_level[6],
        log_by_level[7]);
    if (ndev < 0) {
        printf("eal_init failed: %s\n", err);
        return 77;
    }
    CHECK(ndev == 3, "eal_init: %d cryptodevs, want 3", ndev);
    CHECK(log_lines > 0, "no log line reached the callback");
    pthread_getaffinity_np(pthread_self(), sizeof(after), &after);
    CHECK(CPU_EQUAL(&before, &after),
        "thread affinity changed by eal_init (%d CPUs now, %d before)", CPU_COUNT(&after),
        CPU_COUNT(&before));

    /* a forked child cannot start the EAL again: -2, silently */
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int r, t, s;
        char *o;

        t = capture(2, &s);
        r = cptdpdk_eal_init(neal, eal, logcb, 7, err, sizeof(err));
        uncapture(2, s);
        o = slurp(t);
        _exit(r == -2 ? (o == NULL ? 0 : 3) : 1);
    } else {
        int st = 0;

        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
            "fork child: eal_init again: exit %d (1: not -2, 3: wrote to stderr)",
            WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    CHECK(cptdpdk_eal_init(neal, eal, logcb, 7, err, sizeof(err)) == -2,
        "eal_init twice in one process: not -2");
    CHECK(cptdpdk_dev_find("no_such_dev") == -1, "dev_find of an unknown name");

    for (int dev = 0; dev < ndev; dev++) {
        struct cptdpdk_info info;
        struct cptdpdk_usage u;
        unsigned long c0 = checks, f0 = failures;
        int nqp;

        CHECK(cptdpdk_dev_info(dev, &info) == 0, "dev_info %d", dev);
        printf("dev %d: %s driver %s max_qps %u max_modlen %u max_data %u algs 0x%x:", dev,
            info.name, info.driver, info.max_qps, info.max_modlen, info.max_data, info.algs);
        print_algs(info.algs);
        CHECK(cptdpdk_dev_find(info.name) == dev, "dev_find(%s)", info.name);
        CHECK(info.max_data == 0, "dev %d: max_data %u before start", dev, info.max_data);
        nqp = info.max_qps >= 2 ? 2 : 1;
        if (cptdpdk_dev_start(dev, nqp, 64, 64, MAX_DATA, err, sizeof(err)) != 0) {
            CPT_FAIL("dev %d: start: %s", dev, err);
            continue;
        }
        cptdpdk_dev_info(dev, &info);
        CHECK(info.max_data == MAX_DATA, "dev %d: max_data %u after start", dev, info.max_data);
        CHECK(cptdpdk_dev_start(dev, nqp, 64, 64, MAX_DATA, err, sizeof(err)) == -1,
            "dev %d: started twice", dev);

        if (info.algs & CPTDPDK_AES_GCM)
            test_aead(dev, 0, CPTDPDK_AES_GCM, "AES-GCM");
        if (info.algs & CPTDPDK_CHACHAPOLY)
            test_aead(dev, nqp - 1, CPTDPDK_CHACHAPOLY, "ChaCha20-Poly1305");
        if (info.algs & CPTDPDK_AES_CBC)
            test_cipher(dev, nqp - 1, CPTDPDK_AES_CBC);
        if (info.algs & CPTDPDK_AES_CTR)
            test_cipher(dev, 0, CPTDPDK_AES_CTR);
        if (info.algs & CPTDPDK_DES3_CBC)
            test_cipher(dev, nqp - 1, CPTDPDK_DES3_CBC);
        for (int a = 0; a < (int)(sizeof(auths) / sizeof(auths[0])); a++)
            if (info.algs & auths[a].bit)
                test_auth(dev, a % nqp, a);
        if (info.algs & CPTDPDK_MODEXP)
            test_modexp(dev, nqp - 1, info.max_modlen);
        test_edges(dev, info.algs);

        CHECK(cptdpdk_dev_usage(dev, &u) == 0 && u.ops == 0 && u.mbufs == 0 && u.sym_sessions == 0
                && u.asym_sessions == 0,
            "dev %d: usage at the end: %u ops %u mbufs %u sym %u asym", dev, u.ops, u.mbufs,
            u.sym_sessions, u.asym_sessions);
        CHECK(cptdpdk_dev_close(dev, err, sizeof(err)) == 0, "dev %d: close: %s", dev, err);
        printf("dev %d: %lu checks, %lu failed\n", dev, checks - c0, failures - f0);
    }
    remove_runtime_dir(prefix + strlen("--file-prefix="));
    printf("%lu checks, %lu failed (log lines %lu)\n", checks, failures, log_lines);
    return failures ? 1 : 0;
}
