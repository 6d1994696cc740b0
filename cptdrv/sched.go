// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"runtime"
	"sync/atomic"
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

// monitorBatch is set once the monitor's thread runs as SCHED_BATCH
// (provider/golib/monitor.go).
var monitorBatch atomic.Bool

// SetMonitorBatch records that the monitor's thread runs as SCHED_BATCH.
func SetMonitorBatch() { monitorBatch.Store(true) }

// MonitorBatch reports whether the monitor's thread runs as SCHED_BATCH.
// A synchronous host thread then no longer yields (provider/golib/yield.c):
// the monitor's wake-ups no longer preempt it, and its preemption requests
// and P takes, every 10 ms at most, cost a host thread less than a yield
// every 5 ms, each a hand-off of its P through another thread and back
// (docs/performance.md).
func MonitorBatch() bool { return monitorBatch.Load() }

// Yield passes the calling goroutine through the scheduler, which moves
// its P's tick. The runtime's goyield (its own P's queue, no wake-up)
// saved haproxy a context switch per handshake but cost ASYNC jobs' short
// operations their throughput (docs/performance.md), so it is Gosched.
func Yield() { runtime.Gosched() }
