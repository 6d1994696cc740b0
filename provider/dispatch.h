/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dispatch-table entries checked against the core's types.
 *
 * Every OSSL_DISPATCH entry casts its function to void (*)(void), which
 * hides a function of the wrong type or in the wrong slot. pkcs11-provider
 * declares each function with its OSSL_FUNC_<op>_<name>_fn type, which
 * checks the definition; the cipher, digest and MAC files do that too. CPT_FN
 * checks the entry itself, in every table: it puts the function beside a null
 * pointer of the slot's _fn type in a conditional expression, whose operands
 * must have compatible types or the build fails (-Werror), so a right function
 * in a wrong slot is caught as well.
 *
 * Tables are named as OpenSSL's own: cptprov_<alg>_functions for ciphers,
 * digests and MACs, cptprov_<alg>_<operation>_functions where one algorithm
 * name serves several operations (RSA: keymgmt, signature, asym_cipher).
 */
#ifndef CPTPROV_DISPATCH_H
#define CPTPROV_DISPATCH_H

#include <openssl/core_dispatch.h>

#define CPT_FN(id, fntype, fn)                                                    \
    {                                                                             \
        OSSL_FUNC_##id, (void (*)(void))(1 ? (fn) : (OSSL_FUNC_##fntype##_fn *)0) \
    }
#define CPT_FN_END \
    {              \
        0, NULL    \
    }

#endif
