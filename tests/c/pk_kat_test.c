/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pk_kat_test - public-key known-answer tests through the provider under test
 * (cptprov by default), every vector first run against OpenSSL's default
 * provider alone (a vector that fails there is a harness or data bug):
 *
 *   ecdsa   tests/vectors/ecdsa_kat.txt: OpenSSL's evppkey_ecdsa.txt records
 *           (PEM keys decoded into the default provider's key management and
 *           exported by EVP into the provider under test), NIST CAVP SigVer
 *           (valid and invalid signatures), NIST SigGen answers from OpenSSL's
 *           ecdsatest.h and ACVP SigVer from acvp_test.inc (keys imported
 *           straight into the provider under test with EVP_PKEY_fromdata)
 *   rsa     tests/vectors/rsa_kat.txt: OpenSSL's evppkey_rsa_common.txt and
 *           evppkey_rsa.txt records: PKCS#1 v1.5 and PSS signatures (output
 *           byte-identical), verification (valid and invalid), verify-recover,
 *           PKCS#1 v1.5 and OAEP decryption (PKCS#1 v1.5 with and without
 *           implicit rejection, as the running OpenSSL's default provider
 *           does it); every EVP_PKEY_sign/decrypt/verify_recover is
 *           repeated on an EVP_PKEY_CTX_dup copy
 *   x25519  tests/vectors/x25519_kat.txt: RFC 7748 section 5.2 through
 *           EVP_PKEY_derive with raw keys (1,000,000 iterations with --long)
 *   stats   with --stats-dir: the provider's ECDSA/RSA/X25519 counters moved
 *
 * Every operation checks that its EVP_PKEY_CTX (and, for keys imported on
 * purpose, the EVP_PKEY) belongs to the provider the side asked for.
 *
 * Usage: pk_kat_test [--provider-path DIR] [--long] [common options]
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/provider.h>

#include "common.h"

static cpt_opts g_o;
static cpt_env g_env;
static const char *g_argv0;
static int g_long;
static int g_used_ecdsa, g_used_rsa, g_used_x25519;

/* ================================================================== */
/* Vector files                                                        */
/* ================================================================== */

/*
 * A vector file is one of tests/c/common.c's record files: "Name = value"
 * lines, records separated by blank lines. A record whose first line is
 * "PrivateKey = NAME" or "PublicKey = NAME" holds the key as a PEM block,
 * which the loader keeps as the field "PEM".
 */
struct kat_key {
    const char *name;
    const char *pem;
    int is_private;
    EVP_PKEY *pk[2]; /* per side: 0 reference, 1 under test */
    int tried[2];
};

struct kat_set {
    const char *file; /* name for messages */
    cpt_recfile rf;
    struct kat_key *keys;
    size_t nkeys;
};

static int set_load(struct kat_set *ks, const char *rel)
{
    char path[4096];

    memset(ks, 0, sizeof(*ks));
    ks->file = strrchr(rel, '/') != NULL ? strrchr(rel, '/') + 1 : rel;
    if (!cpt_find_file(g_argv0, rel, path, sizeof(path))) {
        cpt_check(0, "cannot find %s (run from the repository root)", rel);
        return 0;
    }
    if (!cpt_check(cpt_recfile_load(path, &ks->rf), "cannot load %s", path))
        return 0;
    for (size_t i = 0; i < ks->rf.n; i++) {
        const cpt_record *r = &ks->rf.recs[i];
        struct kat_key *nk;

        if (strcmp(r->kv[0].name, "PrivateKey") != 0 && strcmp(r->kv[0].name, "PublicKey") != 0)
            continue;
        if (cpt_record_get(r, "PEM") == NULL) {
            cpt_check(0, "%s:%d: key %s has no PEM block", ks->file, r->line, r->kv[0].value);
            continue;
        }
        nk = realloc(ks->keys, (ks->nkeys + 1) * sizeof(*nk));
        if (nk == NULL)
            return 0;
        ks->keys = nk;
        memset(&ks->keys[ks->nkeys], 0, sizeof(ks->keys[0]));
        ks->keys[ks->nkeys].name = r->kv[0].value;
        ks->keys[ks->nkeys].pem = cpt_record_get(r, "PEM");
        ks->keys[ks->nkeys].is_private = strcmp(r->kv[0].name, "PrivateKey") == 0;
        ks->nkeys++;
    }
    return 1;
}

static void set_free(struct kat_set *ks)
{
    for (size_t i = 0; i < ks->nkeys; i++) {
        EVP_PKEY_free(ks->keys[i].pk[0]);
        EVP_PKEY_free(ks->keys[i].pk[1]);
    }
    free(ks->keys);
    cpt_recfile_free(&ks->rf);
    memset(ks, 0, sizeof(*ks));
}

/* ================================================================== */
/* Sides and outcomes                                                  */
/* ================================================================== */

struct side {
    int idx; /* 0: reference (default only), 1: under test */
    OSSL_LIB_CTX *lc;
    const char *propq; /* "provider=<pname>" */
    const char *pname;
    const char *label; /* for messages */
};

static struct side g_side[2];

enum res {
    KR_OK,
    KR_VERIFY_ERROR,
    KR_KEYOP_ERROR,
    KR_KEYOP_INIT_ERROR,
    KR_PKEY_CTRL_ERROR,
    KR_DIGESTSIGNINIT_ERROR,
    KR_DIGESTVERIFYINIT_ERROR,
    KR_KEY_ERROR, /* the key could not be decoded / imported */
    KR_MISMATCH, /* the operation's output differs from Output */
    KR_WRONG_PROVIDER, /* done (or about to be done) by another provider */
    KR_DUP_ERROR, /* EVP_PKEY_CTX_dup failed */
    KR_BAD_RECORD, /* malformed vector */
    KR_SKIPPED,
    KR_NRES
};

