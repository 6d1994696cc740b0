// Command golib is built as libcptgo.so (-buildmode=c-shared): the Go half
// of cptprov. cptprov.so loads it on the first operation that needs the
// device, in the process that runs the operation, so that no Go runtime
// exists before a fork. Every exported function recovers panics into an
// OpenSSL error: a Go panic must never reach the host.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/.. -O2 -Wall
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core.h>
#include "cptabi.h"

static inline void cpt_notify(struct cpt_notifier *n) { cpt_notifier_complete(n); }

// Parameter names exported keys use, in static storage: OSSL_PARAM_dup
// (EVP_PKEY_todata) keeps pointers to the names of the arrays it copies.
static char cpt_names[64][32];
static int cpt_nnames;
static pthread_mutex_t cpt_names_mu = PTHREAD_MUTEX_INITIALIZER;

static inline const char *cpt_intern(const char *name)
{
    const char *r = NULL;

    pthread_mutex_lock(&cpt_names_mu);
    for (int i = 0; i < cpt_nnames && r == NULL; i++)
        if (strcmp(cpt_names[i], name) == 0)
            r = cpt_names[i];
    if (r == NULL && cpt_nnames < 64 && strlen(name) < sizeof(cpt_names[0])) {
        strcpy(cpt_names[cpt_nnames], name);
        r = cpt_names[cpt_nnames++];
    }
    pthread_mutex_unlock(&cpt_names_mu);
    return r;
}

static inline int cpt_call_export_cb(void *cb, OSSL_PARAM *params, void *arg)
{
    return ((OSSL_CALLBACK *)cb)(params, arg);
}

// Zeroing the libcrypto way without linking libcrypto into the Go half.
static inline void OPENSSL_cleanse_wrapper(void *p, size_t n)
{
    volatile unsigned char *v = p;
    while (n-- > 0)
        *v++ = 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/dispatch"
	"cptprov/internal/cptlog"
	"cptprov/simulator"
	"cptprov/stats"
)

func main() {}

// The numbers shared with the C side must agree.
var _ = [1]struct{}{}[C.CPT_ALG_AES_256_GCM-C.int(dispatch.AlgAES256GCM)]
var _ = [1]struct{}{}[C.CPT_ALG_DES_EDE3_CBC-C.int(dispatch.AlgDESEDE3CBC)]
var _ = [1]struct{}{}[C.CPT_ALG_AES_128_CBC_HMAC_SHA1-C.int(dispatch.AlgAES128CBCHMACSHA1)]
var _ = [1]struct{}{}[C.CPT_ALG_AES_256_CBC_HMAC_SHA256-C.int(dispatch.AlgAES256CBCHMACSHA256)]
var _ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_stream_state{})-unsafe.Sizeof(dispatch.StreamState{})]
var _ = [1]struct{}{}[C.CPT_MD_SHA512_256-C.int(cptdrv.HashSHA512256)]
var _ = [1]struct{}{}[C.CPT_ALG_MD_BASE-dispatch.AlgMDBase]
var _ = [1]struct{}{}[C.CPT_ALG_MAC_BASE-dispatch.AlgMACBase]
var _ = [C.CPT_MAX_ALGS/2 - C.CPT_ALG_MAC_BASE - C.CPT_MD_SHA512_256]struct{}{} // below the asymmetric counters (32 on)
var _ = [1]struct{}{}[C.sizeof_struct_cpt_aead_shadow-unsafe.Sizeof(dispatch.AEADShadow{})]
var _ = [1]struct{}{}[C.CPT_SIG_ECDSA-C.int(dispatch.SigECDSA)]
var _ = [1]struct{}{}[C.CPT_SIG_RSA-C.int(dispatch.SigRSA)]
var _ = [1]struct{}{}[C.CPT_KEY_RSA-C.int(dispatch.KeyRSA)]
var _ = [1]struct{}{}[C.CPT_KEY_RSA_PSS-C.int(dispatch.KeyRSAPSS)]
var _ = [1]struct{}{}[C.CPT_ASYM_RSA-C.int(dispatch.AsymRSA)]
var _ = [1]struct{}{}[C.CPT_OP_DECRYPT-C.int(dispatch.OpDecrypt)]
var _ = [1]struct{}{}[C.CPT_OP_VERIFY-C.int(dispatch.OpVerify)]
var _ = [1]struct{}{}[C.CPT_SIG_SCRATCH_SIZE-dispatch.SigScratchSize]
var _ = [1]struct{}{}[C.CPT_KEY_X25519-C.int(dispatch.KeyX25519)]
var _ = [1]struct{}{}[C.CPT_KEY_EC-C.int(dispatch.KeyEC)]
var _ = [1]struct{}{}[C.CPT_KEY_HAS_DOMAIN-C.int(dispatch.KeyHasDomain)]
var _ = [1]struct{}{}[C.CPT_EXCH_SCRATCH_SIZE-dispatch.ScratchSize]
var _ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_aead_shadow{}.run_tag)-unsafe.Offsetof(dispatch.AEADShadow{}.RunTag)]

