/* SPDX-License-Identifier: Apache-2.0 */
/* cptprov: the C side of the provider (what OpenSSL loads). */
#ifndef CPTPROV_H
#define CPTPROV_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/async.h>
#include <openssl/crypto.h>
#include <string.h>
#include "cptabi.h"
#include "goapi.h" /* struct cptgo_api: the entry points of libcptgo.so */

#define CPTPROV_NAME "cptprov"
/* The version comes from tools/version.sh, through the Makefile (-D): one
 * string for the provider, cptstat, the package and the bench report. */
#ifndef CPTPROV_VERSION
#error "CPTPROV_VERSION is not defined: build with make (tools/version.sh)"
#endif
#define CPTPROV_PROPS "provider=cptprov"

/*
 * Whether the libcrypto the provider runs in is OpenSSL major.minor or
 * later. One cptprov.so serves every 3.x (built against 3.0's headers):
 * where the default providers of 3.0 to 3.5 differ, this decides at run
 * time which one cptprov follows.
 */
static inline int cptprov_openssl_at_least(unsigned long major, unsigned long minor)
{
    return OpenSSL_version_num() >= (major << 28 | minor << 20);
}

/* Provider context: one per OSSL_provider_init (one per library context). */
struct cptprov_ctx {
    const OSSL_CORE_HANDLE *handle;
    struct cpt_config cfg;
    char *stats_dir;
    char *faults;
    char *log_file;
    char *dpdk_shim, *dpdk_eal_args, *dpdk_devices;
    /* Per CPT_ALG_* id (digests: CPT_ALG_MD_BASE + CPT_MD_*): updates of
     * an unauthenticated cipher, or digest messages whose first update is,
     * shorter than this run on the calling CPU (libcrypto's default
     * implementation); 0: never. */
    size_t cpu_threshold[CPT_MAX_ALGS];
    /* What query_operation and get_capabilities offer (algset.c). */
    struct cptprov_algset *algs;
    /* While the section is read: the log destination (a file or "syslog")
     * a refusal goes to as well, NULL for none. */
    const char *refusal_log;
};

/* path.c: the default provider in a library context of cptprov's own, for the CPU
 * path; NULL when it cannot be loaded. */
OSSL_LIB_CTX *cptprov_cpu_libctx(void);
/* A CPU-path twin's IV, without leaving errors of a successful read. */
int cptprov_twin_iv(EVP_CIPHER_CTX *twin, unsigned char *iv, size_t len);
/* The statistics area (statsarea.c): stats_dir is taken from the first
 * provider context configured with one; the area is created at the first
 * call in each process (NULL without stats_dir, or if it cannot be). */
void cptprov_stats_configure(const char *dir);
struct cpt_stats_area *cptprov_stats_area(void);
/*
 * A context's CPU-path work not yet added to cptprov_cpu_counters: counted
 * per context first, so that the hot path makes no atomic operation.
 */
struct cpt_cpu_tally {
    uint64_t ops, bytes;
};
/* Adds the tally to alg's counters (none when alg < 0) and clears it
 * (statsarea.c). */
void cptprov_cpu_flush(struct cpt_cpu_tally *t, int alg);

/* Counts an operation on n bytes, adding the tally to algorithm alg's
 * counters every 256. Inline: it runs on every CPU-path call. */
static inline void cptprov_cpu_tally(struct cpt_cpu_tally *t, int alg, size_t n)
{
    t->bytes += n;
    if (++t->ops >= 256)
        cptprov_cpu_flush(t, alg);
}

/* config.c: the openssl.cnf section, checked; 0 refuses activation. */
void cptprov_config_init(const OSSL_DISPATCH *in);
int cptprov_config_read(struct cptprov_ctx *p, const OSSL_CORE_HANDLE *handle);

/*
 * algset.c: the algorithms the `algorithms` key lets cptprov offer, chosen
 * once at activation from the static tables below (no Go, no work per
 * query). cptprov_algset_new takes the key's value (NULL: everything) and
 * returns NULL with why filled in when it names an unknown algorithm or
 * leaves nothing.
 */
struct cptprov_algset *cptprov_algset_new(const char *value, char *why, size_t whylen);
void cptprov_algset_free(struct cptprov_algset *a);
/* The offered entries of an operation type, NULL-terminated (NULL: none). */
const OSSL_ALGORITHM *cptprov_algset_query(const struct cptprov_algset *a, int operation_id);
/* cptprov_tls_groups, without the groups of what is not offered. */
int cptprov_algset_tls_groups(const struct cptprov_algset *a, OSSL_CALLBACK *cb, void *arg);
/* Whether the len bytes at name are one of the colon-separated names, as
 * OpenSSL compares them (without regard to case). */
