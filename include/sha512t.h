/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-512/224 and SHA-512/256 on libcrypto's low-level SHA512 functions:
 * SHA-512 with the initial values of FIPS 180-4 section 5.3.6, truncated.
 * Shared by the provider's CPU path (digest.c) and the simulator's engines
 * (simulator/sha2x), neither of which may include the other's headers: the
 * device does not depend on the host's front end, nor the host on the
 * simulator. include/ holds only such code below both.
 */
#ifndef CPT_SHA512T_H
#define CPT_SHA512T_H

#include <string.h>
#include <openssl/sha.h>

/* Starts c as SHA-512/bits (224 or 256); SHA512_Final then writes bits/8
 * bytes. */
static inline int cpt_sha512t_init(SHA512_CTX *c, int bits)
{
    static const SHA_LONG64 iv224[8] = {
        0x8C3D37C819544DA2ULL,
        0x73E1996689DCD4D6ULL,
        0x1DFAB7AE32FF9C82ULL,
        0x679DD514582F9FCFULL,
        0x0F6D2B697BD44DA8ULL,
        0x77E36F7304C48942ULL,
        0x3F9D85A86A1D36C8ULL,
        0x1112E6AD91D692A1ULL,
    };
    static const SHA_LONG64 iv256[8] = {
        0x22312194FC2BF72CULL,
        0x9F555FA3C84C64C2ULL,
        0x2393B86B6F53B151ULL,
        0x963877195940EABDULL,
        0x96283EE2A88EFFE3ULL,
        0xBE5E1E2553863992ULL,
        0x2B0199FC2C85B8AAULL,
        0x0EB72DDC81C52CA2ULL,
    };

    if ((bits != 224 && bits != 256) || !SHA512_Init(c))
        return 0;
    memcpy(c->h, bits == 224 ? iv224 : iv256, sizeof(c->h));
    c->md_len = (unsigned int)bits / 8;
    return 1;
}

#endif