static const char *const res_name[KR_NRES] = {
    "OK",
    "VERIFY_ERROR",
    "KEYOP_ERROR",
    "KEYOP_INIT_ERROR",
    "PKEY_CTRL_ERROR",
    "DIGESTSIGNINIT_ERROR",
    "DIGESTVERIFYINIT_ERROR",
    "KEY_ERROR",
    "MISMATCH",
    "WRONG_PROVIDER",
    "DUP_ERROR",
    "BAD_RECORD",
    "SKIPPED",
};

struct outcome {
    enum res r;
    char what[512]; /* where it stopped / why */
    char errs[2048]; /* the error queue at that point */
    size_t errlen;
    unsigned char *got; /* mismatching output (malloc'ed) */
    size_t gotlen;
};

static int errcb(const char *str, size_t len, void *u)
{
    struct outcome *o = u;
    size_t room = sizeof(o->errs) - o->errlen;

    if (room > 1) {
        size_t n = len < room - 1 ? len : room - 1;

        memcpy(o->errs + o->errlen, str, n);
        o->errlen += n;
        o->errs[o->errlen] = '\0';
    }
    return 1;
}

static enum res fail_at(struct outcome *o, enum res r, const char *fmt, ...) CPT_PRINTF(3, 4);
static enum res fail_at(struct outcome *o, enum res r, const char *fmt, ...)
{
    va_list ap;

    o->r = r;
    va_start(ap, fmt);
    vsnprintf(o->what, sizeof(o->what), fmt, ap);
    va_end(ap);
    ERR_print_errors_cb(errcb, o);
    ERR_clear_error();
    return r;
}

static void keep_got(struct outcome *o, const unsigned char *b, size_t n)
{
    free(o->got);
    o->got = malloc(n + 1);
    if (o->got != NULL) {
        memcpy(o->got, b, n);
        o->gotlen = n;
    }
}

static const char *prov_name(const OSSL_PROVIDER *p)
{
    const char *n = p != NULL ? OSSL_PROVIDER_get0_name(p) : NULL;

    return n != NULL ? n : "(none)";
}

/* KR_OK when the operation context is the side's provider's. */
static enum res check_ctx_provider(const struct side *sd, EVP_PKEY_CTX *c, const char *op,
    struct outcome *o)
{
    const char *n = prov_name(c != NULL ? EVP_PKEY_CTX_get0_provider(c) : NULL);

    if (strcmp(n, sd->pname) != 0)
        return fail_at(o, KR_WRONG_PROVIDER, "%s: the operation context belongs to '%s', not '%s'",
            op, n, sd->pname);
    return KR_OK;
}

static enum res check_key_provider(const struct side *sd, const EVP_PKEY *k, const char *what,
    struct outcome *o)
{
    const char *n = prov_name(EVP_PKEY_get0_provider(k));

    if (strcmp(n, sd->pname) != 0)
        return fail_at(o, KR_WRONG_PROVIDER, "%s: the key belongs to '%s', not '%s'", what, n,
            sd->pname);
    return KR_OK;
}

/* ================================================================== */
/* Record helpers                                                      */
/* ================================================================== */

/* Input/Output values: "text" or hex. */
static int parse_bin(const char *v, unsigned char **out, size_t *len)
{
    size_t n = strlen(v);

    if (n >= 1 && v[0] == '"') {
        if (n < 2 || v[n - 1] != '"' || memchr(v + 1, '\\', n - 2) != NULL)
            return 0;
        *out = malloc(n);
        if (*out == NULL)
            return 0;
        memcpy(*out, v + 1, n - 2);
        *len = n - 2;
        return 1;
    }
    return cpt_hex_decode(v, out, len);
}

/* Field `name` decoded with parse_bin: 1 ok, 0 absent (empty buffer), -1 bad. */
static int rec_bin(const cpt_record *r, const char *name, unsigned char **out, size_t *len)
{
    const char *v = cpt_record_get(r, name);

    *out = NULL;
    *len = 0;
    if (v == NULL) {
        *out = malloc(1);
        return 0;
    }
    return parse_bin(v, out, len) ? 1 : -1;
}

/* All "Input" fields of r, concatenated (parts[] gets the piece lengths). */
static int rec_inputs(const cpt_record *r, unsigned char **all, size_t *alllen, size_t *parts,
    size_t maxparts, size_t *nparts)
{
    unsigned char *buf = malloc(1);
    size_t len = 0;

    *nparts = 0;
    if (buf == NULL)
        return 0;
    for (size_t i = 0; i < r->n; i++) {
        unsigned char *b;
        size_t bl;
        unsigned char *nb;

        if (strcasecmp(r->kv[i].name, "Input") != 0)
            continue;
        if (*nparts == maxparts || !parse_bin(r->kv[i].value, &b, &bl)) {
            free(buf);
            return 0;
        }
        nb = realloc(buf, len + bl + 1);
        if (nb == NULL) {
            free(b);
            free(buf);
            return 0;
        }
        buf = nb;
        memcpy(buf + len, b, bl);
        len += bl;
        parts[(*nparts)++] = bl;
        free(b);
    }
    *all = buf;
    *alllen = len;
    return 1;
}

/* Applies the record's "Ctrl = name:value" lines as EVP_PKEY_CTX_ctrl_str. */
static enum res apply_ctrls(const cpt_record *r, EVP_PKEY_CTX *c, struct outcome *o)
{
    for (size_t i = 0; i < r->n; i++) {
        char buf[256], *colon;

        if (strcasecmp(r->kv[i].name, "Ctrl") != 0)
            continue;
        if (strlen(r->kv[i].value) >= sizeof(buf))
            return fail_at(o, KR_BAD_RECORD, "Ctrl too long");
        strcpy(buf, r->kv[i].value);
        colon = strchr(buf, ':');
        if (colon == NULL)
            return fail_at(o, KR_BAD_RECORD, "Ctrl '%s' without ':'", buf);
        *colon = '\0';
        if (EVP_PKEY_CTX_ctrl_str(c, buf, colon + 1) <= 0)
            return fail_at(o, KR_PKEY_CTRL_ERROR, "EVP_PKEY_CTX_ctrl_str(\"%s\", \"%s\") failed",
                buf, colon + 1);
    }
    return KR_OK;
}

