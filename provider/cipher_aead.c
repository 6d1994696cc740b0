/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AEADs (AES-GCM, ChaCha20-Poly1305): a whole message runs on one side,
 * chosen at its first data update (below the threshold, the twin); AAD
 * before it waits in the context. A message the device ran usually
 * finishes in C: the device leaves its tag in the state's shared head
 * (struct cpt_aead_shadow), and final only hands it over or compares it.
 */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include "cipher.h"

/* Starts a message, undecided, in the twin too. */
void cptprov_aead_cpu_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, size_t ivlen, int enc)
{
    struct cipher_cpu *cp = &c->cpu;
    /* EVP hands the twin its own IV length: a GCM IV of another length
     * sets that first. */
    OSSL_PARAM len[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

    if (iv != NULL && ivlen != cp->twin_ivlen) {
        len[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen);
        cp->twin_ivlen = ivlen;
    }
    if ((len[0].key != NULL && !EVP_CIPHER_CTX_set_params(cipher_twin(c), len))
        || !EVP_CipherInit_ex2(cipher_twin(c), NULL, key, iv, enc, NULL))
        cpt_path_drop(&c->path);
    c->path.side = CPT_SIDE_NONE;
    cp->aad_len = 0;
    cp->enc = enc;
    cp->iv_fresh = iv != NULL;
}

void cptprov_aead_init_pending(struct cptprov_cipher_ctx *c, int has_iv)
{
    struct cpt_aead_shadow *sh = cipher_shadow(c);

    sh->final_ready = 0; /* the message is no longer the one Go saw */
    if (has_iv && sh->final_done == CPT_FINAL_DONE_IV_USED)
        sh->final_done = 1; /* a new IV replaces the used one */
}

/* Whether an AEAD context's message may run in the twin. */
static int aead_cpu(const struct cptprov_cipher_ctx *c)
{
    return cipher_twin(c) != NULL && c->cpu.tls == CPT_TLS_NONE;
}

/* A twin's answer: a refusal it gave no reason for gets cptprov's (the
 * default provider refuses some settings silently). */
static int twin_said(struct cptprov_cipher_ctx *c, int ok, int reason, const char *what)
{
    if (!ok && ERR_peek_last_error() == c->cpu.twin_err)
        CPT_RAISE(c->prov, reason, "%s refused on the CPU path", what);
    return ok;
}

/* TWIN(c, call, ...): twin_said of call, the error queue's last entry
 * taken before it (the comma orders the two). */
#define TWIN(c, call, reason, what) \
    ((c)->cpu.twin_err = ERR_peek_last_error(), twin_said((c), (call), (reason), (what)))

/*
 * libssl's records, a handful per handshake, are each a call into Go on
 * the device path; below the threshold they are the default provider's
 * own work in the twin, which the twin then does whole: the record's
 * nonce, AAD and tag rules are OpenSSL's, and nothing of the context is
 * ever Go's. Only a context Go has not seen, whose message (if any) is the
 * twin's, can go.
 */
int cptprov_aead_tls_twin_set(struct cptprov_cipher_ctx *c, const OSSL_PARAM params[])
{
    if (c->cpu.tls != CPT_TLS_TWIN) {
        if (!c->alg->aead || cipher_twin(c) == NULL || c->go_seen || c->cpu.aad_len != 0
            || c->path.side == CPT_SIDE_DEVICE || c->cpu.tls != CPT_TLS_NONE
            || c->prov->cpu_threshold[c->alg->id] <= CPT_TLS_MAX_RECORD
            || !cptprov_cipher_tls_setting(params))
            return -1;
        c->cpu.tls = CPT_TLS_TWIN;
        c->path.side = CPT_SIDE_CPU;
    }
    return TWIN(c, EVP_CIPHER_CTX_set_params(cipher_twin(c), params), CPT_R_BAD_PARAMETER,
        "a setting");
}

/* The calls on a context the twin has whole. */
int cptprov_aead_tls_twin_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, const OSSL_PARAM params[], int enc)
{
    return TWIN(c, EVP_CipherInit_ex2(cipher_twin(c), NULL, key, iv, enc, params),
        CPT_R_BAD_PARAMETER, "an init");
}

int cptprov_aead_tls_twin_get(struct cptprov_cipher_ctx *c, OSSL_PARAM params[])
{
    return TWIN(c, EVP_CIPHER_CTX_get_params(cipher_twin(c), params), CPT_R_BAD_PARAMETER,
        "a query");
}

/* Whether a message not yet decided may still become the twin's. */
static int aead_cpu_open(const struct cptprov_cipher_ctx *c)
{
    return c->path.side == CPT_SIDE_NONE && (c->alg->chacha || c->cpu.iv_fresh);
}

/* The message is the device's: the AAD held back goes to Go first. */
static int aead_to_device(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cipher_cpu *cp = &c->cpu;
    const struct cptgo_api *api;
    struct cpt_status st = { 0, "" };
    size_t outl = 0;
    int rc;

    if (cp->aad_len == 0)
        return 1;
    if ((api = cptprov_cipher_go(c)) == NULL)
        return 0;
    rc = api->cipher_update(c->alg->id, c->state, &c->pending, NULL, &outl, 0, cp->aad, cp->aad_len,
        NULL, &st);
    cp->aad_len = 0;
    if (rc != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_update");
        return 0;
    }
    return 1;
}

