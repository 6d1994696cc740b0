/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_dpdkdev: a DPDK device alone, through cptprov's shim and nothing
 * else (no provider, no Go): AES-256-GCM encryptions of one size, one at a
 * time (enqueue, then dequeue until it is back), as the dpdk backend's
 * synchronous callers run them. It is the ceiling of what cptprov can do
 * with that device; cptbench's dpdk step prints it beside the provider's
 * figures. Each request's data is copied into an mbuf and out, as the
 * backend's are.
 *
 * Usage: bench_dpdkdev [--device crypto_aesni_gcm0] [--bytes 16384] [--seconds 2]
 * Prints: "device NAME bytes N ops K seconds S MBps X usop Y".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cptdpdk.h"

static void quiet(int level, const char *msg, size_t len)
{
    (void)level;
    (void)msg;
    (void)len;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *dev_name = "crypto_aesni_gcm0";
    unsigned bytes = 16384;
    double seconds = 2;
    char prefix[64], vdev[96], err[256];
    uint8_t key[32] = { 1 }, iv[12] = { 2 }, tag[16];
    struct cptdpdk_done done;
    struct cptdpdk_req req;
    uint8_t *in, *out;
    unsigned long ops = 0;
    double t0, t;
    int dev;
    void *sess;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--device") == 0)
            dev_name = argv[i + 1];
        else if (strcmp(argv[i], "--bytes") == 0)
            bytes = (unsigned)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
        else {
            fprintf(stderr, "usage: %s [--device NAME] [--bytes N] [--seconds S]\n", argv[0]);
            return 2;
        }
    }
    if (bytes == 0 || bytes > 65000) {
        fprintf(stderr, "bench_dpdkdev: --bytes must be 1 to 65000\n");
        return 2;
    }
    snprintf(prefix, sizeof(prefix), "--file-prefix=cptprov-bench-%d", (int)getpid());
    snprintf(vdev, sizeof(vdev), "--vdev=%s", dev_name);
    char *eal[] = { "bench_dpdkdev", "--no-huge", "--no-pci", "--no-shconf", "--no-telemetry", "-m",
        "256", "-l", "0", prefix, vdev };
    if (cptdpdk_eal_init((int)(sizeof(eal) / sizeof(eal[0])), eal, quiet, 3, err, sizeof(err))
        < 0) {
        fprintf(stderr, "bench_dpdkdev: EAL: %s\n", err);
        return 1;
    }
    if ((dev = cptdpdk_dev_find(dev_name)) < 0
        || cptdpdk_dev_start(dev, 1, 64, 16, 65000, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench_dpdkdev: %s: %s\n", dev_name, dev < 0 ? "not found" : err);
        return 1;
    }
    sess = cptdpdk_sess_aead(dev, CPTDPDK_AES_GCM, CPTDPDK_DIR_ENCRYPT, key, sizeof(key), 0, 16,
        err, sizeof(err));
    in = calloc(1, bytes);
    out = calloc(1, bytes);
    if (sess == NULL || in == NULL || out == NULL) {
        fprintf(stderr, "bench_dpdkdev: no AES-256-GCM session: %s\n", err);
        return 1;
    }
    memset(&req, 0, sizeof(req));
    req.sess = sess;
    req.kind = CPTDPDK_OP_AEAD;
    req.in = in;
    req.inlen = bytes;
    req.out = out;
    req.outlen = bytes;
    req.iv = iv;
    req.ivlen = sizeof(iv);
    req.tag = tag;
    req.taglen = sizeof(tag);
    t0 = now();
    do {
        for (int k = 0; k < 64; k++) {
            req.tag_id = ops;
            if (cptdpdk_enqueue(dev, 0, &req, 1) != 1) {
                fprintf(stderr, "bench_dpdkdev: enqueue refused\n");
                return 1;
            }
            while (cptdpdk_dequeue(dev, 0, &done, 1) == 0)
                ;
            if (done.status != CPTDPDK_OK) {
                fprintf(stderr, "bench_dpdkdev: request failed (%d)\n", done.status);
                return 1;
            }
            ops++;
        }
        t = now() - t0;
    } while (t < seconds);
    printf("device %s bytes %u ops %lu seconds %.3f MBps %.1f usop %.3f\n", dev_name, bytes, ops, t,
        (double)ops * bytes / t / 1e6, t / (double)ops * 1e6);
    cptdpdk_sess_free(dev, sess, 0);
    cptdpdk_dev_close(dev, err, sizeof(err));
    free(in);
    free(out);
    return 0;
}
