/*
 * Ciphers: one generic skeleton; each algorithm is a row of parameters and a
 * dispatch table built by CPTPROV_CIPHER(). The semantics live in Go
 * (package dispatch); this file moves calls across, bridges ASYNC jobs and
 * answers the static questions (get_params, param tables) without Go.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <pthread.h>
#include "cptprov.h"

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
 * The CPU path of the unauthenticated ciphers: below the provider's
 * cpu_threshold an update runs on the calling CPU in a twin context of
 * OpenSSL's default implementation, with no call into Go at all. The stream
 * lives on one side at a time; crossing hands its state over
 * (struct cpt_stream_state): from the twin, its updated IV and num and the
 * bytes it buffers, which are the last bytes fed (kept in tail) and whose
 * count follows from OpenSSL's rules; to the twin, a re-init with the IV
 * and the buffered bytes fed again (for CTR, the counter before and num
 * bytes, which rebuilds the keystream block).
 */
struct cpu_path {
    EVP_CIPHER_CTX *twin; /* NULL: no CPU path for this context */
    int active; /* the stream's state is in the twin */
    int enc, pad;
    unsigned char tail[16]; /* the last bytes fed to the twin */
    size_t held; /* of which the twin buffers this many */
    int tls; /* libssl set a TLS version: records go to the device */
    unsigned char oiv[16]; /* the IV the application set last */
    int oiv_set;
    /* ChaCha20's twin exposes no updated IV: the IV it started from and
     * the bytes fed since tell where its stream is. */
    unsigned char civ[16];
    uint64_t cbytes;
    /* AEADs: a whole message runs on one side, chosen at its first data
     * update; AAD before it waits here. */
    int msg; /* MSG_* */
    /* GCM: the message's init carried an IV, so the twin holds the same IV
     * state as Go. A message without one goes to the device, which knows
     * whether the last IV is used up (OpenSSL refuses to reuse it). */
    int iv_fresh;
    size_t twin_ivlen; /* the IV length the twin was last given */
    size_t aad_len;
    unsigned char aad[64];
    struct cpt_cpu_tally tally;
};

enum { MSG_OPEN, MSG_CPU, MSG_DEVICE };


struct cptprov_cipher_ctx {
    struct cptprov_ctx *prov;
    const struct cptprov_cipher_alg *alg;
    struct cpt_pending_init pending;
    struct cpu_path cpu;
    /* Go has been handed the state: a context whose messages all ran on
     * the CPU path is freed without a call into Go. */
    int go_seen;
    /* Go-owned state: plain values, so a copy is a valid duplicate. */
    unsigned char state[CPT_CIPHER_STATE_SIZE] __attribute__((aligned(64)));
};

static struct cpt_aead_shadow *shadow(const struct cptprov_cipher_ctx *c);

static void *cptprov_cipher_newctx(void *provctx, const struct cptprov_cipher_alg *alg)
{
    struct cptprov_cipher_ctx *c = OPENSSL_zalloc(sizeof(*c));

    if (c != NULL) {
        c->prov = provctx;
        c->alg = alg;
    }
    return c;
}

static void cptprov_cipher_freectx(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api = cptprov_go_if_running();

    if (c == NULL)
        return;
    if (api != NULL && c->go_seen)
        api->cipher_free(c->alg->id, c->state);
    cptprov_cpu_flush(&c->cpu.tally, c->alg->id);
    EVP_CIPHER_CTX_free(c->cpu.twin);
    OPENSSL_clear_free(c, sizeof(*c));
}

static void *cptprov_cipher_dupctx(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx, *d;
    const struct cptgo_api *api = cptprov_go_if_running();

    d = OPENSSL_malloc(sizeof(*d));
    if (d == NULL)
        return NULL;
    memcpy(d, c, sizeof(*d));
    d->cpu.tally = (struct cpt_cpu_tally){ 0, 0 };
    if (c->cpu.twin != NULL) {
        d->cpu.twin = EVP_CIPHER_CTX_new();
        if (d->cpu.twin == NULL || !EVP_CIPHER_CTX_copy(d->cpu.twin, c->cpu.twin)) {
            EVP_CIPHER_CTX_free(d->cpu.twin);
            OPENSSL_clear_free(d, sizeof(*d));
            return NULL;
        }
    }
    if (api != NULL && d->go_seen)
        api->cipher_dup(d->alg->id, d->state);
    return d;
}

static EVP_CIPHER *cpu_cipher(const struct cptprov_cipher_alg *a);

/* Go's half of the provider, for a call that hands it this context. */
static const struct cptgo_api *cipher_go(struct cptprov_cipher_ctx *c)
{
    c->go_seen = 1;
    return cptprov_go(c->prov);
}

