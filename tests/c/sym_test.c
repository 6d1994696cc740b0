/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sym_test - the unauthenticated ciphers of the provider under test
 * (AES-CBC, AES-CTR, DES-EDE3-CBC, ChaCha20) against OpenSSL's default provider:
 * random keys, IVs and messages (0 bytes to 1 MiB) in random update splits,
 * both directions and across providers, padding on and off, EVP_Cipher
 * one-shots, the iv/updated-iv/num parameters, contexts copied mid-stream,
 * TLS CBC records (tls-version, tls-mac-size, tls-mac) chained as libssl drives them,
 * NIST SP 800-38A and RFC 8439 vectors, the errors (bad padding, partial blocks), many
 * concurrent ASYNC jobs, and the provider's counters.
 *
 *   sym_test [common options] [--iters N] [--maxlen BYTES]
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "common.h"

struct alg {
    const char *name;
    size_t keylen, ivlen, block;
    int padded; /* a block mode with PKCS#7 padding */
    int iv_params; /* answers "updated-iv" and "num" (OpenSSL's ChaCha20 does not) */
};

static const struct alg g_algs[] = {
    { "AES-128-CBC", 16, 16, 16, 1, 1 },
    { "AES-192-CBC", 24, 16, 16, 1, 1 },
    { "AES-256-CBC", 32, 16, 16, 1, 1 },
    { "AES-128-CTR", 16, 16, 1, 0, 1 },
    { "AES-192-CTR", 24, 16, 1, 0, 1 },
    { "AES-256-CTR", 32, 16, 1, 0, 1 },
    { "DES-EDE3-CBC", 24, 8, 8, 1, 1 },
    { "ChaCha20", 32, 16, 1, 0, 0 },
};
#define NALG (sizeof(g_algs) / sizeof(g_algs[0]))

static cpt_opts g_o;
static cpt_env g_env;
static EVP_CIPHER *g_tc[NALG], *g_rc[NALG]; /* under test, reference */
static int g_used[NALG];
static uint64_t g_iters = 300;
static size_t g_maxlen = 1 << 20;
static const char *g_argv0;

/*
 * Runs a whole message through `c`: init, updates of random sizes (0 to
 * the rest, often block multiples, with split == 0 a single update),
 * final. Returns 1 and the output length, or 0 when an OpenSSL call failed.
 */
static int crypt_msg(EVP_CIPHER *c, int enc, int pad, const unsigned char *key,
    const unsigned char *iv, const unsigned char *in, size_t inl, unsigned char *out, size_t *outl,
    cpt_rng *r)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t off = 0, done = 0;
    int n,
        ok = ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL)
        && EVP_CIPHER_CTX_set_padding(ctx, pad);

    while (ok && off < inl) {
        size_t k = inl - off;

        if (r != NULL) {
            k = (size_t)cpt_rng_below(r, k + 1);
            if (cpt_rng_pct(r, 30)) {
                size_t blocks = 16 * (size_t)cpt_rng_below(r, 5);

                k = blocks > inl - off ? inl - off : blocks;
            }
        }
        ok = EVP_CipherUpdate(ctx, out + done, &n, in + off, (int)k);
        done += (size_t)n;
        off += k;
    }
    ok = ok && EVP_CipherFinal_ex(ctx, out + done, &n);
    if (ok)
        *outl = done + (size_t)n;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

