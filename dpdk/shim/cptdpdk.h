/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cptdpdk: the narrow C interface between cptprov's DPDK backend (Go,
 * package cptprov/dpdk) and DPDK's cryptodev library.
 *
 * It is built into its own shared object, build/libcptdpdk.so, linked
 * against libdpdk, and loaded by the Go side with dlopen only when the
 * configuration says `backend = dpdk`: libcptgo.so itself never depends on
 * DPDK, so the provider builds and runs where DPDK is absent, and nothing of
 * DPDK (constructors, the EAL) enters a process that does not use it.
 *
 * The Go side never sees a DPDK type. Everything here is plain C: device
 * numbers, opaque session pointers, and a request record that names host
 * memory; the shim copies inputs into mbufs from its own pools (memory the
 * device can address by IOVA) and outputs back, so the device never sees
 * OpenSSL's buffers.
 *
 * Threading: cptdpdk_eal_init, cptdpdk_dev_start and cptdpdk_dev_close are
 * called once each, serialised by the caller. Session creation and freeing
 * may be called from any thread. cptdpdk_enqueue and cptdpdk_dequeue on one
 * (dev, qp) must be serialised by the caller (DPDK's burst calls are not
 * thread-safe per queue pair); different queue pairs run in parallel.
 *
 * Errors: functions that can fail take (char *err, size_t errlen) and write
 * a one-line reason there.
 */
#ifndef CPTDPDK_H
#define CPTDPDK_H

#include <stddef.h>
#include <stdint.h>

#define CPTDPDK_ABI 1

/* Log levels, as syslog's (and DPDK's RTE_LOG_*): 3 error ... 7 debug. */
typedef void (*cptdpdk_log_fn)(int level, const char *msg, size_t len);

/*
 * Algorithms, as bits of cptdpdk_info.algs. A device offers one when its
 * capabilities (rte_cryptodev_sym_capability_get /
 * rte_cryptodev_asym_capability_get) cover what cptprov needs of it:
 *   AES_GCM     AEAD, keys 16/24/32, IV 12, digest 16, AAD 0..64
 *   CHACHAPOLY  AEAD ChaCha20-Poly1305, key 32, IV 12, digest 16, AAD 0..64
 *   AES_CBC     cipher, keys 16/24/32, IV 16
 *   AES_CTR     cipher, keys 16/24/32, IV 16 (the full counter block)
 *   DES3_CBC    cipher 3DES-CBC, key 24, IV 8
 *   SHA*        auth, plain hash, full digest length
 *   HMAC_SHA*   auth, keys 1..block size, full digest length
 *   MODEXP      asym modular exponentiation, modulus up to max_modlen bytes
 * The key sizes a device accepts are checked per session as well (a
 * session of a size the device refuses fails to be created).
 */
enum {
    CPTDPDK_AES_GCM = 1u << 0,
    CPTDPDK_CHACHAPOLY = 1u << 1,
    CPTDPDK_AES_CBC = 1u << 2,
    CPTDPDK_AES_CTR = 1u << 3,
    CPTDPDK_DES3_CBC = 1u << 4,
    CPTDPDK_SHA1 = 1u << 5,
    CPTDPDK_SHA224 = 1u << 6,
    CPTDPDK_SHA256 = 1u << 7,
    CPTDPDK_SHA384 = 1u << 8,
    CPTDPDK_SHA512 = 1u << 9,
    CPTDPDK_HMAC_SHA1 = 1u << 10,
    CPTDPDK_HMAC_SHA224 = 1u << 11,
    CPTDPDK_HMAC_SHA256 = 1u << 12,
    CPTDPDK_HMAC_SHA384 = 1u << 13,
    CPTDPDK_HMAC_SHA512 = 1u << 14,
    CPTDPDK_MODEXP = 1u << 15,
};

/* What one cryptodev is and offers. */
struct cptdpdk_info {
    char name[64]; /* rte_cryptodev_name_get: "crypto_openssl0", "0002:10:00.1" */
    char driver[64]; /* driver name: "crypto_openssl", "crypto_cn10k" */
    uint32_t max_qps; /* queue pairs the device has */
    uint32_t algs; /* CPTDPDK_* bits */
    uint32_t max_modlen; /* MODEXP: largest modulus in bytes (0: no limit stated) */
    uint32_t max_data; /* largest data length of one symmetric request */
};

/*
 * Starts DPDK's EAL with argv (argv[0] is a program name; the shim adds
 * nothing of its own). It first points DPDK's log stream at log (every
 * line, with its level; nothing goes to the host's stderr) and sets DPDK's
 * global log level to loglevel. The calling thread's CPU affinity is saved
 * before rte_eal_init and restored after it: the EAL pins its caller to
 * the main lcore, and the caller is a thread of the host.
 * Returns the number of cryptodevs found (>= 0), -1 on failure (reason in
 * err), or -2 when this process image already had the EAL initialised (a
 * forked child of a process that ran it: DPDK cannot start twice in one
 * image).
 */
int cptdpdk_eal_init(int argc, char **argv, cptdpdk_log_fn log, int loglevel, char *err,
    size_t errlen);

/* The cryptodev called name (its cryptodev name or PCI address), or -1. */
int cptdpdk_dev_find(const char *name);

/* Device dev's description; -1 if there is none. */
int cptdpdk_dev_info(int dev, struct cptdpdk_info *info);

