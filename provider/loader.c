/*
 * Loading the Go half (libcptgo.so) lazily, in the process that needs it.
 *
 * A Go runtime's threads do not survive fork(): a child that calls into a
 * runtime started by its parent hangs. nginx, haproxy and `openssl speed
 * -multi` load providers in the parent and fork workers, so nothing here
 * runs at load or configuration time. The first operation that needs the
 * device loads the library in its own process. A child whose parent had
 * already started Go cannot use that copy (same file, same dead runtime);
 * it loads a private copy of the library file through a memfd, which brings
 * a fresh runtime of its own. Fork is noticed by a pthread_atfork handler,
 * so the hot path tests one flag and makes no system call.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cptprov.h"

static pthread_mutex_t go_mu = PTHREAD_MUTEX_INITIALIZER;
static struct cptgo_api go_api;
static atomic_int go_ready; /* go_api usable in this process */
static int go_inherited; /* this address space holds a runtime started by an ancestor */
static int go_failed; /* start failed in this process: do not retry on every call */
static char go_error[1024];

static void loader_prepare(void)
{
    pthread_mutex_lock(&go_mu);
}

static void loader_parent(void)
{
    pthread_mutex_unlock(&go_mu);
}

static void loader_child(void)
{
    /* go_inherited stays as it was: the parent's runtime is mapped here, dead. */
    pthread_mutex_init(&go_mu, NULL);
    atomic_store(&go_ready, 0);
    go_failed = 0;
}

static void register_atfork(void)
{
    pthread_atfork(loader_prepare, loader_parent, loader_child);
}

int cptprov_loader_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    return pthread_once(&once, register_atfork) == 0;
}

/* The directory this provider module was loaded from. */
static int module_dir(char *buf, size_t len)
{
    Dl_info info;
    const char *slash;

    if (dladdr((void *)module_dir, &info) == 0 || info.dli_fname == NULL)
        return 0;
    slash = strrchr(info.dli_fname, '/');
    if (slash == NULL)
        return snprintf(buf, len, ".") < (int)len;
    return snprintf(buf, len, "%.*s", (int)(slash - info.dli_fname), info.dli_fname) < (int)len;
}

