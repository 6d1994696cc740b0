/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libctx_test - cptprov in a library context of the application's own,
 * with the default library context holding only the null provider (as
 * OpenSSL's evp_test runs providers; FIPS-configured and sandboxed
 * applications restrict the default context too): whatever cptprov needs
 * internally must come from its own library context or its own code, never
 * from the application's default one. Every family runs through EVP in
 * that context (cptprov and the default provider, "?provider=cptprov", each
 * operation fetched with provider=cptprov) against the default provider in
 * another context: ciphers (AES-GCM, -CBC, -CTR, 3DES, ChaCha20,
 * ChaCha20-Poly1305, the stitched ciphers with long MAC keys), digests,
 * HMAC (also over digests only the CPU path has), RSA signatures (PKCS#1,
 * PSS, none) and encryption (PKCS#1, OAEP, none, TLS pre-master secret) on
 * 1024- to 4096-bit keys, RSA key generation, ECDSA and ECDH on every
 * curve, X25519, key import and export, the key checks; messages short
 * enough for the CPU path and long enough for the device (give
 * CPTPROV_CPU_THRESHOLD=0 to put everything on the device). Errors must
 * name their real cause (an RSA operand out of range is no curve point),
 * the counters must show that cptprov did the work, and the default
 * context must still hold only the null provider at the end.
 *
 *   libctx_test [common options] [--iters N]
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>

#include "common.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define DEF "provider=default"

static cpt_opts g_o;
static cpt_env g_env;
static OSSL_PROVIDER *g_null;
static uint64_t g_iters = 2;
static cpt_rng g_r;
static const char *g_argv0;

static const char *const g_curves[] = { "P-192", "P-224", "P-256", "P-384", "P-521" };

/* The context and property query of one side: 0 cptprov, 1 the default
 * provider (the reference). */
static OSSL_LIB_CTX *lc(int ref)
{
    return ref ? g_env.ref_libctx : g_env.libctx;
}
static const char *pq(int ref)
{
    return ref ? DEF : g_env.propq;
}
static const char *side(int ref)
{
    return ref ? "default" : g_env.name;
}

/* Short enough for every family's CPU path (3DES's threshold is 64). */
static size_t short_len(void)
{
    return 1 + (size_t)cpt_rng_below(&g_r, 40);
}
/* Longer than every family's default threshold (HMAC's is 64 KiB). */
static size_t long_len(void)
{
    return 66000 + (size_t)cpt_rng_below(&g_r, 20000);
}

static unsigned char *rnd(size_t n)
{
    unsigned char *b = malloc(n + 1);

    if (b != NULL)
        cpt_rng_fill(&g_r, b, n);
    return b;
}

/*
 * An RSA operand above the modulus: an error on the queue says so, and none
 * names a curve (which one did when any failure of the engine became a
 * curve's). The whole queue: OpenSSL 3.5's EVP_PKEY_verify adds an error of
 * its own after the provider's. Takes the errors off the queue.
 */
static int error_names_modulus(void)
{
    const char *data = NULL;
    int flags = 0, modulus = 0, curve = 0;

    while (ERR_get_error_all(NULL, NULL, NULL, &data, &flags) != 0) {
        if (data == NULL || !(flags & ERR_TXT_STRING))
            continue;
        modulus |= strcasestr(data, "modulus") != NULL;
        curve |= strcasestr(data, "curve") != NULL;
    }
    return modulus && !curve;
}

/* ================================================================== */
/* The default library context                                         */
/* ================================================================== */

static void test_trap(void)
{
    EVP_MD *md;

    CPT_CHECK(g_null != NULL && OSSL_PROVIDER_available(NULL, "null"),
        "the default library context has the null provider");
    CPT_CHECK(!OSSL_PROVIDER_available(NULL, "default"), "and not the default provider");
    md = EVP_MD_fetch(NULL, "SHA256", NULL);
    CPT_CHECK(md == NULL, "SHA-256 cannot be fetched from the default library context");
    EVP_MD_free(md);
    ERR_clear_error();
    md = EVP_MD_fetch(g_env.libctx, "SHA256", NULL);
    CPT_CHECK(md != NULL
            && strcmp(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md)), g_env.name) == 0,
        "SHA-256 fetched without a query in the application's context comes from %s (?%s)",
        g_env.name, g_env.propq);
    EVP_MD_free(md);
}

/* ================================================================== */
/* Ciphers                                                             */
/* ================================================================== */

enum { PLAIN, AEAD, STITCHED };

static const struct cipher_case {
    const char *name;
    int kind;
    size_t block; /* the stitched ciphers' plain mode takes whole blocks */
} g_ciphers[] = {
    { "AES-128-GCM", AEAD, 1 },
    { "AES-192-GCM", AEAD, 1 },
    { "AES-256-GCM", AEAD, 1 },
    { "AES-128-CBC", PLAIN, 1 },
    { "AES-192-CBC", PLAIN, 1 },
    { "AES-256-CBC", PLAIN, 1 },
    { "AES-128-CTR", PLAIN, 1 },
    { "AES-192-CTR", PLAIN, 1 },
    { "AES-256-CTR", PLAIN, 1 },
    { "DES-EDE3-CBC", PLAIN, 1 },
    { "ChaCha20", PLAIN, 1 },
    { "ChaCha20-Poly1305", AEAD, 1 },
    { "AES-128-CBC-HMAC-SHA1", STITCHED, 16 },
    { "AES-256-CBC-HMAC-SHA1", STITCHED, 16 },
    { "AES-128-CBC-HMAC-SHA256", STITCHED, 16 },
    { "AES-256-CBC-HMAC-SHA256", STITCHED, 16 },
};
static int g_cipher_used[NELEM(g_ciphers)];