/* Starts a stream in the twin too (creating it on first use). */
static void cpu_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, size_t ivlen, int enc)
{
    struct cpu_path *cp = &c->cpu;
    EVP_CIPHER *ciph;

    if (c->prov->cpu_threshold[c->alg->id] == 0)
        return;
    if (cp->twin == NULL) {
        if ((ciph = cpu_cipher(c->alg)) == NULL || (cp->twin = EVP_CIPHER_CTX_new()) == NULL)
            return;
        if (!EVP_CipherInit_ex2(cp->twin, ciph, NULL, NULL, enc, NULL)) {
            EVP_CIPHER_CTX_free(cp->twin);
            cp->twin = NULL;
            return;
        }
        cp->pad = 1;
        cp->twin_ivlen = c->alg->ivlen;
    }
    if (c->alg->aead) {
        /* Every init starts a message, undecided, in the twin too. EVP
         * hands the twin its own IV length: a GCM IV of another length
         * sets that first. */
        OSSL_PARAM len[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

        if (iv != NULL && ivlen != cp->twin_ivlen) {
            len[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen);
            cp->twin_ivlen = ivlen;
        }
        if ((len[0].key != NULL && !EVP_CIPHER_CTX_set_params(cp->twin, len))
            || !EVP_CipherInit_ex2(cp->twin, NULL, key, iv, enc, NULL)) {
            EVP_CIPHER_CTX_free(cp->twin);
            cp->twin = NULL;
        }
        cp->msg = MSG_OPEN;
        cp->aad_len = 0;
        cp->enc = enc;
        cp->iv_fresh = iv != NULL;
        return;
    }
    if (iv == NULL && !cp->active) {
        /*
         * The device holds the stream, and a re-init without an IV goes on
         * from its state (CTR's counter, CBC's last IV): the stream stays
         * there and the twin only learns the key, for the next crossing.
         */
        if (key != NULL && !EVP_CipherInit_ex2(cp->twin, NULL, key, NULL, enc, NULL)) {
            EVP_CIPHER_CTX_free(cp->twin);
            cp->twin = NULL;
        }
        return;
    }
    if (iv != NULL) {
        memcpy(cp->oiv, iv, c->alg->ivlen);
        cp->oiv_set = 1;
    } else if (c->alg->blocksize > 1 && cp->oiv_set) {
        /* CBC goes back to the application's IV, which the twin may not
         * have as its own when the stream crossed into it. */
        iv = cp->oiv;
    }
    /* A fresh stream (or one the twin holds) is the twin's. */
    cp->active = EVP_CipherInit_ex2(cp->twin, NULL, key, iv, enc, NULL)
        && EVP_CIPHER_CTX_set_padding(cp->twin, cp->pad);
    cp->enc = enc;
    cp->held = 0;
    if (iv != NULL) {
        memcpy(cp->civ, iv, sizeof(cp->civ));
        cp->cbytes = 0;
    } else if (key != NULL) {
        cp->cbytes -= cp->cbytes % 64; /* ChaCha20 restarts the current block */
    }
}

/* ChaCha20's counter: 64 bits, little-endian, in the IV's first 8 bytes. */
static void chacha_counter_add(unsigned char iv[16], uint64_t n)
{
    for (int i = 0; i < 8; i++) {
        n += iv[i];
        iv[i] = (unsigned char)n;
        n >>= 8;
    }
}

/* Hands the stream from the twin to the device path. */
static int cpu_leave(struct cptprov_cipher_ctx *c)
{
    struct cpu_path *cp = &c->cpu;
    struct cpt_stream_state s;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;

    if (!cp->active)
        return 1;
    memset(&s, 0, sizeof(s));
    if (c->alg->chacha) {
        /* the device's IV names the current keystream block */
        memcpy(s.iv, cp->civ, sizeof(s.iv));
        chacha_counter_add(s.iv, cp->cbytes / 64);
        s.num = (uint32_t)(cp->cbytes % 64);
    } else if (!cptprov_twin_iv(cp->twin, s.iv, sizeof(s.iv))) {
        CPT_RAISE(c->prov, CPT_R_INTERNAL, "reading the CPU path's IV");
        return 0;
    } else {
        s.num = (uint32_t)EVP_CIPHER_CTX_get_num(cp->twin);
    }
    s.buf_len = (uint32_t)cp->held;
    memcpy(s.buf, cp->tail + sizeof(cp->tail) - cp->held, cp->held);
    s.pad = cp->pad;
    s.enc = cp->enc;
    if ((api = cipher_go(c)) == NULL)
        return 0;
    if (api->cipher_import(c->alg->id, c->state, &c->pending, &s, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_import");
        return 0;
    }
    cp->active = 0;
    return 1;
}

/* Takes the stream from the device path into the twin; 0 leaves it there. */
static int cpu_enter(struct cptprov_cipher_ctx *c)
{
    struct cpu_path *cp = &c->cpu;
    struct cpt_stream_state s;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api = c->go_seen ? cptprov_go_if_running() : NULL;
    unsigned char junk[64], zero[64] = { 0 };
    int n, ok;

    if (api == NULL || api->cipher_export(c->alg->id, c->state, &c->pending, &s, &st) != CPT_OK
        || s.buf_len > sizeof(s.buf) || s.num >= (c->alg->chacha ? 64u : 16u))
        return 0;
    if (s.num != 0 && !c->alg->chacha) { /* regenerate the keystream block from the counter before */
        for (int i = 15; i >= 0 && s.iv[i]-- == 0; i--)
            ;
    }
    memcpy(cp->civ, s.iv, sizeof(cp->civ));
    cp->cbytes = s.num;
    ok = EVP_CipherInit_ex2(cp->twin, NULL, NULL, s.iv, s.enc, NULL)
        && EVP_CIPHER_CTX_set_padding(cp->twin, s.pad)
        && EVP_CipherUpdate(cp->twin, junk, &n, s.num != 0 ? zero : s.buf,
            (int)(s.num != 0 ? s.num : s.buf_len))
        && n == (s.num != 0 ? (int)s.num : 0);
    if (!ok) {
        ERR_clear_error();
        return 0;
    }
    cp->enc = s.enc;
    cp->pad = s.pad;
    cp->held = s.buf_len;
    memcpy(cp->tail + sizeof(cp->tail) - s.buf_len, s.buf, s.buf_len);
    cp->active = 1;
    return 1;
}

/* Feeds an update to the twin, keeping what the hand-over needs. */
static int cpu_update(struct cptprov_cipher_ctx *c, unsigned char *out, size_t *outl,
    const unsigned char *in, size_t inl)
{
    struct cpu_path *cp = &c->cpu;
    size_t total = cp->held + inl, keep, bs = c->alg->blocksize;
    int n;

    if (bs == 1) {
        /* A stream mode buffers nothing: EVP_Cipher goes straight to the
         * default provider's cipher function, a few ns under
         * EVP_CipherUpdate's checks, which is a tenth of a 64-byte call. */
        if (inl > INT_MAX || (n = EVP_Cipher(cp->twin, out, in, (unsigned int)inl)) < 0)
            return 0;
    } else if (!EVP_CipherUpdate(cp->twin, out, &n, in, (int)inl)) {
        return 0;
    }
    *outl = (size_t)n;
    cptprov_cpu_tally(&cp->tally, c->alg->id, inl);
    cp->cbytes += inl;
    if (bs > 1) {
        /* OpenSSL buffers a partial block, and a padded decryption holds a
         * last whole block back. */
        keep = inl < sizeof(cp->tail) ? inl : sizeof(cp->tail);
        memmove(cp->tail, cp->tail + keep, sizeof(cp->tail) - keep);
        memcpy(cp->tail + sizeof(cp->tail) - keep, in + inl - keep, keep);
        if (inl != 0)
            cp->held = total % bs != 0 || cp->enc || !cp->pad ? total % bs : bs;
    }
    return 1;
}

/* Whether an AEAD context's message may run in the twin. */
static int aead_cpu(const struct cptprov_cipher_ctx *c)
{
    return c->alg->aead && c->cpu.twin != NULL && !c->cpu.tls;
}

/* Whether a message not yet decided may still become the twin's. */
static int aead_cpu_open(const struct cptprov_cipher_ctx *c)
{
    return c->cpu.msg == MSG_OPEN && (c->alg->chacha || c->cpu.iv_fresh);
}

/* The message is the device's: the AAD held back goes to Go first. */
static int aead_to_device(struct cptprov_cipher_ctx *c, const struct cptgo_api *api)
{
    struct cpu_path *cp = &c->cpu;
    struct cpt_status st = { 0, "" };
    size_t outl = 0;
    int rc;

    cp->msg = MSG_DEVICE;
    if (cp->aad_len == 0)
        return 1;
    rc = api->cipher_update(c->alg->id, c->state, &c->pending, NULL, &outl, 0, cp->aad,
        cp->aad_len, NULL, &st);
    cp->aad_len = 0;
    if (rc != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_update");
        return 0;
    }
    return 1;
}

/* Feeds the AAD held back to the twin: the message is the CPU's. */
static int aead_to_cpu(struct cptprov_cipher_ctx *c)
{
    struct cpu_path *cp = &c->cpu;
    int n;

    cp->msg = MSG_CPU;
    if (cp->aad_len != 0 && !EVP_CipherUpdate(cp->twin, NULL, &n, cp->aad, (int)cp->aad_len))
        return 0;
    cp->aad_len = 0;
    return 1;
}

/*
 * An AEAD update while the message may still be the CPU's: 1 done, 0
 * failed, -1 the device's to do. AAD waits until the first data says
 * where the message runs: below the threshold, in the twin.
 */
static int aead_cpu_update(struct cptprov_cipher_ctx *c, unsigned char *out, size_t *outl,
    const unsigned char *in, size_t inl)
{
    struct cpu_path *cp = &c->cpu;
    int n;

    if (cp->msg == MSG_DEVICE || (cp->msg == MSG_OPEN && !aead_cpu_open(c)))
        return -1;
    if (cp->msg == MSG_OPEN) {
        if (inl == 0)
            return 1;
        if (out == NULL && inl <= sizeof(cp->aad) - cp->aad_len) {
            memcpy(cp->aad + cp->aad_len, in, inl);
            cp->aad_len += inl;
            return 1;
        }
        if (out == NULL || inl >= c->prov->cpu_threshold[c->alg->id])
            return -1;
        if (!aead_to_cpu(c))
            return 0;
    }
    if (!EVP_CipherUpdate(cp->twin, out, &n, in, (int)inl))
        return 0;
    *outl = (size_t)n;
    if (out != NULL)
        cptprov_cpu_tally(&cp->tally, c->alg->id, inl);
    return 1;
}

/* Finishes a message the twin holds (or one with no data yet). */
static int aead_cpu_final(struct cptprov_cipher_ctx *c, unsigned char *out, size_t *outl)
{
    struct cpu_path *cp = &c->cpu;
    struct cpt_aead_shadow *sh = shadow(c);
    OSSL_PARAM tag[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
    int n, enc = cp->enc;

    if (cp->msg == MSG_OPEN && !aead_to_cpu(c))
        return 0;
    cp->msg = MSG_OPEN; /* the next message: the same nonce, undecided */
    cptprov_cpu_flush(&cp->tally, c->alg->id);
    /* Go learns at its next call that this message is over; GCM's IV is
     * then used up, whatever the outcome, as in OpenSSL. */
    sh->final_done = 1;
    if (!c->alg->chacha) {
        if (c->pending.valid && c->pending.has_iv)
            sh->final_done = CPT_FINAL_DONE_IV_USED;
        cp->iv_fresh = 0;
    }
    if (!enc) {
        if (sh->tag_len == 0 || sh->tag_len > sizeof(sh->tag)) {
            CPT_RAISE(c->prov, CPT_R_INVALID_TAG, "no tag set before final of a decryption");
            return 0;
        }
        tag[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, sh->tag, sh->tag_len);
        if (!EVP_CIPHER_CTX_set_params(cp->twin, tag)) {
            CPT_RAISE(c->prov, CPT_R_INTERNAL, "handing the tag to the CPU path");
            return 0;
        }
    }
    if (!EVP_CipherFinal_ex(cp->twin, out, &n)) {
        ERR_clear_error();
        CPT_RAISE(c->prov, CPT_R_AUTH_FAILED, "tag verification failed");
        return 0;
    }
    *outl = 0;
    if (enc) {
        tag[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, sh->tag, sizeof(sh->tag));
        if (!EVP_CIPHER_CTX_get_params(cp->twin, tag)) {
            CPT_RAISE(c->prov, CPT_R_INTERNAL, "reading the CPU path's tag");
            return 0;
        }
        sh->tag_len = sizeof(sh->tag);
    }
    return 1;
}

/*
 * The common init (new IV, same or new key, no parameters) is validated
 * here and handed to Go with the next call for this context; an init with
 * parameters goes to Go at once.
 */
static int cipher_init(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[], int enc)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cpt_pending_init *p = &c->pending;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };

    if (params == NULL || params[0].key == NULL) {
        if (key != NULL && keylen != c->alg->keylen) {
            CPT_RAISE(c->prov, CPT_R_INVALID_KEY_LENGTH, "invalid key length %zu (need %zu)",
                keylen, c->alg->keylen);
            return 0;
        }
        if (iv != NULL && c->alg->aead && (ivlen == 0 || ivlen > c->alg->max_ivlen)) {
            CPT_RAISE(c->prov, CPT_R_INVALID_IV_LENGTH, "invalid IV length %zu (1 to %zu bytes)",
                ivlen, c->alg->max_ivlen);
            return 0;
        }
        if (iv != NULL && !c->alg->aead && ivlen != c->alg->ivlen) {
            CPT_RAISE(c->prov, CPT_R_INVALID_IV_LENGTH, "invalid IV length %zu (need %zu)",
                ivlen, c->alg->ivlen);
            return 0;
        }
        p->valid = 1;
        p->enc = enc;
        if (c->alg->aead) {
            shadow(c)->final_ready = 0; /* the message is no longer the one Go saw */
            if (iv != NULL && shadow(c)->final_done == CPT_FINAL_DONE_IV_USED)
                shadow(c)->final_done = 1; /* a new IV replaces the used one */
        }
        if (key != NULL) {
            memcpy(p->key, key, keylen);
            p->keylen = keylen;
            p->has_key = 1;
        }
        if (iv != NULL) {
            memcpy(p->iv, iv, ivlen);
            p->ivlen = ivlen;
            p->has_iv = 1;
        }
        cpu_init(c, key, iv, ivlen, enc);
        return 1;
    }
    /* parameters: the device path takes the stream; the twin learns the key */
    c->cpu.active = 0;
    cpu_init(c, key, NULL, 0, enc);
    c->cpu.msg = MSG_DEVICE;
    if (OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION) != NULL)
        c->cpu.tls = 1;
    if ((api = cipher_go(c)) == NULL)
        return 0;
    if (api->cipher_init(c->alg->id, c->state, p, enc, (void *)key, keylen, (void *)iv,
            ivlen, (void *)params, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_init");
        return 0;
    }
    return 1;
}

static int cptprov_cipher_einit(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return cipher_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int cptprov_cipher_dinit(void *vctx, const unsigned char *key, size_t keylen,
    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return cipher_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* Kept out of line: the status block is only for the device path and
 * zeroing it costs a 64-byte CPU-path call a tenth of its time. */
static __attribute__((noinline)) int device_update(struct cptprov_cipher_ctx *c,
    unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in, size_t inl)
{
    const struct cptgo_api *api = cipher_go(c);
    struct cpt_status st = { 0, "" };
    struct cpt_notifier *n;
    int rc;

    if (api == NULL || !cpu_leave(c))
        return 0;
    n = cptprov_async_begin();
    rc = api->cipher_update(c->alg->id, c->state, &c->pending, out, outl, outsize, (void *)in, inl,
        n, &st);
    return cptprov_finish(c->prov, rc, n, outl, &st, "cipher_update");
}

static int cptprov_cipher_update(void *vctx, unsigned char *out, size_t *outl,
    size_t outsize, const unsigned char *in, size_t inl)
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api;

    *outl = 0;
    if (aead_cpu(c)) {
        int r = aead_cpu_update(c, out, outl, in, inl);

        if (r >= 0)
            return r;
        if ((api = cipher_go(c)) == NULL || !aead_to_device(c, api))
            return 0;
    } else if (c->cpu.twin != NULL && !c->cpu.tls && inl < c->prov->cpu_threshold[c->alg->id]
        && (c->cpu.active || cpu_enter(c))) {
        return cpu_update(c, out, outl, in, inl);
    }
    return device_update(c, out, outl, outsize, in, inl);
}

/*
 * After a data update the device has left the message's tag in the shared
 * head of the state: final then has nothing to compute, only to hand the tag
 * over or compare it (in constant time), and Go catches up at its next call.
 */
static int final_in_c(struct cptprov_cipher_ctx *c)
{
    struct cpt_aead_shadow *sh = shadow(c);

    if (!c->alg->aead || !sh->final_ready || c->pending.valid)
        return 0;
    if (sh->enc) {
        memcpy(sh->tag, sh->run_tag, sizeof(sh->tag));
        sh->tag_len = sizeof(sh->tag);
    } else if (sh->tag_len == 0 || sh->tag_len > sizeof(sh->tag)
        || CRYPTO_memcmp(sh->run_tag, sh->tag, sh->tag_len) != 0) {
        return 0; /* Go reports the failure */
    }
    sh->final_ready = 0;
    sh->final_done = 1;
    return 1;
}

static int cptprov_cipher_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };
    struct cpt_notifier *n;
    int rc;

    *outl = 0;
    if (final_in_c(c)) {
        c->cpu.msg = MSG_OPEN;
        return 1;
    }
    if (aead_cpu(c) && (c->cpu.msg == MSG_CPU || aead_cpu_open(c)))
        return aead_cpu_final(c, out, outl);
    if (aead_cpu(c) && c->cpu.msg == MSG_OPEN
        && ((api = cipher_go(c)) == NULL || !aead_to_device(c, api)))
        return 0;
    c->cpu.msg = MSG_OPEN;
    if (c->cpu.active) {
        int n;

        cptprov_cpu_flush(&c->cpu.tally, c->alg->id);
        if (!EVP_CipherFinal_ex(c->cpu.twin, out, &n))
            return 0;
        *outl = (size_t)n;
        c->cpu.held = 0;
        return 1;
    }
    if ((api = cipher_go(c)) == NULL)
        return 0;
    n = cptprov_async_begin();
    rc = api->cipher_final(c->alg->id, c->state, &c->pending, out, outl, outsize, n, &st);
    return cptprov_finish(c->prov, rc, n, outl, &st, "cipher_final");
}

