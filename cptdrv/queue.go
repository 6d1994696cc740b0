package cptdrv

import (
	"errors"
	"fmt"
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
	// A sampled request carries the times of its phases (nanoseconds on
	// the queue's clock): submitted, queued, started by an engine,
	// completed by it.
	sampled bool
	t       [4]int64
}

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
	Timeouts   uint64 // synchronous waits that gave up
	Assisted   uint64 // instructions executed on a synchronous submitter's goroutine
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
}

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

	closed   atomic.Bool
	inFlight atomic.Int64
	stats    struct {
		submitted, completed, full, stale, timeouts, assisted, hi atomic.Uint64
	}
	clock    time.Time // the phases' time origin
	sampling atomic.Uint64
	phases   struct {
		samples, submit, wait, engine, notify atomic.Uint64
	}
	closeOnce sync.Once
}

// QueueConfig describes a queue to open.
type QueueConfig struct {
	Group   uint8         // engine group served by this queue
	Depth   int           // ring depth, rounded up to a power of two (default 1024)
	Timeout time.Duration // how long Do waits for a completion (default 10s)
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
	}
	if q.timeout <= 0 {
		q.timeout = 10 * time.Second
	}
	q.assist, _ = b.(Assister)
	for i := range q.reqs {
		q.reqs[i].done = make(chan struct{}, 1)
		q.free.push(uint32(i))
	}
	if err := b.Attach(q); err != nil {
		results.Free()
		return nil, err
	}
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

// prepare binds inst to request slot id: its result area and tag.
func (q *Queue) prepare(id uint32, inst *Instruction) {
	r := &q.reqs[id]
	if r.sampled = q.sampling.Add(1)%phaseSample == 0; r.sampled {
		r.t[0] = q.now()
	}
	res := q.result(id)
	res.reset()
	// A token left in r.done by an earlier completion nobody slept on only
	// causes one spurious wake-up of a sleeping Do, which re-checks state.
	inst.ResPtr = uintptr(unsafe.Pointer(res))
	inst.Tag = uint64(r.gen.Load())<<32 | uint64(id)
	inst.Group = q.group
	if n := uint64(q.inFlight.Add(1)); n > q.stats.hi.Load() {
		q.stats.hi.Store(n)
	}
	q.stats.submitted.Add(1)
}

func (q *Queue) enqueue(id uint32, inst *Instruction) {
	q.prepare(id, inst)
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

// Started is the device telling the driver an engine begins the
// instruction with this tag (for the phase statistics only).
func (q *Queue) Started(tag uint64) {
	if id := uint32(tag); int(id) < len(q.reqs) {
		if r := &q.reqs[id]; r.sampled && r.gen.Load() == uint32(tag>>32) {
			r.t[2] = q.now()
		}
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
	q.phases.samples.Add(1)
}

// TrySubmit queues inst and returns at once; done runs when the device
// completes it. It fails with ErrQueueFull when every slot is in flight.
func (q *Queue) TrySubmit(inst *Instruction, done Completion) error {
	if q.closed.Load() {
		return ErrClosed
	}
	id, ok := q.acquire()
	if !ok {
		return ErrQueueFull
	}
	r := &q.reqs[id]
	r.cb = done
	r.state.Store(reqAsync)
	q.enqueue(id, inst)
	q.backend.Doorbell(q)
	return nil
}

// Submit is TrySubmit with back-pressure: while the queue is full it helps
// the device (or yields) until a slot frees up or the timeout passes.
func (q *Queue) Submit(inst *Instruction, done Completion) error {
	deadline := time.Time{}
	for spins := 0; ; spins++ {
		err := q.TrySubmit(inst, done)
		if err != ErrQueueFull {
			return err
		}
		if q.assist != nil && q.assist.Assist(q) {
			continue
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(q.timeout)
		} else if time.Now().After(deadline) {
			return ErrQueueFull
		}
		backoff(spins)
	}
}

// Help executes one queued instruction on the calling goroutine, when the
// backend can and one is queued: what a caller waiting for a submitted
// instruction does instead of idling.
func (q *Queue) Help() bool { return q.assist != nil && q.assist.Assist(q) }

// Do submits inst and waits for its result. With a backend that can assist,
// the calling goroutine executes queued instructions itself while it waits.
func (q *Queue) Do(inst *Instruction) (Result, error) {
	if q.closed.Load() {
		return Result{}, ErrClosed
	}
	var id uint32
	for spins := 0; ; spins++ {
		var ok bool
		if id, ok = q.acquire(); ok {
			break
		}
		if q.closed.Load() {
			return Result{}, ErrClosed
		}
		if q.assist == nil || !q.assist.Assist(q) {
			backoff(spins)
		}
	}
	r := &q.reqs[id]
	r.state.Store(reqSync)
	res := q.result(id)
	if q.assist != nil {
		// The caller's goroutine is the engine: no ring, no hand-off, and
		// no engine can take the instruction from under it.
		q.prepare(id, inst)
		if r.sampled {
			r.t[1] = q.now()
		}
		q.stats.assisted.Add(1)
		q.assist.Execute(q, *inst) // by value: inst must not escape to the heap
	} else {
		q.enqueue(id, inst)
		q.backend.Doorbell(q)
	}
	deadline := time.Time{}
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
	q.release(id)
	return out, nil
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
	for {
		switch r.state.Load() {
		case reqAsync:
			cb := r.cb
			res := *q.result(id)
			sampled, t := r.sampled, r.t
			q.release(id)
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
		Phases: Phases{
			Samples: q.phases.samples.Load(),
			Submit:  q.phases.submit.Load(),
			Wait:    q.phases.wait.Load(),
			Engine:  q.phases.engine.Load(),
			Notify:  q.phases.notify.Load(),
		},
	}
}

// Close detaches the queue from the device. Requests still in flight keep
// their slots; their memory is released with the queue.
func (q *Queue) Close() {
	q.closeOnce.Do(func() {
		q.closed.Store(true)
		q.backend.Detach(q)
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