/*
 * One message through c: AAD (aead), then the data in one update (its size
 * picks the path), then the final; an encryption writes the tag, a
 * decryption checks it. Returns the output length, -1 on failure.
 */
static int crypt_msg(EVP_CIPHER *c, int aead, int enc, const unsigned char *key,
    const unsigned char *iv, const unsigned char *aad, size_t aadlen, const unsigned char *in,
    size_t len, unsigned char *out, unsigned char tag[16])
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, f = 0, ok = ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL);

    if (ok && aead)
        ok = EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aadlen);
    if (ok && aead && !enc)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0;
    ok = ok && EVP_CipherUpdate(ctx, out, &n, in, (int)len) && EVP_CipherFinal_ex(ctx, out + n, &f);
    if (ok && aead && enc)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? n + f : -1;
}

/* One TLS record sealed by c as libssl seals it, with a MAC key longer
 * than HMAC's block (so hashed first). Returns its length, 0 on failure. */
static size_t seal_record(EVP_CIPHER *c, const unsigned char *key, const unsigned char *iv,
    const unsigned char *mackey, size_t mackeylen, unsigned char *buf, size_t len)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned int version = 0x0303;
    OSSL_PARAM p[3] = { OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
        OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_MAC_KEY, (void *)mackey,
            mackeylen),
        OSSL_PARAM_END };
    unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, (unsigned char)(len >> 8),
        (unsigned char)len };
    int pad, outl = 0;
    size_t ret = 0;

    if (ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, 1, NULL)
        && EVP_CIPHER_CTX_set_params(ctx, p)
        && (pad = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad)) > 0
        && EVP_CipherUpdate(ctx, buf, &outl, buf, (int)(len + (size_t)pad))
        && (size_t)outl == len + (size_t)pad)
        ret = (size_t)outl;
    EVP_CIPHER_CTX_free(ctx);
    return ret;
}

static void cipher_case(size_t ci, EVP_CIPHER *t, EVP_CIPHER *r, size_t len)
{
    const struct cipher_case *cc = &g_ciphers[ci];
    size_t keylen = (size_t)EVP_CIPHER_get_key_length(t),
           ivlen = (size_t)EVP_CIPHER_get_iv_length(t);
    size_t aadlen = (size_t)cpt_rng_below(&g_r, 64);
    unsigned char *key = rnd(keylen), *iv = rnd(ivlen), *aad = rnd(aadlen), *in, *out[2], *back;
    unsigned char tag[2][16];
    int n[2], m;

    len -= len % cc->block;
    in = rnd(len);
    out[0] = malloc(len + 32);
    out[1] = malloc(len + 32);
    back = malloc(len + 32);
    for (int k = 0; k < 2; k++)
        n[k] = crypt_msg(k == 0 ? t : r, cc->kind == AEAD, 1, key, iv, aad, aadlen, in, len, out[k],
            tag[k]);
    CPT_CHECK(n[0] >= 0 && n[0] == n[1] && memcmp(out[0], out[1], (size_t)n[0]) == 0
            && (cc->kind != AEAD || memcmp(tag[0], tag[1], 16) == 0),
        "%s: %zu bytes encrypted by %s as by the default provider", cc->name, len, g_env.name);
    if (n[1] >= 0) {
        m = crypt_msg(t, cc->kind == AEAD, 0, key, iv, aad, aadlen, out[1], (size_t)n[1], back,
            tag[1]);
        CPT_CHECK(m == (int)len && memcmp(back, in, len) == 0,
            "%s: %s decrypts the default provider's %zu bytes", cc->name, g_env.name, len);
    }
    if (cc->kind == STITCHED && len <= 16384) {
        /* A record: explicit IV and payload, room for MAC and padding. */
        unsigned char *mackey = rnd(100), *rec[2];
        size_t rl[2];

        for (int k = 0; k < 2; k++) {
            rec[k] = malloc(16 + len + 64);
            memcpy(rec[k], iv, 16);
            memcpy(rec[k] + 16, in, len);
            rl[k] = seal_record(k == 0 ? t : r, key, iv, mackey, 100, rec[k], 16 + len);
        }
        CPT_CHECK(rl[0] > 0 && rl[0] == rl[1] && memcmp(rec[0], rec[1], rl[0]) == 0,
            "%s: a TLS 1.2 record of %zu bytes with a 100-byte MAC key sealed as by the default "
            "provider",
            cc->name, len);
        free(rec[0]);
        free(rec[1]);
        free(mackey);
    }
    g_cipher_used[ci] = 1;
    free(key);
    free(iv);
    free(aad);
    free(in);
    free(out[0]);
    free(out[1]);
    free(back);
}

