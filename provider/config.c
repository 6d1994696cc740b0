/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The provider's configuration: the keys of its openssl.cnf section, read
 * through the core's get_params (strings only, at load time: no Go here),
 * each checked against what it accepts. A bad value, or a key cptprov does
 * not know, refuses activation with an error naming the key, the value and
 * what is accepted. A few environment variables override keys for tests.
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <openssl/conf.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include "cptprov.h"

/*
 * The CPU path's thresholds per family of algorithms (algorithms.def, with
 * their defaults), configurable per family (cpu_threshold_<family>) or for
 * all (cpu_threshold).
 */
enum {
#define CPT_FAMILY(family, threshold) F_##family,
#include "algorithms.def"
    NFAMILIES
};
static const struct {
    const char *key;
    size_t dflt;
} cpu_families[NFAMILIES] = {
#define CPT_FAMILY(family, threshold) [F_##family] = { "cpu_threshold_" #family, threshold },
#include "algorithms.def"
};
/* The family of each counter slot, plus one (0: none). Every slot is
 * initialised once: -Woverride-init refuses two algorithms on one. */
static const unsigned char slot_family[CPT_MAX_ALGS] = {
#define CPT_CIPHER(ID, num, name, aliases, family, keylen) [CPT_ALG_##ID] = F_##family + 1,
#define CPT_STITCHED(ID, num, name, family, keylen, digest) [CPT_ALG_##ID] = F_##family + 1,
#define CPT_DIGEST(ID, num, name, aliases, family, hmac_family, size, blocksize) \
    [CPT_ALG_MD_BASE + CPT_MD_##ID] = F_##family + 1,                            \
                       [CPT_ALG_MAC_BASE + CPT_MD_##ID] = F_##hmac_family + 1,
#include "algorithms.def"
};

/* What a key accepts. */
enum kind {
    K_COUNT, /* a whole number from min to max */
    K_SWITCH, /* on/off, yes/no, true/false, 1/0 */
    K_DIR, /* an existing directory */
    K_FAULTS, /* a simulator fault plan */
    K_LEVEL, /* a log level */
    K_LOGFILE, /* stderr, syslog, or a file in an existing directory */
    K_BACKEND, /* the device behind the queues */
    K_NOTIFY, /* how an asynchronous job learns its operation is done */
    K_ALGORITHMS, /* the algorithms to offer (algset.c) */
    K_ARGS, /* a command line: printable, at most CPT_DPDK_ARGS_MAX bytes */
    K_DEVICES, /* device names or PCI addresses, separated by commas or blanks */
};

/* The keys that are not thresholds, in the order of config_value. */
enum {
    C_STATS_DIR,
    C_ENGINES,
    C_RING_DEPTH,
    C_SPIN_US,
    C_FAULTS,
    C_FALLBACK,
    C_TIMEOUT_MS,
    C_RETRIES,
    C_BREAKER_THRESHOLD,
    C_BREAKER_COOLDOWN_MS,
    C_CPU_THRESHOLD,
    C_LOG_LEVEL,
    C_LOG_FILE,
    C_BACKEND,
    C_ASYNC_NOTIFY,
    C_ALGORITHMS,
    C_DPDK_EAL_ARGS,
    C_DPDK_DEVICES,
    C_DPDK_QUEUE_PAIRS,
    C_DPDK_QUEUE_DEPTH,
    NKEYS
};

static const struct key {
    const char *name, *env; /* env: the variable that overrides it (tests) */
    enum kind kind;
    long min, max;
} keys[NKEYS] = {
    [C_STATS_DIR] = { "stats_dir", NULL, K_DIR, 0, 0 },
    [C_ENGINES] = { "engines", NULL, K_COUNT, 0, 256 },
    [C_RING_DEPTH] = { "ring_depth", NULL, K_COUNT, 1, 1 << 20 },
    [C_SPIN_US] = { "engine_spin_us", NULL, K_COUNT, 0, 1000000 },
    [C_FAULTS] = { "faults", "CPTPROV_FAULTS", K_FAULTS, 0, 0 },
    [C_FALLBACK] = { "fallback", "CPTPROV_FALLBACK", K_SWITCH, 0, 1 },
    [C_TIMEOUT_MS] = { "request_timeout_ms", "CPTPROV_REQUEST_TIMEOUT_MS", K_COUNT, 1, 3600000 },
    [C_RETRIES] = { "retries", NULL, K_COUNT, 0, 10 },
    [C_BREAKER_THRESHOLD] = { "breaker_threshold", NULL, K_COUNT, 1, 1000000 },
    [C_BREAKER_COOLDOWN_MS] = { "breaker_cooldown_ms", NULL, K_COUNT, 1, 3600000 },
    [C_CPU_THRESHOLD] = { "cpu_threshold", "CPTPROV_CPU_THRESHOLD", K_COUNT, 0, 1L << 30 },
    [C_LOG_LEVEL] = { "log_level", "CPTPROV_LOG_LEVEL", K_LEVEL, 0, 4 },
    [C_LOG_FILE] = { "log_file", "CPTPROV_LOG_FILE", K_LOGFILE, 0, 0 },
    [C_BACKEND] = { "backend", NULL, K_BACKEND, 0, 0 },
    [C_ASYNC_NOTIFY] = { "async_notify", "CPTPROV_ASYNC_NOTIFY", K_NOTIFY, 0, 0 },
    [C_ALGORITHMS] = { "algorithms", NULL, K_ALGORITHMS, 0, 0 },
    [C_DPDK_EAL_ARGS] = { "dpdk_eal_args", NULL, K_ARGS, 0, 0 },
    [C_DPDK_DEVICES] = { "dpdk_devices", NULL, K_DEVICES, 0, 0 },
    [C_DPDK_QUEUE_PAIRS] = { "dpdk_queue_pairs", NULL, K_COUNT, 1, 64 },
    [C_DPDK_QUEUE_DEPTH] = { "dpdk_queue_depth", NULL, K_COUNT, 16, 8192 },
};

/* The keys that only the dpdk backend reads. */
static int dpdk_key(size_t i)
{
    return i == C_DPDK_EAL_ARGS || i == C_DPDK_DEVICES || i == C_DPDK_QUEUE_PAIRS
        || i == C_DPDK_QUEUE_DEPTH;
}

static const char *const levels[] = { "debug", "info", "warn", "error", "off" };
/* The first is the default. */
static const char *const backends[] = CPT_BACKENDS;
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))
static const struct key family_key = { NULL, NULL, K_COUNT, 0, 1L << 30 };

