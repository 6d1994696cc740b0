// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

var (
	// ErrQueueFull is returned by TrySubmit when every slot is in flight.
	ErrQueueFull = errors.New("cptdrv: instruction queue full")
	// ErrClosed is returned for submissions to a closed queue.
	ErrClosed = errors.New("cptdrv: queue closed")
	// ErrTimeout is returned by Do when the device did not complete in time.
	ErrTimeout = errors.New("cptdrv: device did not complete the instruction in time")
)

// Completion receives the result of an asynchronously submitted instruction.
// It runs on the goroutine that reported the completion (an engine, or a
// synchronous submitter assisting the device) and must not block.
type Completion func(res Result)

// request is the driver's record of one in-flight instruction. Its slot index
// and generation form the instruction's tag, so a completion for a request
// that was already completed or abandoned is recognised and ignored.
type request struct {
	gen      atomic.Uint32
	state    atomic.Uint32 // reqFree, reqSync, reqAsync, reqAbandoned, reqDone
	sleeping atomic.Bool   // a synchronous waiter is (about to be) blocked on done
	done     chan struct{}
	cb       Completion
	// claim decides, per generation, who may complete a queued
	// instruction: an engine that starts it, or the watchdog that gives up
	// on it (gen<<32 | claimQueued, claimStarted or claimExpired).
	claim atomic.Uint64
	tick  atomic.Uint32 // the watchdog's tick when the instruction was queued
	tries uint8         // device retries so far
	inst  Instruction   // kept for a retry or the software fallback
	// A sampled request carries the times of its phases (nanoseconds on
	// the queue's clock): submitted, queued, started by an engine,
	// completed by it.
	sampled bool
	t       [4]int64
}

// The low bits of request.claim. An expired instruction is still in the
// ring, so its slot is released only once both its owner (who has taken its
// completion) and an engine (who has popped the stale entry) signed off:
// the ring never holds more entries than there are slots in use.
const (
	claimQueued    uint64 = 0
	claimStarted   uint64 = 1
	claimExpired   uint64 = 2
	claimStateMask uint64 = 3
	expOwnerDone   uint64 = 4 // the owner has taken the expired request's completion
	expConsumed    uint64 = 8 // the instruction is out of the ring
)

const (
	reqFree uint32 = iota
	reqSync
	reqAsync
	reqAbandoned
	reqDone // a synchronous request whose completion has been reported
)

// QueueStats are cumulative counters of one queue.
type QueueStats struct {
	Submitted  uint64 // instructions queued
	Completed  uint64 // results reported by the device
	Full       uint64 // submissions that found every slot in flight
	Stale      uint64 // completions for requests already completed or abandoned
	Timeouts   uint64 // instructions no engine took in time (watchdog, or a synchronous wait)
	Assisted   uint64 // instructions executed on a submitter's goroutine
	Failed     uint64 // device failures of instructions it did not execute (errors, resets, timeouts)
	Retries    uint64 // instructions sent to the device again after such a failure
	Fallbacks  uint64 // instructions computed in software instead (failure, open circuit, full queue)
	Opens      uint64 // times the circuit breaker opened
	Circuit    string // closed, open or probing
	InFlightHi uint64 // highest number of requests in flight seen
	Phases     Phases // where a sample of the requests spent their time
}

// Phases sums, over a sample of one request in phaseSample, the time from
// the driver starting a submission to the instruction being in the ring
// (Submit), from there to an engine starting it (Wait), the engine's work
// up to its completion report (Engine), and from that report to the
// submitter having the result: the callback returned, or the waiter awake
// (Notify). Nanoseconds.
type Phases struct {
	Samples                      uint64
	Submit, Wait, Engine, Notify uint64
	// Latency is a histogram of the same requests' whole latency: bucket
	// i counts those under 2^i µs (the last one: everything longer).
	Latency [LatencyBuckets]uint64
}

// LatencyBuckets is the size of Phases.Latency: up to 2^20 µs, about 1 s.
const LatencyBuckets = 21

const phaseSample = 64

