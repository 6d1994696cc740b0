/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stitched_test - the stitched TLS ciphers AES-128/256-CBC-HMAC-SHA1/SHA256
 * of the provider under test against OpenSSL's default provider, driven the
 * way libssl drives them: "mackey" and "tls-version" once, then per record
 * "tlsaad" (reading back "tlsaadpad") and one in-place update. Records of
 * TLS 1.0 (IV chained from record to record), 1.1 and 1.2 (explicit IV)
 * with random keys, MAC keys (up to 100 bytes) and payloads of 0 to 16 KiB
 * and more are sealed by both providers (byte for byte the same) and
 * opened by both; tampered records (a flipped bit anywhere, a good MAC
 * under bad padding, too long a padding, short or partial records) are
 * refused by both with an OpenSSL error; the plain mode (no AAD: CBC) is
 * compared too, as are the static parameters; the same inside ASYNC jobs;
 * and the counters show the device and the CPU path at work.
 *
 *   stitched_test [common options] [--iters N] [--maxlen BYTES]
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "common.h"

struct alg {
    const char *name, *md;
    size_t keylen, maclen;
};

static const struct alg g_algs[] = {
    { "AES-128-CBC-HMAC-SHA1", "SHA1", 16, 20 },
    { "AES-256-CBC-HMAC-SHA1", "SHA1", 32, 20 },
    { "AES-128-CBC-HMAC-SHA256", "SHA256", 16, 32 },
    { "AES-256-CBC-HMAC-SHA256", "SHA256", 32, 32 },
};
#define NALG (sizeof(g_algs) / sizeof(g_algs[0]))
static const int g_versions[] = { 0x0301, 0x0302, 0x0303 };

static cpt_opts g_o;
static cpt_env g_env;
static EVP_CIPHER *g_tc[NALG], *g_rc[NALG]; /* under test, reference */
static uint64_t g_iters = 40;
static size_t g_maxlen = 16384 + 256;

/* One direction of a connection: a context keyed as libssl keys it. */
static EVP_CIPHER_CTX *conn(EVP_CIPHER *c, int enc, const unsigned char *key,
    const unsigned char *iv, const unsigned char *mackey, size_t mackeylen, int version)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
        OSSL_PARAM_END };

    if (ctx == NULL || !EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc)
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_MAC_KEY, (int)mackeylen, (void *)mackey) <= 0
        || !EVP_CIPHER_CTX_set_params(ctx, p)) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* EVP_CIPHER_CTX_dup is 3.1's. */
static EVP_CIPHER_CTX *ctx_dup(const EVP_CIPHER_CTX *in)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

    if (c != NULL && !EVP_CIPHER_CTX_copy(c, in)) {
        EVP_CIPHER_CTX_free(c);
        c = NULL;
    }
    return c;
}

static void make_aad(unsigned char aad[13], uint64_t seq, int version, size_t len)
{
    for (int i = 7; i >= 0; i--, seq >>= 8)
        aad[i] = (unsigned char)seq;
    aad[8] = 23;
    aad[9] = (unsigned char)(version >> 8);
    aad[10] = (unsigned char)version;
    aad[11] = (unsigned char)(len >> 8);
    aad[12] = (unsigned char)len;
}

static size_t explicit_iv(int version)
{
    return version >= 0x0302 ? 16 : 0;
}

/*
 * Seals a record in place as libssl does: buf holds the explicit IV (TLS
 * 1.1 on) and the payload, len bytes, with room after them; returns the
 * record's length or 0. oneshot: EVP_Cipher instead of an update.
 */
