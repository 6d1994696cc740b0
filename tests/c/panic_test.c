/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Go panic inside cptprov must become an OpenSSL error, never a dead host.
 * For each exported entry point, a child process is executed with
 * CPTPROV_TEST_PANIC naming it (the Go half then panics on entry; the
 * variable must be in the environment the process starts with, which is
 * what a c-shared Go runtime reads); the EVP
 * call must fail with cptprov's "internal error" on the error queue, and the
 * process must carry on (later calls work when they do not panic).
 * Usage: panic_test --provider-path DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

static const char *path = "build";

/* Runs one GCM encryption; returns 1 when every call succeeded. */
static int encrypt_once(EVP_CIPHER *c, int *failed_step)
{
    unsigned char key[16] = { 1 }, iv[12] = { 2 }, buf[64] = { 0 }, tag[16];
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int n, ok = 0;
    size_t ivlen = 0;
    OSSL_PARAM get[] = { OSSL_PARAM_size_t("ivlen", &ivlen), OSSL_PARAM_END };
    OSSL_PARAM taglen[] = { OSSL_PARAM_size_t("taglen", &ivlen), OSSL_PARAM_END };
    OSSL_PARAM set[] = { OSSL_PARAM_size_t("ivlen", &ivlen), OSSL_PARAM_END };

    *failed_step = 0;
    /* An init with parameters goes to Go at once (a plain one waits for the next call). */
    ivlen = 12;
    if (!EVP_EncryptInit_ex2(x, c, key, NULL, set)) {
        *failed_step = 1;
        goto end;
    }
    /* A param the C side cannot answer by itself, so it reaches Go. */
    ivlen = 16;
    if (!EVP_CIPHER_CTX_set_params(x, set)) {
        *failed_step = 2;
        goto end;
    }
    if (!EVP_CIPHER_CTX_get_params(x, get)) {
        *failed_step = 3;
        goto end;
    }
    ivlen = 12;
    if (!EVP_CIPHER_CTX_set_params(x, set)) {
        *failed_step = 2;
        goto end;
    }
    if (!EVP_EncryptInit_ex2(x, NULL, NULL, iv, NULL)) {
        *failed_step = 1;
        goto end;
    }
    /* AAD only: a final after data would be finished by the C side alone. */
    if (!EVP_EncryptUpdate(x, NULL, &n, buf, sizeof(buf))) {
        *failed_step = 4;
        goto end;
    }
    if (!EVP_EncryptFinal_ex(x, buf, &n)) {
        *failed_step = 5;
        goto end;
    }
    /* The tag is answered in C; "taglen" reaches Go. */
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0) {
        *failed_step = 3;
        goto end;
    }
    if (!EVP_CIPHER_CTX_get_params(x, taglen)) {
        *failed_step = 3;
        goto end;
    }
    ok = 1;
end:
    EVP_CIPHER_CTX_free(x);
    return ok;
}

/* Runs one AES-128-CBC EVP_Cipher() (step 6): the one-shot entry point. */
static int oneshot_once(EVP_CIPHER *c, int *failed_step)
{
    unsigned char key[16] = { 1 }, iv[16] = { 2 }, buf[64] = { 0 };
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int ok = EVP_EncryptInit_ex2(x, c, key, iv, NULL);

    *failed_step = ok ? 0 : 1;
    if (ok && EVP_Cipher(x, buf, buf, sizeof(buf)) <= 0) {
        *failed_step = 6;
        ok = 0;
    }
    EVP_CIPHER_CTX_free(x);
    return ok;
}

/* Hashes 32 KiB with SHA-256 (the device path: steps 7 update, 8 final). */
static int digest_once(OSSL_LIB_CTX *lc, int *failed_step)
{
    static unsigned char buf[32768];
    unsigned char md[32];
    EVP_MD *m = EVP_MD_fetch(lc, "SHA2-256", NULL);
    EVP_MD_CTX *x = EVP_MD_CTX_new();
    int ok = m != NULL && EVP_DigestInit_ex2(x, m, NULL);

    *failed_step = ok ? 0 : 1;
    if (ok && !EVP_DigestUpdate(x, buf, sizeof(buf))) {
        *failed_step = 7;
        ok = 0;
    }
    if (ok && !EVP_DigestFinal_ex(x, md, NULL)) {
        *failed_step = 8;
        ok = 0;
    }
    EVP_MD_CTX_free(x);
    EVP_MD_free(m);
    return ok;
}

