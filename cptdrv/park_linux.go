// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Parker puts a backend's idle engines (or pollers) to sleep on a futex and
// wakes them from the doorbell. A channel would do the same through Go's scheduler: on a host
// whose threads keep every CPU busy (haproxy with ssl-mode-async), each
// wake-up then also woke an idle M that spun looking for work, and perf
// showed the scheduler and its clock reads costing as much CPU as the
// cryptography. The futex costs one system call on each side.
// From linux/futex.h.
const (
	futexWait    = 0
	futexWake    = 1
	futexPrivate = 128
)

// idleTimeout bounds a parked engine's sleep (see Idle).
const idleTimeout = 5 * time.Second

type Parker struct {
	seq     atomic.Uint32 // bumped by every wake-up; the futex word
	waiters atomic.Int32
}

// Prepare announces a sleeper. The caller re-checks for work after it and
// then calls Sleep with the returned value, or Cancel.
func (p *Parker) Prepare() uint32 {
	p.waiters.Add(1)
	return p.seq.Load()
}

// Sleepers is how many have announced a sleep and not woken yet.
func (p *Parker) Sleepers() int { return int(p.waiters.Load()) }

// Cancel withdraws a Prepare.
func (p *Parker) Cancel() { p.waiters.Add(-1) }

// Sleep blocks until a wake after prepare, or the timeout. A blocking
// system call hands the engine's P back to the runtime for the host's own
// calls into Go.
func (p *Parker) Sleep(seq uint32, timeoutNs int64) {
	ts := unix.NsecToTimespec(timeoutNs)
	futexSleep(&p.seq, seq, &ts)
	p.waiters.Add(-1)
}

//go:linkname entersyscallblock runtime.entersyscallblock
func entersyscallblock()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()

// futexSleep waits on the futex word as a blocking system call: the
// runtime hands the sleeper's P on at once (entersyscallblock, as its own
// notetsleepg does), where syscall.Syscall keeps it until the monitor
// takes it back.
//
//go:nosplit
func futexSleep(addr *atomic.Uint32, val uint32, ts *unix.Timespec) {
	entersyscallblock()
	syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait|futexPrivate,
		uintptr(val), uintptr(unsafe.Pointer(ts)), 0, 0)
	exitsyscall()
}

// Idle puts an engine with nothing to do to sleep until a doorbell of qs,
// unless stop is set (it returns false then: the engine ends) or work
// arrived meanwhile. It re-checks after announcing the sleep: a doorbell
// rung before the announcement saw no sleeper and woke nobody. The
// timeout only bounds the cost of a lost wake-up, which the protocol
// excludes, and is long because each expiry costs more than the engine's
// own wake-up: the runtime takes the P back from a system call that
// lasted 10 ms, and its monitor thread (sysmon) then polls every 20 µs
// again, backing off only after a millisecond.
func (p *Parker) Idle(stop *atomic.Bool, qs *QueueSet) bool {
	seq := p.Prepare()
	if stop.Load() {
		p.Cancel()
		return false
	}
	if qs.Pending() {
		p.Cancel()
		return true
	}
	p.Sleep(seq, int64(idleTimeout))
	return true
}

// Wake wakes up to n sleepers; it costs nothing when none is asleep.
func (p *Parker) Wake(n int) {
	if p.waiters.Load() == 0 {
		return
	}
	p.seq.Add(1)
	syscall.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.seq)),
		futexWake|futexPrivate, uintptr(n), 0, 0, 0)
}