/*
 * EVP_Cipher(): for AEAD ciphers an update, or final for a NULL input; for
 * the others exactly the input, without buffering or padding.
 */
static int cptprov_cipher_cipher(void *vctx, unsigned char *out, size_t *outl,
    size_t outsize, const unsigned char *in, size_t inl)
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };
    struct cpt_notifier *n;
    int rc;

    if (c->alg->aead) {
        if (in == NULL)
            return cptprov_cipher_final(vctx, out, outl, outsize);
        return cptprov_cipher_update(vctx, out, outl, outsize, in, inl);
    }
    if ((api = cipher_go(c)) == NULL || !cpu_leave(c))
        return 0;
    *outl = 0;
    n = cptprov_async_begin();
    rc = api->cipher_oneshot(c->alg->id, c->state, &c->pending, out, outl, outsize, (void *)in,
        inl, n, &st);
    return cptprov_finish(c->prov, rc, n, outl, &st, "cipher_cipher");
}

static size_t shadow_ivlen(const struct cptprov_cipher_ctx *c)
{
    const struct cpt_aead_shadow *sh = shadow(c);

    if (c->pending.valid && c->pending.has_iv)
        return c->pending.ivlen;
    return sh->ivlen != 0 ? (size_t)sh->ivlen : c->alg->ivlen;
}

