/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chachapoly_test - ChaCha20-Poly1305 of the provider under test against
 * OpenSSL's default provider: RFC 8439 vectors; random keys, nonces, AAD
 * and messages (0 bytes to 1 MiB) in random update splits, both directions
 * and across providers, truncated tags, tampered tags; several messages on
 * one context; TLS 1.2 records (RFC 7905: tlsivfixed, tlsaad, the sequence
 * number XORed into the nonce) and TLS 1.3 records (an IV per record, a
 * 5-byte AAD, the tag by parameter); contexts copied mid-message; errors;
 * many concurrent ASYNC jobs; and the provider's counters.
 *
 *   chachapoly_test [common options] [--iters N] [--maxlen BYTES]
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "common.h"

#define ALG "ChaCha20-Poly1305"

static cpt_opts g_o;
static cpt_env g_env;
static EVP_CIPHER *g_c[2]; /* [0] reference (default), [1] under test */
static uint64_t g_iters = 300;
static size_t g_maxlen = 1 << 20;
static const char *g_argv0;

static const char *who(int p)
{
    return p ? g_env.name : "default";
}

struct msg {
    const unsigned char *key, *nonce, *aad, *in;
    size_t aadl, inl, taglen;
    unsigned char *out;
    unsigned char tag[16]; /* encrypt: out; decrypt: the expected tag */
};

static int set_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, size_t len)
{
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)len, tag) > 0;
}

/*
 * One message on ctx (already keyed unless m->key is set): the nonce (when
 * given), the AAD in up to three pieces, the data in random pieces, final,
 * the tag. r == NULL: one piece each. Returns 1 when every call succeeded.
 */
static int run_msg(EVP_CIPHER_CTX *ctx, EVP_CIPHER *c, int enc, struct msg *m, cpt_rng *r)
{
    size_t off = 0, done = 0;
    int n, ok = EVP_CipherInit_ex2(ctx, c, m->key, m->nonce, enc, NULL);

    if (ok && !enc)
        ok = set_tag(ctx, m->tag, m->taglen);
    while (ok && off < m->aadl) {
        size_t k = r != NULL ? 1 + (size_t)cpt_rng_below(r, m->aadl - off) : m->aadl - off;

        ok = EVP_CipherUpdate(ctx, NULL, &n, m->aad + off, (int)k);
        off += k;
    }
    for (off = 0; ok && off < m->inl; off += 0) {
        size_t k = r != NULL ? (size_t)cpt_rng_below(r, m->inl - off + 1) : m->inl - off;

        ok = EVP_CipherUpdate(ctx, m->out + done, &n, m->in + off, (int)k);
        done += (size_t)n;
        off += k;
    }
    ok = ok && done == m->inl && EVP_CipherFinal_ex(ctx, m->out + done, &n) && n == 0;
    if (ok && enc)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, m->tag) > 0;
    return ok;
}

/* One message on a fresh context. */
static int one_msg(EVP_CIPHER *c, int enc, struct msg *m, cpt_rng *r)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx != NULL && run_msg(ctx, c, enc, m, r);

    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* RFC 8439 section 2.8.2 and appendix A.5. */
static void test_kat(void)
{
    char path[4096];
    cpt_recfile rf;

    if (!CPT_CHECK(cpt_find_file(g_argv0, "tests/vectors/rfc8439.txt", path, sizeof(path))
                && cpt_recfile_load(path, &rf),
            "tests/vectors/rfc8439.txt loads"))
        return;
    for (size_t i = 0; i < rf.n; i++) {
        const cpt_record *rec = &rf.recs[i];
        unsigned char *key = NULL, *iv = NULL, *aad = NULL, *tag = NULL, *pt = NULL, *ct = NULL;
        unsigned char out[512];
        size_t kl, ivl, al, tl, pl, cl;

        if (cpt_record_get(rec, "Tag") == NULL)
            continue; /* ChaCha20 alone: sym_test's */
        if (!CPT_CHECK(cpt_record_get_hex(rec, "Key", &key, &kl) == 1
                    && cpt_record_get_hex(rec, "IV", &iv, &ivl) == 1
                    && cpt_record_get_hex(rec, "AAD", &aad, &al) == 1
                    && cpt_record_get_hex(rec, "Tag", &tag, &tl) == 1
                    && cpt_record_get_hex(rec, "Plaintext", &pt, &pl) == 1
                    && cpt_record_get_hex(rec, "Ciphertext", &ct, &cl) == 1 && pl == cl
                    && pl <= sizeof(out) && kl == 32 && ivl == 12 && tl == 16,
                "vector at line %d is well formed", rec->line))
            goto next;
        for (int p = 0; p < 2; p++) {
            struct msg m = { key, iv, aad, pt, al, pl, 16, out, { 0 } };

            CPT_CHECK(one_msg(g_c[p], 1, &m, NULL) && memcmp(out, ct, cl) == 0
                    && memcmp(m.tag, tag, 16) == 0,
                "encrypt, vector at line %d (%s)", rec->line, who(p));
            m.in = ct;
            memcpy(m.tag, tag, 16);
            CPT_CHECK(one_msg(g_c[p], 0, &m, NULL) && memcmp(out, pt, pl) == 0,
                "decrypt, vector at line %d (%s)", rec->line, who(p));
        }
    next:
        cpt_free_n(6, key, iv, aad, tag, pt, ct);
    }
    cpt_recfile_free(&rf);
}

