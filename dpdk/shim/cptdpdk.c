/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cptdpdk: the C shim between cptprov's Go DPDK backend and DPDK's
 * cryptodev library. The contract is cptdpdk.h; notes on the choices made
 * here:
 *
 * - Log levels. The header speaks syslog's scale (3 error .. 7 debug);
 *   DPDK's RTE_LOG_* are one higher (RTE_LOG_ERR is 4). The callback gets
 *   syslog levels, and loglevel is taken on the same scale (converted to
 *   DPDK's before rte_log_set_global_level).
 * - Once this image has run rte_eal_init (successfully), eal_init returns -2
 *   without calling the EAL again: its "already called" path writes a
 *   FATAL line to stderr itself, which the host must not see. The EALREADY
 *   check remains for an EAL started by someone else.
 * - Per request bookkeeping lives in the op's private area, behind the
 *   symmetric or asymmetric op. The ops a device holds are on a per queue
 *   pair list so that dev_stop can hand them back as CPTDPDK_ERROR: a
 *   stopped device's burst functions are DPDK's dummies, and
 *   dev_restart sets the queue pairs up again, which drops what the
 *   device still held.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* The asym capability and session pool calls are experimental in 22.11. */
#ifndef ALLOW_EXPERIMENTAL_API
#define ALLOW_EXPERIMENTAL_API
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_version.h>

#include "cptdpdk.h"

#define BURST 32
#define AAD_MAX 64
#define DIGEST_MAX 64
#define IV_MAX 16
#define ASYM_MAX 1024 /* modexp base, result and modulus, bytes */
#define DATA_MAX 65000u

/* Bookkeeping of one request, in its op's private area. */
struct book {
    uint64_t tag_id;
    uint8_t *out;
    uint8_t *tag;
    uint32_t len; /* AEAD/CIPHER data length, AUTH digest length, MODEXP outlen */
    uint32_t taglen;
    uint32_t kind;
    uint32_t encrypt; /* AEAD: copy the digest to tag at dequeue */
    uint32_t gen; /* the device's stop generation at enqueue */
    struct rte_crypto_op *prev, *next; /* the queue pair's in-flight list */
};

/* The private area of a symmetric op; iv must stay first (IV_OFF). */
struct sym_priv {
    uint8_t iv[IV_MAX];
    uint8_t aad[AAD_MAX];
    uint8_t digest[DIGEST_MAX];
    struct book b;
};

struct asym_priv {
    struct book b;
    uint8_t base[ASYM_MAX];
    uint8_t result[ASYM_MAX];
};

#define SYM_PRIV_OFF (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))
#define ASYM_PRIV_OFF (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_asym_op))
#define IV_OFF (SYM_PRIV_OFF + offsetof(struct sym_priv, iv))

struct qp {
    struct rte_crypto_op *head; /* in flight (device or stale) */
    uint32_t seen_gen; /* ops of older generations were stopped */
    /* Requests the shim completes itself (zero-length cipher: nothing to
     * do, and crypto_aesni_mb crashes on an empty AES-CBC decryption). */
    struct cptdpdk_done *local;
    uint32_t local_head, local_n;
};

struct dev {
    bool started; /* configured, pools made */
    atomic_bool stopped;
    atomic_uint gen; /* bumped by every dev_stop */
    uint32_t nqp, depth, max_data;
    uint32_t algs, max_modlen; /* from the capabilities, at eal_init */
    struct qp *qps;
    struct rte_mempool *sym_ops, *asym_ops, *mbufs, *sym_sess, *asym_sess;
};

/* A session as the caller holds it. */
struct sess {
    void *dsess;
    int dev;
    uint32_t kind; /* CPTDPDK_OP_* */
    uint32_t encrypt;
    uint32_t ivlen, aadlen, taglen, digestlen;
    uint32_t modlen, explen;
    uint8_t *mod, *exp;
};

static struct dev devs[RTE_CRYPTO_MAX_DEVS];
static uint32_t dev_algs(int dev, uint32_t *max_modlen);
static atomic_int eal_done; /* this image ran rte_eal_init */
static atomic_uint pool_seq; /* pool names: unique per process */

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static struct dev *getdev(int dev)
{
    if (dev < 0 || dev >= RTE_CRYPTO_MAX_DEVS || !rte_cryptodev_is_valid_dev((uint8_t)dev))
        return NULL;
    return &devs[dev];
}

static inline struct sym_priv *sym_priv(struct rte_crypto_op *op)
{
    return (struct sym_priv *)((uint8_t *)op + SYM_PRIV_OFF);
}

static inline struct asym_priv *asym_priv(struct rte_crypto_op *op)
{
    return (struct asym_priv *)((uint8_t *)op + ASYM_PRIV_OFF);
}

static inline struct book *book_of(struct rte_crypto_op *op)
{
    return op->type == RTE_CRYPTO_OP_TYPE_ASYMMETRIC ? &asym_priv(op)->b : &sym_priv(op)->b;
}

/* ---- logging ---- */

struct logck {
    cptdpdk_log_fn fn;
    size_t n;
    char line[1024];
};
static struct logck logck;

static int cur_level(void)
{
    int l = rte_log_cur_msg_loglevel();

    /* DPDK's levels are syslog's plus one; outside rte_log (a dump to the
     * stream) there is no level: info. */
    if (l < (int)RTE_LOG_EMERG || l > (int)RTE_LOG_DEBUG)
        return 6;
    return l - 1;
}

static void log_flush(struct logck *l, int level)
{
    if (l->n > 0 && l->fn != NULL)
        l->fn(level, l->line, l->n);
    l->n = 0;
}

/* The stream's lock serialises the writes (one per vfprintf, unbuffered). */
static ssize_t log_write(void *c, const char *buf, size_t size)
{
    struct logck *l = c;
    int level = cur_level();

    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n') {
            log_flush(l, level);
            continue;
        }
        if (l->n == sizeof(l->line))
            log_flush(l, level);
        l->line[l->n++] = buf[i];
    }
    return (ssize_t)size;
}

/* ---- EAL ---- */