static void test_differential(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 1);
    for (uint64_t it = 0; it < g_iters; it++) {
        size_t ai = it % NALG;
        const struct alg *a = &g_algs[ai];
        int pad = a->padded && cpt_rng_pct(&r, 70);
        size_t len = cpt_pick_len(&r, 55, 90, 20000, g_maxlen), rl, tl, pl;
        unsigned char key[32], iv[16];
        unsigned char *msg, *ref, *ct, *pt;

        if (a->padded && !pad)
            len -= len % a->block;
        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, iv, sizeof(iv));
        msg = malloc(len + 1);
        ref = malloc(len + 32);
        ct = malloc(len + 32);
        pt = malloc(len + 32);
        cpt_rng_fill(&r, msg, len);
        g_used[ai] = 1;
        if (!CPT_CHECK(crypt_msg(g_rc[ai], 1, pad, key, iv, msg, len, ref, &rl, NULL),
                "%s reference encryption", a->name))
            goto next;
        /* A message that succeeds leaves the error queue as it was: libssl
         * takes any error there for its own (SSL_get_error). */
        ERR_clear_error();
        CPT_CHECK(crypt_msg(g_tc[ai], 1, pad, key, iv, msg, len, ct, &tl, &r) && tl == rl
                && memcmp(ct, ref, rl) == 0 && ERR_peek_error() == 0,
            "%s encrypt %zu bytes (padding %d, seed %llu, iter %llu) equals the default "
            "provider's, "
            "the error queue left empty",
            a->name, len, pad, (unsigned long long)g_o.seed, (unsigned long long)it);
        ERR_clear_error();
        CPT_CHECK(crypt_msg(g_tc[ai], 0, pad, key, iv, ref, rl, pt, &pl, &r) && pl == len
                && memcmp(pt, msg, len) == 0 && ERR_peek_error() == 0,
            "%s decrypt of the default provider's %zu bytes (padding %d, iter %llu), the error "
            "queue "
            "left empty",
            a->name, rl, pad, (unsigned long long)it);
        ERR_clear_error();
    next:
        free(msg);
        free(ref);
        free(ct);
        free(pt);
    }
}

static void kat_file(const char *file)
{
    char path[4096];
    cpt_recfile rf;

    if (!CPT_CHECK(cpt_find_file(g_argv0, file, path, sizeof(path)) && cpt_recfile_load(path, &rf),
            "%s loads", file))
        return;
    for (size_t i = 0; i < rf.n; i++) {
        const cpt_record *rec = &rf.recs[i];
        const char *name = cpt_record_get(rec, "Cipher");

        if (cpt_record_get(rec, "Tag") != NULL)
            continue; /* an AEAD's: aead_test's */
        unsigned char *key = NULL, *iv = NULL, *pt = NULL, *ct = NULL, out[512];
        size_t kl, ivl, ptl, ctl, ol, ai;

        for (ai = 0; ai < NALG && (name == NULL || strcmp(g_algs[ai].name, name) != 0); ai++)
            ;
        if (!CPT_CHECK(ai < NALG && cpt_record_get_hex(rec, "Key", &key, &kl) == 1
                    && cpt_record_get_hex(rec, "IV", &iv, &ivl) == 1
                    && cpt_record_get_hex(rec, "Plaintext", &pt, &ptl) == 1
                    && cpt_record_get_hex(rec, "Ciphertext", &ct, &ctl) == 1 && ptl == ctl
                    && ptl <= sizeof(out),
                "vector at line %d is well formed", rec->line))
            goto next;
        for (int prov = 0; prov < 2; prov++) {
            EVP_CIPHER *c = prov ? g_tc[ai] : g_rc[ai];
            const char *who = prov ? g_env.name : "default";

            CPT_CHECK(crypt_msg(c, 1, 0, key, iv, pt, ptl, out, &ol, NULL) && ol == ctl
                    && memcmp(out, ct, ctl) == 0,
                "%s encrypt, vector at line %d (%s)", name, rec->line, who);
            CPT_CHECK(crypt_msg(c, 0, 0, key, iv, ct, ctl, out, &ol, NULL) && ol == ptl
                    && memcmp(out, pt, ptl) == 0,
                "%s decrypt, vector at line %d (%s)", name, rec->line, who);
        }
        g_used[ai] = 1;
    next:
        free(key);
        free(iv);
        free(pt);
        free(ct);
    }
    cpt_recfile_free(&rf);
}

/* NIST SP 800-38A, appendix F (CBC, CTR); RFC 8439, appendix A (ChaCha20). */
static void test_kat(void)
{
    kat_file("tests/vectors/sp800_38a.txt");
    kat_file("tests/vectors/rfc8439.txt");
}

/* Whether a final of `in` fails, with an error queued when it does. */
static int final_fails(EVP_CIPHER *c, int enc, int pad, const unsigned char *in, size_t inl)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char key[32] = { 7 }, iv[16] = { 9 }, out[128];
    int n, fails;

    fails = EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL) && EVP_CIPHER_CTX_set_padding(ctx, pad)
        && EVP_CipherUpdate(ctx, out, &n, in, (int)inl) && !EVP_CipherFinal_ex(ctx, out + n, &n)
        && ERR_peek_error() != 0;
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    return fails;
}

