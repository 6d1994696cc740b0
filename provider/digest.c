/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Digests: one generic skeleton; each algorithm is a row built by
 * CPTPROV_DIGEST(). A message is hashed on the device, or, when its first
 * update is shorter than its family's cpu_threshold, on the calling CPU with
 * libcrypto's own SHA code (the low-level functions the default provider
 * runs too, on a state inside the context: no allocation, no call into Go).
 * A hash's running state cannot move between the two, so the path is chosen
 * once per message: TLS transcripts and HMAC's small updates stay on the
 * CPU, bulk hashing goes to the device.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA*_Init & co.: public, and the fastest */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>
#include "dispatch.h"
#include "path.h"
#include "sha512t.h"

struct cptprov_digest_alg {
    int id; /* CPT_MD_* */
    size_t size, blocksize;
};

struct cptprov_digest_ctx {
    struct cptprov_ctx *prov;
    const struct cptprov_digest_alg *alg;
    struct cpt_path path; /* the twin is cpu, in place */
    union {
        SHA_CTX sha1;
        SHA256_CTX sha256; /* SHA-224 too */
        SHA512_CTX sha512; /* SHA-384, SHA-512/224 and /256 too */
    } cpu;
    /* Go-owned state (CPT_MD_STATE_SIZE bytes, plain values, zeroed for a
     * fresh message), allocated when a message first goes to the device:
     * EVP frees and recreates digest contexts all the time. */
    unsigned char *state;
};

static OSSL_FUNC_digest_freectx_fn digest_freectx;
static OSSL_FUNC_digest_dupctx_fn digest_dupctx;
static OSSL_FUNC_digest_init_fn digest_init;
static OSSL_FUNC_digest_update_fn digest_update;
static OSSL_FUNC_digest_final_fn digest_final;
static OSSL_FUNC_digest_gettable_params_fn digest_gettable_params;

static const struct cpt_path_hw digest_path;

/* The bytes of the CPU state a digest uses (all that needs wiping). */
static size_t cpu_state_size(const struct cptprov_digest_alg *a)
{
    return a->id == CPT_MD_SHA1 ? sizeof(SHA_CTX)
        : a->blocksize == 64    ? sizeof(SHA256_CTX)
                                : sizeof(SHA512_CTX);
}

/* EVP_Digest() makes and frees a context per message: nothing here is
 * zeroed or wiped that the message does not use. */
static void *digest_newctx(void *provctx, const struct cptprov_digest_alg *alg)
{
    struct cptprov_digest_ctx *c = OPENSSL_malloc(sizeof(*c));

    if (c != NULL) {
        c->prov = provctx;
        c->alg = alg;
        cpt_path_init(&c->path, &digest_path, provctx, CPT_ALG_MD_BASE + alg->id);
        c->state = NULL;
    }
    return c;
}

static void digest_freectx(void *vctx)
{
    struct cptprov_digest_ctx *c = vctx;

    if (c == NULL)
        return;
    cpt_path_free(&c->path);
    OPENSSL_clear_free(c->state, CPT_MD_STATE_SIZE);
    OPENSSL_cleanse(&c->cpu, cpu_state_size(c->alg));
    OPENSSL_free(c);
}

static void *digest_dupctx(void *vctx)
{
    struct cptprov_digest_ctx *c = vctx, *d = OPENSSL_malloc(sizeof(*c));

    if (d == NULL)
        return NULL;
    memcpy(d, c, sizeof(*d));
    cpt_path_dup(&d->path, &c->path);
    d->state = NULL;
    if (c->state != NULL && (d->state = OPENSSL_memdup(c->state, CPT_MD_STATE_SIZE)) == NULL) {
        OPENSSL_clear_free(d, sizeof(*d));
        return NULL;
    }
    return d;
}