/* Keys of a provider section that OpenSSL itself reads. */
static const char *const openssl_keys[] = { "module", "activate", "identity", "soft_load" };

static OSSL_FUNC_core_get_params_fn *c_get_params;

void cptprov_config_init(const OSSL_DISPATCH *in)
{
    for (; in->function_id != 0; in++)
        if (in->function_id == OSSL_FUNC_CORE_GET_PARAMS)
            c_get_params = OSSL_FUNC_core_get_params(in);
}

/*
 * Refuses activation: the error goes on OpenSSL's error queue and, as
 * OpenSSL 3.0 drops the errors of a provider its configuration fails to
 * activate, to stderr too (the log of nginx, haproxy, a service manager).
 */
/*
 * A refusal in the configured log too, in the Go side's format (that side
 * never starts in a provider that refused): a file, or syslog (facility
 * daemon, without openlog, whose ident belongs to the host).
 */
static void log_refusal(const char *dest, const char *msg)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    FILE *f;

    if (strcmp(dest, "syslog") == 0) {
        syslog(LOG_DAEMON | LOG_ERR, "cptprov[%ld] error: %s (not activated)", (long)getpid(), msg);
        return;
    }
    if ((f = fopen(dest, "a")) == NULL)
        return;
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    fprintf(f, "%s cptprov[%ld] error: %s (not activated)\n", stamp, (long)getpid(), msg);
    fclose(f);
}