static void test_differential(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 1);
    for (uint64_t it = 0; it < g_iters; it++) {
        unsigned char key[32], nonce[12], aad[100], rtag[16];
        size_t len = cpt_pick_len(&r, 55, 90, 20000, g_maxlen),
               aadl = (size_t)cpt_rng_below(&r, sizeof(aad) + 1);
        unsigned char *pt = malloc(len + 1), *ref = malloc(len + 1), *ct = malloc(len + 1);
        unsigned char *back = malloc(len + 1);
        struct msg m = { key, nonce, aad, pt, aadl, len, 16, ref, { 0 } };
        int ok;

        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, nonce, sizeof(nonce));
        cpt_rng_fill(&r, aad, aadl);
        cpt_rng_fill(&r, pt, len);
        if (!CPT_CHECK(one_msg(g_c[0], 1, &m, NULL), "reference encryption"))
            goto next;
        memcpy(rtag, m.tag, 16);
        m.out = ct;
        ok = one_msg(g_c[1], 1, &m, &r);
        CPT_CHECK(ok && memcmp(ct, ref, len) == 0 && memcmp(m.tag, rtag, 16) == 0,
            "encryption of %zu bytes with %zu of AAD in random pieces equals the default "
            "provider's (iteration %llu)",
            len, aadl, (unsigned long long)it);
        /* the reference's ciphertext opened here, with a random tag length */
        m.in = ref;
        m.out = back;
        m.taglen = 1 + (size_t)cpt_rng_below(&r, 16);
        memcpy(m.tag, rtag, 16);
        CPT_CHECK(one_msg(g_c[1], 0, &m, &r) && memcmp(back, pt, len) == 0,
            "decryption of %zu bytes (%zu-byte tag) gives the plaintext back", len, m.taglen);
        /* a tampered tag or ciphertext fails at final, with an error */
        m.tag[cpt_rng_below(&r, m.taglen)] ^= (unsigned char)(1 + cpt_rng_below(&r, 255));
        CPT_CHECK(!one_msg(g_c[1], 0, &m, &r) && ERR_peek_error() != 0,
            "a tampered tag is rejected (%zu bytes)", len);
        ERR_clear_error();
        if (len > 0) {
            /* the whole tag: a truncated one lets a forgery through with
             * probability 2^-8t, which the random lengths above would hit */
            memcpy(m.tag, rtag, 16);
            m.taglen = 16;
            memcpy(ct, ref, len);
            ct[cpt_rng_below(&r, len)] ^= 0x80;
            m.in = ct;
            CPT_CHECK(!one_msg(g_c[1], 0, &m, &r) && ERR_peek_error() != 0,
                "a tampered ciphertext is rejected (%zu bytes)", len);
            ERR_clear_error();
        }
    next:
        free(pt);
        free(ref);
        free(ct);
        free(back);
    }
}

/*
 * Empty messages, every tag length, AAD or none, in one piece and in random
 * pieces: a tampered tag is refused. (A device whose tag of an empty
 * message was taken for verified let forgeries through on the dpdk
 * backend; the random lengths above reach this case rarely.)
 */
