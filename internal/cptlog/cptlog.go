// SPDX-License-Identifier: Apache-2.0

// Package cptlog writes cptprov's log: one line per notable event (the
// device starting, the circuit breaker opening or closing, device
// failures), at or above a configured level, to a configured file, and
// rate-limited so that a failing device cannot flood it. Nothing on the
// hot path logs: only events that are rare by nature, or already slow.
package cptlog

import (
	"fmt"
	"io"
	"log/syslog"
	"os"
	"strings"
	"sync"
	"time"
)

// Level orders events by importance.
type Level int

const (
	Debug Level = iota
	Info
	Warn
	Error
	Off
)

var names = [...]string{"debug", "info", "warn", "error", "off"}

func (l Level) String() string { return names[l] }

// ParseLevel reads a level name.
func ParseLevel(s string) (Level, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return Level(i), nil
		}
	}
	return Off, fmt.Errorf("log level %q: use debug, info, warn, error or off", s)
}

// Logger is safe for concurrent use. The zero Logger logs nothing.
type Logger struct {
	mu      sync.Mutex
	w       io.Writer
	level   Level
	prefix  string
	burst   int           // lines allowed at once
	every   time.Duration // one more line allowed per this
	tokens  float64
	last    time.Time
	dropped int
	now     func() time.Time
	sys     *syslog.Writer // instead of w: the syslog daemon
}

// New logs at level and above to w, each line prefixed (with the pid, say),
// at most burst lines at once and then one per every.
func New(w io.Writer, level Level, prefix string, burst int, every time.Duration) *Logger {
	return &Logger{w: w, level: level, prefix: prefix, burst: burst, every: every, tokens: float64(burst), now: time.Now}
}

// openSyslog connects to the local syslog daemon (tests: a socket of
// their own).
var openSyslog = func() (*syslog.Writer, error) {
	return syslog.New(syslog.LOG_DAEMON|syslog.LOG_INFO, "cptprov")
}

// Open is New for a destination: "" or "stderr", "syslog" (the local
// syslog daemon, facility daemon, tag cptprov), or a file opened for
// appending.
func Open(dest string, level Level, prefix string) (*Logger, error) {
	w := io.Writer(os.Stderr)
	switch dest {
	case "", "stderr":
	case "syslog":
		sl, err := openSyslog()
		if err != nil {
			return nil, err
		}
		l := New(nil, level, prefix, 20, time.Second)
		l.sys = sl
		return l, nil
	default:
		f, err := os.OpenFile(dest, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		w = f
	}
	return New(w, level, prefix, 20, time.Second), nil
}

// Enabled reports whether events at level are written.
func (l *Logger) Enabled(level Level) bool {
	return l != nil && (l.w != nil || l.sys != nil) && level >= l.level && level < Off
}

// Logf writes one line, unless the level is below the logger's or the rate
// is exceeded; lines dropped for the rate are counted in the next one.
func (l *Logger) Logf(level Level, format string, args ...any) {
	if !l.Enabled(level) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.last.IsZero() && l.every > 0 {
		l.tokens = min(float64(l.burst), l.tokens+float64(now.Sub(l.last))/float64(l.every))
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		return
	}
	l.tokens--
	msg := fmt.Sprintf(format, args...)
	if l.dropped > 0 {
		msg += fmt.Sprintf(" (%d earlier lines dropped by the rate limit)", l.dropped)
		l.dropped = 0
	}
	if l.sys != nil {
		// syslog stamps the time; the level picks the priority.
		line := fmt.Sprintf("%s %s: %s", l.prefix, level, msg)
		switch level {
		case Debug:
			l.sys.Debug(line)
		case Info:
			l.sys.Info(line)
		case Warn:
			l.sys.Warning(line)
		default:
			l.sys.Err(line)
		}
		return
	}
	fmt.Fprintf(l.w, "%s %s %s: %s\n", now.Format(time.RFC3339), l.prefix, level, msg)
}