static EVP_PKEY *get_key(struct kat_set *ks, const char *name, const struct side *sd,
    struct outcome *o)
{
    for (size_t i = 0; i < ks->nkeys; i++) {
        struct kat_key *k = &ks->keys[i];
        BIO *b;

        if (strcmp(k->name, name) != 0)
            continue;
        if (!k->tried[sd->idx]) {
            k->tried[sd->idx] = 1;
            b = BIO_new_mem_buf(k->pem, -1);
            if (b != NULL)
                k->pk[sd->idx] = k->is_private
                    ? PEM_read_bio_PrivateKey_ex(b, NULL, NULL, NULL, sd->lc, NULL)
                    : PEM_read_bio_PUBKEY_ex(b, NULL, NULL, NULL, sd->lc, NULL);
            BIO_free(b);
            if (k->pk[sd->idx] != NULL)
                cpt_info("%s: key %s decoded into '%s' (type %s)", sd->label, name,
                    prov_name(EVP_PKEY_get0_provider(k->pk[sd->idx])),
                    EVP_PKEY_get0_type_name(k->pk[sd->idx]));
        }
        if (k->pk[sd->idx] == NULL)
            fail_at(o, KR_KEY_ERROR, "cannot decode the PEM key %s", name);
        return k->pk[sd->idx];
    }
    fail_at(o, KR_BAD_RECORD, "no key named %s in %s", name, ks->file);
    return NULL;
}

/* ================================================================== */
/* EVP_PKEY_sign / verify / verify_recover / decrypt                   */
/* ================================================================== */

enum pkop { OP_SIGN, OP_VERIFY, OP_RECOVER, OP_DECRYPT };

static int pk_do(EVP_PKEY_CTX *c, enum pkop op, const unsigned char *in, size_t inlen,
    unsigned char **out, size_t *outlen)
{
    size_t n = 0;
    int ok;

    *out = NULL;
    switch (op) {
    case OP_SIGN:
        ok = EVP_PKEY_sign(c, NULL, &n, in, inlen) > 0;
        break;
    case OP_RECOVER:
        ok = EVP_PKEY_verify_recover(c, NULL, &n, in, inlen) > 0;
        break;
    default:
        ok = EVP_PKEY_decrypt(c, NULL, &n, in, inlen) > 0;
        break;
    }
    if (!ok || (*out = malloc(n + 1)) == NULL)
        return 0;
    switch (op) {
    case OP_SIGN:
        ok = EVP_PKEY_sign(c, *out, &n, in, inlen) > 0;
        break;
    case OP_RECOVER:
        ok = EVP_PKEY_verify_recover(c, *out, &n, in, inlen) > 0;
        break;
    default:
        ok = EVP_PKEY_decrypt(c, *out, &n, in, inlen) > 0;
        break;
    }
    *outlen = n;
    return ok;
}

static enum res run_pkey(struct kat_set *ks, const cpt_record *r, const struct side *sd,
    enum pkop op, struct outcome *o)
{
    static const char *const opname[] = { "sign", "verify", "verify_recover", "decrypt" };
    EVP_PKEY *pk = get_key(ks, r->kv[0].value, sd, o);
    EVP_PKEY_CTX *c = NULL, *dup = NULL;
    unsigned char *in = NULL, *want = NULL, *got = NULL, *got2 = NULL;
    size_t inlen, wantlen, gotlen = 0, got2len = 0;
    int have_want, rv;
    enum res res;

    if (pk == NULL)
        return o->r;
    if (rec_bin(r, "Input", &in, &inlen) < 0
        || (have_want = rec_bin(r, "Output", &want, &wantlen)) < 0) {
        res = fail_at(o, KR_BAD_RECORD, "malformed Input or Output");
        goto end;
    }
    c = EVP_PKEY_CTX_new_from_pkey(sd->lc, pk, sd->propq);
    if (c == NULL) {
        res =
            fail_at(o, KR_KEYOP_INIT_ERROR, "EVP_PKEY_CTX_new_from_pkey(\"%s\") failed", sd->propq);
        goto end;
    }
    rv = op == OP_SIGN     ? EVP_PKEY_sign_init(c)
        : op == OP_VERIFY  ? EVP_PKEY_verify_init(c)
        : op == OP_RECOVER ? EVP_PKEY_verify_recover_init(c)
                           : EVP_PKEY_decrypt_init(c);
    if (rv <= 0) {
        res = fail_at(o, KR_KEYOP_INIT_ERROR, "EVP_PKEY_%s_init failed", opname[op]);
        goto end;
    }
    if ((res = check_ctx_provider(sd, c, opname[op], o)) != KR_OK
        || (res = apply_ctrls(r, c, o)) != KR_OK)
        goto end;
    if (op == OP_VERIFY) {
        if (EVP_PKEY_verify(c, want, wantlen, in, inlen) != 1)
            res = fail_at(o, KR_VERIFY_ERROR, "EVP_PKEY_verify did not return 1");
        goto end;
    }
    if (!pk_do(c, op, in, inlen, &got, &gotlen)) {
        res = fail_at(o, KR_KEYOP_ERROR, "EVP_PKEY_%s failed", opname[op]);
        goto end;
    }
    if (have_want && (gotlen != wantlen || memcmp(got, want, wantlen) != 0)) {
        keep_got(o, got, gotlen);
        res = fail_at(o, KR_MISMATCH, "EVP_PKEY_%s output differs from Output", opname[op]);
        goto end;
    }
    /* Again on a duplicate of the context (as OpenSSL's evp_test does). */
    dup = EVP_PKEY_CTX_dup(c);
    if (dup == NULL) {
        res = fail_at(o, KR_DUP_ERROR, "EVP_PKEY_CTX_dup failed");
        goto end;
    }
    if ((res = check_ctx_provider(sd, dup, "dup", o)) != KR_OK)
        goto end;
    if (!pk_do(dup, op, in, inlen, &got2, &got2len)) {
        res = fail_at(o, KR_KEYOP_ERROR, "EVP_PKEY_%s on the EVP_PKEY_CTX_dup copy failed",
            opname[op]);
        goto end;
    }
    if (have_want && (got2len != wantlen || memcmp(got2, want, wantlen) != 0)) {
        keep_got(o, got2, got2len);
        res = fail_at(o, KR_MISMATCH, "EVP_PKEY_%s on the EVP_PKEY_CTX_dup copy: output differs",
            opname[op]);
        goto end;
    }
    res = KR_OK;
end:
    EVP_PKEY_CTX_free(dup);
    EVP_PKEY_CTX_free(c);
    free(in);
    free(want);
    free(got);
    free(got2);
    ERR_clear_error();
    return res;
}

