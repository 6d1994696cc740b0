/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engines' big-number arithmetic where OpenSSL's assembly is faster
 * than Go's: constant-time modular exponentiation (AVX-512 IFMA for two
 * 1024-bit halves at once), public-exponent exponentiation with cached
 * Montgomery constants and P-256 point multiplication (nistz256). Only public
 * libcrypto API, in the device's library context. Every function returns 1
 * on success and 0 (libcrypto failed) or a negative code documented in
 * bn.h (the input is wrong) otherwise, and frees what it allocated.
 */
#include "bn.h"
#include "../internal/libctx/libctx.h"
#include "bnctx.h"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <pthread.h>
#include <string.h>

/*
 * The thread's BN_CTX (bnctx.h) belongs to the device's library context:
 * whatever libcrypto fetches or draws for the arithmetic comes from there,
 * not from the application's default context.
 */
static BN_CTX *thread_ctx(void)
{
	OSSL_LIB_CTX *lc = cpt_sim_libctx();

	return lc != NULL ? cpt_thread_bn_ctx(lc) : NULL;
}

/* load is BN_bin2bn with the constant-time flag set: OpenSSL's exponentiation
 * and scalar multiplication then take their fixed-window paths. */
static BIGNUM *load(const uint8_t *b, size_t len, int secret)
{
	BIGNUM *r = BN_bin2bn(b, (int)len, NULL);

	if (r != NULL && secret)
		BN_set_flags(r, BN_FLG_CONSTTIME);
	return r;
}

/* usable_modulus: Montgomery arithmetic needs an odd modulus > 1. */
static int usable_modulus(const BIGNUM *m)
{
	return BN_is_odd(m) && !BN_is_one(m);
}

/* reduce sets r = a mod m, in constant time for an a loaded as secret
 * (BN_div's fixed-top path, as the default provider reduces for RSA). */
static int reduce(BIGNUM *r, const BIGNUM *a, const BIGNUM *m, BN_CTX *ctx)
{
	return BN_mod(r, a, m, ctx);
}

/*
 * Montgomery constants of recently used moduli: a host uses one key many
 * times, and setting a modulus up costs a third of a public operation and
 * 8% of an RSA-2048 signature (the inverse and R^2 of both primes). A
 * process-wide table in C (not in Go's heap) so that leak checkers see the
 * contexts it holds; replaced round robin when full.
 *
 * A public modulus is looked up by its bytes. A secret one (an RSA prime)
 * is compared with every cached secret modulus of its length in constant
 * time, to the end of the table, so that the lookup reveals only whether
 * the prime is there (as its speed does anyway), nothing of its bytes; it
 * needs no hash, whose one-shot functions fetch from the application's
 * default library context. Entries are wiped on free.
 */
#define MONT_CACHE_SIZE 64

static struct mont_entry {
	uint8_t *key; /* the modulus */
	size_t keylen;
	int secret;
	BIGNUM *m;
	BN_MONT_CTX *mont;
	unsigned refs; /* users outside the lock; evicted entries free at 0 */
} * mont_cache[MONT_CACHE_SIZE];
static unsigned mont_next;
static pthread_mutex_t mont_lock = PTHREAD_MUTEX_INITIALIZER;

static void mont_entry_free(struct mont_entry *e)
{
	OPENSSL_clear_free(e->key, e->keylen);
	BN_clear_free(e->m);
	BN_MONT_CTX_free(e->mont);
	OPENSSL_free(e);
}

static void mont_release(struct mont_entry *e)
{
	int last;

	pthread_mutex_lock(&mont_lock);
	last = --e->refs == 0;
	pthread_mutex_unlock(&mont_lock);
	if (last)
		mont_entry_free(e);
}

/*
 * mont_get puts a referenced entry for mod in *ep, building it if needed;
 * CPT_BN_BAD_INPUT for a modulus Montgomery arithmetic cannot take.
 */