static int refuse(struct cptprov_ctx *p, const char *fmt, ...)
{
    char msg[1024]; /* room for the names `algorithms` accepts */
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cptprov_raise(p, CPT_R_BAD_CONFIG, OPENSSL_FILE, OPENSSL_LINE, "cptprov_config", "%s", msg);
    fprintf(stderr, "%s (cptprov not activated)\n", msg);
    if (p->refusal_log != NULL)
        log_refusal(p->refusal_log, msg);
    return 0;
}

static int bad(struct cptprov_ctx *p, const char *key, const char *value, const char *accepted)
{
    return refuse(p, "cptprov: %s = \"%s\" is not valid: %s", key, value, accepted);
}

static int parse_switch(const char *v)
{
    static const char *const on[] = { "on", "yes", "true", "1" },
                             *const off[] = { "off", "no", "false", "0" };

    for (size_t i = 0; i < 4; i++) {
        if (OPENSSL_strcasecmp(v, on[i]) == 0)
            return 1;
        if (OPENSSL_strcasecmp(v, off[i]) == 0)
            return 0;
    }
    return -1;
}

/*
 * The syntax of a fault plan, as simulator.ParseFaultPlan reads it (the Go
 * side parses it again when the device starts, and cannot run here):
 * rules "kind[:key=value,...]" separated by ';'.
 */
static int faults_ok(const char *plan)
{
    static const char *const kinds[] = { "error", "delay", "stall", "reset", "full", "crt",
        "absent" };
    const size_t nkinds = sizeof(kinds) / sizeof(kinds[0]), absent = nkinds - 1;
    static const char *const fkeys[] = { "every", "rate", "seed", "skip", "limit", "delay", "op" };
    char *copy = OPENSSL_strdup(plan), *save = NULL, *rule;
    int ok = copy != NULL, rules = 0;

    for (rule = ok ? strtok_r(copy, ";", &save) : NULL; ok && rule != NULL;
         rule = strtok_r(NULL, ";", &save)) {
        char *args = strchr(rule, ':'), *save2 = NULL, *kv;
        size_t k;

        while (*rule == ' ')
            rule++;
        if (*rule == '\0')
            continue;
        if (args != NULL)
            *args++ = '\0';
        for (k = 0; k < nkinds && strcmp(rule, kinds[k]) != 0; k++)
            ;
        ok = k < nkinds && !(k == absent && args != NULL);
        rules++;
        for (kv = ok && args ? strtok_r(args, ",", &save2) : NULL; ok && kv != NULL;
             kv = strtok_r(NULL, ",", &save2)) {
            char *eq = strchr(kv, '=');
            size_t j;

            while (*kv == ' ')
                kv++;
            ok = eq != NULL && eq[1] != '\0';
            if (ok) {
                *eq = '\0';
                for (j = 0; j < 7 && strcmp(kv, fkeys[j]) != 0; j++)
                    ;
                ok = j < 7;
            }
        }
    }
    OPENSSL_free(copy);
    return ok && rules > 0;
}

/* A command line for the device runtime: printable, no quoting. */
static int args_ok(const char *v)
{
    size_t n = strlen(v);

    if (n == 0 || n > CPT_DPDK_ARGS_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isprint((unsigned char)v[i]) || v[i] == '"' || v[i] == '\\' || v[i] == '\'')
            return 0;
    return 1;
}

/* Device names: [A-Za-z0-9_.:-]+, separated by commas or blanks. */
static int devices_ok(const char *v)
{
    int count = 0, in = 0;
    size_t len = 0;

    for (const char *c = v;; c++) {
        if (*c != '\0' && (isalnum((unsigned char)*c) || strchr("_.:-", *c) != NULL)) {
            if (!in)
                count++;
            in = 1;
            if (++len >= CPT_DPDK_NAME_MAX)
                return 0;
            continue;
        }
        if (*c != '\0' && *c != ',' && *c != ' ' && *c != '\t')
            return 0;
        in = 0;
        len = 0;
        if (*c == '\0')
            break;
    }
    return count > 0 && count <= CPT_DPDK_DEVICES_MAX;
}

