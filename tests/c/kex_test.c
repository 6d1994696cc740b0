/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Key exchange through cptprov against OpenSSL's default provider, for
 * X25519 and ECDH on P-192, P-224, P-256, P-384 and P-521: RFC 7748
 * vectors, keys generated on either side used on the other, shared secrets
 * equal both ways, export/import both ways, EVP_PKEY_eq, key checks, bad
 * peers (low order, off the curve) and short buffers refused, and
 * derivations inside many ASYNC jobs at once.
 * Usage: kex_test --provider-path DIR [--iters N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/async.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include "common.h"

static OSSL_LIB_CTX *lc; /* cptprov and default */

static int unhex(const char *h, unsigned char *out)
{
    int n = 0;

    for (; h[0] && h[1]; h += 2)
        sscanf(h, "%2hhx", &out[n++]);
    return n;
}

static const char *prov_of(const EVP_PKEY *k)
{
    const OSSL_PROVIDER *p = EVP_PKEY_get0_provider(k);
    return p != NULL ? OSSL_PROVIDER_get0_name(p) : "(legacy)";
}

static EVP_PKEY *raw_priv(const unsigned char *priv, const char *propq)
{
    return EVP_PKEY_new_raw_private_key_ex(lc, "X25519", propq, priv, 32);
}

static EVP_PKEY *raw_pub(const unsigned char *pub, const char *propq)
{
    return EVP_PKEY_new_raw_public_key_ex(lc, "X25519", propq, pub, 32);
}

/* The key types exercised: X25519, and EC on each NIST prime curve. */
struct kex {
    const char *alg, *group; /* group NULL for X25519 */
};
static const struct kex kexes[] = {
    { "X25519", NULL },
    { "EC", "P-192" },
    { "EC", "P-224" },
    { "EC", "P-256" },
    { "EC", "P-384" },
    { "EC", "P-521" },
};

static EVP_PKEY *keygen_kex(const struct kex *x, const char *propq)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc, x->alg, propq);
    EVP_PKEY *k = NULL;

    if (c == NULL || EVP_PKEY_keygen_init(c) <= 0
        || (x->group != NULL && EVP_PKEY_CTX_set_group_name(c, x->group) <= 0)
        || EVP_PKEY_keygen(c, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(c);
    return k;
}

static EVP_PKEY *keygen(const char *propq)
{
    return keygen_kex(&kexes[0], propq);
}

/* A copy of k in the other provider, through export and import. */
static EVP_PKEY *copy_to(EVP_PKEY *k, const char *alg, const char *propq)
{
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc, alg, propq);
    EVP_PKEY *out = NULL;

    if (c == NULL || EVP_PKEY_todata(k, EVP_PKEY_KEYPAIR, &params) <= 0
        || EVP_PKEY_fromdata_init(c) <= 0
        || EVP_PKEY_fromdata(c, &out, EVP_PKEY_KEYPAIR, params) <= 0)
        out = NULL;
    OSSL_PARAM_free(params);
    EVP_PKEY_CTX_free(c);
    return out;
}

/* Derives with the key's own provider (propq selects the exchange). */
static int derive(EVP_PKEY *key, EVP_PKEY *peer, const char *propq, unsigned char out[32])
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(lc, key, propq);
    size_t n = 0;
    int ok = c != NULL && EVP_PKEY_derive_init(c) > 0 && EVP_PKEY_derive_set_peer(c, peer) > 0
        && EVP_PKEY_derive(c, NULL, &n) > 0 && n == 32 && EVP_PKEY_derive(c, out, &n) > 0
        && n == 32;

    EVP_PKEY_CTX_free(c);
    return ok;
}

static void test_rfc7748(void)
{
    unsigned char a[32], apub[32], b[32], bpub[32], k[32], got[32], shared[32];
    size_t n = 32;
    EVP_PKEY *ka, *kbpub;

    unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", a);
    unhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a", apub);
    unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb", b);
    unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f", bpub);
    unhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742", k);
    (void)b;
    ka = raw_priv(a, "provider=cptprov");
    CPT_CHECK(ka != NULL && strcmp(prov_of(ka), "cptprov") == 0,
        "RFC 7748 private key imported into cptprov");
    CPT_CHECK(ka != NULL && EVP_PKEY_get_raw_public_key(ka, got, &n) && memcmp(got, apub, 32) == 0,
        "RFC 7748 6.1: Alice's public key");
    kbpub = raw_pub(bpub, "provider=cptprov");
    CPT_CHECK(ka != NULL && kbpub != NULL && derive(ka, kbpub, "provider=cptprov", shared)
            && memcmp(shared, k, 32) == 0,
        "RFC 7748 6.1: shared secret");
    EVP_PKEY_free(ka);
    EVP_PKEY_free(kbpub);
}

