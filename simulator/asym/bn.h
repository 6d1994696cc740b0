/* SPDX-License-Identifier: Apache-2.0 */
/* Big-number arithmetic of the engines on libcrypto's public API (bn.c). */
#ifndef CPT_ASYM_BN_H
#define CPT_ASYM_BN_H

#include <stddef.h>
#include <stdint.h>

#define CPT_BN_ERROR 0 /* libcrypto failed (memory): nothing wrong with the input */
#define CPT_BN_INFINITY (-1)
#define CPT_BN_NOT_ON_CURVE (-2)
#define CPT_BN_BAD_INPUT (-3) /* a base not below its modulus, a modulus even or 1 */

/* out = base^exp mod mod in constant time, mlen bytes; mod odd and > 1.
 * base has blen bytes; with reduce_base it is first reduced mod mod,
 * otherwise it must be below mod. The exponentiations return 1,
 * CPT_BN_BAD_INPUT or CPT_BN_ERROR. */
int cpt_bn_modexp(uint8_t *out, const uint8_t *base, size_t blen, int reduce_base,
	const uint8_t *exp, size_t elen, const uint8_t *mod, size_t mlen);
/* out1 = base^exp1 mod mod1 and out2 = base^exp2 mod mod2 (an RSA CRT's
 * halves) at once, AVX-512 IFMA for 1024-bit moduli where the CPU has it;
 * moduli and outputs are mlen bytes. */
int cpt_bn_modexp_x2(uint8_t *out1, uint8_t *out2, const uint8_t *base, size_t blen,
	const uint8_t *exp1, size_t e1len, const uint8_t *mod1, const uint8_t *exp2, size_t e2len,
	const uint8_t *mod2, size_t mlen);
/* out = base^exp mod mod for public values, variable time; base (blen
 * bytes) must be below mod (mlen bytes). */
int cpt_bn_modexp_public(uint8_t *out, const uint8_t *base, size_t blen, const uint8_t *exp,
	size_t elen, const uint8_t *mod, size_t mlen);
/* out = gk·G + pk·pt on P-256, uncompressed; gk, pk are 32-byte scalars
 * (either may be NULL), pt an uncompressed point (NULL with pk). Returns 1,
 * CPT_BN_INFINITY, CPT_BN_NOT_ON_CURVE or CPT_BN_ERROR. */
int cpt_p256_mul(uint8_t out[65], const uint8_t *gk, const uint8_t *pk, const uint8_t *pt);

#endif
