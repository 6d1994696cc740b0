// SPDX-License-Identifier: Apache-2.0

// Package simulator is a software CPT: engine groups of goroutines that fetch
// instructions from the driver's queues, execute them, write the result area
// and raise the completion, with deterministic fault injection for tests.
//
// It implements cptdrv.Backend, and cptdrv.Assister so that a synchronous
// submitter can lend its own thread to the device instead of sleeping.
package simulator

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"cptprov/cptdrv"
)

// Config sizes the device.
type Config struct {
	// SEEngines and AEEngines are the goroutines per engine group; 0 means
	// the number of CPUs.
	SEEngines int
	AEEngines int
	// Spin is how long one idle engine of a group keeps polling before it
	// parks; 0, the default, parks at once. Polling shortens a completion's
	// latency but takes CPU from the host's own threads on the same cores:
	// measured on 2 CPUs, 50µs of it cost haproxy 14% of its handshakes and
	// openssl speed -async_jobs 16 10% of its ECDSA P-256 signatures and 25%
	// of its X25519 derivations.
	Spin time.Duration
	// Absent simulates a machine without the device: no engines, and
	// every queue's Attach fails with cptdrv.ErrAbsent.
	Absent bool
}

// Stats are the device's cumulative counters.
type Stats = cptdrv.DeviceStats

// Device is the simulated CPT.
type Device struct {
	cfg     Config
	groups  map[uint8]*group
	faults  atomic.Pointer[FaultPlan]
	keys    keyCache
	wg      sync.WaitGroup
	stopped atomic.Bool
	once    sync.Once

	executed, errors, faulted, stalled, resets atomic.Uint64
	crtStrikes                                 atomic.Uint64 // CRT faults so far: which half the next one hits
}

// group is one engine group: its engines serve every queue attached to it.
type group struct {
	id       uint8
	queues   cptdrv.QueueSet
	park     cptdrv.Parker
	spinning atomic.Int32
	wakes    atomic.Uint32 // submissions that found every engine asleep
	engines  int
	// pausedUntil: the engines take no instruction before this time
	// (UnixNano; a "full" fault: the ring fills up).
	pausedUntil atomic.Int64
}

func (g *group) pause(d time.Duration) {
	g.pausedUntil.Store(time.Now().Add(d).UnixNano())
}

// paused reports whether the group's engines are held, and for how long.
func (g *group) paused() time.Duration {
	until := g.pausedUntil.Load()
	if until == 0 {
		return 0
	}
	if left := time.Duration(until - time.Now().UnixNano()); left > 0 {
		return left
	}
	g.pausedUntil.CompareAndSwap(until, 0)
	return 0
}

// New starts a device with its engine goroutines.
func New(cfg Config) *Device {
	if cfg.SEEngines <= 0 {
		cfg.SEEngines = runtime.NumCPU()
	}
	if cfg.AEEngines <= 0 {
		cfg.AEEngines = runtime.NumCPU()
	}
	d := &Device{cfg: cfg, groups: map[uint8]*group{}}
	if cfg.Absent {
		return d
	}
	for id, n := range map[uint8]int{cptdrv.GroupSE: cfg.SEEngines, cptdrv.GroupAE: cfg.AEEngines} {
		g := &group{id: id, engines: n}
		d.groups[id] = g
		for i := 0; i < n; i++ {
			d.wg.Add(1)
			go d.engine(g)
		}
	}
	return d
}

// Name implements cptdrv.Backend.
func (d *Device) Name() string { return "simulator" }

// Attach implements cptdrv.Backend.
func (d *Device) Attach(q *cptdrv.Queue) error {
	if d.cfg.Absent {
		return cptdrv.ErrAbsent
	}
	g := d.groups[q.Group()]
	if g == nil {
		return errUnknownGroup(q.Group())
	}
	g.queues.Add(q)
	return nil
}

// Detach implements cptdrv.Backend.
func (d *Device) Detach(q *cptdrv.Queue) {
	g := d.groups[q.Group()]
	if g == nil {
		return
	}
	g.queues.Remove(q)
}

// Doorbell implements cptdrv.Backend: wake a parked engine, if any.
func (d *Device) Doorbell(q *cptdrv.Queue) {
	g := d.groups[q.Group()]
	// A spinning engine will find the instruction; otherwise wake one.
	if g == nil || g.spinning.Load() != 0 {
		return
	}
	g.park.Wake(1)
}