static size_t seal(EVP_CIPHER_CTX *ctx, uint64_t seq, int version, unsigned char *buf, size_t len,
    int oneshot)
{
    unsigned char aad[13];
    int pad, outl;

    make_aad(aad, seq, version, len);
    pad = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    if (pad <= 0)
        return 0;
    if (oneshot)
        return EVP_Cipher(ctx, buf, buf, (unsigned int)(len + (size_t)pad)) > 0 ? len + (size_t)pad
                                                                                : 0;
    if (!EVP_CipherUpdate(ctx, buf, &outl, buf, (int)(len + (size_t)pad))
        || (size_t)outl != len + (size_t)pad)
        return 0;
    return len + (size_t)pad;
}

/* Opens a record in place; returns 1 and the payload length (after the
 * explicit IV) as libssl reads it, 0 when refused. */
static int open_rec(EVP_CIPHER_CTX *ctx, uint64_t seq, int version, unsigned char *buf, size_t len,
    size_t *plen)
{
    unsigned char aad[13];
    int outl;

    make_aad(aad, seq, version, len);
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) <= 0)
        return 0;
    if (!EVP_CipherUpdate(ctx, buf, &outl, buf, (int)len))
        return 0;
    *plen = (size_t)outl;
    return 1;
}

static size_t pick_len(cpt_rng *r)
{
    unsigned p = (unsigned)cpt_rng_below(r, 100);

    if (p < 40)
        return (size_t)cpt_rng_below(r, 300);
    if (p < 70)
        return (size_t)cpt_rng_below(r, 5000);
    return (size_t)cpt_rng_range(r, 5000, g_maxlen);
}

struct link {
    EVP_CIPHER_CTX *seal[2], *open[2]; /* [0] under test, [1] reference */
    int version;
    uint64_t seq;
};

static int link_init(struct link *l, size_t ai, int version, cpt_rng *r)
{
    unsigned char key[32], iv[16], mackey[100];
    size_t mkl =
        cpt_rng_pct(r, 70) ? g_algs[ai].maclen : (size_t)cpt_rng_below(r, sizeof(mackey) + 1);

    cpt_rng_fill(r, key, sizeof(key));
    cpt_rng_fill(r, iv, sizeof(iv));
    cpt_rng_fill(r, mackey, sizeof(mackey));
    memset(l, 0, sizeof(*l));
    l->version = version;
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER *c = k == 0 ? g_tc[ai] : g_rc[ai];

        l->seal[k] = conn(c, 1, key, iv, mackey, mkl, version);
        l->open[k] = conn(c, 0, key, iv, mackey, mkl, version);
    }
    return l->seal[0] && l->seal[1] && l->open[0] && l->open[1];
}

static void link_free(struct link *l)
{
    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX_free(l->seal[k]);
        EVP_CIPHER_CTX_free(l->open[k]);
    }
}

/*
 * One record over a link: sealed by both providers (equal bytes), each
 * sealed copy opened by the other provider. Returns 1 when all agreed.
 */
static int exchange(struct link *l, size_t len, cpt_rng *r, const char *what)
{
    size_t ivl = explicit_iv(l->version), n = ivl + len, cap = n + 64, rl[2], pl;
    unsigned char *msg = malloc(n + 1), *buf[2];
    int ok = 1, oneshot = cpt_rng_pct(r, 20);

    buf[0] = malloc(cap);
    buf[1] = malloc(cap);
    cpt_rng_fill(r, msg, n);
    for (int k = 0; k < 2; k++) {
        memcpy(buf[k], msg, n);
        rl[k] = seal(l->seal[k], l->seq, l->version, buf[k], n, oneshot);
    }
    ok &= CPT_CHECK(rl[0] != 0 && rl[0] == rl[1] && memcmp(buf[0], buf[1], rl[0]) == 0,
        "%s: %s record %llu (TLS %#x, %zu bytes, %s) sealed as the default provider does", what,
        EVP_CIPHER_get0_name(EVP_CIPHER_CTX_get0_cipher(l->seal[0])), (unsigned long long)l->seq,
        l->version, len, oneshot ? "EVP_Cipher" : "update");
    if (rl[0] != 0 && rl[0] == rl[1]) {
        for (int k = 0; k < 2; k++) { /* the other provider opens it */
            int okk = open_rec(l->open[1 - k], l->seq, l->version, buf[k], rl[k], &pl);

            ok &= CPT_CHECK(okk && pl == len && memcmp(buf[k] + ivl, msg + ivl, len) == 0,
                "%s: record %llu sealed by the %s opened by the %s (%zu of %zu bytes)", what,
                (unsigned long long)l->seq, k == 0 ? "provider" : "default provider",
                k == 0 ? "default provider" : "provider", okk ? pl : 0, len);
        }
    }
    l->seq++;
    free(msg);
    free(buf[0]);
    free(buf[1]);
    ERR_clear_error();
    return ok;
}

