/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The provider entry point. Everything here runs at load or configuration
 * time, possibly in a parent that forks workers afterwards: it must not
 * start the Go runtime, and it does not.
 */

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <pthread.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include "cptprov.h"
#include "dispatch.h"

static const OSSL_PARAM provider_gettable_params[] = { OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME,
                                                           NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL), OSSL_PARAM_END };

static const OSSL_PARAM *cptprov_gettable_params(void *provctx)
{
    (void)provctx;
    return provider_gettable_params;
}

static int cptprov_get_params(void *provctx, OSSL_PARAM params[])
{
    OSSL_PARAM *p;

    (void)provctx;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, "cptprov: OCTEON CPT offload (simulator backend)"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, CPTPROV_VERSION))
        return 0;
    /* No build date: the package is reproducible (the same tree builds
     * the same bytes); the headers' version tells builds apart. */
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p,
            "cptprov " CPTPROV_VERSION " (" OPENSSL_VERSION_TEXT " headers)"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL
        && !OSSL_PARAM_set_int(p, 1))
        return 0;
    return 1;
}

/*
 * What the `algorithms` key left, filtered once at activation: the answer
 * does not change for the life of the provider, so the core may cache it.
 */
static const OSSL_ALGORITHM *cptprov_query(void *provctx, int operation_id, int *no_cache)
{
    const struct cptprov_ctx *p = provctx;

    *no_cache = 0;
    return cptprov_algset_query(p->algs, operation_id);
}

/* Static tables filtered at activation: libssl asks at SSL_CTX_new time,
 * before any fork. */
static int cptprov_get_capabilities(void *provctx, const char *capability, OSSL_CALLBACK *cb,
    void *arg)
{
    const struct cptprov_ctx *p = provctx;

    if (OPENSSL_strcasecmp(capability, "TLS-GROUP") == 0)
        return cptprov_algset_tls_groups(p->algs, cb, arg);
    return 0;
}

static const OSSL_ITEM *cptprov_get_reason_strings(void *provctx)
{
    (void)provctx;
    return cptprov_reason_strings;
}

static void cptprov_teardown(void *provctx)
{
    struct cptprov_ctx *p = provctx;

    cptprov_loader_teardown();
    if (p != NULL) {
        cptprov_errors_register(p, 0);
        OPENSSL_free(p->stats_dir);
        OPENSSL_free(p->faults);
        OPENSSL_free(p->log_file);
        OPENSSL_free(p->dpdk_shim);
        OPENSSL_free(p->dpdk_eal_args);
        OPENSSL_free(p->dpdk_devices);
        cptprov_algset_free(p->algs);
        OPENSSL_free(p);
    }
}

static const OSSL_DISPATCH cptprov_provider_functions[] = {
    CPT_FN(PROVIDER_TEARDOWN, provider_teardown, cptprov_teardown),
    CPT_FN(PROVIDER_GETTABLE_PARAMS, provider_gettable_params, cptprov_gettable_params),
    CPT_FN(PROVIDER_GET_PARAMS, provider_get_params, cptprov_get_params),
    CPT_FN(PROVIDER_QUERY_OPERATION, provider_query_operation, cptprov_query),
    CPT_FN(PROVIDER_GET_REASON_STRINGS, provider_get_reason_strings, cptprov_get_reason_strings),
    CPT_FN(PROVIDER_GET_CAPABILITIES, provider_get_capabilities, cptprov_get_capabilities),
    CPT_FN_END
};

/*
 * Keep this module mapped for the life of the process: wait contexts and
 * atexit hold pointers to its functions, and the Go half it loads can never
 * be unloaded anyway.
 */
static void pin_module(void)
{
    Dl_info info;

    if (dladdr((void *)pin_module, &info) != 0 && info.dli_fname != NULL)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
    const OSSL_DISPATCH *in, const OSSL_DISPATCH **out, void **provctx)
{
    struct cptprov_ctx *p;

    if (!cptprov_errors_init(in) || !cptprov_loader_init())
        return 0;
    cptprov_config_init(in);
    p = OPENSSL_zalloc(sizeof(*p));
    if (p == NULL)
        return 0;
    p->handle = handle;
    if (!cptprov_config_read(p, handle)) {
        cptprov_teardown(p);
        return 0;
    }
    pin_module();
    cptprov_errors_register(p, 1);
    *out = cptprov_provider_functions;
    *provctx = p;
    return 1;
}
