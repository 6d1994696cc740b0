/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cipher skeleton's parts (cipher.c), shared between its files:
 * cipher_stream.c, the CPU path of the unauthenticated ciphers;
 * cipher_aead.c, the AEADs' routing and finals in C; cipher_params.c, the
 * static parameters and parameter lists.
 */
#ifndef CPTPROV_CIPHER_H
#define CPTPROV_CIPHER_H

#include "path.h"

struct cptprov_cipher_alg {
    int id; /* CPT_ALG_* */
    const char *name; /* for the CPU path's fetch */
    unsigned int mode; /* EVP_CIPH_*_MODE */
    size_t keylen, ivlen, blocksize;
    int aead, custom_iv;
    size_t max_ivlen; /* longest IV an init may carry */
    int chacha; /* ChaCha20's 64-byte keystream blocks and 64-bit LE counter */
};

/*
 * A context libssl set up for TLS 1.2 records: its records all run on one
 * side, since a GCM sealer's explicit nonce counter lives there. The twin
 * takes the context whole (every parameter, init and record) when the
 * family's threshold is above the longest record, the device otherwise.
 */
enum { CPT_TLS_NONE, CPT_TLS_DEVICE, CPT_TLS_TWIN };
/* The longest input of a TLS 1.2 record (SSL3_RT_MAX_ENCRYPTED_LENGTH). */
#define CPT_TLS_MAX_RECORD (16384 + 2048)

/* What the CPU path's twin (path.twin, an EVP_CIPHER_CTX) needs besides. */
struct cipher_cpu {
    int enc, pad;
    int tls; /* CPT_TLS_*: libssl's TLS 1.2 settings, and where its records go */
    unsigned long twin_err; /* the error queue's last entry before a twin call */
    /* Stream ciphers: what the hand-over needs (cipher_stream.c). */
    unsigned char tail[16]; /* the last bytes fed to the twin */
    size_t held; /* of which the twin buffers this many */
    unsigned char oiv[16]; /* the IV the application set last */
    int oiv_set;
    /* ChaCha20's twin exposes no updated IV: the IV it started from and
     * the bytes fed since tell where its stream is. */
    unsigned char civ[16];
    uint64_t cbytes;
    /* AEADs (cipher_aead.c). GCM: the message's init carried an IV, so
     * the twin holds the same IV state as Go. A message without one goes
     * to the device, which knows whether the last IV is used up (OpenSSL
     * refuses to reuse it). */
    int iv_fresh;
    size_t twin_ivlen; /* the IV length the twin was last given */
    /* The AAD of a message not yet decided, held until its first data. */
    size_t aad_len;
    unsigned char aad[64];
};

/*
 * An AEAD's TLS 1.2 settings, checked in C and kept for Go's next call
 * (pending.params points at params while it holds any): libssl sets the
 * fixed IV and the version once a key, and the AAD before every record.
 */
enum { CPT_DEFER_AAD = 1, CPT_DEFER_IVFIXED = 2, CPT_DEFER_VERSION = 4, CPT_DEFER_MACSIZE = 8 };
struct cipher_deferred {
    unsigned int set; /* CPT_DEFER_* */
    unsigned char aad[13];
    unsigned char ivfixed[16];
    size_t ivfixed_len;
    uint64_t version, macsize;
    OSSL_PARAM params[5];
};

struct cptprov_cipher_ctx {
    struct cptprov_ctx *prov;
    const struct cptprov_cipher_alg *alg;
    struct cpt_pending_init pending;
    struct cipher_deferred deferred;
    struct cpt_path path;
    struct cipher_cpu cpu;
    /* Go has been handed the state: a context whose messages all ran on
     * the CPU path is freed without a call into Go. */
    int go_seen;
    /* Go-owned state: plain values, so a copy is a valid duplicate. */
    unsigned char state[CPT_CIPHER_STATE_SIZE] __attribute__((aligned(64)));
};