// Every reason is the number cptabi.h gives it (dispatch_test checks that
// none is missing from either list).
var (
	_ = [1]struct{}{}[C.CPT_R_BAD_DECRYPT-C.int(dispatch.ReasonBadDecrypt)]
	_ = [1]struct{}{}[C.CPT_R_OPERATION_FAILED-C.int(dispatch.ReasonOperationFailed)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_KEY_LENGTH-C.int(dispatch.ReasonInvalidKeyLength)]
	_ = [1]struct{}{}[C.CPT_R_OUTPUT_TOO_SMALL-C.int(dispatch.ReasonOutputTooSmall)]
	_ = [1]struct{}{}[C.CPT_R_WRONG_FINAL_BLOCK_LENGTH-C.int(dispatch.ReasonWrongFinalBlockLength)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_AAD-C.int(dispatch.ReasonInvalidAAD)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_IV_LENGTH-C.int(dispatch.ReasonInvalidIVLength)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_TAG-C.int(dispatch.ReasonInvalidTag)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_SALT_LENGTH-C.int(dispatch.ReasonInvalidSaltLength)]
	_ = [1]struct{}{}[C.CPT_R_MISSING_KEY-C.int(dispatch.ReasonMissingKey)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_DIGEST-C.int(dispatch.ReasonInvalidDigest)]
	_ = [1]struct{}{}[C.CPT_R_TOO_MANY_RECORDS-C.int(dispatch.ReasonTooManyRecords)]
	_ = [1]struct{}{}[C.CPT_R_NOT_SUPPORTED-C.int(dispatch.ReasonNotSupported)]
	_ = [1]struct{}{}[C.CPT_R_BAD_LENGTH-C.int(dispatch.ReasonBadLength)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_KEY-C.int(dispatch.ReasonInvalidKey)]
	_ = [1]struct{}{}[C.CPT_R_BAD_TLS_CLIENT_VERSION-C.int(dispatch.ReasonBadTLSClientVersion)]
	_ = [1]struct{}{}[C.CPT_R_FAILED_TO_DECRYPT-C.int(dispatch.ReasonFailedToDecrypt)]
	_ = [1]struct{}{}[C.CPT_R_ILLEGAL_OR_UNSUPPORTED_PADDING_MODE-C.int(dispatch.ReasonIllegalOrUnsupportedPaddingMode)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_DIGEST_LENGTH-C.int(dispatch.ReasonInvalidDigestLength)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_MGF1_MD-C.int(dispatch.ReasonInvalidMGF1MD)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_PADDING_MODE-C.int(dispatch.ReasonInvalidPaddingMode)]
	_ = [1]struct{}{}[C.CPT_R_KEY_SIZE_TOO_SMALL-C.int(dispatch.ReasonKeySizeTooSmall)]
	_ = [1]struct{}{}[C.CPT_R_PSS_SALTLEN_TOO_SMALL-C.int(dispatch.ReasonPSSSaltlenTooSmall)]
	_ = [1]struct{}{}[C.CPT_R_DIGEST_NOT_ALLOWED-C.int(dispatch.ReasonDigestNotAllowed)]
	_ = [1]struct{}{}[C.CPT_R_OPERATION_NOT_SUPPORTED_FOR_THIS_KEYTYPE-C.int(dispatch.ReasonOperationNotSupportedForThisKeytype)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_SIGNATURE_SIZE-C.int(dispatch.ReasonInvalidSignatureSize)]
	_ = [1]struct{}{}[C.CPT_R_XOF_DIGESTS_NOT_ALLOWED-C.int(dispatch.ReasonXOFDigestsNotAllowed)]
	_ = [1]struct{}{}[C.CPT_R_OAEP_DECODING_ERROR-C.int(dispatch.ReasonOAEPDecodingError)]
	_ = [1]struct{}{}[C.CPT_R_DATA_TOO_LARGE_FOR_MODULUS-C.int(dispatch.ReasonDataTooLargeForModulus)]
	_ = [1]struct{}{}[C.CPT_R_INTERNAL-C.int(dispatch.ReasonInternal)]
	_ = [1]struct{}{}[C.CPT_R_MISSING_IV-C.int(dispatch.ReasonMissingIV)]
	_ = [1]struct{}{}[C.CPT_R_BAD_PARAMETER-C.int(dispatch.ReasonBadParameter)]
	_ = [1]struct{}{}[C.CPT_R_DEVICE_ERROR-C.int(dispatch.ReasonDeviceError)]
	_ = [1]struct{}{}[C.CPT_R_DEVICE_UNAVAILABLE-C.int(dispatch.ReasonDeviceUnavailable)]
	_ = [1]struct{}{}[C.CPT_R_WRONG_STATE-C.int(dispatch.ReasonWrongState)]
	_ = [1]struct{}{}[C.CPT_R_QUEUE_FULL-C.int(dispatch.ReasonQueueFull)]
	_ = [1]struct{}{}[C.CPT_R_AUTH_FAILED-C.int(dispatch.ReasonAuthFailed)]
	_ = [1]struct{}{}[C.CPT_R_TIMEOUT-C.int(dispatch.ReasonTimeout)]
	_ = [1]struct{}{}[C.CPT_R_VERIFY_FAILED-C.int(dispatch.ReasonVerifyFailed)]
	_ = [1]struct{}{}[C.CPT_R_DATA_TOO_LARGE_FOR_KEY_SIZE-C.int(dispatch.ReasonDataTooLargeForKeySize)]
	_ = [1]struct{}{}[C.CPT_R_DATA_TOO_SMALL_FOR_KEY_SIZE-C.int(dispatch.ReasonDataTooSmallForKeySize)]
	_ = [1]struct{}{}[C.CPT_R_DATA_GREATER_THAN_MOD_LEN-C.int(dispatch.ReasonDataGreaterThanModLen)]
	_ = [1]struct{}{}[C.CPT_R_BAD_E_VALUE-C.int(dispatch.ReasonBadEValue)]
	_ = [1]struct{}{}[C.CPT_R_D_E_NOT_CONGRUENT_TO_1-C.int(dispatch.ReasonDENotCongruentTo1)]
	_ = [1]struct{}{}[C.CPT_R_DMP1_NOT_CONGRUENT_TO_D-C.int(dispatch.ReasonDMP1NotCongruentToD)]
	_ = [1]struct{}{}[C.CPT_R_DMQ1_NOT_CONGRUENT_TO_D-C.int(dispatch.ReasonDMQ1NotCongruentToD)]
	_ = [1]struct{}{}[C.CPT_R_N_DOES_NOT_EQUAL_P_Q-C.int(dispatch.ReasonNDoesNotEqualPQ)]
	_ = [1]struct{}{}[C.CPT_R_P_NOT_PRIME-C.int(dispatch.ReasonPNotPrime)]
	_ = [1]struct{}{}[C.CPT_R_Q_NOT_PRIME-C.int(dispatch.ReasonQNotPrime)]
	_ = [1]struct{}{}[C.CPT_R_VALUE_MISSING-C.int(dispatch.ReasonValueMissing)]
	_ = [1]struct{}{}[C.CPT_R_WRONG_SIGNATURE_LENGTH-C.int(dispatch.ReasonWrongSignatureLength)]
	_ = [1]struct{}{}[C.CPT_R_PUB_EXPONENT_OUT_OF_RANGE-C.int(dispatch.ReasonPubExponentOutOfRange)]
	_ = [1]struct{}{}[C.CPT_R_IQMP_NOT_INVERSE_OF_Q-C.int(dispatch.ReasonIQMPNotInverseOfQ)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_MODULUS-C.int(dispatch.ReasonInvalidModulus)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_LENGTH-C.int(dispatch.ReasonInvalidLength)]
	_ = [1]struct{}{}[C.CPT_R_PARAM_OF_INCOMPATIBLE_TYPE-C.int(dispatch.ReasonParamOfIncompatibleType)]
	_ = [1]struct{}{}[C.CPT_R_UNKNOWN_PADDING_TYPE-C.int(dispatch.ReasonUnknownPaddingType)]
	_ = [1]struct{}{}[C.CPT_R_PKCS_DECODING_ERROR-C.int(dispatch.ReasonPKCSDecodingError)]
	_ = [1]struct{}{}[C.CPT_R_UNSUPPORTED-C.int(dispatch.ReasonUnsupported)]
	_ = [1]struct{}{}[C.CPT_R_NOT_A_PUBLIC_KEY-C.int(dispatch.ReasonNotAPublicKey)]
	_ = [1]struct{}{}[C.CPT_R_NOT_A_PRIVATE_KEY-C.int(dispatch.ReasonNotAPrivateKey)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_PRIVATE_KEY-C.int(dispatch.ReasonInvalidPrivateKey)]
	_ = [1]struct{}{}[C.CPT_R_MISSING_PRIVATE_KEY-C.int(dispatch.ReasonMissingPrivateKey)]
	_ = [1]struct{}{}[C.CPT_R_POINT_IS_NOT_ON_CURVE-C.int(dispatch.ReasonPointIsNotOnCurve)]
	_ = [1]struct{}{}[C.CPT_R_POINT_AT_INFINITY-C.int(dispatch.ReasonPointAtInfinity)]
	_ = [1]struct{}{}[C.CPT_R_INVALID_X931_DIGEST-C.int(dispatch.ReasonInvalidX931Digest)]
	_ = [1]struct{}{}[C.CPT_R_FAILED_TO_SET_PARAMETER-C.int(dispatch.ReasonFailedToSetParameter)]
	_ = [1]struct{}{}[C.CPT_R_DIGEST_TOO_BIG_FOR_RSA_KEY-C.int(dispatch.ReasonDigestTooBigForRSAKey)]
)