int cptdpdk_eal_init(int argc, char **argv, cptdpdk_log_fn log, int loglevel, char *err,
    size_t errlen)
{
    cookie_io_functions_t fns = { .write = log_write };
    cpu_set_t cpus;
    bool have_cpus;
    char **av;
    FILE *f;
    int ret, e;

    if (atomic_load(&eal_done)) {
        seterr(err, errlen, "the EAL was initialised in this process image already");
        return -2;
    }
    if (argc < 1 || argv == NULL) {
        seterr(err, errlen, "no argv[0]");
        return -1;
    }
    logck.fn = log;
    logck.n = 0;
    f = fopencookie(&logck, "w", fns);
    if (f == NULL) {
        seterr(err, errlen, "fopencookie: %s", strerror(errno));
        return -1;
    }
    setvbuf(f, NULL, _IONBF, 0);
    rte_openlog_stream(f);
    loglevel += 1; /* syslog's to DPDK's */
    if (loglevel < (int)RTE_LOG_EMERG)
        loglevel = (int)RTE_LOG_EMERG;
    if (loglevel > (int)RTE_LOG_DEBUG)
        loglevel = (int)RTE_LOG_DEBUG;
    rte_log_set_global_level((uint32_t)loglevel);

    /* rte_eal_init permutes its argv: give it a copy of the array. */
    av = calloc((size_t)argc + 1, sizeof(*av));
    if (av == NULL) {
        seterr(err, errlen, "out of memory");
        return -1;
    }
    memcpy(av, argv, (size_t)argc * sizeof(*av));
    have_cpus = pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0;
    ret = rte_eal_init(argc, av);
    e = rte_errno;
    if (have_cpus)
        pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
    free(av);
    if (ret < 0) {
        if (e == EALREADY) {
            seterr(err, errlen, "the EAL was initialised in this process image already");
            return -2;
        }
        seterr(err, errlen, "rte_eal_init: %s", rte_strerror(e));
        return -1;
    }
    atomic_store(&eal_done, 1);
    /* The EAL's run directory (/var/run/dpdk/<prefix>) holds nothing of an
     * instance without shared configuration or telemetry, and would stay
     * behind the process: a directory for every worker a server ever ran.
     * rmdir removes it only if it is indeed empty. */
    rmdir(rte_eal_get_runtime_dir());
    for (int d = 0; d < RTE_CRYPTO_MAX_DEVS; d++)
        if (rte_cryptodev_is_valid_dev((uint8_t)d))
            devs[d].algs = dev_algs(d, &devs[d].max_modlen);
    return rte_cryptodev_count();
}

int cptdpdk_dev_find(const char *name)
{
    int id;

    if (name == NULL)
        return -1;
    id = rte_cryptodev_get_dev_id(name);
    if (id >= 0)
        return id;
    /* A PCI address: the name of the device under the cryptodev. */
    for (int d = 0; d < RTE_CRYPTO_MAX_DEVS; d++) {
        struct rte_cryptodev_info info;

        if (!rte_cryptodev_is_valid_dev((uint8_t)d))
            continue;
        memset(&info, 0, sizeof(info));
        rte_cryptodev_info_get((uint8_t)d, &info);
        if (info.device != NULL && strcmp(rte_dev_name(info.device), name) == 0)
            return d;
    }
    return -1;
}

/* ---- capabilities ---- */

static const struct rte_cryptodev_symmetric_capability *symcap(int dev,
    enum rte_crypto_sym_xform_type type, int algo)
{
    struct rte_cryptodev_sym_capability_idx idx;

    memset(&idx, 0, sizeof(idx));
    idx.type = type;
    switch (type) {
    case RTE_CRYPTO_SYM_XFORM_AEAD:
        idx.algo.aead = (enum rte_crypto_aead_algorithm)algo;
        break;
    case RTE_CRYPTO_SYM_XFORM_CIPHER:
        idx.algo.cipher = (enum rte_crypto_cipher_algorithm)algo;
        break;
    default:
        idx.algo.auth = (enum rte_crypto_auth_algorithm)algo;
        break;
    }
    return rte_cryptodev_sym_capability_get((uint8_t)dev, &idx);
}

static const uint16_t aes_keys[] = { 16, 24, 32 };

static bool aead_ok(int dev, enum rte_crypto_aead_algorithm algo, const uint16_t *keys, int nkeys)
{
    const struct rte_cryptodev_symmetric_capability *c =
        symcap(dev, RTE_CRYPTO_SYM_XFORM_AEAD, algo);

    if (c == NULL)
        return false;
    for (int k = 0; k < nkeys; k++)
        for (uint16_t aad = 0; aad <= AAD_MAX; aad++)
            if (rte_cryptodev_sym_capability_check_aead(c, keys[k], 16, aad, 12) != 0)
                return false;
    return true;
}

static bool cipher_ok(int dev, enum rte_crypto_cipher_algorithm algo, const uint16_t *keys,
    int nkeys, uint16_t iv)
{
    const struct rte_cryptodev_symmetric_capability *c =
        symcap(dev, RTE_CRYPTO_SYM_XFORM_CIPHER, algo);

    if (c == NULL)
        return false;
    for (int k = 0; k < nkeys; k++)
        if (rte_cryptodev_sym_capability_check_cipher(c, keys[k], iv) != 0)
            return false;
    return true;
}

/* keymax 0: a plain hash (key size 0). */
static bool auth_ok(int dev, enum rte_crypto_auth_algorithm algo, uint16_t keymax, uint16_t digest)
{
    const struct rte_cryptodev_symmetric_capability *c =
        symcap(dev, RTE_CRYPTO_SYM_XFORM_AUTH, algo);

    if (c == NULL)
        return false;
    if (keymax == 0)
        return rte_cryptodev_sym_capability_check_auth(c, 0, digest, 0) == 0;
    for (uint16_t k = 1; k <= keymax; k++)
        if (rte_cryptodev_sym_capability_check_auth(c, k, digest, 0) != 0)
            return false;
    return true;
}

struct authalg {
    uint32_t bit;
    enum rte_crypto_auth_algorithm algo;
    uint16_t block, digest;
    bool hmac;
};

