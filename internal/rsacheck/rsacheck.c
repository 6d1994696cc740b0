/* SPDX-License-Identifier: Apache-2.0 */
/*
 * s^e mod n on libcrypto, the check every RSA private-key result passes
 * before release. It runs what the default provider's own check runs
 * (rsa_ossl_mod_exp: BN_mod_exp_mont with the key's cached Montgomery
 * set-up), but modulo p and modulo q when the key has them: for n = p·q
 * with p and q coprime, s^e = m mod p and mod q is the same statement as
 * mod n, and two 1024-bit exponentiations cost less than one 2048-bit one.
 *
 * Timing: e and the lengths are public. s (a result that may be wrong,
 * which must then stay secret) is reduced mod p and q in constant time
 * (BN_div's constant-time path); the exponentiation's Montgomery
 * multiplications are libcrypto's assembly, which subtracts in constant
 * time; their fallback path for operands with a zero top word (2^-64 per
 * value) is what OpenSSL's own check has too.
 */
#include "rsacheck.h"
#include "bnctx.h"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <string.h>

struct cpt_rsa_check {
    struct cpt_key_aux aux; /* first: the key frees it through aux.free */
    size_t nlen;
    BIGNUM *n, *e;
    BN_MONT_CTX *mont_n; /* without usable primes */
    int crt;
    BIGNUM *p, *q;
    BN_MONT_CTX *mont_p, *mont_q;
};

/* Nothing here fetches or draws randomness: no library context. */
static BN_CTX *thread_ctx(void)
{
    return cpt_thread_bn_ctx(NULL);
}

void cpt_rsa_check_free(struct cpt_rsa_check *c)
{
    if (c == NULL)
        return;
    BN_free(c->n);
    BN_free(c->e);
    BN_MONT_CTX_free(c->mont_n);
    BN_clear_free(c->p);
    BN_clear_free(c->q);
    BN_MONT_CTX_free(c->mont_p); /* clears its copy of the prime */
    BN_MONT_CTX_free(c->mont_q);
    OPENSSL_clear_free(c, sizeof(*c));
}

static void aux_free(struct cpt_key_aux *aux)
{
    cpt_rsa_check_free((struct cpt_rsa_check *)aux);
}

struct cpt_key_aux *cpt_rsa_check_aux(struct cpt_rsa_check *c)
{
    return &c->aux;
}

int cpt_rsa_check_crt(const struct cpt_rsa_check *c)
{
    return c->crt;
}

static BN_MONT_CTX *mont(const BIGNUM *m, BN_CTX *ctx)
{
    BN_MONT_CTX *mc = BN_MONT_CTX_new();

    if (mc != NULL && !BN_MONT_CTX_set(mc, m, ctx)) {
        BN_MONT_CTX_free(mc);
        mc = NULL;
    }
    return mc;
}

/* usable: Montgomery arithmetic needs an odd modulus > 1. */
static int usable(const BIGNUM *m)
{
    return BN_is_odd(m) && !BN_is_one(m);
}

/* primes_ok: p and q are usable, coprime and multiply to n (1), or not (0),
 * or libcrypto failed (-1). A key whose factors do not match its modulus is
 * checked mod n, as the default provider checks every key. */
static int primes_ok(const struct cpt_rsa_check *c, BN_CTX *ctx)
{
    BIGNUM *t;
    int ok = -1;

    if (!usable(c->p) || !usable(c->q))
        return 0;
    BN_CTX_start(ctx);
    if ((t = BN_CTX_get(ctx)) != NULL && BN_mul(t, c->p, c->q, ctx)) {
        ok = BN_cmp(t, c->n) == 0;
        if (ok && !BN_gcd(t, c->p, c->q, ctx))
            ok = -1;
        else if (ok)
            ok = BN_is_one(t);
    }
    BN_CTX_end(ctx);
    return ok;
}

