// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"testing"
	"time"
)

// TestThreadSplit: the first host threads (in start order) are the
// server's, the rest Go's; a thread started between the readings counts
// from nothing.
func TestThreadSplit(t *testing.T) {
	before := threadTimes{cpu: map[int]time.Duration{10: 100, 11: 50, 20: 7}, order: []int{10, 11, 20}}
	after := threadTimes{cpu: map[int]time.Duration{10: 160, 11: 80, 20: 17, 21: 5}, order: []int{10, 11, 20, 21}}
	cases := []struct {
		host          int
		own, goThread time.Duration
	}{{0, 105, 0}, {1, 60, 45}, {2, 90, 15}}
	for _, c := range cases {
		own, g, n := threadSplit(before, after, c.host)
		if own != c.own || g != c.goThread || n != 4 {
			t.Errorf("host %d: own %v, Go's %v, %d threads; want %v, %v, 4", c.host, own, g, n, c.own, c.goThread)
		}
	}
}

// TestThreadCPU reads this process's threads: the main thread first, and
// the CPU time of a thread that spins grows.
func TestThreadCPU(t *testing.T) {
	a := threadCPU(os.Getpid())
	if len(a.order) == 0 || a.order[0] != os.Getpid() {
		t.Fatalf("threads %v: the main thread (%d) is not first", a.order, os.Getpid())
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	b := threadCPU(os.Getpid())
	own, g, _ := threadSplit(a, b, 0)
	if own+g < 40*time.Millisecond {
		t.Errorf("50 ms of spinning counted as %v", own+g)
	}
}
