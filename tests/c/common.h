/* SPDX-License-Identifier: Apache-2.0 */
/*
 * common.h - shared helpers for the cptprov C test harnesses.
 *
 * Provides:
 *   - command-line options shared by all harnesses (provider name/path,
 *     stats dir, seed, verbosity, sub-test selection)       cpt_opts_*
 *   - provider loading (via a temporary openssl.cnf when a stats dir is
 *     given, else via search path + OSSL_PROVIDER_load) plus a reference
 *     library context holding only the default provider      cpt_env_*
 *   - a small seeded PRNG (xoshiro256**)                     cpt_rng_*
 *   - hex encode/decode and a "Name = value" record-file parser cpt_hex_*,
 *     cpt_recfile_*
 *   - the provider statistics file check                     cpt_stats_*
 *   - an OpenSSL ASYNC job runner (poll()s wait fds, spurious resumes)
 *                                                            cpt_jobs_*
 *   - pass/fail accounting and the closing "N passed, N failed" line
 *
 * Everything is C11 + POSIX; link with -lcrypto -lpthread.
 */
#ifndef CPT_TESTS_COMMON_H
#define CPT_TESTS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <openssl/async.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#if defined(__GNUC__)
#define CPT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CPT_PRINTF(a, b)
#endif

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

typedef struct cpt_opts {
    const char *provider; /* provider under test, default "cptprov" */
    const char *provider_path; /* module directory, default "build" */
    const char *stats_dir; /* NULL: load without a config file */
    int no_stats; /* skip the stats file check */
    uint64_t seed; /* PRNG seed (time based unless --seed) */
    int seed_given;
    int verbose;
    int strict_errors; /* missing error-queue entries are failures
                                * even where the default provider leaves none */
    const char *only; /* comma separated sub-test names, or NULL */
    const char *skip; /* comma separated sub-test names, or NULL */
} cpt_opts;

/* Sets defaults (seed from time and pid). */
void cpt_opts_init(cpt_opts *o);
/*
 * Tries to consume argv[*i] (and its value) as a common option.  Returns 1
 * when consumed (and advances *i past the value), 0 when the option is not
 * a common one, -1 on a malformed value (message printed).
 */
int cpt_opts_parse_one(cpt_opts *o, int argc, char **argv, int *i);
/* Usage text of the common options. */
void cpt_opts_usage(FILE *f);
/* Whether sub-test `name` is selected by --only/--skip. */
int cpt_selected(const cpt_opts *o, const char *name);
/* A harness's table of sub-tests (or cases): name for --only/--skip, body. */
typedef struct cpt_named_test {
    const char *name;
    void (*fn)(void);
} cpt_named_test;
/* Runs the selected sub-tests in order, each with its summary line. */
void cpt_run_tests(const cpt_opts *o, const cpt_named_test *tests, size_t n);
/*
 * Parses the common options and --iters N / --maxlen BYTES (either pointer
 * may be NULL when the harness has no such option). Returns 0 to go on,
 * 2 after printing usage.
 */
int cpt_parse_harness_args(cpt_opts *o, int argc, char **argv, uint64_t *iters, size_t *maxlen);
/*
 * Parses the common options of a program that checks no statistics and
 * its own options with a value: names[k] (n of them) sets values[k] (left
 * as they are when not given). 0 at an option neither takes.
 */
int cpt_parse_bare_args(cpt_opts *o, int argc, char **argv, const char *const *names,
    const char **values, size_t n);
/* Parses an unsigned decimal/hex number; returns 0 on error. */
int cpt_parse_u64(const char *s, uint64_t *out);

/* ------------------------------------------------------------------ */
/* Provider environment                                                */
/* ------------------------------------------------------------------ */

