/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_evp.c - random inputs through EVP into cptprov, differentially.
 *
 * One input is a little program: its first byte picks an operation (AEAD
 * seal or open, cipher, digest, HMAC, ECDSA and RSA verification of
 * signatures, RSA-OAEP decryption, X25519 and ECDH; the signatures,
 * ciphertexts and peer keys are valid ones XORed with bytes of the input,
 * so that zeros keep them valid), the next bytes pick the
 * algorithm, key and IV lengths, parameters (IV length, tag length,
 * padding) and how the data is split into updates, and the rest is the
 * data. The same program runs on cptprov and on the default provider; a
 * crash, a sanitizer report, an acceptance that differs (a tag, a
 * signature, a padding one accepts and the other rejects) or different
 * outputs where both succeed is a finding.
 *
 * Built two ways:
 *   - with libFuzzer (clang -fsanitize=fuzzer,address -DCPT_LIBFUZZER,
 *     `make fuzz-long`): coverage-guided, grows tests/fuzz/corpus;
 *   - plain (build/fuzz_evp, in make test): replays the checked-in corpus,
 *     then runs random inputs and random mutations of the corpus for
 *     --seconds, and saves any finding to --crash-dir.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "common.h"

static cpt_env g_env;
static int g_ready;
static EVP_PKEY *g_rsa[2], *g_ec[2][2], *g_x[2]; /* [provider]: 0 cptprov's import, 1 default's */
static EVP_PKEY *g_peer; /* a P-256 peer key of the default provider */
static unsigned long g_findings;

/* A reader over the input: a byte past the end reads as 0. */
typedef struct {
    const uint8_t *p;
    size_t n;
} in_t;

static unsigned byte_of(in_t *in)
{
    unsigned v = 0;

    if (in->n > 0) {
        v = in->p[0];
        in->p++;
        in->n--;
    }
    return v;
}

/* The next k bytes (fewer at the end). */
static const uint8_t *take(in_t *in, size_t k, size_t *got)
{
    const uint8_t *p = in->p;

    *got = k < in->n ? k : in->n;
    in->p += *got;
    in->n -= *got;
    return p;
}

/* Copies up to k bytes of the input into dst (the rest stays as it was). */
static void copy_in(in_t *in, void *dst, size_t k)
{
    size_t got;
    const uint8_t *p = take(in, k, &got);

    memcpy(dst, p, got);
}

static OSSL_LIB_CTX *lib(int which)
{
    return which == 0 ? g_env.libctx : g_env.ref_libctx;
}

static const char *pq(int which)
{
    return which == 0 ? g_env.propq : "provider=default";
}

/* One side's outcome: ok, and the output. */
typedef struct {
    int ok;
    size_t len;
    unsigned char out[4096 + 64];
} res_t;

static void finding(const char *what, const uint8_t *data, size_t size)
{
    char hex[65];

    g_findings++;
    cpt_fail_line("%s (input of %zu bytes: %s%s)", what, size,
        cpt_hex_encode(data, size < 32 ? size : 32, hex), size > 32 ? "..." : "");
#ifdef CPT_LIBFUZZER
    abort(); /* libFuzzer saves the input */
#endif
}

/* Both must agree on success; where both succeed, on the output. */
static void compare(const char *what, const res_t *a, const res_t *b, const uint8_t *data,
    size_t size)
{
    char msg[160];

    if (cpt_verbose())
        printf("%s: cptprov %d, default %d\n", what, a->ok, b->ok);
    if (a->ok != b->ok) {
        snprintf(msg, sizeof(msg), "%s: cptprov %s, default %s", what, a->ok ? "succeeds" : "fails",
            b->ok ? "succeeds" : "fails");
        finding(msg, data, size);
    } else if (a->ok && (a->len != b->len || memcmp(a->out, b->out, a->len) != 0)) {
        snprintf(msg, sizeof(msg), "%s: outputs differ (%zu and %zu bytes)", what, a->len, b->len);
        finding(msg, data, size);
    }
}