/* The part of an AEAD context's state that C shares with Go. */
static struct cpt_aead_shadow *shadow(const struct cptprov_cipher_ctx *c)
{
    return (struct cpt_aead_shadow *)c->state;
}

/* Parameter names compared cheaply: most differ in the first byte. */
static int key_is(const char *key, const char *name)
{
    return key[0] == name[0] && strcmp(key, name) == 0;
}

/*
 * EVP asks for "ivlen" (and sets it to the value it already has) around
 * every init; those need no trip into Go. Returns -1 when Go must answer.
 */
static int get_params_in_c(const struct cptprov_cipher_ctx *c, OSSL_PARAM params[])
{
    const struct cpt_aead_shadow *sh = shadow(c);
    int enc = c->pending.valid ? c->pending.enc : (int)sh->enc;
    OSSL_PARAM *p;

    for (p = params; p->key != NULL; p++) {
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG) && c->alg->aead && enc
            && sh->tag_len == sizeof(sh->tag) && p->data_type == OSSL_PARAM_OCTET_STRING
            && p->data != NULL && p->data_size >= 1 && p->data_size <= sizeof(sh->tag))
            continue; /* an encryption's tag, after final: TLS 1.3 asks for it every record */
        if (!key_is(p->key, OSSL_CIPHER_PARAM_IVLEN) && !key_is(p->key, OSSL_CIPHER_PARAM_KEYLEN))
            return -1;
    }
    for (p = params; p->key != NULL; p++) {
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            memcpy(p->data, sh->tag, p->data_size);
            p->return_size = p->data_size;
            continue;
        }
        size_t v = !key_is(p->key, OSSL_CIPHER_PARAM_IVLEN) ? c->alg->keylen
            : c->alg->aead                                  ? shadow_ivlen(c)
                                                            : c->alg->ivlen;
        if (!OSSL_PARAM_set_size_t(p, v))
            return -1; /* let Go produce the error */
    }
    return 1;
}

