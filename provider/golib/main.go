// SPDX-License-Identifier: Apache-2.0

// Command golib is built as libcptgo.so (-buildmode=c-shared): the Go half
// of cptprov. cptprov.so loads it on the first operation that needs the
// device, in the process that runs the operation, so that no Go runtime
// exists before a fork. Every exported function recovers panics into an
// OpenSSL error: a Go panic must never reach the host.
//
// The exports are the entry points provider/goapi.h lists, a file per
// family of operations (cipher.go, hash.go, keys.go, signature.go,
// asymcipher.go, exchange.go); this file starts and stops the device
// (internal/process) and turns Go results into the C side's statuses.
// cgo copies the preamble of each file with exports into libcptgo.h, which
// cptprov.so compiles against: those preambles only declare.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/.. -O2 -Wall
#include "cptabi.h"
int cpt_go_yield_due(int64_t every_ns, int sync_exempt);
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/dispatch"
	"cptprov/internal/cabi"
	"cptprov/internal/cptlog"
	"cptprov/internal/process"
	"cptprov/stats"
)

func main() {}

var (
	procMu sync.Mutex
	proc   *process.Process
)

func setStatus(st *C.struct_cpt_status, e *dispatch.Error) {
	if st == nil || e == nil {
		return
	}
	st.reason = C.int(e.Reason)
	// Further errors follow as lines "reason<TAB>message" (cptprov_raise_status).
	msg := strings.ReplaceAll(e.Msg, "\n", " ")
	for n := e.Next; n != nil; n = n.Next {
		msg += fmt.Sprintf("\n%d\t%s", n.Reason, strings.ReplaceAll(n.Msg, "\n", " "))
	}
	if len(msg) >= len(st.msg) {
		msg = msg[:len(st.msg)-1]
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&st.msg[0])), len(st.msg))
	n := copy(b, msg)
	b[n] = 0
}

// testPanic names an exported function that panics on entry, so that tests
// can prove a Go panic becomes an OpenSSL error and never reaches the host
// (CPTPROV_TEST_PANIC=init|update|final|get_params|set_params).
var testPanic = os.Getenv("CPTPROV_TEST_PANIC")

func maybePanic(name string) {
	if testPanic == name {
		panic("CPTPROV_TEST_PANIC=" + name)
	}
}

// guard turns a panic into an internal error for the exported function it
// is deferred in. It is also where a host thread yields when its P's tick
// is due (yield.c).
func guard(st *C.struct_cpt_status, rc *C.int) {
	if r := recover(); r != nil {
		setStatus(st, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("internal error: %v", r)})
		*rc = C.CPT_ERR
		if os.Getenv("CPTPROV_DEBUG") != "" {
			os.Stderr.Write(debug.Stack())
		}
		return
	}
	exempt := C.int(0)
	if cptdrv.MonitorBatch() {
		exempt = 1
	}
	if C.cpt_go_yield_due(C.int64_t(cptdrv.YieldEvery), exempt) != 0 {
		cptdrv.Yield()
	}
}

func result(st *C.struct_cpt_status, e *dispatch.Error) C.int {
	if e != nil {
		setStatus(st, e)
		return C.CPT_ERR
	}
	return C.CPT_OK
}

// operation finds what id names (byID returns nil for an unknown id) and
// the environment of the running device, for a call on it.
func operation[T any](what string, id C.int, byID func(int) T) (T, *dispatch.Env, *dispatch.Error) {
	op := byID(int(id))
	if any(op) == nil {
		var none T
		return none, nil, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("unknown %s %d", what, id)}
	}
	p := proc
	if p == nil {
		return op, nil, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: "device not started"}
	}
	return op, p.Env, nil
}

// notifier delivers an asynchronous outcome to the C side's waiter.
type notifier struct{ n *C.struct_cpt_notifier }

func (w notifier) Complete(outl int, e *dispatch.Error) {
	w.n.outl = C.size_t(outl)
	if e != nil {
		w.n.rc = C.CPT_ERR
		setStatus(&w.n.st, e)
	} else {
		w.n.rc = C.CPT_OK
	}
	C.cpt_notifier_complete(w.n)
}

func waiterOf(n *C.struct_cpt_notifier) dispatch.Waiter {
	if n == nil {
		return nil
	}
	return notifier{n}
}

func pendingResult(outl *C.size_t, n int, pending bool, st *C.struct_cpt_status, e *dispatch.Error) C.int {
	if e != nil {
		setStatus(st, e)
		return C.CPT_ERR
	}
	if pending {
		return C.CPT_PENDING
	}
	if outl != nil {
		*outl = C.size_t(n)
	}
	return C.CPT_OK
}