// Queue is one instruction queue: a ring of depth instructions, a result
// area per slot in DMA memory, and the table of requests in flight.
type Queue struct {
	group   uint8
	depth   int
	backend Backend
	assist  Assister
	timeout time.Duration

	insts   *ring[Instruction]
	free    *ring[uint32]
	reqs    []request
	results *DMA

	policy  Policy
	breaker *breaker
	absent  bool          // no device: everything goes to the software fallback
	tick    atomic.Uint32 // the watchdog's clock
	expiry  uint32        // ticks after which a queued instruction has expired
	stop    chan struct{}
	watched sync.WaitGroup

	closed   atomic.Bool
	inFlight atomic.Int64
	stats    struct {
		submitted, completed, full, stale, timeouts, assisted, hi atomic.Uint64
		failed, retries, fallbacks                                atomic.Uint64
	}
	clock    time.Time // the phases' time origin
	sampling atomic.Uint64
	phases   struct {
		samples, submit, wait, engine, notify atomic.Uint64
		latency                               [LatencyBuckets]atomic.Uint64
	}
	closeOnce sync.Once
}

// QueueConfig describes a queue to open.
type QueueConfig struct {
	Group uint8 // engine group served by this queue
	Depth int   // ring depth, rounded up to a power of two (default 1024)
	// Timeout is how long a queued instruction may wait for an engine
	// before the driver gives up on it (default 10s).
	Timeout time.Duration
	Policy  Policy // retries, software fallback, circuit breaker
}

// NewQueue allocates a queue and attaches it to the backend.
func NewQueue(b Backend, cfg QueueConfig) (*Queue, error) {
	depth := cfg.Depth
	if depth <= 0 {
		depth = 1024
	}
	if depth > 1<<20 {
		return nil, fmt.Errorf("cptdrv: queue depth %d too large", depth)
	}
	p := 1
	for p < depth {
		p <<= 1
	}
	depth = p
	results, err := AllocDMA(depth * int(unsafe.Sizeof(Result{})))
	if err != nil {
		return nil, err
	}
	q := &Queue{
		group:   cfg.Group,
		depth:   depth,
		backend: b,
		timeout: cfg.Timeout,
		insts:   newRing[Instruction](depth),
		free:    newRing[uint32](depth),
		reqs:    make([]request, depth),
		results: results,
		clock:   time.Now(),
		policy:  cfg.Policy.withDefaults(),
		stop:    make(chan struct{}),
	}
	if q.timeout <= 0 {
		q.timeout = 10 * time.Second
	}
	q.breaker = newBreaker(q.policy)
	q.assist, _ = b.(Assister)
	for i := range q.reqs {
		q.reqs[i].done = make(chan struct{}, 1)
		// Never queued: no claim for an engine or the watchdog to take.
		q.reqs[i].claim.Store(claimStarted)
		q.free.push(uint32(i))
	}
	if err := b.Attach(q); err == ErrAbsent && q.policy.Software != nil {
		q.breaker.state.Store(circuitAbsent)
		q.absent = true
	} else if err != nil {
		results.Free()
		return nil, err
	}
	q.startWatchdog()
	return q, nil
}

// Group returns the engine group this queue feeds.
func (q *Queue) Group() uint8 { return q.group }

// Depth returns the number of instruction slots.
func (q *Queue) Depth() int { return q.depth }

// Pending is a racy count of instructions waiting for an engine.
func (q *Queue) Pending() int { return q.insts.len() }

// InFlight is the number of submitted requests not yet completed.
func (q *Queue) InFlight() int { return int(q.inFlight.Load()) }

func (q *Queue) result(id uint32) *Result {
	return ResultAt(Addr(q.results.Bytes()) + uintptr(id)*unsafe.Sizeof(Result{}))
}

// acquire takes a free request slot, or reports that none is free.
func (q *Queue) acquire() (uint32, bool) {
	id, ok := q.free.pop()
	if !ok {
		q.stats.full.Add(1)
		return 0, false
	}
	return id, true
}

// unacquire returns a slot acquire gave out and nothing used.
func (q *Queue) unacquire(id uint32) {
	for !q.free.push(id) {
		runtime.Gosched()
	}
}

