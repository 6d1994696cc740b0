/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CPU path: one mechanism for every symmetric family (ciphers, AEADs,
 * digests, HMAC, the stitched ciphers).
 *
 * Below an algorithm's cpu_threshold, work runs on the calling CPU, with no
 * call into Go: in a "twin" of OpenSSL's default implementation, from
 * cptprov's own library context, or for digests in libcrypto's low-level SHA
 * code. Above it, work goes to the device. The state (a message, a stream, a
 * running CBC IV) lives on one side at a time; struct cpt_path says which,
 * and moving it runs the family's hooks, which start a message on the new
 * side or hand the running state over (struct cpt_stream_state, through
 * cipher_export and cipher_import). What differs between families is only
 * in their hooks and in how often they decide: digests, HMAC and AEADs once
 * a message (a hash's running state cannot move), stream ciphers at every
 * update, the stitched ciphers at every record.
 */
#ifndef CPTPROV_PATH_H
#define CPTPROV_PATH_H

#include <openssl/evp.h>
#include "cptprov.h"

/* Where the state is. NONE: no message yet, or (stream ciphers, stitched
 * ciphers) both sides agree, after an init. */
enum { CPT_SIDE_NONE, CPT_SIDE_CPU, CPT_SIDE_DEVICE };

/* An update's arguments: OSSL_FUNC_cipher_update_fn's (digests and HMAC
 * have only in and inl); oneshot: EVP_Cipher()'s, the input exactly. */
struct cpt_path_io {
    unsigned char *out;
    size_t *outl;
    size_t outsize;
    const unsigned char *in;
    size_t inl;
    int oneshot;
};

/*
 * A family's hooks; ctx is the family's context. A hook a family never
 * reaches (a final for the stitched ciphers, whose every update is whole)
 * may be NULL.
 */
struct cpt_path_hw {
    /* Take the state to the CPU or to the device: start the message
     * there, or hand the other side's running state over. 1 done, 0 failed
     * (a reason raised); to_cpu -1: not now, the device takes the work. */
    int (*to_cpu)(void *ctx);
    int (*to_device)(void *ctx);
    int (*cpu_update)(void *ctx, const struct cpt_path_io *io);
    int (*device_update)(void *ctx, const struct cpt_path_io *io);
    int (*cpu_final)(void *ctx, unsigned char *out, size_t *outl, size_t outsize);
    int (*device_final)(void *ctx, unsigned char *out, size_t *outl, size_t outsize);
    /* A copy of the twin for dupctx (NULL: failed), and its release; NULL
     * where the twin is plain memory inside the context. */
    void *(*twin_dup)(void *twin);
    void (*twin_free)(void *twin);
    /* A final ends the message: the next one is decided anew. */
    int per_message;
};

struct cpt_path {
    const struct cpt_path_hw *hw;
    const struct cptprov_ctx *prov;
    int alg; /* cpu_threshold and counters index; -1: neither (CPU only) */
    int side; /* CPT_SIDE_* */
    void *twin; /* the family's twin context; NULL: none (yet) */
    struct cpt_cpu_tally tally;
};

void cpt_path_init(struct cpt_path *p, const struct cpt_path_hw *hw, const struct cptprov_ctx *prov,
    int alg);
/* After the context holding s was copied into the one holding d: d gets a
 * twin of its own and an empty tally. 0: no memory (d has no twin). */
int cpt_path_dup(struct cpt_path *d, const struct cpt_path *s);
/* Adds the tally to the counters and frees the twin. */
void cpt_path_free(struct cpt_path *p);
/* After the twin (or the default provider, which may lack the algorithm)
 * failed: its errors are dropped, and every operation goes to the device. */
void cpt_path_drop(struct cpt_path *p);
/* cpt_path_drop, the state going to the device first if the twin holds it. */
int cpt_path_leave(struct cpt_path *p, void *ctx);

static inline void cpt_path_flush(struct cpt_path *p)
{
    cptprov_cpu_flush(&p->tally, p->alg);
}

/* Counts a CPU-path operation on n bytes. */
static inline void cpt_path_tally(struct cpt_path *p, size_t n)
{
    cptprov_cpu_tally(&p->tally, p->alg, n);
}

/* Whether n bytes are few enough for the CPU path. */
static inline int cpt_path_short(const struct cpt_path *p, size_t n)
{
    return p->alg >= 0 && n < p->prov->cpu_threshold[p->alg];
}

/* For families that decide once a message: cpu, what its first data
 * chose, until the message ends. */
static inline int cpt_path_decide(const struct cpt_path *p, int cpu)
{
    return p->side == CPT_SIDE_NONE ? cpu : p->side == CPT_SIDE_CPU;
}

int cpt_path_cross(struct cpt_path *p, void *ctx, int side);

/* Takes the state to side (CPT_SIDE_CPU or _DEVICE); as the to_* hooks. */
static inline int cpt_path_move(struct cpt_path *p, void *ctx, int side)
{
    return p->side == side ? 1 : cpt_path_cross(p, ctx, side);
}

/* An update where cpu says, or on the device when the CPU refuses it. */
static inline int cpt_path_update(struct cpt_path *p, void *ctx, int cpu,
    const struct cpt_path_io *io)
{
    int r = cpu ? cpt_path_move(p, ctx, CPT_SIDE_CPU) : -1;

    if (r > 0)
        return p->hw->cpu_update(ctx, io);
    if (r == 0 || !cpt_path_move(p, ctx, CPT_SIDE_DEVICE))
        return 0;
    return p->hw->device_update(ctx, io);
}

/* A final where cpu says, or on the device when the CPU refuses it. */
int cpt_path_final(struct cpt_path *p, void *ctx, int cpu, unsigned char *out, size_t *outl,
    size_t outsize);

/*
 * Twins: the default provider's implementations, fetched once a process.
 * cpt_path_cipher_twin gives p a twin of cipher name (p->alg is its
 * CPT_ALG_* id), set up for direction enc; 0 leaves p without one.
 */
int cpt_path_cipher_twin(struct cpt_path *p, const char *name, int enc);
void *cpt_twin_cipher_dup(void *twin);
void cpt_twin_cipher_free(void *twin);
/* A new twin of HMAC (unkeyed), or NULL. */
EVP_MAC_CTX *cpt_twin_hmac_new(void);
void *cpt_twin_hmac_dup(void *twin);
void cpt_twin_hmac_free(void *twin);

/* The device's update of a cipher's Go state, for the cipher families
 * (cipher.c). */
int cptprov_cipher_run(struct cptprov_ctx *prov, const struct cptgo_api *api, int alg, void *state,
    struct cpt_pending_init *pending, const struct cpt_path_io *io);

#endif