static const char *const ciphers[] = { "AES-128-GCM", "AES-256-GCM", "ChaCha20-Poly1305",
    "AES-128-CBC", "AES-256-CBC", "AES-128-CTR", "AES-256-CTR", "DES-EDE3-CBC", "ChaCha20" };

/* Cipher or AEAD: key, IV (GCM: a chosen length), splits, tag. */
static void run_cipher(in_t in0, const uint8_t *data, size_t size)
{
    res_t r[2];
    unsigned sel = byte_of(&in0) % (sizeof(ciphers) / sizeof(ciphers[0]));
    int aead = sel <= 2, gcm = sel <= 1, enc = byte_of(&in0) & 1, pad = byte_of(&in0) & 1;
    unsigned ivlen = gcm ? 1 + byte_of(&in0) % 32 : 0, taglen = gcm ? 4 + byte_of(&in0) % 13 : 16;
    unsigned char key[64] = { 0 }, iv[64] = { 0 }, tag[16] = { 0 };

    copy_in(&in0, key, 32);
    copy_in(&in0, iv, 16);
    copy_in(&in0, tag, 16);
    for (int w = 0; w < 2; w++) {
        in_t in = in0;
        EVP_CIPHER *c = EVP_CIPHER_fetch(lib(w), ciphers[sel], pq(w));
        EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
        int ok, l = 0;
        size_t aadl = aead ? byte_of(&in) % 64 : 0;

        r[w].len = 0;
        ok = c != NULL && cc != NULL && EVP_CipherInit_ex2(cc, c, NULL, NULL, enc, NULL);
        if (ok && gcm) {
            size_t v = ivlen;
            OSSL_PARAM p[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &v),
                OSSL_PARAM_END };

            ok = EVP_CIPHER_CTX_set_params(cc, p);
        }
        ok = ok && EVP_CipherInit_ex2(cc, NULL, key, iv, enc, NULL)
            && EVP_CIPHER_CTX_set_padding(cc, pad);
        if (ok && aadl > 0) {
            const uint8_t *a = take(&in, aadl, &aadl);

            ok = EVP_CipherUpdate(cc, NULL, &l, a, (int)aadl);
        }
        while (ok && in.n > 0 && r[w].len < 4096) {
            size_t want = 1 + byte_of(&in) % 300, k;
            const uint8_t *d = take(&in, want, &k);

            if (k == 0 || r[w].len + k + 32 > 4096)
                break;
            ok = EVP_CipherUpdate(cc, r[w].out + r[w].len, &l, d, (int)k);
            r[w].len += (size_t)l;
        }
        if (ok && aead && !enc)
            ok = EVP_CIPHER_CTX_ctrl(cc, EVP_CTRL_AEAD_SET_TAG, (int)taglen, tag) > 0;
        ok = ok && EVP_CipherFinal_ex(cc, r[w].out + r[w].len, &l);
        if (ok)
            r[w].len += (size_t)l;
        if (ok && aead && enc) {
            ok = EVP_CIPHER_CTX_ctrl(cc, EVP_CTRL_AEAD_GET_TAG, (int)taglen, r[w].out + r[w].len)
                > 0;
            r[w].len += taglen;
        }
        r[w].ok = ok;
        EVP_CIPHER_CTX_free(cc);
        EVP_CIPHER_free(c);
        ERR_clear_error();
    }
    compare(ciphers[sel], &r[0], &r[1], data, size);
}

static const char *const digests[] = { "SHA1", "SHA2-224", "SHA2-256", "SHA2-384", "SHA2-512",
    "SHA2-512/224", "SHA2-512/256" };

