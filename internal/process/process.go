// SPDX-License-Identifier: Apache-2.0

// Package process is the device side of one host process: it builds the
// device from the backend the configuration names, opens the two driver
// queues over it (symmetric and asymmetric engine groups), and runs the
// statistics publisher and the log. libcptgo.so starts one Process, in the
// first call that needs the device; the exports then work through its Env.
//
// A backend plugs in by registering a cptdrv.BackendFactory under its name
// and being imported here: nothing else in the process knows which device
// it runs on.
package process

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"cptprov/cptdrv"
	"cptprov/dispatch"
	"cptprov/internal/cptlog"
	"cptprov/stats"

	_ "cptprov/dpdk"      // the "dpdk" backend
	_ "cptprov/simulator" // the "simulator" backend
)

// DefaultBackend is the backend of a configuration that names none.
const DefaultBackend = "simulator"

// Config is the provider's configuration of the device, as the C side
// checked it.
type Config struct {
	Backend string // a registered backend; "": DefaultBackend
	Device  cptdrv.BackendConfig

	RingDepth        int           // 0: the driver's default
	Timeout          time.Duration // how long a queued request may wait for an engine
	Retries          int           // device retries of a failed request, -1: none, 0: default
	BreakerThreshold int           // consecutive failures that open the circuit, 0: default
	BreakerCooldown  time.Duration // first open period, 0: default
	Fallback         bool          // compute in software what the device fails

	LogLevel cptlog.Level
	LogFile  string // "": stderr

	// StatsArea is this process's statistics area (nil: none).
	StatsArea *stats.Area
	// OpenSSL is OpenSSL_version_num() of the libcrypto the provider runs in.
	OpenSSL uint64
}

// Process is the running device and what operations need from it.
type Process struct {
	Env *dispatch.Env

	dev      cptdrv.Device
	se, ae   *cptdrv.Queue
	counters *stats.Counters
	pub      *stats.Publisher // nil without a statistics area
	log      *cptlog.Logger
}

// hostPs is how many Ps beyond the CPUs the runtime gets. A host thread
// that calls into Go (every offloaded operation) needs a free P, and the
// engine goroutines can hold one per CPU; without spare Ps the host waits
// for an engine to give one up (up to the 20 µs the runtime lets a cgo call
// keep its P). Measured on 2 CPUs, RSA-2048 signatures in 16 ASYNC jobs:
// 4900/s with 2 Ps, 6400/s with 4; synchronous rates unchanged.
const hostPs = 2

// gcPercent is the collector's target when GOGC is unset. The Go half's
// live heap is small and steady (keys, queues, the statistics area), while
// every operation allocates its short-lived operands: at Go's default of
// 100 the heap goal stays at its 4 MB floor and the collector runs dozens
// of times a second under load, its workers taking CPU (and wake-ups) from
// the host's threads. A 16 MB goal costs a host process 12 MB at most.
const gcPercent = 400

// Start builds the device and its queues, and starts publishing statistics.
func Start(cfg Config) (*Process, error) {
	// The runtime opens its poller (an epoll fd and an eventfd) with the
	// first timer that reaches its heap: a function timer does at once, a
	// channel timer only when someone waits on it. Open it now, so that the
	// process's fd count is settled when the device starts rather than at
	// some later timed wait: tests compare fd counts, and so may a host's
	// leak checks.
	time.AfterFunc(time.Hour, func() {}).Stop()
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.NumCPU() + hostPs)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	log := openLog(cfg.LogFile, cfg.LogLevel)
	backend := cfg.Backend
	if backend == "" {
		backend = DefaultBackend
	}
	cfg.Device.LogLevel = cfg.LogLevel
	cfg.Device.Log = func(level cptlog.Level, msg string) { log.Logf(level, "%s", msg) }
	dev, err := cptdrv.NewDevice(backend, cfg.Device)
	if err != nil {
		log.Logf(cptlog.Error, "cannot start the device: %v", err)
		return nil, err
	}
	if cfg.Device.Faults != "" {
		log.Logf(cptlog.Warn, "fault injection: %s", cfg.Device.Faults)
	}
	qcfg := cptdrv.QueueConfig{
		Depth:   cfg.RingDepth,
		Timeout: cfg.Timeout,
		Policy: cptdrv.Policy{
			Retries:   cfg.Retries,
			Threshold: cfg.BreakerThreshold,
			Cooldown:  cfg.BreakerCooldown,
		},
	}
	fail := func(err error, opened ...*cptdrv.Queue) (*Process, error) {
		log.Logf(cptlog.Error, "cannot start the device: %v", err)
		for _, q := range opened {
			q.Close()
		}
		dev.Close()
		return nil, err
	}
	fallback := "off (failures are errors)"
	if cfg.Fallback {
		sw, ok := dev.(cptdrv.Software)
		if !ok {
			return fail(fmt.Errorf("backend %s computes nothing in software: set fallback = off", backend))
		}
		qcfg.Policy.Software = sw
		fallback = "on (failures computed in software)"
	}
	open := func(group uint8, name string) (*cptdrv.Queue, error) {
		qcfg.Group = group
		qcfg.Policy.OnEvent = logEvents(log, name, cfg.Fallback)
		return cptdrv.NewQueue(dev, qcfg)
	}
	se, err := open(cptdrv.GroupSE, "symmetric")
	if err != nil {
		return fail(err)
	}
	ae, err := open(cptdrv.GroupAE, "asymmetric")
	if err != nil {
		return fail(err, se)
	}
	if se.Stats().Circuit == "absent" {
		log.Logf(cptlog.Warn, "no device: every operation is computed in software")
	} else {
		log.Logf(cptlog.Info, "device started: %s, ring depth %d, request timeout %v, fallback %s",
			dev.Name(), se.Depth(), qcfg.Timeout, fallback)
	}
	p := &Process{dev: dev, se: se, ae: ae, counters: stats.New(cfg.StatsArea), log: log}
	p.Env = dispatch.NewEnv(se, ae, p.counters, dev.Forget, os.Getpid())
	p.Env.OpenSSL = cfg.OpenSSL
	p.Env.OnCheckFailed = logCheckFailed(log)
	if cfg.StatsArea != nil {
		p.pub = stats.NewPublisher(cfg.StatsArea, dev.Name(), p.deviceCounters)
		p.pub.Start()
	}
	return p, nil
}

// Shutdown writes the last statistics (at exit): the device itself stops
// with the process.
func (p *Process) Shutdown() {
	if p.pub != nil {
		p.pub.Stop()
	}
}

// Flush writes the statistics now.
func (p *Process) Flush() {
	if p.pub != nil {
		p.pub.Publish()
	}
}