/*
 * Configures and starts device dev with nqp queue pairs of depth
 * descriptors each, and the pools of its requests: ops and mbufs enough
 * for every queue pair full, a symmetric and an asymmetric session pool of
 * nsessions each. mbufs hold max_data bytes (at most 65000).
 * Returns 0, or -1 with err.
 */
int cptdpdk_dev_start(int dev, int nqp, int depth, int nsessions, uint32_t max_data, char *err,
    size_t errlen);

/*
 * Stops device dev (rte_cryptodev_stop): it takes no more requests until
 * cptdpdk_dev_restart. Requests in flight complete or are returned by
 * cptdpdk_dequeue with CPTDPDK_ERROR. For fault tests and shutdown.
 */
void cptdpdk_dev_stop(int dev);
int cptdpdk_dev_restart(int dev, char *err, size_t errlen);

/*
 * Stops and closes device dev and frees its pools. Sessions must be freed
 * and every request dequeued first; what is still out is reported in err
 * and the call returns -1 (the pools are then leaked, not freed under the
 * device).
 */
int cptdpdk_dev_close(int dev, char *err, size_t errlen);

/* Sessions. NULL on failure, with err. */
#define CPTDPDK_DIR_ENCRYPT 1
#define CPTDPDK_DIR_DECRYPT 2
/* AEAD (alg CPTDPDK_AES_GCM or CPTDPDK_CHACHAPOLY): digest of taglen bytes,
 * AAD of aadlen bytes on every request of the session. */
void *cptdpdk_sess_aead(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    uint32_t aadlen, uint32_t taglen, char *err, size_t errlen);
/* Cipher (CPTDPDK_AES_CBC, CPTDPDK_AES_CTR, CPTDPDK_DES3_CBC). */
void *cptdpdk_sess_cipher(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    char *err, size_t errlen);
/* Hash or HMAC (CPTDPDK_SHA*, CPTDPDK_HMAC_SHA*; key NULL/0 for a hash):
 * generates the full digest. */
void *cptdpdk_sess_auth(int dev, uint32_t alg, const uint8_t *key, uint32_t keylen, char *err,
    size_t errlen);
/* Modular exponentiation base^exp mod mod; big-endian, no leading zeros
 * needed. */
void *cptdpdk_sess_modexp(int dev, const uint8_t *mod, uint32_t modlen, const uint8_t *exp,
    uint32_t explen, char *err, size_t errlen);
/* Frees a session from any of the above (asym: it was from sess_modexp). */
void cptdpdk_sess_free(int dev, void *sess, int asym);

/* Request kinds. */
enum {
    CPTDPDK_OP_AEAD = 1, /* in -> out (same length), tag: written (encrypt) or checked (decrypt) */
    CPTDPDK_OP_CIPHER = 2, /* in -> out (same length) */
    CPTDPDK_OP_AUTH = 3, /* in -> digest (generate) */
    CPTDPDK_OP_MODEXP = 4, /* in (base, < modulus) -> out (modlen bytes, left-padded) */
};

/*
 * One request. The input is the concatenation of in0[0..in0len) and
 * in[0..inlen) (in0 lets a CBC request start with a block the driver
 * buffered). The shim copies it into an mbuf at enqueue; at dequeue it
 * copies the result to out (and tag), so out may equal in. iv and aad are
 * copied at enqueue. For AEAD decryption tag holds the expected tag (taglen
 * bytes, the session's) and is not written; for encryption the tag is
 * written there. For AUTH the digest is written to out (outlen: its size).
 * For MODEXP out gets outlen bytes (the modulus length).
 * Nothing the request names is read or written after cptdpdk_dequeue has
 * returned it.
 */
struct cptdpdk_req {
    uint64_t tag_id; /* the caller's cookie, returned by dequeue */
    void *sess;
    uint32_t kind; /* CPTDPDK_OP_* */
    uint32_t in0len;
    const uint8_t *in0;
    const uint8_t *in;
    uint32_t inlen;
    uint32_t outlen;
    uint8_t *out;
    const uint8_t *iv;
    uint32_t ivlen;
    uint32_t aadlen;
    const uint8_t *aad;
    uint8_t *tag;
    uint32_t taglen;
    uint32_t pad_;
};

/* Completion statuses. */
enum {
    CPTDPDK_OK = 0,
    CPTDPDK_AUTH_FAILED = 1, /* AEAD decryption: tag mismatch (out untouched: no plaintext) */
    CPTDPDK_INVALID = 2, /* the device refused the request's arguments */
    CPTDPDK_ERROR = 3, /* the device failed it (error, stopped device): not executed */
};

struct cptdpdk_done {
    uint64_t tag_id;
    int32_t status; /* CPTDPDK_* */
    uint32_t outlen; /* bytes written to out */
};

/*
 * Enqueues up to n requests on queue pair qp of dev; returns how many the
 * device took (0..n, in order; a request not taken was not read), or -1 if
 * the device is stopped. A request that cannot even be built (no free op
 * or mbuf, input longer than max_data) is not taken either.
 */
int cptdpdk_enqueue(int dev, int qp, const struct cptdpdk_req *reqs, int n);

/* Dequeues up to n completions from qp of dev into done; returns how many. */
int cptdpdk_dequeue(int dev, int qp, struct cptdpdk_done *done, int n);

/* What is out of dev's pools now: ops, mbufs, sessions (leak checks). */
struct cptdpdk_usage {
    uint32_t ops, mbufs, sym_sessions, asym_sessions;
};
int cptdpdk_dev_usage(int dev, struct cptdpdk_usage *u);

#endif