/* Feeds the AAD held back to the twin: the message is the CPU's. */
static int aead_to_cpu(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cipher_cpu *cp = &c->cpu;
    int n;

    if (cp->aad_len != 0 && !EVP_CipherUpdate(cipher_twin(c), NULL, &n, cp->aad, (int)cp->aad_len))
        return 0;
    cp->aad_len = 0;
    return 1;
}

static int aead_cpu_update(void *vctx, const struct cpt_path_io *io)
{
    struct cptprov_cipher_ctx *c = vctx;
    int n;

    if (!EVP_CipherUpdate(cipher_twin(c), io->out, &n, io->in, (int)io->inl))
        return 0;
    *io->outl = (size_t)n;
    if (io->out != NULL)
        cpt_path_tally(&c->path, io->inl);
    return 1;
}

/*
 * An update. AAD waits until the first data says where the message runs:
 * below the threshold, in the twin.
 */
int cptprov_aead_update(struct cptprov_cipher_ctx *c, unsigned char *out, size_t *outl,
    size_t outsize, const unsigned char *in, size_t inl)
{
    struct cipher_cpu *cp = &c->cpu;
    int cpu = aead_cpu(c) && (c->path.side == CPT_SIDE_CPU || aead_cpu_open(c));

    if (c->cpu.tls == CPT_TLS_TWIN) {
        return TWIN(c, aead_cpu_update(c, &(struct cpt_path_io){ out, outl, outsize, in, inl, 0 }),
            CPT_R_OPERATION_FAILED, "a record");
    }
    if (cpu && c->path.side == CPT_SIDE_NONE) {
        if (inl == 0)
            return 1;
        if (out == NULL && inl <= sizeof(cp->aad) - cp->aad_len) {
            memcpy(cp->aad + cp->aad_len, in, inl);
            cp->aad_len += inl;
            return 1;
        }
        cpu = out != NULL && cpt_path_short(&c->path, inl);
    }
    return cpt_path_update(&c->path, c, cpu,
        &(struct cpt_path_io){ out, outl, outsize, in, inl, 0 });
}

/* Finishes a message the twin holds (or one with no data yet). */
static int aead_cpu_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cpt_aead_shadow *sh = cipher_shadow(c);
    OSSL_PARAM tag[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
    int n, enc = c->cpu.enc;

    (void)outsize;
    /* Go learns at its next call that this message is over; GCM's IV is
     * then used up, whatever the outcome, as in OpenSSL. */
    sh->final_done = 1;
    if (!c->alg->chacha) {
        if (c->pending.valid && c->pending.has_iv)
            sh->final_done = CPT_FINAL_DONE_IV_USED;
        c->cpu.iv_fresh = 0;
    }
    if (!enc) {
        if (sh->tag_len == 0 || sh->tag_len > sizeof(sh->tag)) {
            CPT_RAISE(c->prov, CPT_R_INVALID_TAG, "no tag set before final of a decryption");
            return 0;
        }
        tag[0] =
            OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, sh->tag, sh->tag_len);
        if (!EVP_CIPHER_CTX_set_params(cipher_twin(c), tag)) {
            CPT_RAISE(c->prov, CPT_R_INTERNAL, "handing the tag to the CPU path");
            return 0;
        }
    }
    if (!EVP_CipherFinal_ex(cipher_twin(c), out, &n)) {
        ERR_clear_error();
        CPT_RAISE(c->prov, CPT_R_AUTH_FAILED, "tag verification failed");
        return 0;
    }
    *outl = 0;
    if (enc) {
        tag[0] =
            OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, sh->tag, sizeof(sh->tag));
        if (!EVP_CIPHER_CTX_get_params(cipher_twin(c), tag)) {
            CPT_RAISE(c->prov, CPT_R_INTERNAL, "reading the CPU path's tag");
            return 0;
        }
        sh->tag_len = sizeof(sh->tag);
    }
    return 1;
}

/*
 * After a data update the device has left the message's tag in the shared
 * head of the state: final then has nothing to compute, only to hand the tag
 * over or compare it (in constant time), and Go catches up at its next call.
 */
static int final_in_c(struct cptprov_cipher_ctx *c)
{
    struct cpt_aead_shadow *sh = cipher_shadow(c);

    if (!sh->final_ready || c->pending.valid)
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

int cptprov_aead_final(struct cptprov_cipher_ctx *c, unsigned char *out, size_t *outl,
    size_t outsize)
{
    int n;

    if (c->cpu.tls == CPT_TLS_TWIN) {
        if (!TWIN(c, EVP_CipherFinal_ex(cipher_twin(c), out, &n), CPT_R_OPERATION_FAILED,
                "a final"))
            return 0;
        *outl = (size_t)n;
        return 1;
    }
    if (final_in_c(c)) {
        c->path.side = CPT_SIDE_NONE;
        return 1;
    }
    return cpt_path_final(&c->path, c,
        aead_cpu(c) && (c->path.side == CPT_SIDE_CPU || aead_cpu_open(c)), out, outl, outsize);
}

const struct cpt_path_hw cptprov_cipher_aead_path = { aead_to_cpu, aead_to_device, aead_cpu_update,
    cptprov_cipher_device_update, aead_cpu_final, cptprov_cipher_device_final, cpt_twin_cipher_dup,
    cpt_twin_cipher_free, 1 };