static void test_records(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 1);
    for (size_t ai = 0; ai < NALG; ai++) {
        for (size_t v = 0; v < 3; v++) {
            for (uint64_t it = 0; it < g_iters; it++) {
                struct link l;
                int nrec = 2 + (int)cpt_rng_below(&r, 6);

                if (!CPT_CHECK(link_init(&l, ai, g_versions[v], &r), "%s: contexts keyed",
                        g_algs[ai].name)) {
                    link_free(&l);
                    return;
                }
                /* Some records short and some long, so that a stream
                 * crosses between the CPU path and the device. */
                for (int i = 0; i < nrec; i++)
                    if (!exchange(&l, pick_len(&r), &r, "records"))
                        break;
                link_free(&l);
            }
        }
    }
    /* The edges: empty payloads, and the largest TLS record. */
    for (size_t ai = 0; ai < NALG; ai++) {
        struct link l;

        if (link_init(&l, ai, 0x0303, &r)) {
            exchange(&l, 0, &r, "edges");
            exchange(&l, 16384, &r, "edges");
            exchange(&l, 1, &r, "edges");
        }
        link_free(&l);
    }
}

/*
 * A record whose plaintext is given whole (payload, MAC, padding), CBC
 * encrypted with AES-CBC of the reference: lets the test forge a good MAC
 * under a bad padding. Returns the record length.
 */
