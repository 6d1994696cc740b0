package dispatch

import "fmt"

// Reason is an OpenSSL reason code of cptprov. The C side raises it through
// the core's error upcalls with the message; the numbers are part of the ABI
// with provider/cptabi.h (checked by the Go library at build time).
type Reason int

const (
	ReasonInvalidKeyLength Reason = 1 + iota
	ReasonInvalidIVLength
	ReasonMissingKey
	ReasonMissingIV
	ReasonInvalidTag
	ReasonOutputTooSmall
	ReasonBadParameter
	ReasonInvalidAAD
	ReasonOperationFailed
	ReasonDeviceError
	ReasonDeviceUnavailable
	ReasonInternal
	ReasonWrongState
	ReasonQueueFull
	ReasonAuthFailed
	ReasonTooManyRecords
	ReasonTimeout
	ReasonInvalidKey
	ReasonVerifyFailed
	ReasonWrongFinalBlockLength
	ReasonBadDecrypt
)

// Error is an operation failure with the reason OpenSSL will show.
type Error struct {
	Reason Reason
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

func errorf(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Msg: fmt.Sprintf(format, args...)}
}
