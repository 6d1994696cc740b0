/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Go asks for the calling thread's stack bounds (pthread_getattr_np) on
 * every call into Go made from a stack it does not know, which is every call
 * made inside an OpenSSL ASYNC job (jobs run on their own small stacks). For
 * the main thread glibc answers by parsing /proc/self/maps: 42 us per call.
 * The library is linked with -Bsymbolic, so the runtime's call binds to this
 * definition, which remembers each thread's answer. A thread's stack never
 * moves, and a forked child's only thread keeps the stack it had in the
 * parent, so the cached answer stays right across fork().
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <dlfcn.h>

static __thread int cached;
static __thread void *cached_addr;
static __thread size_t cached_size;

int pthread_getattr_np(pthread_t th, pthread_attr_t *attr)
{
    static int (*real)(pthread_t, pthread_attr_t *);
    int r;

    if (real == NULL)
        real = (int (*)(pthread_t, pthread_attr_t *))dlsym(RTLD_NEXT, "pthread_getattr_np");
    if (real == NULL)
        return -1;
    if (!pthread_equal(th, pthread_self()))
        return real(th, attr);
    if (cached) {
        /* The caller may or may not have initialised attr: set it fully. */
        pthread_attr_init(attr);
        return pthread_attr_setstack(attr, cached_addr, cached_size);
    }
    r = real(th, attr);
    if (r == 0 && pthread_attr_getstack(attr, &cached_addr, &cached_size) == 0)
        cached = 1;
    return r;
}