static void test_ciphers(void)
{
    for (size_t ci = 0; ci < NELEM(g_ciphers); ci++) {
        EVP_CIPHER *t = cpt_fetch_cipher(&g_env, 0, g_ciphers[ci].name);
        EVP_CIPHER *r = cpt_fetch_cipher(&g_env, 1, g_ciphers[ci].name);

        if (!CPT_CHECK(t != NULL && r != NULL, "%s from both providers", g_ciphers[ci].name)) {
            EVP_CIPHER_free(t);
            EVP_CIPHER_free(r);
            continue;
        }
        for (uint64_t it = 0; it < g_iters; it++) {
            cipher_case(ci, t, r, g_ciphers[ci].kind == STITCHED ? 16 * short_len() : short_len());
            cipher_case(ci, t, r, long_len());
        }
        EVP_CIPHER_free(t);
        EVP_CIPHER_free(r);
    }
}

/* ================================================================== */
/* Digests and HMAC                                                    */
/* ================================================================== */

#define g_mds cpt_sha_names
static int g_md_used[NELEM(g_mds)], g_mac_used[NELEM(g_mds)];

static void test_digests(void)
{
    for (size_t i = 0; i < NELEM(g_mds); i++) {
        EVP_MD *md[2];

        for (int k = 0; k < 2; k++) {
            md[k] = EVP_MD_fetch(lc(k), g_mds[i], pq(k));
            if (md[k] != NULL
                && strcmp(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md[k])), side(k)) != 0) {
                EVP_MD_free(md[k]);
                md[k] = NULL;
            }
        }
        if (CPT_CHECK(md[0] != NULL && md[1] != NULL, "%s from both providers", g_mds[i])) {
            for (uint64_t it = 0; it < 2 * g_iters; it++) {
                size_t len = it % 2 ? long_len() : short_len();
                unsigned char *msg = rnd(len), out[2][64];
                unsigned int ol[2] = { 0, 0 };
                int ok = 1;

                for (int k = 0; k < 2; k++)
                    ok &= EVP_Digest(msg, len, out[k], &ol[k], md[k], NULL);
                CPT_CHECK(ok && ol[0] == ol[1] && memcmp(out[0], out[1], ol[0]) == 0,
                    "%s of %zu bytes as the default provider's", g_mds[i], len);
                free(msg);
            }
            g_md_used[i] = 1;
        }
        EVP_MD_free(md[0]);
        EVP_MD_free(md[1]);
    }
}

static size_t hmac(int ref, const char *md, const unsigned char *key, size_t keylen,
    const unsigned char *msg, size_t len, unsigned char *out)
{
    EVP_MAC *m = EVP_MAC_fetch(lc(ref), "HMAC", pq(ref));
    EVP_MAC_CTX *c = m != NULL ? EVP_MAC_CTX_new(m) : NULL;
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md, 0),
        OSSL_PARAM_END };
    size_t n = 0;

    if (m == NULL || strcmp(OSSL_PROVIDER_get0_name(EVP_MAC_get0_provider(m)), side(ref)) != 0
        || c == NULL || !EVP_MAC_init(c, key, keylen, p) || !EVP_MAC_update(c, msg, len)
        || !EVP_MAC_final(c, out, &n, 64))
        n = 0;
    EVP_MAC_CTX_free(c);
    EVP_MAC_free(m);
    return n;
}

static void test_hmac(void)
{
    /* Digests of cptprov's own, then ones only its CPU path has. */
    static const char *const others[] = { "SHA3-256", "MD5" };

    for (size_t i = 0; i < NELEM(g_mds) + NELEM(others); i++) {
        const char *md = i < NELEM(g_mds) ? g_mds[i] : others[i - NELEM(g_mds)];

        for (uint64_t it = 0; it < 2 * g_iters; it++) {
            size_t len = it % 2 ? long_len() : short_len(),
                   keylen = 1 + (size_t)cpt_rng_below(&g_r, 200);
            unsigned char *msg = rnd(len), *key = rnd(keylen), out[2][64];
            size_t n[2];

            for (int k = 0; k < 2; k++)
                n[k] = hmac(k, md, key, keylen, msg, len, out[k]);
            CPT_CHECK(n[0] > 0 && n[0] == n[1] && memcmp(out[0], out[1], n[0]) == 0,
                "HMAC-%s, %zu-byte key, %zu bytes, as the default provider's", md, keylen, len);
            free(msg);
            free(key);
        }
        if (i < NELEM(g_mds))
            g_mac_used[i] = 1;
    }
}

/* ================================================================== */
/* RSA                                                                 */
/* ================================================================== */