static inline EVP_CIPHER_CTX *cipher_twin(const struct cptprov_cipher_ctx *c)
{
    return c->path.twin;
}

/* The part of an AEAD context's state that C shares with Go. */
static inline struct cpt_aead_shadow *cipher_shadow(const struct cptprov_cipher_ctx *c)
{
    return (struct cpt_aead_shadow *)c->state;
}

/* cipher.c: Go's half for a call that hands it this context, and the
 * device's side of both hook tables. */
const struct cptgo_api *cptprov_cipher_go(struct cptprov_cipher_ctx *c);
int cptprov_cipher_device_update(void *vctx, const struct cpt_path_io *io);
int cptprov_cipher_device_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize);

/* cipher_stream.c: an init's start of the stream in the twin too. */
extern const struct cpt_path_hw cptprov_cipher_stream_path;
void cptprov_stream_cpu_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, int enc);

/* cipher_aead.c */
extern const struct cpt_path_hw cptprov_cipher_aead_path;
void cptprov_aead_cpu_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, size_t ivlen, int enc);
/* An init validated in C: the message is no longer the one Go saw. */
void cptprov_aead_init_pending(struct cptprov_cipher_ctx *c, int has_iv);
int cptprov_aead_update(struct cptprov_cipher_ctx *c, unsigned char *out, size_t *outl,
    size_t outsize, const unsigned char *in, size_t inl);
int cptprov_aead_final(struct cptprov_cipher_ctx *c, unsigned char *out, size_t *outl,
    size_t outsize);
/* TLS 1.2 settings that give the context to the twin (CPT_TLS_TWIN), or
 * any settings of a context it has: what the twin answers; -1 when the
 * context is not (or cannot become) the twin's. */
int cptprov_aead_tls_twin_set(struct cptprov_cipher_ctx *c, const OSSL_PARAM params[]);
int cptprov_aead_tls_twin_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, const OSSL_PARAM params[], int enc);
int cptprov_aead_tls_twin_get(struct cptprov_cipher_ctx *c, OSSL_PARAM params[]);

/* cipher_params.c; the _in_c functions answer (or take) context
 * parameters in C: 1, or -1 when Go must. */
int cptprov_cipher_get_params_in_c(const struct cptprov_cipher_ctx *c, OSSL_PARAM params[]);
int cptprov_cipher_set_params_in_c(const struct cptprov_cipher_ctx *c, const OSSL_PARAM params[]);
int cptprov_cipher_defer_tls(struct cptprov_cipher_ctx *c, const OSSL_PARAM params[]);
/* Whether params hold one of libssl's TLS 1.2 settings. */
int cptprov_cipher_tls_setting(const OSSL_PARAM params[]);
/* Points pending.params at the context's own copy (after a dupctx). */
void cptprov_cipher_deferred_bind(struct cptprov_cipher_ctx *c);
int cptprov_cipher_get_params(OSSL_PARAM params[], const struct cptprov_cipher_alg *a);
OSSL_FUNC_cipher_gettable_ctx_params_fn cptprov_aead_gettable_ctx_params;
OSSL_FUNC_cipher_settable_ctx_params_fn cptprov_aead_settable_ctx_params;
OSSL_FUNC_cipher_gettable_ctx_params_fn cptprov_generic_gettable_ctx_params;
OSSL_FUNC_cipher_settable_ctx_params_fn cptprov_generic_settable_ctx_params;
OSSL_FUNC_cipher_gettable_ctx_params_fn cptprov_chacha_gettable_ctx_params;
OSSL_FUNC_cipher_settable_ctx_params_fn cptprov_chacha_settable_ctx_params;
OSSL_FUNC_cipher_gettable_ctx_params_fn cptprov_chachapoly_gettable_ctx_params;
OSSL_FUNC_cipher_settable_ctx_params_fn cptprov_chachapoly_settable_ctx_params;

#endif