static int mont_get(struct mont_entry **ep, const uint8_t *mod, size_t len, int secret, BN_CTX *ctx)
{
	struct mont_entry *e, *old, *found = NULL;
	size_t i;
	int eq;

	pthread_mutex_lock(&mont_lock);
	for (i = 0; i < MONT_CACHE_SIZE && (secret || found == NULL); i++) {
		e = mont_cache[i];
		if (e == NULL || e->secret != secret || e->keylen != len)
			continue;
		eq = secret ? CRYPTO_memcmp(e->key, mod, len) == 0 : memcmp(e->key, mod, len) == 0;
		if (eq && found == NULL)
			found = e;
	}
	if (found != NULL) {
		found->refs++;
		pthread_mutex_unlock(&mont_lock);
		*ep = found;
		return 1;
	}
	pthread_mutex_unlock(&mont_lock);

	e = OPENSSL_zalloc(sizeof(*e));
	if (e == NULL)
		return CPT_BN_ERROR;
	e->refs = 2; /* the cache's and the caller's */
	e->secret = secret;
	e->keylen = len;
	e->key = OPENSSL_memdup(mod, len);
	e->m = load(mod, len, secret);
	e->mont = BN_MONT_CTX_new();
	if (e->key == NULL || e->m == NULL || e->mont == NULL) {
		mont_entry_free(e);
		return CPT_BN_ERROR;
	}
	if (!usable_modulus(e->m)) {
		mont_entry_free(e);
		return CPT_BN_BAD_INPUT;
	}
	if (!BN_MONT_CTX_set(e->mont, e->m, ctx)) {
		mont_entry_free(e);
		return CPT_BN_ERROR;
	}
	pthread_mutex_lock(&mont_lock);
	old = mont_cache[mont_next];
	mont_cache[mont_next] = e;
	mont_next = (mont_next + 1) % MONT_CACHE_SIZE;
	pthread_mutex_unlock(&mont_lock);
	if (old != NULL)
		mont_release(old);
	*ep = e;
	return 1;
}

int cpt_bn_modexp(uint8_t *out, const uint8_t *base, size_t blen, int reduce_base,
	const uint8_t *exp, size_t elen, const uint8_t *mod, size_t mlen)
{
	BN_CTX *ctx = thread_ctx();
	BIGNUM *a = load(base, blen, 1), *e = load(exp, elen, 1), *r = BN_new();
	struct mont_entry *m = NULL;
	int ok = CPT_BN_ERROR;

	if (ctx == NULL || a == NULL || e == NULL || r == NULL)
		goto end;
	if ((ok = mont_get(&m, mod, mlen, 1, ctx)) != 1)
		goto end;
	if (!reduce_base && BN_cmp(a, m->m) >= 0)
		ok = CPT_BN_BAD_INPUT;
	else if ((reduce_base && (!reduce(r, a, m->m, ctx) || BN_copy(a, r) == NULL)) ||
		 !BN_mod_exp_mont_consttime(r, a, e, m->m, ctx, m->mont) ||
		 BN_bn2binpad(r, out, (int)mlen) != (int)mlen)
		ok = CPT_BN_ERROR;
end:
	if (m != NULL)
		mont_release(m);
	BN_clear_free(a);
	BN_clear_free(e);
	BN_clear_free(r);
	return ok;
}

int cpt_bn_modexp_x2(uint8_t *out1, uint8_t *out2, const uint8_t *base, size_t blen,
	const uint8_t *exp1, size_t e1len, const uint8_t *mod1, const uint8_t *exp2, size_t e2len,
	const uint8_t *mod2, size_t mlen)
{
	BN_CTX *ctx = thread_ctx();
	BIGNUM *a = load(base, blen, 1), *a1 = BN_new(), *a2 = BN_new();
	BIGNUM *e1 = load(exp1, e1len, 1), *e2 = load(exp2, e2len, 1);
	BIGNUM *r1 = BN_new(), *r2 = BN_new();
	struct mont_entry *m1 = NULL, *m2 = NULL;
	int ok = CPT_BN_ERROR;

	if (ctx == NULL || a == NULL || a1 == NULL || a2 == NULL || e1 == NULL || e2 == NULL ||
		r1 == NULL || r2 == NULL)
		goto end;
	/* The IFMA code wants the Montgomery contexts of both moduli. */
	if ((ok = mont_get(&m1, mod1, mlen, 1, ctx)) != 1 ||
		(ok = mont_get(&m2, mod2, mlen, 1, ctx)) != 1)
		goto end;
	BN_set_flags(a1, BN_FLG_CONSTTIME);
	BN_set_flags(a2, BN_FLG_CONSTTIME);
	if (!reduce(a1, a, m1->m, ctx) || !reduce(a2, a, m2->m, ctx) ||
		!BN_mod_exp_mont_consttime_x2(r1, a1, e1, m1->m, m1->mont, r2, a2, e2, m2->m,
			m2->mont, ctx) ||
		BN_bn2binpad(r1, out1, (int)mlen) != (int)mlen ||
		BN_bn2binpad(r2, out2, (int)mlen) != (int)mlen)
		ok = CPT_BN_ERROR;
end:
	BN_clear_free(a);
	BN_clear_free(a1);
	BN_clear_free(a2);
	BN_clear_free(e1);
	BN_clear_free(e2);
	BN_clear_free(r1);
	BN_clear_free(r2);
	if (m1 != NULL)
		mont_release(m1);
	if (m2 != NULL)
		mont_release(m2);
	return ok;
}

