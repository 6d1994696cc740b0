/* SPDX-License-Identifier: Apache-2.0 */
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
#include <limits.h>
#include <string.h>
#include <openssl/err.h>
#include "cipher.h"

/* Starts a stream in the twin too. */
void cptprov_stream_cpu_init(struct cptprov_cipher_ctx *c, const unsigned char *key,
    const unsigned char *iv, int enc)
{
    struct cipher_cpu *cp = &c->cpu;

    if (iv == NULL && c->path.side != CPT_SIDE_CPU) {
        /*
         * The device holds the stream, and a re-init without an IV goes on
         * from its state (CTR's counter, CBC's last IV): the stream stays
         * there and the twin only learns the key, for the next crossing.
         */
        if (key != NULL && !EVP_CipherInit_ex2(cipher_twin(c), NULL, key, NULL, enc, NULL))
            cpt_path_drop(&c->path);
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
    c->path.side = EVP_CipherInit_ex2(cipher_twin(c), NULL, key, iv, enc, NULL)
            && EVP_CIPHER_CTX_set_padding(cipher_twin(c), cp->pad)
        ? CPT_SIDE_CPU
        : CPT_SIDE_DEVICE;
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
static int stream_to_device(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cipher_cpu *cp = &c->cpu;
    struct cpt_stream_state s;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api;

    if (c->path.side != CPT_SIDE_CPU)
        return 1;
    memset(&s, 0, sizeof(s));
    if (c->alg->chacha) {
        /* the device's IV names the current keystream block */
        memcpy(s.iv, cp->civ, sizeof(s.iv));
        chacha_counter_add(s.iv, cp->cbytes / 64);
        s.num = (uint32_t)(cp->cbytes % 64);
    } else if (!cptprov_twin_iv(cipher_twin(c), s.iv, sizeof(s.iv))) {
        CPT_RAISE(c->prov, CPT_R_INTERNAL, "reading the CPU path's IV");
        return 0;
    } else {
        s.num = (uint32_t)EVP_CIPHER_CTX_get_num(cipher_twin(c));
    }
    s.buf_len = (uint32_t)cp->held;
    memcpy(s.buf, cp->tail + sizeof(cp->tail) - cp->held, cp->held);
    s.pad = cp->pad;
    s.enc = cp->enc;
    if ((api = cptprov_cipher_go(c)) == NULL)
        return 0;
    if (api->cipher_import(c->alg->id, c->state, &c->pending, &s, &st) != CPT_OK) {
        cptprov_raise_status(c->prov, &st, "cipher_import");
        return 0;
    }
    return 1;
}

/* Takes the stream from the device path into the twin; -1 leaves it there. */
static int stream_to_cpu(void *vctx)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cipher_cpu *cp = &c->cpu;
    EVP_CIPHER_CTX *twin = cipher_twin(c);
    struct cpt_stream_state s;
    struct cpt_status st = { 0, "" };
    const struct cptgo_api *api = c->go_seen ? cptprov_go_if_running() : NULL;
    unsigned char junk[64], zero[64] = { 0 };
    int n, ok;

    if (twin == NULL || api == NULL
        || api->cipher_export(c->alg->id, c->state, &c->pending, &s, &st) != CPT_OK
        || s.buf_len > sizeof(s.buf) || s.num >= (c->alg->chacha ? 64u : 16u))
        return -1;
    if (s.num != 0
        && !c->alg->chacha) { /* regenerate the keystream block from the counter before */
        for (int i = 15; i >= 0 && s.iv[i]-- == 0; i--)
            ;
    }
    memcpy(cp->civ, s.iv, sizeof(cp->civ));
    cp->cbytes = s.num;
    ok = EVP_CipherInit_ex2(twin, NULL, NULL, s.iv, s.enc, NULL)
        && EVP_CIPHER_CTX_set_padding(twin, s.pad)
        && EVP_CipherUpdate(twin, junk, &n, s.num != 0 ? zero : s.buf,
            (int)(s.num != 0 ? s.num : s.buf_len))
        && n == (s.num != 0 ? (int)s.num : 0);
    if (!ok) {
        ERR_clear_error();
        return -1;
    }
    cp->enc = s.enc;
    cp->pad = s.pad;
    cp->held = s.buf_len;
    memcpy(cp->tail + sizeof(cp->tail) - s.buf_len, s.buf, s.buf_len);
    return 1;
}

/* Feeds an update to the twin, keeping what the hand-over needs (EVP
 * checked outsize; EVP_Cipher()'s run on the device). */
static int stream_cpu_update(void *vctx, const struct cpt_path_io *io)
{
    struct cptprov_cipher_ctx *c = vctx;
    struct cipher_cpu *cp = &c->cpu;
    const unsigned char *in = io->in;
    size_t inl = io->inl, total = cp->held + inl, keep, bs = c->alg->blocksize;
    int n;

    if (bs == 1) {
        /* A stream mode buffers nothing: EVP_Cipher goes straight to the
         * default provider's cipher function, a few ns under
         * EVP_CipherUpdate's checks, which is a tenth of a 64-byte call. */
        if (inl > INT_MAX || (n = EVP_Cipher(cipher_twin(c), io->out, in, (unsigned int)inl)) < 0)
            return 0;
    } else if (!EVP_CipherUpdate(cipher_twin(c), io->out, &n, in, (int)inl)) {
        return 0;
    }
    *io->outl = (size_t)n;
    cpt_path_tally(&c->path, inl);
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

static int stream_cpu_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    struct cptprov_cipher_ctx *c = vctx;
    int n;

    (void)outsize;
    if (!EVP_CipherFinal_ex(cipher_twin(c), out, &n))
        return 0;
    *outl = (size_t)n;
    c->cpu.held = 0;
    return 1;
}

/* The stream stays where it is after a final: an update without a new
 * init goes on from there, as in OpenSSL. */
const struct cpt_path_hw cptprov_cipher_stream_path = { stream_to_cpu, stream_to_device,
    stream_cpu_update, cptprov_cipher_device_update, stream_cpu_final, cptprov_cipher_device_final,
    cpt_twin_cipher_dup, cpt_twin_cipher_free, 0 };