/* Checks value v of key k; a count goes to *n. */
/* stderr, syslog, or a file in an existing directory. */
static int log_file_ok(const char *v)
{
    const char *slash = strrchr(v, '/');
    char dir[4096];
    struct stat st;

    if (strcmp(v, "stderr") == 0 || strcmp(v, "syslog") == 0)
        return 1;
    snprintf(dir, sizeof(dir), "%.*s",
        slash == NULL    ? 1
            : slash == v ? 1
                         : (int)(slash - v),
        slash == NULL ? "." : v);
    return v[0] != '\0' && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static int check(struct cptprov_ctx *p, const struct key *k, const char *name, const char *v,
    long *n)
{
    char range[320]; /* the backends' list fits (names: 256) */

    switch (k->kind) {
    case K_COUNT: {
        char *end;

        errno = 0;
        *n = strtol(v, &end, 10);
        if (errno == 0 && end != v && *end == '\0' && *n >= k->min && *n <= k->max)
            return 1;
        snprintf(range, sizeof(range), "use a whole number from %ld to %ld", k->min, k->max);
        return bad(p, name, v, range);
    }
    case K_SWITCH:
        if ((*n = parse_switch(v)) >= 0)
            return 1;
        return bad(p, name, v, "use on or off");
    case K_DIR: {
        struct stat st;

        if (stat(v, &st) == 0 && S_ISDIR(st.st_mode))
            return 1;
        return bad(p, name, v, "use an existing directory");
    }
    case K_LEVEL:
        for (*n = 0; *n < 5; (*n)++)
            if (OPENSSL_strcasecmp(v, levels[*n]) == 0)
                return 1;
        return bad(p, name, v, "use debug, info, warn, error or off");
    case K_LOGFILE:
        if (log_file_ok(v))
            return 1;
        return bad(p, name, v, "use stderr, syslog or a file in an existing directory");
    case K_NOTIFY:
        if (strcmp(v, "auto") == 0 || strcmp(v, "fd") == 0) {
            *n = strcmp(v, "auto") == 0;
            return 1;
        }
        return bad(p, name, v,
            "use auto (the wait-context callback when the application set one, an fd "
            "otherwise) or fd");
    case K_BACKEND: {
        char names[256] = "";

        for (*n = 0; *n < (long)NBACKENDS; (*n)++)
            if (strcmp(v, backends[*n]) == 0)
                return 1;
        for (size_t i = 0; i < NBACKENDS; i++)
            snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                i > 0 ? ", " : "", backends[i]);
        snprintf(range, sizeof(range),
            NBACKENDS == 1 ? "use %s (the only backend in this build)"
                           : "use one of %s (the backends in this build)",
            names);
        return bad(p, name, v, range);
    }
    case K_FAULTS:
        if (faults_ok(v))
            return 1;
        return bad(p, name, v,
            "use rules kind[:key=value,...] separated by ';', kinds error, delay, stall, reset, "
            "full, crt, absent, "
            "keys every, rate, seed, skip, limit, delay, op");
    case K_ALGORITHMS:
        return 1; /* checked as it is applied: choose_algorithms */
    case K_ARGS:
        if (args_ok(v))
            return 1;
        snprintf(range, sizeof(range),
            "use DPDK EAL arguments separated by blanks, printable, at most %d bytes",
            CPT_DPDK_ARGS_MAX);
        return bad(p, name, v, range);
    case K_DEVICES:
        if (devices_ok(v))
            return 1;
        snprintf(range, sizeof(range),
            "use cryptodev names (crypto_aesni_gcm0) or PCI addresses (0002:20:00.1), at most "
            "%d, separated by commas or blanks",
            CPT_DPDK_DEVICES_MAX);
        return bad(p, name, v, range);
    }
    return 0;
}

/*
 * The algorithms to offer: what the `algorithms` key chooses (value), or
 * everything (NULL), kept in p for query_operation. Checking the list is
 * applying it, so this is the key's check too.
 */