static void test_errors(void)
{
    unsigned char buf[64], key[32] = { 7 }, iv[16] = { 9 }, ct[80];
    size_t cl;

    memset(buf, 0x11, sizeof(buf));
    for (size_t ai = 0; ai < NALG; ai++) {
        const struct alg *a = &g_algs[ai];

        if (!a->padded)
            continue;
        for (int prov = 0; prov < 2; prov++) {
            EVP_CIPHER *c = prov ? g_tc[ai] : g_rc[ai];
            const char *who = prov ? g_env.name : "default";

            CPT_CHECK(final_fails(c, 0, 1, buf, 33), "%s: a 33-byte ciphertext fails at final (%s)",
                a->name, who);
            CPT_CHECK(final_fails(c, 1, 0, buf, 20),
                "%s: 20 bytes without padding fail at final (%s)", a->name, who);
            CPT_CHECK(final_fails(c, 0, 0, buf, 20),
                "%s: a 20-byte ciphertext without padding fails at final (%s)", a->name, who);
            /* 0x11 is no valid padding byte: encrypt blocks of it unpadded. */
            CPT_CHECK(crypt_msg(g_rc[ai], 1, 0, key, iv, buf, 32, ct, &cl, NULL)
                    && final_fails(c, 0, 1, ct, cl),
                "%s: bad padding fails at final (%s)", a->name, who);
        }
    }
}

/* EVP_Cipher: exactly the input, no buffering, no padding. */
static void test_oneshot(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 2);
    for (size_t ai = 0; ai < NALG; ai++) {
        const struct alg *a = &g_algs[ai];
        unsigned char key[32], iv[16], in[512], out[2][512];

        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, iv, sizeof(iv));
        cpt_rng_fill(&r, in, sizeof(in));
        for (int enc = 0; enc < 2; enc++) {
            int ok = 1;

            for (int prov = 0; prov < 2; prov++) {
                EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
                size_t off = 0;

                ok = ok && EVP_CipherInit_ex2(ctx, prov ? g_tc[ai] : g_rc[ai], key, iv, enc, NULL);
                /* pieces that are whole blocks for a block mode */
                while (ok && off < sizeof(in)) {
                    size_t k = a->block * (1 + (size_t)cpt_rng_below(&r, 8));

                    k = k > sizeof(in) - off ? sizeof(in) - off : k;
                    ok = EVP_Cipher(ctx, out[prov] + off, in + off, (unsigned int)k) > 0;
                    off += k;
                }
                EVP_CIPHER_CTX_free(ctx);
            }
            CPT_CHECK(ok && memcmp(out[0], out[1], sizeof(in)) == 0,
                "%s: EVP_Cipher %s in pieces equals the default provider's", a->name,
                enc ? "encryption" : "decryption");
        }
        g_used[ai] = 1;
    }
}

/*
 * The same update sequence through both providers; after each update
 * "updated-iv" and "num" agree, "iv" stays the initial one; a context
 * copied halfway finishes the message as the original does.
 */