static void test_differential(int iters)
{
    for (size_t t = 0; t < sizeof(kexes) / sizeof(kexes[0]); t++) {
        const struct kex *x = &kexes[t];
        const char *what = x->group != NULL ? x->group : x->alg;

        for (int i = 0; i < iters; i++) {
            EVP_PKEY *c = keygen_kex(x, "provider=cptprov"), *d = keygen_kex(x, "provider=default");
            EVP_PKEY *c2d = NULL, *d2c = NULL;
            unsigned char s1[66], s2[66], s3[66];

            CPT_CHECK(c != NULL && d != NULL && strcmp(prov_of(c), "cptprov") == 0, "%s keygen %d",
                what, i);
            if (c == NULL || d == NULL)
                return;
            CPT_CHECK(EVP_PKEY_get_bits(c) == EVP_PKEY_get_bits(d)
                    && EVP_PKEY_get_security_bits(c) == EVP_PKEY_get_security_bits(d)
                    && EVP_PKEY_get_size(c) == EVP_PKEY_get_size(d),
                "%s iteration %d: bits, security bits and size as the default provider's", what, i);
            {
                size_t n1 = 0, n2 = 0;
                EVP_PKEY_CTX *a = EVP_PKEY_CTX_new_from_pkey(lc, c, "provider=cptprov");
                EVP_PKEY_CTX *b = EVP_PKEY_CTX_new_from_pkey(lc, d, "provider=default");
                int ok = a != NULL && b != NULL && EVP_PKEY_derive_init(a) > 0
                    && EVP_PKEY_derive_init(b) > 0 && EVP_PKEY_derive_set_peer(a, d) > 0
                    && EVP_PKEY_derive_set_peer(b, c) > 0 && EVP_PKEY_derive(a, NULL, &n1) > 0
                    && n1 <= sizeof(s1) && EVP_PKEY_derive(a, s1, &n1) > 0
                    && EVP_PKEY_derive(b, NULL, &n2) > 0 && n2 <= sizeof(s2)
                    && EVP_PKEY_derive(b, s2, &n2) > 0;

                CPT_CHECK(ok && n1 == n2 && memcmp(s1, s2, n1) == 0,
                    "%s iteration %d: cptprov and default agree on the shared secret", what, i);
                EVP_PKEY_CTX_free(a);
                EVP_PKEY_CTX_free(b);
            }
            /* Keys cross providers both ways and stay the same keys. */
            c2d = copy_to(c, x->alg, "provider=default");
            d2c = copy_to(d, x->alg, "provider=cptprov");
            CPT_CHECK(c2d != NULL && d2c != NULL && strcmp(prov_of(d2c), "cptprov") == 0,
                "%s iteration %d: export/import both ways", what, i);
            CPT_CHECK(c2d != NULL && EVP_PKEY_eq(c, c2d) == 1 && d2c != NULL
                    && EVP_PKEY_eq(d, d2c) == 1,
                "%s iteration %d: EVP_PKEY_eq across providers", what, i);
            {
                EVP_PKEY_CTX *k = EVP_PKEY_CTX_new_from_pkey(lc, d2c, "provider=cptprov");
                size_t n = 0;
                int ok = k != NULL && EVP_PKEY_check(k) == 1 && EVP_PKEY_public_check(k) == 1;

                /* The imported key derives the same secret with cptprov. */
                EVP_PKEY_CTX_free(k);
                k = EVP_PKEY_CTX_new_from_pkey(lc, d2c, "provider=cptprov");
                ok = ok && k != NULL && EVP_PKEY_derive_init(k) > 0
                    && EVP_PKEY_derive_set_peer(k, c) > 0 && EVP_PKEY_derive(k, NULL, &n) > 0
                    && n <= sizeof(s3) && EVP_PKEY_derive(k, s3, &n) > 0 && memcmp(s3, s1, n) == 0;
                CPT_CHECK(ok, "%s iteration %d: imported key checks and derives", what, i);
                EVP_PKEY_CTX_free(k);
            }
            EVP_PKEY_free(c2d);
            EVP_PKEY_free(d2c);
            EVP_PKEY_free(c);
            EVP_PKEY_free(d);
        }
    }
}