static size_t forge(size_t ai, const unsigned char *key, const unsigned char *iv,
    const unsigned char *mackey, int version, uint64_t seq, const unsigned char *payload,
    size_t plen, size_t padlen, int badpad, unsigned char *out)
{
    unsigned char aad[13];
    size_t ml = 0;
    size_t ivl = explicit_iv(version), n;
    EVP_CIPHER *aes = EVP_CIPHER_fetch(g_env.ref_libctx,
        g_algs[ai].keylen == 16 ? "AES-128-CBC" : "AES-256-CBC", NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;

    make_aad(aad, seq, version, plen);
    memset(out, 0x11, ivl); /* the explicit IV */
    memcpy(out + ivl, payload, plen);
    {
        unsigned char in[13 + 20000];

        memcpy(in, aad, 13);
        memcpy(in + 13, payload, plen);
        EVP_Q_mac(g_env.ref_libctx, "HMAC", NULL, g_algs[ai].md, NULL, mackey, g_algs[ai].maclen,
            in, 13 + plen, out + ivl + plen, 64, &ml);
    }
    n = ivl + plen + ml;
    for (size_t i = 0; i < padlen; i++)
        out[n + i] = (unsigned char)(padlen - 1);
    if (badpad)
        out[n + padlen / 2] ^= 0x01; /* one padding byte (or the length) wrong */
    n += padlen;
    EVP_CipherInit_ex2(ctx, aes, key, iv, 1, NULL);
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    EVP_CipherUpdate(ctx, out, &outl, out, (int)n);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(aes);
    return n;
}

/* Both providers refuse a record, with an error on the queue. */
static void both_refuse(struct link *l, const unsigned char *rec, size_t len, const char *what)
{
    size_t pl;
    unsigned char *b = malloc(len + 16);
    int refused[2];
    unsigned long err[2];

    for (int k = 0; k < 2; k++) {
        EVP_CIPHER_CTX *c = ctx_dup(l->open[k]);

        memcpy(b, rec, len);
        ERR_clear_error();
        refused[k] = c != NULL && !open_rec(c, l->seq, l->version, b, len, &pl);
        err[k] = ERR_peek_error();
        EVP_CIPHER_CTX_free(c);
    }
    ERR_clear_error();
    CPT_CHECK(refused[0] && refused[1] && err[0] != 0,
        "%s (TLS %#x, %zu bytes): refused by the provider (%d, error %#lx) as by the default (%d)",
        what, l->version, len, refused[0], err[0], refused[1]);
    free(b);
}

static void test_tamper(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 2);
    for (size_t ai = 0; ai < NALG; ai++) {
        for (size_t v = 0; v < 3; v++) {
            for (uint64_t it = 0; it < g_iters / 2 + 1; it++) {
                unsigned char key[32], iv[16], mackey[32];
                int version = g_versions[v], ok = 1;
                size_t ivl = explicit_iv(version), len = pick_len(&r), n = ivl + len, rl;
                unsigned char *buf = malloc(n + 64 + 256), *payload = malloc(len + 1);
                struct link l;
                int kk;

                cpt_rng_fill(&r, key, sizeof(key));
                cpt_rng_fill(&r, iv, sizeof(iv));
                cpt_rng_fill(&r, mackey, sizeof(mackey));
                cpt_rng_fill(&r, payload, len);
                memset(&l, 0, sizeof(l));
                l.version = version;
                for (int k = 0; k < 2; k++) {
                    EVP_CIPHER *c = k == 0 ? g_tc[ai] : g_rc[ai];

                    l.seal[k] = conn(c, 1, key, iv, mackey, g_algs[ai].maclen, version);
                    l.open[k] = conn(c, 0, key, iv, mackey, g_algs[ai].maclen, version);
                    ok &= l.seal[k] != NULL && l.open[k] != NULL;
                }
                if (!CPT_CHECK(ok, "%s: contexts keyed", g_algs[ai].name)) {
                    link_free(&l);
                    free(buf);
                    free(payload);
                    return;
                }
                memset(buf, 0x22, ivl);
                memcpy(buf + ivl, payload, len);
                rl = seal(l.seal[0], 0, version, buf, n, 0);
                CPT_CHECK(rl != 0, "%s: sealed", g_algs[ai].name);
                /* A flipped bit: in the last two blocks (MAC, padding),
                 * or anywhere. */
                kk = (int)cpt_rng_below(&r, 2);
                {
                    unsigned char *t = malloc(rl + 1);
                    size_t at = kk == 0 ? rl - 1 - (size_t)cpt_rng_below(&r, 32)
                                        : (size_t)cpt_rng_below(&r, rl);

                    memcpy(t, buf, rl);
                    t[at] ^= (unsigned char)(1u << cpt_rng_below(&r, 8));
                    both_refuse(&l, t, rl,
                        kk == 0 ? "a bit flipped in the MAC or padding" : "a bit flipped anywhere");
                    /* Short: too short for IV, MAC and padding; partial. */
                    both_refuse(&l, t, ivl + g_algs[ai].maclen - (ivl + g_algs[ai].maclen) % 16,
                        "a record too short for its MAC");
                    if (rl > 16)
                        both_refuse(&l, buf, rl - 1 - (size_t)cpt_rng_below(&r, 15),
                            "a record of partial blocks");
                    free(t);
                }
                /* Forged: a good MAC under a bad padding, and a padding
                 * longer than the record allows. */
                {
                    size_t plen = len % 2000, base = ivl + plen + g_algs[ai].maclen;
                    size_t padlen = 16 - base % 16 + 16 * (size_t)cpt_rng_below(&r, 8);
                    unsigned char *t = malloc(ivl + 2000 + 32 + 256 + 16);
                    size_t fl;

                    fl = forge(ai, key, iv, mackey, version, 0, payload, plen, padlen, 0, t);
                    {
                        size_t pl;
                        EVP_CIPHER_CTX *c = ctx_dup(l.open[0]);
                        int okk = c != NULL && open_rec(c, 0, version, t, fl, &pl);

                        CPT_CHECK(okk && pl == plen && memcmp(t + ivl, payload, plen) == 0,
                            "%s: a forged record with %zu bytes of good padding opens",
                            g_algs[ai].name, padlen);
                        EVP_CIPHER_CTX_free(c);
                    }
                    fl = forge(ai, key, iv, mackey, version, 0, payload, plen, padlen, 1, t);
                    both_refuse(&l, t, fl, "a good MAC under a bad padding");
                    free(t);
                }
                link_free(&l);
                free(buf);
                free(payload);
            }
        }
    }
}