typedef struct cpt_env {
    OSSL_LIB_CTX *libctx; /* provider under test (+ default) */
    OSSL_PROVIDER *prov; /* set when loaded via OSSL_PROVIDER_load */
    OSSL_PROVIDER *prov_dflt; /* default provider in libctx (path mode) */
    OSSL_LIB_CTX *ref_libctx; /* reference: only the default provider */
    OSSL_PROVIDER *ref_prov;
    char name[64]; /* provider under test */
    char propq[96]; /* "provider=<name>" */
    char module_dir[4096]; /* absolute module directory */
    char stats_dir[4096]; /* absolute stats dir, "" if none */
} cpt_env;

/* Loads the provider under test and the reference.  Returns 1 on success. */
int cpt_env_init(cpt_env *env, const cpt_opts *o);
/* Counts this process's open fds (with show, prints what each is);
 * -1 when /proc/self/fd cannot be read. */
int cpt_open_fds(int show);
/* Unloads providers and frees both library contexts (in that order). */
void cpt_env_free(cpt_env *env);
/*
 * Fetches `alg` from the provider under test (ref == 0) or the reference
 * (ref != 0) with an explicit provider= property query and checks that the
 * implementation really comes from that provider.  NULL on failure (a
 * message is printed).
 */
EVP_CIPHER *cpt_fetch_cipher(const cpt_env *env, int ref, const char *alg);
/* Name of the provider an EVP_CIPHER came from ("?" if none). */
const char *cpt_cipher_provider_name(const EVP_CIPHER *c);
/*
 * Fetches n ciphers, name(i) each, from the provider under test into tc
 * and from the reference into rc, a check for each. 0 at the first that
 * fails.
 */
int cpt_fetch_cipher_pairs(const cpt_env *env, EVP_CIPHER **tc, EVP_CIPHER **rc, size_t n,
    const char *(*name)(size_t i));
void cpt_free_cipher_pairs(EVP_CIPHER **tc, EVP_CIPHER **rc, size_t n);
/*
 * A cipher harness's end: when the n pairs are fetched, runs its tests;
 * then frees the ciphers and the providers. The exit status.
 */
int cpt_run_cipher_tests(const cpt_opts *o, cpt_env *env, EVP_CIPHER **tc, EVP_CIPHER **rc,
    size_t n, const char *(*name)(size_t i), const cpt_named_test *tests, size_t ntests);
/* The SHA-1 and SHA-2 digests, of the digest, HMAC and libctx harnesses. */
#define CPT_NSHA 7
extern const char *const cpt_sha_names[CPT_NSHA];
/*
 * A differential harness's start: its options (cpt_parse_harness_args),
 * the providers and the "NAME: provider P, seed S" line. -1 to go on, else
 * the exit status.
 */
int cpt_harness_start(const char *name, cpt_opts *o, cpt_env *env, int argc, char **argv,
    uint64_t *iters, size_t *maxlen);
/*
 * Runs an encryption or decryption context set up (ok) on in, then frees
 * it. 1 on success.
 */
int cpt_pkey_crypt_final(EVP_PKEY_CTX *c, int ok, int decrypt, const unsigned char *in,
    size_t inlen, unsigned char *out, size_t *outlen);
/* Frees n pointers (any of them NULL). */
void cpt_free_n(size_t n, ...);

/* ------------------------------------------------------------------ */
/* PRNG: xoshiro256**, seeded by splitmix64(seed, stream)              */
/* ------------------------------------------------------------------ */

typedef struct cpt_rng {
    uint64_t s[4];
} cpt_rng;

void cpt_rng_seed(cpt_rng *r, uint64_t seed, uint64_t stream);
uint64_t cpt_rng_u64(cpt_rng *r);
/* Uniform in [0, n); n == 0 returns 0. */
uint64_t cpt_rng_below(cpt_rng *r, uint64_t n);
/* Uniform in [lo, hi] (inclusive). */
uint64_t cpt_rng_range(cpt_rng *r, uint64_t lo, uint64_t hi);
/* 1 with probability pct/100. */
int cpt_rng_pct(cpt_rng *r, unsigned pct);
void cpt_rng_fill(cpt_rng *r, void *buf, size_t len);
/* A well-mixed 64-bit value from two inputs (for deriving sub-seeds). */
uint64_t cpt_mix64(uint64_t a, uint64_t b);
/*
 * A message length: below 300 with probability short_pct%, below mid up to
 * mid_pct%, else up to maxlen (inclusive).
 */