// Execute implements cptdrv.Assister.
func (d *Device) Execute(q *cptdrv.Queue, inst cptdrv.Instruction) {
	d.execute(q, &inst)
}

// wakeEvery: while every engine of a group is asleep, one asynchronous
// submission in wakeEvery goes to them, and wakes one.
const wakeEvery = 16

// Helps implements cptdrv.Assister: the engines are goroutines on the
// host's CPUs, and the submitter executes its own short instruction when
//
//   - two per engine are queued already: every engine is busy while the
//     submitters take the rest;
//   - every engine is asleep: waking one costs a wake-up, a job switch and
//     another wake-up for the completion, about what a short operation
//     costs, on CPUs the application keeps busy (haproxy's threads). One
//     submission in wakeEvery still wakes them, so that a stream of
//     submissions (openssl speed's jobs) gets them going, and they stay
//     busy while it lasts.
//
// A modular exponentiation (RSA, DH) costs hundreds of µs, its hand-off a
// few: no throughput to gain from the submitter's thread, which stays the
// application's. Held engines (a "full" fault) are not helped either: the
// ring is to fill up.
func (d *Device) Helps(q *cptdrv.Queue, op uint16) bool {
	g := d.groups[q.Group()]
	if g == nil || uint8(op>>8) == cptdrv.MajorModExp || g.paused() > 0 {
		return false
	}
	if q.Pending() >= 2*g.engines {
		return true
	}
	return g.park.Sleepers() >= g.engines && g.wakes.Add(1)%wakeEvery != 0
}

// Assist implements cptdrv.Assister.
func (d *Device) Assist(q *cptdrv.Queue) bool {
	if g := d.groups[q.Group()]; g != nil && g.paused() > 0 {
		return false
	}
	inst, ok := q.Next()
	if !ok {
		return false
	}
	q.Assisted()
	d.execute(q, &inst)
	return true
}

// SetFaults installs a fault plan (nil removes it).
func (d *Device) SetFaults(p *FaultPlan) { d.faults.Store(p) }

// Stats returns a snapshot of the device counters.
func (d *Device) Stats() Stats {
	return Stats{Executed: d.executed.Load(), Errors: d.errors.Load(), Faults: d.faulted.Load(), Stalled: d.stalled.Load(), Resets: d.resets.Load()}
}

// Forget drops the expanded form of a key from the engines' cache (the
// driver calls it when a context is freed).
func (d *Device) Forget(keyID uint64) { d.keys.forget(keyID) }

// Close stops the engines. Queues must be closed first.
func (d *Device) Close() {
	d.once.Do(func() {
		d.stopped.Store(true)
		for _, g := range d.groups {
			g.park.Wake(g.engines)
		}
	})
	d.wg.Wait()
}

func (d *Device) engine(g *group) {
	defer d.wg.Done()
	var y cptdrv.Yielder
	for {
		y.Tick()
		if left := g.paused(); left > 0 {
			if d.stopped.Load() {
				return
			}
			time.Sleep(min(left, time.Millisecond))
			continue
		}
		if d.poll(g) {
			continue
		}
		// Idle. One engine per group keeps polling for a while, so that a
		// stream of asynchronous submissions finds an engine awake; the
		// others park at once and are woken by the doorbell.
		if d.cfg.Spin > 0 && g.spinning.CompareAndSwap(0, 1) {
			found := d.spin(g)
			g.spinning.Store(0)
			if found {
				continue
			}
		}
		// No yield first: the park hands the P on (Parker.Sleep), and the
		// loop's Tick yields after a long sleep.
		if !g.park.Idle(&d.stopped, &g.queues) {
			return
		}
	}
}

// poll executes one instruction from each of the group's queues that has
// one, and reports whether it found any.
func (d *Device) poll(g *group) bool {
	worked := false
	for _, q := range g.queues.Load() {
		if inst, ok := q.Next(); ok {
			d.execute(q, &inst)
			worked = true
		}
	}
	return worked
}

// spin polls for work for up to d.cfg.Spin, yielding the processor often:
// the application's own threads need it, since a call from C into Go needs
// a free P.
func (d *Device) spin(g *group) bool {
	deadline := time.Now().Add(d.cfg.Spin)
	for i := 1; ; i++ {
		if g.queues.Pending() {
			return true
		}
		if i%16 == 0 {
			if time.Now().After(deadline) {
				return false
			}
			runtime.Gosched()
		}
	}
}