static void test_params_and_copy(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 3);
    for (size_t ai = 0; ai < NALG; ai++) {
        const struct alg *a = &g_algs[ai];
        unsigned char key[32], iv[16], in[300], out[3][400];
        EVP_CIPHER_CTX *ctx[2], *copy = EVP_CIPHER_CTX_new();
        size_t off = 0, done[3] = { 0, 0, 0 };
        int ok = 1, n;

        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, iv, sizeof(iv));
        cpt_rng_fill(&r, in, sizeof(in));
        for (int p = 0; p < 2; p++) {
            ctx[p] = EVP_CIPHER_CTX_new();
            ok = ok && EVP_EncryptInit_ex2(ctx[p], p ? g_tc[ai] : g_rc[ai], key, iv, NULL);
        }
        while (ok && off < sizeof(in)) {
            size_t k = (size_t)cpt_rng_below(&r, 60);
            unsigned char uiv[2][16], oiv[16];
            unsigned int num[2];

            k = k > sizeof(in) - off ? sizeof(in) - off : k;
            for (int p = 0; p < 2; p++) {
                ok = ok && EVP_EncryptUpdate(ctx[p], out[p] + done[p], &n, in + off, (int)k);
                done[p] += (size_t)n;
                memset(uiv[p], 0, sizeof(uiv[p]));
                ok = ok
                    && (!a->iv_params || EVP_CIPHER_CTX_get_updated_iv(ctx[p], uiv[p], a->ivlen));
                num[p] = a->iv_params ? (unsigned int)EVP_CIPHER_CTX_get_num(ctx[p]) : 0;
            }
            CPT_CHECK(ok && done[0] == done[1] && memcmp(uiv[0], uiv[1], a->ivlen) == 0
                    && num[0] == num[1],
                "%s: output, updated-iv and num agree after %zu bytes", a->name, off + k);
            CPT_CHECK(!a->iv_params
                    || (EVP_CIPHER_CTX_get_original_iv(ctx[1], oiv, a->ivlen)
                        && memcmp(oiv, iv, a->ivlen) == 0),
                "%s: iv is the initial IV", a->name);
            off += k;
            if (off >= sizeof(in) / 2 && done[2] == 0) {
                ok = ok && EVP_CIPHER_CTX_copy(copy, ctx[1]);
                memcpy(out[2], out[1], done[1]);
                done[2] = done[1];
                if (ok) {
                    ok = EVP_EncryptUpdate(copy, out[2] + done[2], &n, in + off,
                             (int)(sizeof(in) - off))
                        && (done[2] += (size_t)n, EVP_EncryptFinal_ex(copy, out[2] + done[2], &n));
                    done[2] += ok ? (size_t)n : 0;
                }
            }
        }
        for (int p = 0; p < 2; p++) {
            ok = ok && EVP_EncryptFinal_ex(ctx[p], out[p] + done[p], &n);
            done[p] += (size_t)n;
            EVP_CIPHER_CTX_free(ctx[p]);
        }
        CPT_CHECK(ok && done[0] == done[1] && memcmp(out[0], out[1], done[0]) == 0,
            "%s: the streams agree", a->name);
        CPT_CHECK(ok && done[2] == done[0] && memcmp(out[2], out[0], done[0]) == 0,
            "%s: a context copied halfway finishes the same message", a->name);
        EVP_CIPHER_CTX_free(copy);
        g_used[ai] = 1;
    }
}

/*
 * A re-init without an IV (same key, or the key again) starts the next
 * message from the IV set last for CBC and from the running counter for
 * CTR, as the default provider does.
 */
static void test_reinit(void)
{
    /* messages of 48 bytes (the CPU path) and of 6000 (the device) */
    static const size_t lens[] = { 48, 6000 };
    static unsigned char out[2][3][6000], cross[2][6200];

    for (size_t ai = 0; ai < NALG; ai++) {
        const struct alg *a = &g_algs[ai];
        unsigned char key[32] = { 3 }, iv[16] = { 4 };

        for (size_t l = 0; l < 2; l++) {
            int ok = 1, n;
            int len = (int)lens[l];

            for (int p = 0; p < 2; p++) {
                EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

                memset(out[p], 0, sizeof(out[p]));
                ok = ok && EVP_EncryptInit_ex2(ctx, p ? g_tc[ai] : g_rc[ai], key, iv, NULL)
                    && EVP_CIPHER_CTX_set_padding(ctx, 0)
                    && EVP_EncryptUpdate(ctx, out[p][0], &n, out[p][0], len)
                    && EVP_EncryptInit_ex2(ctx, NULL, NULL, NULL, NULL)
                    && EVP_EncryptUpdate(ctx, out[p][1], &n, out[p][1], len)
                    && EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL)
                    && EVP_EncryptUpdate(ctx, out[p][2], &n, out[p][2], len);
                EVP_CIPHER_CTX_free(ctx);
            }
            CPT_CHECK(ok && memcmp(out[0], out[1], sizeof(out[0])) == 0,
                "%s: %d-byte messages after re-inits without an IV agree", a->name, len);
        }
        /* a stream that crossed to the device and back, then a re-init */
        {
            int ok = 1, n;

            for (int p = 0; p < 2; p++) {
                EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

                memset(cross[p], 0, sizeof(cross[p]));
                ok = ok && EVP_EncryptInit_ex2(ctx, p ? g_tc[ai] : g_rc[ai], key, iv, NULL)
                    && EVP_CIPHER_CTX_set_padding(ctx, 0)
                    && EVP_EncryptUpdate(ctx, cross[p], &n, cross[p], 48)
                    && EVP_EncryptUpdate(ctx, cross[p] + 48, &n, cross[p] + 48, 6000)
                    && EVP_EncryptUpdate(ctx, cross[p] + 6048, &n, cross[p] + 6048, 48)
                    && EVP_EncryptInit_ex2(ctx, NULL, NULL, NULL, NULL)
                    && EVP_EncryptUpdate(ctx, cross[p] + 6096, &n, cross[p] + 6096, 48);
                EVP_CIPHER_CTX_free(ctx);
            }
            CPT_CHECK(ok && memcmp(cross[0], cross[1], sizeof(cross[0])) == 0,
                "%s: a re-init after the stream crossed paths twice agrees", a->name);
        }
        g_used[ai] = 1;
    }
}