/* An EC public key whose point is off the curve is refused on import. */
static void test_ec_off_curve(void)
{
    EVP_PKEY *d = keygen_kex(&kexes[3], "provider=default"), *bad = NULL;
    unsigned char pub[65];
    size_t n = 0;
    OSSL_PARAM params[3];
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc, "EC", "provider=cptprov");

    CPT_CHECK(d != NULL && EVP_PKEY_get_octet_string_param(d, "pub", pub, sizeof(pub), &n)
            && n == 65,
        "P-256 key");
    pub[64] ^= 1;
    params[0] = OSSL_PARAM_construct_utf8_string("group", (char *)"P-256", 0);
    params[1] = OSSL_PARAM_construct_octet_string("pub", pub, 65);
    params[2] = OSSL_PARAM_construct_end();
    ERR_clear_error();
    CPT_CHECK(c != NULL && EVP_PKEY_fromdata_init(c) > 0
            && EVP_PKEY_fromdata(c, &bad, EVP_PKEY_PUBLIC_KEY, params) <= 0
            && ERR_peek_error() != 0,
        "a P-256 point off the curve is refused with an error");
    ERR_clear_error();
    EVP_PKEY_free(bad);
    EVP_PKEY_free(d);
    EVP_PKEY_CTX_free(c);
}

static void test_negative(void)
{
    unsigned char zero[32] = { 0 }, out[32], small[8];
    EVP_PKEY *c = keygen("provider=cptprov"), *low = raw_pub(zero, "provider=cptprov");
    EVP_PKEY_CTX *x;
    size_t n;

    CPT_CHECK(c != NULL && low != NULL, "keys");
    ERR_clear_error();
    CPT_CHECK(!derive(c, low, "provider=cptprov", out) && ERR_peek_error() != 0,
        "a low-order peer point (all-zero secret) is refused with an error");
    ERR_clear_error();
    x = EVP_PKEY_CTX_new_from_pkey(lc, c, "provider=cptprov");
    n = sizeof(small);
    CPT_CHECK(x != NULL && EVP_PKEY_derive_init(x) > 0 && EVP_PKEY_derive_set_peer(x, c) > 0
            && EVP_PKEY_derive(x, small, &n) <= 0 && ERR_peek_error() != 0,
        "an 8-byte output buffer is refused with an error");
    EVP_PKEY_CTX_free(x);
    ERR_clear_error();
    CPT_CHECK(EVP_PKEY_new_raw_private_key_ex(lc, "X25519", "provider=cptprov", zero, 31) == NULL,
        "a 31-byte private key is refused");
    ERR_clear_error();
    EVP_PKEY_free(c);
    EVP_PKEY_free(low);
}

/*
 * A TLS key share as libssl 3 makes it: the peer's share set on a key from
 * parameter generation, our key generated from that key as template, our
 * share's bytes asked (size, then bytes), the peer's key checked as
 * derive_set_peer does. cptprov answers most of these in C for X25519.
 */
static EVP_PKEY *share_key(const struct kex *x, const char *propq)
{
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc, x->alg, propq);
    EVP_PKEY *k = NULL;

    if (c == NULL || EVP_PKEY_paramgen_init(c) <= 0
        || EVP_PKEY_CTX_set_group_name(c, x->group != NULL ? x->group : "X25519") <= 0
        || EVP_PKEY_paramgen(c, &k) <= 0)
        k = NULL;
    EVP_PKEY_CTX_free(c);
    return k;
}

/* The server's side in provider propq for a client's share: its own share
 * in *pub, the secret in secret; 0 on any failure. */
static int serve_share(const struct kex *x, const char *propq, const unsigned char *cpub,
    size_t cpublen, unsigned char **pub, size_t *publen, unsigned char *secret, size_t *slen)
{
    EVP_PKEY *peer = share_key(x, propq), *ours = NULL;
    EVP_PKEY_CTX *g = peer != NULL ? EVP_PKEY_CTX_new_from_pkey(lc, peer, propq) : NULL, *d = NULL;
    int ok = g != NULL && EVP_PKEY_set1_encoded_public_key(peer, cpub, cpublen) == 1
        && EVP_PKEY_keygen_init(g) > 0 && EVP_PKEY_keygen(g, &ours) > 0
        && (*publen = EVP_PKEY_get1_encoded_public_key(ours, pub)) > 0
        && (d = EVP_PKEY_CTX_new_from_pkey(lc, ours, propq)) != NULL && EVP_PKEY_derive_init(d) > 0
        && EVP_PKEY_derive_set_peer(d, peer) > 0 && EVP_PKEY_derive(d, NULL, slen) > 0
        && *slen <= 66 && EVP_PKEY_derive(d, secret, slen) > 0;

    if (ok && strcmp(propq, "provider=cptprov") == 0)
        ok = strcmp(prov_of(ours), "cptprov") == 0 && strcmp(prov_of(peer), "cptprov") == 0;
    EVP_PKEY_CTX_free(d);
    EVP_PKEY_CTX_free(g);
    EVP_PKEY_free(ours);
    EVP_PKEY_free(peer);
    return ok;
}