/* Digest, or HMAC with a key from the input. */
static void run_digest(in_t in0, int hmac, const uint8_t *data, size_t size)
{
    res_t r[2];
    unsigned sel = byte_of(&in0) % (sizeof(digests) / sizeof(digests[0]));
    size_t keyl = byte_of(&in0) % 200;
    const uint8_t *key = take(&in0, keyl, &keyl);

    for (int w = 0; w < 2; w++) {
        in_t in = in0;
        EVP_MD *md = hmac ? NULL : EVP_MD_fetch(lib(w), digests[sel], pq(w));
        EVP_MD_CTX *mc = hmac ? NULL : EVP_MD_CTX_new();
        EVP_MAC *m = hmac ? EVP_MAC_fetch(lib(w), "HMAC", pq(w)) : NULL;
        EVP_MAC_CTX *x = m != NULL ? EVP_MAC_CTX_new(m) : NULL;
        OSSL_PARAM p[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digests[sel], 0),
            OSSL_PARAM_END };
        int ok = hmac ? x != NULL && EVP_MAC_init(x, key, keyl, p)
                      : md != NULL && mc != NULL && EVP_DigestInit_ex2(mc, md, NULL);

        while (ok && in.n > 0) {
            size_t k;
            const uint8_t *d = take(&in, 1 + byte_of(&in) % 500, &k);

            ok = hmac ? EVP_MAC_update(x, d, k) : EVP_DigestUpdate(mc, d, k);
        }
        if (hmac) {
            ok = ok && EVP_MAC_final(x, r[w].out, &r[w].len, sizeof(r[w].out));
        } else {
            unsigned int l = 0;

            ok = ok && EVP_DigestFinal_ex(mc, r[w].out, &l);
            r[w].len = l;
        }
        r[w].ok = ok;
        EVP_MD_CTX_free(mc);
        EVP_MD_free(md);
        EVP_MAC_CTX_free(x);
        EVP_MAC_free(m);
        ERR_clear_error();
    }
    compare(hmac ? "HMAC" : digests[sel], &r[0], &r[1], data, size);
}

/* A valid signature of tbs (ECDSA or RSA PKCS#1/PSS over SHA-256), or a
 * valid RSA-OAEP encryption of it, made by the default provider, then
 * altered by the input: XORed with a mask, cut or extended. All-zero masks
 * leave it valid, so both acceptance and rejection get exercised. */
static size_t make_blob(int kind, unsigned curve, unsigned pss, const unsigned char *tbs,
    size_t tbsl, unsigned char *out, size_t outsize)
{
    EVP_PKEY_CTX *pc =
        EVP_PKEY_CTX_new_from_pkey(g_env.ref_libctx, kind == 0 ? g_ec[1][curve] : g_rsa[1], NULL);
    size_t l = outsize;
    int ok;

    if (kind == 2)
        ok = pc != NULL && EVP_PKEY_encrypt_init(pc) > 0
            && EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_OAEP_PADDING) > 0
            && EVP_PKEY_encrypt(pc, out, &l, tbs, tbsl) > 0;
    else
        ok = pc != NULL && EVP_PKEY_sign_init(pc) > 0
            && (kind == 0
                || EVP_PKEY_CTX_set_rsa_padding(pc, pss ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING)
                    > 0)
            && EVP_PKEY_CTX_set_signature_md(pc, EVP_sha256()) > 0
            && EVP_PKEY_sign(pc, out, &l, tbs, 32) > 0;
    EVP_PKEY_CTX_free(pc);
    return ok ? l : 0;
}

/* Verification of an altered signature (ECDSA P-256/P-384 DER, RSA PKCS#1
 * or PSS), or RSA-OAEP decryption of an altered ciphertext. */
