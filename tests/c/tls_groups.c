/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Prints the TLS groups a provider advertises through its TLS-GROUP
 * capability, one a line: the group's TLS name and the key management it
 * needs ("x25519 X25519"). `openssl list -tls-groups` is not in OpenSSL
 * 3.0, and a handshake cannot tell which provider announced a group, so
 * tests/sh/config_test.sh asks the provider itself what the `algorithms` key
 * left. The provider is the one OPENSSL_CONF activates, as for the openssl
 * command: none is loaded here, so a refused configuration shows.
 * Usage: OPENSSL_CONF=FILE tls_groups [PROVIDER]   (default cptprov)
 * Exit status: 0, 1 when the capability cannot be read, 2 when no such
 * provider is active.
 */
#include <stdio.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

struct wanted {
    const char *name;
    OSSL_PROVIDER *prov;
};

static int find_provider(OSSL_PROVIDER *prov, void *arg)
{
    struct wanted *w = arg;

    if (strcmp(OSSL_PROVIDER_get0_name(prov), w->name) == 0)
        w->prov = prov;
    return 1;
}

static int print_group(const OSSL_PARAM params[], void *arg)
{
    const OSSL_PARAM *name = OSSL_PARAM_locate_const(params, OSSL_CAPABILITY_TLS_GROUP_NAME);
    const OSSL_PARAM *alg = OSSL_PARAM_locate_const(params, OSSL_CAPABILITY_TLS_GROUP_ALG);
    const char *n = NULL, *a = NULL;

    (void)arg;
    if (name == NULL || alg == NULL || !OSSL_PARAM_get_utf8_string_ptr(name, &n)
        || !OSSL_PARAM_get_utf8_string_ptr(alg, &a))
        return 0;
    printf("%s %s\n", n, a);
    return 1;
}

int main(int argc, char **argv)
{
    struct wanted w = { argc > 1 ? argv[1] : "cptprov", NULL };

    if (!OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL)
        || !OSSL_PROVIDER_do_all(NULL, find_provider, &w) || w.prov == NULL) {
        fprintf(stderr, "tls_groups: provider %s is not active\n", w.name);
        ERR_print_errors_fp(stderr);
        return 2;
    }
    if (!OSSL_PROVIDER_get_capabilities(w.prov, "TLS-GROUP", print_group, NULL)) {
        fprintf(stderr, "tls_groups: %s's TLS-GROUP capability failed\n", w.name);
        ERR_print_errors_fp(stderr);
        return 1;
    }
    return 0;
}