/* ================================================================== */
/* EVP_DigestSign / EVP_DigestVerify (streamed and one-shot)           */
/* ================================================================== */

#define MAXPARTS 16

/* Verifies sig over msg with the reference provider's copy of the key. */
static int ref_verify(struct kat_set *ks, const cpt_record *r, const char *md,
    const unsigned char *sig, size_t siglen, const unsigned char *msg, size_t msglen,
    struct outcome *o)
{
    const struct side *ref = &g_side[0];
    struct outcome tmp;
    EVP_PKEY *pk;
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    int ok = 0;

    memset(&tmp, 0, sizeof(tmp));
    pk = get_key(ks, cpt_record_get(r, "Key"), ref, &tmp);
    ok = pk != NULL && m != NULL
        && EVP_DigestVerifyInit_ex(m, &pc, md, ref->lc, ref->propq, pk, NULL) > 0
        && apply_ctrls(r, pc, &tmp) == KR_OK && EVP_DigestVerify(m, sig, siglen, msg, msglen) == 1;
    EVP_MD_CTX_free(m);
    free(tmp.got);
    if (!ok)
        fail_at(o, KR_MISMATCH, "the signature does not verify with the %s provider", ref->pname);
    return ok;
}

static enum res run_digest(struct kat_set *ks, const cpt_record *r, const struct side *sd,
    int verify, int oneshot, struct outcome *o)
{
    const char *md = r->kv[0].value, *keyname = cpt_record_get(r, "Key");
    EVP_PKEY *pk;
    EVP_MD_CTX *m = NULL;
    EVP_PKEY_CTX *pc = NULL;
    unsigned char *msg = NULL, *want = NULL, *got = NULL;
    size_t msglen = 0, wantlen = 0, gotlen = 0, parts[MAXPARTS], nparts = 0;
    int have_want = 0, rv;
    enum res res;

    if (keyname == NULL)
        return fail_at(o, KR_BAD_RECORD, "no Key field");
    if ((pk = get_key(ks, keyname, sd, o)) == NULL)
        return o->r;
    if (!rec_inputs(r, &msg, &msglen, parts, MAXPARTS, &nparts)
        || (have_want = rec_bin(r, "Output", &want, &wantlen)) < 0) {
        res = fail_at(o, KR_BAD_RECORD, "malformed Input or Output");
        goto end;
    }
    if ((m = EVP_MD_CTX_new()) == NULL) {
        res = fail_at(o, KR_BAD_RECORD, "out of memory");
        goto end;
    }
    rv = verify ? EVP_DigestVerifyInit_ex(m, &pc, md, sd->lc, sd->propq, pk, NULL)
                : EVP_DigestSignInit_ex(m, &pc, md, sd->lc, sd->propq, pk, NULL);
    if (rv <= 0) {
        res = fail_at(o, verify ? KR_DIGESTVERIFYINIT_ERROR : KR_DIGESTSIGNINIT_ERROR,
            "EVP_Digest%sInit_ex(\"%s\", \"%s\") failed", verify ? "Verify" : "Sign", md,
            sd->propq);
        goto end;
    }
    if ((res = check_ctx_provider(sd, pc, verify ? "DigestVerifyInit" : "DigestSignInit", o))
            != KR_OK
        || (res = apply_ctrls(r, pc, o)) != KR_OK)
        goto end;
    if (verify) {
        if (oneshot) {
            rv = EVP_DigestVerify(m, want, wantlen, msg, msglen);
        } else {
            size_t off = 0;

            rv = 1;
            for (size_t i = 0; i < nparts && rv > 0; off += parts[i], i++)
                rv = EVP_DigestVerifyUpdate(m, msg + off, parts[i]);
            if (rv > 0)
                rv = EVP_DigestVerifyFinal(m, want, wantlen);
        }
        res = rv == 1 ? KR_OK
                      : fail_at(o, KR_VERIFY_ERROR, "EVP_DigestVerify%s did not return 1",
                          oneshot ? "" : "Update/Final");
        goto end;
    }
    /* signing */
    if (oneshot) {
        rv = EVP_DigestSign(m, NULL, &gotlen, msg, msglen) > 0 && (got = malloc(gotlen + 1)) != NULL
            && EVP_DigestSign(m, got, &gotlen, msg, msglen) > 0;
    } else {
        size_t off = 0;

        rv = 1;
        for (size_t i = 0; i < nparts && rv > 0; off += parts[i], i++)
            rv = EVP_DigestSignUpdate(m, msg + off, parts[i]);
        rv = rv > 0 && EVP_DigestSignFinal(m, NULL, &gotlen) > 0
            && (got = malloc(gotlen + 1)) != NULL && EVP_DigestSignFinal(m, got, &gotlen) > 0;
    }
    if (!rv) {
        res = fail_at(o, KR_KEYOP_ERROR, "EVP_DigestSign%s failed", oneshot ? "" : "Update/Final");
        goto end;
    }
    if (have_want) {
        if (gotlen != wantlen || memcmp(got, want, wantlen) != 0) {
            keep_got(o, got, gotlen);
            res = fail_at(o, KR_MISMATCH, "the signature differs from Output");
            goto end;
        }
    } else if (!ref_verify(ks, r, md, got, gotlen, msg, msglen, o)) {
        keep_got(o, got, gotlen);
        res = KR_MISMATCH;
        goto end;
    }
    res = KR_OK;
end:
    EVP_MD_CTX_free(m);
    free(msg);
    free(want);
    free(got);
    ERR_clear_error();
    return res;
}