static void run_pkey(in_t in0, int kind, const uint8_t *data, size_t size)
{
    res_t r[2];
    unsigned curve = byte_of(&in0) & 1, pss = byte_of(&in0) & 1, cut = byte_of(&in0);
    unsigned char tbs[32] = { 0 }, blob[600];
    size_t bl, ml;
    const uint8_t *mask;

    copy_in(&in0, tbs, 32);
    if ((bl = make_blob(kind, curve, pss, tbs, 32, blob, sizeof(blob) - 16)) == 0)
        abort(); /* the default provider always can */
    mask = take(&in0, bl, &ml);
    for (size_t i = 0; i < ml; i++)
        blob[i] ^= mask[i];
    if (cut >= 0xf8) /* now and then one byte more or up to 7 fewer */
        bl = cut == 0xff ? bl + 1 : bl - (cut - 0xf7);
    for (int w = 0; w < 2; w++) {
        EVP_PKEY *k = kind == 0 ? g_ec[w][curve] : g_rsa[w];
        EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_pkey(lib(w), k, pq(w));
        int ok;

        r[w].len = sizeof(r[w].out);
        if (kind == 2) {
            ok = pc != NULL && EVP_PKEY_decrypt_init(pc) > 0
                && EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_OAEP_PADDING) > 0
                && EVP_PKEY_decrypt(pc, r[w].out, &r[w].len, blob, bl) > 0;
        } else {
            ok = pc != NULL && EVP_PKEY_verify_init(pc) > 0
                && (kind == 0
                    || EVP_PKEY_CTX_set_rsa_padding(pc,
                           pss ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING)
                        > 0)
                && EVP_PKEY_CTX_set_signature_md(pc, EVP_sha256()) > 0
                && EVP_PKEY_verify(pc, blob, bl, tbs, sizeof(tbs)) == 1;
            r[w].len = 0;
        }
        r[w].ok = ok;
        EVP_PKEY_CTX_free(pc);
        ERR_clear_error();
    }
    compare(kind == 0   ? "ECDSA verify"
            : kind == 1 ? "RSA verify"
                        : "RSA-OAEP decrypt",
        &r[0], &r[1], data, size);
}

/* Key agreement with an altered peer public key: a valid one (X25519, or
 * a P-256 point, uncompressed or compressed) XORed with a mask from the
 * input, and sometimes cut short. */
static void run_derive(in_t in0, const uint8_t *data, size_t size)
{
    res_t r[2];
    int x25519 = byte_of(&in0) & 1, compressed = byte_of(&in0) & 1;
    unsigned cut = byte_of(&in0);
    unsigned char pub[80];
    size_t pl = 0, ml;
    const uint8_t *mask;

    if (x25519)
        EVP_PKEY_get_raw_public_key(g_x[1], pub, &(size_t){ 32 });
    if (x25519)
        pl = 32;
    else if (!EVP_PKEY_set_utf8_string_param(g_peer, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
                 compressed ? "compressed" : "uncompressed")
        || !EVP_PKEY_get_octet_string_param(g_peer, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, pub,
            sizeof(pub), &pl))
        abort();
    mask = take(&in0, pl, &ml);
    for (size_t i = 0; i < ml; i++)
        pub[i] ^= mask[i];
    if (cut >= 0xf0)
        pl -= cut - 0xef;
    for (int w = 0; w < 2; w++) {
        EVP_PKEY *peer = NULL, *mine = x25519 ? g_x[w] : g_ec[w][0];
        EVP_PKEY_CTX *pc = NULL;
        int ok;

        if (x25519) {
            peer = EVP_PKEY_new_raw_public_key_ex(lib(w), "X25519", pq(w), pub, pl);
        } else {
            EVP_PKEY_CTX *fc = EVP_PKEY_CTX_new_from_name(lib(w), "EC", pq(w));
            OSSL_PARAM p[] = { OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 5),
                OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)pub, pl), OSSL_PARAM_END };

            if (fc == NULL || EVP_PKEY_fromdata_init(fc) <= 0
                || EVP_PKEY_fromdata(fc, &peer, EVP_PKEY_PUBLIC_KEY, p) <= 0)
                peer = NULL;
            EVP_PKEY_CTX_free(fc);
        }
        pc = EVP_PKEY_CTX_new_from_pkey(lib(w), mine, pq(w));
        r[w].len = sizeof(r[w].out);
        ok = peer != NULL && pc != NULL && EVP_PKEY_derive_init(pc) > 0
            && EVP_PKEY_derive_set_peer(pc, peer) > 0
            && EVP_PKEY_derive(pc, r[w].out, &r[w].len) > 0;
        r[w].ok = ok;
        EVP_PKEY_CTX_free(pc);
        EVP_PKEY_free(peer);
        ERR_clear_error();
    }
    compare(x25519 ? "X25519 derive" : "ECDH P-256 derive", &r[0], &r[1], data, size);
}