/* Without an AAD the ciphers are AES-CBC over whole blocks. */
static void test_plain(void)
{
    cpt_rng r;

    cpt_rng_seed(&r, g_o.seed, 3);
    for (size_t ai = 0; ai < NALG; ai++) {
        for (uint64_t it = 0; it < g_iters; it++) {
            unsigned char key[32], iv[16];
            size_t len = 16
                * ((cpt_rng_pct(&r, 15) ? 40000 + (size_t)cpt_rng_below(&r, 30000) : pick_len(&r))
                    / 16);
            unsigned char *in = malloc(len + 16), *out[2];
            int enc = (int)cpt_rng_below(&r, 2), oneshot = cpt_rng_pct(&r, 30), ok = 1;
            int outl[2] = { -1, -1 };

            cpt_rng_fill(&r, key, sizeof(key));
            cpt_rng_fill(&r, iv, sizeof(iv));
            cpt_rng_fill(&r, in, len);
            for (int k = 0; k < 2; k++) {
                EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

                out[k] = malloc(len + 16);
                ok &= EVP_CipherInit_ex2(ctx, k == 0 ? g_tc[ai] : g_rc[ai], key, iv, enc, NULL);
                /* Two pieces (one may run on the CPU path, one on the device). */
                size_t first = 16 * (size_t)cpt_rng_below(&r, len / 16 + 1);
                size_t from[2] = { 0, first }, to[2] = { first, len };

                outl[k] = 0;
                for (int piece = 0; ok && piece < 2; piece++) {
                    size_t n = to[piece] - from[piece];
                    int o = 0;

                    if (oneshot) {
                        ok &= n == 0
                            || EVP_Cipher(ctx, out[k] + from[piece], in + from[piece],
                                   (unsigned int)n)
                                > 0;
                        o = (int)n;
                    } else {
                        ok &= EVP_CipherUpdate(ctx, out[k] + from[piece], &o, in + from[piece],
                            (int)n);
                    }
                    outl[k] += o;
                }
                EVP_CIPHER_CTX_free(ctx);
            }
            CPT_CHECK(ok && outl[0] == outl[1] && memcmp(out[0], out[1], len) == 0,
                "%s: plain %s of %zu bytes (%s) as the default provider", g_algs[ai].name,
                enc ? "encryption" : "decryption", len, oneshot ? "EVP_Cipher" : "updates");
            for (int k = 0; k < 2; k++)
                free(out[k]);
            free(in);
        }
        /* A partial block fails on both. */
        {
            unsigned char key[32] = { 0 }, iv[16] = { 0 }, buf[64] = { 0 };
            int refused[2];

            for (int k = 0; k < 2; k++) {
                EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
                int o;

                refused[k] = EVP_CipherInit_ex2(ctx, k == 0 ? g_tc[ai] : g_rc[ai], key, iv, 1, NULL)
                    && !EVP_CipherUpdate(ctx, buf, &o, buf, 20);
                EVP_CIPHER_CTX_free(ctx);
            }
            ERR_clear_error();
            CPT_CHECK(refused[0] && refused[1], "%s: a partial block is refused (%d, %d)",
                g_algs[ai].name, refused[0], refused[1]);
        }
    }
}

