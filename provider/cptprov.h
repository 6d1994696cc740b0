/* cptprov: the C side of the provider (what OpenSSL loads). */
#ifndef CPTPROV_H
#define CPTPROV_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/async.h>
#include "cptabi.h"

#define CPTPROV_NAME "cptprov"
#define CPTPROV_VERSION "0.1.0"
#define CPTPROV_PROPS "provider=cptprov"

/* Provider context: one per OSSL_provider_init (one per library context). */
struct cptprov_ctx {
    const OSSL_CORE_HANDLE *handle;
    struct cpt_config cfg;
    char *stats_dir;
    char *faults;
};

/* Entry points of libcptgo.so, resolved when it is loaded. */
struct cptgo_api {
    int (*abi_version)(void);
    int (*start)(struct cpt_config *cfg, struct cpt_status *st);
    void (*shutdown)(void); /* at exit: last statistics */
    void (*flush)(void); /* write statistics now */
    int (*cipher_init)(int alg, void *state, struct cpt_pending_init *pending, int enc,
        void *key, size_t keylen, void *iv, size_t ivlen, void *params, struct cpt_status *st);
    int (*cipher_update)(int alg, void *state, struct cpt_pending_init *pending, void *out,
        size_t *outl, size_t outsize, void *in, size_t inl, struct cpt_notifier *n,
        struct cpt_status *st);
    int (*cipher_final)(int alg, void *state, struct cpt_pending_init *pending, void *out,
        size_t *outl, size_t outsize, struct cpt_notifier *n, struct cpt_status *st);
    int (*cipher_get_ctx_params)(int alg, void *state, struct cpt_pending_init *pending,
        void *params, struct cpt_status *st);
    int (*cipher_set_ctx_params)(int alg, void *state, struct cpt_pending_init *pending,
        void *params, struct cpt_status *st);
    int (*cipher_dup)(int alg, void *state);
    void (*cipher_free)(int alg, void *state);
};

/* errors.c */
int cptprov_errors_init(const OSSL_DISPATCH *in);
void cptprov_raise(const struct cptprov_ctx *p, int reason, const char *file,
    int line, const char *func, const char *fmt, ...);
#define CPT_RAISE(p, reason, ...) \
    cptprov_raise((p), (reason), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* Raise what the Go side (or the device) reported. */
void cptprov_raise_status(const struct cptprov_ctx *p, const struct cpt_status *st,
    const char *func);
extern const OSSL_ITEM cptprov_reason_strings[];

/*
 * loader.c: the Go half, loaded on first use in the calling process (never
 * at load or configuration time: a Go runtime does not survive fork()).
 * Returns NULL with an error raised when it cannot be started.
 */
const struct cptgo_api *cptprov_go(struct cptprov_ctx *p);
/* The Go half if it is already running in this process, else NULL. */
const struct cptgo_api *cptprov_go_if_running(void);
int cptprov_loader_init(void);
void cptprov_loader_teardown(void);

/* async.c: the bridge to OpenSSL ASYNC jobs. */
struct cpt_notifier *cptprov_async_begin(void);
int cptprov_async_wait(struct cpt_notifier *n);
void cptprov_async_abort(struct cpt_notifier *n);

/* cipher.c */
extern const OSSL_ALGORITHM cptprov_ciphers[];

#endif