/* A key made by the default provider, and the same key moved into the
 * provider under test (so that each side signs or derives with its own). */
static int key_pair(const char *type, const char *group, EVP_PKEY *out[2])
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(g_env.ref_libctx, type, NULL);
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *fc;
    OSSL_PARAM gp[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

    out[0] = out[1] = NULL;
    if (group != NULL)
        gp[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)group, 0);
    if (c == NULL || EVP_PKEY_keygen_init(c) <= 0
        || (group != NULL && !EVP_PKEY_CTX_set_params(c, gp))
        || (strcmp(type, "RSA") == 0 && EVP_PKEY_CTX_set_rsa_keygen_bits(c, 2048) <= 0)
        || EVP_PKEY_generate(c, &out[1]) <= 0) {
        EVP_PKEY_CTX_free(c);
        return 0;
    }
    EVP_PKEY_CTX_free(c);
    fc = EVP_PKEY_CTX_new_from_name(g_env.libctx, type, g_env.propq);
    if (EVP_PKEY_todata(out[1], EVP_PKEY_KEYPAIR, &params) <= 0 || fc == NULL
        || EVP_PKEY_fromdata_init(fc) <= 0
        || EVP_PKEY_fromdata(fc, &out[0], EVP_PKEY_KEYPAIR, params) <= 0)
        out[0] = NULL;
    OSSL_PARAM_free(params);
    EVP_PKEY_CTX_free(fc);
    return out[0] != NULL;
}

static int setup(const cpt_opts *o)
{
    if (g_ready)
        return g_ready > 0;
    g_ready = -1;
    if (!cpt_env_init(&g_env, o))
        return 0;
    if (!key_pair("RSA", NULL, g_rsa) || !key_pair("X25519", NULL, g_x))
        return 0;
    for (int c = 0; c < 3; c++) {
        EVP_PKEY *k[2];

        if (!key_pair("EC", c != 1 ? "P-256" : "P-384", k))
            return 0;
        if (c == 2) {
            g_peer = k[1];
            EVP_PKEY_free(k[0]);
            break;
        }
        g_ec[0][c] = k[0];
        g_ec[1][c] = k[1];
    }
    g_ready = 1;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in_t in = { data, size };

    if (!g_ready) {
        cpt_opts o;

        cpt_opts_init(&o);
        o.provider_path = getenv("CPTPROV_BUILD") != NULL ? getenv("CPTPROV_BUILD") : "build";
        if (!setup(&o))
            abort();
    }
    switch (byte_of(&in) % 8) {
    case 0:
    case 1:
        run_cipher(in, data, size);
        break;
    case 2:
        run_digest(in, 0, data, size);
        break;
    case 3:
        run_digest(in, 1, data, size);
        break;
    case 4:
        run_pkey(in, 0, data, size);
        break;
    case 5:
        run_pkey(in, 1, data, size);
        break;
    case 6:
        run_pkey(in, 2, data, size);
        break;
    default:
        run_derive(in, data, size);
    }
    return 0;
}

#ifndef CPT_LIBFUZZER
/* Saves a finding's input into dir, named by a hash of its bytes. */
static void save(const char *dir, const uint8_t *d, size_t n)
{
    char path[4200];
    uint64_t h = 1469598103934665603ull;
    FILE *f;

    for (size_t i = 0; i < n; i++)
        h = (h ^ d[i]) * 1099511628211ull;
    mkdir(dir, 0755);
    snprintf(path, sizeof(path), "%s/finding-%016llx", dir, (unsigned long long)h);
    if ((f = fopen(path, "wb")) != NULL) {
        fwrite(d, 1, n, f);
        fclose(f);
        fprintf(stderr, "  saved %s\n", path);
    }
}

