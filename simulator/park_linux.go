// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// parker puts idle engines to sleep on a futex and wakes them from the
// doorbell. A channel would do the same through Go's scheduler: on a host
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

type parker struct {
	seq     atomic.Uint32 // bumped by every wake-up; the futex word
	waiters atomic.Int32
}

func (p *parker) init() {}

// prepare announces a sleeper. The caller re-checks for work after it and
// then calls sleep with the returned value, or cancel.
func (p *parker) prepare() uint32 {
	p.waiters.Add(1)
	return p.seq.Load()
}

func (p *parker) cancel() { p.waiters.Add(-1) }

// sleep blocks until a wake after prepare, or the timeout. A blocking
// system call hands the engine's P back to the runtime for the host's own
// calls into Go.
func (p *parker) sleep(seq uint32, timeoutNs int64) {
	ts := unix.NsecToTimespec(timeoutNs)
	syscall.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.seq)),
		futexWait|futexPrivate, uintptr(seq),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	p.waiters.Add(-1)
}

// wake wakes up to n sleepers; it costs nothing when none is asleep.
func (p *parker) wake(n int) {
	if p.waiters.Load() == 0 {
		return
	}
	p.seq.Add(1)
	syscall.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&p.seq)),
		futexWake|futexPrivate, uintptr(n), 0, 0, 0)
}