struct cpt_rsa_check *cpt_rsa_check_new(const uint8_t *n, size_t nlen, const uint8_t *e,
    size_t elen, const uint8_t *p, const uint8_t *q, size_t plen)
{
    BN_CTX *ctx = thread_ctx();
    struct cpt_rsa_check *c = OPENSSL_zalloc(sizeof(*c));
    int ok;

    if (ctx == NULL || c == NULL || nlen > 1024)
        goto fail;
    c->aux.free = aux_free;
    c->nlen = nlen;
    if ((c->n = BN_bin2bn(n, (int)nlen, NULL)) == NULL
        || (c->e = BN_bin2bn(e, (int)elen, NULL)) == NULL || !usable(c->n))
        goto fail;
    if (plen > 0) {
        if ((c->p = BN_bin2bn(p, (int)plen, NULL)) == NULL
            || (c->q = BN_bin2bn(q, (int)plen, NULL)) == NULL || (ok = primes_ok(c, ctx)) < 0)
            goto fail;
        if (ok) {
            if ((c->mont_p = mont(c->p, ctx)) == NULL || (c->mont_q = mont(c->q, ctx)) == NULL)
                goto fail;
            c->crt = 1;
            return c;
        }
        BN_clear_free(c->p);
        BN_clear_free(c->q);
        c->p = c->q = NULL;
    }
    if ((c->mont_n = mont(c->n, ctx)) == NULL)
        goto fail;
    return c;
fail:
    cpt_rsa_check_free(c);
    return NULL;
}

/*
 * fixed writes v as exactly len big-endian bytes into out; v < 2^(8·len).
 */
static int fixed(const BIGNUM *v, unsigned char *out, size_t len)
{
    return BN_bn2binpad(v, out, (int)len) == (int)len;
}

/* equal_mod: s^e = m mod P (Montgomery set-up mp), for s and m loaded
 * with the constant-time flag; 1, 0 or -1 (libcrypto failed). */
static int equal_mod(const struct cpt_rsa_check *c, const BIGNUM *P, BN_MONT_CTX *mp,
    const BIGNUM *s, const BIGNUM *m, BN_CTX *ctx)
{
    BIGNUM *sp, *v, *mr;
    unsigned char a[512], b[512];
    size_t len = (size_t)BN_num_bytes(P);
    int rc = -1;

    BN_CTX_start(ctx);
    sp = BN_CTX_get(ctx);
    v = BN_CTX_get(ctx);
    mr = BN_CTX_get(ctx);
    /* BN_CTX_get hands out values without the constant-time flag: the
	 * reduced base takes BN_mod_exp_mont's Montgomery path, not the
	 * fixed-window one a secret exponent needs. */
    if (mr != NULL && len <= sizeof(a) && BN_mod(sp, s, P, ctx)
        && BN_mod_exp_mont(v, sp, c->e, P, ctx, mp) && BN_mod(mr, m, P, ctx) && fixed(v, a, len)
        && fixed(mr, b, len))
        rc = CRYPTO_memcmp(a, b, len) == 0;
    BN_CTX_end(ctx);
    OPENSSL_cleanse(a, sizeof(a));
    return rc;
}

int cpt_rsa_check(const struct cpt_rsa_check *c, const uint8_t *in, size_t inlen,
    const uint8_t *res, size_t reslen)
{
    BN_CTX *ctx = thread_ctx();
    BIGNUM *s, *m, *v;
    unsigned char a[1024];
    int rc = -1, rp, rq;

    if (inlen != c->nlen || reslen != c->nlen)
        return 0;
    if (ctx == NULL)
        return -1;
    BN_CTX_start(ctx);
    s = BN_CTX_get(ctx);
    m = BN_CTX_get(ctx);
    v = BN_CTX_get(ctx);
    if (v == NULL || BN_bin2bn(res, (int)c->nlen, s) == NULL
        || BN_bin2bn(in, (int)c->nlen, m) == NULL)
        goto end;
    if (BN_ucmp(s, c->n) >= 0 || BN_ucmp(m, c->n) >= 0) {
        rc = 0; /* not below n: certainly wrong */
        goto end;
    }
    if (c->crt) {
        BN_set_flags(s, BN_FLG_CONSTTIME);
        BN_set_flags(m, BN_FLG_CONSTTIME);
        /* Both, whichever fails: the time tells nothing of which half. */
        rp = equal_mod(c, c->p, c->mont_p, s, m, ctx);
        rq = equal_mod(c, c->q, c->mont_q, s, m, ctx);
        rc = rp < 0 || rq < 0 ? -1 : rp & rq;
        goto end;
    }
    if (BN_mod_exp_mont(v, s, c->e, c->n, ctx, c->mont_n) && fixed(v, a, c->nlen))
        rc = CRYPTO_memcmp(a, in, c->nlen) == 0;
    OPENSSL_cleanse(a, sizeof(a));
end:
    BN_CTX_end(ctx);
    return rc;
}