static int digest_init(void *vctx, const OSSL_PARAM params[])
{
    struct cptprov_digest_ctx *c = vctx;

    (void)params; /* the SHA-1 and SHA-2 digests have no settable parameters */
    c->path.side = CPT_SIDE_NONE; /* the device's state is reset when it gets the message */
    return 1;
}

/* Starts the message on the CPU path; if it cannot, the device takes it. */
static int cpu_start(void *vctx)
{
    struct cptprov_digest_ctx *c = vctx;
    int ok = 0;

    switch (c->alg->id) {
    case CPT_MD_SHA1:
        ok = SHA1_Init(&c->cpu.sha1);
        break;
    case CPT_MD_SHA224:
        ok = SHA224_Init(&c->cpu.sha256);
        break;
    case CPT_MD_SHA256:
        ok = SHA256_Init(&c->cpu.sha256);
        break;
    case CPT_MD_SHA384:
        ok = SHA384_Init(&c->cpu.sha512);
        break;
    case CPT_MD_SHA512:
        ok = SHA512_Init(&c->cpu.sha512);
        break;
    case CPT_MD_SHA512_224:
    case CPT_MD_SHA512_256:
        ok = cpt_sha512t_init(&c->cpu.sha512, (int)c->alg->size * 8);
        break;
    }
    return ok ? 1 : -1;
}

static int cpu_update(void *vctx, const struct cpt_path_io *io)
{
    struct cptprov_digest_ctx *c = vctx;

    cpt_path_tally(&c->path, io->inl);
    switch (c->alg->id) {
    case CPT_MD_SHA1:
        return SHA1_Update(&c->cpu.sha1, io->in, io->inl);
    case CPT_MD_SHA224:
    case CPT_MD_SHA256:
        return SHA256_Update(&c->cpu.sha256, io->in, io->inl);
    }
    return SHA512_Update(&c->cpu.sha512, io->in, io->inl);
}

/* The digest's size was checked against out's; each Final writes it. */
static int cpu_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_digest_ctx *c = vctx;
    int ok;

    (void)outsize;
    switch (c->alg->id) {
    case CPT_MD_SHA1:
        ok = SHA1_Final(out, &c->cpu.sha1);
        break;
    case CPT_MD_SHA224:
    case CPT_MD_SHA256:
        ok = SHA256_Final(out, &c->cpu.sha256);
        break;
    default:
        ok = SHA512_Final(out, &c->cpu.sha512);
    }
    OPENSSL_cleanse(&c->cpu, cpu_state_size(c->alg));
    if (ok)
        *outl = c->alg->size;
    return ok;
}

/* Starts the message on the device: a zeroed state is a fresh one. */
static int device_start(void *vctx)
{
    struct cptprov_digest_ctx *c = vctx;

    if (c->state == NULL && (c->state = OPENSSL_malloc(CPT_MD_STATE_SIZE)) == NULL)
        return 0;
    memset(c->state, 0, CPT_MD_STATE_SIZE);
    return 1;
}

static int device_update(void *vctx, const struct cpt_path_io *io)
{
    struct cptprov_digest_ctx *c = vctx;
    struct cpt_call call;

    if (!cptprov_call_begin(&call, c->prov, cptprov_go(c->prov), 1))
        return 0;
    return cptprov_finish(&call,
        call.api->digest_update(c->alg->id, c->state, io->in, io->inl, call.n, &call.st), NULL,
        "digest_update");
}

static int device_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_digest_ctx *c = vctx;
    struct cpt_call call;

    if (!cptprov_call_begin(&call, c->prov, cptprov_go(c->prov), 1))
        return 0;
    return cptprov_finish(&call,
        call.api->digest_final(c->alg->id, c->state, out, outl, outsize, call.n, &call.st), outl,
        "digest_final");
}

static const struct cpt_path_hw digest_path = { cpu_start, device_start, cpu_update, device_update,
    cpu_final, device_final, NULL, NULL, 1 };