/* ================================================================== */
/* SigVer: CAVP-style ECDSA verification with a raw public key         */
/* ================================================================== */

static size_t curve_bytes(const char *curve)
{
    static const struct {
        const char *name;
        size_t bytes;
    } c[] = { { "P-192", 24 }, { "P-224", 28 }, { "P-256", 32 }, { "P-384", 48 }, { "P-521", 66 } };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        if (strcmp(c[i].name, curve) == 0)
            return c[i].bytes;
    return 0;
}

/* Decodes a hex number (NIST writes P-521 values with an odd digit count). */
static int num_decode(const char *v, unsigned char **out, size_t *len)
{
    size_t n = strlen(v);
    char *t;
    int ok;

    if (n % 2 == 0)
        return cpt_hex_decode(v, out, len);
    if ((t = malloc(n + 2)) == NULL)
        return 0;
    t[0] = '0';
    memcpy(t + 1, v, n + 1);
    ok = cpt_hex_decode(t, out, len);
    free(t);
    return ok;
}

/* Writes the big-endian hex number v, left-padded to n bytes. */
static int put_coord(unsigned char *dst, size_t n, const char *v)
{
    unsigned char *b;
    size_t bl, skip = 0;

    if (!num_decode(v, &b, &bl))
        return 0;
    while (bl - skip > n && b[skip] == 0)
        skip++;
    if (bl - skip > n) {
        free(b);
        return 0;
    }
    memset(dst, 0, n);
    memcpy(dst + n - (bl - skip), b + skip, bl - skip);
    free(b);
    return 1;
}

static enum res run_sigver(const cpt_record *r, const struct side *sd, struct outcome *o)
{
    const char *curve = r->kv[0].value, *md = cpt_record_get(r, "Digest");
    const char *q = cpt_record_get(r, "Q"), *qx = cpt_record_get(r, "Qx");
    const char *qy = cpt_record_get(r, "Qy"), *rs = cpt_record_get(r, "R");
    const char *ss = cpt_record_get(r, "S");
    size_t fb = curve_bytes(curve), publen = 0, msglen = 0, derlen = 0;
    unsigned char pub[1 + 2 * 66], *msg = NULL, *der = NULL, *qb = NULL, *rb = NULL, *sb = NULL;
    size_t qbl, rbl, sbl;
    EVP_PKEY_CTX *kc = NULL, *pc = NULL;
    EVP_PKEY *pk = NULL;
    EVP_MD_CTX *m = NULL;
    ECDSA_SIG *sig = NULL;
    BIGNUM *br = NULL, *bs = NULL;
    OSSL_PARAM params[3];
    enum res res;
    int n;

    if (fb == 0 || md == NULL || rs == NULL || ss == NULL
        || (q == NULL && (qx == NULL || qy == NULL))
        || cpt_record_get_hex(r, "Msg", &msg, &msglen) < 0) {
        free(msg);
        return fail_at(o, KR_BAD_RECORD, "incomplete SigVer record");
    }
    if (q != NULL) {
        if (!cpt_hex_decode(q, &qb, &qbl) || qbl != 1 + 2 * fb || qb[0] != 0x04) {
            res = fail_at(o, KR_BAD_RECORD, "Q is not an uncompressed point of %s", curve);
            goto end;
        }
        memcpy(pub, qb, qbl);
        publen = qbl;
    } else {
        pub[0] = 0x04;
        if (!put_coord(pub + 1, fb, qx) || !put_coord(pub + 1 + fb, fb, qy)) {
            res = fail_at(o, KR_BAD_RECORD, "bad Qx/Qy");
            goto end;
        }
        publen = 1 + 2 * fb;
    }
    /* The signature, DER encoded. */
    if (!num_decode(rs, &rb, &rbl) || !num_decode(ss, &sb, &sbl) || (sig = ECDSA_SIG_new()) == NULL
        || (br = BN_bin2bn(rb, (int)rbl, NULL)) == NULL
        || (bs = BN_bin2bn(sb, (int)sbl, NULL)) == NULL || !ECDSA_SIG_set0(sig, br, bs)) {
        BN_free(br);
        BN_free(bs);
        res = fail_at(o, KR_BAD_RECORD, "bad R/S");
        goto end;
    }
    if ((n = i2d_ECDSA_SIG(sig, &der)) <= 0) {
        res = fail_at(o, KR_BAD_RECORD, "i2d_ECDSA_SIG failed");
        goto end;
    }
    derlen = (size_t)n;
    /* The public key, imported straight into the side's provider. */
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)curve, 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, pub, publen);
    params[2] = OSSL_PARAM_construct_end();
    kc = EVP_PKEY_CTX_new_from_name(sd->lc, "EC", sd->propq);
    if (kc == NULL || EVP_PKEY_fromdata_init(kc) <= 0
        || EVP_PKEY_fromdata(kc, &pk, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
        res = fail_at(o, KR_KEY_ERROR, "EVP_PKEY_fromdata(EC %s public key, \"%s\") failed", curve,
            sd->propq);
        goto end;
    }
    if ((res = check_key_provider(sd, pk, "EVP_PKEY_fromdata", o)) != KR_OK)
        goto end;
    if ((m = EVP_MD_CTX_new()) == NULL
        || EVP_DigestVerifyInit_ex(m, &pc, md, sd->lc, sd->propq, pk, NULL) <= 0) {
        res = fail_at(o, KR_DIGESTVERIFYINIT_ERROR,
            "EVP_DigestVerifyInit_ex(\"%s\", \"%s\") failed", md, sd->propq);
        goto end;
    }
    if ((res = check_ctx_provider(sd, pc, "DigestVerifyInit", o)) != KR_OK)
        goto end;
    res = EVP_DigestVerify(m, der, derlen, msg, msglen) == 1
        ? KR_OK
        : fail_at(o, KR_VERIFY_ERROR, "EVP_DigestVerify did not return 1");
end:
    EVP_MD_CTX_free(m);
    EVP_PKEY_free(pk);
    EVP_PKEY_CTX_free(kc);
    ECDSA_SIG_free(sig);
    OPENSSL_free(der);
    free(msg);
    free(qb);
    free(rb);
    free(sb);
    ERR_clear_error();
    return res;
}

