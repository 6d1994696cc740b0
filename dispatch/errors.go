// SPDX-License-Identifier: Apache-2.0

package dispatch

import "fmt"

// Reason is an OpenSSL reason code of cptprov. The C side raises it through
// the core's error upcalls with the message. The numbers and the strings
// OpenSSL prints for them are provider/cptabi.h's CPT_REASONS list (OpenSSL's
// own numbers where the default provider has a reason for the condition);
// the Go library checks each number against it at build time.
type Reason int

const (
	ReasonBadDecrypt                          Reason = 100
	ReasonOperationFailed                     Reason = 102
	ReasonInvalidKeyLength                    Reason = 105
	ReasonOutputTooSmall                      Reason = 106
	ReasonWrongFinalBlockLength               Reason = 107
	ReasonInvalidAAD                          Reason = 108
	ReasonInvalidIVLength                     Reason = 109
	ReasonInvalidTag                          Reason = 110
	ReasonInvalidSaltLength                   Reason = 112
	ReasonMissingKey                          Reason = 114
	ReasonInvalidDigest                       Reason = 122
	ReasonTooManyRecords                      Reason = 126
	ReasonNotSupported                        Reason = 136
	ReasonBadLength                           Reason = 142
	ReasonInvalidKey                          Reason = 158
	ReasonBadTLSClientVersion                 Reason = 161
	ReasonFailedToDecrypt                     Reason = 162
	ReasonIllegalOrUnsupportedPaddingMode     Reason = 165
	ReasonInvalidDigestLength                 Reason = 166
	ReasonInvalidMGF1MD                       Reason = 167
	ReasonInvalidPaddingMode                  Reason = 168
	ReasonKeySizeTooSmall                     Reason = 171
	ReasonPSSSaltlenTooSmall                  Reason = 172
	ReasonDigestNotAllowed                    Reason = 174
	ReasonOperationNotSupportedForThisKeytype Reason = 178
	ReasonInvalidSignatureSize                Reason = 179
	ReasonXOFDigestsNotAllowed                Reason = 183
	ReasonInvalidX931Digest                   Reason = 170
	ReasonNotAPublicKey                       Reason = 220
	ReasonNotAPrivateKey                      Reason = 221
	ReasonInvalidPrivateKey                   Reason = 123 // EC_R_
	ReasonMissingPrivateKey                   Reason = 125 // EC_R_
	ReasonFailedToSetParameter                Reason = 104
	ReasonOAEPDecodingError                   Reason = 121         // RSA_R_
	ReasonDataTooLargeForModulus              Reason = 132         // RSA_R_
	ReasonUnknownPaddingType                  Reason = 118         // RSA_R_
	ReasonPKCSDecodingError                   Reason = 159         // RSA_R_
	ReasonUnsupported                         Reason = 268 | 2<<18 // ERR_R_UNSUPPORTED
	ReasonInternal                            Reason = 259 | 3<<18 // ERR_R_INTERNAL_ERROR
	ReasonMissingIV                           Reason = 1000
	ReasonBadParameter                        Reason = 1001
	ReasonDeviceError                         Reason = 1002
	ReasonDeviceUnavailable                   Reason = 1003
	ReasonWrongState                          Reason = 1004
	ReasonQueueFull                           Reason = 1005
	ReasonAuthFailed                          Reason = 1006
	ReasonTimeout                             Reason = 1007
	ReasonVerifyFailed                        Reason = 1008
	ReasonDataTooLargeForKeySize              Reason = 1010 // RSA_R_'s 110 is ReasonInvalidTag here
	ReasonDataTooSmallForKeySize              Reason = 1011 // RSA_R_'s 122 is ReasonInvalidDigest
	ReasonDataGreaterThanModLen               Reason = 1012 // RSA_R_'s 108 is ReasonInvalidAAD
	ReasonDigestTooBigForRSAKey               Reason = 1013 // RSA_R_'s 112 is ReasonInvalidSaltLength
	ReasonPointIsNotOnCurve                   Reason = 1014 // EC_R_'s 107 is ReasonWrongFinalBlockLength
	ReasonPointAtInfinity                     Reason = 1015 // EC_R_'s 106 is ReasonOutputTooSmall
	ReasonBadEValue                           Reason = 101  // RSA_R_
	ReasonDENotCongruentTo1                   Reason = 1019 // RSA_R_'s 123 is ReasonInvalidPrivateKey here
	ReasonDMP1NotCongruentToD                 Reason = 124  // RSA_R_
	ReasonDMQ1NotCongruentToD                 Reason = 1020 // RSA_R_'s 125 is ReasonMissingPrivateKey here
	ReasonNDoesNotEqualPQ                     Reason = 127  // RSA_R_
	ReasonPNotPrime                           Reason = 128  // RSA_R_
	ReasonQNotPrime                           Reason = 129  // RSA_R_
	ReasonValueMissing                        Reason = 147  // RSA_R_
	ReasonWrongSignatureLength                Reason = 119  // RSA_R_
	ReasonPubExponentOutOfRange               Reason = 1016 // RSA_R_'s 178 is taken here
	ReasonIQMPNotInverseOfQ                   Reason = 1017 // RSA_R_'s 126 is taken here
	ReasonInvalidModulus                      Reason = 1018 // RSA_R_'s 174 is taken here
	ReasonInvalidLength                       Reason = 181  // RSA_R_
	// ReasonParamOfIncompatibleType: what OpenSSL 3.5's OSSL_PARAM_get_*
	// raise for a parameter of another type (3.0's raise nothing).
	ReasonParamOfIncompatibleType Reason = 1021 // CRYPTO_R_'s 129 is ReasonQNotPrime here
)

// Error is an operation failure with the reason OpenSSL will show. Next,
// when set, is a further error raised after it: OpenSSL's key checks raise
// one per rule a key breaks, and cptprov's raise the same list.
type Error struct {
	Reason Reason
	Msg    string
	Next   *Error
}

func (e *Error) Error() string { return e.Msg }

func errorf(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Msg: fmt.Sprintf(format, args...)}
}