static int choose_algorithms(struct cptprov_ctx *p, const char *value)
{
    char why[800];

    if ((p->algs = cptprov_algset_new(value, why, sizeof(why))) != NULL)
        return 1;
    return bad(p, keys[C_ALGORITHMS].name, value != NULL ? value : "", why);
}

static int known_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(name, keys[i].name) == 0)
            return 1;
    for (size_t i = 0; i < NFAMILIES; i++)
        if (strcmp(name, cpu_families[i].key) == 0)
            return 1;
    for (size_t i = 0; i < sizeof(openssl_keys) / sizeof(openssl_keys[0]); i++)
        if (strcmp(name, openssl_keys[i]) == 0)
            return 1;
    return 0;
}

/*
 * A key cptprov does not know (a typo) refuses activation too. The core
 * hands out the values of the keys a provider asks for but cannot list
 * them, so the section is read from the configuration file itself
 * (OPENSSL_CONF or OpenSSL's default file): openssl_conf's init section,
 * its providers section, the section named for this provider. A file that
 * cannot be read, or has no such section (a configuration loaded from
 * elsewhere), leaves the check out.
 */
static int check_unknown_keys(struct cptprov_ctx *p, const OSSL_CORE_HANDLE *handle)
{
    char *prov = NULL, *deflt = NULL;
    OSSL_PARAM q[] = { OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_PROV_NAME, &prov, 0),
        OSSL_PARAM_END };
    const char *file = getenv("OPENSSL_CONF"), *init, *provs, *mine;
    CONF *conf;
    STACK_OF(CONF_VALUE) * sect;
    int ok = 1;

    if (!c_get_params(handle, q) || prov == NULL)
        return 1;
    if (file == NULL)
        file = deflt = CONF_get1_default_config_file();
    if (file == NULL || (conf = NCONF_new(NULL)) == NULL) {
        OPENSSL_free(deflt);
        return 1;
    }
    ERR_set_mark();
    if (NCONF_load(conf, file, NULL) > 0
        && (init = NCONF_get_string(conf, NULL, "openssl_conf")) != NULL
        && (provs = NCONF_get_string(conf, init, "providers")) != NULL
        && (mine = NCONF_get_string(conf, provs, prov)) != NULL
        && (sect = NCONF_get_section(conf, mine)) != NULL) {
        for (int i = 0; ok && i < sk_CONF_VALUE_num(sect); i++) {
            CONF_VALUE *v = sk_CONF_VALUE_value(sect, i);

            if (!known_key(v->name)) {
                ERR_pop_to_mark();
                ERR_set_mark();
                refuse(p,
                    "cptprov: unknown key %s = \"%s\" in [%s] of %s (keys: algorithms, backend, "
                    "async_notify, stats_dir, engines, "
                    "ring_depth, engine_spin_us, cpu_threshold, cpu_threshold_<family>, fallback, "
                    "request_timeout_ms, retries, breaker_threshold, breaker_cooldown_ms, "
                    "log_level, log_file, faults, dpdk_eal_args, dpdk_devices, "
                    "dpdk_queue_pairs, dpdk_queue_depth)",
                    v->name, v->value, mine, file);
                ok = 0;
            }
        }
    }
    if (ok)
        ERR_pop_to_mark(); /* a file that did not parse is not our error */
    else
        ERR_clear_last_mark();
    NCONF_free(conf);
    OPENSSL_free(deflt);
    return ok;
}

/*
 * The keys of what is one per process: the device with its queues, the log,
 * the statistics area and how ASYNC jobs are woken. The first provider
 * context activated in the process sets them; the others (cptprov in
 * further library contexts) run on the same. The CPU path's thresholds and
 * the algorithms offered are per context and may differ.
 */