/* ================================================================== */
/* X25519 (RFC 7748 section 5.2) through EVP_PKEY_derive               */
/* ================================================================== */

static enum res x25519_one(const struct side *sd, const unsigned char k[32],
    const unsigned char u[32], unsigned char out[32], struct outcome *o)
{
    EVP_PKEY *a = NULL, *b = NULL;
    EVP_PKEY_CTX *c = NULL;
    size_t n = 0;
    enum res res;

    a = EVP_PKEY_new_raw_private_key_ex(sd->lc, "X25519", sd->propq, k, 32);
    if (a == NULL) {
        res = fail_at(o, KR_KEY_ERROR, "EVP_PKEY_new_raw_private_key_ex(\"%s\") failed", sd->propq);
        goto end;
    }
    if ((res = check_key_provider(sd, a, "raw private key", o)) != KR_OK)
        goto end;
    b = EVP_PKEY_new_raw_public_key_ex(sd->lc, "X25519", sd->propq, u, 32);
    if (b == NULL) {
        res = fail_at(o, KR_KEY_ERROR, "EVP_PKEY_new_raw_public_key_ex(\"%s\") failed", sd->propq);
        goto end;
    }
    if ((res = check_key_provider(sd, b, "raw public key", o)) != KR_OK)
        goto end;
    c = EVP_PKEY_CTX_new_from_pkey(sd->lc, a, sd->propq);
    if (c == NULL || EVP_PKEY_derive_init(c) <= 0) {
        res = fail_at(o, KR_KEYOP_INIT_ERROR, "EVP_PKEY_derive_init failed");
        goto end;
    }
    if ((res = check_ctx_provider(sd, c, "derive", o)) != KR_OK)
        goto end;
    if (EVP_PKEY_derive_set_peer(c, b) <= 0) {
        res = fail_at(o, KR_KEYOP_ERROR, "EVP_PKEY_derive_set_peer failed");
        goto end;
    }
    if (EVP_PKEY_derive(c, NULL, &n) <= 0 || n != 32) {
        res = fail_at(o, KR_KEYOP_ERROR, "EVP_PKEY_derive size query failed (%zu)", n);
        goto end;
    }
    if (EVP_PKEY_derive(c, out, &n) <= 0 || n != 32) {
        res = fail_at(o, KR_KEYOP_ERROR, "EVP_PKEY_derive failed (%zu bytes)", n);
        goto end;
    }
    res = KR_OK;
end:
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_free(a);
    EVP_PKEY_free(b);
    ERR_clear_error();
    return res;
}

static enum res run_x25519(const cpt_record *r, const struct side *sd, struct outcome *o)
{
    const char *it = cpt_record_get(r, "Iterations"), *lg = cpt_record_get(r, "Long");
    unsigned char *sc = NULL, *u = NULL, *want = NULL, k[32], uu[32], out[32];
    size_t scl = 0, ul = 0, wantl = 0;
    uint64_t iters = 0;
    enum res res = KR_OK;

    if (cpt_record_get_hex(r, "Output", &want, &wantl) != 1 || wantl != 32) {
        res = fail_at(o, KR_BAD_RECORD, "Output must be 32 bytes");
        goto end;
    }
    if (it != NULL) {
        if (!cpt_parse_u64(it, &iters) || iters == 0) {
            res = fail_at(o, KR_BAD_RECORD, "bad Iterations");
            goto end;
        }
        if (lg != NULL && strcmp(lg, "1") == 0 && !g_long) {
            res = KR_SKIPPED;
            goto end;
        }
        memset(k, 0, 32);
        k[0] = 9;
        memcpy(uu, k, 32);
        for (uint64_t i = 0; i < iters; i++) {
            if ((res = x25519_one(sd, k, uu, out, o)) != KR_OK) {
                snprintf(o->what + strlen(o->what), sizeof(o->what) - strlen(o->what),
                    " (iteration %" PRIu64 ")", i + 1);
                goto end;
            }
            memcpy(uu, k, 32);
            memcpy(k, out, 32);
        }
    } else {
        if (cpt_record_get_hex(r, "Scalar", &sc, &scl) != 1 || scl != 32
            || cpt_record_get_hex(r, "U", &u, &ul) != 1 || ul != 32) {
            res = fail_at(o, KR_BAD_RECORD, "Scalar and U must be 32 bytes");
            goto end;
        }
        if ((res = x25519_one(sd, sc, u, out, o)) != KR_OK)
            goto end;
    }
    if (memcmp(out, want, 32) != 0) {
        keep_got(o, out, 32);
        res = fail_at(o, KR_MISMATCH, "the shared secret differs from Output");
    }
end:
    free(sc);
    free(u);
    free(want);
    return res;
}

/* ================================================================== */
/* Running a vector file                                               */
/* ================================================================== */

struct tally {
    unsigned long vectors, negative, skipped, checks;
};

static enum res run_record(struct kat_set *ks, const cpt_record *r, const struct side *sd,
    struct outcome *o)
{
    const char *t = r->kv[0].name;