func (q *Queue) release(id uint32) {
	r := &q.reqs[id]
	r.cb = nil
	r.state.Store(reqFree)
	q.inFlight.Add(-1)
	// Never fails for long: there is a slot for every id (see enqueue).
	for !q.free.push(id) {
		runtime.Gosched()
	}
}

// prepare binds inst to request slot id (result area, tag) and counts it
// in flight.
func (q *Queue) prepare(id uint32, inst *Instruction) {
	r := &q.reqs[id]
	if r.sampled = q.sampling.Add(1)%phaseSample == 0; r.sampled {
		r.t[0] = q.now()
	}
	r.tries = 0
	q.bind(id, inst)
	if n := uint64(q.inFlight.Add(1)); n > q.stats.hi.Load() {
		q.stats.hi.Store(n)
	}
	q.stats.submitted.Add(1)
}

// bind points inst at slot id's result area under the slot's current
// generation, and keeps a copy for a retry or the fallback.
func (q *Queue) bind(id uint32, inst *Instruction) {
	r := &q.reqs[id]
	res := q.result(id)
	res.reset()
	// A token left in r.done by an earlier completion nobody slept on only
	// causes one spurious wake-up of a sleeping Do, which re-checks state.
	gen := r.gen.Load()
	inst.ResPtr = uintptr(unsafe.Pointer(res))
	inst.Tag = uint64(gen)<<32 | uint64(id)
	inst.Group = q.group
	r.inst = *inst
	r.tick.Store(q.tick.Load())
	r.claim.Store(uint64(gen)<<32 | claimQueued)
}

func (q *Queue) push(id uint32, inst *Instruction) {
	r := &q.reqs[id]
	if r.sampled {
		// Set before the push publishes the instruction to the engines.
		r.t[1] = q.now()
	}
	// There are as many ring slots as request slots, so a slot is free or
	// about to be: a consumer may have claimed it and not yet marked it
	// free. Retry until that consumer is through.
	for spins := 0; !q.insts.push(*inst); spins++ {
		if spins > 100 {
			runtime.Gosched()
		}
	}
}

func (q *Queue) now() int64 { return int64(time.Since(q.clock)) }

// Started is an engine claiming the instruction with this tag before it
// executes it. It returns false when the instruction must not be executed:
// the driver gave up on it (it waited too long for an engine and was
// retried, computed in software or failed), or the tag is stale. An engine
// must call it, and honour it, before touching the instruction's memory.
func (q *Queue) Started(tag uint64) bool {
	id := uint32(tag)
	if int(id) >= len(q.reqs) {
		return false
	}
	r := &q.reqs[id]
	gen := tag >> 32
	if !r.claim.CompareAndSwap(gen<<32|claimQueued, gen<<32|claimStarted) {
		q.signOff(id, uint32(gen), expConsumed)
		return false
	}
	if r.sampled {
		r.t[2] = q.now()
	}
	return true
}

// Discarded is an engine reporting that it took the instruction with this
// tag from the ring and dropped it without executing it (the simulator's
// stalled engine): the driver reuses its slot once it has given up on it.
func (q *Queue) Discarded(tag uint64) {
	if id := uint32(tag); int(id) < len(q.reqs) {
		q.signOff(id, uint32(tag>>32), expConsumed)
	}
}

// signOff records one of the two sign-offs an expired instruction's slot
// needs (its owner's, the ring's), and releases the slot after both.
func (q *Queue) signOff(id uint32, gen uint32, bit uint64) {
	r := &q.reqs[id]
	for {
		c := r.claim.Load()
		if uint32(c>>32) != gen || c&bit != 0 || c&claimStateMask == claimStarted {
			return
		}
		n := c | bit
		if !r.claim.CompareAndSwap(c, n) {
			continue
		}
		if n&claimStateMask == claimExpired && n&(expOwnerDone|expConsumed) == expOwnerDone|expConsumed {
			q.release(id)
		}
		return
	}
}