/* One input: run it, and keep it if it was a finding. */
static void one(const uint8_t *d, size_t n, const char *crash_dir)
{
    unsigned long before = g_findings;

    LLVMFuzzerTestOneInput(d, n);
    if (g_findings != before)
        save(crash_dir, d, n);
}

int main(int argc, char **argv)
{
    cpt_opts o;
    const char *corpus = NULL, *crash_dir = "/tmp/cptprov-fuzz-findings";
    double seconds = 10;
    unsigned long runs = 0, replayed = 0;
    uint8_t *seeds[4096];
    size_t seedlen[4096], nseeds = 0;
    uint8_t buf[2048];
    cpt_rng r;
    DIR *dir;

    cpt_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        int rc = cpt_opts_parse_one(&o, argc, argv, &i);

        if (rc == 1)
            continue;
        if (rc == 0 && i + 1 < argc && strcmp(argv[i], "--corpus") == 0)
            corpus = argv[++i];
        else if (rc == 0 && i + 1 < argc && strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[++i]);
        else if (rc == 0 && i + 1 < argc && strcmp(argv[i], "--crash-dir") == 0)
            crash_dir = argv[++i];
        else {
            fprintf(stderr,
                "usage: %s [common options] [--corpus DIR] [--seconds S] [--crash-dir DIR]\n",
                argv[0]);
            return 2;
        }
    }
    cpt_set_verbose(o.verbose);
    CPT_CHECK(setup(&o), "keys and providers set up");
    if (!g_ready)
        return cpt_finish();
    if (corpus != NULL && (dir = opendir(corpus)) != NULL) {
        struct dirent *e;

        while ((e = readdir(dir)) != NULL && nseeds < 4096) {
            char path[4200];
            FILE *f;
            size_t n;

            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", corpus, e->d_name);
            if ((f = fopen(path, "rb")) == NULL)
                continue;
            n = fread(buf, 1, sizeof(buf), f);
            fclose(f);
            seeds[nseeds] = malloc(n + 1);
            memcpy(seeds[nseeds], buf, n);
            seedlen[nseeds++] = n;
            one(buf, n, crash_dir);
            replayed++;
        }
        closedir(dir);
    }
    /* Random inputs, and random mutations of the corpus. */
    cpt_rng_seed(&r, o.seed, 3);
    for (double end = cpt_now() + seconds; cpt_now() < end; runs++) {
        size_t n;

        if (nseeds > 0 && cpt_rng_pct(&r, 60)) {
            size_t s = cpt_rng_below(&r, nseeds);

            n = seedlen[s];
            memcpy(buf, seeds[s], n);
            for (int k = 0, flips = 1 + (int)cpt_rng_below(&r, 8); k < flips && n > 0; k++)
                buf[cpt_rng_below(&r, n)] ^= (uint8_t)(1 + cpt_rng_below(&r, 255));
            if (cpt_rng_pct(&r, 20) && n + 64 < sizeof(buf)) {
                cpt_rng_fill(&r, buf + n, 64);
                n += cpt_rng_below(&r, 64);
            }
        } else {
            n = (size_t)cpt_rng_below(&r, 700);
            cpt_rng_fill(&r, buf, n);
        }
        one(buf, n, crash_dir);
    }
    CPT_CHECK(g_findings == 0, "no finding in %lu corpus inputs and %lu random ones (seed %llu)",
        replayed, runs, (unsigned long long)o.seed);
    printf("fuzz_evp: %lu corpus inputs replayed, %lu random inputs, %lu findings\n", replayed,
        runs, g_findings);
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i]);
    for (int w = 0; w < 2; w++) {
        EVP_PKEY_free(g_rsa[w]);
        EVP_PKEY_free(g_x[w]);
        EVP_PKEY_free(g_ec[w][0]);
        EVP_PKEY_free(g_ec[w][1]);
    }
    EVP_PKEY_free(g_peer);
    cpt_env_free(&g_env);
    return cpt_finish();
}
#endif