static inline int cptprov_names_have(const char *names, const char *name, size_t len)
{
    const char *n = names;

    for (;;) {
        const char *colon = strchr(n, ':');
        size_t l = colon != NULL ? (size_t)(colon - n) : strlen(n);

        if (l == len && OPENSSL_strncasecmp(n, name, len) == 0)
            return 1;
        if (colon == NULL)
            return 0;
        n = colon + 1;
    }
}

/* errors.c */
int cptprov_errors_init(const OSSL_DISPATCH *in);
void cptprov_raise(const struct cptprov_ctx *p, int reason, const char *file, int line,
    const char *func, const char *fmt, ...);
#define CPT_RAISE(p, reason, ...) \
    cptprov_raise((p), (reason), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* Where OpenSSL gives no provider context: raised through any live one
 * (cptprov_errors_register adds or, add = 0, removes a context). */
void cptprov_errors_register(const struct cptprov_ctx *p, int add);
void cptprov_raise_any(int reason, const char *file, int line, const char *func, const char *fmt,
    ...);
#define CPT_RAISE_ANY(reason, ...) \
    cptprov_raise_any((reason), __FILE__, __LINE__, __func__, __VA_ARGS__)
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
/* The directory this provider module (cptprov.so) was loaded from. */
int cptprov_module_dir(char *buf, size_t len);

/* async.c: the bridge to OpenSSL ASYNC jobs. */
struct cpt_notifier *cptprov_async_begin(void);
int cptprov_async_wait(struct cpt_notifier *n);
extern int cptprov_async_callbacks;
void cptprov_async_end(struct cpt_notifier *n);
void cptprov_async_abort(struct cpt_notifier *n);
/*
 * One call into Go, the same way for every family. cptprov_call_begin
 * takes the Go half (api, as cptprov_go returned it: 0 when NULL, its
 * error already raised) and, when async, the job's notifier, so that the
 * call can go pending (outside a job, or for a size query, it runs
 * synchronously). The call is made with call.n and &call.st; its rc goes
 * to cptprov_finish, which pauses for the device here in C when it is
 * pending, sets *outl (if not NULL) to what the device wrote, releases the
 * notifier and raises the reason for func on failure: 1 on success.
 */
struct cpt_call {
    struct cptprov_ctx *prov;
    const struct cptgo_api *api;
    struct cpt_notifier *n;
    struct cpt_status st;
};
int cptprov_call_begin(struct cpt_call *call, struct cptprov_ctx *p, const struct cptgo_api *api,
    int async);
int cptprov_finish(struct cpt_call *call, int rc, size_t *outl, const char *func);

/*
 * For the algorithm families' dispatch tables. CPTPROV_ALG_FUNCS: an
 * algorithm's newctx and get_params (op: cipher, digest...), its family's
 * newctx and get_params given its row lc##_alg. CPTPROV_CTX_PARAMS_FN: the
 * function of a gettable or settable context-parameter list.
 */
#define CPTPROV_ALG_FUNCS(op, lc, newctx, get_params)      \
    static OSSL_FUNC_##op##_newctx_fn lc##_newctx;         \
    static OSSL_FUNC_##op##_get_params_fn lc##_get_params; \
    static void *lc##_newctx(void *provctx)                \
    {                                                      \
        return newctx(provctx, &lc##_alg);                 \
    }                                                      \
    static int lc##_get_params(OSSL_PARAM params[])        \
    {                                                      \
        return get_params(params, &lc##_alg);              \
    }
#define CPTPROV_CTX_PARAMS_FN(fn, list)             \
    const OSSL_PARAM *fn(void *cctx, void *provctx) \
    {                                               \
        (void)cctx;                                 \
        (void)provctx;                              \
        return list;                                \
    }

/* algset.c: every cipher; cipher_params.c: a cipher's static get_params
 * and gettable table, for ciphers kept in files of their own */
extern const OSSL_ALGORITHM cptprov_ciphers[];
int cptprov_cipher_static_params(OSSL_PARAM params[], unsigned int mode, int aead, int custom_iv,
    size_t keylen, size_t blocksize, size_t ivlen);
OSSL_FUNC_cipher_gettable_params_fn cptprov_cipher_static_gettable;
/* cipher.c, stitched.c (AES-CBC-HMAC-SHA1/SHA256): the dispatch tables */
#define CPT_CIPHER(ID, num, name, aliases, family, keylen) \
    extern const OSSL_DISPATCH cptprov_##ID##_functions[];
#define CPT_STITCHED(ID, num, name, family, keylen, digest) \
    extern const OSSL_DISPATCH cptprov_##ID##_functions[];
#include "algorithms.def"
extern const OSSL_ALGORITHM cptprov_digests[];
extern const OSSL_ALGORITHM cptprov_macs[];

/* keymgmt.c, exchange.c */
extern const OSSL_ALGORITHM cptprov_keymgmts[];
extern const OSSL_ALGORITHM cptprov_keyexchs[];
extern const OSSL_ALGORITHM cptprov_signatures[];
extern const OSSL_ALGORITHM cptprov_asym_ciphers[];
int cptprov_tls_groups(OSSL_CALLBACK *cb, void *arg);

/* A key object: C memory, state laid out by Go, reference counted. */
struct cptprov_keytype;
/*
 * A signature init Go accepted with a key (scheme, operation, digest, no
 * parameters): one seen before is kept in C until the context's next call
 * into Go (struct cpt_sig_pending). With it, the settings a context made
 * after such an init before its first signature (serialized in order by
 * signature.c), all of which Go accepted: another context's settings that
 * repeat them are kept too. Each slot and each list is written once:
 * state 0 free, 1 being written, 2 set.
 */
#define CPTPROV_KEY_SIG_INITS 4
#define CPTPROV_SIG_SETS_MAX 128
struct cptprov_sig_init_seen {
    atomic_int state;
    int alg, op, stream;
    char mdname[CPT_SIG_MDNAME_MAX];
    atomic_int sets_state;
    size_t sets_len;
    unsigned char sets[CPTPROV_SIG_SETS_MAX];
};

struct cptprov_key {
    struct cptprov_ctx *prov;
    const struct cptprov_keytype *kt;
    atomic_int refs;
    size_t size; /* bytes of state: the key type's */
    /* A signature's size with this key, once Go has told it (0: not yet):
     * libssl asks it before every signature, with the same key each time. */
    atomic_size_t sig_size;
    struct cptprov_sig_init_seen sig_inits[CPTPROV_KEY_SIG_INITS];
    atomic_uint material; /* counts the changes of the key's material */
    unsigned char state[] __attribute__((aligned(16)));
};
int cptprov_key_type_id(const struct cptprov_key *k);
/* Forgets what the key's material decided (signature size and inits seen):
 * before the material is imported or set. */
void cptprov_key_material_changes(struct cptprov_key *k);
/*
 * What a key type answers in C, without a call into Go (provider/
 * keymgmt_local.c): each function returns 1 (or a size) when it answered,
 * -1 when Go must (anything unusual, and every error, whose reason Go
 * raises); a NULL function, Go always. gen_template takes a template into
 * a generation's state; gen_domain makes a key from a generation that asks
 * no key material; secret_size is a derivation's size query.
 */
struct cptprov_key_local {
    int (*get_params)(const struct cptprov_key *k, OSSL_PARAM params[]);
    int (*set_params)(struct cptprov_key *k, const OSSL_PARAM params[]);
    int (*validate)(const struct cptprov_key *k, int selection);
    int (*gen_set_params)(void *gen, const OSSL_PARAM params[]);
    /* After Go took params for the generation gen: what C may answer
     * alone next time. */
    void (*gen_learn)(const void *gen, const OSSL_PARAM params[]);
    int (*gen_template)(void *gen, const struct cptprov_key *template);
    int (*gen_domain)(const void *gen, struct cptprov_key *k);
    int (*secret_size)(const struct cptprov_key *k, const struct cptprov_key *peer);
};
/* The key's type's C answers, NULL if none. */
const struct cptprov_key_local *cptprov_key_local(const struct cptprov_key *k);
extern const struct cptprov_key_local cptprov_x25519_local, cptprov_ec_local;
/* keymgmt's has(): whether k holds the parts selection (OSSL_KEYMGMT_SELECT_*) names. */
int cptprov_key_has(const void *k, int selection);
int cptprov_key_up_ref(struct cptprov_key *k);
void cptprov_key_free(void *k);

#endif