// account adds a sampled request's phases, t being its times and end when
// its submitter had the result.
func (q *Queue) account(t [4]int64, end int64) {
	d := func(a, b int64) uint64 { return uint64(max(b-a, 0)) }
	q.phases.submit.Add(d(t[0], t[1]))
	q.phases.wait.Add(d(t[1], t[2]))
	q.phases.engine.Add(d(t[2], t[3]))
	q.phases.notify.Add(d(t[3], end))
	q.phases.latency[min(bits.Len64(d(t[0], end)/1000), LatencyBuckets-1)].Add(1)
	q.phases.samples.Add(1)
}

// TrySubmit queues inst and returns at once; done runs when the device
// completes it. It fails with ErrQueueFull when every slot is in flight.
// While the circuit breaker keeps requests off the device, inst is computed
// in software before TrySubmit returns (done has run), or without a
// fallback TrySubmit fails with ErrDeviceUnavailable.
func (q *Queue) TrySubmit(inst *Instruction, done Completion) error {
	return q.trySubmit(inst, done, false)
}

// trySubmit is TrySubmit; with help, where the backend asks for it
// (Assister.Helps), the submitter executes inst itself instead of
// queueing it.
func (q *Queue) trySubmit(inst *Instruction, done Completion, help bool) error {
	if q.closed.Load() {
		return ErrClosed
	}
	id, ok := q.acquire()
	if !ok {
		return ErrQueueFull
	}
	// After acquire: a probe the breaker lets through must reach the device.
	if !q.breaker.allow() {
		q.unacquire(id)
		res, err := q.offDevice(inst)
		if err == nil {
			done(res)
		}
		return err
	}
	// Bound to its instruction (claim, tick, the copy kept) before it is
	// marked asynchronous: the watchdog takes back reqAsync requests, and
	// would otherwise see the slot's previous claim and tick, or none.
	q.prepare(id, inst)
	r := &q.reqs[id]
	r.cb = done
	r.state.Store(reqAsync)
	if help && q.helps(inst) {
		// done runs before trySubmit returns: the job it completes does
		// not pause.
		q.executeHere(id, inst)
		return nil
	}
	q.push(id, inst)
	q.backend.Doorbell(q)
	return nil
}

// offDevice computes inst in software, or reports that it cannot.
func (q *Queue) offDevice(inst *Instruction) (Result, error) {
	if q.policy.Software == nil {
		return Result{}, ErrDeviceUnavailable
	}
	q.stats.fallbacks.Add(1)
	return compute(q.policy.Software, *inst, q.group), nil
}

// fullWait is how long a submitter waits for a free slot before it computes
// its instruction in software (when there is a fallback): long enough to
// ride out a burst, short against a device that stopped consuming.
const fullWait = 2 * time.Millisecond

// Submit is TrySubmit with back-pressure: while the queue is full it helps
// the device (or yields) until a slot frees up or the timeout passes; with
// a software fallback it waits only fullWait, then computes inst itself.
// Where the backend asks for it (Assister.Helps), the submitter executes
// inst itself, and done runs before Submit returns: its job does not
// pause. Its own instruction, not the oldest
// queued one, which may be of a kind the backend never wants a submitter
// to take (an RSA signature behind an application's X25519).
func (q *Queue) Submit(inst *Instruction, done Completion) error {
	deadline := time.Time{}
	for spins := 0; ; spins++ {
		err := q.trySubmit(inst, done, q.assist != nil && !q.absent)
		if err != ErrQueueFull {
			return err
		}
		if q.assist != nil && q.assist.Assist(q) {
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(q.fullWait())
		} else if time.Now().After(deadline) {
			if q.policy.Software == nil {
				return ErrQueueFull
			}
			res, _ := q.offDevice(inst)
			done(res)
			return nil
		}
		backoff(spins)
	}
}

// executeHere executes slot id's prepared instruction on the calling
// goroutine, which is the engine: no ring, no hand-off, and no engine can
// take the instruction from under it.
func (q *Queue) executeHere(id uint32, inst *Instruction) {
	if q.reqs[id].sampled {
		q.reqs[id].t[1] = q.now()
	}
	q.stats.assisted.Add(1)
	q.assist.Execute(q, *inst) // by value: inst must not escape to the heap
	// Never in the ring: if the engine dropped it, nothing else will (a
	// no-op once it completed: the generation moved on).
	q.signOff(id, uint32(inst.Tag>>32), expConsumed)
}