// The statistics area's Go twin matches the C layout (a compile error if not).
var (
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_stats_area{})-unsafe.Sizeof(stats.Area{})]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_stats_area{}.published_ns)-unsafe.Offsetof(stats.Area{}.PublishedNS)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_stats_area{}.device)-unsafe.Offsetof(stats.Area{}.Device)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_stats_area{}.latency)-unsafe.Offsetof(stats.Area{}.Latency)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_stats_area{}.cpu)-unsafe.Offsetof(stats.Area{}.CPU)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_stats_area{}.algs)-unsafe.Offsetof(stats.Area{}.Algs)]
	_ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_stats_alg{})-unsafe.Sizeof(stats.AreaAlg{})]
	_ = [1]struct{}{}[C.CPT_STATS_ALGS-stats.AlgSlots+C.CPT_STATS_DEVICE-stats.DeviceSlots+C.CPT_STATS_BUCKETS-stats.LatencyBuckets+C.CPT_MAX_ALGS-stats.CPUSlots]
	_ = [1]struct{}{}[stats.LatencyBuckets-cptdrv.LatencyBuckets]
)

// process is the device of this process and what operations need from it.
type process struct {
	dev      *simulator.Device
	se, ae   *cptdrv.Queue
	env      *dispatch.Env
	counters *stats.Counters
	pub      *stats.Publisher // nil without a statistics area
	log      *cptlog.Logger
}

var (
	procMu sync.Mutex
	proc   *process
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
// is deferred in.
func guard(st *C.struct_cpt_status, rc *C.int) {
	if r := recover(); r != nil {
		setStatus(st, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("internal error: %v", r)})
		*rc = C.CPT_ERR
		if os.Getenv("CPTPROV_DEBUG") != "" {
			os.Stderr.Write(debug.Stack())
		}
	}
}