static const struct authalg authalgs[] = {
    { CPTDPDK_SHA1, RTE_CRYPTO_AUTH_SHA1, 64, 20, false },
    { CPTDPDK_SHA224, RTE_CRYPTO_AUTH_SHA224, 64, 28, false },
    { CPTDPDK_SHA256, RTE_CRYPTO_AUTH_SHA256, 64, 32, false },
    { CPTDPDK_SHA384, RTE_CRYPTO_AUTH_SHA384, 128, 48, false },
    { CPTDPDK_SHA512, RTE_CRYPTO_AUTH_SHA512, 128, 64, false },
    { CPTDPDK_HMAC_SHA1, RTE_CRYPTO_AUTH_SHA1_HMAC, 64, 20, true },
    { CPTDPDK_HMAC_SHA224, RTE_CRYPTO_AUTH_SHA224_HMAC, 64, 28, true },
    { CPTDPDK_HMAC_SHA256, RTE_CRYPTO_AUTH_SHA256_HMAC, 64, 32, true },
    { CPTDPDK_HMAC_SHA384, RTE_CRYPTO_AUTH_SHA384_HMAC, 128, 48, true },
    { CPTDPDK_HMAC_SHA512, RTE_CRYPTO_AUTH_SHA512_HMAC, 128, 64, true },
};

static const struct authalg *authalg(uint32_t bit)
{
    for (size_t i = 0; i < RTE_DIM(authalgs); i++)
        if (authalgs[i].bit == bit)
            return &authalgs[i];
    return NULL;
}

static const struct rte_cryptodev_asymmetric_xform_capability *modexp_cap(int dev)
{
    struct rte_cryptodev_asym_capability_idx idx;

    memset(&idx, 0, sizeof(idx));
    idx.type = RTE_CRYPTO_ASYM_XFORM_MODEX;
    return rte_cryptodev_asym_capability_get((uint8_t)dev, &idx);
}

/*
 * crypto_aesni_mb (DPDK 22.11, intel-ipsec-mb 1.3.0, measured on an AMD
 * EPYC): one HMAC request of an empty message gets a wrong digest and
 * leaves the queue pair's multi-buffer manager broken: every later HMAC
 * digest on it is wrong too (plain SHA is not affected). cptprov has empty
 * HMAC messages, so the device does not offer HMAC.
 */
static bool quirk_no_hmac(int dev)
{
    struct rte_cryptodev_info di;

    memset(&di, 0, sizeof(di));
    rte_cryptodev_info_get((uint8_t)dev, &di);
    return di.driver_name != NULL && strcmp(di.driver_name, "crypto_aesni_mb") == 0;
}

static uint32_t dev_algs(int dev, uint32_t *max_modlen)
{
    static const uint16_t key32[] = { 32 }, key24[] = { 24 };
    const struct rte_cryptodev_asymmetric_xform_capability *ac;
    uint32_t algs = 0;

    if (aead_ok(dev, RTE_CRYPTO_AEAD_AES_GCM, aes_keys, 3))
        algs |= CPTDPDK_AES_GCM;
    if (aead_ok(dev, RTE_CRYPTO_AEAD_CHACHA20_POLY1305, key32, 1))
        algs |= CPTDPDK_CHACHAPOLY;
    if (cipher_ok(dev, RTE_CRYPTO_CIPHER_AES_CBC, aes_keys, 3, 16))
        algs |= CPTDPDK_AES_CBC;
    if (cipher_ok(dev, RTE_CRYPTO_CIPHER_AES_CTR, aes_keys, 3, 16))
        algs |= CPTDPDK_AES_CTR;
    if (cipher_ok(dev, RTE_CRYPTO_CIPHER_3DES_CBC, key24, 1, 8))
        algs |= CPTDPDK_DES3_CBC;
    for (size_t i = 0; i < RTE_DIM(authalgs); i++) {
        const struct authalg *a = &authalgs[i];

        if (auth_ok(dev, a->algo, a->hmac ? a->block : 0, a->digest))
            algs |= a->bit;
    }
    *max_modlen = 0;
    ac = modexp_cap(dev);
    if (ac != NULL) {
        algs |= CPTDPDK_MODEXP;
        *max_modlen = ac->modlen.max;
    }
    if (*max_modlen == 0 || *max_modlen > ASYM_MAX)
        *max_modlen = ASYM_MAX; /* the op private area's buffers */
    if (!(algs & CPTDPDK_MODEXP))
        *max_modlen = 0;
    if (quirk_no_hmac(dev))
        algs &= ~(uint32_t)(CPTDPDK_HMAC_SHA1 | CPTDPDK_HMAC_SHA224 | CPTDPDK_HMAC_SHA256
            | CPTDPDK_HMAC_SHA384 | CPTDPDK_HMAC_SHA512);
    return algs;
}

int cptdpdk_dev_info(int dev, struct cptdpdk_info *info)
{
    struct rte_cryptodev_info di;
    struct dev *d = getdev(dev);

    if (d == NULL || info == NULL)
        return -1;
    memset(info, 0, sizeof(*info));
    memset(&di, 0, sizeof(di));
    rte_cryptodev_info_get((uint8_t)dev, &di);
    snprintf(info->name, sizeof(info->name), "%s", rte_cryptodev_name_get((uint8_t)dev));
    snprintf(info->driver, sizeof(info->driver), "%s",
        di.driver_name != NULL ? di.driver_name : "");
    info->max_qps = di.max_nb_queue_pairs;
    info->algs = d->algs;
    info->max_modlen = d->max_modlen;
    info->max_data = d->started ? d->max_data : 0;
    return 0;
}

/* ---- device start, stop, close ---- */

static void free_pools(struct dev *d)
{
    rte_mempool_free(d->sym_ops);
    rte_mempool_free(d->asym_ops);
    rte_mempool_free(d->mbufs);
    rte_mempool_free(d->sym_sess);
    rte_mempool_free(d->asym_sess);
    d->sym_ops = d->asym_ops = d->mbufs = d->sym_sess = d->asym_sess = NULL;
    if (d->qps != NULL)
        for (uint32_t q = 0; q < d->nqp; q++)
            free(d->qps[q].local);
    free(d->qps);
    d->qps = NULL;
}