func goBytes(p unsafe.Pointer, n C.size_t) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

//export cptgo_abi_version
func cptgo_abi_version() C.int { return C.CPT_ABI_VERSION }

//export cptgo_start
func cptgo_start(cfg *C.struct_cpt_config, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	procMu.Lock()
	defer procMu.Unlock()
	if proc != nil {
		return C.CPT_OK
	}
	if e := checkLayouts(); e != nil {
		return result(st, e)
	}
	p, err := process.Start(processConfig(cfg))
	if err != nil {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: err.Error()})
	}
	proc = p
	go lowerMonitor()
	return C.CPT_OK
}

// checkLayouts refuses to start a Go half whose view of C memory is not
// the C side's: operation states larger than the C side reserves, or an
// OSSL_PARAM laid out otherwise than dispatch.Param reads it.
func checkLayouts() *dispatch.Error {
	keySizes := map[int]uintptr{dispatch.KeyX25519: C.CPT_KEY_STATE_SIZE, dispatch.KeyEC: C.CPT_KEY_STATE_SIZE, dispatch.KeyRSA: C.CPT_KEY_STATE_SIZE_RSA, dispatch.KeyRSAPSS: C.CPT_KEY_STATE_SIZE_RSA}
	keysFit := true
	for id, size := range keySizes {
		kt := dispatch.KeyTypeByID(id)
		keysFit = keysFit && kt.StateSize() <= size && kt.GenStateSize() <= C.CPT_KEY_STATE_SIZE
	}
	if dispatch.MaxStateSize() > C.CPT_CIPHER_STATE_SIZE || dispatch.MDStateSize() > C.CPT_MD_STATE_SIZE || dispatch.MACStateSize() > C.CPT_MAC_STATE_SIZE || !keysFit || dispatch.MaxSigStateSize() > C.CPT_SIG_STATE_SIZE {
		return &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: "operation state larger than the C side reserves"}
	}
	if err := cabi.CheckParam(); err != nil {
		return &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: "the Go half reads OSSL_PARAM arrays wrongly: " + err.Error()}
	}
	if err := cabi.CheckKeyHead(); err != nil {
		return &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: "the Go half lays out key heads wrongly: " + err.Error()}
	}
	return nil
}

// processConfig is the C side's checked configuration in Go terms.
func processConfig(cfg *C.struct_cpt_config) process.Config {
	gostr := func(s *C.char) string {
		if s == nil {
			return ""
		}
		return C.GoString(s)
	}
	return process.Config{
		Backend: gostr(cfg.backend),
		Device: cptdrv.BackendConfig{
			SEEngines:  int(cfg.se_engines),
			AEEngines:  int(cfg.ae_engines),
			Spin:       time.Duration(cfg.spin_us) * time.Microsecond,
			Faults:     gostr(cfg.faults),
			Shim:       gostr(cfg.dpdk_shim),
			Args:       gostr(cfg.dpdk_eal_args),
			Devices:    strings.FieldsFunc(gostr(cfg.dpdk_devices), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }),
			QueuePairs: int(cfg.dpdk_queue_pairs),
			QueueDepth: int(cfg.dpdk_queue_depth),
		},
		RingDepth:        int(cfg.ring_depth),
		Timeout:          time.Duration(cfg.timeout_ms) * time.Millisecond,
		Retries:          int(cfg.retries),
		BreakerThreshold: int(cfg.breaker_threshold),
		BreakerCooldown:  time.Duration(cfg.breaker_cooldown_ms) * time.Millisecond,
		Fallback:         cfg.fallback != 0,
		LogLevel:         cptlog.Level(cfg.log_level),
		LogFile:          gostr(cfg.log_file),
		StatsArea:        (*stats.Area)(unsafe.Pointer(cfg.stats_area)),
		OpenSSL:          uint64(cfg.openssl_version),
	}
}

// running is the started process, nil before cptgo_start.
func running() *process.Process {
	procMu.Lock()
	defer procMu.Unlock()
	return proc
}

//export cptgo_shutdown
func cptgo_shutdown() {
	defer func() { recover() }()
	if p := running(); p != nil {
		p.Shutdown()
	}
}

//export cptgo_flush
func cptgo_flush() {
	defer func() { recover() }()
	if p := running(); p != nil {
		p.Flush()
	}
}