static EVP_PKEY *keygen(int ref, const char *type, const char *group, int bits)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc(ref), type, pq(ref));
    EVP_PKEY *k = NULL;

    if (c == NULL || EVP_PKEY_keygen_init(c) <= 0
        || (group != NULL && EVP_PKEY_CTX_set_group_name(c, group) <= 0)
        || (bits != 0 && EVP_PKEY_CTX_set_rsa_keygen_bits(c, bits) <= 0)
        || EVP_PKEY_keygen(c, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(c);
    return k;
}

/* The RSA keys (default provider's): generated, and 4096 bits read. */
static EVP_PKEY *g_rsa[4];
static int g_used_rsa, g_used_ecdsa, g_used_ecdh, g_used_x25519;

static int rsa_keys(void)
{
    static const int bits[] = { 1024, 2048, 3072 };
    char path[4096];
    BIO *b;

    if (g_rsa[0] != NULL)
        return 1;
    for (size_t i = 0; i < NELEM(bits); i++)
        g_rsa[i] = keygen(1, "RSA", NULL, bits[i]);
    if (cpt_find_file(g_argv0, "tests/vectors/rsa4096-test-key.pem", path, sizeof(path))
        && (b = BIO_new_file(path, "r")) != NULL) {
        g_rsa[3] = PEM_read_bio_PrivateKey_ex(b, NULL, NULL, NULL, g_env.ref_libctx, NULL);
        BIO_free(b);
    }
    return CPT_CHECK(g_rsa[0] != NULL && g_rsa[1] != NULL && g_rsa[2] != NULL && g_rsa[3] != NULL,
        "RSA keys of 1024, 2048, 3072 and 4096 bits");
}

/* A signature (or its check) by side ref: over msg with md (DigestSign),
 * or, without md, on tbs as it is (EVP_PKEY_sign). */
static int rsa_sig(int ref, int verify, EVP_PKEY *k, int pad, const char *md,
    const unsigned char *tbs, size_t tbslen, unsigned char *sig, size_t *siglen)
{
    int ok;

    if (md != NULL) {
        EVP_MD_CTX *m = EVP_MD_CTX_new();
        EVP_PKEY_CTX *pc = NULL;

        ok = m != NULL
            && (verify ? EVP_DigestVerifyInit_ex(m, &pc, md, lc(ref), pq(ref), k, NULL)
                       : EVP_DigestSignInit_ex(m, &pc, md, lc(ref), pq(ref), k, NULL))
                > 0
            && EVP_PKEY_CTX_set_rsa_padding(pc, pad) > 0
            && (verify ? EVP_DigestVerify(m, sig, *siglen, tbs, tbslen) == 1
                       : EVP_DigestSign(m, sig, siglen, tbs, tbslen) > 0);
        EVP_MD_CTX_free(m);
    } else {
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(lc(ref), k, pq(ref));

        ok = c != NULL && (verify ? EVP_PKEY_verify_init(c) : EVP_PKEY_sign_init(c)) > 0
            && EVP_PKEY_CTX_set_rsa_padding(c, pad) > 0
            && (verify ? EVP_PKEY_verify(c, sig, *siglen, tbs, tbslen) == 1
                       : EVP_PKEY_sign(c, sig, siglen, tbs, tbslen) > 0);
        EVP_PKEY_CTX_free(c);
    }
    return ok;
}

static void test_rsa_sign(void)
{
    static const struct {
        int pad;
        const char *md;
        int deterministic;
    } pads[] = { { RSA_PKCS1_PADDING, "SHA256", 1 }, { RSA_PKCS1_PSS_PADDING, "SHA384", 0 },
        { RSA_NO_PADDING, NULL, 1 } };

    if (!rsa_keys())
        return;
    g_used_rsa = 1;
    for (size_t ki = 0; ki < NELEM(g_rsa); ki++) {
        EVP_PKEY *k = g_rsa[ki];
        size_t l = (size_t)EVP_PKEY_get_size(k);

        for (size_t pi = 0; pi < NELEM(pads); pi++) {
            size_t len = pads[pi].md != NULL ? (size_t)cpt_rng_below(&g_r, 3000) : l;
            unsigned char *msg = rnd(len), sig[2][512];
            size_t sl[2] = { sizeof(sig[0]), sizeof(sig[1]) };
            int ok[2];

            if (pads[pi].md == NULL)
                msg[0] = 0; /* below the modulus */
            for (int s = 0; s < 2; s++)
                ok[s] = rsa_sig(s, 0, k, pads[pi].pad, pads[pi].md, msg, len, sig[s], &sl[s]);
            CPT_CHECK(ok[0] && ok[1] && sl[0] == l, "RSA-%zu pad %d: both sign", 8 * l,
                pads[pi].pad);
            if (!ok[0] || !ok[1])
                goto next;
            if (pads[pi].deterministic)
                CPT_CHECK(sl[0] == sl[1] && memcmp(sig[0], sig[1], sl[0]) == 0,
                    "RSA-%zu pad %d: %s's signature is the default provider's", 8 * l, pads[pi].pad,
                    g_env.name);
            CPT_CHECK(rsa_sig(1, 1, k, pads[pi].pad, pads[pi].md, msg, len, sig[0], &sl[0])
                    && rsa_sig(0, 1, k, pads[pi].pad, pads[pi].md, msg, len, sig[1], &sl[1]),
                "RSA-%zu pad %d: each verifies the other's signature", 8 * l, pads[pi].pad);
            sig[1][l / 2] ^= 4;
            CPT_CHECK(!rsa_sig(0, 1, k, pads[pi].pad, pads[pi].md, msg, len, sig[1], &sl[1]),
                "RSA-%zu pad %d: %s refuses a tampered signature", 8 * l, pads[pi].pad, g_env.name);
        next:
            ERR_clear_error();
            free(msg);
        }
        /* A signature not below the modulus: a verification failure, not
         * a curve's. */
        {
            unsigned char big[512], dgst[32] = { 0 };
            size_t bl = l;
            int ok;

            memset(big, 0xff, l);
            ERR_clear_error();
            ok = rsa_sig(0, 1, k, RSA_NO_PADDING, NULL, big, l, big, &bl);
            CPT_CHECK(!ok && error_names_modulus(),
                "RSA-%zu: a signature above the modulus is refused, the error saying so", 8 * l);
            ERR_clear_error();
            bl = l;
            ok = rsa_sig(0, 1, k, RSA_PKCS1_PADDING, "SHA256", dgst, sizeof(dgst), big, &bl);
            CPT_CHECK(!ok && error_names_modulus(),
                "RSA-%zu: such a PKCS#1 signature is refused, the error saying so", 8 * l);
            ERR_clear_error();
        }
    }
}

static int rsa_crypt(int ref, int decrypt, EVP_PKEY *k, int pad, const unsigned char *in,
    size_t inlen, unsigned char *out, size_t *outlen)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(lc(ref), k, pq(ref));
    static unsigned char label[] = "libctx label";
    int ok = c != NULL && (decrypt ? EVP_PKEY_decrypt_init(c) : EVP_PKEY_encrypt_init(c)) > 0
        && EVP_PKEY_CTX_set_rsa_padding(c, pad) > 0;

    if (ok && pad == RSA_PKCS1_OAEP_PADDING) {
        unsigned char *l = OPENSSL_memdup(label, sizeof(label));

        ok = EVP_PKEY_CTX_set_rsa_oaep_md_name(c, "SHA256", NULL) > 0
            && EVP_PKEY_CTX_set0_rsa_oaep_label(c, l, (int)sizeof(label)) > 0;
    }
    if (ok && pad == RSA_PKCS1_WITH_TLS_PADDING) {
        unsigned int cv = 0x0303;
        OSSL_PARAM p[2] = { OSSL_PARAM_construct_uint(OSSL_ASYM_CIPHER_PARAM_TLS_CLIENT_VERSION,
                                &cv),
            OSSL_PARAM_END };

        ok = EVP_PKEY_CTX_set_params(c, p) > 0;
    }
    return cpt_pkey_crypt_final(c, ok, decrypt, in, inlen, out, outlen);
}