static int setup_qps(int dev, struct dev *d, int socket, char *err, size_t errlen)
{
    for (uint32_t q = 0; q < d->nqp; q++) {
        struct rte_cryptodev_qp_conf qc;
        int ret;

        memset(&qc, 0, sizeof(qc));
        /* The software PMDs' rings take only powers of two (and hold one
         * fewer); the op pool keeps the caller's depth. */
        qc.nb_descriptors = rte_align32pow2(d->depth);
        qc.mp_session = d->sym_sess;
        ret = rte_cryptodev_queue_pair_setup((uint8_t)dev, (uint16_t)q, &qc, socket);
        if (ret < 0) {
            seterr(err, errlen, "rte_cryptodev_queue_pair_setup(%u): %s", q, rte_strerror(-ret));
            return -1;
        }
    }
    return 0;
}

int cptdpdk_dev_start(int dev, int nqp, int depth, int nsessions, uint32_t max_data, char *err,
    size_t errlen)
{
    struct rte_cryptodev_config conf;
    struct rte_cryptodev_info di;
    struct dev *d = getdev(dev);
    uint32_t nops, room, seq;
    char name[RTE_MEMPOOL_NAMESIZE];
    int socket, ret;
    bool asym;

    if (d == NULL) {
        seterr(err, errlen, "no cryptodev %d", dev);
        return -1;
    }
    if (d->started) {
        seterr(err, errlen, "cryptodev %d is started already", dev);
        return -1;
    }
    memset(&di, 0, sizeof(di));
    rte_cryptodev_info_get((uint8_t)dev, &di);
    if (nqp < 1 || (unsigned)nqp > di.max_nb_queue_pairs || depth < 1 || nsessions < 1
        || max_data > DATA_MAX) {
        seterr(err, errlen, "bad arguments: nqp %d (max %u), depth %d, nsessions %d, max_data %u",
            nqp, di.max_nb_queue_pairs, depth, nsessions, max_data);
        return -1;
    }
    socket = rte_cryptodev_socket_id((uint8_t)dev);
    if (socket < 0)
        socket = SOCKET_ID_ANY;
    asym = (d->algs & CPTDPDK_MODEXP) != 0;

    memset(&conf, 0, sizeof(conf));
    conf.socket_id = socket;
    conf.nb_queue_pairs = (uint16_t)nqp;
    ret = rte_cryptodev_configure((uint8_t)dev, &conf);
    if (ret < 0) {
        seterr(err, errlen, "rte_cryptodev_configure: %s", rte_strerror(-ret));
        return -1;
    }

    d->nqp = (uint32_t)nqp;
    d->depth = (uint32_t)depth;
    d->max_data = max_data;
    d->qps = calloc((size_t)nqp, sizeof(*d->qps));
    if (d->qps == NULL) {
        seterr(err, errlen, "out of memory");
        goto fail;
    }
    for (int q = 0; q < nqp; q++) {
        d->qps[q].local = calloc((size_t)depth, sizeof(*d->qps[q].local));
        if (d->qps[q].local == NULL) {
            seterr(err, errlen, "out of memory");
            goto fail;
        }
    }
    nops = (uint32_t)nqp * (uint32_t)depth;
    seq = atomic_fetch_add(&pool_seq, 1);
#define POOLNAME(c) snprintf(name, sizeof(name), "cpt%x_%d_%u%c", (unsigned)getpid(), dev, seq, c)

    POOLNAME('o');
    d->sym_ops = rte_crypto_op_pool_create(name, RTE_CRYPTO_OP_TYPE_SYMMETRIC, nops, 0,
        sizeof(struct sym_priv), socket);
    if (d->sym_ops == NULL) {
        seterr(err, errlen, "op pool: %s", rte_strerror(rte_errno));
        goto fail;
    }
    room = max_data + RTE_MAX((uint32_t)RTE_PKTMBUF_HEADROOM, (uint32_t)di.min_mbuf_headroom_req)
        + di.min_mbuf_tailroom_req;
    if (room > UINT16_MAX) {
        seterr(err, errlen, "max_data %u too large for an mbuf", max_data);
        goto fail;
    }
    POOLNAME('m');
    d->mbufs = rte_pktmbuf_pool_create(name, nops, 0, 0, (uint16_t)room, socket);
    if (d->mbufs == NULL) {
        seterr(err, errlen, "mbuf pool: %s", rte_strerror(rte_errno));
        goto fail;
    }
    POOLNAME('s');
    d->sym_sess = rte_cryptodev_sym_session_pool_create(name, (uint32_t)nsessions,
        rte_cryptodev_sym_get_private_session_size((uint8_t)dev), 0, 0, socket);
    if (d->sym_sess == NULL) {
        seterr(err, errlen, "session pool: %s", rte_strerror(rte_errno));
        goto fail;
    }
    if (asym) {
        POOLNAME('p');
        d->asym_ops = rte_crypto_op_pool_create(name, RTE_CRYPTO_OP_TYPE_ASYMMETRIC, nops, 0,
            sizeof(struct asym_priv), socket);
        if (d->asym_ops == NULL) {
            seterr(err, errlen, "asym op pool: %s", rte_strerror(rte_errno));
            goto fail;
        }
        POOLNAME('a');
        d->asym_sess =
            rte_cryptodev_asym_session_pool_create(name, (uint32_t)nsessions, 0, 0, socket);
        if (d->asym_sess == NULL) {
            seterr(err, errlen, "asym session pool: %s", rte_strerror(rte_errno));
            goto fail;
        }
    }
#undef POOLNAME
    if (setup_qps(dev, d, socket, err, errlen) < 0)
        goto fail;
    ret = rte_cryptodev_start((uint8_t)dev);
    if (ret < 0) {
        seterr(err, errlen, "rte_cryptodev_start: %s", rte_strerror(-ret));
        goto fail;
    }
    atomic_store(&d->stopped, false);
    d->started = true;
    return 0;

fail:
    /* The device stays configured (a later start reconfigures it). */
    free_pools(d);
    return -1;
}