int cpt_bn_modexp_public(uint8_t *out, const uint8_t *base, size_t blen, const uint8_t *exp,
	size_t elen, const uint8_t *mod, size_t mlen)
{
	BN_CTX *ctx = thread_ctx();
	BIGNUM *a = load(base, blen, 0), *e = load(exp, elen, 0), *r = BN_new();
	struct mont_entry *m = NULL;
	int ok = CPT_BN_ERROR;

	if (ctx == NULL || a == NULL || e == NULL || r == NULL)
		goto end;
	if ((ok = mont_get(&m, mod, mlen, 0, ctx)) != 1)
		goto end;
	if (BN_cmp(a, m->m) >= 0)
		ok = CPT_BN_BAD_INPUT;
	else if (!BN_mod_exp_mont(r, a, e, m->m, ctx, m->mont) ||
		 BN_bn2binpad(r, out, (int)mlen) != (int)mlen)
		ok = CPT_BN_ERROR;
end:
	if (m != NULL)
		mont_release(m);
	BN_free(a);
	BN_free(e);
	BN_free(r);
	return ok;
}

/* The P-256 group, built on first use (never at load: see the notes on
 * fork) and shared read-only by all engines afterwards. */
static EC_GROUP *p256;
static pthread_once_t p256_once = PTHREAD_ONCE_INIT;

static void p256_init(void)
{
	OSSL_LIB_CTX *lc = cpt_sim_libctx();

	if (lc != NULL)
		p256 = EC_GROUP_new_by_curve_name_ex(lc, NULL, NID_X9_62_prime256v1);
}

int cpt_p256_mul(uint8_t out[65], const uint8_t *gk, const uint8_t *pk, const uint8_t *pt)
{
	BN_CTX *ctx;
	BIGNUM *g = NULL, *k = NULL;
	EC_POINT *p = NULL, *r = NULL;
	int ret = CPT_BN_ERROR;

	pthread_once(&p256_once, p256_init);
	if (p256 == NULL || (ctx = thread_ctx()) == NULL)
		return CPT_BN_ERROR;
	if ((gk != NULL && (g = load(gk, 32, 1)) == NULL) ||
		(pk != NULL && (k = load(pk, 32, 1)) == NULL) || (r = EC_POINT_new(p256)) == NULL)
		goto end;
	if (pt != NULL) {
		if ((p = EC_POINT_new(p256)) == NULL)
			goto end;
		if (!EC_POINT_oct2point(p256, p, pt, 65, ctx)) {
			ret = CPT_BN_NOT_ON_CURVE;
			goto end;
		}
	}
	if (!EC_POINT_mul(p256, r, g, p, k, ctx))
		goto end;
	if (EC_POINT_is_at_infinity(p256, r)) {
		ret = CPT_BN_INFINITY;
		goto end;
	}
	if (EC_POINT_point2oct(p256, r, POINT_CONVERSION_UNCOMPRESSED, out, 65, ctx) == 65)
		ret = 1;
end:
	BN_clear_free(g);
	BN_clear_free(k);
	EC_POINT_free(p);
	EC_POINT_clear_free(r);
	return ret;
}
