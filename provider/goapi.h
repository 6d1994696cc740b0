/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The entry points of libcptgo.so: this list is the one place they are
 * named. From it come struct cptgo_api (what the C side calls) and the
 * dlsym table that fills it (loader.c), and loader.c checks every entry at
 * compile time against the prototype cgo generates from the Go //export
 * (build/libcptgo.h): an export that is missing, renamed or of another
 * signature fails the build of cptprov.so instead of a call at run time.
 *
 * CPTGO_API(X) calls X(return type, name, (parameters)) once per entry
 * point; the Go function is cptgo_<name>. Go cannot export a const
 * parameter: CPTGO_IN marks a pointer the Go side only reads, const for the
 * C callers and dropped when the entry is compared with cgo's prototype.
 */
#ifndef CPT_GOAPI_H
#define CPT_GOAPI_H

#include "cptabi.h"

#ifndef CPTGO_IN
#define CPTGO_IN const
#endif

#define CPTGO_API(X)                                                                              \
    X(int, abi_version, (void))                                                                   \
    X(int, start, (struct cpt_config * cfg, struct cpt_status * st))                              \
    /* at exit: last statistics */                                                                \
    X(void, shutdown, (void))                                                                     \
    /* write statistics now */                                                                    \
    X(void, flush, (void))                                                                        \
    X(int, cipher_init,                                                                           \
        (int alg, void *state, struct cpt_pending_init *pending, int enc, void *key,              \
            size_t keylen, void *iv, size_t ivlen, void *params, struct cpt_status *st))          \
    X(int, cipher_update,                                                                         \
        (int alg, void *state, struct cpt_pending_init *pending, void *out, size_t *outl,         \
            size_t outsize, void *in, size_t inl, struct cpt_notifier *n, struct cpt_status *st)) \
    X(int, cipher_final,                                                                          \
        (int alg, void *state, struct cpt_pending_init *pending, void *out, size_t *outl,         \
            size_t outsize, struct cpt_notifier *n, struct cpt_status *st))                       \
    X(int, cipher_oneshot,                                                                        \
        (int alg, void *state, struct cpt_pending_init *pending, void *out, size_t *outl,         \
            size_t outsize, void *in, size_t inl, struct cpt_notifier *n, struct cpt_status *st)) \
    X(int, cipher_export,                                                                         \
        (int alg, void *state, struct cpt_pending_init *pending, struct cpt_stream_state *out,    \
            struct cpt_status *st))                                                               \
    X(int, cipher_import,                                                                         \
        (int alg, void *state, struct cpt_pending_init *pending, struct cpt_stream_state *in,     \
            struct cpt_status *st))                                                               \
    X(int, cipher_get_ctx_params,                                                                 \
        (int alg, void *state, struct cpt_pending_init *pending, void *params,                    \
            struct cpt_status *st))                                                               \
    X(int, cipher_set_ctx_params,                                                                 \
        (int alg, void *state, struct cpt_pending_init *pending, void *params,                    \
            struct cpt_status *st))                                                               \
    X(int, cipher_dup, (int alg, void *state))                                                    \
    X(void, cipher_free, (int alg, void *state))                                                  \
    X(int, digest_update,                                                                         \
        (int md, void *state, CPTGO_IN void *in, size_t inl, struct cpt_notifier *n,              \
            struct cpt_status *st))                                                               \
    X(int, digest_final,                                                                          \
        (int md, void *state, void *out, size_t *outl, size_t outsize, struct cpt_notifier *n,    \
            struct cpt_status *st))                                                               \
    X(int, mac_setkey,                                                                            \
        (int md, void *state, CPTGO_IN void *key, size_t keylen, struct cpt_status *st))          \
    X(int, mac_update,                                                                            \
        (int md, void *state, CPTGO_IN void *in, size_t inl, struct cpt_notifier *n,              \
            struct cpt_status *st))                                                               \
    X(int, mac_final,                                                                             \
        (int md, void *state, void *out, size_t *outl, size_t outsize, struct cpt_notifier *n,    \
            struct cpt_status *st))                                                               \
    X(int, key_import,                                                                            \
        (int kt, void *state, int selection, CPTGO_IN void *params, struct cpt_status *st))       \
    X(int, key_export,                                                                            \
        (int kt, void *state, int selection, void *cb, void *cbarg, struct cpt_status *st))       \
    X(int, key_get_params, (int kt, void *state, void *params, struct cpt_status *st))            \
    X(int, key_set_params, (int kt, void *state, CPTGO_IN void *params, struct cpt_status *st))   \
    X(int, key_match, (int kt, CPTGO_IN void *a, CPTGO_IN void *b, int selection))                \
    X(int, key_validate, (int kt, void *state, int selection, struct cpt_status *st))             \
    X(int, keygen_set_params, (int kt, void *gen, CPTGO_IN void *params, struct cpt_status *st))  \
    X(int, keygen,                                                                                \
        (int kt, void *gen, void *state, int selection, struct cpt_notifier *n,                   \
            struct cpt_status *st))                                                               \
    X(int, keygen_set_template, (int kt, void *gen, void *template, struct cpt_status *st))       \
    X(int, derive,                                                                                \
        (int kt, void *key, void *peer, void *scratch, void *out, size_t *outl, size_t outsize,   \
            struct cpt_notifier *n, struct cpt_status *st))                                       \
    X(int, sig_init,                                                                              \
        (int alg, void *state, void *key, int op, int stream, CPTGO_IN char *mdname,              \
            CPTGO_IN void *params, struct cpt_status *st))                                        \
    /* Each call after sig_init applies the init pending (struct cpt_sig_pending) first. */       \
    X(int, sig_set_params,                                                                        \
        (int alg, void *state, struct cpt_sig_pending *pending, void *key, CPTGO_IN void *params, \
            struct cpt_status *st))                                                               \
    X(int, sig_get_params,                                                                        \
        (int alg, void *state, struct cpt_sig_pending *pending, void *key, void *params,          \
            struct cpt_status *st))                                                               \
    X(int, sig_update,                                                                            \
        (int alg, void *state, struct cpt_sig_pending *pending, void *key, CPTGO_IN void *data,   \
            size_t len, struct cpt_status *st))                                                   \
    /* final: tbs is the message's rest (NULL: none), hashed before it is signed; */              \
    /* otherwise tbs is the digest to sign. The same for verify. */                               \
    X(int, sig_sign,                                                                              \
        (int alg, void *state, struct cpt_sig_pending *pending, void *key, void *scratch,         \
            void *sig, size_t *siglen, size_t sigsize, CPTGO_IN void *tbs, size_t tbslen,         \
            int final, struct cpt_notifier *n, struct cpt_status *st))                            \
    X(int, sig_verify,                                                                            \
        (int alg, void *state, struct cpt_sig_pending *pending, void *key, void *scratch,         \
            CPTGO_IN void *sig, size_t siglen, CPTGO_IN void *tbs, size_t tbslen, int final,      \
            struct cpt_notifier *n, struct cpt_status *st))                                       \
    X(int, sig_verify_recover,                                                                    \
        (int alg, void *state, struct cpt_sig_pending *pending, void *key, void *out,             \
            size_t *outl, size_t outsize, CPTGO_IN void *sig, size_t siglen,                      \
            struct cpt_status *st))                                                               \
    X(int, asym_init,                                                                             \
        (int alg, void *state, void *key, int op, CPTGO_IN void *params, struct cpt_status *st))  \
    X(int, asym_params,                                                                           \
        (int alg, void *state, CPTGO_IN void *params, int set, struct cpt_status *st))            \
    X(int, asym_crypt,                                                                            \
        (int alg, void *state, void *key, void *out, size_t *outl, size_t outsize,                \
            CPTGO_IN void *in, size_t inl, int decrypt, CPTGO_IN void *label, size_t labell,      \
            struct cpt_notifier *n, struct cpt_status *st))

/* What the C side calls: filled by loader.c when libcptgo.so is loaded. */
struct cptgo_api {
#define CPTGO_MEMBER(ret, name, params) ret(*name) params;
    CPTGO_API(CPTGO_MEMBER)
#undef CPTGO_MEMBER
};

#endif
