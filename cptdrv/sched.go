// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"runtime"
	"time"
)

// The Go runtime's monitor thread (sysmon) takes the P back from a thread
// that sits in a system call or a C call while its P has run no other
// goroutine for 10 ms, and every such take resets the monitor to polling
// every 20 µs, backing off only after a millisecond without one. The
// threads of this library are exactly such threads: an engine that
// alternates its futex and C calls, and a host thread that calls into Go
// and returns to C, keep their P without ever passing through the
// scheduler. With two host threads and two engines, sysmon woke 6700
// times a second in haproxy (6 context switches per handshake) and took
// a P about once per handshake. Passing through the scheduler at least
// every YieldEvery keeps the P's tick moving, and sysmon quiet.

// YieldEvery is how often a long-lived goroutine of this library passes
// through the scheduler: well inside the runtime's 10 ms.
const YieldEvery = 5 * time.Millisecond

// Yielder is the state of one goroutine's yields.
type Yielder struct{ last time.Time }

// Tick yields if the last yield is YieldEvery old.
func (y *Yielder) Tick() {
	if now := time.Now(); now.Sub(y.last) >= YieldEvery {
		y.Yield(now)
	}
}

// Yield yields now (before a long sleep: a P left with a stale tick is
// taken as soon as it has been 10 ms).
func (y *Yielder) Yield(now time.Time) {
	y.last = now
	runtime.Gosched()
}