size_t cpt_pick_len(cpt_rng *r, unsigned short_pct, unsigned mid_pct, size_t mid, size_t maxlen);
/* The next update's size out of left (all of it when r == NULL): small
 * updates as often as large ones. */
size_t cpt_pick_chunk(cpt_rng *r, size_t left);

/* ------------------------------------------------------------------ */
/* Hex and record files                                                */
/* ------------------------------------------------------------------ */

/* Writes lowercase hex of buf into out (2*len+1 bytes); returns out. */
char *cpt_hex_encode(const unsigned char *buf, size_t len, char *out);
/* Prints "label: hex" (truncated to max bytes if max > 0) to f. */
void cpt_hex_dump(FILE *f, const char *label, const unsigned char *buf, size_t len, size_t max);
/*
 * Decodes hex (whitespace ignored, case insensitive).  *out is malloc'ed
 * (never NULL on success, even for empty input).  Returns 1 on success.
 */
int cpt_hex_decode(const char *hex, unsigned char **out, size_t *outlen);

typedef struct cpt_kv {
    char *name;
    char *value;
} cpt_kv;

typedef struct cpt_record {
    cpt_kv *kv;
    size_t n;
    int line; /* line number of the first field in the file */
} cpt_record;

typedef struct cpt_recfile {
    cpt_record *recs;
    size_t n;
} cpt_recfile;

/*
 * Loads a file made of records of "Name = value" lines separated by blank
 * lines; lines starting with '#' are comments.  Inside a record, a PEM block
 * (from "-----BEGIN " to "-----END ", no blank line) becomes the field
 * "PEM" with its lines.  Returns 1 on success.
 */
int cpt_recfile_load(const char *path, cpt_recfile *rf);
void cpt_recfile_free(cpt_recfile *rf);
/* Value of field `name` (case insensitive) or NULL. */
const char *cpt_record_get(const cpt_record *r, const char *name);
/*
 * Decodes the hex field `name`.  Returns 1 ok, 0 absent (then *out is a
 * malloc'ed empty buffer and *len 0), -1 malformed.
 */
int cpt_record_get_hex(const cpt_record *r, const char *name, unsigned char **out, size_t *len);

/* Locates a file relative to the cwd or to the directory of argv0/..   */
/* (so "tests/vectors/x" works from the repo root and from build/).     */
int cpt_find_file(const char *argv0, const char *rel, char *out, size_t outlen);

/* ------------------------------------------------------------------ */
/* Provider statistics file                                            */
/* ------------------------------------------------------------------ */

typedef struct cpt_alg_stats {
    int found;
    long long ops, bytes, device, software, errors;
} cpt_alg_stats;

/*
 * Reads stats_dir/<prefix>-<pid>.json and extracts the counters of `alg`
 * with a tolerant scan (no JSON library).  Returns 1 when the file was read
 * and its "pid" matches (st->found tells whether `alg` was present), 0 when
 * missing/unreadable/mismatched (why filled in).
 */
/* cptstat -json of pid's statistics area in stats_dir (malloc'ed text), or
 * NULL with errno set when there is none. */
char *cpt_stats_json(const char *stats_dir, pid_t pid, size_t *len);
/* A counter of the "device" object of such a document (the driver's and
 * the device's counters), -1 if absent. */
long long cpt_stats_device_counter(const char *doc, const char *name);
/* On CPTPROV_TEST_BACKEND=dpdk: its devices hold no ops or mbufs. */
void cpt_check_test_backend(const cpt_env *env);
/* Whether the tests' backend computes alg on a device: 1 (no test backend:
 * the simulator computes everything), 2 (its "# device:" line names alg),
 * 0 (it computes alg on the CPU). */
