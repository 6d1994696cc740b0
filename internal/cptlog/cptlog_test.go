// SPDX-License-Identifier: Apache-2.0

package cptlog

import (
	"bytes"
	"log/syslog"
	"net"
	"path/filepath"
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

// log_file = syslog: one datagram per line, at the priority of its level
// (facility daemon), tagged cptprov.
func TestSyslog(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "log")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	old := openSyslog
	defer func() { openSyslog = old }()
	openSyslog = func() (*syslog.Writer, error) {
		return syslog.Dial("unixgram", sock, syslog.LOG_DAEMON|syslog.LOG_INFO, "cptprov")
	}
	l, err := Open("syslog", Info, "cptprov[7]")
	if err != nil {
		t.Fatal(err)
	}
	l.Logf(Debug, "not written")
	l.Logf(Warn, "circuit open")
	l.Logf(Info, "device started")
	buf := make([]byte, 2048)
	for _, want := range []string{"<28>", "<30>"} { // daemon (3<<3) | warning (4), | info (6)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		line := string(buf[:n])
		if !strings.HasPrefix(line, want) || !strings.Contains(line, "cptprov[") || !strings.Contains(line, "cptprov[7]") {
			t.Fatalf("datagram %q, want priority %s", line, want)
		}
		if (want == "<28>") != strings.Contains(line, "warn: circuit open") {
			t.Fatalf("datagram %q", line)
		}
	}
}
