/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Go side's calls into the shim (shimcalls.c): thin wrappers over the
 * functions dlsym resolved, so that this package links nothing of DPDK.
 */
#ifndef CPTPROV_DPDK_SHIMCALLS_H
#define CPTPROV_DPDK_SHIMCALLS_H

#include <stddef.h>
#include "cptdpdk.h"

const char *shim_load(const char *path);
int shim_eal_init(int argc, char **argv, int level, char *err, size_t errlen);
int shim_dev_find(const char *name);
int shim_dev_info(int dev, struct cptdpdk_info *info);
int shim_dev_start(int dev, int nqp, int depth, int nsess, uint32_t max_data, char *err,
    size_t errlen);
void shim_dev_stop(int dev);
int shim_dev_restart(int dev, char *err, size_t errlen);
int shim_dev_close(int dev, char *err, size_t errlen);
void *shim_sess_aead(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    uint32_t aadlen, uint32_t taglen, char *err, size_t errlen);
void *shim_sess_cipher(int dev, uint32_t alg, int dir, const uint8_t *key, uint32_t keylen,
    char *err, size_t errlen);
void *shim_sess_auth(int dev, uint32_t alg, const uint8_t *key, uint32_t keylen, char *err,
    size_t errlen);
void *shim_sess_modexp(int dev, const uint8_t *mod, uint32_t modlen, const uint8_t *exp,
    uint32_t explen, char *err, size_t errlen);
void shim_sess_free(int dev, void *sess, int asym);
int shim_enqueue(int dev, int qp, const struct cptdpdk_req *reqs, int n);
int shim_dequeue(int dev, int qp, struct cptdpdk_done *done, int n);
int shim_dev_usage(int dev, struct cptdpdk_usage *u);

#endif