static int set_params_in_c(const struct cptprov_cipher_ctx *c, const OSSL_PARAM params[])
{
    struct cpt_aead_shadow *sh = shadow(c);
    int enc = c->pending.valid ? c->pending.enc : (int)sh->enc;
    const OSSL_PARAM *p;
    size_t v;

    if (!c->alg->aead)
        return -1;
    for (p = params; p->key != NULL; p++) {
        /* EVP_CipherInit_ex sends "padding" to every cipher; AEADs ignore it. */
        if (key_is(p->key, OSSL_CIPHER_PARAM_PADDING))
            continue;
        /*
         * A decryption's expected tag (TLS 1.3 sets one every record), or
         * for ChaCha20-Poly1305 only its length, as OpenSSL's allows. Go
         * reads it from the shadow; so does the CPU path.
         */
        if (key_is(p->key, OSSL_CIPHER_PARAM_AEAD_TAG)
            && p->data_type == OSSL_PARAM_OCTET_STRING && p->data_size >= 1
            && p->data_size <= sizeof(sh->tag)
            && (c->alg->chacha ? p->data == NULL || !enc : p->data != NULL && !enc)) {
            if (p->data != NULL)
                memcpy(sh->tag, p->data, p->data_size);
            sh->tag_len = (uint32_t)p->data_size;
            continue;
        }
        if (!key_is(p->key, OSSL_CIPHER_PARAM_AEAD_IVLEN)
            || !OSSL_PARAM_get_size_t(p, &v) || v != shadow_ivlen(c))
            return -1;
    }
    return 1;
}