func result(st *C.struct_cpt_status, e *dispatch.Error) C.int {
	if e != nil {
		setStatus(st, e)
		return C.CPT_ERR
	}
	return C.CPT_OK
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
	keySizes := map[int]uintptr{dispatch.KeyX25519: C.CPT_KEY_STATE_SIZE, dispatch.KeyEC: C.CPT_KEY_STATE_SIZE, dispatch.KeyRSA: C.CPT_KEY_STATE_SIZE_RSA, dispatch.KeyRSAPSS: C.CPT_KEY_STATE_SIZE_RSA}
	keysFit := true
	for id, size := range keySizes {
		kt := dispatch.KeyTypeByID(id)
		keysFit = keysFit && kt.StateSize() <= size && kt.GenStateSize() <= C.CPT_KEY_STATE_SIZE
	}
	if dispatch.MaxStateSize() > C.CPT_CIPHER_STATE_SIZE || dispatch.MDStateSize() > C.CPT_MD_STATE_SIZE || dispatch.MACStateSize() > C.CPT_MAC_STATE_SIZE || !keysFit || dispatch.MaxSigStateSize() > C.CPT_SIG_STATE_SIZE {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: "operation state larger than the C side reserves"})
	}
	p, err := startProcess(cfg)
	if err != nil {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: err.Error()})
	}
	proc = p
	return C.CPT_OK
}

// hostPs is how many Ps beyond the CPUs the runtime gets. A host thread
// that calls into Go (every offloaded operation) needs a free P, and the
// engine goroutines can hold one per CPU; without spare Ps the host waits
// for an engine to give one up (up to the 20 µs the runtime lets a cgo call
// keep its P). Measured on 2 CPUs, RSA-2048 signatures in 16 ASYNC jobs:
// 4900/s with 2 Ps, 6400/s with 4; synchronous rates unchanged.
const hostPs = 2

func startProcess(cfg *C.struct_cpt_config) (*process, error) {
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
	log := openLog(cfg)
	simCfg := simulator.Config{SEEngines: int(cfg.se_engines), AEEngines: int(cfg.ae_engines)}
	if cfg.spin_us > 0 {
		simCfg.Spin = time.Duration(cfg.spin_us) * time.Microsecond
	}
	var plan *simulator.FaultPlan
	if cfg.faults != nil {
		var err error
		if plan, err = simulator.ParseFaultPlan(C.GoString(cfg.faults)); err != nil {
			log.Logf(cptlog.Error, "bad fault plan: %v", err)
			return nil, err
		}
		simCfg.Absent = plan.Absent
		log.Logf(cptlog.Warn, "fault injection: %s", C.GoString(cfg.faults))
	}
	dev := simulator.New(simCfg)
	if plan != nil {
		dev.SetFaults(plan)
	}
	qcfg := cptdrv.QueueConfig{
		Depth:   int(cfg.ring_depth),
		Timeout: time.Duration(cfg.timeout_ms) * time.Millisecond,
		Policy: cptdrv.Policy{
			Retries:   int(cfg.retries),
			Threshold: int(cfg.breaker_threshold),
			Cooldown:  time.Duration(cfg.breaker_cooldown_ms) * time.Millisecond,
		},
	}
	fallback := "off (failures are errors)"
	if cfg.fallback != 0 {
		qcfg.Policy.Software = dev
		fallback = "on (failures computed in software)"
	}
	qcfg.Group = cptdrv.GroupSE
	qcfg.Policy.OnEvent = logEvents(log, "symmetric", cfg.fallback != 0)
	se, err := cptdrv.NewQueue(dev, qcfg)
	if err != nil {
		log.Logf(cptlog.Error, "cannot start the device: %v", err)
		dev.Close()
		return nil, err
	}
	qcfg.Group = cptdrv.GroupAE
	qcfg.Policy.OnEvent = logEvents(log, "asymmetric", cfg.fallback != 0)
	ae, err := cptdrv.NewQueue(dev, qcfg)
	if err != nil {
		log.Logf(cptlog.Error, "cannot start the device: %v", err)
		se.Close()
		dev.Close()
		return nil, err
	}
	if simCfg.Absent {
		log.Logf(cptlog.Warn, "no device: every operation is computed in software")
	} else {
		log.Logf(cptlog.Info, "device started: %s, ring depth %d, request timeout %v, fallback %s",
			dev.Name(), se.Depth(), qcfg.Timeout, fallback)
	}
	area := (*stats.Area)(unsafe.Pointer(cfg.stats_area))
	p := &process{dev: dev, se: se, ae: ae, counters: stats.New(area), log: log}
	p.env = dispatch.NewEnv(se, ae, p.counters, dev.Forget, os.Getpid())
	p.env.OpenSSL = uint64(cfg.openssl_version)
	p.env.OnCheckFailed = logCheckFailed(log)
	if area != nil {
		p.pub = stats.NewPublisher(area, dev.Name(), p.deviceCounters)
		p.pub.Start()
	}
	return p, nil
}

// inFlight is how many submitted instructions await their completion.
func inFlight(submitted, completed uint64) uint64 {
	if completed > submitted {
		return 0
	}
	return submitted - completed
}