// helps reports whether the backend wants the asynchronous submitter of
// inst to execute it itself.
func (q *Queue) helps(inst *Instruction) bool {
	return q.assist.Helps(q, inst.Op)
}

func (q *Queue) fullWait() time.Duration {
	if q.policy.Software != nil {
		return min(q.timeout, fullWait)
	}
	return q.timeout
}

// Help executes one queued instruction on the calling goroutine, when the
// backend can and one is queued: what a caller waiting for a submitted
// instruction does instead of idling.
func (q *Queue) Help() bool { return q.assist != nil && q.assist.Assist(q) }

// Do submits inst and waits for its result. With a backend that can assist,
// the calling goroutine executes queued instructions itself while it waits.
// Failures of instructions the device did not execute are retried and
// computed in software as the queue's Policy says.
func (q *Queue) Do(inst *Instruction) (Result, error) {
	if q.closed.Load() {
		return Result{}, ErrClosed
	}
	var id uint32
	var deadline time.Time
	for spins := 0; ; spins++ {
		var ok bool
		if id, ok = q.acquire(); ok {
			break
		}
		if q.closed.Load() {
			return Result{}, ErrClosed
		}
		if q.assist != nil && q.assist.Assist(q) {
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(q.fullWait())
		} else if q.policy.Software != nil && time.Now().After(deadline) {
			return q.offDevice(inst)
		}
		backoff(spins)
	}
	if !q.breaker.allow() {
		q.unacquire(id)
		return q.offDevice(inst)
	}
	r := &q.reqs[id]
	q.prepare(id, inst)
	for {
		r.state.Store(reqSync)
		if q.assist != nil {
			q.executeHere(id, inst)
		} else {
			q.push(id, inst)
			q.backend.Doorbell(q)
		}
		out, err := q.wait(id)
		switch {
		case err == errExpired:
			// No engine took it; the device is not consuming, so no retry.
			if q.policy.Software != nil {
				return q.offDevice(inst)
			}
			return out, ErrTimeout
		case err != nil:
			return out, err
		case !notExecuted(out):
			q.release(id)
			return out, nil
		case r.tries < uint8(min(q.policy.Retries, 255)) && !q.closed.Load() && q.breaker.allow():
			r.tries++
			q.stats.retries.Add(1)
			q.bind(id, inst)
			continue
		}
		q.release(id)
		if q.policy.Software != nil {
			return q.offDevice(inst)
		}
		return out, nil
	}
}

// errExpired is wait's report that it took the instruction back from the
// queue before any engine started it.
var errExpired = errors.New("cptdrv: instruction expired in the queue")

// wait waits for the completion of the synchronous request in slot id.
// After the queue's timeout it takes back an instruction no engine has
// started (errExpired: the caller owns the slot again); one an engine is
// executing it abandons (ErrTimeout: the device may still write the
// instruction's memory, so nothing may compute it again).
func (q *Queue) wait(id uint32) (Result, error) {
	r := &q.reqs[id]
	res := q.result(id)
	deadline := time.Time{}
	extended := false
	for spins := 0; r.state.Load() != reqDone; spins++ {
		if q.assist != nil && q.assist.Assist(q) {
			continue
		}
		if spins < 64 {
			runtime.Gosched()
			continue
		}
		if deadline.IsZero() {
			q.backend.Doorbell(q) // an engine may be parked: make sure one looks
			deadline = time.Now().Add(q.timeout)
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			if gen, ok := q.expire(id, r.claim.Load()); ok {
				// Stale from now on, should the instruction ever surface.
				r.gen.CompareAndSwap(gen, gen+1)
				q.expired()
				q.signOff(id, gen, expOwnerDone)
				return Result{CompCode: CompTimeout}, errExpired
			}
			// An engine is executing it: the timeout is for instructions
			// no engine takes, and an engine descheduled on a loaded
			// machine may take longer than that. Wait ten times as long
			// (at least 10 s) before giving up on a hung engine.
			if !extended {
				extended = true
				deadline = time.Now().Add(max(9*q.timeout, 10*time.Second))
				continue
			}
			// Give the slot up only when the device reports it; until then
			// it may still write the result, so it stays out of the free list.
			if r.state.CompareAndSwap(reqSync, reqAbandoned) {
				q.stats.timeouts.Add(1)
				return Result{CompCode: CompTimeout}, ErrTimeout
			}
			continue // completed concurrently
		}
		r.sleeping.Store(true)
		if r.state.Load() != reqDone {
			t := time.NewTimer(min(wait, 5*time.Millisecond))
			select {
			case <-r.done:
			case <-t.C:
			}
			t.Stop()
		}
		r.sleeping.Store(false)
	}
	out := *res
	if r.sampled {
		q.account(r.t, q.now())
	}
	return out, nil
}