enum pkind { P_INT, P_STR, P_SWITCH, P_LEVEL };
static const struct {
    const char *key;
    size_t off; /* in struct cpt_config */
    enum pkind kind;
} process_keys[] = {
    { "backend", offsetof(struct cpt_config, backend), P_STR },
    { "engines", offsetof(struct cpt_config, se_engines), P_INT },
    { "ring_depth", offsetof(struct cpt_config, ring_depth), P_INT },
    { "engine_spin_us", offsetof(struct cpt_config, spin_us), P_INT },
    { "faults", offsetof(struct cpt_config, faults), P_STR },
    { "fallback", offsetof(struct cpt_config, fallback), P_SWITCH },
    { "request_timeout_ms", offsetof(struct cpt_config, timeout_ms), P_INT },
    { "retries", offsetof(struct cpt_config, retries), P_INT },
    { "breaker_threshold", offsetof(struct cpt_config, breaker_threshold), P_INT },
    { "breaker_cooldown_ms", offsetof(struct cpt_config, breaker_cooldown_ms), P_INT },
    { "log_level", offsetof(struct cpt_config, log_level), P_LEVEL },
    { "log_file", offsetof(struct cpt_config, log_file), P_STR },
    { "stats_dir", offsetof(struct cpt_config, stats_dir), P_STR },
    { "dpdk_eal_args", offsetof(struct cpt_config, dpdk_eal_args), P_STR },
    { "dpdk_devices", offsetof(struct cpt_config, dpdk_devices), P_STR },
    { "dpdk_queue_pairs", offsetof(struct cpt_config, dpdk_queue_pairs), P_INT },
    { "dpdk_queue_depth", offsetof(struct cpt_config, dpdk_queue_depth), P_INT },
};
#define NPROCESS_KEYS (sizeof(process_keys) / sizeof(process_keys[0]))

static pthread_mutex_t process_mu = PTHREAD_MUTEX_INITIALIZER;
/* The values of the first context activated, as text (strdup'ed, kept for
 * the life of the process: the Go half, once started, cannot restart with
 * others), and its async_notify. */
static char *process_val[NPROCESS_KEYS];
static int process_set, process_notify;

/* Key i of cfg as the section would say it; NULL for a string unset. */
static const char *process_value(const struct cpt_config *cfg, size_t i, char *buf, size_t len)
{
    const void *f = (const char *)cfg + process_keys[i].off;
    int v = process_keys[i].kind == P_STR ? 0 : *(const int *)f;

    switch (process_keys[i].kind) {
    case P_STR:
        return *(const char *const *)f;
    case P_SWITCH:
        return v ? "on" : "off";
    case P_LEVEL:
        return levels[v];
    case P_INT:
        break;
    }
    if (v == 0)
        return "(default)";
    snprintf(buf, len, "%d", v < 0 ? 0 : v); /* retries: -1 is the file's 0 */
    return buf;
}