// deviceCounters collects the queue and device counters the publisher
// copies into the statistics area, always in the same order.
func (p *process) deviceCounters() stats.DeviceCounters {
	qs := p.se.Stats()
	as := p.ae.Stats()
	ds := p.dev.Stats()
	d := stats.DeviceCounters{Latency: [2][]uint64{qs.Phases.Latency[:], as.Phases.Latency[:]}}
	add := func(name string, v uint64) {
		d.Names = append(d.Names, name)
		d.Values = append(d.Values, v)
	}
	add("submitted", qs.Submitted)
	add("completed", qs.Completed)
	add("in_flight", inFlight(qs.Submitted, qs.Completed))
	add("queue_full", qs.Full)
	add("stale_completions", qs.Stale)
	add("timeouts", qs.Timeouts)
	add("assisted", qs.Assisted)
	add("in_flight_max", qs.InFlightHi)
	add("executed", ds.Executed)
	add("errors", ds.Errors)
	add("faults", ds.Faults)
	add("stalled", ds.Stalled)
	phases := func(q string, ph cptdrv.Phases) {
		add(q+"_phase_samples", ph.Samples)
		add(q+"_submit_ns", ph.Submit)
		add(q+"_wait_ns", ph.Wait)
		add(q+"_engine_ns", ph.Engine)
		add(q+"_notify_ns", ph.Notify)
	}
	phases("se", qs.Phases)
	add("ae_submitted", as.Submitted)
	add("ae_completed", as.Completed)
	add("ae_in_flight", inFlight(as.Submitted, as.Completed))
	add("ae_assisted", as.Assisted)
	phases("ae", as.Phases)
	add("device_failures", qs.Failed+as.Failed)
	add("retries", qs.Retries+as.Retries)
	add("fallbacks", qs.Fallbacks+as.Fallbacks)
	add("circuit_opens", qs.Opens+as.Opens)
	add("resets", ds.Resets)
	add("ae_timeouts", as.Timeouts)
	add("se_circuit_open", circuitOpen(qs.Circuit))
	add("ae_circuit_open", circuitOpen(as.Circuit))
	add("results_rejected", p.env.Checks.Rejected.Load())
	add("results_recomputed", p.env.Checks.Recomputed.Load())
	return d
}

// logCheckFailed logs each private-key result that failed its check: a
// device computing wrong results, or a key whose CRT values are wrong.
func logCheckFailed(log *cptlog.Logger) func(dispatch.CheckEvent) {
	return func(ev dispatch.CheckEvent) {
		where, what := "device", "plain"
		if ev.Software {
			where = "software fallback"
		}
		if ev.CRT {
			what = "CRT"
		}
		if ev.Recomputed {
			log.Logf(cptlog.Warn, "%s-%d private-key result (%s, %s) failed its check: not released, recomputed without CRT (a faulty device, or a key whose dP, dQ or qInv is wrong)", ev.Alg, ev.Bits, what, where)
		} else {
			log.Logf(cptlog.Error, "%s-%d private-key result (%s, %s) failed its check: not released, the operation fails (a faulty device, or an inconsistent key)", ev.Alg, ev.Bits, what, where)
		}
	}
}

// openLog opens the configured log (log_level, log_file); a file that
// cannot be opened falls back to stderr, which says so.
func openLog(cfg *C.struct_cpt_config) *cptlog.Logger {
	prefix := fmt.Sprintf("cptprov[%d]", os.Getpid())
	dest := ""
	if cfg.log_file != nil {
		dest = C.GoString(cfg.log_file)
	}
	log, err := cptlog.Open(dest, cptlog.Level(cfg.log_level), prefix)
	if err != nil {
		log, _ = cptlog.Open("", cptlog.Level(cfg.log_level), prefix)
		log.Logf(cptlog.Error, "cannot open log file: %v; logging to stderr", err)
	}
	return log
}

// logEvents is a queue's OnEvent: device failures, and the circuit opening
// and closing, as log lines (rate-limited by the logger).
func logEvents(log *cptlog.Logger, queue string, fallback bool) func(cptdrv.Event, uint8) {
	return func(ev cptdrv.Event, code uint8) {
		switch ev {
		case cptdrv.EventFailure:
			log.Logf(cptlog.Warn, "%s queue: the device failed an operation without running it (%s)", queue, compName(code))
		case cptdrv.EventOpen:
			if fallback {
				log.Logf(cptlog.Warn, "%s queue: circuit open after repeated device failures: fallback to software engaged", queue)
			} else {
				log.Logf(cptlog.Error, "%s queue: circuit open after repeated device failures: operations fail until the device answers", queue)
			}
		case cptdrv.EventClose:
			log.Logf(cptlog.Warn, "%s queue: circuit closed: the device answers again, fallback released", queue)
		}
	}
}

func compName(code uint8) string {
	switch code {
	case cptdrv.CompHWError:
		return "engine error"
	case cptdrv.CompReset:
		return "device reset"
	case cptdrv.CompTimeout:
		return "no engine took it in time"
	}
	return fmt.Sprintf("completion code %#x", code)
}

// circuitOpen is 1 while a queue's circuit keeps requests off the device.
func circuitOpen(state string) uint64 {
	if state == "closed" {
		return 0
	}
	return 1
}

//export cptgo_shutdown
func cptgo_shutdown() {
	defer func() { recover() }()
	procMu.Lock()
	p := proc
	procMu.Unlock()
	if p != nil && p.pub != nil {
		p.pub.Stop()
	}
}

//export cptgo_flush
func cptgo_flush() {
	defer func() { recover() }()
	procMu.Lock()
	p := proc
	procMu.Unlock()
	if p != nil && p.pub != nil {
		p.pub.Publish()
	}
}