void cptdpdk_dev_stop(int dev)
{
    struct dev *d = getdev(dev);

    if (d == NULL || !d->started || atomic_load(&d->stopped))
        return;
    atomic_store(&d->stopped, true);
    atomic_fetch_add(&d->gen, 1);
    rte_cryptodev_stop((uint8_t)dev);
}

int cptdpdk_dev_restart(int dev, char *err, size_t errlen)
{
    struct dev *d = getdev(dev);
    int socket, ret;

    if (d == NULL || !d->started) {
        seterr(err, errlen, "cryptodev %d is not started", dev);
        return -1;
    }
    if (!atomic_load(&d->stopped))
        return 0;
    socket = rte_cryptodev_socket_id((uint8_t)dev);
    if (socket < 0)
        socket = SOCKET_ID_ANY;
    /* New queue pairs: the old ones may still hold ops that dequeue has
     * handed back (or will hand back) as stopped. */
    if (setup_qps(dev, d, socket, err, errlen) < 0)
        return -1;
    ret = rte_cryptodev_start((uint8_t)dev);
    if (ret < 0) {
        seterr(err, errlen, "rte_cryptodev_start: %s", rte_strerror(-ret));
        return -1;
    }
    atomic_store(&d->stopped, false);
    return 0;
}

int cptdpdk_dev_usage(int dev, struct cptdpdk_usage *u)
{
    struct dev *d = getdev(dev);

    if (d == NULL || u == NULL)
        return -1;
    memset(u, 0, sizeof(*u));
    if (d->sym_ops != NULL)
        u->ops += rte_mempool_in_use_count(d->sym_ops);
    if (d->asym_ops != NULL)
        u->ops += rte_mempool_in_use_count(d->asym_ops);
    if (d->mbufs != NULL)
        u->mbufs = rte_mempool_in_use_count(d->mbufs);
    if (d->sym_sess != NULL)
        u->sym_sessions = rte_mempool_in_use_count(d->sym_sess);
    if (d->asym_sess != NULL)
        u->asym_sessions = rte_mempool_in_use_count(d->asym_sess);
    return 0;
}

int cptdpdk_dev_close(int dev, char *err, size_t errlen)
{
    struct dev *d = getdev(dev);
    struct cptdpdk_usage u;
    int ret;

    if (d == NULL) {
        seterr(err, errlen, "no cryptodev %d", dev);
        return -1;
    }
    if (!d->started)
        return 0;
    cptdpdk_dev_usage(dev, &u);
    if (u.ops || u.mbufs || u.sym_sessions || u.asym_sessions) {
        seterr(err, errlen, "still out: %u ops, %u mbufs, %u sym sessions, %u asym sessions", u.ops,
            u.mbufs, u.sym_sessions, u.asym_sessions);
        return -1;
    }
    cptdpdk_dev_stop(dev);
    ret = rte_cryptodev_close((uint8_t)dev);
    if (ret < 0) {
        seterr(err, errlen, "rte_cryptodev_close: %s", rte_strerror(-ret));
        return -1;
    }
    free_pools(d);
    d->started = false;
    d->max_data = 0;
    return 0;
}

/* ---- sessions ---- */

static struct sess *sess_new(int dev, uint32_t kind)
{
    struct sess *s = calloc(1, sizeof(*s));

    if (s != NULL) {
        s->dev = dev;
        s->kind = kind;
    }
    return s;
}

static struct dev *sess_dev(int dev, uint32_t alg, char *err, size_t errlen)
{
    struct dev *d = getdev(dev);

    if (d == NULL || !d->started) {
        seterr(err, errlen, "cryptodev %d is not started", dev);
        return NULL;
    }
    if (!(d->algs & alg)) {
        seterr(err, errlen, "cryptodev %d does not offer algorithm 0x%x", dev, alg);
        return NULL;
    }
    return d;
}

static void *sym_create(int dev, struct dev *d, struct sess *s, struct rte_crypto_sym_xform *x,
    char *err, size_t errlen)
{
    s->dsess = rte_cryptodev_sym_session_create((uint8_t)dev, x, d->sym_sess);
    if (s->dsess == NULL) {
        seterr(err, errlen, "rte_cryptodev_sym_session_create: %s", rte_strerror(rte_errno));
        free(s);
        return NULL;
    }
    return s;
}

void *cptdpdk_sess_aead(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    uint32_t aadlen, uint32_t taglen, char *err, size_t errlen)
{
    struct rte_crypto_sym_xform x;
    struct dev *d = sess_dev(dev, alg, err, errlen);
    struct sess *s;

    if (d == NULL)
        return NULL;
    if ((alg != CPTDPDK_AES_GCM && alg != CPTDPDK_CHACHAPOLY)
        || (dir != CPTDPDK_DIR_ENCRYPT && dir != CPTDPDK_DIR_DECRYPT) || aadlen > AAD_MAX
        || taglen > DIGEST_MAX || keylen > UINT16_MAX || key == NULL) {
        seterr(err, errlen, "bad AEAD session arguments");
        return NULL;
    }
    s = sess_new(dev, CPTDPDK_OP_AEAD);
    if (s == NULL) {
        seterr(err, errlen, "out of memory");
        return NULL;
    }
    s->encrypt = dir == CPTDPDK_DIR_ENCRYPT;
    s->ivlen = 12;
    s->aadlen = aadlen;
    s->taglen = taglen;
    memset(&x, 0, sizeof(x));
    x.type = RTE_CRYPTO_SYM_XFORM_AEAD;
    x.aead.op = s->encrypt ? RTE_CRYPTO_AEAD_OP_ENCRYPT : RTE_CRYPTO_AEAD_OP_DECRYPT;
    x.aead.algo =
        alg == CPTDPDK_AES_GCM ? RTE_CRYPTO_AEAD_AES_GCM : RTE_CRYPTO_AEAD_CHACHA20_POLY1305;
    x.aead.key.data = key;
    x.aead.key.length = (uint16_t)keylen;
    x.aead.iv.offset = IV_OFF;
    x.aead.iv.length = 12;
    x.aead.digest_length = (uint16_t)taglen;
    x.aead.aad_length = (uint16_t)aadlen;
    return sym_create(dev, d, s, &x, err, errlen);
}