/*
 * An init that carries parameters (here: padding off) goes to the device
 * path at once; the short updates that follow must find its key, not the
 * one of the message before, on the CPU path.
 */
static void test_init_params(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 6);
    for (size_t ai = 0; ai < NALG; ai++) {
        const struct alg *a = &g_algs[ai];
        unsigned char key[32], key0[32] = { 5 }, iv[16], in[640], out[2][700];
        unsigned int pad = 0;
        int ok = 1, n;
        size_t done[2] = { 0, 0 };

        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, iv, sizeof(iv));
        cpt_rng_fill(&r, in, sizeof(in));
        for (int p = 0; p < 2; p++) {
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
            OSSL_PARAM params[] = { OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &pad),
                OSSL_PARAM_END };

            /* a message with another key first */
            ok = ok && EVP_CipherInit_ex2(ctx, p ? g_tc[ai] : g_rc[ai], key0, iv, 1, NULL)
                && EVP_EncryptUpdate(ctx, out[p], &n, in, 32)
                && EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, params);
            for (size_t off = 0; ok && off < sizeof(in); off += 64) {
                ok = EVP_EncryptUpdate(ctx, out[p] + done[p], &n, in + off, 64);
                done[p] += (size_t)n;
            }
            ok = ok && EVP_EncryptFinal_ex(ctx, out[p] + done[p], &n);
            done[p] += ok ? (size_t)n : 0;
            EVP_CIPHER_CTX_free(ctx);
        }
        CPT_CHECK(ok && done[0] == done[1] && memcmp(out[0], out[1], done[0]) == 0,
            "%s: short updates after an init with parameters agree", a->name);
        g_used[ai] = 1;
    }
}

/* A TLS record's payload length: often empty (libssl sends an empty
 * record ahead of TLS 1.0 application data against the known-IV attack,
 * which with encrypt-then-MAC leaves nothing but padding to encrypt),
 * else short, around the CPU path's threshold, or up to a full record. */
static size_t tls_payload_len(cpt_rng *r)
{
    unsigned p = (unsigned)cpt_rng_below(r, 100);

    if (p < 20)
        return 0;
    if (p < 50)
        return (size_t)cpt_rng_below(r, 300);
    if (p < 80)
        return (size_t)cpt_rng_range(r, 3900, 4300);
    return (size_t)cpt_rng_range(r, 4300, 16384);
}

/* A connection's direction as libssl sets it up for a provided CBC
 * cipher: key and IV at init, then "tls-version" and "tls-mac-size". */
static EVP_CIPHER_CTX *tls_conn(EVP_CIPHER *c, int enc, const unsigned char *key,
    const unsigned char *iv, int version, size_t macsize)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    OSSL_PARAM p[] = { OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize), OSSL_PARAM_END };

    if (ctx == NULL || !EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc)
        || !EVP_CIPHER_CTX_set_params(ctx, p)) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* Opens a record in place: the length left (-1 on failure) and the MAC. */
static int tls_open(EVP_CIPHER_CTX *ctx, unsigned char *rec, size_t len, size_t macsize,
    unsigned char **mac)
{
    OSSL_PARAM p[] = { OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, (void **)mac,
                           macsize),
        OSSL_PARAM_END };
    int n;

    *mac = NULL;
    if (!EVP_CipherUpdate(ctx, rec, &n, rec, (int)len)
        || (macsize != 0 && !EVP_CIPHER_CTX_get_params(ctx, p)))
        return -1;
    return n;
}

