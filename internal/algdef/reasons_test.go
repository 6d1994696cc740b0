// SPDX-License-Identifier: Apache-2.0

package algdef

import "testing"

func readReasons(t *testing.T) string {
	return readFile(t, "../../provider/reasons.def")
}

func TestParseReasons(t *testing.T) {
	rs, err := ParseReasons([]byte(readReasons(t)))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Reason{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	// The Go names call sites use, and the flags of OpenSSL's common
	// reasons (err.h: ERR_R_INTERNAL_ERROR is 259 | ERR_R_FATAL,
	// ERR_R_UNSUPPORTED 268 | ERR_RFLAG_COMMON).
	for id, want := range map[string]struct {
		name  string
		value int
	}{
		"INVALID_MGF1_MD":        {"ReasonInvalidMGF1MD", 167},
		"D_E_NOT_CONGRUENT_TO_1": {"ReasonDENotCongruentTo1", 1019},
		"NOT_A_PUBLIC_KEY":       {"ReasonNotAPublicKey", 220},
		"INVALID_X931_DIGEST":    {"ReasonInvalidX931Digest", 170},
		"INTERNAL":               {"ReasonInternal", 259 | 3<<18},
		"UNSUPPORTED":            {"ReasonUnsupported", 268 | 2<<18},
	} {
		r, ok := byID[id]
		if !ok || r.GoName() != want.name || r.Value() != want.value {
			t.Errorf("%s: %s = %d, want %s = %d", id, r.GoName(), r.Value(), want.name, want.value)
		}
	}
	if _, err := rs.Go(); err != nil {
		t.Fatal(err)
	}
}

func TestParseReasonsRefuses(t *testing.T) {
	const tag = `CPT_REASON(INVALID_TAG, 110, "invalid tag")`
	refuses(t, readReasons(t), func(b []byte) error { _, err := ParseReasons(b); return err }, []edit{
		{tag, `CPT_REASON(INVALID_TAG, 108, "invalid tag")`, "number 108 is INVALID_AAD's"},
		{tag, `CPT_REASON(INVALID_AAD, 110, "invalid tag")`, "CPT_R_INVALID_AAD twice"},
		{tag, `CPT_REASON(INVALID_TAG, 110 | (2 << 18), "invalid tag")`, "not a number"},
		{tag, `CPT_REASON(INVALID_TAG, 262144, "invalid tag")`, "outside 1 to 262143"},
		{`CPT_REASON(INVALID_AAD, 108, "invalid aad")`, `CPT_REASON(INVALID__TAG, 108, "invalid aad")`, "are both ReasonInvalidTag in Go"},
		{tag, `CPT_REASON(INVALID_TAG, 110)`, "2 arguments, want 3"},
		{tag, `CPT_ERROR(INVALID_TAG, 110, "invalid tag")`, "unknown row CPT_ERROR"},
		{tag, `CPT_CIPHER(INVALID_TAG, 110, "invalid tag")`, "unknown row CPT_CIPHER"},
		{"#define CPT_REASON(ID, num, string)", "#define CPT_REASON(ID, num, string) x", "empty expansion"},
	})
}