static void test_tls_key_share(int iters)
{
    static const char *const provs[2] = { "provider=cptprov", "provider=default" };

    for (size_t t = 0; t < sizeof(kexes) / sizeof(kexes[0]); t++) {
        const struct kex *x = &kexes[t];
        const char *what = x->group != NULL ? x->group : x->alg;

        for (int i = 0; i < iters; i++) {
            int srv = i % 2, cli = !srv; /* the server in each provider in turn */
            EVP_PKEY *ck = keygen_kex(x, provs[cli]), *cpeer = share_key(x, provs[cli]);
            unsigned char *cpub = NULL, *spub = NULL, s1[66], s2[66];
            size_t cpublen = 0, spublen = 0, n1 = 0, n2 = sizeof(s2);
            EVP_PKEY_CTX *d = NULL;
            int ok = ck != NULL && cpeer != NULL
                && (cpublen = EVP_PKEY_get1_encoded_public_key(ck, &cpub)) > 0
                && serve_share(x, provs[srv], cpub, cpublen, &spub, &spublen, s1, &n1)
                && EVP_PKEY_set1_encoded_public_key(cpeer, spub, spublen) == 1
                && (d = EVP_PKEY_CTX_new_from_pkey(lc, ck, provs[cli])) != NULL
                && EVP_PKEY_derive_init(d) > 0 && EVP_PKEY_derive_set_peer(d, cpeer) > 0
                && EVP_PKEY_derive(d, s2, &n2) > 0;

            CPT_CHECK(ok && n1 == n2 && memcmp(s1, s2, n1) == 0,
                "%s TLS key share %d, server in %s: both sides derive the same secret", what, i,
                provs[srv]);
            EVP_PKEY_CTX_free(d);
            OPENSSL_free(cpub);
            OPENSSL_free(spub);
            EVP_PKEY_free(ck);
            EVP_PKEY_free(cpeer);
        }
    }
}

/* What the C answers hand to Go: each refused as the default provider
 * refuses it, with an error, for X25519 and P-256. */
#define NREFUSALS 6
static void refusals(const struct kex *x, const struct kex *other)
{
    static const char *const provs[2] = { "provider=cptprov", "provider=default" };
    static const char *const what[NREFUSALS] = { "public check of a key without one",
        "a 31-byte share", "a 33-byte share", "group X448", "a share into a 16-byte buffer",
        "a secret's size with a peer of another type or curve" };
    const char *name = x->group != NULL ? x->group : x->alg;
    EVP_PKEY *valid = keygen_kex(x, "provider=default");
    unsigned char pub[33] = { 9 }, small[16], *share = NULL;
    size_t sharelen = valid != NULL ? EVP_PKEY_get1_encoded_public_key(valid, &share) : 0;
    int got[2][NREFUSALS], raised[NREFUSALS];

    for (int p = 0; p < 2; p++) {
        EVP_PKEY *k = share_key(x, provs[p]), *bad = NULL, *mine = keygen_kex(x, provs[p]);
        EVP_PKEY *peer = keygen_kex(other, provs[p]);
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(lc, x->alg, provs[p]);
        EVP_PKEY_CTX *v = k != NULL ? EVP_PKEY_CTX_new_from_pkey(lc, k, provs[p]) : NULL;
        EVP_PKEY_CTX *d = mine != NULL ? EVP_PKEY_CTX_new_from_pkey(lc, mine, provs[p]) : NULL;
        size_t n = 0;

        CPT_CHECK(k != NULL && c != NULL && v != NULL && d != NULL && peer != NULL && sharelen > 0,
            "%s parameter key, key pair and peer in %s", name, provs[p]);
        for (int i = 0; i < NREFUSALS; i++) {
            ERR_clear_error();
            switch (i) {
            case 0:
                got[p][i] = v != NULL && EVP_PKEY_public_check(v) == 1;
                break;
            case 1:
            case 2:
                got[p][i] =
                    k != NULL && EVP_PKEY_set1_encoded_public_key(k, pub, i == 1 ? 31 : 33) == 1;
                break;
            case 3:
                got[p][i] = c != NULL && EVP_PKEY_paramgen_init(c) > 0
                    && EVP_PKEY_CTX_set_group_name(c, "X448") > 0 && EVP_PKEY_paramgen(c, &bad) > 0;
                break;
            case 4:
                got[p][i] = k != NULL && EVP_PKEY_set1_encoded_public_key(k, share, sharelen) == 1
                    && EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, small,
                        sizeof(small), &n);
                break;
            case 5:
                got[p][i] = d != NULL && EVP_PKEY_derive_init(d) > 0
                    && EVP_PKEY_derive_set_peer_ex(d, peer, 0) > 0
                    && EVP_PKEY_derive(d, NULL, &n) > 0;
                break;
            }
            if (p == 0)
                raised[i] = ERR_peek_error() != 0;
        }
        ERR_clear_error();
        EVP_PKEY_free(bad);
        EVP_PKEY_CTX_free(d);
        EVP_PKEY_CTX_free(v);
        EVP_PKEY_CTX_free(c);
        EVP_PKEY_free(k);
        EVP_PKEY_free(mine);
        EVP_PKEY_free(peer);
    }
    for (int i = 0; i < NREFUSALS; i++)
        CPT_CHECK(got[0][i] == got[1][i] && !got[0][i] && raised[i],
            "%s %s: cptprov %s (with an error), the default provider %s", name, what[i],
            got[0][i] ? "accepts" : "refuses", got[1][i] ? "accepts" : "refuses");
    OPENSSL_free(share);
    EVP_PKEY_free(valid);
}