static int same_value(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * Refuses a context whose process-wide keys differ from the first one's:
 * it would run on that one's device, log and statistics while its section
 * says otherwise.
 */
static int same_process_config(struct cptprov_ctx *p, int notify)
{
    static const char *const notify_names[] = { "fd", "auto" };
    char buf[32];
    int ok = 1;

    pthread_mutex_lock(&process_mu);
    if (!process_set) {
        for (size_t i = 0; ok && i < NPROCESS_KEYS; i++) {
            const char *v = process_value(&p->cfg, i, buf, sizeof(buf));

            ok = v == NULL || (process_val[i] = strdup(v)) != NULL;
        }
        if (ok) {
            process_set = 1;
            process_notify = cptprov_async_callbacks = notify;
        } else {
            for (size_t i = 0; i < NPROCESS_KEYS; i++) {
                free(process_val[i]);
                process_val[i] = NULL;
            }
        }
        pthread_mutex_unlock(&process_mu);
        return ok;
    }
    for (size_t i = 0; ok && i < NPROCESS_KEYS; i++) {
        const char *v = process_value(&p->cfg, i, buf, sizeof(buf));

        if (!same_value(v, process_val[i]))
            ok = refuse(p,
                "cptprov: %s = \"%s\" differs from \"%s\" of the cptprov already active in this "
                "process "
                "(another library context): the device, its log and its statistics are one per "
                "process, so every "
                "context that loads cptprov must give them the same configuration",
                process_keys[i].key, v != NULL ? v : "(unset)",
                process_val[i] != NULL ? process_val[i] : "(unset)");
    }
    if (ok && notify != process_notify)
        ok = refuse(p,
            "cptprov: async_notify = \"%s\" differs from \"%s\" of the cptprov already active in "
            "this "
            "process (another library context): how ASYNC jobs are woken is one per process",
            notify_names[notify], notify_names[process_notify]);
    pthread_mutex_unlock(&process_mu);
    return ok;
}

/*
 * The dpdk backend's keys, and its shim: libcptdpdk.so beside the Go half,
 * built only where DPDK was found at build time. Both are checked here,
 * before any Go or DPDK runs, so that a section that cannot work refuses
 * activation with the reason instead of failing at the first operation.
 */
static int backend_ready(struct cptprov_ctx *p, char *const *val, const long *n)
{
    int dpdk = strcmp(p->cfg.backend, "dpdk") == 0;
    char dir[PATH_MAX], path[PATH_MAX + 32];
    const char *golib = getenv("CPTPROV_GOLIB"), *slash;

    for (size_t i = 0; i < NKEYS; i++)
        if (dpdk_key(i) && val[i] != NULL && !dpdk)
            return bad(p, keys[i].name, val[i], "it applies to backend = dpdk only");
    if (!dpdk)
        return 1;
    if (golib != NULL && golib[0] != '\0' && (slash = strrchr(golib, '/')) != NULL)
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - golib), golib);
    else if (!cptprov_module_dir(dir, sizeof(dir)))
        return refuse(p, "cptprov: backend = dpdk: cannot find the provider module's directory");
    snprintf(path, sizeof(path), "%s/libcptdpdk.so", dir);
    if (access(path, R_OK) != 0)
        return refuse(p,
            "cptprov: backend = dpdk: %s: %s (this cptprov was built without DPDK: install "
            "libdpdk-dev, so that pkg-config finds libdpdk, and rebuild)",
            path, strerror(errno));
    if ((p->dpdk_shim = OPENSSL_strdup(path)) == NULL
        || (val[C_DPDK_EAL_ARGS] != NULL
            && (p->dpdk_eal_args = OPENSSL_strdup(val[C_DPDK_EAL_ARGS])) == NULL)
        || (val[C_DPDK_DEVICES] != NULL
            && (p->dpdk_devices = OPENSSL_strdup(val[C_DPDK_DEVICES])) == NULL))
        return 0;
    p->cfg.dpdk_shim = p->dpdk_shim;
    p->cfg.dpdk_eal_args = p->dpdk_eal_args;
    p->cfg.dpdk_devices = p->dpdk_devices;
    p->cfg.dpdk_queue_pairs = (int)n[C_DPDK_QUEUE_PAIRS];
    p->cfg.dpdk_queue_depth = (int)n[C_DPDK_QUEUE_DEPTH];
    return 1;
}

