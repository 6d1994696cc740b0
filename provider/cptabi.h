/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interface between cptprov.so (C, loaded by OpenSSL) and libcptgo.so
 * (Go, loaded on first use). Both sides include this header; the Go side
 * checks the numbers it shares with package dispatch at build time.
 */
#ifndef CPTABI_H
#define CPTABI_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>

#define CPT_ABI_VERSION 14

/* Return values of the Go entry points. */
#define CPT_ERR 0
#define CPT_OK 1
#define CPT_PENDING 2 /* submitted; the outcome arrives through the notifier */

/*
 * Reason codes (dispatch.Reason*), from the list in reasons.def. The flags
 * are OpenSSL's (err.h): ERR_RFLAG_COMMON, and ERR_R_FATAL with
 * ERR_RFLAG_FATAL too.
 */
#define CPT_R_COMMON(n) ((n) | (2 << 18))
#define CPT_R_FATAL(n) (CPT_R_COMMON(n) | (1 << 18))
enum cpt_reason {
#define CPT_REASON(ID, num, string) CPT_R_##ID = (num),
#define CPT_COMMON_REASON(ID, num, string) CPT_R_##ID = CPT_R_COMMON(num),
#define CPT_FATAL_REASON(ID, num, string) CPT_R_##ID = CPT_R_FATAL(num),
#include "reasons.def"
};
/*
 * How many reasons there are and the sum of their numbers: the Go library's
 * build compares them with Go's copy of the list, so that a library built
 * from a stale copy does not build.
 */
enum {
#define CPT_REASON(ID, num, string) +1
#define CPT_COMMON_REASON(ID, num, string) +1
#define CPT_FATAL_REASON(ID, num, string) +1
    CPT_R_COUNT = 0
#include "reasons.def"
};
enum {
#define CPT_REASON(ID, num, string) +CPT_R_##ID
#define CPT_COMMON_REASON(ID, num, string) +CPT_R_##ID
#define CPT_FATAL_REASON(ID, num, string) +CPT_R_##ID
    CPT_R_SUM = 0
#include "reasons.def"
};

/*
 * Algorithm ids (dispatch.Alg*, dispatch.MD*), from the list in
 * algorithms.def: CPT_ALG_<cipher> is a cipher and its counter slot,
 * CPT_MD_<digest> a digest (the device's hash type), counted at
 * CPT_ALG_MD_BASE + id, HMAC over it at CPT_ALG_MAC_BASE + id.
 */
enum cpt_alg {
#define CPT_COUNTER_BASE(ID, num) CPT_ALG_##ID##_BASE = (num),
#define CPT_CIPHER(ID, num, name, aliases, family, keylen) CPT_ALG_##ID = (num),
#define CPT_STITCHED(ID, num, name, family, keylen, digest) CPT_ALG_##ID = (num),
#include "algorithms.def"
};
enum cpt_md {
#define CPT_DIGEST(ID, num, name, aliases, family, hmac_family, size, blocksize) \
    CPT_MD_##ID = (num),
#include "algorithms.def"
};
/* Bytes of Go-owned state in an HMAC context (>= dispatch.MACStateSize). */
#define CPT_MAC_STATE_SIZE 704
/* Bytes of Go-owned state in a digest context (>= dispatch.MDStateSize). */
#define CPT_MD_STATE_SIZE 272

/* Key type ids (dispatch.Key*). */
#define CPT_KEY_X25519 1
#define CPT_KEY_EC 2
#define CPT_KEY_RSA 3
#define CPT_KEY_RSA_PSS 4

/*
 * What a key derives from its material once and keeps for its lifetime (an
 * RSA key's Montgomery set-up for checking its results), allocated by the
 * Go half; the key's free calls its free, and a copy starts without one, as
 * OpenSSL's RSA key object keeps its own.
 */
struct cpt_key_aux {
    void (*free)(struct cpt_key_aux *aux);
};

