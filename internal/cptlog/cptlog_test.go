package cptlog

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestLevelsAndRateLimit(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Warn, "cptprov[1]", 3, time.Second)
	clock := time.Unix(1000, 0)
	l.now = func() time.Time { return clock }
	l.Logf(Info, "not written")
	for i := 0; i < 10; i++ {
		l.Logf(Warn, "failure %d", i)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "cptprov[1] warn: failure 0") {
		t.Fatalf("burst of 3 expected:\n%s", b.String())
	}
	// Two seconds later two more lines may go; the first says how many
	// were dropped.
	clock = clock.Add(2 * time.Second)
	b.Reset()
	for i := 0; i < 5; i++ {
		l.Logf(Error, "again %d", i)
	}
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "(7 earlier lines dropped by the rate limit)") {
		t.Fatalf("after 2 s:\n%s", b.String())
	}
	var off *Logger
	off.Logf(Error, "a nil logger logs nothing")
	if _, err := ParseLevel("loud"); err == nil {
		t.Fatal("ParseLevel accepted loud")
	}
	if lv, err := ParseLevel("INFO"); err != nil || lv != Info {
		t.Fatalf("ParseLevel(INFO) = %v %v", lv, err)
	}
}