static int config_read(struct cptprov_ctx *p, const OSSL_CORE_HANDLE *handle)
{
    char *val[NKEYS] = { NULL }, *family[NFAMILIES] = { NULL };
    OSSL_PARAM params[NKEYS + NFAMILIES + 1];
    long n[NKEYS] = { 0 };
    size_t np = 0;

    if (c_get_params == NULL)
        return 0;
    for (size_t i = 0; i < NKEYS; i++)
        params[np++] = OSSL_PARAM_construct_utf8_ptr(keys[i].name, &val[i], 0);
    for (size_t f = 0; f < NFAMILIES; f++)
        params[np++] = OSSL_PARAM_construct_utf8_ptr(cpu_families[f].key, &family[f], 0);
    params[np] = OSSL_PARAM_construct_end();
    if (!c_get_params(handle, params))
        return 0;
    for (size_t i = 0; i < NKEYS; i++) {
        const char *env = keys[i].env != NULL ? getenv(keys[i].env) : NULL;

        if (env != NULL && env[0] != '\0')
            val[i] = (char *)env;
    }
    /* A configuration problem goes to the configured log as well, when the
     * log keys themselves are good and let errors through. */
    if (val[C_LOG_FILE] != NULL && strcmp(val[C_LOG_FILE], "stderr") != 0
        && log_file_ok(val[C_LOG_FILE])
        && (val[C_LOG_LEVEL] == NULL || OPENSSL_strcasecmp(val[C_LOG_LEVEL], "off") != 0))
        p->refusal_log = val[C_LOG_FILE];
    for (size_t i = 0; i < NKEYS; i++) {
        if (val[i] != NULL && !check(p, &keys[i], keys[i].name, val[i], &n[i]))
            return 0;
    }
    for (size_t f = 0; f < NFAMILIES; f++) {
        const char *env = getenv("CPTPROV_CPU_THRESHOLD");
        long t = (long)cpu_families[f].dflt, tf = 0;

        if (family[f] != NULL && !check(p, &family_key, cpu_families[f].key, family[f], &tf))
            return 0;
        /* CPTPROV_CPU_THRESHOLD, then cpu_threshold_<family>, then
         * cpu_threshold, then the measured default. */
        if (env != NULL && env[0] != '\0')
            t = n[C_CPU_THRESHOLD];
        else if (family[f] != NULL)
            t = tf;
        else if (val[C_CPU_THRESHOLD] != NULL)
            t = n[C_CPU_THRESHOLD];
        for (size_t id = 0; id < CPT_MAX_ALGS; id++)
            if (slot_family[id] == f + 1)
                p->cpu_threshold[id] = (size_t)t;
    }
    if (!check_unknown_keys(p, handle) || !choose_algorithms(p, val[C_ALGORITHMS]))
        return 0;
    if (val[C_STATS_DIR] != NULL && (p->stats_dir = OPENSSL_strdup(val[C_STATS_DIR])) == NULL)
        return 0;
    if (val[C_FAULTS] != NULL && (p->faults = OPENSSL_strdup(val[C_FAULTS])) == NULL)
        return 0;
    if (val[C_LOG_FILE] != NULL && strcmp(val[C_LOG_FILE], "stderr") != 0
        && (p->log_file = OPENSSL_strdup(val[C_LOG_FILE])) == NULL)
        return 0;
    p->cfg.log_level = val[C_LOG_LEVEL] != NULL ? (int)n[C_LOG_LEVEL] : 2;
    p->cfg.log_file = p->log_file;
    p->cfg.se_engines = p->cfg.ae_engines = (int)n[C_ENGINES];
    p->cfg.ring_depth = (int)n[C_RING_DEPTH];
    p->cfg.spin_us = (int)n[C_SPIN_US];
    p->cfg.fallback = val[C_FALLBACK] != NULL ? (int)n[C_FALLBACK] : 1;
    p->cfg.timeout_ms = (int)n[C_TIMEOUT_MS];
    /* 0 in the file: no retry; 0 in the ABI: the default. */
    p->cfg.retries = val[C_RETRIES] != NULL && n[C_RETRIES] == 0 ? -1 : (int)n[C_RETRIES];
    p->cfg.breaker_threshold = (int)n[C_BREAKER_THRESHOLD];
    p->cfg.breaker_cooldown_ms = (int)n[C_BREAKER_COOLDOWN_MS];
    p->cfg.stats_dir = p->stats_dir;
    p->cfg.faults = p->faults;
    p->cfg.backend = backends[n[C_BACKEND]];
    if (!backend_ready(p, val, n))
        return 0;
    p->cfg.openssl_version = OpenSSL_version_num();
    if (!same_process_config(p, val[C_ASYNC_NOTIFY] != NULL ? (int)n[C_ASYNC_NOTIFY] : 1))
        return 0;
    cptprov_stats_configure(p->stats_dir);
    return 1;
}

int cptprov_config_read(struct cptprov_ctx *p, const OSSL_CORE_HANDLE *handle)
{
    int ok = config_read(p, handle);

    p->refusal_log = NULL; /* it pointed at the section's values */
    return ok;
}