/* The head of every key's state (dispatch.KeyHead), read by the C side. */
struct cpt_key_head {
    uint32_t has; /* CPT_KEY_HAS_* */
    uint32_t type;
    struct cpt_key_aux *aux; /* NULL until the Go half builds it */
};
#define CPT_KEY_HAS_PUBLIC 1
#define CPT_KEY_HAS_PRIVATE 2
#define CPT_KEY_HAS_DOMAIN 4

/*
 * An X25519 key's state (dispatch.x25519Key). The C side answers from it
 * what libssl asks around every TLS key share (the public key's bytes, the
 * peer's public key set, its public check), each otherwise a call into Go.
 */
#define CPT_X25519_LEN 32
struct cpt_x25519_key {
    struct cpt_key_head head;
    unsigned char pub[CPT_X25519_LEN];
    unsigned char priv[CPT_X25519_LEN];
};

/*
 * An EC key's state and an EC key generation's (dispatch.ecKey, ecGen):
 * the group with the sizes EVP asks of every key, and the public point
 * (04||X||Y), from which the C side answers the same questions of a TLS key
 * share. Go writes the sizes whenever it sets the group.
 */
#define CPT_EC_MAX_LEN 66 /* P-521 */
struct cpt_ec_group {
    uint32_t curve; /* 0: no group */
    uint16_t bits, secbits, siglen, bytelen;
};
struct cpt_ec_key {
    struct cpt_key_head head;
    struct cpt_ec_group group;
    unsigned char priv[CPT_EC_MAX_LEN];
    unsigned char pub[1 + 2 * CPT_EC_MAX_LEN];
};
struct cpt_ec_gen {
    struct cpt_ec_group group;
};

/* Bytes of Go-owned state in key objects and key-generation contexts. */
#define CPT_KEY_STATE_SIZE 256
#define CPT_KEY_STATE_SIZE_RSA 4864
/* Operand memory of a key-exchange context (dispatch.ScratchSize). */
#define CPT_EXCH_SCRATCH_SIZE 256

/* Signature ids (dispatch.Sig*), operations, and context sizes. */
#define CPT_SIG_ECDSA 1
#define CPT_SIG_RSA 2
#define CPT_ASYM_RSA 1
#define CPT_OP_ENCRYPT 1
#define CPT_OP_DECRYPT 2
#define CPT_OP_SIGN 1
#define CPT_OP_VERIFY 2
#define CPT_SIG_STATE_SIZE 512

/*
 * A signature init the C side keeps until the next call into Go for the
 * same context, which applies it first (with no parameters). The C side
 * keeps only an init that Go accepted before with the same key, scheme,
 * operation and digest: its outcome is known. libssl initialises twice per
 * handshake signature (EVP_PKEY_digestsign_supports_digest's probe, then
 * the signature's own), and neither then costs a call of its own.
 */
#define CPT_SIG_MDNAME_MAX 32
struct cpt_sig_pending {
    int valid;
    int op;
    int stream;
    char mdname[CPT_SIG_MDNAME_MAX]; /* "" for none */
    /* Settings made after the init and kept with it, which Go applies
     * after it (an OSSL_PARAM array in the C context; NULL: none), then
     * sets to NULL: libssl's RSA-PSS padding and salt length. */
    void *params;
};
#define CPT_SIG_SCRATCH_SIZE 512

/* Bytes of Go-owned state in every cipher context (>= dispatch.MaxStateSize). */
#define CPT_CIPHER_STATE_SIZE 1024
/*
 * The first bytes of an AEAD context's state are shared: Go maintains them,
 * the C side reads them and, for final, writes them. EVP asks the same
 * questions around every message (IV length) and ends every message with a
 * final that, after a data update, has nothing left to compute; answering
 * those in C spares two calls into Go per message.
 */
#define CPT_FINAL_DONE_IV_USED 2
struct cpt_aead_shadow {
    uint64_t ivlen; /* current IV length, 0 = the algorithm's default */
    uint32_t final_ready; /* Go: run_tag is the tag of the whole message, nothing else pending */
    /* C: final completed here; Go finishes its bookkeeping at its next
     * call. CPT_FINAL_DONE_IV_USED: a message on the CPU path used the IV
     * of the init still pending, which Go must take as used up. */
    uint32_t final_done;
    uint32_t enc; /* direction of the message */
    uint32_t tag_len; /* decrypt: expected tag length (0: none); encrypt: 16 after final */
    unsigned char tag[16]; /* decrypt: the expected tag; encrypt: the tag after final */
    unsigned char run_tag[16];
};

