// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cptprov/stats"
)

// area writes a statistics area for pid in dir as a process would leave it,
// with these device counters published (none: a process that never did a
// device request, so never published).
func area(t *testing.T, dir string, pid int, dev map[string]uint64) {
	t.Helper()
	a, m, err := stats.CreateFile(filepath.Join(dir, fmt.Sprintf("cptprov-%d.stats", pid)), pid, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	if dev == nil {
		return
	}
	var d stats.DeviceCounters
	for k, v := range dev {
		d.Names = append(d.Names, k)
		d.Values = append(d.Values, v)
	}
	stats.NewPublisher(a, "simulator", func() stats.DeviceCounters { return d }).Publish()
}

func TestReadSplit(t *testing.T) {
	dir := t.TempDir()
	// -multi 2: the parent's area holds no request, each child's its own.
	area(t, dir, 100, nil)
	area(t, dir, 101, map[string]uint64{"completed": 6400, "se_phase_samples": 100, "se_submit_ns": 10000,
		"se_wait_ns": 20000, "se_engine_ns": 400000, "se_notify_ns": 10000, "ae_phase_samples": 7, "ae_engine_ns": 1e9})
	area(t, dir, 102, map[string]uint64{"completed": 3200, "se_phase_samples": 50, "se_submit_ns": 5000,
		"se_wait_ns": 130000, "se_engine_ns": 200000, "se_notify_ns": 5000})
	s, err := readSplit(dir, "se", 2, "gcm")
	if err != nil {
		t.Fatal(err)
	}
	want := split{"gcm", 2, 9600, 150, 0.1, 1, 4, 0.1}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if s.name != want.name || s.procs != want.procs || s.requests != want.requests || s.samples != want.samples ||
		!near(s.submit, want.submit) || !near(s.wait, want.wait) || !near(s.engine, want.engine) || !near(s.notify, want.notify) {
		t.Errorf("split %+v, want %+v", s, want)
	}
	// One process timed ae requests, not the two asked for.
	if _, err := readSplit(dir, "ae", 2, "rsa"); err == nil || !strings.Contains(err.Error(), "1 processes timed ae requests") {
		t.Errorf("ae: %v", err)
	}
	if _, err := readSplit(t.TempDir(), "se", 1, "none"); err == nil {
		t.Error("an empty directory gave a split")
	}
}