static void test_tls_key_share_refusals(void)
{
    refusals(&kexes[0], &kexes[3]); /* X25519, a P-256 peer */
    refusals(&kexes[3], &kexes[4]); /* P-256, a P-384 peer */
}

/* Derivations inside ASYNC jobs (tests/c/common.c's runner, which also
 * resumes jobs spuriously): each pauses while the device works. */
struct job_arg {
    EVP_PKEY *key, *peer;
    unsigned char out[32];
    int ok;
};

static int job_fn(void *varg)
{
    struct job_arg *a = varg;

    a->ok = derive(a->key, a->peer, "provider=cptprov", a->out);
    return a->ok;
}

static void test_async(int njobs)
{
    struct job_arg *args = calloc((size_t)njobs, sizeof(*args));
    void **argv = calloc((size_t)njobs, sizeof(*argv));
    int *results = calloc((size_t)njobs, sizeof(int));
    unsigned char *paused = calloc((size_t)njobs, 1);
    EVP_PKEY *peer = keygen("provider=default");
    cpt_jobs j = { 0 };
    int round = 0;

    for (int i = 0; i < njobs; i++) {
        args[i].key = keygen("provider=cptprov");
        args[i].peer = peer;
        argv[i] = &args[i];
    }

    do {
        round++;
        cpt_jobs_check_all(&j, job_fn, argv, (size_t)njobs, 7 + (uint64_t)round - 1, results,
            paused);
        for (int i = 0; i < njobs; i++) {
            unsigned char want[32];

            CPT_CHECK(args[i].ok && derive(peer, args[i].key, "provider=default", want)
                    && memcmp(want, args[i].out, 32) == 0,
                "async job %d: shared secret agrees with the default provider", i);
        }
    } while (cpt_async_retry("cptprov", j.tasks_paused, round));
    cpt_check_paused("cptprov", "derivations", j.tasks_paused, (size_t)njobs, round);
    for (int i = 0; i < njobs; i++)
        EVP_PKEY_free(args[i].key);
    EVP_PKEY_free(peer);
    free(args);
    free(argv);
    free(results);
    free(paused);
}

int main(int argc, char **argv)
{
    OSSL_PROVIDER *pcpt = NULL, *pdef = NULL;
    const char *path = "build";
    int iters = 40;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--provider-path") == 0)
            path = argv[i + 1];
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]);
    }
    lc = OSSL_LIB_CTX_new();
    OSSL_PROVIDER_set_default_search_path(lc, path);
    if ((pcpt = OSSL_PROVIDER_load(lc, "cptprov")) == NULL
        || (pdef = OSSL_PROVIDER_load(lc, "default")) == NULL) {
        printf("cannot load the providers\n");
        return 1;
    }
    test_rfc7748();
    test_differential(iters);
    test_negative();
    test_tls_key_share(iters);
    test_tls_key_share_refusals();
    test_ec_off_curve();
    test_async(32);
    OSSL_PROVIDER_unload(pcpt);
    OSSL_PROVIDER_unload(pdef);
    OSSL_LIB_CTX_free(lc);
    return cpt_finish();
}
