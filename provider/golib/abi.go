// SPDX-License-Identifier: Apache-2.0

// Compile-time agreement of the numbers and layouts the C side shares with
// the Go packages: each line fails the build when its two sides differ.

package main

/*
#include <openssl/core.h>
#include "cptabi.h"
*/
import "C"

import (
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/dispatch"
	"cptprov/stats"
)

// The numbers shared with the C side must agree. The algorithm ids and
// the reasons need no line each: Go's copies are generated from the lists
// the C side includes (dispatch/*_gen.go, which dispatch's tests check are
// up to date).
var _ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_stream_state{})-unsafe.Sizeof(dispatch.StreamState{})]
var _ = [1]struct{}{}[C.CPT_MD_SHA512_256-C.int(cptdrv.HashSHA512256)]
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
var _ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_x25519_key{})-dispatch.X25519KeySize]
var _ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_x25519_key{}.pub)-dispatch.X25519PubOffset]
var _ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_x25519_key{}.priv)-dispatch.X25519PrivOffset]
var _ = [1]struct{}{}[C.CPT_KEY_HAS_PUBLIC-C.int(dispatch.KeyHasPublic)]
var _ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_ec_key{})-dispatch.ECKeySize]
var _ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_ec_key{}.group)-dispatch.ECGroupOffset]
var _ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_ec_group{})-dispatch.ECGroupSize]
var _ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_ec_key{}.pub)-dispatch.ECPubOffset]
var _ = [1]struct{}{}[unsafe.Sizeof(C.struct_cpt_ec_gen{})-dispatch.ECGenSize]
var _ = [1]struct{}{}[C.CPT_KEY_HAS_PRIVATE-C.int(dispatch.KeyHasPrivate)]
var _ = [1]struct{}{}[C.CPT_EXCH_SCRATCH_SIZE-dispatch.ScratchSize]
var _ = [1]struct{}{}[unsafe.Offsetof(C.struct_cpt_aead_shadow{}.run_tag)-unsafe.Offsetof(dispatch.AEADShadow{}.RunTag)]

// A library built from a stale copy of the reasons does not build: Go's
// copy has as many as the C side's list, of the same sum, and the flags of
// OpenSSL's common reasons come out as C applies them.
var (
	_ = [1]struct{}{}[C.CPT_R_COUNT-dispatch.NumReasons]
	_ = [1]struct{}{}[C.CPT_R_SUM-dispatch.ReasonSum]
	_ = [1]struct{}{}[C.CPT_R_INTERNAL-C.int(dispatch.ReasonInternal)]
	_ = [1]struct{}{}[C.CPT_R_UNSUPPORTED-C.int(dispatch.ReasonUnsupported)]
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

// OSSL_PARAM, which dispatch.Param copies, is checked field by field at
// start (cabi.CheckParam); its size here.
var _ = [1]struct{}{}[C.sizeof_OSSL_PARAM-unsafe.Sizeof(dispatch.Param{})]
