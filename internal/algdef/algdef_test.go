// SPDX-License-Identifier: Apache-2.0

package algdef

import (
	"os"
	"strings"
	"testing"
)

func readDef(t *testing.T) string {
	return readFile(t, "../../provider/algorithms.def")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// edit is a change of a real list and the error parsing it must give.
type edit struct{ old, new, err string }

// refuses applies each edit alone to src and checks that parse fails with
// the edit's error.
func refuses(t *testing.T, src string, parse func([]byte) error, edits []edit) {
	t.Helper()
	for _, c := range edits {
		if !strings.Contains(src, c.old) {
			t.Fatalf("the list has no %q", c.old)
		}
		err := parse([]byte(strings.Replace(src, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want %q", c.new, err, c.err)
		}
	}
}

func TestParseList(t *testing.T) {
	l, err := Parse([]byte(readDef(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Families) == 0 || len(l.Ciphers) == 0 || len(l.Digests) == 0 {
		t.Fatalf("%d families, %d ciphers, %d digests", len(l.Families), len(l.Ciphers), len(l.Digests))
	}
	if _, err := l.Go(); err != nil {
		t.Fatal(err)
	}
}

// What the C preprocessor could read otherwise than this package, and what
// would make the list inconsistent, is refused: each edit of the real list
// must fail with the error given.
func TestParseRefuses(t *testing.T) {
	const gcm = `CPT_CIPHER(AES_128_GCM, 1, "AES-128-GCM", ":id-aes128-GCM:2.16.840.1.101.3.4.1.6", aes_gcm, 16)`
	const sha1 = `CPT_DIGEST(SHA1, 1, "SHA1", ":SHA-1:SSL3-SHA1:1.3.14.3.2.26", sha1, hmac, 20, 64)`
	refuses(t, readDef(t), func(b []byte) error { _, err := Parse(b); return err }, []edit{
		{gcm, "#if 0\n" + gcm + "\n#endif", "directive not allowed"},
		{gcm, `#include "x.def"`, "directive not allowed"},
		{gcm, "#define CPT_AES(n) CPT_CIPHER(n)", "unknown macro"},
		{gcm, gcm + " // x", "// comments"},
		{gcm, strings.Replace(gcm, ", aes_gcm", ", \\\naes_gcm", 1), "continued line"},
		{gcm, strings.Replace(gcm, ", 16)", ")", 1), "5 arguments, want 6"},
		{gcm, strings.Replace(gcm, "aes_gcm", "aes_gcn", 1), "unknown family aes_gcn"},
		{gcm, strings.Replace(gcm, "AES_128_GCM, 1", "AES_128_GCM, 2", 1), "counter slot 2 is cipher AES_128_GCM's"},
		{gcm, strings.Replace(gcm, "AES_128_GCM, 1", "AES_128_GCM, 64", 1), "outside 1 to 63"},
		{gcm, strings.Replace(gcm, "AES_128_GCM, 1", "AES_128_GCM, 17", 1), "counter slot 17 is digest SHA1's"},
		{gcm, strings.Replace(gcm, "AES_128_GCM, 1", "AES_192_GCM, 44", 1), "CPT_ALG_AES_192_GCM twice"},
		{gcm, strings.Replace(gcm, ":id-aes128-GCM", ":AES-192-GCM", 1), "name AES-192-GCM is AES_128_GCM's"},
		{gcm, strings.Replace(gcm, `":id-aes128-GCM`, `"id-aes128-GCM`, 1), "each after a colon"},
		{gcm, strings.Replace(gcm, `"AES-128-GCM"`, `"AES-128-GCM\\x"`, 1), "not a plain string"},
		{gcm, strings.Replace(gcm, "16)", "0x10)", 1), "not a number"},
		{sha1, strings.Replace(sha1, "SHA1, 1,", "SHA1, 8,", 1), "reaches the HMAC slots"},
		{"aes_cbc_hmac, 16, SHA1)", "aes_cbc_hmac, 16, MD5)", "unknown digest MD5"},
		{"#define CPT_FAMILY(family, threshold)", "#define CPT_FAMILY(family, threshold) x", "empty expansion"},
	})
}