int cpt_test_backend_offers(const char *alg);
int cpt_stats_read(const char *stats_dir, const char *prefix, pid_t pid, const char *alg,
    cpt_alg_stats *st, char *why, size_t whylen);
/*
 * For an algorithm with a CPU path: checks (one count) that the provider's
 * stats file for this process shows it did work on the device and, unless
 * CPTPROV_CPU_THRESHOLD=0 turned the CPU path off, on the CPU path too
 * (software), and that ops covers both. Prints why when it does not. Does
 * nothing (but say so when verbose) without a stats dir or for "default".
 */
void cpt_stats_check_paths(const cpt_env *env, const cpt_opts *o, const char *alg);
/*
 * Waits up to timeout_ms for the stats file of `pid` to show ops > 0 and
 * bytes > 0 for every algorithm in algs (NULL terminated).  Counts one
 * pass/failure per algorithm.  Returns 1 when all good.
 */
int cpt_stats_check(const char *stats_dir, const char *prefix, pid_t pid, const char *const *algs,
    int timeout_ms, int verbose);

/* ------------------------------------------------------------------ */
/* ASYNC job runner                                                    */
/* ------------------------------------------------------------------ */

/*
 * Runs ntasks calls of fn(args[i]) each inside its own ASYNC job, with at
 * most max_inflight jobs started at once.  Jobs that pause are resumed when
 * one of the fds of their wait context is readable (poll()); jobs that
 * paused without any fd are resumed on the next round.  With probability
 * spurious_pct a paused job is also resumed before its fd is readable.
 *
 * fn runs on a 32 KiB job stack without a guard page: keep its locals small
 * and print nothing from it.  fn's return value is stored in results[i]
 * (-1 if the job could not run).
 */
typedef int (*cpt_task_fn)(void *arg);

typedef struct cpt_jobs {
    /* inputs */
    cpt_task_fn fn;
    void **args;
    size_t ntasks;
    size_t max_inflight;
    unsigned spurious_pct; /* 0..100 */
    unsigned new_wctx_pct; /* chance of a fresh ASYNC_WAIT_CTX per task
                              * (otherwise a slot's context is reused) */
    uint64_t seed;
    int timeout_s; /* give up after this long without progress */
    /* outputs */
    int *results; /* ntasks entries, allocated by the caller */
    unsigned char *paused; /* ntasks entries: job paused at least once */
    size_t tasks_paused; /* tasks that paused at least once */
    size_t pauses; /* ASYNC_PAUSE returns in total */
    size_t fd_waits; /* resumes after a readable fd */
    size_t nofd_resumes; /* resumes of paused jobs that had no fd */
    size_t spurious_resumes; /* resumes before the fd was readable */
    size_t max_fds; /* most fds seen in one wait context */
    size_t async_errors; /* ASYNC_ERR returns */
    size_t no_jobs; /* ASYNC_NO_JOBS returns (retried) */
    int timed_out; /* jobs abandoned (leaked) after timeout */
} cpt_jobs;

/* Returns 1 when every task ran to completion (whatever fn returned). */
int cpt_jobs_run(cpt_jobs *j);
/*
 * The ASYNC tests' proof that operations paused their jobs. Whether an
 * operation finds the device already done when its job would pause is up
 * to the scheduler: on a loaded machine the woken engine can run first
 * every time, and nothing pauses. So a round of an ASYNC test in which no
 * job paused is run again, made and checked in full, up to
 * CPT_ASYNC_ROUNDS rounds, each later one after a longer sleep (a burst
 * of load, or an open circuit, passes); a provider that never pauses
 * still fails. cpt_async_retry says whether to run another round after
 * round rounds (and notes the round that did not pause);
 * cpt_check_paused counts the check ("<what> went asynchronous"), not for
 * the default provider (provider: the name under test), which never pauses.
 */