void *cptdpdk_sess_cipher(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    char *err, size_t errlen)
{
    struct rte_crypto_sym_xform x;
    struct dev *d = sess_dev(dev, alg, err, errlen);
    struct sess *s;

    if (d == NULL)
        return NULL;
    if ((alg != CPTDPDK_AES_CBC && alg != CPTDPDK_AES_CTR && alg != CPTDPDK_DES3_CBC)
        || (dir != CPTDPDK_DIR_ENCRYPT && dir != CPTDPDK_DIR_DECRYPT) || keylen > UINT16_MAX
        || key == NULL) {
        seterr(err, errlen, "bad cipher session arguments");
        return NULL;
    }
    s = sess_new(dev, CPTDPDK_OP_CIPHER);
    if (s == NULL) {
        seterr(err, errlen, "out of memory");
        return NULL;
    }
    s->encrypt = dir == CPTDPDK_DIR_ENCRYPT;
    s->ivlen = alg == CPTDPDK_DES3_CBC ? 8 : 16;
    memset(&x, 0, sizeof(x));
    x.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
    x.cipher.op = s->encrypt ? RTE_CRYPTO_CIPHER_OP_ENCRYPT : RTE_CRYPTO_CIPHER_OP_DECRYPT;
    x.cipher.algo = alg == CPTDPDK_AES_CBC ? RTE_CRYPTO_CIPHER_AES_CBC
        : alg == CPTDPDK_AES_CTR           ? RTE_CRYPTO_CIPHER_AES_CTR
                                           : RTE_CRYPTO_CIPHER_3DES_CBC;
    x.cipher.key.data = key;
    x.cipher.key.length = (uint16_t)keylen;
    x.cipher.iv.offset = IV_OFF;
    x.cipher.iv.length = (uint16_t)s->ivlen;
    return sym_create(dev, d, s, &x, err, errlen);
}

void *cptdpdk_sess_auth(int dev, uint32_t alg, const uint8_t *key, uint32_t keylen, char *err,
    size_t errlen)
{
    struct rte_crypto_sym_xform x;
    struct dev *d = sess_dev(dev, alg, err, errlen);
    const struct authalg *a = authalg(alg);
    struct sess *s;

    if (d == NULL)
        return NULL;
    if (a == NULL || (a->hmac && (key == NULL || keylen == 0 || keylen > UINT16_MAX))
        || (!a->hmac && keylen != 0)) {
        seterr(err, errlen, "bad auth session arguments");
        return NULL;
    }
    s = sess_new(dev, CPTDPDK_OP_AUTH);
    if (s == NULL) {
        seterr(err, errlen, "out of memory");
        return NULL;
    }
    s->digestlen = a->digest;
    memset(&x, 0, sizeof(x));
    x.type = RTE_CRYPTO_SYM_XFORM_AUTH;
    x.auth.op = RTE_CRYPTO_AUTH_OP_GENERATE;
    x.auth.algo = a->algo;
    if (a->hmac) {
        x.auth.key.data = key;
        x.auth.key.length = (uint16_t)keylen;
    }
    x.auth.digest_length = a->digest;
    return sym_create(dev, d, s, &x, err, errlen);
}

/* A copy of a big-endian number without its leading zeros (at least one
 * byte). */
static uint8_t *bn_copy(const uint8_t *p, uint32_t n, uint32_t *outn)
{
    uint8_t *c;

    while (n > 1 && p[0] == 0) {
        p++;
        n--;
    }
    c = malloc(n);
    if (c != NULL)
        memcpy(c, p, n);
    *outn = n;
    return c;
}

static void sess_release(struct sess *s)
{
    if (s->exp != NULL)
        explicit_bzero(s->exp, s->explen);
    free(s->exp);
    free(s->mod);
    free(s);
}

void *cptdpdk_sess_modexp(int dev, const uint8_t *mod, uint32_t modlen, const uint8_t *exp,
    uint32_t explen, char *err, size_t errlen)
{
    struct rte_crypto_asym_xform x;
    struct dev *d = sess_dev(dev, CPTDPDK_MODEXP, err, errlen);
    struct sess *s;
    int ret;

    if (d == NULL)
        return NULL;
    if (d->asym_sess == NULL) {
        seterr(err, errlen, "cryptodev %d has no modexp", dev);
        return NULL;
    }
    if (mod == NULL || modlen == 0 || exp == NULL || explen == 0) {
        seterr(err, errlen, "bad modexp session arguments");
        return NULL;
    }
    s = sess_new(dev, CPTDPDK_OP_MODEXP);
    if (s == NULL) {
        seterr(err, errlen, "out of memory");
        return NULL;
    }
    s->mod = bn_copy(mod, modlen, &s->modlen);
    s->exp = bn_copy(exp, explen, &s->explen);
    if (s->mod == NULL || s->exp == NULL) {
        sess_release(s);
        seterr(err, errlen, "out of memory");
        return NULL;
    }
    if (s->modlen > ASYM_MAX) {
        seterr(err, errlen, "modulus of %u bytes: at most %u", s->modlen, ASYM_MAX);
        sess_release(s);
        return NULL;
    }
    memset(&x, 0, sizeof(x));
    x.xform_type = RTE_CRYPTO_ASYM_XFORM_MODEX;
    x.modex.modulus.data = s->mod;
    x.modex.modulus.length = s->modlen;
    x.modex.exponent.data = s->exp;
    x.modex.exponent.length = s->explen;
    ret = rte_cryptodev_asym_session_create((uint8_t)dev, &x, d->asym_sess, &s->dsess);
    if (ret < 0 || s->dsess == NULL) {
        seterr(err, errlen, "rte_cryptodev_asym_session_create: %s", rte_strerror(-ret));
        sess_release(s);
        return NULL;
    }
    return s;
}

void cptdpdk_sess_free(int dev, void *sess, int asym)
{
    struct sess *s = sess;

    if (s == NULL)
        return;
    if (asym)
        rte_cryptodev_asym_session_free((uint8_t)dev, s->dsess);
    else
        rte_cryptodev_sym_session_free((uint8_t)dev, s->dsess);
    sess_release(s);
}

/* ---- requests ---- */