// execute runs one instruction: fault injection, the opcode's handler, the
// result, the completion. Faults that stop an instruction from running
// strike before the engine claims it (Started), so that the driver may give
// up on it, retry it or compute it elsewhere without its effects applying
// twice.
func (d *Device) execute(q *cptdrv.Queue, inst *cptdrv.Instruction) {
	d.executed.Add(1)
	var strike FaultKind
	if p := d.faults.Load(); p != nil {
		switch f := p.next(inst); f.Kind {
		case FaultError:
			d.faulted.Add(1)
			d.errors.Add(1)
			d.fail(q, inst, cptdrv.CompHWError)
			return
		case FaultStall:
			d.faulted.Add(1)
			d.stalled.Add(1)
			// The engine swallows it: never started, never completed. The
			// driver's watchdog gives up on it; the slot comes back then.
			q.Discarded(inst.Tag)
			return
		case FaultDelay:
			d.faulted.Add(1)
			time.Sleep(f.Delay)
		case FaultReset:
			d.faulted.Add(1)
			d.reset()
			d.fail(q, inst, cptdrv.CompReset)
			return
		case FaultFull:
			d.faulted.Add(1)
			d.groups[inst.Group].pause(f.Delay)
		case FaultCRT:
			d.faulted.Add(1)
			strike = FaultCRT
		}
	}
	if !q.Started(inst.Tag) {
		return // the driver gave up on it while it waited
	}
	comp, uc, rlen := d.run(inst, strike)
	if comp != cptdrv.CompGood || uc != cptdrv.UCSuccess {
		d.errors.Add(1)
	}
	cptdrv.ResultAt(inst.ResPtr).Publish(comp, uc, rlen)
	q.Complete(inst.Tag)
}

// fail completes inst, unexecuted, with comp.
func (d *Device) fail(q *cptdrv.Queue, inst *cptdrv.Instruction, comp uint8) {
	if q.Started(inst.Tag) {
		cptdrv.ResultAt(inst.ResPtr).Publish(comp, 0, 0)
		q.Complete(inst.Tag)
	}
}

// reset is the device resetting: every instruction queued and not yet
// started by an engine is completed with CompReset, unexecuted. Those the
// engines are executing finish: a reset waits for the engines to drain.
func (d *Device) reset() {
	d.resets.Add(1)
	for _, g := range d.groups {
		for _, q := range g.queues.Load() {
			for {
				inst, ok := q.Next()
				if !ok {
					break
				}
				d.fail(q, &inst, cptdrv.CompReset)
			}
		}
	}
}

// Compute implements cptdrv.Software: the engines' code on the calling
// goroutine, without fault injection and without a completion report. It is
// the driver's fallback when the device fails an instruction, and what a
// real device's driver would fall back to as well.
func (d *Device) Compute(inst *cptdrv.Instruction) {
	comp, uc, rlen := d.run(inst, FaultNone)
	cptdrv.ResultAt(inst.ResPtr).Publish(comp, uc, rlen)
}

// run dispatches on the opcode. A panic in a handler (a bug, or memory the
// instruction should not have named) becomes a fault completion: the device
// never takes the host down.
// strike is a fault that changes what the engine computes (FaultCRT), or
// FaultNone.
func (d *Device) run(inst *cptdrv.Instruction, strike FaultKind) (comp, uc uint8, rlen uint32) {
	// An unmapped address in an instruction must fail the instruction, as
	// a DMA fault does on the real device, not the process.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			comp, uc, rlen = cptdrv.CompFault, 0, 0
		}
	}()
	switch inst.Op >> 8 {
	case cptdrv.MajorNOP:
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	case cptdrv.MajorFC:
		if inst.Group != cptdrv.GroupSE {
			return cptdrv.CompBadInst, 0, 0
		}
		return d.flexiCrypto(inst)
	case cptdrv.MajorHash:
		if inst.Group != cptdrv.GroupSE {
			return cptdrv.CompBadInst, 0, 0
		}
		return d.hash(inst)
	case cptdrv.MajorModExp, cptdrv.MajorECC, cptdrv.MajorECDSA:
		if inst.Group != cptdrv.GroupAE {
			return cptdrv.CompBadInst, 0, 0
		}
		switch inst.Op >> 8 {
		case cptdrv.MajorModExp:
			return d.modExp(inst, strike == FaultCRT)
		case cptdrv.MajorECC:
			return d.ecc(inst)
		}
		return d.ecdsa(inst)
	}
	return cptdrv.CompBadInst, 0, 0
}