// cipherOf finds the cipher and the process environment for a call, and
// applies an init the C side kept pending for the context.
func cipherOf(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init) (dispatch.Cipher, *dispatch.Env, *dispatch.Error) {
	c := dispatch.CipherByID(int(alg))
	if c == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("unknown cipher id %d", alg)}
	}
	p := proc
	if p == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: "device not started"}
	}
	if pending != nil && pending.valid != 0 {
		pending.valid = 0
		key := unsafe.Slice((*byte)(unsafe.Pointer(&pending.key[0])), len(pending.key))
		iv := unsafe.Slice((*byte)(unsafe.Pointer(&pending.iv[0])), len(pending.iv))
		err := c.Init(p.env, state, pending.enc != 0, key[:pending.keylen], pending.has_key != 0, iv[:pending.ivlen], pending.has_iv != 0, dispatch.Params{})
		clear(key)
		pending.has_key, pending.has_iv, pending.keylen, pending.ivlen = 0, 0, 0, 0
		if err != nil {
			return nil, nil, err
		}
	}
	return c, p.env, nil
}

func goBytes(p unsafe.Pointer, n C.size_t) []byte {
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

//export cptgo_cipher_init
func cptgo_cipher_init(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, enc C.int, key unsafe.Pointer, keylen C.size_t, iv unsafe.Pointer, ivlen C.size_t, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("init")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	return result(st, c.Init(env, state, enc != 0, goBytes(key, keylen), key != nil, goBytes(iv, ivlen), iv != nil, dispatch.ParamsAt(params)))
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
	C.cpt_notify(w.n)
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

//export cptgo_cipher_update
func cptgo_cipher_update(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("update")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	n, async, e := c.Update(env, state, out, int(outsize), in, int(inl), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

//export cptgo_cipher_final
func cptgo_cipher_final(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("final")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	n, async, e := c.Final(env, state, out, int(outsize), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

//export cptgo_cipher_oneshot
func cptgo_cipher_oneshot(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("oneshot")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	o, ok := c.(dispatch.OneShotCipher)
	if !ok {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonWrongState, Msg: c.Name() + " has no one-shot operation"})
	}
	n, async, e := o.OneShot(env, state, out, int(outsize), in, int(inl), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

//export cptgo_cipher_export
func cptgo_cipher_export(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, out *C.struct_cpt_stream_state, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	s, ok := c.(dispatch.StreamCipher)
	if !ok {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonWrongState, Msg: c.Name() + " has no stream state"})
	}
	*(*dispatch.StreamState)(unsafe.Pointer(out)) = s.ExportStream(env, state)
	return C.CPT_OK
}

//export cptgo_cipher_import
func cptgo_cipher_import(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, in *C.struct_cpt_stream_state, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	s, ok := c.(dispatch.StreamCipher)
	if !ok {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonWrongState, Msg: c.Name() + " has no stream state"})
	}
	return result(st, s.ImportStream(env, state, *(*dispatch.StreamState)(unsafe.Pointer(in))))
}

//export cptgo_cipher_get_ctx_params
func cptgo_cipher_get_ctx_params(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("get_params")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	return result(st, c.GetCtxParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_cipher_set_ctx_params
func cptgo_cipher_set_ctx_params(alg C.int, state unsafe.Pointer, pending *C.struct_cpt_pending_init, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("set_params")
	c, env, e := cipherOf(alg, state, pending)
	if e != nil {
		return result(st, e)
	}
	return result(st, c.SetCtxParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_cipher_dup
func cptgo_cipher_dup(alg C.int, state unsafe.Pointer) (rc C.int) {
	defer guard(nil, &rc)
	if c, env, e := cipherOf(alg, nil, nil); e == nil {
		c.Dup(env, state)
	}
	return C.CPT_OK
}

// hashStream is a digest or HMAC over one: messages hashed on the device.
type hashStream interface {
	Update(env *dispatch.Env, st, in unsafe.Pointer, inl int, w dispatch.Waiter) (bool, *dispatch.Error)
	Final(env *dispatch.Env, st, out unsafe.Pointer, outsize int, w dispatch.Waiter) (int, bool, *dispatch.Error)
}

// hashOf finds the digest (or HMAC over it) with CPT_MD_* id md and the
// process environment for a call.
func hashOf(md C.int, hmac bool) (hashStream, *dispatch.Env, *dispatch.Error) {
	var h hashStream
	if m := dispatch.MDByID(int(md)); m != nil && !hmac {
		h = m
	} else if m := dispatch.MACByID(int(md)); m != nil && hmac {
		h = m
	}
	if h == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("unknown digest id %d", md)}
	}
	if proc == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: "device not started"}
	}
	return h, proc.env, nil
}

func hashUpdate(md C.int, hmac bool, state, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) C.int {
	h, env, e := hashOf(md, hmac)
	if e != nil {
		return result(st, e)
	}
	async, e := h.Update(env, state, in, int(inl), waiterOf(wn))
	return pendingResult(nil, 0, async, st, e)
}

func hashFinal(md C.int, hmac bool, state, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) C.int {
	h, env, e := hashOf(md, hmac)
	if e != nil {
		return result(st, e)
	}
	n, async, e := h.Final(env, state, out, int(outsize), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

//export cptgo_digest_update
func cptgo_digest_update(md C.int, state unsafe.Pointer, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("digest_update")
	return hashUpdate(md, false, state, in, inl, wn, st)
}

//export cptgo_digest_final
func cptgo_digest_final(md C.int, state unsafe.Pointer, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("digest_final")
	return hashFinal(md, false, state, out, outl, outsize, wn, st)
}

//export cptgo_mac_setkey
func cptgo_mac_setkey(md C.int, state unsafe.Pointer, key unsafe.Pointer, keylen C.size_t, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	h, _, e := hashOf(md, true)
	if e != nil {
		return result(st, e)
	}
	var k []byte
	if keylen > 0 {
		k = unsafe.Slice((*byte)(key), int(keylen))
	}
	return result(st, h.(*dispatch.MAC).SetKey(state, k))
}

//export cptgo_mac_update
func cptgo_mac_update(md C.int, state unsafe.Pointer, in unsafe.Pointer, inl C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("mac_update")
	return hashUpdate(md, true, state, in, inl, wn, st)
}

//export cptgo_mac_final
func cptgo_mac_final(md C.int, state unsafe.Pointer, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("mac_final")
	return hashFinal(md, true, state, out, outl, outsize, wn, st)
}

//export cptgo_cipher_free
func cptgo_cipher_free(alg C.int, state unsafe.Pointer) {
	defer func() { recover() }()
	if c, env, e := cipherOf(alg, nil, nil); e == nil {
		c.Free(env, state)
	}
}

// keyTypeOf finds the key type and the process environment for a call.
func keyTypeOf(kt C.int) (dispatch.KeyType, *dispatch.Env, *dispatch.Error) {
	k := dispatch.KeyTypeByID(int(kt))
	if k == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("unknown key type %d", kt)}
	}
	p := proc
	if p == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: "device not started"}
	}
	return k, p.env, nil
}