/*
 * TLS CBC records as libssl hands them to a provider, one EVP_CipherUpdate
 * each, sealed and opened by both providers: TLS 1.0 chains each record's
 * IV from the ciphertext of the one before, TLS 1.1 and 1.2 carry an
 * explicit IV; with encrypt-then-MAC (no MAC inside) or MAC-then-encrypt.
 * Records of random sizes on both sides of the CPU path's threshold, with
 * now and then an EVP_Cipher of whole blocks between them, which continues
 * the same chain. The ciphertexts and "updated-iv" must be the default
 * provider's after every record, and each provider must open the other's.
 */
static void test_tls_records(void)
{
    static const int versions[] = { 0x0301, 0x0302, 0x0303 };
    static const size_t macsizes[] = { 20, 32, 48 }; /* SHA-1, SHA-256, SHA-384 */
    enum { RECS = 24, MAXREC = 16 + 16384 + 48 + 256 };
    static unsigned char rec[2][MAXREC], clear[MAXREC], opened[2][MAXREC];
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 7);
    for (size_t ai = 0; ai < NALG; ai++) {
        const struct alg *a = &g_algs[ai];

        if (!a->padded)
            continue;
        for (size_t vi = 0; vi < 2 * sizeof(versions) / sizeof(versions[0]); vi++) {
            int version = versions[vi / 2];
            /* encrypt-then-MAC, then MAC-then-encrypt */
            size_t macsize = vi % 2 == 0 ? 0 : macsizes[cpt_rng_below(&r, 3)];
            size_t eiv = version >= 0x0302 ? a->block : 0;
            unsigned char key[32], iv[16];
            EVP_CIPHER_CTX *seal[2], *open[2];
            int ok = 1;

            cpt_rng_fill(&r, key, sizeof(key));
            cpt_rng_fill(&r, iv, sizeof(iv));
            for (int p = 0; p < 2; p++) {
                EVP_CIPHER *c = p ? g_tc[ai] : g_rc[ai];

                seal[p] = tls_conn(c, 1, key, iv, version, macsize);
                open[p] = tls_conn(c, 0, key, iv, version, macsize);
                ok = ok && seal[p] != NULL && open[p] != NULL;
            }
            if (!CPT_CHECK(ok, "%s: TLS %#x contexts (MAC %zu) in both providers", a->name, version,
                    macsize))
                goto next;
            for (int i = 0; i < RECS; i++) {
                size_t payload = i == 1 ? 0 : tls_payload_len(&r);
                size_t inl = eiv + payload + macsize, len[2];
                unsigned char uiv[2][16], *mac[2];
                int n[2];

                if (i != 1 && cpt_rng_pct(&r, 10)) {
                    /* EVP_Cipher: no padding, no TLS, the same running IV */
                    size_t k = a->block * (size_t)cpt_rng_range(&r, 1, 300);

                    cpt_rng_fill(&r, clear, k);
                    for (int p = 0; p < 2; p++) {
                        memcpy(rec[p], clear, k);
                        ok = ok && EVP_Cipher(seal[p], rec[p], rec[p], (unsigned int)k) > 0
                            && EVP_Cipher(open[p], opened[p], rec[0], (unsigned int)k) > 0;
                    }
                    CPT_CHECK(ok && memcmp(rec[0], rec[1], k) == 0
                            && memcmp(opened[0], clear, k) == 0 && memcmp(opened[1], clear, k) == 0,
                        "%s TLS %#x: EVP_Cipher of %zu bytes after record %d agrees (seed %llu)",
                        a->name, version, k, i, (unsigned long long)g_o.seed);
                    continue;
                }
                cpt_rng_fill(&r, clear, inl);
                for (int p = 0; p < 2; p++) {
                    memcpy(rec[p], clear, inl);
                    ok = ok && EVP_CipherUpdate(seal[p], rec[p], &n[p], rec[p], (int)inl);
                    len[p] = ok ? (size_t)n[p] : 0;
                    memset(uiv[p], 0, sizeof(uiv[p]));
                    ok = ok && EVP_CIPHER_CTX_get_updated_iv(seal[p], uiv[p], a->ivlen);
                }
                if (!CPT_CHECK(ok && len[0] == len[1] && memcmp(rec[0], rec[1], len[0]) == 0
                            && memcmp(uiv[0], uiv[1], a->ivlen) == 0,
                        "%s TLS %#x MAC %zu: record %d (%zu bytes of payload) sealed as the "
                        "default provider seals it (%zu bytes, want %zu; seed %llu)",
                        a->name, version, macsize, i, payload, len[1], len[0],
                        (unsigned long long)g_o.seed))
                    break;
                /* each opens the other's record */
                for (int p = 0; p < 2; p++) {
                    memcpy(opened[p], rec[!p], len[0]);
                    n[p] = tls_open(open[p], opened[p], len[0], macsize, &mac[p]);
                }
                ok = n[0] >= 0 && n[1] >= 0;
                CPT_CHECK(ok && (size_t)n[0] == payload && (size_t)n[1] == payload
                        && memcmp(opened[0] + eiv, clear + eiv, payload) == 0
                        && memcmp(opened[1] + eiv, clear + eiv, payload) == 0
                        && (macsize == 0
                            || (mac[0] != NULL && mac[1] != NULL
                                && memcmp(mac[0], clear + eiv + payload, macsize) == 0
                                && memcmp(mac[1], clear + eiv + payload, macsize) == 0)),
                    "%s TLS %#x MAC %zu: record %d (%zu bytes of payload) opened by both "
                    "(lengths %d and %d)",
                    a->name, version, macsize, i, payload, n[0], n[1]);
                if (!ok)
                    break;
            }
        next:
            for (int p = 0; p < 2; p++) {
                EVP_CIPHER_CTX_free(seal[p]);
                EVP_CIPHER_CTX_free(open[p]);
            }
            ERR_clear_error();
        }
        g_used[ai] = 1;
    }
}

