// SPDX-License-Identifier: Apache-2.0

// Package dispatch gives each OSSL_DISPATCH operation of cptprov its
// OpenSSL semantics (parameters, IV rules, TLS record handling, errors) and
// turns it into CPT instructions for the driver.
//
// Operation contexts live in memory OpenSSL owns (the provider's C side
// allocates them): their Go types hold only plain values, so a context made
// before fork() is still meaningful to the fresh Go runtime of the child.
package dispatch

import (
	"sync/atomic"

	"cptprov/cptdrv"
	"cptprov/stats"
)

// Env is what operations need from the process: the device queue, the key
// cache of the device, counters.
type Env struct {
	SE       *cptdrv.Queue // symmetric engines
	AE       *cptdrv.Queue // asymmetric engines
	Counters *stats.Counters
	// Forget drops a key from the device's expanded-key cache.
	Forget func(keyID uint64)
	// Checks counts private-key results that failed their check before
	// release; OnCheckFailed (may be nil) hears of each, for the log.
	Checks        CheckCounters
	OnCheckFailed func(CheckEvent)
	// OpenSSL is OpenSSL_version_num() of the libcrypto the provider runs
	// in (0: unknown, taken as 3.0): where the default providers of 3.0 to
	// 3.5 differ, cptprov does what the one of the running version does.
	OpenSSL uint64

	keyIDs  atomic.Uint64
	pidTag  uint64
	algs    [maxAlg]atomic.Pointer[stats.Alg]
	scratch chan []byte
	big     chan *cptdrv.DMA
}

// bigScratch is the size of the larger operand buffers (RSA operands: up
// to five half-size CRT values and the input of an 8192-bit key).
const bigScratch = 8192

// scratchRun is operand memory of up to bigScratch bytes.
type scratchRun struct {
	env *Env
	mem *cptdrv.DMA
	b   []byte
}

// dmaScratch returns n bytes of operand memory outside the Go heap.
func dmaScratch(env *Env, n int) *scratchRun {
	if n > bigScratch {
		panic("dispatch: operand memory request too large")
	}
	var mem *cptdrv.DMA
	select {
	case mem = <-env.big:
	default:
		var err error
		if mem, err = cptdrv.AllocDMA(bigScratch); err != nil {
			panic(err) // recovered at the C boundary into an error
		}
	}
	return &scratchRun{env: env, mem: mem, b: mem.Bytes()[:n:n]}
}

// release wipes the memory and keeps it for reuse (or frees it). Only
// what was handed out can hold anything.
func (s *scratchRun) release() {
	clear(s.b)
	select {
	case s.env.big <- s.mem:
	default:
		s.mem.Free()
	}
}

// Operand memory for instructions whose operands are not already in C
// memory: slots of a DMA region, so that the device never gets the address
// of Go memory (which the garbage collector may move or free).
const (
	scratchSlot  = 256
	scratchSlots = 64
)

// getScratch returns a zeroed slot, waiting if all are in use.
func (e *Env) getScratch() []byte {
	if e.scratch == nil {
		panic("dispatch: Env without operand memory")
	}
	return <-e.scratch
}

// putScratch wipes a slot and returns it.
func (e *Env) putScratch(b []byte) {
	clear(b)
	e.scratch <- b
}

// algCounters returns the counters of algorithm id without a map lookup on
// the hot path.
func (e *Env) algCounters(id int, name string) *stats.Alg {
	if a := e.algs[id].Load(); a != nil {
		return a
	}
	a := e.Counters.Alg(name)
	e.algs[id].Store(a)
	return a
}

// NewEnv builds an Env; pid makes the key IDs of this process distinct from
// those of contexts inherited across fork().
func NewEnv(se, ae *cptdrv.Queue, c *stats.Counters, forget func(uint64), pid int) *Env {
	e := &Env{SE: se, AE: ae, Counters: c, Forget: forget, pidTag: uint64(uint32(pid)) << 32, big: make(chan *cptdrv.DMA, 32)}
	if mem, err := cptdrv.AllocDMA(scratchSlot * scratchSlots); err == nil {
		e.scratch = make(chan []byte, scratchSlots)
		for i := 0; i < scratchSlots; i++ {
			e.scratch <- mem.Bytes()[i*scratchSlot : (i+1)*scratchSlot : (i+1)*scratchSlot]
		}
	}
	return e
}

// openSSLAtLeast reports whether the running OpenSSL is major.minor or
// later.
func (e *Env) openSSLAtLeast(major, minor uint64) bool {
	return e.OpenSSL >= major<<28|minor<<20
}

func (e *Env) newKeyID() uint64 { return e.pidTag | e.keyIDs.Add(1)&0xffffffff }

// Waiter receives the outcome of an operation that completes asynchronously
// (inside an OpenSSL ASYNC job). Complete is called exactly once, from the
// goroutine that saw the completion.
type Waiter interface {
	Complete(outl int, err *Error)
}

// deviceError maps a completion to the error the caller sees (nil: success).
func deviceError(res cptdrv.Result, err error) *Error {
	switch {
	case err == cptdrv.ErrTimeout:
		return errorf(ReasonTimeout, "device did not complete the operation in time")
	case err == cptdrv.ErrQueueFull:
		return errorf(ReasonQueueFull, "device queue full")
	case err == cptdrv.ErrDeviceUnavailable:
		return errorf(ReasonDeviceUnavailable, "device unavailable: it failed repeatedly and the software fallback is off")
	case err != nil:
		return errorf(ReasonDeviceError, "device: %v", err)
	case res.CompCode == cptdrv.CompTimeout:
		return errorf(ReasonTimeout, "device did not start the operation in time (software fallback off)")
	case res.CompCode == cptdrv.CompReset:
		return errorf(ReasonDeviceError, "device reset before it ran the operation (software fallback off)")
	case res.CompCode == cptdrv.CompHWError && res.Flags&cptdrv.FlagSoftware != 0:
		return errorf(ReasonDeviceError, "device engine error, and the software fallback failed too")
	case res.CompCode == cptdrv.CompHWError:
		return errorf(ReasonDeviceError, "device engine error (software fallback off)")
	case res.CompCode != cptdrv.CompGood:
		return errorf(ReasonDeviceError, "device completion code %#x", res.CompCode)
	case res.UCCode == cptdrv.UCAuthFail:
		return errorf(ReasonAuthFailed, "tag verification failed")
	case res.UCCode == cptdrv.UCBadPoint:
		return errorf(ReasonInvalidKey, "invalid key: point not on the curve or scalar out of range")
	case res.UCCode == cptdrv.UCBadOperand:
		return errorf(ReasonBadParameter, "RSA operand out of range: input not below the modulus, or a modulus or prime that is even or 1")
	case res.UCCode == cptdrv.UCVerifyFail:
		return errorf(ReasonVerifyFailed, "signature verification failed")
	case res.UCCode == cptdrv.UCZeroResult:
		return errorf(ReasonInvalidKey, "invalid peer key: the shared secret would be zero")
	case res.UCCode != cptdrv.UCSuccess:
		return errorf(ReasonDeviceError, "device engine code %#x", res.UCCode)
	}
	return nil
}