// expire takes the instruction in slot id back from the queue if its claim
// is still c, queued, and no engine has started it; it returns the
// generation it was queued under. The watchdog passes the claim it judged
// old: by the time it expires it, the slot may hold a newer request.
func (q *Queue) expire(id uint32, c uint64) (uint32, bool) {
	r := &q.reqs[id]
	if c&claimStateMask != claimQueued {
		return 0, false
	}
	return uint32(c >> 32), r.claim.CompareAndSwap(c, c|claimExpired)
}

// expired accounts for an instruction that waited too long for an engine.
func (q *Queue) expired() {
	q.stats.timeouts.Add(1)
	q.stats.failed.Add(1)
	q.event(EventFailure, CompTimeout)
	if q.breaker.failure() {
		q.event(EventOpen, 0)
	}
}

func (q *Queue) event(ev Event, code uint8) {
	if q.policy.OnEvent != nil {
		q.policy.OnEvent(ev, code)
	}
}

// Next is the device side: it returns the oldest queued instruction.
func (q *Queue) Next() (Instruction, bool) {
	return q.insts.pop()
}

// Assisted is called by an Assister for each instruction it ran on a
// submitter's goroutine (statistics only).
func (q *Queue) Assisted() { q.stats.assisted.Add(1) }

// Complete is the device's completion interrupt for the instruction with the
// given tag; the device has already published the result. A tag whose
// generation does not match (a duplicate report) is counted and ignored.
func (q *Queue) Complete(tag uint64) {
	id := uint32(tag)
	if int(id) >= len(q.reqs) {
		q.stats.stale.Add(1)
		return
	}
	r := &q.reqs[id]
	if r.gen.Load() != uint32(tag>>32) {
		q.stats.stale.Add(1)
		return
	}
	// Bump the generation first: a second report of the same tag is stale.
	if !r.gen.CompareAndSwap(uint32(tag>>32), uint32(tag>>32)+1) {
		q.stats.stale.Add(1)
		return
	}
	q.stats.completed.Add(1)
	if r.sampled {
		r.t[3] = q.now()
	}
	res := *q.result(id)
	failed := notExecuted(res)
	if failed {
		q.stats.failed.Add(1)
		// A reset flushes every queued request at once: one event, after
		// which the device works, not a run of failures to open on.
		q.event(EventFailure, res.CompCode)
		if res.CompCode != CompReset && q.breaker.failure() {
			q.event(EventOpen, 0)
		}
	} else if q.breaker.success() {
		q.event(EventClose, 0)
	}
	for {
		switch r.state.Load() {
		case reqAsync:
			if failed && q.retry(id) {
				return
			}
			cb := r.cb
			inst := r.inst
			sampled, t := r.sampled, r.t
			q.release(id)
			if failed && q.policy.Software != nil {
				res, _ = q.offDevice(&inst)
			}
			if cb != nil {
				cb(res)
			}
			if sampled {
				q.account(t, q.now())
			}
			return
		case reqSync:
			// The waiter may be abandoning the request right now: the CAS
			// decides who owns the slot.
			if r.state.CompareAndSwap(reqSync, reqDone) {
				// Only a waiter that went to sleep needs the token; it
				// sets sleeping before it re-checks state.
				if r.sleeping.Load() {
					select {
					case r.done <- struct{}{}:
					default:
					}
				}
				return
			}
		case reqAbandoned:
			q.release(id)
			return
		default:
			return
		}
	}
}

