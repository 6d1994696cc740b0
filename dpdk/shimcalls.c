/* SPDX-License-Identifier: Apache-2.0 */
/* See shimcalls.h. */
#include <dlfcn.h>
#include <stdlib.h>
#include "shimcalls.h"
#include "_cgo_export.h"

static struct {
    __typeof__(cptdpdk_eal_init) *eal_init;
    __typeof__(cptdpdk_dev_find) *dev_find;
    __typeof__(cptdpdk_dev_info) *dev_info;
    __typeof__(cptdpdk_dev_start) *dev_start;
    __typeof__(cptdpdk_dev_stop) *dev_stop;
    __typeof__(cptdpdk_dev_restart) *dev_restart;
    __typeof__(cptdpdk_dev_close) *dev_close;
    __typeof__(cptdpdk_sess_aead) *sess_aead;
    __typeof__(cptdpdk_sess_cipher) *sess_cipher;
    __typeof__(cptdpdk_sess_auth) *sess_auth;
    __typeof__(cptdpdk_sess_modexp) *sess_modexp;
    __typeof__(cptdpdk_sess_free) *sess_free;
    __typeof__(cptdpdk_enqueue) *enqueue;
    __typeof__(cptdpdk_dequeue) *dequeue;
    __typeof__(cptdpdk_dev_usage) *dev_usage;
} shim;

const char *shim_load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

    if (h == NULL)
        return dlerror();
#define SYM(f)                                                 \
    if ((*(void **)&shim.f = dlsym(h, "cptdpdk_" #f)) == NULL) \
        return "cptdpdk_" #f " is missing";
    SYM(eal_init)
    SYM(dev_find)
    SYM(dev_info)
    SYM(dev_start)
    SYM(dev_stop)
    SYM(dev_restart)
    SYM(dev_close)
    SYM(sess_aead)
    SYM(sess_cipher)
    SYM(sess_auth)
    SYM(sess_modexp)
    SYM(sess_free)
    SYM(enqueue)
    SYM(dequeue)
    SYM(dev_usage)
#undef SYM
    return NULL;
}

static void log_line(int level, const char *msg, size_t len)
{
    cptdpdkGoLog(level, (char *)msg, len);
}

int shim_eal_init(int argc, char **argv, int level, char *err, size_t errlen)
{
    return shim.eal_init(argc, argv, log_line, level, err, errlen);
}

int shim_dev_find(const char *name)
{
    return shim.dev_find(name);
}

int shim_dev_info(int dev, struct cptdpdk_info *info)
{
    return shim.dev_info(dev, info);
}

int shim_dev_start(int dev, int nqp, int depth, int nsess, uint32_t max_data, char *err,
    size_t errlen)
{
    return shim.dev_start(dev, nqp, depth, nsess, max_data, err, errlen);
}

void shim_dev_stop(int dev)
{
    shim.dev_stop(dev);
}

int shim_dev_restart(int dev, char *err, size_t errlen)
{
    return shim.dev_restart(dev, err, errlen);
}

int shim_dev_close(int dev, char *err, size_t errlen)
{
    return shim.dev_close(dev, err, errlen);
}

void *shim_sess_aead(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    uint32_t aadlen, uint32_t taglen, char *err, size_t errlen)
{
    return shim.sess_aead(dev, alg, dir, key, keylen, aadlen, taglen, err, errlen);
}

void *shim_sess_cipher(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    char *err, size_t errlen)
{
    return shim.sess_cipher(dev, alg, dir, key, keylen, err, errlen);
}

void *shim_sess_auth(int dev, uint32_t alg, const uint8_t *key, uint32_t keylen, char *err,
    size_t errlen)
{
    return shim.sess_auth(dev, alg, key, keylen, err, errlen);
}

void *shim_sess_modexp(int dev, const uint8_t *mod, uint32_t modlen, const uint8_t *exp,
    uint32_t explen, char *err, size_t errlen)
{
    return shim.sess_modexp(dev, mod, modlen, exp, explen, err, errlen);
}

void shim_sess_free(int dev, void *sess, int asym)
{
    shim.sess_free(dev, sess, asym);
}

int shim_enqueue(int dev, int qp, const struct cptdpdk_req *reqs, int n)
{
    return shim.enqueue(dev, qp, reqs, n);
}

int shim_dequeue(int dev, int qp, struct cptdpdk_done *done, int n)
{
    return shim.dequeue(dev, qp, done, n);
}

int shim_dev_usage(int dev, struct cptdpdk_usage *u)
{
    return shim.dev_usage(dev, u);
}