static void test_rsa_crypt(void)
{
    static const int pads[] = { RSA_PKCS1_PADDING, RSA_PKCS1_OAEP_PADDING, RSA_NO_PADDING };

    if (!rsa_keys())
        return;
    g_used_rsa = 1;
    for (size_t ki = 0; ki < NELEM(g_rsa); ki++) {
        EVP_PKEY *k = g_rsa[ki];
        size_t l = (size_t)EVP_PKEY_get_size(k);

        for (size_t pi = 0; pi < NELEM(pads); pi++) {
            for (int enc = 0; enc < 2; enc++) {
                size_t len = pads[pi] == RSA_NO_PADDING ? l : 1 + (size_t)cpt_rng_below(&g_r, 60);
                unsigned char *pt = rnd(len), ct[512], back[512];
                size_t cl = sizeof(ct), bl = sizeof(back);

                if (pads[pi] == RSA_NO_PADDING)
                    pt[0] = 0;
                CPT_CHECK(rsa_crypt(enc, 0, k, pads[pi], pt, len, ct, &cl)
                        && rsa_crypt(!enc, 1, k, pads[pi], ct, cl, back, &bl) && bl == len
                        && memcmp(back, pt, len) == 0,
                    "RSA-%zu pad %d: %s encrypts, %s decrypts", 8 * l, pads[pi], side(enc),
                    side(!enc));
                free(pt);
            }
        }
        /* The TLS pre-master secret. */
        {
            unsigned char pms[48], ct[512], back[48];
            size_t cl = sizeof(ct), bl = sizeof(back);

            cpt_rng_fill(&g_r, pms, sizeof(pms));
            pms[0] = 3;
            pms[1] = 3;
            CPT_CHECK(rsa_crypt(1, 0, k, RSA_PKCS1_PADDING, pms, 48, ct, &cl)
                    && rsa_crypt(0, 1, k, RSA_PKCS1_WITH_TLS_PADDING, ct, cl, back, &bl) && bl == 48
                    && memcmp(back, pms, 48) == 0,
                "RSA-%zu: %s recovers a TLS pre-master secret", 8 * l, g_env.name);
        }
        /* A ciphertext not below the modulus. */
        {
            unsigned char big[512], back[512];
            size_t bl[2] = { sizeof(back), sizeof(back) };
            int ok[2];

            memset(big, 0xff, l);
            ERR_clear_error();
            ok[1] = rsa_crypt(1, 1, k, RSA_NO_PADDING, big, l, back, &bl[1]);
            ERR_clear_error();
            ok[0] = rsa_crypt(0, 1, k, RSA_NO_PADDING, big, l, back, &bl[0]);
            CPT_CHECK(!ok[0] && !ok[1] && error_names_modulus(),
                "RSA-%zu: a ciphertext above the modulus is refused by both, %s's error saying so",
                8 * l, g_env.name);
            ERR_clear_error();
        }
    }
}

