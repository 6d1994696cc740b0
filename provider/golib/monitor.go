// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"cptprov/cptdrv"
)

// The Go runtime's monitor thread (sysmon) wakes every 20 µs to 10 ms
// while any thread holds a P, and a host thread that calls into Go holds
// one between its calls (cptdrv/sched.go). On a server's busy CPUs each
// wake-up preempted the host's own thread: in nginx, about one
// involuntary context switch per handshake more than stock nginx has
// (docs/performance.md). So it runs as SCHED_BATCH, whose wake-ups never
// preempt a running thread; its work (taking Ps back, preemption
// requests, the forced GC) tolerates the wait. SCHED_BATCH, not
// SCHED_IDLE: the threads the monitor starts inherit its policy and run
// the engines, which must keep their fair share, and an unprivileged
// process cannot take a thread out of SCHED_IDLE again.
//
// No API names the monitor's thread. It is the one Go thread that sleeps
// in nanosleep (runtime.usleep): a thread found there, twice, with its
// instruction pointer in this library's code and no other such thread
// seen, is it. A host thread sleeping in nanosleep has its instruction
// pointer in libc, and is never touched.

// schedBatch is Linux's SCHED_BATCH policy.
const schedBatch = 3

// lowerMonitor looks for the monitor's thread for up to a minute (it
// sleeps in futex, not nanosleep, while no thread holds a P) and makes it
// SCHED_BATCH. It looks every millisecond at first, while the operation
// that started the runtime and its successors keep a P busy (a worker
// that serves a few connections may be busy for no longer), then every
// 20 ms.
func lowerMonitor() {
	lo, hi, ok := ownText()
	if !ok {
		return
	}
	seen := map[int]int{}
	for start := time.Now(); time.Since(start) < time.Minute; {
		for _, tid := range sleepingIn(lo, hi) {
			seen[tid]++
		}
		if len(seen) > 1 {
			return // not one thread: leave them all alone
		}
		for tid, n := range seen {
			if n >= 2 {
				if setBatch(tid) {
					cptdrv.SetMonitorBatch()
				}
				return
			}
		}
		if time.Since(start) < 50*time.Millisecond {
			time.Sleep(time.Millisecond)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// ownText is the address range of this library's code: the executable
// mapping that holds one of its functions.
func ownText() (lo, hi uint64, ok bool) {
	pc := uint64(reflect.ValueOf(lowerMonitor).Pointer())
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.Contains(fields[1], "x") {
			continue
		}
		a, b, found := strings.Cut(fields[0], "-")
		if !found {
			continue
		}
		l, err1 := strconv.ParseUint(a, 16, 64)
		h, err2 := strconv.ParseUint(b, 16, 64)
		if err1 == nil && err2 == nil && l <= pc && pc < h {
			return l, h, true
		}
	}
	return 0, 0, false
}

// sleepingIn lists the process's threads now in nanosleep from code in
// [lo, hi): /proc/self/task/TID/syscall reads "number args... sp pc".
func sleepingIn(lo, hi uint64) []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var tids []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/syscall")
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b))
		if len(fields) < 9 || fields[0] != strconv.Itoa(syscall.SYS_NANOSLEEP) {
			continue
		}
		pc, err := strconv.ParseUint(strings.TrimPrefix(fields[len(fields)-1], "0x"), 16, 64)
		if tid, err2 := strconv.Atoi(t.Name()); err == nil && err2 == nil && lo <= pc && pc < hi {
			tids = append(tids, tid)
		}
	}
	return tids
}

// setBatch makes thread tid SCHED_BATCH; a refusal leaves it as it was.
func setBatch(tid int) bool {
	var param struct{ priority int32 }
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedBatch, uintptr(unsafe.Pointer(&param)))
	return errno == 0
}
