/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated device's library context (libctx.c). */
#ifndef CPT_SIM_LIBCTX_H
#define CPT_SIM_LIBCTX_H

#include <openssl/types.h>

/* The context, or NULL if libcrypto could not make it. */
OSSL_LIB_CTX *cpt_sim_libctx(void);

#endif