static int cptprov_cipher_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };

    if (params == NULL || get_params_in_c(c, params) == 1)
        return 1;
    if ((api = cipher_go(c)) == NULL || !cpu_leave(c))
        return 0;
    if (api->cipher_get_ctx_params(c->alg->id, c->state, &c->pending, params, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_get_ctx_params");
        return 0;
    }
    return 1;
}

static int cptprov_cipher_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    struct cptprov_cipher_ctx *c = vctx;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };

    if (params == NULL || params[0].key == NULL || set_params_in_c(c, params) == 1)
        return 1;
    if (OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION) != NULL
        || OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD) != NULL
        || OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED) != NULL)
        c->cpu.tls = 1; /* TLS 1.2 records go to the device */
    c->cpu.iv_fresh = 0; /* Go's IV rules decide about this message */
    if ((api = cipher_go(c)) == NULL || !cpu_leave(c))
        return 0;
    if (c->cpu.msg == MSG_OPEN && c->cpu.aad_len != 0 && !aead_to_device(c, api))
        return 0;
    if (api->cipher_set_ctx_params(c->alg->id, c->state, &c->pending, (void *)params, &st)
        != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_set_ctx_params");
        return 0;
    }
    return 1;
}

/* Static algorithm parameters: answered in C, before any Go exists. */
static int cipher_get_params(OSSL_PARAM params[], const struct cptprov_cipher_alg *a)
{
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL
        && !OSSL_PARAM_set_uint(p, a->mode))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) != NULL
        && !OSSL_PARAM_set_int(p, a->aead))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) != NULL
        && !OSSL_PARAM_set_int(p, a->custom_iv))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, a->keylen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL
        && !OSSL_PARAM_set_size_t(p, a->blocksize))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, a->ivlen))
        return 0;
    return 1;
}

int cptprov_cipher_static_params(OSSL_PARAM params[], unsigned int mode, int aead, int custom_iv,
    size_t keylen, size_t blocksize, size_t ivlen)
{
    const struct cptprov_cipher_alg a = { 0, NULL, mode, keylen, ivlen, blocksize, aead, custom_iv,
        ivlen, 0 };

    return cipher_get_params(params, &a);
}

/*
 * The same parameter lists as OpenSSL's own AEAD ciphers (tls-version and
 * tls-mac-size are accepted without being listed, as there).
 */
static const OSSL_PARAM cipher_gettable_params[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
    OSSL_PARAM_END
};

/*
 * "iv-generated" (whether the context drew the IV itself) first: OpenSSL
 * 3.4 added it (no name in 3.0's headers), and older versions get the list
 * after it.
 */
static const OSSL_PARAM aead_gettable_ctx_params[] = {
    OSSL_PARAM_uint("iv-generated", NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM aead_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0),
    OSSL_PARAM_END
};

/* The lists of OpenSSL's own block and stream ciphers. */
static const OSSL_PARAM generic_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM generic_settable_ctx_params[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL),
    OSSL_PARAM_END
};

/* The lists of OpenSSL's ChaCha20 and ChaCha20-Poly1305. */
static const OSSL_PARAM chacha_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_END
};

static const OSSL_PARAM chachapoly_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_END
};

static const OSSL_PARAM chachapoly_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *cptprov_cipher_gettable_params(void *provctx)
{
    (void)provctx;
    return cipher_gettable_params;
}