/* Key generation by cptprov; the default provider takes the key. */
static void test_rsa_keygen(void)
{
    EVP_PKEY *k = keygen(0, "RSA", NULL, 2048);
    unsigned char msg[100], sig[2][256];
    size_t sl = sizeof(sig[0]), sl1 = sizeof(sig[1]);
    EVP_PKEY_CTX *c;

    g_used_rsa = 1;
    if (!CPT_CHECK(k != NULL && EVP_PKEY_get_bits(k) == 2048, "%s generates an RSA-2048 key",
            g_env.name))
        return;
    cpt_rng_fill(&g_r, msg, sizeof(msg));
    CPT_CHECK(rsa_sig(0, 0, k, RSA_PKCS1_PADDING, "SHA256", msg, sizeof(msg), sig[0], &sl)
            && rsa_sig(1, 1, k, RSA_PKCS1_PADDING, "SHA256", msg, sizeof(msg), sig[0], &sl)
            && rsa_sig(1, 0, k, RSA_PKCS1_PADDING, "SHA256", msg, sizeof(msg), sig[1], &sl1)
            && sl == sl1 && memcmp(sig[0], sig[1], sl) == 0,
        "the generated key signs as the default provider signs with it");
    c = EVP_PKEY_CTX_new_from_pkey(g_env.ref_libctx, k, DEF);
    CPT_CHECK(c != NULL && EVP_PKEY_pairwise_check(c) == 1 && EVP_PKEY_check(c) == 1,
        "the default provider finds the generated key sound");
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_free(k);
    /* An RSA-PSS key, its signatures PSS. */
    k = keygen(0, "RSA-PSS", NULL, 2048);
    sl = sizeof(sig[0]);
    CPT_CHECK(k != NULL
            && rsa_sig(0, 0, k, RSA_PKCS1_PSS_PADDING, "SHA256", msg, sizeof(msg), sig[0], &sl)
            && rsa_sig(1, 1, k, RSA_PKCS1_PSS_PADDING, "SHA256", msg, sizeof(msg), sig[0], &sl),
        "%s generates an RSA-PSS key and signs with it, the default provider verifies", g_env.name);
    EVP_PKEY_free(k);
}

/* ================================================================== */
/* ECDSA, ECDH, X25519                                                 */
/* ================================================================== */

static int ec_sig(int ref, int verify, EVP_PKEY *k, const unsigned char *msg, size_t len,
    unsigned char *sig, size_t *siglen)
{
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    int ok = m != NULL
        && (verify ? EVP_DigestVerifyInit_ex(m, NULL, "SHA256", lc(ref), pq(ref), k, NULL)
                   : EVP_DigestSignInit_ex(m, NULL, "SHA256", lc(ref), pq(ref), k, NULL))
            > 0
        && (verify ? EVP_DigestVerify(m, sig, *siglen, msg, len) == 1
                   : EVP_DigestSign(m, sig, siglen, msg, len) > 0);

    EVP_MD_CTX_free(m);
    return ok;
}

static void test_ecdsa(void)
{
    g_used_ecdsa = 1;
    for (size_t ci = 0; ci < NELEM(g_curves); ci++) {
        for (int gen = 0; gen < 2; gen++) {
            EVP_PKEY *k = keygen(gen, "EC", g_curves[ci], 0);

            if (!CPT_CHECK(k != NULL, "%s key by %s", g_curves[ci], side(gen)))
                continue;
            for (int s = 0; s < 2; s++) {
                size_t len = (size_t)cpt_rng_below(&g_r, 2000), sl = 160;
                unsigned char *msg = rnd(len), sig[160];

                CPT_CHECK(ec_sig(s, 0, k, msg, len, sig, &sl)
                        && ec_sig(!s, 1, k, msg, len, sig, &sl),
                    "ECDSA %s (%s's key): %s signs, %s verifies", g_curves[ci], side(gen), side(s),
                    side(!s));
                sig[sl / 2] ^= 1;
                CPT_CHECK(!ec_sig(0, 1, k, msg, len, sig, &sl),
                    "ECDSA %s: %s refuses a tampered signature", g_curves[ci], g_env.name);
                ERR_clear_error();
                free(msg);
            }
            EVP_PKEY_free(k);
        }
    }
}

static size_t derive(int ref, EVP_PKEY *k, EVP_PKEY *peer, unsigned char *out)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(lc(ref), k, pq(ref));
    size_t n = 80;

    if (c == NULL || EVP_PKEY_derive_init(c) <= 0 || EVP_PKEY_derive_set_peer(c, peer) <= 0
        || EVP_PKEY_derive(c, out, &n) <= 0)
        n = 0;
    EVP_PKEY_CTX_free(c);
    return n;
}

static void exchange(const char *type, const char *group)
{
    EVP_PKEY *a = keygen(0, type, group, 0), *b = keygen(1, type, group, 0);
    unsigned char s[3][80];
    size_t n[3];

    if (!CPT_CHECK(a != NULL && b != NULL, "%s keys from both providers",
            group != NULL ? group : type))
        goto end;
    n[0] = derive(0, a, b, s[0]); /* cptprov's key, the default provider's peer */
    n[1] = derive(1, b, a, s[1]);
    n[2] = derive(0, b, a, s[2]); /* the default provider's key in cptprov */
    CPT_CHECK(n[0] > 0 && n[0] == n[1] && n[1] == n[2] && memcmp(s[0], s[1], n[0]) == 0
            && memcmp(s[2], s[1], n[0]) == 0,
        "%s: %s derives the default provider's shared secret from either side",
        group != NULL ? group : type, g_env.name);
end:
    EVP_PKEY_free(a);
    EVP_PKEY_free(b);
}

static void test_ecdh(void)
{
    g_used_ecdh = 1;
    for (size_t ci = 0; ci < NELEM(g_curves); ci++)
        for (uint64_t it = 0; it < g_iters; it++)
            exchange("EC", g_curves[ci]);
}

static void test_x25519(void)
{
    g_used_x25519 = 1;
    for (uint64_t it = 0; it < 2 * g_iters; it++)
        exchange("X25519", NULL);
}

