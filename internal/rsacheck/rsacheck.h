/* SPDX-License-Identifier: Apache-2.0 */
/* The check of RSA private-key results, on libcrypto (rsacheck.c). */
#ifndef CPT_RSACHECK_H
#define CPT_RSACHECK_H

#include <stddef.h>
#include <stdint.h>

#include "cptabi.h"

struct cpt_rsa_check;

/* A key's check from its modulus n, public exponent e and, when plen > 0,
 * its primes p and q (plen bytes each), used only when they are distinct,
 * coprime and multiply to n. NULL when out of memory or when n is even or 1
 * (no result could pass). Its aux is the first member: the key's free
 * frees it. */
struct cpt_rsa_check *cpt_rsa_check_new(const uint8_t *n, size_t nlen, const uint8_t *e,
    size_t elen, const uint8_t *p, const uint8_t *q, size_t plen);
struct cpt_key_aux *cpt_rsa_check_aux(struct cpt_rsa_check *c);
void cpt_rsa_check_free(struct cpt_rsa_check *c);
/* 1 when res^e = in mod n, 0 when not (or either is not n's length), -1
 * when libcrypto failed (memory). */
int cpt_rsa_check(const struct cpt_rsa_check *c, const uint8_t *in, size_t inlen,
    const uint8_t *res, size_t reslen);
/* Whether c checks modulo the primes. */
int cpt_rsa_check_crt(const struct cpt_rsa_check *c);

#endif