/*
 * An EVP init that the C side has validated and keeps until the next call
 * into Go for the same context, which applies it first: EVP re-initialises
 * a context for every message (new IV, often the same key), and this spares
 * a call into Go each time. Go clears `valid` (and the key) once applied.
 */
struct cpt_pending_init {
    int valid;
    int enc;
    int has_key;
    int has_iv;
    size_t keylen;
    size_t ivlen;
    unsigned char key[32];
    unsigned char iv[128];
    /*
     * Context parameters the C side checked and keeps for the same next
     * call (an OSSL_PARAM array in the C context; NULL: none): libssl's
     * TLS 1.2 settings, once a key and once a record (cipher_params.c).
     * Go applies them after the init, or before it when params_first, and
     * sets params to NULL.
     */
    void *params;
    int params_first;
};

/*
 * The state of an unauthenticated cipher stream (dispatch.StreamState), as
 * the C side's CPU path and the device path hand it to each other: the
 * running IV (CBC chain, CTR counter of the next block), the bytes not
 * processed yet (a partial block, or the block a padded decryption holds
 * back), the bytes used of the current CTR keystream block, and the mode.
 */
struct cpt_stream_state {
    unsigned char iv[16];
    unsigned char buf[16];
    uint32_t buf_len;
    uint32_t num;
    int32_t pad;
    int32_t enc;
};

/* What went wrong, filled by Go, raised by C through the core's upcalls. */
struct cpt_status {
    int reason;
    char msg[200];
};

/* Operations the C side's CPU path completed, per CPT_ALG_* id. */
struct cpt_cpu_counters {
    _Atomic uint64_t ops;
    _Atomic uint64_t bytes;
};
#define CPT_MAX_ALGS 64

/*
 * The statistics area: stats_dir/cptprov-<pid>.stats, a small file the
 * process maps shared and updates in place, and cptstat maps to read
 * (stats.Area is its Go twin, checked field by field when Go starts). The
 * C side creates it at the first counted operation or when Go starts, and
 * counts its CPU path in cpu[]; Go counts per algorithm in algs[], claiming
 * a slot by writing its name and then setting ready, and copies the queue
 * and device counters into device[] and latency[] four times a second.
 * magic is written last: a reader ignores an area without it.
 */
#define CPT_STATS_MAGIC "cptstat"
#define CPT_STATS_VERSION 1
#define CPT_STATS_NAME 32
#define CPT_STATS_ALGS 96
#define CPT_STATS_DEVICE 48
#define CPT_STATS_BUCKETS 21 /* cptdrv.LatencyBuckets */

struct cpt_stats_alg {
    char name[CPT_STATS_NAME];
    _Atomic uint64_t ready;
    _Atomic uint64_t ops, bytes, device, software, errors;
};

struct cpt_stats_area {
    char magic[8];
    uint32_t version;
    uint32_t size; /* sizeof(struct cpt_stats_area) */
    int64_t pid;
    uint64_t start_time; /* /proc/<pid>/stat's starttime: a reused pid is another process */
    char backend[CPT_STATS_NAME];
    _Atomic int64_t published_ns; /* Go's last copy of device[] (Unix ns), 0: none */
    char device_names[CPT_STATS_DEVICE][CPT_STATS_NAME];
    _Atomic uint64_t device[CPT_STATS_DEVICE];
    _Atomic uint64_t latency[2][CPT_STATS_BUCKETS]; /* se, ae: bucket i under 2^i µs */
    struct cpt_cpu_counters cpu[CPT_MAX_ALGS];
    struct cpt_stats_alg algs[CPT_STATS_ALGS];
};