/* ================================================================== */
/* Import, export and the key checks                                   */
/* ================================================================== */

static const char *const g_rsa_params[] = { "n", "e", "d", "rsa-factor1", "rsa-factor2",
    "rsa-exponent1", "rsa-exponent2", "rsa-coefficient1", NULL };
static const char *const g_ec_params[] = { "group", "pub", "priv", NULL };
static const char *const g_x_params[] = { "pub", "priv", NULL };

static int same_param(const OSSL_PARAM *a, const OSSL_PARAM *b)
{
    if (a == NULL || b == NULL || a->data_type != b->data_type)
        return 0;
    if (a->data_type == OSSL_PARAM_UNSIGNED_INTEGER) {
        BIGNUM *x = NULL, *y = NULL;
        int eq = OSSL_PARAM_get_BN(a, &x) && OSSL_PARAM_get_BN(b, &y) && BN_cmp(x, y) == 0;

        BN_clear_free(x);
        BN_clear_free(y);
        return eq;
    }
    if (a->data_type == OSSL_PARAM_UTF8_STRING)
        return strcasecmp(a->data, b->data) == 0;
    return a->data_size == b->data_size && memcmp(a->data, b->data, a->data_size) == 0;
}

/* The default provider's key k imported into cptprov (fromdata) and
 * exported again carries the same values; returns cptprov's key. */
static EVP_PKEY *import(EVP_PKEY *k, const char *type, const char *const *names)
{
    OSSL_PARAM *in = NULL, *out = NULL;
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(g_env.libctx, type, g_env.propq);
    EVP_PKEY *t = NULL;
    int ok = c != NULL && EVP_PKEY_todata(k, EVP_PKEY_KEYPAIR, &in) > 0
        && EVP_PKEY_fromdata_init(c) > 0 && EVP_PKEY_fromdata(c, &t, EVP_PKEY_KEYPAIR, in) > 0
        && strcmp(OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(t)), g_env.name) == 0
        && EVP_PKEY_todata(t, EVP_PKEY_KEYPAIR, &out) > 0;

    for (size_t i = 0; ok && names[i] != NULL; i++)
        ok =
            CPT_CHECK(same_param(OSSL_PARAM_locate(in, names[i]), OSSL_PARAM_locate(out, names[i])),
                "%s key: \"%s\" exported by %s as imported", type, names[i], g_env.name);
    CPT_CHECK(ok, "%s key of %d bits imported into %s and exported", type, EVP_PKEY_get_bits(k),
        g_env.name);
    OSSL_PARAM_free(in);
    OSSL_PARAM_free(out);
    EVP_PKEY_CTX_free(c);
    if (!ok) {
        EVP_PKEY_free(t);
        t = NULL;
    }
    return t;
}

static void key_checks(EVP_PKEY *k, const char *what)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(g_env.libctx, k, g_env.propq);

    CPT_CHECK(c != NULL && EVP_PKEY_check(c) == 1 && EVP_PKEY_public_check(c) == 1
            && EVP_PKEY_pairwise_check(c) == 1,
        "%s: %s's check, public_check and pairwise_check pass", what, g_env.name);
    EVP_PKEY_CTX_free(c);
}

static void test_keys(void)
{
    char what[64];

    if (rsa_keys()) {
        g_used_rsa = 1;
        for (size_t ki = 0; ki < NELEM(g_rsa); ki++) {
            EVP_PKEY *t = import(g_rsa[ki], "RSA", g_rsa_params);

            snprintf(what, sizeof(what), "RSA-%d", EVP_PKEY_get_bits(g_rsa[ki]));
            if (t != NULL)
                key_checks(t, what);
            EVP_PKEY_free(t);
        }
        /* A wrong CRT exponent: both refuse the pair. */
        {
            BIGNUM *dp = NULL;
            OSSL_PARAM *in = NULL;
            EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(g_env.libctx, "RSA", g_env.propq);
            EVP_PKEY_CTX *rc = NULL;
            EVP_PKEY *t = NULL;
            OSSL_PARAM *p;
            int ok = c != NULL && EVP_PKEY_todata(g_rsa[1], EVP_PKEY_KEYPAIR, &in) > 0
                && (p = OSSL_PARAM_locate(in, "rsa-exponent1")) != NULL && OSSL_PARAM_get_BN(p, &dp)
                && BN_add_word(dp, 2) && OSSL_PARAM_set_BN(p, dp) && EVP_PKEY_fromdata_init(c) > 0
                && EVP_PKEY_fromdata(c, &t, EVP_PKEY_KEYPAIR, in) > 0;

            EVP_PKEY_CTX_free(c);
            c = ok ? EVP_PKEY_CTX_new_from_pkey(g_env.libctx, t, g_env.propq) : NULL;
            rc = ok ? EVP_PKEY_CTX_new_from_pkey(g_env.ref_libctx, t, DEF) : NULL;
            CPT_CHECK(c != NULL && rc != NULL && EVP_PKEY_pairwise_check(c) != 1
                    && EVP_PKEY_pairwise_check(rc) != 1,
                "RSA-2048 with a wrong dP: both refuse the pair");
            ERR_clear_error();
            EVP_PKEY_CTX_free(c);
            EVP_PKEY_CTX_free(rc);
            EVP_PKEY_free(t);
            OSSL_PARAM_free(in);
            BN_free(dp);
        }
    }
    g_used_ecdsa = 1;
    for (size_t ci = 0; ci < NELEM(g_curves); ci++) {
        EVP_PKEY *k = keygen(1, "EC", g_curves[ci], 0),
                 *t = k != NULL ? import(k, "EC", g_ec_params) : NULL;
        EVP_PKEY *g = keygen(0, "EC", g_curves[ci], 0);

        snprintf(what, sizeof(what), "EC %s", g_curves[ci]);
        if (CPT_CHECK(t != NULL && g != NULL, "%s keys", what)) {
            key_checks(t, what);
            key_checks(g, what);
        }
        EVP_PKEY_free(k);
        EVP_PKEY_free(t);
        EVP_PKEY_free(g);
    }
    g_used_x25519 = 1;
    {
        EVP_PKEY *k = keygen(1, "X25519", NULL, 0),
                 *t = k != NULL ? import(k, "X25519", g_x_params) : NULL;

        if (CPT_CHECK(t != NULL, "X25519 key"))
            key_checks(t, "X25519");
        EVP_PKEY_free(k);
        EVP_PKEY_free(t);
    }
}