    if (strcmp(t, "Verify") == 0)
        return run_pkey(ks, r, sd, OP_VERIFY, o);
    if (strcmp(t, "Sign") == 0)
        return run_pkey(ks, r, sd, OP_SIGN, o);
    if (strcmp(t, "VerifyRecover") == 0)
        return run_pkey(ks, r, sd, OP_RECOVER, o);
    if (strcmp(t, "Decrypt") == 0)
        return run_pkey(ks, r, sd, OP_DECRYPT, o);
    if (strcmp(t, "DigestVerify") == 0)
        return run_digest(ks, r, sd, 1, 0, o);
    if (strcmp(t, "DigestSign") == 0)
        return run_digest(ks, r, sd, 0, 0, o);
    if (strcmp(t, "OneShotDigestVerify") == 0)
        return run_digest(ks, r, sd, 1, 1, o);
    if (strcmp(t, "OneShotDigestSign") == 0)
        return run_digest(ks, r, sd, 0, 1, o);
    if (strcmp(t, "SigVer") == 0)
        return run_sigver(r, sd, o);
    if (strcmp(t, "X25519") == 0)
        return run_x25519(r, sd, o);
    return fail_at(o, KR_BAD_RECORD, "unknown record type '%s'", t);
}

static enum res expected_of(const cpt_record *r)
{
    const char *v = cpt_record_get(r, "Result");

    if (v == NULL)
        return KR_OK;
    for (int i = 0; i < KR_NRES; i++)
        if (strcmp(v, res_name[i]) == 0)
            return (enum res)i;
    return KR_BAD_RECORD;
}

static void print_fail(const struct kat_set *ks, const cpt_record *r, const struct side *sd,
    enum res want, const struct outcome *o)
{
    const char *src = cpt_record_get(r, "Source");
    const char *key = cpt_record_get(r, "Key");

    cpt_fail_line("%s:%d (%s) %s = %s%s%s [%s]: expected %s, got %s: %s%s", ks->file, r->line,
        src != NULL ? src : "-", r->kv[0].name, r->kv[0].value, key ? ", Key = " : "",
        key ? key : "", sd->label, res_name[want], res_name[o->r],
        o->what[0] != '\0' ? o->what : "every call succeeded",
        sd->idx == 0 ? " (the reference provider fails it: vector or harness bug)" : "");
    for (size_t i = 0; i < r->n; i++)
        if (strcasecmp(r->kv[i].name, "Ctrl") == 0)
            printf("    Ctrl = %s\n", r->kv[i].value);
    if (o->got != NULL)
        cpt_hex_dump(stdout, "got", o->got, o->gotlen, 0);
    if (o->errlen > 0) {
        const char *p = o->errs;

        printf("    error queue:\n");
        while (*p != '\0') {
            const char *e = strchr(p, '\n');
            int l = e != NULL ? (int)(e - p) : (int)strlen(p);

            printf("      %.*s\n", l, p);
            p += l + (e != NULL);
        }
    }
    fflush(stdout);
}

static int g_have_rsapss = -1;

static int have_rsapss(void)
{
    if (g_have_rsapss < 0) {
        EVP_KEYMGMT *km = EVP_KEYMGMT_fetch(g_env.libctx, "RSA-PSS", g_env.propq);

        g_have_rsapss = km != NULL;
        EVP_KEYMGMT_free(km);
        ERR_clear_error();
    }
    return g_have_rsapss;
}

/*
 * Whether the default provider of the running OpenSSL answers a bad PKCS#1
 * v1.5 padding with a synthetic message (implicit rejection, OpenSSL 3.2
 * and later): asked of a decryption context of its own, whose
 * "implicit-rejection" reads 1. Records with "ImplicitRejection = 0|1"
 * run only where it matches.
 */
static int default_rejects_implicitly(void)
{
    static int known = -1;

    if (known < 0) {
        EVP_PKEY *k = EVP_PKEY_Q_keygen(g_side[0].lc, g_side[0].propq, "RSA", (size_t)1024);
        EVP_PKEY_CTX *c =
            k != NULL ? EVP_PKEY_CTX_new_from_pkey(g_side[0].lc, k, g_side[0].propq) : NULL;
        unsigned int v = 0;
        OSSL_PARAM p[2] = { OSSL_PARAM_uint("implicit-rejection", &v), OSSL_PARAM_END };

        known = c != NULL && EVP_PKEY_decrypt_init(c) > 0
            && OSSL_PARAM_locate_const(EVP_PKEY_CTX_gettable_params(c), "implicit-rejection")
                != NULL
            && EVP_PKEY_CTX_get_params(c, p) > 0 && OSSL_PARAM_modified(p) && v == 1;
        EVP_PKEY_CTX_free(c);
        EVP_PKEY_free(k);
        ERR_clear_error();
        cpt_info("the default provider %s bad PKCS#1 v1.5 paddings implicitly",
            known ? "rejects" : "does not reject");
    }
    return known;
}