struct cpt_config {
    const char *stats_dir; /* NULL: no statistics file */
    int se_engines; /* 0: number of CPUs */
    int ae_engines;
    int ring_depth; /* 0: default */
    int spin_us; /* an idle engine's polling before it parks, µs; 0: none */
    const char *faults; /* simulator fault plan (tests), NULL: none */
    int fallback; /* compute in software what the device fails: 1 on, 0 off */
    int timeout_ms; /* how long a queued request may wait for an engine */
    int retries; /* device retries of a failed request, -1: none, 0: default */
    int breaker_threshold; /* consecutive failures that open the circuit, 0: default */
    int breaker_cooldown_ms; /* first open period, 0: default */
    int log_level; /* 0 debug, 1 info, 2 warn, 3 error, 4 off */
    const char *log_file; /* NULL: stderr */
    /* this process's statistics area, NULL: none */
    struct cpt_stats_area *stats_area;
    /* OpenSSL_version_num() of the libcrypto the provider runs in: what the
     * default provider of that version does decides some behaviour */
    unsigned long openssl_version;
    /* the device behind the queues: a name in CPT_BACKENDS */
    const char *backend;
    /* backend = dpdk: the shim's path, the EAL arguments and the devices
     * (NULL: the defaults), queue pairs and depth per device (0: default) */
    const char *dpdk_shim;
    const char *dpdk_eal_args;
    const char *dpdk_devices;
    int dpdk_queue_pairs;
    int dpdk_queue_depth;
};

/* Limits of the dpdk backend's keys. */
#define CPT_DPDK_ARGS_MAX 1024
#define CPT_DPDK_DEVICES_MAX 16
#define CPT_DPDK_NAME_MAX 64

/*
 * The backends libcptgo.so builds devices of (each registers its factory
 * with cptdrv.RegisterBackend under this name); the first is the default.
 * The `backend` key accepts these at activation, before any Go runs.
 */
/* clang-format off */
#define CPT_BACKENDS { "simulator", "dpdk" }
/* clang-format on */

/*
 * One per ASYNC_WAIT_CTX: the eventfd registered with the wait context and
 * the outcome of the operation in flight. Reference counted because the
 * wait context may be freed (its cleanup drops one reference) while the
 * device still holds another for an operation in flight.
 *
 * state says who signals: the device moves it to DONE once the outcome is
 * in place, and writes the eventfd only if the job had moved it to
 * WAITING first (it is about to pause or block); a job that finds DONE
 * instead goes on without a signal to consume. An operation the device
 * finished before its job waited (a submitter that executed its own
 * instruction, a fast engine) then costs no eventfd write or read, a
 * system call each.
 */
enum { CPT_NOTIFY_PENDING, CPT_NOTIFY_WAITING, CPT_NOTIFY_DONE };

struct cpt_notifier {
    atomic_int refs;
    atomic_int state; /* CPT_NOTIFY_* */
    int fd; /* the eventfd: -1 until the job first has to wait */
    int rc;
    size_t outl;
    struct cpt_status st;
    /* The application's wait-context callback (OpenSSL's ASYNC callback
     * mode), called instead of signalling fd (-1 for good then). */
    int (*cb)(void *);
    void *cbarg;
    /* C side only (after the fields the device uses): the wait context the
     * fd is registered with, NULL until an operation has to pause. */
    void *wctx;
};

static inline void cpt_notifier_put(struct cpt_notifier *n)
{
    if (atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) == 1) {
        if (n->fd >= 0)
            close(n->fd);
        free(n);
    }
}

/* Called by the device side when the operation is over. The application's
 * callback hears of every completion, as it always has. */
static inline void cpt_notifier_complete(struct cpt_notifier *n)
{
    uint64_t one = 1;
    ssize_t r;
    int was = atomic_exchange_explicit(&n->state, CPT_NOTIFY_DONE, memory_order_acq_rel);

    if (n->cb != NULL) {
        n->cb(n->cbarg);
    } else if (was == CPT_NOTIFY_WAITING) {
        do {
            r = write(n->fd, &one, sizeof(one));
        } while (r < 0 && errno == EINTR);
    }
    cpt_notifier_put(n);
}

#endif