/* ================================================================== */
/* The counters                                                        */
/* ================================================================== */

/* The device did operations of alg (the public-key families have no CPU
 * path). */
static void check_device(const char *alg)
{
    cpt_alg_stats st;
    char why[256] = "";
    int ok = 0;

    memset(&st, 0, sizeof(st));
    for (double end = cpt_now() + 3.5; !ok && cpt_now() < end; usleep(100000))
        ok = cpt_stats_read(g_env.stats_dir, g_env.name, getpid(), alg, &st, why, sizeof(why))
            && st.found && st.device > 0;
    CPT_CHECK(ok, "%s counters: ops %lld, device %lld, errors %lld%s%s", alg, st.ops, st.device,
        st.errors, why[0] ? ": " : "", why);
}

static void test_stats(void)
{
    char name[64];

    if (!CPT_CHECK(g_env.stats_dir[0] != '\0', "the provider has a stats_dir (--stats-dir)"))
        return;
    for (size_t i = 0; i < NELEM(g_ciphers); i++)
        if (g_cipher_used[i])
            cpt_stats_check_paths(&g_env, &g_o, g_ciphers[i].name);
    for (size_t i = 0; i < NELEM(g_mds); i++) {
        if (g_md_used[i])
            cpt_stats_check_paths(&g_env, &g_o, g_mds[i]);
        snprintf(name, sizeof(name), "HMAC-%s", g_mds[i]);
        if (g_mac_used[i])
            cpt_stats_check_paths(&g_env, &g_o, name);
    }
    if (g_used_rsa)
        check_device("RSA");
    if (g_used_ecdsa)
        check_device("ECDSA");
    if (g_used_ecdh)
        check_device("ECDH");
    if (g_used_x25519)
        check_device("X25519");
    /* Nothing above loaded a provider into the default context. */
    test_trap();
}

static const cpt_named_test g_tests[] = {
    { "trap", test_trap },
    { "ciphers", test_ciphers },
    { "digests", test_digests },
    { "hmac", test_hmac },
    { "rsa_sign", test_rsa_sign },
    { "rsa_crypt", test_rsa_crypt },
    { "rsa_keygen", test_rsa_keygen },
    { "ecdsa", test_ecdsa },
    { "ecdh", test_ecdh },
    { "x25519", test_x25519 },
    { "keys", test_keys },
    { "stats", test_stats },
};

int main(int argc, char **argv)
{
    static char tmpstats[] = "/tmp/cpt-libctx-stats-XXXXXX";
    char prefer[100];
    int made_stats = 0;

    g_argv0 = argv[0];
    /*
     * No configuration file reaches the default context, and the null
     * provider in it keeps OpenSSL from loading the default provider there
     * on first use: a fetch from it fails, as in evp_test.
     */
    if (!OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL)
        || (g_null = OSSL_PROVIDER_load(NULL, "null")) == NULL) {
        fprintf(stderr, "cannot set up the default library context\n");
        return 1;
    }
    if (cpt_parse_harness_args(&g_o, argc, argv, &g_iters, NULL) != 0)
        return 2;
    if (g_o.stats_dir == NULL && !g_o.no_stats && mkdtemp(tmpstats) != NULL) {
        g_o.stats_dir = tmpstats;
        made_stats = 1;
    }
    if (!cpt_env_init(&g_env, &g_o))
        return 1;
    snprintf(prefer, sizeof(prefer), "?%s", g_env.propq);
    if (!EVP_set_default_properties(g_env.libctx, prefer)) {
        fprintf(stderr, "cannot set the default properties\n");
        return 1;
    }
    cpt_rng_seed(&g_r, g_o.seed, 0);
    printf("libctx_test: provider %s, seed %llu, stats %s\n", g_env.name,
        (unsigned long long)g_o.seed, g_env.stats_dir[0] != '\0' ? g_env.stats_dir : "(none)");
    cpt_run_tests(&g_o, g_tests, NELEM(g_tests));
    for (size_t i = 0; i < NELEM(g_rsa); i++)
        EVP_PKEY_free(g_rsa[i]);
    cpt_env_free(&g_env);
    OSSL_PROVIDER_unload(g_null);
    if (made_stats) {
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpstats);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpstats);
    }
    return cpt_finish();
}