static void test_empty(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 7);
    for (size_t t = 1; t <= 16; t++) {
        for (int pieces = 0; pieces < 2; pieces++) {
            unsigned char key[32], nonce[12], aad[20], rtag[16], none[1];
            size_t aadl = t % 2 ? sizeof(aad) : 0;
            struct msg m = { key, nonce, aad, none, aadl, 0, 16, none, { 0 } };

            cpt_rng_fill(&r, key, sizeof(key));
            cpt_rng_fill(&r, nonce, sizeof(nonce));
            cpt_rng_fill(&r, aad, sizeof(aad));
            if (!CPT_CHECK(one_msg(g_c[0], 1, &m, NULL), "reference encryption"))
                continue;
            memcpy(rtag, m.tag, 16);
            m.taglen = t;
            CPT_CHECK(one_msg(g_c[1], 0, &m, pieces ? &r : NULL),
                "an empty message (%zu bytes of AAD) opens with its %zu-byte tag", aadl, t);
            m.tag[cpt_rng_below(&r, t)] ^= (unsigned char)(1 + cpt_rng_below(&r, 255));
            CPT_CHECK(!one_msg(g_c[1], 0, &m, pieces ? &r : NULL) && ERR_peek_error() != 0,
                "an empty message (%zu bytes of AAD) with a tampered %zu-byte tag is refused", aadl,
                t);
            ERR_clear_error();
            memcpy(m.tag, rtag, 16);
        }
    }
}

/*
 * Messages one after the other on one context: OpenSSL lets each reuse the
 * nonce and key, or take a new nonce by an init with the IV only.
 */
static void test_sequence(void)
{
    cpt_rng r;
    static unsigned char pt[9000], out[2][9000];

    cpt_rng_seed(&r, g_o.seed, 2);
    for (int round = 0; round < 20; round++) {
        unsigned char key[32], nonce[12], aad[20], tag[2][16];
        EVP_CIPHER_CTX *ctx[2] = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };
        int ok = 1;

        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, nonce, sizeof(nonce));
        cpt_rng_fill(&r, aad, sizeof(aad));
        cpt_rng_fill(&r, pt, sizeof(pt));
        for (int k = 0; ok && k < 4; k++) {
            /* short messages run on the CPU path, long ones on the device */
            size_t len = cpt_rng_pct(&r, 50) ? (size_t)cpt_rng_below(&r, 200) : sizeof(pt);
            int newiv = cpt_rng_pct(&r, 50);

            if (newiv)
                cpt_rng_fill(&r, nonce, sizeof(nonce));
            for (int p = 0; ok && p < 2; p++) {
                struct msg m = { k == 0 ? key : NULL, k == 0 || newiv ? nonce : NULL, aad, pt,
                    sizeof(aad), len, 16, out[p], { 0 } };

                ok = run_msg(ctx[p], k == 0 ? g_c[p] : NULL, 1, &m, NULL);
                memcpy(tag[p], m.tag, 16);
            }
            CPT_CHECK(ok && memcmp(out[0], out[1], len) == 0 && memcmp(tag[0], tag[1], 16) == 0,
                "message %d (%zu bytes, %s) on one context equals the default provider's", k, len,
                newiv ? "new nonce" : "same nonce");
        }
        EVP_CIPHER_CTX_free(ctx[0]);
        EVP_CIPHER_CTX_free(ctx[1]);
    }
}

static int set_octets(EVP_CIPHER_CTX *ctx, const char *name, unsigned char *v, size_t n)
{
    OSSL_PARAM params[2] = { OSSL_PARAM_octet_string(name, v, n), OSSL_PARAM_END };

    return EVP_CIPHER_CTX_set_params(ctx, params);
}

/*
 * TLS 1.2 (RFC 7905): sealed by one provider, opened by the other, in
 * place; the sealed records agree; a tampered record fails cleanly.
 */