static void list_add(struct qp *q, struct rte_crypto_op *op)
{
    struct book *b = book_of(op);

    b->prev = NULL;
    b->next = q->head;
    if (q->head != NULL)
        book_of(q->head)->prev = op;
    q->head = op;
}

static void list_del(struct qp *q, struct rte_crypto_op *op)
{
    struct book *b = book_of(op);

    if (b->prev != NULL)
        book_of(b->prev)->next = b->next;
    else
        q->head = b->next;
    if (b->next != NULL)
        book_of(b->next)->prev = b->prev;
    b->prev = b->next = NULL;
}

static void op_free(struct rte_crypto_op *op)
{
    if (op->type == RTE_CRYPTO_OP_TYPE_SYMMETRIC)
        rte_pktmbuf_free(op->sym->m_src);
    rte_crypto_op_free(op);
}

static struct rte_crypto_op *build_modexp(struct dev *d, const struct cptdpdk_req *r,
    struct sess *s, uint32_t gen)
{
    uint32_t total = r->in0len + r->inlen;
    struct rte_crypto_op *op;
    struct asym_priv *p;

    if (total > ASYM_MAX || r->in0len > ASYM_MAX || r->outlen < s->modlen || r->outlen > ASYM_MAX
        || r->out == NULL || d->asym_ops == NULL)
        return NULL;
    op = rte_crypto_op_alloc(d->asym_ops, RTE_CRYPTO_OP_TYPE_ASYMMETRIC);
    if (op == NULL)
        return NULL;
    p = asym_priv(op);
    if (r->in0len)
        memcpy(p->base, r->in0, r->in0len);
    if (r->inlen)
        memcpy(p->base + r->in0len, r->in, r->inlen);
    op->asym->modex.base.data = p->base;
    op->asym->modex.base.length = total;
    op->asym->modex.result.data = p->result;
    op->asym->modex.result.length = s->modlen;
    rte_crypto_op_attach_asym_session(op, s->dsess);
    p->b.tag_id = r->tag_id;
    p->b.out = r->out;
    p->b.tag = NULL;
    p->b.len = r->outlen;
    p->b.taglen = 0;
    p->b.kind = CPTDPDK_OP_MODEXP;
    p->b.encrypt = 0;
    p->b.gen = gen;
    return op;
}

static struct rte_crypto_op *build_sym(struct dev *d, const struct cptdpdk_req *r, struct sess *s,
    uint32_t gen)
{
    uint64_t total = (uint64_t)r->in0len + r->inlen;
    struct rte_crypto_op *op;
    struct rte_crypto_sym_op *so;
    struct rte_mbuf *m;
    struct sym_priv *p;
    uint8_t *data;

    if (total > d->max_data || (r->out == NULL && (total || s->kind == CPTDPDK_OP_AUTH)))
        return NULL;
    switch (s->kind) {
    case CPTDPDK_OP_AEAD:
        if (r->ivlen != s->ivlen || r->iv == NULL || r->aadlen != s->aadlen
            || (r->aadlen && r->aad == NULL) || r->taglen != s->taglen
            || (s->taglen && r->tag == NULL) || (r->outlen && r->outlen < total))
            return NULL;
        break;
    case CPTDPDK_OP_CIPHER:
        if (r->ivlen != s->ivlen || r->iv == NULL || (r->outlen && r->outlen < total))
            return NULL;
        break;
    case CPTDPDK_OP_AUTH:
        if (r->outlen < s->digestlen)
            return NULL;
        break;
    default:
        return NULL;
    }
    op = rte_crypto_op_alloc(d->sym_ops, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
    if (op == NULL)
        return NULL;
    m = rte_pktmbuf_alloc(d->mbufs);
    if (m == NULL) {
        rte_crypto_op_free(op);
        return NULL;
    }
    data = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)total);
    if (data == NULL) {
        rte_pktmbuf_free(m);
        rte_crypto_op_free(op);
        return NULL;
    }
    if (r->in0len)
        memcpy(data, r->in0, r->in0len);
    if (r->inlen)
        memcpy(data + r->in0len, r->in, r->inlen);
    p = sym_priv(op);
    so = op->sym;
    so->m_src = m;
    so->m_dst = NULL;
    rte_crypto_op_attach_sym_session(op, s->dsess);
    p->b.tag_id = r->tag_id;
    p->b.out = r->out;
    p->b.tag = NULL;
    p->b.taglen = 0;
    p->b.kind = s->kind;
    p->b.encrypt = 0;
    p->b.gen = gen;
    p->b.len = (uint32_t)total;
    switch (s->kind) {
    case CPTDPDK_OP_AEAD:
        memcpy(p->iv, r->iv, s->ivlen);
        if (r->aadlen)
            memcpy(p->aad, r->aad, r->aadlen);
        so->aead.data.offset = 0;
        so->aead.data.length = (uint32_t)total;
        so->aead.aad.data = p->aad;
        so->aead.aad.phys_addr =
            rte_crypto_op_ctophys_offset(op, SYM_PRIV_OFF + offsetof(struct sym_priv, aad));
        so->aead.digest.data = p->digest;
        so->aead.digest.phys_addr =
            rte_crypto_op_ctophys_offset(op, SYM_PRIV_OFF + offsetof(struct sym_priv, digest));
        if (!s->encrypt && s->taglen)
            memcpy(p->digest, r->tag, s->taglen);
        p->b.tag = r->tag;
        p->b.taglen = s->taglen;
        p->b.encrypt = s->encrypt;
        break;
    case CPTDPDK_OP_CIPHER:
        memcpy(p->iv, r->iv, s->ivlen);
        so->cipher.data.offset = 0;
        so->cipher.data.length = (uint32_t)total;
        break;
    case CPTDPDK_OP_AUTH:
        so->auth.data.offset = 0;
        so->auth.data.length = (uint32_t)total;
        so->auth.digest.data = p->digest;
        so->auth.digest.phys_addr =
            rte_crypto_op_ctophys_offset(op, SYM_PRIV_OFF + offsetof(struct sym_priv, digest));
        p->b.len = s->digestlen;
        break;
    }
    return op;
}

/* Hands a batch to the device; returns how many it took (the rest are
 * freed). */