/* HMAC-SHA256 over 96 KiB (the device path: steps 9 update, 10 final). */
static int mac_once(OSSL_LIB_CTX *lc, int *failed_step)
{
    static unsigned char buf[98304];
    unsigned char out[32];
    size_t n;
    EVP_MAC *m = EVP_MAC_fetch(lc, "HMAC", NULL);
    EVP_MAC_CTX *x = m != NULL ? EVP_MAC_CTX_new(m) : NULL;
    OSSL_PARAM params[] = { OSSL_PARAM_utf8_string("digest", "SHA2-256", 0), OSSL_PARAM_END };
    int ok = x != NULL && EVP_MAC_init(x, buf, 16, params);

    *failed_step = ok ? 0 : 1;
    if (ok && !EVP_MAC_update(x, buf, sizeof(buf))) {
        *failed_step = 9;
        ok = 0;
    }
    if (ok && !EVP_MAC_final(x, out, &n, sizeof(out))) {
        *failed_step = 10;
        ok = 0;
    }
    EVP_MAC_CTX_free(x);
    EVP_MAC_free(m);
    return ok;
}

static int child(const char *which, int want_step)
{
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    EVP_CIPHER *c;
    int step, ok, oneshot = strcmp(which, "oneshot") == 0;
    int digest = strncmp(which, "digest", 6) == 0, hmac = strncmp(which, "mac_", 4) == 0;
    char err[256] = "";

    OSSL_PROVIDER_set_default_search_path(lc, path);
    if (OSSL_PROVIDER_load(lc, "cptprov") == NULL
        || (c = EVP_CIPHER_fetch(lc, oneshot ? "AES-128-CBC" : "AES-128-GCM", NULL)) == NULL)
        return 10;
    ok = hmac     ? mac_once(lc, &step)
        : digest  ? digest_once(lc, &step)
        : oneshot ? oneshot_once(c, &step)
                  : encrypt_once(c, &step);
    ERR_error_string_n(ERR_peek_last_error(), err, sizeof(err));
    if (ok || step != want_step || strstr(err, "internal error") == NULL) {
        fprintf(stderr, "  %s: ok=%d step=%d (want %d) error=\"%s\"\n", which, ok, step, want_step,
            err);
        return 11;
    }
    ERR_clear_error();
    /* The process goes on: the host survived the panic. */
    EVP_CIPHER_free(c);
    OSSL_LIB_CTX_free(lc);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int step;
    } cases[] = {
        { "init", 1 },
        { "set_params", 2 },
        { "get_params", 3 },
        { "update", 4 },
        { "final", 5 },
        { "oneshot", 6 },
        { "digest_update", 7 },
        { "digest_final", 8 },
        { "mac_update", 9 },
        { "mac_final", 10 },
    };
    int passed = 0, failed = 0;

    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--provider-path") == 0)
            path = argv[++i];
        else if (strcmp(argv[i], "--child") == 0 && i + 2 < argc)
            return child(argv[i + 1], atoi(argv[i + 2]));
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pid_t pid = fork();
        int st = 0;

        if (pid == 0) {
            char step[8];

            snprintf(step, sizeof(step), "%d", cases[i].step);
            setenv("CPTPROV_TEST_PANIC", cases[i].name, 1);
            execl("/proc/self/exe", argv[0], "--provider-path", path, "--child", cases[i].name,
                step, (char *)NULL);
            _exit(12);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            printf("FAIL panic in %s: child %s\n", cases[i].name,
                WIFSIGNALED(st) ? "was killed by a signal"
                                : "did not report a clean OpenSSL error");
            failed++;
        } else {
            printf("ok   panic in %s -> OpenSSL error, process alive\n", cases[i].name);
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
