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

// OSSL_PARAM, which dispatch.Param copies, is checked field by field at
// start (cabi.CheckParam); its size here.
var _ = [1]struct{}{}[C.sizeof_OSSL_PARAM-unsafe.Sizeof(dispatch.Param{})]