static void test_tls12(void)
{
    cpt_rng r;
    static unsigned char rec[2][17000];

    cpt_rng_seed(&r, g_o.seed, 3);
    for (int conn = 0; conn < 8; conn++) {
        unsigned char key[32], fixed[12];
        EVP_CIPHER_CTX *seal[2], *open[2];
        int ok = 1;

        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, fixed, sizeof(fixed));
        for (int p = 0; p < 2; p++) {
            seal[p] = EVP_CIPHER_CTX_new();
            open[p] = EVP_CIPHER_CTX_new();
            ok = ok && EVP_CipherInit_ex2(seal[p], g_c[p], key, NULL, 1, NULL)
                && set_octets(seal[p], OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed, 12)
                && EVP_CipherInit_ex2(open[p], g_c[p], key, NULL, 0, NULL)
                && set_octets(open[p], OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed, 12);
        }
        for (uint64_t seq = 0; ok && seq < 40; seq++) {
            size_t plen = cpt_rng_pct(&r, 60) ? (size_t)cpt_rng_below(&r, 600)
                                              : (size_t)cpt_rng_below(&r, 16385);
            unsigned char aad[13];
            int n[2];

            for (int i = 0; i < 8; i++)
                aad[i] = (unsigned char)(seq >> (56 - 8 * i));
            aad[8] = 23, aad[9] = 3, aad[10] = 3;
            cpt_rng_fill(&r, rec[0], plen);
            memcpy(rec[1], rec[0], plen);
            for (int p = 0; p < 2; p++) {
                aad[11] = (unsigned char)(plen >> 8), aad[12] = (unsigned char)plen;
                n[p] = set_octets(seal[p], OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, aad, 13)
                    ? EVP_Cipher(seal[p], rec[p], rec[p], (unsigned int)(plen + 16))
                    : -1;
            }
            ok = CPT_CHECK(n[0] == (int)plen + 16 && n[1] == n[0]
                    && memcmp(rec[0], rec[1], plen + 16) == 0,
                "TLS 1.2 record %llu (%zu bytes) sealed as the default provider does",
                (unsigned long long)seq, plen);
            /* each opens the other's record */
            for (int p = 0; ok && p < 2; p++) {
                aad[11] = (unsigned char)((plen + 16) >> 8), aad[12] = (unsigned char)(plen + 16);
                n[p] = set_octets(open[p], OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, aad, 13)
                    ? EVP_Cipher(open[p], rec[1 - p], rec[1 - p], (unsigned int)(plen + 16))
                    : -1;
            }
            ok = CPT_CHECK(ok && n[0] == (int)plen && n[1] == (int)plen
                    && memcmp(rec[0], rec[1], plen) == 0,
                "TLS 1.2 record %llu opened by both providers", (unsigned long long)seq);
        }
        /* a record with a flipped bit: rejected, with an error, not a crash */
        if (ok) {
            unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 99, 23, 3, 3, 0, 16 + 40 };
            int n;

            memset(rec[0], 0x5a, 56);
            rec[0][cpt_rng_below(&r, 56)] ^= 1;
            n = set_octets(open[1], OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, aad, 13)
                ? EVP_Cipher(open[1], rec[0], rec[0], 56)
                : -1;
            CPT_CHECK(n < 0 && ERR_peek_error() != 0, "a forged TLS 1.2 record is rejected");
            ERR_clear_error();
        }
        /* an opening AAD whose record cannot hold the tag is refused at once */
        for (int p = 0; ok && p < 2; p++) {
            unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 100, 23, 3, 3, 0, 15 };
            int refused = !set_octets(open[p], OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, aad, 13);

            CPT_CHECK(refused && ERR_peek_error() != 0,
                "%s refuses a TLS 1.2 AAD announcing 15 bytes to open, with an error",
                p == 1 ? "the provider" : "the default provider");
            ERR_clear_error();
            aad[12] = 16;
            CPT_CHECK(set_octets(open[p], OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, aad, 13),
                "%s takes one announcing 16", p == 1 ? "the provider" : "the default provider");
            CPT_CHECK(!set_octets(open[p], OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed, 11)
                    && ERR_peek_error() != 0,
                "%s refuses a TLS fixed IV of 11 bytes, with an error",
                p == 1 ? "the provider" : "the default provider");
            ERR_clear_error();
        }
        for (int p = 0; p < 2; p++) {
            EVP_CIPHER_CTX_free(seal[p]);
            EVP_CIPHER_CTX_free(open[p]);
        }
    }
}

/*
 * TLS 1.3 as libssl drives it: per record an init with the nonce, the tag
 * set before (decrypt), a 5-byte AAD, the data, final, the tag read after
 * (encrypt). Records of both sizes: the CPU path's and the device's.
 */
