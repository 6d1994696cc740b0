/* SPDX-License-Identifier: Apache-2.0 */
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <pthread.h>
#include <string.h>
#include "chachax.h"
#include "../internal/libctx/libctx.h"

/*
 * The engines' ChaCha20 and ChaCha20-Poly1305: libcrypto's (AVX-512 and
 * AVX2 assembly) through EVP, fetched on first use (never at load) from
 * the device's library context, so that the host's configuration (which
 * may prefer cptprov itself) never reaches them.
 */
static EVP_CIPHER *chacha, *chachapoly;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t scratch_key, peek_key;
static int ready;

static void scratch_free(void *p)
{
	EVP_CIPHER_CTX_free(p);
}

static void init(void)
{
	OSSL_LIB_CTX *libctx;

	if (pthread_key_create(&scratch_key, scratch_free) != 0 ||
		pthread_key_create(&peek_key, scratch_free) != 0)
		return;
	if ((libctx = cpt_sim_libctx()) == NULL)
		return;
	chacha = EVP_CIPHER_fetch(libctx, "ChaCha20", "provider=default");
	chachapoly = EVP_CIPHER_fetch(libctx, "ChaCha20-Poly1305", "provider=default");
	ready = chacha != NULL && chachapoly != NULL;
}

int cx_ready(void)
{
	pthread_once(&once, init);
	return ready;
}

/*
 * Scratch contexts per engine thread, freed when the thread exits: one for
 * ChaCha20 (kept keyed: most instructions reuse the key) and one for copies
 * of AEAD streams.
 */
static EVP_CIPHER_CTX *scratch(const pthread_key_t *key)
{
	EVP_CIPHER_CTX *c;

	/* The keys exist only once init has run: read them after. */
	if (!cx_ready())
		return NULL;
	if ((c = pthread_getspecific(*key)) == NULL) {
		c = EVP_CIPHER_CTX_new();
		if (c != NULL && pthread_setspecific(*key, c) != 0) {
			EVP_CIPHER_CTX_free(c);
			c = NULL;
		}
	}
	return c;
}

/* EVP counts in int: long inputs go in pieces. */
static int update(EVP_CIPHER_CTX *c, uint8_t *dst, const uint8_t *src, size_t n)
{
	int outl;

	while (n > 0) {
		int k = n > (1u << 30) ? 1 << 30 : (int)n;

		if (!EVP_CipherUpdate(c, dst, &outl, src, k) || outl != (dst != NULL ? k : outl))
			return 0;
		if (dst != NULL)
			dst += k;
		src += k;
		n -= (size_t)k;
	}
	return 1;
}

int cx_chacha20(const uint8_t key[32], const uint8_t iv[16], unsigned skip, uint8_t *dst,
	const uint8_t *src, size_t n)
{
	static const uint8_t zero[64];
	uint8_t junk[64];
	EVP_CIPHER_CTX *c = scratch(&scratch_key);
	int ok;

	/* A context that has ChaCha20 already only needs the key and IV. */
	if (c == NULL || skip >= 64 ||
		!EVP_CipherInit_ex2(c, EVP_CIPHER_CTX_get0_cipher(c) == chacha ? NULL : chacha, key,
			iv, 1, NULL))
		return 0;
	ok = update(c, junk, zero, skip) && update(c, dst, src, n);
	OPENSSL_cleanse(junk, sizeof(junk));
	return ok;
}

void *cx_aead_new(void)
{
	return cx_ready() ? EVP_CIPHER_CTX_new() : NULL;
}

void cx_aead_free(void *p)
{
	EVP_CIPHER_CTX_free(p);
}

void *cx_aead_clone(const void *p)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	if (c != NULL && !EVP_CIPHER_CTX_copy(c, p)) {
		EVP_CIPHER_CTX_free(c);
		c = NULL;
	}
	return c;
}

int cx_aead_start(void *p, const uint8_t key[32], const uint8_t iv[12], int enc)
{
	return EVP_CipherInit_ex2(p, chachapoly, key, iv, enc, NULL);
}

int cx_aead_aad(void *p, const uint8_t *aad, size_t n)
{
	return update(p, NULL, aad, n);
}

int cx_aead_data(void *p, uint8_t *dst, const uint8_t *src, size_t n)
{
	return n == 0 || update(p, dst, src, n);
}

static int get_tag(EVP_CIPHER_CTX *c, uint8_t tag[16])
{
	OSSL_PARAM params[2];

	params[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16);
	params[1] = OSSL_PARAM_construct_end();
	return EVP_CIPHER_CTX_get_params(c, params);
}

/* Finishes an encryption: its tag. */
int cx_aead_seal(void *p, uint8_t tag[16])
{
	int outl;

	return EVP_CipherFinal_ex(p, NULL, &outl) && get_tag(p, tag);
}

/* The tag of an encryption so far, the message staying open. */
int cx_aead_peek(const void *p, uint8_t tag[16])
{
	EVP_CIPHER_CTX *c = scratch(&peek_key);
	int outl;

	return c != NULL && EVP_CIPHER_CTX_copy(c, p) && EVP_CipherFinal_ex(c, NULL, &outl) &&
	       get_tag(c, tag);
}

/* Finishes a decryption against the expected tag: 1 authentic, 0 not, -1 error. */
int cx_aead_open(void *p, const uint8_t *tag, size_t taglen)
{
	OSSL_PARAM params[2];
	int outl;

	params[0] =
		OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)tag, taglen);
	params[1] = OSSL_PARAM_construct_end();
	if (taglen == 0 || taglen > 16 || !EVP_CIPHER_CTX_set_params(p, params))
		return -1;
	return EVP_CipherFinal_ex(p, NULL, &outl) ? 1 : 0;
}