static void run_set(struct kat_set *ks, struct tally *ta)
{
    unsigned long pss_skipped = 0;

    for (size_t i = 0; i < ks->rf.n; i++) {
        const cpt_record *r = &ks->rf.recs[i];
        const char *kt = cpt_record_get(r, "KeyType");
        enum res want;
        int skipped = 0;

        if (strcmp(r->kv[0].name, "PrivateKey") == 0 || strcmp(r->kv[0].name, "PublicKey") == 0)
            continue;
        if (kt != NULL && strcmp(kt, "RSA-PSS") == 0 && !have_rsapss()) {
            pss_skipped++;
            ta->skipped++;
            continue;
        }
        if (cpt_record_get(r, "ImplicitRejection") != NULL
            && (atoi(cpt_record_get(r, "ImplicitRejection")) != 0)
                != default_rejects_implicitly()) {
            ta->skipped++;
            cpt_info("%s:%d %s = %s: skipped (for a default provider that %s bad PKCS#1 paddings "
                     "implicitly)",
                ks->file, r->line, r->kv[0].name, r->kv[0].value,
                default_rejects_implicitly() ? "does not reject" : "rejects");
            continue;
        }
        want = expected_of(r);
        if (want == KR_BAD_RECORD || want == KR_SKIPPED) {
            cpt_check(0, "%s:%d: unknown Result '%s'", ks->file, r->line,
                cpt_record_get(r, "Result"));
            continue;
        }
        ta->vectors++;
        if (want != KR_OK)
            ta->negative++;
        for (int s = 0; s < 2; s++) {
            struct outcome o;
            enum res got;

            memset(&o, 0, sizeof(o));
            got = run_record(ks, r, &g_side[s], &o);
            o.r = got;
            if (got == KR_SKIPPED) {
                skipped = 1;
                free(o.got);
                break;
            }
            ta->checks++;
            if (!cpt_count(got == want))
                print_fail(ks, r, &g_side[s], want, &o);
            else
                cpt_info("%s:%d %s = %s [%s]: %s", ks->file, r->line, r->kv[0].name, r->kv[0].value,
                    g_side[s].label, res_name[got]);
            free(o.got);
        }
        if (skipped) {
            ta->vectors--;
            if (want != KR_OK)
                ta->negative--;
            ta->skipped++;
            cpt_note("%s:%d %s = %s: skipped (Long = 1; give --long to run it)", ks->file, r->line,
                r->kv[0].name, r->kv[0].value);
        }
    }
    if (pss_skipped > 0)
        cpt_note("%lu records on RSA-PSS (RSASSA-PSS) keys skipped: '%s' has no RSA-PSS key "
                 "manager",
            pss_skipped, g_env.name);
}

static void run_file(const char *rel, const char *what)
{
    struct kat_set ks;
    struct tally ta = { 0, 0, 0, 0 };

    if (!set_load(&ks, rel))
        return;
    run_set(&ks, &ta);
    printf("  %s: %lu vectors (%lu expected to fail), %lu skipped, %lu checks "
           "(each vector on '%s' and on '%s')\n",
        what, ta.vectors, ta.negative, ta.skipped, ta.checks, g_side[0].pname, g_side[1].pname);
    set_free(&ks);
}

/* ================================================================== */
/* Sub-tests                                                           */
/* ================================================================== */

static void test_ecdsa(void)
{
    g_used_ecdsa = 1;
    run_file("tests/vectors/ecdsa_kat.txt", "ECDSA");
}

static void test_rsa(void)
{
    g_used_rsa = 1;
    run_file("tests/vectors/rsa_kat.txt", "RSA");
}

static void test_x25519(void)
{
    g_used_x25519 = 1;
    run_file("tests/vectors/x25519_kat.txt", "X25519");
}

static void test_stats(void)
{
    const char *algs[4];
    int n = 0;

    if (g_env.stats_dir[0] == '\0' || g_o.no_stats) {
        cpt_info("skipped (no --stats-dir)");
        return;
    }
    if (strcmp(g_env.name, "default") == 0) {
        cpt_note("the default provider writes no statistics file: skipped");
        return;
    }
    if (g_used_ecdsa)
        algs[n++] = "ECDSA";
    if (g_used_rsa)
        algs[n++] = "RSA";
    if (g_used_x25519)
        algs[n++] = "X25519";
    algs[n] = NULL;
    if (n > 0)
        cpt_stats_check(g_env.stats_dir, g_env.name, getpid(), algs, 3500, g_o.verbose);
}

static const cpt_named_test g_subtests[] = {
    { "ecdsa", test_ecdsa },
    { "rsa", test_rsa },
    { "x25519", test_x25519 },
    { "stats", test_stats },
};

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
        "usage: %s [options]\n"
        "Public-key known-answer tests (tests/vectors/{ecdsa,rsa,x25519}_kat.txt)\n"
        "through the provider under test, each first run on the default provider.\n"
        "  --long                 also run the vectors marked Long = 1 (RFC 7748's\n"
        "                         1,000,000 iterations)\n"
        "sub-tests: ecdsa rsa x25519 stats\n",
        argv0);
    cpt_opts_usage(f);
}

int main(int argc, char **argv)
{
    double t0 = cpt_now();
    int rc;

    g_argv0 = argv[0];
    cpt_opts_init(&g_o);
    for (int i = 1; i < argc; i++) {
        int r = cpt_opts_parse_one(&g_o, argc, argv, &i);

        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--long") == 0) {
            g_long = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else {
            fprintf(stderr, "unknown option '%s'\n", argv[i]);
            usage(stderr, argv[0]);
            return 2;
        }
    }
    cpt_set_verbose(g_o.verbose);
    printf("pk_kat_test: provider=%s%s\n", g_o.provider, g_long ? " (--long)" : "");
    fflush(stdout);
    if (!cpt_env_init(&g_env, &g_o)) {
        cpt_check(0, "cannot load provider '%s'", g_o.provider);
        return cpt_finish();
    }
    g_side[0] = (struct side){ 0, g_env.ref_libctx, "provider=default", "default", "default" };
    g_side[1] = (struct side){ 1, g_env.libctx, g_env.propq, g_env.name, g_env.name };

    for (size_t i = 0; i < sizeof(g_subtests) / sizeof(g_subtests[0]); i++) {
        double ts = cpt_now();

        if (!cpt_selected(&g_o, g_subtests[i].name))
            continue;
        cpt_set_subtest(g_subtests[i].name);
        g_subtests[i].fn();
        cpt_subtest_summary(g_subtests[i].name, cpt_now() - ts);
        ERR_clear_error();
    }
    cpt_set_subtest("main");
    printf("total time %.2fs\n", cpt_now() - t0);
    fflush(stdout);
    rc = cpt_finish();
    cpt_env_free(&g_env);
    return rc;
}
