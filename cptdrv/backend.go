// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"fmt"

	"cptprov/internal/cptlog"
	"sort"
	"strings"
	"sync"
	"time"
)

// Backend is the device behind the queues. The software simulator is the one
// implementation today; a real CPT VF would map its instruction queue
// registers and implement the same four calls, and register a
// BackendFactory (RegisterBackend) for the process to build it by name.
type Backend interface {
	// Attach makes the device serve q: from now on its engines of q.Group()
	// fetch instructions with q.Next and report each with q.Complete.
	Attach(q *Queue) error
	// Doorbell tells the device that instructions are waiting in q.
	Doorbell(q *Queue)
	// Detach stops serving q; instructions still queued are completed with
	// an error by the driver.
	Detach(q *Queue)
	// Name identifies the backend in logs and statistics.
	Name() string
}

// Assister is implemented by backends that can execute instructions on the
// calling goroutine. A synchronous submitter hands its instruction straight
// to Execute instead of queueing it and sleeping: for a software device the
// caller's CPU is as good an engine as any, and it saves the thread hand-off
// that would otherwise dominate small operations. Assist lets a submitter
// that finds the queue full help drain it. An asynchronous submitter
// executes its own instruction where the backend says so (Helps): where
// the engines run on the host's own CPUs, when they are behind (they
// already use every CPU they can get) or asleep (waking one costs more
// than a short operation), the submitter's CPU given to them would only
// buy a thread hand-off and wake-ups.
type Assister interface {
	// Execute runs inst, which the queue has prepared (result area, tag), as
	// one of the device's engines would: result written, q.Complete called.
	Execute(q *Queue, inst Instruction)
	// Assist executes at most one queued instruction from q and reports
	// whether it did.
	Assist(q *Queue) bool
	// Helps reports whether the asynchronous submitter of an instruction
	// with opcode op to q executes it itself now; never where the engines
	// are not the host's CPUs, or where the hand-off is too small a part
	// of the opcode's cost to be worth the application's thread. The
	// opcode, not the instruction: a pointer passed to an interface
	// method would move every submitter's instruction to the heap.
	Helps(q *Queue, op uint16) bool
}

// Device is a Backend as a process runs it: the queues attach to it, and
// the process reads its counters, has it drop what it caches of a key, and
// stops it. A Device that also implements Software is the fallback for what
// it fails (the simulator is: its engines' code on the caller's CPU).
type Device interface {
	Backend
	// Stats returns a snapshot of the device's cumulative counters.
	Stats() DeviceStats
	// Forget drops what the device caches of key keyID (its expanded form);
	// the driver calls it when a context is freed.
	Forget(keyID uint64)
	// Close stops the device. Its queues must be closed first.
	Close()
}

// DeviceStats are a device's cumulative counters.
type DeviceStats struct {
	Executed uint64 // instructions executed (all outcomes)
	Errors   uint64 // completions other than CompGood/UCSuccess
	Faults   uint64 // faults injected
	Stalled  uint64 // instructions swallowed by a stall fault
	Resets   uint64 // device resets
	// Software counts instructions the backend computed on the CPU
	// because no device of it offers them (the dpdk backend's CPU path).
	Software uint64
	// Extra are the backend's own counters, in a fixed order.
	Extra []Count
}

// Count is one named counter of a backend.
type Count struct {
	Name  string
	Value uint64
}

// BackendConfig is what the provider's configuration says of the device.
// A backend takes what applies to it and refuses what it cannot honour.
type BackendConfig struct {
	// SEEngines and AEEngines size the engine groups; 0: the backend's
	// default.
	SEEngines, AEEngines int
	// Spin is how long an idle engine polls before it parks (0: not at all).
	Spin time.Duration
	// Faults is a fault-injection plan for tests ("": none).
	Faults string

	// For backends over a device runtime (dpdk): the backend's C shim,
	// the runtime's arguments ("": the backend's default), the devices to
	// use in order (none: all it finds), queue pairs per device and their
	// depth (0: the backend's defaults).
	Shim       string
	Args       string
	Devices    []string
	QueuePairs int
	QueueDepth int

	// LogLevel is the provider's log level; Log writes a line to its log
	// (nil: the backend logs nothing).
	LogLevel cptlog.Level
	Log      func(level cptlog.Level, msg string)
}

// A BackendFactory builds a device from the configuration. Each backend
// registers one under the name the `backend` configuration key gives it.
type BackendFactory func(cfg BackendConfig) (Device, error)

var (
	backendsMu sync.Mutex
	backends   = map[string]BackendFactory{}
)

// RegisterBackend makes factory the backend called name. Backends register
// themselves from their package's init; registering a name twice is a bug.
func RegisterBackend(name string, factory BackendFactory) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if _, dup := backends[name]; dup {
		panic("cptdrv: backend " + name + " registered twice")
	}
	backends[name] = factory
}

// Backends returns the names of the registered backends, sorted.
func Backends() []string {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewDevice builds the device of backend name.
func NewDevice(name string, cfg BackendConfig) (Device, error) {
	backendsMu.Lock()
	factory := backends[name]
	backendsMu.Unlock()
	if factory == nil {
		return nil, fmt.Errorf("cptdrv: unknown backend %q (registered: %s)", name, strings.Join(Backends(), ", "))
	}
	return factory(cfg)
}
