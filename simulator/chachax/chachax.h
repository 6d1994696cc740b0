/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CPT_CHACHAX_H
#define CPT_CHACHAX_H
#include <stddef.h>
#include <stdint.h>

int cx_ready(void);
int cx_chacha20(const uint8_t key[32], const uint8_t iv[16], unsigned skip, uint8_t *dst,
	const uint8_t *src, size_t n);
void *cx_aead_new(void);
void cx_aead_free(void *p);
void *cx_aead_clone(const void *p);
int cx_aead_start(void *p, const uint8_t key[32], const uint8_t iv[12], int enc);
int cx_aead_aad(void *p, const uint8_t *aad, size_t n);
int cx_aead_data(void *p, uint8_t *dst, const uint8_t *src, size_t n);
int cx_aead_seal(void *p, uint8_t tag[16]);
int cx_aead_peek(const void *p, uint8_t tag[16]);
int cx_aead_open(void *p, const uint8_t *tag, size_t taglen);
#endif