//export cptgo_key_import
func cptgo_key_import(kt C.int, state unsafe.Pointer, selection C.int, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.Import(env, state, int(selection), dispatch.ParamsAt(params)))
}

// paramName returns name in static C storage (see cpt_intern).
func paramName(name string) *C.char {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	p := C.cpt_intern(cs)
	if p == nil {
		panic("too many exported parameter names")
	}
	return (*C.char)(unsafe.Pointer(p))
}

// cptgo_key_export hands the key's parameters to OpenSSL's callback, in an
// OSSL_PARAM array built in C memory (C must not keep Go pointers) and wiped
// afterwards: it may hold a private key.
//
//export cptgo_key_export
func cptgo_key_export(kt C.int, state unsafe.Pointer, selection C.int, cb, cbarg unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	params, e := k.Export(env, state, int(selection))
	if e != nil {
		return result(st, e)
	}
	size := (len(params) + 1) * int(C.sizeof_OSSL_PARAM)
	for _, p := range params {
		size += len(p.Data) + 1 // strings keep a NUL after them
	}
	mem := C.calloc(1, C.size_t(size))
	if mem == nil {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: "out of memory"})
	}
	defer func() {
		C.OPENSSL_cleanse_wrapper(mem, C.size_t(size))
		C.free(mem)
	}()
	buf := unsafe.Slice((*byte)(mem), size)
	arr := unsafe.Slice((*C.OSSL_PARAM)(mem), len(params)+1)
	off := (len(params) + 1) * int(C.sizeof_OSSL_PARAM)
	for i, p := range params {
		data := buf[off : off+len(p.Data)]
		copy(data, p.Data)
		if p.Type == dispatch.TypeUnsigned || p.Type == dispatch.TypeInteger {
			// Big-endian from Go, native (little-endian) order for OpenSSL.
			for a, b := 0, len(data)-1; a < b; a, b = a+1, b-1 {
				data[a], data[b] = data[b], data[a]
			}
		}
		off += len(data) + 1
		arr[i].key = paramName(p.Name)
		arr[i].data_type = C.uint(p.Type)
		if len(data) > 0 {
			arr[i].data = unsafe.Pointer(&data[0])
		}
		arr[i].data_size = C.size_t(len(data))
		arr[i].return_size = ^C.size_t(0)
	}
	if C.cpt_call_export_cb(cb, &arr[0], cbarg) == 0 {
		return C.CPT_ERR // the callback has raised its own error
	}
	return C.CPT_OK
}

//export cptgo_key_get_params
func cptgo_key_get_params(kt C.int, state, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.GetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_key_set_params
func cptgo_key_set_params(kt C.int, state, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.SetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_key_match
func cptgo_key_match(kt C.int, a, b unsafe.Pointer, selection C.int) (rc C.int) {
	defer guard(nil, &rc)
	if k, _, e := keyTypeOf(kt); e == nil && k.Match(a, b, int(selection)) {
		return 1
	}
	return 0
}

//export cptgo_key_validate
func cptgo_key_validate(kt C.int, state unsafe.Pointer, selection C.int, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.Validate(env, state, int(selection)))
}

//export cptgo_keygen_set_params
func cptgo_keygen_set_params(kt C.int, gen, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.GenSetParams(env, gen, dispatch.ParamsAt(params)))
}

//export cptgo_keygen
func cptgo_keygen(kt C.int, gen, state unsafe.Pointer, selection C.int, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("keygen")
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	async, e := k.Generate(env, gen, state, int(selection), waiterOf(wn))
	return pendingResult(nil, 0, async, st, e)
}

//export cptgo_keygen_set_template
func cptgo_keygen_set_template(kt C.int, gen, template unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	k, _, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	return result(st, k.GenSetTemplate(gen, template))
}