struct job {
    size_t ai;
    unsigned char key[32], iv[16];
    unsigned char *in, *out;
    size_t len, outl;
    int ok;
};

static int job_fn(void *arg)
{
    struct job *j = arg;

    j->ok = crypt_msg(g_tc[j->ai], 1, 1, j->key, j->iv, j->in, j->len, j->out, &j->outl, NULL);
    return j->ok;
}

static void job_make(void *job, int k, cpt_rng *r)
{
    struct job *jb = job;

    jb->ai = (size_t)k % NALG;
    jb->len = (size_t)cpt_rng_below(r, 40000);
    cpt_rng_fill(r, jb->key, sizeof(jb->key));
    cpt_rng_fill(r, jb->iv, sizeof(jb->iv));
    jb->in = malloc(jb->len + 1);
    jb->out = malloc(jb->len + 32);
    cpt_rng_fill(r, jb->in, jb->len);
}

static void job_check(void *job, int k)
{
    struct job *jb = job;
    unsigned char *ref = malloc(jb->len + 32);
    size_t rl;

    CPT_CHECK(jb->ok
            && crypt_msg(g_rc[jb->ai], 1, 1, jb->key, jb->iv, jb->in, jb->len, ref, &rl, NULL)
            && rl == jb->outl && memcmp(ref, jb->out, rl) == 0,
        "async job %d (%s, %zu bytes) equals the default provider's", k, g_algs[jb->ai].name,
        jb->len);
    g_used[jb->ai] = 1;
    free(ref);
    free(jb->in);
    free(jb->out);
}

static void test_async(void)
{
    static const cpt_async_test t = { 64, sizeof(struct job), 4, "operations", job_make, job_fn,
        job_check };

    cpt_async_run(&g_env, g_o.seed, &t);
}

/* The counters show every algorithm used on the device and on the CPU path. */
static void test_stats(void)
{
    for (size_t i = 0; i < NALG; i++)
        if (g_used[i])
            cpt_stats_check_paths(&g_env, &g_o, g_algs[i].name);
}

static const cpt_named_test g_tests[] = {
    { "kat", test_kat },
    { "differential", test_differential },
    { "errors", test_errors },
    { "oneshot", test_oneshot },
    { "params", test_params_and_copy },
    { "reinit", test_reinit },
    { "init-params", test_init_params },
    { "tls-records", test_tls_records },
    { "async", test_async },
    { "stats", test_stats },
};

static const char *alg_name(size_t i)
{
    return g_algs[i].name;
}

int main(int argc, char **argv)
{
    int rc = cpt_harness_start("sym_test", &g_o, &g_env, argc, argv, &g_iters, &g_maxlen);

    g_argv0 = argv[0];
    if (rc >= 0)
        return rc;
    return cpt_run_cipher_tests(&g_o, &g_env, g_tc, g_rc, NALG, alg_name, g_tests,
        sizeof(g_tests) / sizeof(g_tests[0]));
}