/* The context parameter lists of each kind of cipher. */
#define CTX_PARAMS_FN(fn, list)                                   \
    static const OSSL_PARAM *fn(void *cctx, void *provctx)      \
    {                                                             \
        (void)cctx;                                               \
        (void)provctx;                                            \
        return list;                                              \
    }
CTX_PARAMS_FN(cptprov_aead_gettable_ctx_params,
    aead_gettable_ctx_params + (cptprov_openssl_at_least(3, 4) ? 0 : 1))
CTX_PARAMS_FN(cptprov_aead_settable_ctx_params, aead_settable_ctx_params)
CTX_PARAMS_FN(cptprov_generic_gettable_ctx_params, generic_gettable_ctx_params)
CTX_PARAMS_FN(cptprov_generic_settable_ctx_params, generic_settable_ctx_params)
CTX_PARAMS_FN(cptprov_chacha_gettable_ctx_params, chacha_ctx_params)
CTX_PARAMS_FN(cptprov_chacha_settable_ctx_params, chacha_ctx_params)
CTX_PARAMS_FN(cptprov_chachapoly_gettable_ctx_params, chachapoly_gettable_ctx_params)
CTX_PARAMS_FN(cptprov_chachapoly_settable_ctx_params, chachapoly_settable_ctx_params)

const OSSL_PARAM *cptprov_cipher_static_gettable(void *provctx)
{
    return cptprov_cipher_gettable_params(provctx);
}

/*
 * One algorithm: its parameter row, newctx, get_params and dispatch table.
 * kind is aead or generic: which context parameters it lists.
 */
