// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ErrDeviceUnavailable is returned when the circuit breaker keeps requests
// off a failing device and there is no software fallback.
var ErrDeviceUnavailable = errors.New("cptdrv: device unavailable (too many failures; circuit open)")

// ErrAbsent is a backend's Attach reporting that there is no device. With a
// software fallback the queue still opens and computes everything in
// software; without one NewQueue fails with it.
var ErrAbsent = errors.New("cptdrv: no device")

// Software computes instructions on the calling goroutine, without a
// device: the driver's fallback. It writes the result at inst.ResPtr, as an
// engine would, and never reports a completion. The simulator's engine code
// run without fault injection is one: the same instruction set, on the CPU.
type Software interface {
	Compute(inst *Instruction)
}

// Policy is what the driver does when the device fails an instruction it
// did not execute (CompHWError, CompReset, or no engine took it within
// Timeout): retry it on the device up to Retries times, then compute it in
// Software if there is one, otherwise report the failure. A circuit breaker
// keeps requests off the device after Threshold consecutive such failures:
// they go to Software (or fail at once, without one) for Cooldown, then one
// probe request tries the device; its success closes the circuit, its
// failure opens it again for twice as long, up to MaxCooldown.
type Policy struct {
	Software    Software      // nil: no fallback
	Retries     int           // device retries of a failed instruction (default 1; -1: none)
	Threshold   int           // consecutive failures that open the circuit (default 8)
	Cooldown    time.Duration // first open period (default 100ms)
	MaxCooldown time.Duration // longest open period (default 5s)
	// OnEvent, when set, hears of each device failure (with its
	// completion code) and each opening and closing of the circuit. It
	// runs on the goroutine that saw the event and must not block.
	OnEvent func(ev Event, code uint8)
}

// Event is what Policy.OnEvent hears of.
type Event int

const (
	EventFailure Event = iota // the device failed an instruction without executing it
	EventOpen                 // the circuit opened: requests stay off the device
	EventClose                // a probe succeeded: requests go to the device again
)

func (p Policy) withDefaults() Policy {
	if p.Retries == 0 {
		p.Retries = 1
	} else if p.Retries < 0 {
		p.Retries = 0
	}
	if p.Threshold <= 0 {
		p.Threshold = 8
	}
	if p.Cooldown <= 0 {
		p.Cooldown = 100 * time.Millisecond
	}
	if p.MaxCooldown < p.Cooldown {
		p.MaxCooldown = max(5*time.Second, p.Cooldown)
	}
	return p
}

// notExecuted reports whether res is a failure of an instruction whose
// effects were never applied, so that running it again (on the device or in
// software) cannot apply them twice. A device must report CompHWError and
// CompReset only for such instructions; the driver writes CompTimeout only
// for instructions no engine had started.
func notExecuted(res Result) bool {
	switch res.CompCode {
	case CompHWError, CompReset, CompTimeout:
		return true
	}
	return false
}

// Circuit states.
const (
	circuitClosed int32 = iota
	circuitOpen
	circuitProbing // open; one request is trying the device
	circuitAbsent  // no device: never allows
)

// breaker is the queue's circuit breaker (see Policy).
type breaker struct {
	threshold     int32
	cool, maxCool time.Duration

	state atomic.Int32
	fails atomic.Int32 // consecutive failures while closed
	until atomic.Int64 // while open: when a probe may go (UnixNano)
	opens atomic.Uint64

	mu  sync.Mutex
	cur time.Duration // the current open period
}

func newBreaker(p Policy) *breaker {
	return &breaker{threshold: int32(p.Threshold), cool: p.Cooldown, maxCool: p.MaxCooldown, cur: p.Cooldown}
}

// allow reports whether a request may go to the device. While the circuit
// is open, the first request after the open period is the probe.
func (b *breaker) allow() bool {
	switch b.state.Load() {
	case circuitClosed:
		return true
	case circuitOpen:
		return time.Now().UnixNano() >= b.until.Load() && b.state.CompareAndSwap(circuitOpen, circuitProbing)
	}
	return false
}

// success records that the device answered; it reports whether that
// closed the circuit.
func (b *breaker) success() bool {
	if b.fails.Load() != 0 {
		b.fails.Store(0)
	}
	if b.state.Load() == circuitProbing && b.state.CompareAndSwap(circuitProbing, circuitClosed) {
		b.mu.Lock()
		b.cur = b.cool
		b.mu.Unlock()
		return true
	}
	return false
}

// failure records a failure of the device; it reports whether the circuit
// opened (or opened again after a failed probe).
func (b *breaker) failure() bool {
	switch b.state.Load() {
	case circuitProbing:
		if b.state.CompareAndSwap(circuitProbing, circuitOpen) {
			b.mu.Lock()
			b.cur = min(2*b.cur, b.maxCool)
			b.until.Store(time.Now().Add(b.cur).UnixNano())
			b.mu.Unlock()
			return true
		}
	case circuitClosed:
		if b.fails.Add(1) >= b.threshold && b.state.CompareAndSwap(circuitClosed, circuitOpen) {
			b.fails.Store(0)
			b.mu.Lock()
			b.until.Store(time.Now().Add(b.cur).UnixNano())
			b.mu.Unlock()
			b.opens.Add(1)
			return true
		}
	}
	return false
}

// compute runs inst in software into a result area of its own (the
// queue's belong to requests in flight) and returns the result, marked.
func compute(s Software, inst Instruction, group uint8) Result {
	res := fallbackResults.get()
	if res == nil {
		return Result{CompCode: CompFault, Flags: FlagSoftware} // no memory for a result
	}
	inst.ResPtr = uintptr(unsafe.Pointer(res))
	inst.Group = group
	s.Compute(&inst)
	out := *res
	fallbackResults.put(res)
	out.Flags |= FlagSoftware
	return out
}

// resultPool hands out result areas in DMA memory, as the device's result
// areas are: instructions name them by address, which the runtime does not
// allow for Go heap memory.
type resultPool struct {
	mu     sync.Mutex
	free   []*Result
	arenas []*DMA // kept for the life of the process
}

var fallbackResults resultPool

func (p *resultPool) get() *Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		const n = 256
		d, err := AllocDMA(n * int(unsafe.Sizeof(Result{})))
		if err != nil {
			return nil
		}
		p.arenas = append(p.arenas, d)
		for i := 0; i < n; i++ {
			p.free = append(p.free, ResultAt(Addr(d.Bytes())+uintptr(i)*unsafe.Sizeof(Result{})))
		}
	}
	r := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	r.reset()
	return r
}

func (p *resultPool) put(r *Result) {
	p.mu.Lock()
	p.free = append(p.free, r)
	p.mu.Unlock()
}