//export cptgo_derive
func cptgo_derive(kt C.int, key, peer, scratch, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("derive")
	k, env, e := keyTypeOf(kt)
	if e != nil {
		return result(st, e)
	}
	n, async, e := k.Derive(env, key, peer, scratch, out, int(outsize), waiterOf(wn))
	return pendingResult(outl, n, async, st, e)
}

// signatureOf finds the signature scheme and the process environment.
func signatureOf(alg C.int) (dispatch.Signature, *dispatch.Env, *dispatch.Error) {
	s := dispatch.SignatureByID(int(alg))
	if s == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("unknown signature %d", alg)}
	}
	p := proc
	if p == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: "device not started"}
	}
	return s, p.env, nil
}

//export cptgo_sig_init
func cptgo_sig_init(alg C.int, state, key unsafe.Pointer, op, stream C.int, mdname *C.char, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	md := ""
	if mdname != nil {
		md = C.GoString(mdname)
	}
	return result(st, s.Init(env, state, key, int(op), stream != 0, md, dispatch.ParamsAt(params)))
}

//export cptgo_sig_set_params
func cptgo_sig_set_params(alg C.int, state, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	return result(st, s.SetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_sig_get_params
func cptgo_sig_get_params(alg C.int, state, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	return result(st, s.GetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_sig_update
func cptgo_sig_update(alg C.int, state, data unsafe.Pointer, n C.size_t, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	return result(st, s.Update(env, state, goBytes(data, n)))
}

//export cptgo_sig_sign
func cptgo_sig_sign(alg C.int, state, key, scratch, sig unsafe.Pointer, siglen *C.size_t, sigsize C.size_t, tbs unsafe.Pointer, tbslen C.size_t, final C.int, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("sign")
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	var n int
	var async bool
	if final != 0 {
		n, async, e = s.SignFinal(env, state, key, scratch, sig, int(sigsize), waiterOf(wn))
	} else {
		n, async, e = s.Sign(env, state, key, scratch, sig, int(sigsize), goBytes(tbs, tbslen), waiterOf(wn))
	}
	return pendingResult(siglen, n, async, st, e)
}

//export cptgo_sig_verify
func cptgo_sig_verify(alg C.int, state, key, scratch, sig unsafe.Pointer, siglen C.size_t, tbs unsafe.Pointer, tbslen C.size_t, final C.int, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	var async bool
	if final != 0 {
		async, e = s.VerifyFinal(env, state, key, scratch, goBytes(sig, siglen), waiterOf(wn))
	} else {
		async, e = s.Verify(env, state, key, scratch, goBytes(sig, siglen), goBytes(tbs, tbslen), waiterOf(wn))
	}
	return pendingResult(nil, 0, async, st, e)
}

//export cptgo_asym_init
func cptgo_asym_init(alg C.int, state, key unsafe.Pointer, op C.int, params unsafe.Pointer, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	a, env, e := asymOf(alg)
	if e != nil {
		return result(st, e)
	}
	return result(st, a.Init(env, state, key, int(op), dispatch.ParamsAt(params)))
}

//export cptgo_asym_params
func cptgo_asym_params(alg C.int, state, params unsafe.Pointer, set C.int, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	a, env, e := asymOf(alg)
	if e != nil {
		return result(st, e)
	}
	if set != 0 {
		return result(st, a.SetParams(env, state, dispatch.ParamsAt(params)))
	}
	return result(st, a.GetParams(env, state, dispatch.ParamsAt(params)))
}

//export cptgo_asym_crypt
func cptgo_asym_crypt(alg C.int, state, key, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, in unsafe.Pointer, inl C.size_t, decrypt C.int, label unsafe.Pointer, labell C.size_t, wn *C.struct_cpt_notifier, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	maybePanic("crypt")
	a, env, e := asymOf(alg)
	if e != nil {
		return result(st, e)
	}
	var n int
	var async bool
	if decrypt != 0 {
		n, async, e = a.Decrypt(env, state, key, out, int(outsize), goBytes(in, inl), goBytes(label, labell), waiterOf(wn))
	} else {
		n, async, e = a.Encrypt(env, state, key, out, int(outsize), goBytes(in, inl), goBytes(label, labell), waiterOf(wn))
	}
	return pendingResult(outl, n, async, st, e)
}

func asymOf(alg C.int) (dispatch.AsymCipher, *dispatch.Env, *dispatch.Error) {
	a := dispatch.AsymCipherByID(int(alg))
	if a == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonInternal, Msg: fmt.Sprintf("unknown asymmetric cipher %d", alg)}
	}
	p := proc
	if p == nil {
		return nil, nil, &dispatch.Error{Reason: dispatch.ReasonDeviceUnavailable, Msg: "device not started"}
	}
	return a, p.env, nil
}

//export cptgo_sig_verify_recover
func cptgo_sig_verify_recover(alg C.int, state, key, out unsafe.Pointer, outl *C.size_t, outsize C.size_t, sig unsafe.Pointer, siglen C.size_t, st *C.struct_cpt_status) (rc C.int) {
	defer guard(st, &rc)
	s, env, e := signatureOf(alg)
	if e != nil {
		return result(st, e)
	}
	r, ok := s.(dispatch.Recoverer)
	if !ok {
		return result(st, &dispatch.Error{Reason: dispatch.ReasonBadParameter, Msg: s.Name() + " signatures carry no data to recover"})
	}
	var dst []byte
	if out != nil {
		dst = goBytes(out, outsize)
		if dst == nil {
			dst = []byte{}
		}
	}
	n, e := r.VerifyRecover(env, state, key, goBytes(sig, siglen), dst)
	return pendingResult(outl, n, false, st, e)
}
