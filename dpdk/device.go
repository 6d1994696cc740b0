// SPDX-License-Identifier: Apache-2.0

package dpdk

/*
#include <stdlib.h>
#include "shimcalls.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/internal/cptlog"
	"cptprov/simulator"
)

func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

// Device is the dpdk backend: the cryptodevs this process started, the
// lanes that feed them, and the CPU path for what they do not offer.
type Device struct {
	sw    *simulator.Device // the CPU path: the engines' code, no engines
	log   func(cptlog.Level, string)
	depth int
	nqp   int
	spin  time.Duration

	devs  []*cryptodev
	byAlg map[uint32]*cryptodev // the first device offering each CPTDPDK_* algorithm

	queues  cptdrv.QueueSet
	lanes   []*lane
	park    cptdrv.Parker // idle lanes sleep here; the doorbell wakes one
	stopped atomic.Bool
	wg      sync.WaitGroup
	once    sync.Once

	claims  map[string]*os.File // the PCI devices this process holds (claimDevices)
	sess    sessions
	nextTag atomic.Uint64
	faults  *simulator.FaultPlan // reset rules: the device stopped under load
	named   sync.Map             // what the CPU path computes, named once in the log

	// selfTestFailed: the CPTDPDK_* algorithms some device got wrong in
	// its self-test (selftest.go); selfTestOff: those of them no device
	// computes now, which the CPU path does.
	selfTestFailed, selfTestOff uint32

	executed, software, errors, devErrors, resets atomic.Uint64
}

// cryptodev is one started DPDK device.
type cryptodev struct {
	id        int
	name      string
	driver    string
	algs      uint32
	maxModLen int
	maxData   int
	// ctl keeps session set-up and release (read) apart from the device's
	// stop and restart (write), which set its queue pairs up again: some
	// drivers make sessions with a queue pair's state (DPDK 24.11's
	// ipsec_mb PMDs use queue pair 0's manager), which a restart frees.
	ctl     sync.RWMutex
	qps     []*qpair
	done    atomic.Uint64 // requests it completed
	counter string        // done's name in the statistics: dpdk_<name>
}

// qpair is one queue pair: DPDK's burst calls on it are serialised by mu.
type qpair struct {
	dev      *cryptodev
	id       int
	mu       sync.Mutex
	inflight map[uint64]*part
	backlog  []*part // built, not yet taken by the device (full)
	out      atomic.Int32
	// reqs and done are the burst arrays, in C memory: Go memory holding
	// pointers would be walked by cgo's pointer check on every call.
	reqs *[burst]C.struct_cptdpdk_req
	done *[burst]C.struct_cptdpdk_done
	// laneOut counts the requests in flight that lanes submitted: only
	// those keep a lane polling. A synchronous submitter polls for its
	// own, and a lane spinning beside it would take its CPU.
	laneOut atomic.Int32
}

// burst is the most requests one enqueue or dequeue call moves.
const burst = 32

func newQpair(cd *cryptodev, id int) *qpair {
	qp := &qpair{dev: cd, id: id, inflight: map[uint64]*part{}}
	qp.reqs = (*[burst]C.struct_cptdpdk_req)(C.calloc(burst, C.size_t(unsafe.Sizeof(C.struct_cptdpdk_req{}))))
	qp.done = (*[burst]C.struct_cptdpdk_done)(C.calloc(burst, C.size_t(unsafe.Sizeof(C.struct_cptdpdk_done{}))))
	return qp
}

func (qp *qpair) free() {
	C.free(unsafe.Pointer(qp.reqs))
	C.free(unsafe.Pointer(qp.done))
}

// part is one request of a job (a CRT exponentiation has two).
type part struct {
	j   *job
	i   int
	tag uint64
}

// lane is one poller goroutine; lane i drives queue pair i of each device.
type lane struct {
	i int
}

func (d *Device) start() {
	d.sess.init()
	n := 1
	for _, cd := range d.devs {
		n = max(n, len(cd.qps))
	}
	if len(d.devs) == 0 {
		n = 0 // nothing to poll: the submitters compute everything (Execute)
	}
	for i := 0; i < n; i++ {
		l := &lane{i: i}
		d.lanes = append(d.lanes, l)
		d.wg.Add(1)
		go d.poll(l)
	}
}

// route picks, for each algorithm, the first device that offers it.
func (d *Device) route() {
	d.byAlg = map[uint32]*cryptodev{}
	for bit := uint32(1); bit != 0; bit <<= 1 {
		for _, cd := range d.devs {
			if cd.algs&bit != 0 {
				d.byAlg[bit] = cd
				break
			}
		}
		if d.selfTestFailed&bit != 0 && d.byAlg[bit] == nil {
			d.selfTestOff |= bit
		}
	}
}

// Name implements cptdrv.Backend.
func (d *Device) Name() string { return "dpdk" }

// Attach implements cptdrv.Backend.
func (d *Device) Attach(q *cptdrv.Queue) error {
	d.queues.Add(q)
	return nil
}

// Detach implements cptdrv.Backend.
func (d *Device) Detach(q *cptdrv.Queue) { d.queues.Remove(q) }

// Doorbell implements cptdrv.Backend: wake a lane. Without devices there
// are no lanes, and the queue's submitter executes (Assist).
func (d *Device) Doorbell(q *cptdrv.Queue) {
	if len(d.lanes) == 0 {
		for q.Help() {
		}
		return
	}
	d.park.Wake(1)
}

// Execute implements cptdrv.Assister: a synchronous submitter's
// instruction, run on its thread, the device polled inline.
func (d *Device) Execute(q *cptdrv.Queue, inst cptdrv.Instruction) {
	d.run(q, &inst, nil)
}

// Helps implements cptdrv.Assister: never. A device's work is off the
// host, and a backlog waits for the device, not for a lane: a submitter
// that took an instruction could only poll the device for it.
func (d *Device) Helps(*cptdrv.Queue, uint16) bool { return false }

// Assist implements cptdrv.Assister.
func (d *Device) Assist(q *cptdrv.Queue) bool {
	inst, ok := q.Next()
	if !ok {
		return false
	}
	q.Assisted()
	d.run(q, &inst, nil)
	return true
}

// run executes one instruction: on a device when one takes it, otherwise
// on the CPU path. A lane submits and returns (its loop collects the
// completion); anyone else waits for it, polling.
func (d *Device) run(q *cptdrv.Queue, inst *cptdrv.Instruction, l *lane) {
	if !q.Started(inst.Tag) {
		return // the driver gave up on it while it waited
	}
	d.executed.Add(1)
	lane := int(inst.Tag) // a submitter's: any queue pair, spread
	if l != nil {
		lane = l.i
	}
	j := d.plan(inst, lane)
	if j == nil {
		d.cpu(inst)
		q.Complete(inst.Tag)
		return
	}
	j.q = q
	j.lane = l != nil
	if d.faults != nil {
		if f := d.faults.Next(inst); f.Kind == simulator.FaultReset {
			d.stopDevice(j.dev, f.Delay)
		}
	}
	qp := j.qp
	if j.lane {
		qp.laneOut.Add(1)
	}
	qp.mu.Lock()
	failed := qp.submit(d, j)
	qp.mu.Unlock()
	d.failParts(failed)
	if l != nil {
		return
	}
	for spins := 0; !j.finished.Load(); spins++ {
		if n := d.collect(qp); n == 0 {
			backoff(spins)
		}
	}
	putJob(j)
}

// stopDevice stops cd (rte_cryptodev_stop) and starts it again after
// delay (5ms by default): the fault plan's reset, a device stopped under
// load. What cd holds then comes back failed, and what is submitted while
// it is stopped fails at once: the driver's policy (retries, software,
// the breaker) takes over, as for any device failure.
func (d *Device) stopDevice(cd *cryptodev, delay time.Duration) {
	if delay <= 0 {
		delay = 5 * time.Millisecond
	}
	cd.ctl.Lock()
	cd.lockAll()
	C.shim_dev_stop(C.int(cd.id))
	cd.unlockAll()
	cd.ctl.Unlock()
	d.resets.Add(1)
	d.log(cptlog.Warn, fmt.Sprintf("dpdk: fault plan: %s stopped for %v", cd.name, delay))
	time.AfterFunc(delay, func() {
		var errbuf [256]C.char
		cd.ctl.Lock()
		cd.lockAll()
		rc := C.shim_dev_restart(C.int(cd.id), &errbuf[0], C.size_t(len(errbuf)))
		cd.unlockAll()
		cd.ctl.Unlock()
		if rc != 0 {
			d.log(cptlog.Error, fmt.Sprintf("dpdk: restarting %s: %s", cd.name, cerr(errbuf[:])))
		}
	})
}

// lockAll holds every queue pair of cd: the device's stop and start must
// not run beside a burst call.
func (cd *cryptodev) lockAll() {
	for _, qp := range cd.qps {
		qp.mu.Lock()
	}
}

func (cd *cryptodev) unlockAll() {
	for _, qp := range cd.qps {
		qp.mu.Unlock()
	}
}

// cpu computes inst on the CPU path and writes its result, marked as
// software: the operation's counters show it beside the devices' work.
func (d *Device) cpu(inst *cptdrv.Instruction) {
	d.software.Add(1)
	if name := instName(inst); name != "" {
		if _, seen := d.named.LoadOrStore(name, true); !seen {
			d.log(cptlog.Info, "dpdk: "+name+" runs on the CPU (no device offers it, or not in this form)")
		}
	}
	res := results.Get().(*cptdrv.Result) // heap memory: it does not move
	*res = cptdrv.Result{}
	local := *inst
	local.ResPtr = uintptr(unsafe.Pointer(res))
	d.Compute(&local)
	cptdrv.ResultAt(inst.ResPtr).PublishFlags(res.CompCode, res.UCCode, res.RLen, cptdrv.FlagSoftware)
	results.Put(res)
}

var results = sync.Pool{New: func() any { return new(cptdrv.Result) }}

// Compute implements cptdrv.Software: the CPU path, also the driver's
// fallback for what a device fails.
func (d *Device) Compute(inst *cptdrv.Instruction) {
	if !d.prepareCPU(inst) {
		cptdrv.ResultAt(inst.ResPtr).Publish(cptdrv.CompGood, cptdrv.UCBadState, 0)
		return
	}
	d.sw.Compute(inst)
}

// submit hands j's requests to the device. It returns the requests of the
// backlog (j's among them) that failed because the device is stopped.
func (qp *qpair) submit(d *Device, j *job) []*part {
	j.left.Store(int32(j.n))
	for i := 0; i < j.n; i++ {
		p := &part{j: j, i: i, tag: d.nextTag.Add(1)}
		j.reqs[i].tag_id = C.uint64_t(p.tag)
		qp.backlog = append(qp.backlog, p)
	}
	if qp.flush() < 0 {
		failed := qp.backlog
		qp.backlog = nil
		return failed
	}
	return nil
}

// failParts ends requests the device never took: not executed, so the
// driver's policy may retry them or compute them in software.
func (d *Device) failParts(failed []*part) {
	for _, p := range failed {
		p.j.status[p.i] = C.CPTDPDK_ERROR
		if p.j.left.Add(-1) == 0 {
			d.finish(p.j)
		}
	}
}

// flush enqueues the backlog; -1: the device is stopped (and the backlog
// failed).
func (qp *qpair) flush() int {
	reqs := qp.reqs
	sent := 0
	for len(qp.backlog) > 0 {
		n := min(len(qp.backlog), len(reqs))
		for i := 0; i < n; i++ {
			reqs[i] = qp.backlog[i].j.reqs[qp.backlog[i].i]
		}
		k := int(C.shim_enqueue(C.int(qp.dev.id), C.int(qp.id), &reqs[0], C.int(n)))
		if k < 0 {
			return -1
		}
		for _, p := range qp.backlog[:k] {
			qp.inflight[p.tag] = p
		}
		qp.out.Add(int32(k))
		sent += k
		qp.backlog = qp.backlog[k:]
		if k < n {
			break // full: the rest waits for completions
		}
	}
	if len(qp.backlog) == 0 {
		qp.backlog = nil
	}
	return sent
}

// collect dequeues what qp completed and finishes the jobs done, outside
// the lock (a completion may submit again); it returns how many requests
// came back.
func (d *Device) collect(qp *qpair) int {
	var finished []*job
	qp.mu.Lock()
	n := 0
	if qp.out.Load() > 0 {
		n = int(C.shim_dequeue(C.int(qp.dev.id), C.int(qp.id), &qp.done[0], burst))
	}
	for _, c := range qp.done[:max(n, 0)] {
		p := qp.inflight[uint64(c.tag_id)]
		if p == nil {
			continue
		}
		delete(qp.inflight, uint64(c.tag_id))
		p.j.status[p.i], p.j.outlen[p.i] = int32(c.status), uint32(c.outlen)
		if p.j.left.Add(-1) == 0 {
			finished = append(finished, p.j)
		}
	}
	qp.out.Add(-int32(max(n, 0)))
	var failed []*part
	if len(qp.backlog) > 0 && qp.flush() < 0 {
		failed, qp.backlog = qp.backlog, nil
	}
	qp.mu.Unlock()
	qp.dev.done.Add(uint64(max(n, 0)))
	for _, j := range finished {
		d.finish(j)
	}
	d.failParts(failed)
	return n
}

// finish writes a job's result and reports its completion. A lane's job
// goes back to the pool here; a waiting submitter's, once it has seen it
// finished.
func (d *Device) finish(j *job) {
	comp, uc, rlen, written := d.complete(j)
	if !written {
		if comp != cptdrv.CompGood || uc != cptdrv.UCSuccess {
			d.errors.Add(1)
		}
		cptdrv.ResultAt(j.inst.ResPtr).Publish(comp, uc, rlen)
	}
	j.release(d)
	q, tag, lane := j.q, j.inst.Tag, j.lane
	if lane {
		j.qp.laneOut.Add(-1)
	}
	j.finished.Store(true)
	q.Complete(tag)
	if lane {
		putJob(j)
	}
}

// complete maps a finished job's statuses to its result. written: the CPU
// path has written the result already (a request the device refused, a
// decryption whose tag belongs to a longer message).
func (d *Device) complete(j *job) (comp, uc uint8, rlen uint32, written bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			comp, uc, rlen, written = cptdrv.CompFault, 0, 0, false
		}
	}()
	for i := 0; i < j.n; i++ {
		switch j.status[i] {
		case C.CPTDPDK_ERROR:
			d.devErrors.Add(1)
			return cptdrv.CompHWError, 0, 0, false
		case C.CPTDPDK_INVALID:
			if _, seen := d.named.LoadOrStore("invalid "+instName(&j.inst), true); !seen {
				d.log(cptlog.Warn, fmt.Sprintf("dpdk: %s refused a request of %s: computed on the CPU", j.dev.name, instName(&j.inst)))
			}
			d.cpu(&j.inst)
			return 0, 0, 0, true
		}
	}
	return j.post(d, j)
}

// poll is lane l's loop: take instructions, collect completions, park when
// there is nothing to do.
func (d *Device) poll(l *lane) {
	defer d.wg.Done()
	idle := 0
	var y cptdrv.Yielder
	for {
		y.Tick()
		worked := false
		for _, q := range d.queues.Load() {
			for k := 0; k < 32; k++ {
				inst, ok := q.Next()
				if !ok {
					break
				}
				d.run(q, &inst, l)
				worked = true
			}
		}
		out := false
		for _, cd := range d.devs {
			if l.i >= len(cd.qps) {
				continue
			}
			qp := cd.qps[l.i]
			if qp.laneOut.Load() > 0 {
				out = true
				if d.collect(qp) > 0 {
					worked = true
				}
			}
		}
		if worked {
			idle = 0
			continue
		}
		if out || (d.spin > 0 && time.Duration(idle)*time.Microsecond < d.spin) {
			// Completions due (a hardware device answers in microseconds),
			// or the configured spin: poll on, yielding.
			backoff(idle)
			idle++
			continue
		}
		idle = 0
		// No yield first: the park hands the P on (Parker.Sleep).
		if !d.park.Idle(&d.stopped, &d.queues) {
			return
		}
	}
}

// backoff waits a little longer the longer nothing came.
func backoff(spins int) {
	switch {
	case spins < 64:
		runtime.Gosched()
	default:
		time.Sleep(time.Duration(min(spins-63, 50)) * time.Microsecond)
	}
}

// Stats implements cptdrv.Device.
func (d *Device) Stats() cptdrv.DeviceStats {
	s := cptdrv.DeviceStats{Executed: d.executed.Load(), Errors: d.errors.Load(), Software: d.software.Load(),
		Resets: d.resets.Load(), Faults: d.resets.Load()}
	for i, cd := range d.devs {
		if i == 4 {
			break // the statistics area has room for four
		}
		s.Extra = append(s.Extra, cptdrv.Count{Name: cd.counter, Value: cd.done.Load()})
	}
	var u C.struct_cptdpdk_usage
	var ops, mbufs, sessions uint64
	for _, cd := range d.devs {
		if C.shim_dev_usage(C.int(cd.id), &u) == 0 {
			ops += uint64(u.ops)
			mbufs += uint64(u.mbufs)
			sessions += uint64(u.sym_sessions) + uint64(u.asym_sessions)
		}
	}
	s.Extra = append(s.Extra,
		cptdrv.Count{Name: "dpdk_device_errors", Value: d.devErrors.Load()},
		cptdrv.Count{Name: "dpdk_ops_out", Value: ops},
		cptdrv.Count{Name: "dpdk_mbufs_out", Value: mbufs},
		cptdrv.Count{Name: "dpdk_sessions", Value: sessions},
		cptdrv.Count{Name: "dpdk_sessions_cached", Value: uint64(d.sess.cached())},
		// a bit mask of CPTDPDK_* algorithms: what the tests expect on the CPU path
		cptdrv.Count{Name: "dpdk_selftest_off", Value: uint64(d.selfTestOff)})
	return s
}

// Forget implements cptdrv.Device: the sessions of key keyID go.
func (d *Device) Forget(keyID uint64) {
	d.sw.Forget(keyID)
	d.sess.forget(keyID)
}

// Close implements cptdrv.Device.
func (d *Device) Close() {
	d.once.Do(func() {
		d.stopped.Store(true)
		d.park.Wake(len(d.lanes))
		d.wg.Wait()
		for _, cd := range d.devs {
			for _, qp := range cd.qps {
				for spins := 0; qp.out.Load() > 0 && spins < 10000; spins++ {
					d.collect(qp)
					backoff(spins)
				}
			}
		}
		d.sess.freeAll()
		for _, cd := range d.devs {
			var errbuf [512]C.char
			if C.shim_dev_close(C.int(cd.id), &errbuf[0], C.size_t(len(errbuf))) != 0 {
				d.log(cptlog.Warn, fmt.Sprintf("dpdk: closing %s: %s", cd.name, cerr(errbuf[:])))
			}
			for _, qp := range cd.qps {
				qp.free()
			}
		}
		d.unclaimAll()
		d.sw.Close()
	})
}