static void test_tls13(void)
{
    cpt_rng r;
    static unsigned char pt[17000], ct[2][17000], back[17000];

    cpt_rng_seed(&r, g_o.seed, 4);
    for (int conn = 0; conn < 6; conn++) {
        unsigned char key[32], iv[12];
        EVP_CIPHER_CTX *enc[2], *dec = EVP_CIPHER_CTX_new();
        int ok;

        cpt_rng_fill(&r, key, sizeof(key));
        cpt_rng_fill(&r, iv, sizeof(iv));
        enc[0] = EVP_CIPHER_CTX_new();
        enc[1] = EVP_CIPHER_CTX_new();
        ok = EVP_CipherInit_ex2(enc[0], g_c[0], key, NULL, 1, NULL)
            && EVP_CipherInit_ex2(enc[1], g_c[1], key, NULL, 1, NULL)
            && EVP_CipherInit_ex2(dec, g_c[1], key, NULL, 0, NULL);
        for (uint64_t seq = 0; ok && seq < 30; seq++) {
            size_t len = cpt_rng_pct(&r, 50) ? 1 + (size_t)cpt_rng_below(&r, 300)
                                             : 1 + (size_t)cpt_rng_below(&r, 16400);
            unsigned char nonce[12],
                hdr[5] = { 23, 3, 3, (unsigned char)((len + 16) >> 8), (unsigned char)(len + 16) };
            unsigned char tag[2][16];

            memcpy(nonce, iv, 12);
            for (int i = 0; i < 8; i++)
                nonce[4 + i] ^= (unsigned char)(seq >> (56 - 8 * i));
            cpt_rng_fill(&r, pt, len);
            for (int p = 0; ok && p < 2; p++) {
                struct msg m = { NULL, nonce, hdr, pt, 5, len, 16, ct[p], { 0 } };

                ok = run_msg(enc[p], NULL, 1, &m, NULL);
                memcpy(tag[p], m.tag, 16);
            }
            ok = CPT_CHECK(ok && memcmp(ct[0], ct[1], len) == 0 && memcmp(tag[0], tag[1], 16) == 0,
                "TLS 1.3 record %llu (%zu bytes) sealed as the default provider does",
                (unsigned long long)seq, len);
            if (ok) {
                struct msg m = { NULL, nonce, hdr, ct[0], 5, len, 16, back, { 0 } };

                memcpy(m.tag, tag[0], 16);
                ok = CPT_CHECK(run_msg(dec, NULL, 0, &m, NULL) && memcmp(back, pt, len) == 0,
                    "TLS 1.3 record %llu opened", (unsigned long long)seq);
            }
        }
        EVP_CIPHER_CTX_free(enc[0]);
        EVP_CIPHER_CTX_free(enc[1]);
        EVP_CIPHER_CTX_free(dec);
    }
}

/* A context copied mid-message finishes it as the original does. */
static void test_copy(void)
{
    static const size_t lens[] = { 100, 30000 };
    static unsigned char pt[30000], out[3][30000];

    for (size_t l = 0; l < 2; l++) {
        unsigned char key[32] = { 1 }, nonce[12] = { 2 }, aad[7] = { 3 }, tag[3][16];
        size_t len = lens[l], half = len / 2;
        EVP_CIPHER_CTX *ctx[2], *copy = EVP_CIPHER_CTX_new();
        int n, ok = 1;

        memset(pt, 0x42, len);
        for (int p = 0; p < 2; p++) {
            ctx[p] = EVP_CIPHER_CTX_new();
            ok = ok && EVP_EncryptInit_ex2(ctx[p], g_c[p], key, nonce, NULL)
                && EVP_EncryptUpdate(ctx[p], NULL, &n, aad, sizeof(aad))
                && EVP_EncryptUpdate(ctx[p], out[p], &n, pt, (int)half);
        }
        ok = ok && EVP_CIPHER_CTX_copy(copy, ctx[1]);
        memcpy(out[2], out[1], half);
        for (int p = 0; p < 3; p++) {
            EVP_CIPHER_CTX *c = p < 2 ? ctx[p] : copy;

            ok = ok && EVP_EncryptUpdate(c, out[p] + half, &n, pt + half, (int)(len - half))
                && EVP_EncryptFinal_ex(c, out[p] + len, &n)
                && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag[p]) > 0;
        }
        CPT_CHECK(ok && memcmp(out[0], out[1], len) == 0 && memcmp(tag[0], tag[1], 16) == 0
                && memcmp(out[2], out[0], len) == 0 && memcmp(tag[2], tag[0], 16) == 0,
            "a %zu-byte message and its copy taken halfway both equal the default provider's", len);
        EVP_CIPHER_CTX_free(ctx[0]);
        EVP_CIPHER_CTX_free(ctx[1]);
        EVP_CIPHER_CTX_free(copy);
    }
}

/*
 * Bad input: wrong IV and tag lengths fail at once; a decryption whose
 * final has no tag to check fails (OpenSSL's own accepts it, checking a
 * 0-byte tag: cptprov never returns unauthenticated plaintext as good).
 */
