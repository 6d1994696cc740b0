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
// threads of this library are such threads: an engine that runs C
// arithmetic call after call, and a host thread that calls into Go and
// returns to C, keep their P without ever passing through the scheduler
// (a parked engine hands its P on: Parker.Sleep). Passing through the
// scheduler at least every YieldEvery keeps the P's tick moving, and
// sysmon quiet (docs/performance.md has the figures).

// YieldEvery is how often a long-lived goroutine of this library passes
// through the scheduler: well inside the runtime's 10 ms.
const YieldEvery = 5 * time.Millisecond

// Yielder is the state of one goroutine's yields.
type Yielder struct{ last time.Time }

// Tick yields if the last yield is YieldEvery old.
func (y *Yielder) Tick() {
	if now := time.Now(); now.Sub(y.last) >= YieldEvery {
		y.last = now
		Yield()
	}
}

// Yield passes the calling goroutine through the scheduler, which moves
// its P's tick. The runtime's goyield (its own P's queue, no wake-up)
// saved haproxy a context switch per handshake but cost ASYNC jobs' short
// operations their throughput (docs/performance.md), so it is Gosched.
func Yield() { runtime.Gosched() }