/* A private copy of path, so that dlopen gives this process its own runtime. */
static void *dlopen_private_copy(const char *path)
{
    char procpath[64], buf[65536];
    int src, mfd;
    ssize_t n;
    void *h = NULL;

    src = open(path, O_RDONLY | O_CLOEXEC);
    if (src < 0) {
        snprintf(go_error, sizeof(go_error), "open %.400s: %s", path, strerror(errno));
        return NULL;
    }
    mfd = memfd_create("libcptgo.so", MFD_CLOEXEC);
    if (mfd < 0) {
        snprintf(go_error, sizeof(go_error), "memfd_create: %s", strerror(errno));
        close(src);
        return NULL;
    }
    while ((n = read(src, buf, sizeof(buf))) > 0) {
        char *q = buf;
        while (n > 0) {
            ssize_t w = write(mfd, q, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                goto out;
            q += w;
            n -= w;
        }
    }
    if (n < 0)
        goto out;
    snprintf(procpath, sizeof(procpath), "/proc/self/fd/%d", mfd);
    h = dlopen(procpath, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        snprintf(go_error, sizeof(go_error), "dlopen of a private copy of %.400s: %.400s", path, dlerror());
out:
    if (h == NULL && go_error[0] == '\0')
        snprintf(go_error, sizeof(go_error), "copying %.400s: %s", path, strerror(errno));
    close(mfd);
    close(src);
    return h;
}

static int resolve(void *h)
{
#define SYM(field, name)                                                     \
    do {                                                                     \
        *(void **)&go_api.field = dlsym(h, name);                            \
        if (go_api.field == NULL) {                                          \
            snprintf(go_error, sizeof(go_error), "libcptgo.so lacks %s", name); \
            return 0;                                                        \
        }                                                                    \
    } while (0)
    SYM(abi_version, "cptgo_abi_version");
    SYM(start, "cptgo_start");
    SYM(shutdown, "cptgo_shutdown");
    SYM(flush, "cptgo_flush");
    SYM(cipher_init, "cptgo_cipher_init");
    SYM(cipher_update, "cptgo_cipher_update");
    SYM(cipher_final, "cptgo_cipher_final");
    SYM(cipher_oneshot, "cptgo_cipher_oneshot");
    SYM(cipher_export, "cptgo_cipher_export");
    SYM(digest_update, "cptgo_digest_update");
    SYM(digest_final, "cptgo_digest_final");
    SYM(mac_setkey, "cptgo_mac_setkey");
    SYM(mac_update, "cptgo_mac_update");
    SYM(mac_final, "cptgo_mac_final");
    SYM(cipher_import, "cptgo_cipher_import");
    SYM(cipher_get_ctx_params, "cptgo_cipher_get_ctx_params");
    SYM(cipher_set_ctx_params, "cptgo_cipher_set_ctx_params");
    SYM(cipher_dup, "cptgo_cipher_dup");
    SYM(cipher_free, "cptgo_cipher_free");
    SYM(key_import, "cptgo_key_import");
    SYM(key_export, "cptgo_key_export");
    SYM(key_get_params, "cptgo_key_get_params");
    SYM(key_set_params, "cptgo_key_set_params");
    SYM(key_match, "cptgo_key_match");
    SYM(key_validate, "cptgo_key_validate");
    SYM(keygen_set_params, "cptgo_keygen_set_params");
    SYM(keygen, "cptgo_keygen");
    SYM(keygen_set_template, "cptgo_keygen_set_template");
    SYM(derive, "cptgo_derive");
    SYM(sig_init, "cptgo_sig_init");
    SYM(sig_set_params, "cptgo_sig_set_params");
    SYM(sig_get_params, "cptgo_sig_get_params");
    SYM(sig_update, "cptgo_sig_update");
    SYM(sig_sign, "cptgo_sig_sign");
    SYM(sig_verify, "cptgo_sig_verify");
    SYM(sig_verify_recover, "cptgo_sig_verify_recover");
    SYM(asym_init, "cptgo_asym_init");
    SYM(asym_params, "cptgo_asym_params");
    SYM(asym_crypt, "cptgo_asym_crypt");
#undef SYM
    if (go_api.abi_version() != CPT_ABI_VERSION) {
        snprintf(go_error, sizeof(go_error), "libcptgo.so speaks ABI %d, cptprov.so %d",
            go_api.abi_version(), CPT_ABI_VERSION);
        return 0;
    }
    return 1;
}

static void at_exit(void)
{
    const struct cptgo_api *api = cptprov_go_if_running();

    if (api != NULL)
        api->shutdown();
}

struct start_args {
    struct cpt_config *cfg;
    struct cpt_status st;
    int ok;
};

/*
 * Runs on a thread of its own: dlopen starts the Go runtime from a
 * constructor, and the caller may be on a 32 KiB ASYNC job stack.
 */
static void *start_thread(void *arg)
{
    struct start_args *a = arg;
    char dir[PATH_MAX], path[PATH_MAX + 32];
    const char *env = getenv("CPTPROV_GOLIB");
    void *h;

    if (env != NULL && env[0] != '\0') {
        snprintf(path, sizeof(path), "%s", env);
    } else {
        if (!module_dir(dir, sizeof(dir))) {
            snprintf(go_error, sizeof(go_error), "cannot find the provider module's directory");
            return NULL;
        }
        snprintf(path, sizeof(path), "%s/libcptgo.so", dir);
    }
    if (go_inherited)
        h = dlopen_private_copy(path);
    else if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL)
        snprintf(go_error, sizeof(go_error), "dlopen %.400s: %.400s", path, dlerror());
    if (h == NULL || !resolve(h))
        return NULL;
    go_inherited = 1; /* from now on this address space holds a runtime */
    if (go_api.start(a->cfg, &a->st) != CPT_OK) {
        snprintf(go_error, sizeof(go_error), "starting the device: %s", a->st.msg);
        return NULL;
    }
    a->ok = 1;
    return NULL;
}

const struct cptgo_api *cptprov_go_if_running(void)
{
    return atomic_load_explicit(&go_ready, memory_order_acquire) ? &go_api : NULL;
}

const struct cptgo_api *cptprov_go(struct cptprov_ctx *p)
{
    struct start_args a;
    pthread_t t;
    static int atexit_done;

    if (atomic_load_explicit(&go_ready, memory_order_acquire))
        return &go_api;

    pthread_mutex_lock(&go_mu);
    if (!atomic_load(&go_ready) && !go_failed) {
        memset(&a, 0, sizeof(a));
        go_error[0] = '\0';
        a.cfg = &p->cfg;
        p->cfg.stats_area = cptprov_stats_area();
        if (pthread_create(&t, NULL, start_thread, &a) != 0) {
            snprintf(go_error, sizeof(go_error), "pthread_create: %s", strerror(errno));
        } else {
            pthread_join(t, NULL);
        }
        if (a.ok) {
            if (!atexit_done) {
                atexit(at_exit);
                atexit_done = 1;
            }
            atomic_store_explicit(&go_ready, 1, memory_order_release);
        } else {
            go_failed = 1;
        }
    }
    pthread_mutex_unlock(&go_mu);
    if (atomic_load_explicit(&go_ready, memory_order_acquire))
        return &go_api;
    CPT_RAISE(p, CPT_R_DEVICE_UNAVAILABLE, "cptprov could not start its device: %s",
        go_error[0] != '\0' ? go_error : "unknown reason");
    return NULL;
}

/*
 * A provider instance goes away (OSSL_PROVIDER_unload, a library context
 * freed, OPENSSL_cleanup). Others may live on, and the Go half cannot be
 * unloaded: write the statistics, and leave the rest to exit.
 */
void cptprov_loader_teardown(void)
{
    const struct cptgo_api *api = cptprov_go_if_running();

    if (api != NULL)
        api->flush();
}