static void test_errors(void)
{
    unsigned char key[32] = { 1 }, iv[16] = { 2 }, buf[64] = { 3 }, tag[17] = { 0 };
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    OSSL_PARAM ivlen[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
    size_t eight = 8;
    int n;

    ivlen[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &eight);
    CPT_CHECK(!EVP_CipherInit_ex2(ctx, g_c[1], key, iv, 1, ivlen) && ERR_peek_error() != 0,
        "an 8-byte IV length is refused");
    ERR_clear_error();
    CPT_CHECK(EVP_CipherInit_ex2(ctx, g_c[1], key, iv, 0, NULL) && !set_tag(ctx, tag, 17)
            && ERR_peek_error() != 0,
        "a 17-byte tag is refused");
    ERR_clear_error();
    CPT_CHECK(EVP_CipherInit_ex2(ctx, g_c[1], key, iv, 0, NULL)
            && EVP_CipherUpdate(ctx, buf, &n, buf, sizeof(buf)) && !EVP_CipherFinal_ex(ctx, buf, &n)
            && ERR_peek_error() != 0,
        "a decryption without a tag fails at final");
    ERR_clear_error();
    CPT_CHECK(EVP_CipherInit_ex2(ctx, g_c[1], key, iv, 1, NULL)
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) <= 0
            && ERR_peek_error() != 0,
        "an encryption refuses an expected tag");
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
}

struct job {
    unsigned char key[32], nonce[12], aad[13], tag[16];
    unsigned char *in, *out;
    size_t len;
    int ok;
};

static int job_fn(void *arg)
{
    struct job *j = arg;
    struct msg m = { j->key, j->nonce, j->aad, j->in, sizeof(j->aad), j->len, 16, j->out, { 0 } };

    j->ok = one_msg(g_c[1], 1, &m, NULL);
    memcpy(j->tag, m.tag, 16);
    return j->ok;
}

static void job_make(void *job, int k, cpt_rng *r)
{
    struct job *jb = job;

    (void)k; /* one kind of job */
    jb->len = (size_t)cpt_rng_below(r, 40000);
    cpt_rng_fill(r, jb->key, sizeof(jb->key));
    cpt_rng_fill(r, jb->nonce, sizeof(jb->nonce));
    cpt_rng_fill(r, jb->aad, sizeof(jb->aad));
    jb->in = malloc(jb->len + 1);
    jb->out = malloc(jb->len + 1);
    cpt_rng_fill(r, jb->in, jb->len);
}

static void job_check(void *job, int k)
{
    struct job *jb = job;
    unsigned char *ref = malloc(jb->len + 1);
    struct msg m = { jb->key, jb->nonce, jb->aad, jb->in, sizeof(jb->aad), jb->len, 16, ref,
        { 0 } };

    CPT_CHECK(jb->ok && one_msg(g_c[0], 1, &m, NULL) && memcmp(ref, jb->out, jb->len) == 0
            && memcmp(m.tag, jb->tag, 16) == 0,
        "async job %d (%zu bytes) equals the default provider's", k, jb->len);
    free(ref);
    free(jb->in);
    free(jb->out);
}

static void test_async(void)
{
    static const cpt_async_test t = { 64, sizeof(struct job), 5, "operations", job_make, job_fn,
        job_check };

    cpt_async_run(&g_env, g_o.seed, &t);
}

static void test_stats(void)
{
    cpt_stats_check_paths(&g_env, &g_o, ALG);
}

static const cpt_named_test g_tests[] = {
    { "kat", test_kat },
    { "differential", test_differential },
    { "sequence", test_sequence },
    { "tls12", test_tls12 },
    { "tls13", test_tls13 },
    { "copy", test_copy },
    { "errors", test_errors },
    { "async", test_async },
    { "empty", test_empty },
    { "stats", test_stats },
};

int main(int argc, char **argv)
{
    int rc = cpt_harness_start("chachapoly_test", &g_o, &g_env, argc, argv, &g_iters, &g_maxlen);

    g_argv0 = argv[0];
    if (rc >= 0)
        return rc;
    g_c[0] = cpt_fetch_cipher(&g_env, 1, ALG);
    g_c[1] = cpt_fetch_cipher(&g_env, 0, ALG);
    if (CPT_CHECK(g_c[0] != NULL && g_c[1] != NULL, "%s is fetched from both providers", ALG))
        cpt_run_tests(&g_o, g_tests, sizeof(g_tests) / sizeof(g_tests[0]));
    EVP_CIPHER_free(g_c[0]);
    EVP_CIPHER_free(g_c[1]);
    cpt_env_free(&g_env);
    return cpt_finish();
}