static int submit(int dev, int qp, struct qp *q, struct rte_crypto_op **ops, int n)
{
    uint16_t taken = rte_cryptodev_enqueue_burst((uint8_t)dev, (uint16_t)qp, ops, (uint16_t)n);

    for (int i = 0; i < taken; i++)
        list_add(q, ops[i]);
    for (int i = taken; i < n; i++)
        op_free(ops[i]);
    return taken;
}

int cptdpdk_enqueue(int dev, int qp, const struct cptdpdk_req *reqs, int n)
{
    struct dev *d = getdev(dev);
    struct rte_crypto_op *ops[BURST];
    int total = 0, i = 0, cnt = 0;
    struct qp *q;
    uint32_t gen;

    if (d == NULL || !d->started || qp < 0 || (uint32_t)qp >= d->nqp || atomic_load(&d->stopped))
        return -1;
    q = &d->qps[qp];
    gen = atomic_load(&d->gen);
    /* ops[0..cnt) are reqs[i-cnt..i), built and not yet submitted. */
    for (;;) {
        const struct cptdpdk_req *r = i < n ? &reqs[i] : NULL;
        struct sess *s = r != NULL ? r->sess : NULL;
        bool local = false, stop = r == NULL;

        if (r != NULL) {
            if (s == NULL || s->dev != dev || r->kind != s->kind) {
                stop = true;
            } else if (s->kind == CPTDPDK_OP_CIPHER && r->in0len == 0 && r->inlen == 0
                && r->ivlen == s->ivlen && r->iv != NULL) {
                local = true;
            } else {
                ops[cnt] = s->kind == CPTDPDK_OP_MODEXP ? build_modexp(d, r, s, gen)
                                                        : build_sym(d, r, s, gen);
                if (ops[cnt] == NULL) {
                    stop = true;
                } else {
                    cnt++;
                    i++;
                    if (cnt < BURST)
                        continue;
                }
            }
        }
        if (cnt > 0) {
            int taken = submit(dev, qp, q, ops, cnt);

            total += taken;
            if (taken < cnt)
                return total;
            cnt = 0;
        }
        if (stop)
            return total;
        if (local) {
            struct cptdpdk_done *l;

            if (q->local_n == d->depth)
                return total;
            l = &q->local[(q->local_head + q->local_n) % d->depth];
            l->tag_id = r->tag_id;
            l->status = CPTDPDK_OK;
            l->outlen = 0;
            q->local_n++;
            total++;
            i++;
        }
    }
}

/* Fills done from a completed op and frees it. */
static void finish(struct rte_crypto_op *op, struct cptdpdk_done *done)
{
    struct book *b = book_of(op);

    done->tag_id = b->tag_id;
    done->outlen = 0;
    switch (op->status) {
    case RTE_CRYPTO_OP_STATUS_SUCCESS:
        done->status = CPTDPDK_OK;
        switch (b->kind) {
        case CPTDPDK_OP_AEAD:
        case CPTDPDK_OP_CIPHER:
            if (b->len)
                memcpy(b->out, rte_pktmbuf_mtod(op->sym->m_src, uint8_t *), b->len);
            done->outlen = b->len;
            if (b->kind == CPTDPDK_OP_AEAD && b->encrypt && b->taglen)
                memcpy(b->tag, sym_priv(op)->digest, b->taglen);
            break;
        case CPTDPDK_OP_AUTH:
            memcpy(b->out, sym_priv(op)->digest, b->len);
            done->outlen = b->len;
            break;
        case CPTDPDK_OP_MODEXP: {
            size_t rl = op->asym->modex.result.length;

            if (rl > b->len) {
                done->status = CPTDPDK_ERROR;
                break;
            }
            memset(b->out, 0, b->len - rl);
            memcpy(b->out + (b->len - rl), asym_priv(op)->result, rl);
            done->outlen = b->len;
            break;
        }
        }
        break;
    case RTE_CRYPTO_OP_STATUS_AUTH_FAILED:
        /* out is left as it was: for an in-place request it is the input,
         * which the caller may still need (to compute the piece elsewhere). */
        done->status = CPTDPDK_AUTH_FAILED;
        break;
    case RTE_CRYPTO_OP_STATUS_INVALID_ARGS:
    case RTE_CRYPTO_OP_STATUS_INVALID_SESSION:
        done->status = CPTDPDK_INVALID;
        break;
    default:
        done->status = CPTDPDK_ERROR;
        break;
    }
    op_free(op);
}

int cptdpdk_dequeue(int dev, int qp, struct cptdpdk_done *done, int n)
{
    struct dev *d = getdev(dev);
    struct qp *q;
    uint32_t gen;
    int got = 0;

    if (d == NULL || !d->started || qp < 0 || (uint32_t)qp >= d->nqp || n <= 0)
        return 0;
    q = &d->qps[qp];
    while (q->local_n > 0 && got < n) {
        done[got++] = q->local[q->local_head];
        q->local_head = (q->local_head + 1) % d->depth;
        q->local_n--;
    }
    gen = atomic_load(&d->gen);
    if (q->seen_gen != gen) {
        /* The device was stopped: what it held from before is not coming
         * back (restart sets the queue pairs up anew). */
        struct rte_crypto_op *op = q->head, *next;

        for (; op != NULL && got < n; op = next) {
            next = book_of(op)->next;
            if (book_of(op)->gen == gen)
                continue;
            list_del(q, op);
            done[got].tag_id = book_of(op)->tag_id;
            done[got].status = CPTDPDK_ERROR;
            done[got].outlen = 0;
            got++;
            op_free(op);
        }
        if (op == NULL)
            q->seen_gen = gen;
    }
    if (atomic_load(&d->stopped))
        return got;
    while (got < n) {
        struct rte_crypto_op *ops[BURST];
        uint16_t k = (uint16_t)RTE_MIN(n - got, BURST);
        uint16_t m = rte_cryptodev_dequeue_burst((uint8_t)dev, (uint16_t)qp, ops, k);

        for (uint16_t i = 0; i < m; i++) {
            list_del(q, ops[i]);
            finish(ops[i], &done[got++]);
        }
        if (m < k)
            break;
    }
    return got;
}