static int digest_update(void *vctx, const unsigned char *in, size_t inl)
{
    struct cptprov_digest_ctx *c = vctx;

    if (inl == 0)
        return 1;
    return cpt_path_update(&c->path, c, cpt_path_decide(&c->path, cpt_path_short(&c->path, inl)),
        &(struct cpt_path_io){ .in = in, .inl = inl });
}

static int digest_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_digest_ctx *c = vctx;

    *outl = 0;
    if (outsize < c->alg->size) {
        CPT_RAISE(c->prov, CPT_R_OUTPUT_TOO_SMALL, "output buffer too small: %zu bytes for %zu",
            outsize, c->alg->size);
        return 0;
    }
    /* A message with no data costs nothing on the CPU. */
    return cpt_path_final(&c->path, c, c->path.side != CPT_SIDE_DEVICE, out, outl, outsize);
}

/* Static parameters: answered in C, before any Go exists. */
static int digest_get_params(OSSL_PARAM params[], const struct cptprov_digest_alg *a)
{
    OSSL_PARAM *p;

    if (((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE)) != NULL
            && !OSSL_PARAM_set_size_t(p, a->blocksize))
        || ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE)) != NULL
            && !OSSL_PARAM_set_size_t(p, a->size))
        || ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_XOF)) != NULL
            && !OSSL_PARAM_set_int(p, 0))
        /* As the default provider: the AlgorithmIdentifier has no parameters. */
        || ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_ALGID_ABSENT)) != NULL
            && !OSSL_PARAM_set_int(p, 1))) {
        CPT_RAISE_ANY(CPT_R_FAILED_TO_SET_PARAMETER, "parameter \"%s\" cannot hold the value",
            p->key);
        return 0;
    }
    return 1;
}

static const OSSL_PARAM digest_gettable[] = { OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL), OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, NULL),
    OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, NULL), OSSL_PARAM_END };

static const OSSL_PARAM *digest_gettable_params(void *provctx)
{
    (void)provctx;
    return digest_gettable;
}

/* One algorithm: its parameter row, newctx, get_params and dispatch table. */
#define CPTPROV_DIGEST(lc, ID, size, blocksize)                                                    \
    static const struct cptprov_digest_alg lc##_alg = { ID, size, blocksize };                     \
    CPTPROV_ALG_FUNCS(digest, lc, digest_newctx, digest_get_params)                                \
    static const OSSL_DISPATCH cptprov_##lc##_functions[] = {                                      \
        CPT_FN(DIGEST_NEWCTX, digest_newctx, lc##_newctx),                                         \
        CPT_FN(DIGEST_FREECTX, digest_freectx, digest_freectx),                                    \
        CPT_FN(DIGEST_DUPCTX, digest_dupctx, digest_dupctx),                                       \
        CPT_FN(DIGEST_INIT, digest_init, digest_init),                                             \
        CPT_FN(DIGEST_UPDATE, digest_update, digest_update),                                       \
        CPT_FN(DIGEST_FINAL, digest_final, digest_final),                                          \
        CPT_FN(DIGEST_GET_PARAMS, digest_get_params, lc##_get_params),                             \
        CPT_FN(DIGEST_GETTABLE_PARAMS, digest_gettable_params, digest_gettable_params), CPT_FN_END \
    };

#define CPT_DIGEST(ID, num, name, aliases, family, hmac_family, size, blocksize) \
    CPTPROV_DIGEST(ID, CPT_MD_##ID, size, blocksize)
#include "algorithms.def"

/* Names and aliases as the default provider spells them (algorithms.def). */
const OSSL_ALGORITHM cptprov_digests[] = {
#define CPT_DIGEST(ID, num, name, aliases, family, hmac_family, size, blocksize) \
    { name aliases, CPTPROV_PROPS, cptprov_##ID##_functions, name " on the CPT" },
#include "algorithms.def"
    { NULL, NULL, NULL, NULL }
};