/* The static and context parameters the two providers report. */
static void test_params(void)
{
    for (size_t ai = 0; ai < NALG; ai++) {
        EVP_CIPHER *t = g_tc[ai], *d = g_rc[ai];
        unsigned long mask = EVP_CIPH_FLAG_AEAD_CIPHER | EVP_CIPH_MODE | EVP_CIPH_FLAG_CUSTOM_CIPHER
            | EVP_CIPH_CUSTOM_IV | EVP_CIPH_RAND_KEY;
        const OSSL_PARAM *gt = EVP_CIPHER_gettable_ctx_params(t);
        const OSSL_PARAM *st = EVP_CIPHER_settable_ctx_params(t);

        CPT_CHECK((EVP_CIPHER_get_flags(t) & mask) == (EVP_CIPHER_get_flags(d) & mask)
                && (EVP_CIPHER_get_flags(t) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0
                && EVP_CIPHER_get_mode(t) == EVP_CIPH_CBC_MODE
                && EVP_CIPHER_get_key_length(t) == EVP_CIPHER_get_key_length(d)
                && EVP_CIPHER_get_iv_length(t) == 16 && EVP_CIPHER_get_block_size(t) == 16,
            "%s: flags %#lx, mode, key, IV and block lengths as the default provider's (%#lx)",
            g_algs[ai].name, EVP_CIPHER_get_flags(t) & mask, EVP_CIPHER_get_flags(d) & mask);
        /* We do not offer TLS multiblock (the default provider does). */
        CPT_CHECK((EVP_CIPHER_get_flags(t) & EVP_CIPH_FLAG_TLS1_1_MULTIBLOCK) == 0,
            "%s: no multiblock", g_algs[ai].name);
        CPT_CHECK(OSSL_PARAM_locate_const(gt, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD) != NULL
                && OSSL_PARAM_locate_const(st, OSSL_CIPHER_PARAM_AEAD_MAC_KEY) != NULL
                && OSSL_PARAM_locate_const(st, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD) != NULL,
            "%s: tlsaadpad gettable, mackey and tlsaad settable", g_algs[ai].name);
        /* iv and updated-iv after a record; a bad AAD length refused. */
        {
            unsigned char key[32] = { 1 }, iv[16] = { 2 }, mk[20] = { 3 }, buf[64] = { 0 };
            unsigned char got[2][2][16], aad[13];
            int rejected[2];

            for (int k = 0; k < 2; k++) {
                EVP_CIPHER_CTX *c = conn(k == 0 ? t : d, 1, key, iv, mk, sizeof(mk), 0x0303);

                memset(buf, 0, sizeof(buf));
                seal(c, 0, 0x0303, buf, 16, 0);
                EVP_CIPHER_CTX_get_original_iv(c, got[k][0], 16);
                EVP_CIPHER_CTX_get_updated_iv(c, got[k][1], 16);
                make_aad(aad, 0, 0x0303, 20);
                rejected[k] = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_TLS1_AAD, 12, aad) <= 0;
                EVP_CIPHER_CTX_free(c);
            }
            ERR_clear_error();
            CPT_CHECK(memcmp(got[0], got[1], sizeof(got[0])) == 0 && rejected[0] && rejected[1],
                "%s: iv, updated-iv and a 12-byte AAD as the default provider", g_algs[ai].name);
        }
    }
}

struct job {
    size_t ai;
    int version, ok, enc_side;
    unsigned char key[32], iv[16], mk[32];
    size_t nrec, lens[6], rls[6];
    unsigned char *bufs[6];
    /* 40000 bytes of plain CBC: above the default threshold, on the device
     * (TLS records are all below it, on the CPU path) */
    unsigned char *plain, *plain_out;
};

