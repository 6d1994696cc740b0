/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Nothing OpenSSL calls at load or configuration time may start the Go
 * runtime (a runtime started before fork() is dead in the children). This
 * loads cptprov, fetches its ciphers, key management and key exchange, asks
 * every static question (algorithm parameters, parameter tables, provider
 * parameters, TLS-GROUP capabilities), creates and keys a
 * context, and checks after each step that libcptgo.so is still not mapped
 * and the process still has one thread; then the first cipher operation must
 * map it.
 * Usage: lazy_test --provider-path DIR
 */
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

static int passed, failed;

static int go_mapped(void)
{
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");
    int found = 0;

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strstr(line, "libcptgo") != NULL)
            found = 1;
    if (f != NULL)
        fclose(f);
    return found;
}

static int threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    while (d != NULL && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    if (d != NULL)
        closedir(d);
    return n;
}

static void expect_no_go(const char *step)
{
    if (!go_mapped() && threads() == 1) {
        printf("ok   %s: no Go runtime\n", step);
        passed++;
    } else {
        printf("FAIL %s: libcptgo.so mapped=%d, threads=%d\n", step, go_mapped(), threads());
        failed++;
    }
}

static int count_group(const OSSL_PARAM params[], void *arg)
{
    (void)params;
    (*(int *)arg)++;
    return 1;
}

int main(int argc, char **argv)
{
    static const char *names[] = { "AES-128-GCM", "AES-192-GCM", "AES-256-GCM" };
    const char *path = argc == 3 && strcmp(argv[1], "--provider-path") == 0 ? argv[2] : "build";
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov;
    EVP_CIPHER *c[3];
    EVP_CIPHER_CTX *ctx;
    unsigned char key[32] = { 0 }, iv[12] = { 0 }, buf[32] = { 0 };
    static unsigned char big[65536];
    int n, mode = 0;
    size_t keylen = 0;
    const char *name = NULL;
    OSSL_PARAM pp[] = { OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0), OSSL_PARAM_END };
    OSSL_PARAM cp[] = { OSSL_PARAM_int(OSSL_CIPHER_PARAM_MODE, &mode),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen), OSSL_PARAM_END };

    OSSL_PROVIDER_set_default_search_path(lc, path);
    expect_no_go("start");
    if ((prov = OSSL_PROVIDER_load(lc, "cptprov")) == NULL) {
        printf("FAIL cannot load cptprov from %s\n", path);
        return 1;
    }
    expect_no_go("OSSL_provider_init");
    if (!OSSL_PROVIDER_get_params(prov, pp) || name == NULL)
        failed++;
    OSSL_PROVIDER_gettable_params(prov);
    expect_no_go("provider get_params and gettable_params");
    for (int i = 0; i < 3; i++) {
        if ((c[i] = EVP_CIPHER_fetch(lc, names[i], "provider=cptprov")) == NULL) {
            printf("FAIL fetch %s\n", names[i]);
            return 1;
        }
        if (!EVP_CIPHER_get_params(c[i], cp) || keylen != (size_t)(16 + 8 * i))
            failed++;
        EVP_CIPHER_gettable_params(c[i]);
        EVP_CIPHER_gettable_ctx_params(c[i]);
        EVP_CIPHER_settable_ctx_params(c[i]);
    }
    expect_no_go("query_operation, cipher get_params and parameter tables");
    {
        int groups = 0;
        EVP_KEYMGMT *km = EVP_KEYMGMT_fetch(lc, "X25519", "provider=cptprov");
        EVP_KEYEXCH *kx = EVP_KEYEXCH_fetch(lc, "X25519", "provider=cptprov");

        if (!OSSL_PROVIDER_get_capabilities(prov, "TLS-GROUP", count_group, &groups) || groups == 0
            || km == NULL || kx == NULL)
            failed++;
        EVP_KEYMGMT_gettable_params(km);
        EVP_KEYMGMT_free(km);
        EVP_KEYEXCH_free(kx);
        expect_no_go("TLS-GROUP capabilities, key management and key exchange fetches");
    }
    {
        /* A stitched cipher keyed as libssl keys it, and a short record,
         * which takes the CPU path: all C. */
        EVP_CIPHER *s = EVP_CIPHER_fetch(lc, "AES-128-CBC-HMAC-SHA1", "provider=cptprov");
        unsigned char siv[16] = { 0 }, rec[64] = { 0 },
                      aad[13] = { 0, 0, 0, 0, 0, 0, 0, 0, 23, 3, 3, 0, 16 };
        int ver = 0x0303, pad;
        OSSL_PARAM vp[] = { OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS_VERSION, &ver), OSSL_PARAM_END };

        ctx = EVP_CIPHER_CTX_new();
        if (s == NULL || !EVP_EncryptInit_ex2(ctx, s, key, siv, NULL)
            || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_MAC_KEY, 20, key) <= 0
            || !EVP_CIPHER_CTX_set_params(ctx, vp)
            || (pad = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad)) != 32
            || !EVP_EncryptUpdate(ctx, rec, &n, rec, 16 + pad) || n != 48)
            failed++;
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_free(s);
        expect_no_go("stitched cipher: init, mackey, tls-version, a short TLS record (CPU path)");
    }
    ctx = EVP_CIPHER_CTX_new();
    if (!EVP_EncryptInit_ex2(ctx, c[2], key, iv, NULL) || EVP_CIPHER_CTX_get_iv_length(ctx) != 12)
        failed++;
    expect_no_go("newctx, init with key and IV, IV length");
    if (!EVP_EncryptUpdate(ctx, buf, &n, buf, sizeof(buf)) || n != (int)sizeof(buf))
        failed++;
    expect_no_go("a short AES-GCM message (CPU path)");
    /* A message above cpu_threshold_aes_gcm goes to the device. */
    if (!EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL)
        || !EVP_EncryptUpdate(ctx, big, &n, big, sizeof(big)) || n != (int)sizeof(big))
        failed++;
    if (go_mapped() && threads() > 1) {
        printf("ok   first encryption started the Go half\n");
        passed++;
    } else {
        printf("FAIL first encryption: libcptgo.so mapped=%d, threads=%d\n", go_mapped(),
            threads());
        failed++;
    }
    EVP_CIPHER_CTX_free(ctx);
    for (int i = 0; i < 3; i++)
        EVP_CIPHER_free(c[i]);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lc);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
