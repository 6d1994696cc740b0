// SPDX-License-Identifier: Apache-2.0

package dispatch

import "fmt"

// Reason is an OpenSSL reason code of cptprov. The C side raises it through
// the core's error upcalls with the message. The numbers, and the strings
// OpenSSL prints for them, are provider/reasons.def's list (OpenSSL's own
// numbers where the default provider has a reason for the condition),
// copied to constants in reasons_gen.go.
type Reason int

//go:generate go run ../internal/algdef/gen -reasons ../provider/reasons.def -o reasons_gen.go

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