#define JOB_PLAIN 40000

static int plain_crypt(EVP_CIPHER *c, const struct job *j, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n,
        ok = ctx != NULL && EVP_CipherInit_ex2(ctx, c, j->key, j->iv, 1, NULL)
        && EVP_CipherUpdate(ctx, out, &n, j->plain, JOB_PLAIN) && n == JOB_PLAIN;

    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* A job seals its records (with the provider under test) in an ASYNC job. */
static int job_fn(void *arg)
{
    struct job *j = arg;
    EVP_CIPHER_CTX *c =
        conn(g_tc[j->ai], 1, j->key, j->iv, j->mk, g_algs[j->ai].maclen, j->version);

    j->ok = c != NULL;
    for (size_t i = 0; j->ok && i < j->nrec; i++)
        j->ok = (j->rls[i] =
                        seal(c, i, j->version, j->bufs[i], explicit_iv(j->version) + j->lens[i], 0))
            != 0;
    EVP_CIPHER_CTX_free(c);
    j->ok = j->ok && plain_crypt(g_tc[j->ai], j, j->plain_out);
    return j->ok;
}

/* The other half: the provider under test opens records in ASYNC jobs. */
static int open_job_fn(void *arg)
{
    struct job *j = arg;
    EVP_CIPHER_CTX *c =
        conn(g_tc[j->ai], 0, j->key, j->iv, j->mk, g_algs[j->ai].maclen, j->version);
    size_t pl;

    j->ok = c != NULL;
    for (size_t i = 0; j->ok && i < j->nrec; i++)
        j->ok = open_rec(c, i, j->version, j->bufs[i], j->rls[i], &pl) && pl == j->lens[i];
    EVP_CIPHER_CTX_free(c);
    return j->ok;
}

enum { NJOBS = 48 };

/* One round of the ASYNC test: jobs seal, the default provider opens, then
 * jobs open; paused[0] and [1] say how many of each phase paused. */
static void async_round(uint64_t seed, size_t paused[2])
{
    struct job jobs[NJOBS];
    void *args[NJOBS];
    cpt_jobs j;
    cpt_rng r;
    size_t ivl;

    cpt_rng_seed(&r, seed, 4);
    for (int i = 0; i < NJOBS; i++) {
        struct job *jb = &jobs[i];

        jb->ai = (size_t)i % NALG;
        jb->version = g_versions[(i / NALG) % 3];
        jb->nrec = 1 + (size_t)cpt_rng_below(&r, 6);
        cpt_rng_fill(&r, jb->key, sizeof(jb->key));
        cpt_rng_fill(&r, jb->iv, sizeof(jb->iv));
        cpt_rng_fill(&r, jb->mk, sizeof(jb->mk));
        jb->plain = malloc(JOB_PLAIN);
        jb->plain_out = malloc(JOB_PLAIN);
        cpt_rng_fill(&r, jb->plain, JOB_PLAIN);
        ivl = explicit_iv(jb->version);
        for (size_t k = 0; k < jb->nrec; k++) {
            jb->lens[k] =
                cpt_rng_pct(&r, 70) ? (size_t)cpt_rng_range(&r, 4096, 16384) : pick_len(&r);
            jb->bufs[k] = malloc(ivl + jb->lens[k] + 64);
            cpt_rng_fill(&r, jb->bufs[k], ivl + jb->lens[k]);
        }
        args[i] = jb;
    }
    /* Keep the plaintexts to compare. */
    unsigned char *plain[NJOBS][6];
    for (int i = 0; i < NJOBS; i++)
        for (size_t k = 0; k < jobs[i].nrec; k++) {
            size_t n = explicit_iv(jobs[i].version) + jobs[i].lens[k];

            plain[i][k] = malloc(n + 1);
            memcpy(plain[i][k], jobs[i].bufs[k], n);
        }
    paused[0] = cpt_jobs_check_async(&j, job_fn, args, NJOBS, seed);
    /* The default provider opens what the jobs sealed, in a copy. */
    for (int i = 0; i < NJOBS; i++) {
        struct job *jb = &jobs[i];
        EVP_CIPHER_CTX *c =
            conn(g_rc[jb->ai], 0, jb->key, jb->iv, jb->mk, g_algs[jb->ai].maclen, jb->version);
        unsigned char *ref = malloc(JOB_PLAIN);
        int ok = jb->ok && c != NULL && plain_crypt(g_rc[jb->ai], jb, ref)
            && memcmp(ref, jb->plain_out, JOB_PLAIN) == 0;

        free(ref);
        ivl = explicit_iv(jb->version);
        for (size_t k = 0; ok && k < jb->nrec; k++) {
            unsigned char *t = malloc(jb->rls[k] + 1);
            size_t pl;

            memcpy(t, jb->bufs[k], jb->rls[k]);
            ok = open_rec(c, k, jb->version, t, jb->rls[k], &pl) && pl == jb->lens[k]
                && memcmp(t + ivl, plain[i][k] + ivl, pl) == 0;
            free(t);
        }
        CPT_CHECK(ok,
            "async job %d (%s, TLS %#x, %zu records) sealed what the default provider opens", i,
            g_algs[jb->ai].name, jb->version, jb->nrec);
        EVP_CIPHER_CTX_free(c);
    }
    paused[1] = cpt_jobs_check_async(&j, open_job_fn, args, NJOBS, seed + 1);
    for (int i = 0; i < NJOBS; i++) {
        struct job *jb = &jobs[i];
        int ok = jb->ok;

        ivl = explicit_iv(jb->version);
        for (size_t k = 0; k < jb->nrec; k++) {
            ok = ok && memcmp(jb->bufs[k] + ivl, plain[i][k] + ivl, jb->lens[k]) == 0;
            free(plain[i][k]);
            free(jb->bufs[k]);
        }
        CPT_CHECK(ok, "async job %d opened its records", i);
        free(jb->plain);
        free(jb->plain_out);
    }
}

static void test_async(void)
{
    /* Records reach the device (and pause) in the opening phase only below
     * the default threshold's reach: with CPTPROV_CPU_THRESHOLD set by the
     * runs. */
    int open_pauses = getenv("CPTPROV_CPU_THRESHOLD") != NULL, round = 0;
    size_t paused[2];

    do {
        round++;
        async_round(g_o.seed + 2 * ((uint64_t)round - 1), paused);
    } while (cpt_async_retry(g_env.name, paused[0] == 0 || (open_pauses && paused[1] == 0) ? 0 : 1,
        round));
    cpt_check_paused(g_env.name, "sealing", paused[0], NJOBS, round);
    if (open_pauses)
        cpt_check_paused(g_env.name, "opening", paused[1], NJOBS, round);
}

static const char *alg_name(size_t i)
{
    return g_algs[i].name;
}

static void test_stats(void)
{
    for (size_t i = 0; i < NALG; i++)
        cpt_stats_check_paths(&g_env, &g_o, g_algs[i].name);
}

static const cpt_named_test g_tests[] = {
    { "params", test_params },
    { "records", test_records },
    { "tamper", test_tamper },
    { "plain", test_plain },
    { "async", test_async },
    { "stats", test_stats },
};

int main(int argc, char **argv)
{
    int rc = cpt_harness_start("stitched_test", &g_o, &g_env, argc, argv, &g_iters, &g_maxlen);

    if (rc >= 0)
        return rc;
    if (g_maxlen > 65535 - 256)
        g_maxlen = 65535 - 256; /* a record's length is 16 bits */
    return cpt_run_cipher_tests(&g_o, &g_env, g_tc, g_rc, NALG, alg_name, g_tests,
        sizeof(g_tests) / sizeof(g_tests[0]));
}