#define CPTPROV_CIPHER(lc, ID, NAME, MODE, keybytes, ivbytes, maxiv, blkbytes, kind)     \
    static const struct cptprov_cipher_alg cptprov_##lc##_alg = {                 \
        ID, NAME, MODE, keybytes, ivbytes, blkbytes, AEAD_##kind, CUSTOM_IV_##kind,  \
        maxiv, CHACHA_##kind                                                      \
    };                                                                            \
    static void *cptprov_##lc##_newctx(void *provctx)                             \
    {                                                                             \
        return cptprov_cipher_newctx(provctx, &cptprov_##lc##_alg);               \
    }                                                                             \
    static int cptprov_##lc##_get_params(OSSL_PARAM params[])                     \
    {                                                                             \
        return cipher_get_params(params, &cptprov_##lc##_alg);                    \
    }                                                                             \
    static const OSSL_DISPATCH cptprov_##lc##_functions[] = {                     \
        { OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))cptprov_##lc##_newctx },       \
        { OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))cptprov_cipher_freectx },     \
        { OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))cptprov_cipher_dupctx },       \
        { OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))cptprov_cipher_einit },   \
        { OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))cptprov_cipher_dinit },   \
        { OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))cptprov_cipher_update },       \
        { OSSL_FUNC_CIPHER_FINAL, (void (*)(void))cptprov_cipher_final },         \
        { OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))cptprov_cipher_cipher },       \
        { OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))cptprov_##lc##_get_params }, \
        { OSSL_FUNC_CIPHER_GET_CTX_PARAMS,                                        \
            (void (*)(void))cptprov_cipher_get_ctx_params },                      \
        { OSSL_FUNC_CIPHER_SET_CTX_PARAMS,                                        \
            (void (*)(void))cptprov_cipher_set_ctx_params },                      \
        { OSSL_FUNC_CIPHER_GETTABLE_PARAMS,                                       \
            (void (*)(void))cptprov_cipher_gettable_params },                     \
        { OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS,                                   \
            (void (*)(void))cptprov_##kind##_gettable_ctx_params },               \
        { OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS,                                   \
            (void (*)(void))cptprov_##kind##_settable_ctx_params },               \
        { 0, NULL }                                                               \
    };

/* What each kind is: AEAD, custom IV (EVP's flag), ChaCha's counter. */
#define AEAD_aead 1
#define CUSTOM_IV_aead 1
#define CHACHA_aead 0
#define AEAD_generic 0
#define CUSTOM_IV_generic 0
#define CHACHA_generic 0
#define AEAD_chacha 0
#define CUSTOM_IV_chacha 1
#define CHACHA_chacha 1
#define AEAD_chachapoly 1
#define CUSTOM_IV_chachapoly 1
#define CHACHA_chachapoly 1
CPTPROV_CIPHER(aes128gcm, CPT_ALG_AES_128_GCM, "AES-128-GCM", EVP_CIPH_GCM_MODE, 16, 12, 128, 1, aead)
CPTPROV_CIPHER(aes192gcm, CPT_ALG_AES_192_GCM, "AES-192-GCM", EVP_CIPH_GCM_MODE, 24, 12, 128, 1, aead)
CPTPROV_CIPHER(aes256gcm, CPT_ALG_AES_256_GCM, "AES-256-GCM", EVP_CIPH_GCM_MODE, 32, 12, 128, 1, aead)
CPTPROV_CIPHER(aes128cbc, CPT_ALG_AES_128_CBC, "AES-128-CBC", EVP_CIPH_CBC_MODE, 16, 16, 16, 16, generic)
CPTPROV_CIPHER(aes192cbc, CPT_ALG_AES_192_CBC, "AES-192-CBC", EVP_CIPH_CBC_MODE, 24, 16, 16, 16, generic)
CPTPROV_CIPHER(aes256cbc, CPT_ALG_AES_256_CBC, "AES-256-CBC", EVP_CIPH_CBC_MODE, 32, 16, 16, 16, generic)
CPTPROV_CIPHER(aes128ctr, CPT_ALG_AES_128_CTR, "AES-128-CTR", EVP_CIPH_CTR_MODE, 16, 16, 16, 1, generic)
CPTPROV_CIPHER(aes192ctr, CPT_ALG_AES_192_CTR, "AES-192-CTR", EVP_CIPH_CTR_MODE, 24, 16, 16, 1, generic)
CPTPROV_CIPHER(aes256ctr, CPT_ALG_AES_256_CTR, "AES-256-CTR", EVP_CIPH_CTR_MODE, 32, 16, 16, 1, generic)
CPTPROV_CIPHER(desede3cbc, CPT_ALG_DES_EDE3_CBC, "DES-EDE3-CBC", EVP_CIPH_CBC_MODE, 24, 8, 8, 8, generic)
CPTPROV_CIPHER(chacha20, CPT_ALG_CHACHA20, "ChaCha20", 0, 32, 16, 16, 1, chacha)
CPTPROV_CIPHER(chacha20poly1305, CPT_ALG_CHACHA20_POLY1305, "ChaCha20-Poly1305", 0, 32, 12, 12, 1,
    chachapoly)

/*
 * The CPU path's twins: OpenSSL's default implementations, fetched once
 * per algorithm from cptprov's own library context.
 */
static EVP_CIPHER *cpu_ciphers[64];
static pthread_mutex_t cpu_ciphers_lock = PTHREAD_MUTEX_INITIALIZER;

static EVP_CIPHER *cpu_cipher(const struct cptprov_cipher_alg *a)
{
    EVP_CIPHER *c;
    OSSL_LIB_CTX *lc;

    if (a->id < 0 || a->id >= 64)
        return NULL;
    pthread_mutex_lock(&cpu_ciphers_lock);
    if ((c = cpu_ciphers[a->id]) == NULL && (lc = cptprov_cpu_libctx()) != NULL)
        c = cpu_ciphers[a->id] = EVP_CIPHER_fetch(lc, a->name, "provider=default");
    pthread_mutex_unlock(&cpu_ciphers_lock);
    return c;
}

/* Names and aliases as the default provider spells them. */
const OSSL_ALGORITHM cptprov_ciphers[] = {
    { "AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", CPTPROV_PROPS,
        cptprov_aes128gcm_functions, "AES-128-GCM on the CPT" },
    { "AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", CPTPROV_PROPS,
        cptprov_aes192gcm_functions, "AES-192-GCM on the CPT" },
    { "AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", CPTPROV_PROPS,
        cptprov_aes256gcm_functions, "AES-256-GCM on the CPT" },
    { "AES-128-CBC:AES128:2.16.840.1.101.3.4.1.2", CPTPROV_PROPS, cptprov_aes128cbc_functions,
        "AES-128-CBC on the CPT" },
    { "AES-192-CBC:AES192:2.16.840.1.101.3.4.1.22", CPTPROV_PROPS, cptprov_aes192cbc_functions,
        "AES-192-CBC on the CPT" },
    { "AES-256-CBC:AES256:2.16.840.1.101.3.4.1.42", CPTPROV_PROPS, cptprov_aes256cbc_functions,
        "AES-256-CBC on the CPT" },
    { "AES-128-CTR", CPTPROV_PROPS, cptprov_aes128ctr_functions, "AES-128-CTR on the CPT" },
    { "AES-192-CTR", CPTPROV_PROPS, cptprov_aes192ctr_functions, "AES-192-CTR on the CPT" },
    { "AES-256-CTR", CPTPROV_PROPS, cptprov_aes256ctr_functions, "AES-256-CTR on the CPT" },
    { "DES-EDE3-CBC:DES3:1.2.840.113549.3.7", CPTPROV_PROPS, cptprov_desede3cbc_functions,
        "DES-EDE3-CBC on the CPT" },
    { "ChaCha20", CPTPROV_PROPS, cptprov_chacha20_functions, "ChaCha20 on the CPT" },
    { "ChaCha20-Poly1305", CPTPROV_PROPS, cptprov_chacha20poly1305_functions,
        "ChaCha20-Poly1305 on the CPT" },
    { "AES-128-CBC-HMAC-SHA1", CPTPROV_PROPS, cptprov_aes128cbchmacsha1_functions,
        "AES-128-CBC-HMAC-SHA1 on the CPT (TLS records: one chained instruction)" },
    { "AES-256-CBC-HMAC-SHA1", CPTPROV_PROPS, cptprov_aes256cbchmacsha1_functions,
        "AES-256-CBC-HMAC-SHA1 on the CPT (TLS records: one chained instruction)" },
    { "AES-128-CBC-HMAC-SHA256", CPTPROV_PROPS, cptprov_aes128cbchmacsha256_functions,
        "AES-128-CBC-HMAC-SHA256 on the CPT (TLS records: one chained instruction)" },
    { "AES-256-CBC-HMAC-SHA256", CPTPROV_PROPS, cptprov_aes256cbchmacsha256_functions,
        "AES-256-CBC-HMAC-SHA256 on the CPT (TLS records: one chained instruction)" },
    { NULL, NULL, NULL, NULL }
};