// retry sends the asynchronous request in slot id, whose instruction the
// device failed without executing, to the device again, if the policy and
// the breaker allow.
func (q *Queue) retry(id uint32) bool {
	r := &q.reqs[id]
	if int(r.tries) >= q.policy.Retries || q.closed.Load() || !q.breaker.allow() {
		return false
	}
	r.tries++
	q.stats.retries.Add(1)
	inst := r.inst
	q.bind(id, &inst)
	q.push(id, &inst)
	q.backend.Doorbell(q)
	return true
}

// startWatchdog runs the goroutine that gives up on asynchronous
// instructions no engine has started within the timeout (a stalled or
// absent engine): each is completed as CompTimeout, and so retried or
// computed in software. A quarter of the timeout per tick: an instruction
// expires between 4 and 5 ticks after it was queued.
func (q *Queue) startWatchdog() {
	period := max(q.timeout/4, time.Millisecond)
	q.expiry = 4
	q.watched.Add(1)
	go func() {
		defer q.watched.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-q.stop:
				return
			case <-t.C:
				q.watch(q.tick.Add(1))
			}
		}
	}()
}

func (q *Queue) watch(now uint32) {
	for i := range q.reqs {
		id, r := uint32(i), &q.reqs[i]
		// The claim before the tick: bind stores them in the other order,
		// so the tick is never older than the claim's request.
		c := r.claim.Load()
		if r.state.Load() != reqAsync || c&claimStateMask != claimQueued || now-r.tick.Load() <= q.expiry {
			continue
		}
		gen, ok := q.expire(id, c)
		if !ok {
			continue
		}
		// Take the completion: a report of the old tag is stale now.
		if !r.gen.CompareAndSwap(gen, gen+1) {
			continue
		}
		cb, inst := r.cb, r.inst
		r.cb = nil
		q.expired()
		q.signOff(id, gen, expOwnerDone)
		// The device is not consuming: no retry. The software computation
		// (or the failure) is delivered off the watchdog.
		go func() {
			res, err := q.offDevice(&inst)
			if err != nil {
				res = Result{CompCode: CompTimeout}
			}
			if cb != nil {
				cb(res)
			}
		}()
	}
}

// Stats returns a snapshot of the queue's counters.
func (q *Queue) Stats() QueueStats {
	return QueueStats{
		Submitted:  q.stats.submitted.Load(),
		Completed:  q.stats.completed.Load(),
		Full:       q.stats.full.Load(),
		Stale:      q.stats.stale.Load(),
		Timeouts:   q.stats.timeouts.Load(),
		Assisted:   q.stats.assisted.Load(),
		InFlightHi: q.stats.hi.Load(),
		Failed:     q.stats.failed.Load(),
		Retries:    q.stats.retries.Load(),
		Fallbacks:  q.stats.fallbacks.Load(),
		Opens:      q.breaker.opens.Load(),
		Circuit:    [...]string{"closed", "open", "probing", "absent"}[q.breaker.state.Load()],
		Phases: Phases{
			Samples: q.phases.samples.Load(),
			Submit:  q.phases.submit.Load(),
			Wait:    q.phases.wait.Load(),
			Engine:  q.phases.engine.Load(),
			Notify:  q.phases.notify.Load(),
			Latency: q.latency(),
		},
	}
}

func (q *Queue) latency() (h [LatencyBuckets]uint64) {
	for i := range h {
		h[i] = q.phases.latency[i].Load()
	}
	return h
}

// Close detaches the queue from the device. Requests still in flight keep
// their slots; their memory is released with the queue.
func (q *Queue) Close() {
	q.closeOnce.Do(func() {
		q.closed.Store(true)
		close(q.stop)
		q.watched.Wait()
		if !q.absent {
			q.backend.Detach(q)
		}
	})
}

func backoff(spins int) {
	switch {
	case spins < 16:
		runtime.Gosched()
	case spins < 64:
		time.Sleep(10 * time.Microsecond)
	default:
		time.Sleep(200 * time.Microsecond)
	}
}