#define CPT_ASYNC_ROUNDS 8
int cpt_async_retry(const char *provider, size_t paused, int round);
void cpt_check_paused(const char *provider, const char *what, size_t paused, size_t n, int rounds);
/*
 * cpt_jobs_check of n jobs that should reach the device; returns how many
 * paused.
 */
size_t cpt_jobs_check_async(cpt_jobs *j, cpt_task_fn fn, void **args, size_t n, uint64_t seed);
/*
 * A differential harness's ASYNC test: n jobs of size bytes each, made in
 * order by make from one stream of the seed, run by run in ASYNC jobs
 * (cpt_jobs_check_async), then compared with the reference and freed by
 * check, in order; in rounds until one pauses (cpt_check_paused).
 */
typedef struct cpt_async_test {
    size_t n, size;
    uint64_t stream;
    const char *what;
    void (*make)(void *job, int k, cpt_rng *r);
    cpt_task_fn run;
    void (*check)(void *job, int k);
} cpt_async_test;
void cpt_async_run(const cpt_env *env, uint64_t seed, const cpt_async_test *t);
/*
 * cpt_jobs_run of n jobs all at once (20% spurious resumes, 30 s), as the
 * public key harnesses run them; counts a check that the jobs ran.
 */
void cpt_jobs_check_all(cpt_jobs *j, cpt_task_fn fn, void **args, size_t n, uint64_t seed,
    int *results, unsigned char *paused);
/*
 * cpt_jobs_run with the differential harnesses' settings (at most 32 jobs
 * at once, 20% spurious resumes, 30% fresh wait contexts, 60 s): fills j
 * (its outputs are read after) and counts a check that the jobs ran.
 */
void cpt_jobs_check(cpt_jobs *j, cpt_task_fn fn, void **args, size_t n, uint64_t seed, int *results,
    unsigned char *paused);

/* ------------------------------------------------------------------ */
/* Accounting                                                          */
/* ------------------------------------------------------------------ */

/* Sets the sub-test name used as prefix of FAIL/NOTE lines (per thread). */
void cpt_set_subtest(const char *name);
const char *cpt_subtest(void);
/* Prints "FAIL [subtest] ..." (does not count). Thread safe. */
void cpt_fail_line(const char *fmt, ...) CPT_PRINTF(1, 2);
/* Prints "NOTE [subtest] ..." and counts a note. */
void cpt_note(const char *fmt, ...) CPT_PRINTF(1, 2);
/* Prints "INFO [subtest] ..." when verbose. */
void cpt_info(const char *fmt, ...) CPT_PRINTF(1, 2);
void cpt_set_verbose(int v);
int cpt_verbose(void);
/* Counts one passed (ok != 0) or failed case. Returns ok. */
int cpt_count(int ok);
/* cpt_count(cond) and a FAIL line with the message when !cond. */
int cpt_check(int cond, const char *fmt, ...) CPT_PRINTF(2, 3);
/* cpt_check for a check of OpenSSL calls, from file:line: a failure also
 * prints OpenSSL's error queue; the queue is emptied either way, so that
 * each check starts clean. */
int cpt_check_at(int cond, const char *file, int line, const char *fmt, ...) CPT_PRINTF(4, 5);
#define CPT_CHECK(cond, ...) cpt_check_at((cond), __FILE__, __LINE__, __VA_ARGS__)
unsigned long cpt_passed(void);
unsigned long cpt_failed(void);
unsigned long cpt_notes(void);
/* Prints the per-sub-test summary line (call when a sub-test ends). */
void cpt_subtest_summary(const char *name, double seconds);
/*
 * Prints exactly "N passed, N failed" and returns the process exit code
 * (0 when nothing failed).
 */
int cpt_finish(void);

/* Monotonic seconds. */
double cpt_now(void);
/* Drains the calling thread's error queue to stderr when verbose, else
 * silently; returns 1 if it was non-empty. */
int cpt_drain_errors(int print);

#endif /* CPT_TESTS_COMMON_H */
