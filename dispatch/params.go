// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"math"
	"unsafe"
)

// Param mirrors OpenSSL's OSSL_PARAM (include/openssl/core.h): the arrays
// the core hands to get/set functions are read and written in place.
type Param struct {
	Key        *byte
	DataType   uint32
	_          uint32
	Data       unsafe.Pointer
	DataSize   uintptr
	ReturnSize uintptr
}

// OSSL_PARAM data types.
const (
	TypeInteger  uint32 = 1
	TypeUnsigned uint32 = 2
	TypeReal     uint32 = 3
	TypeUTF8     uint32 = 4
	TypeOctet    uint32 = 5
	TypeUTF8Ptr  uint32 = 6
	TypeOctetPtr uint32 = 7
)

// Params is an OSSL_PARAM array terminated by an entry with a nil key.
type Params struct{ p *Param }

// ParamsAt wraps the array at p (which may be nil: no params).
func ParamsAt(p unsafe.Pointer) Params { return Params{(*Param)(p)} }

// Each calls f for every entry until f returns false.
func (ps Params) Each(f func(name string, p *Param) bool) {
	if ps.p == nil {
		return
	}
	for p := ps.p; p.Key != nil; p = (*Param)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(Param{}))) {
		if !f(cstring(p.Key), p) {
			return
		}
	}
}

// ParamLists calls f, until it returns an error, with each array of a list
// of arrays (each ended as usual) that ends with an empty one: settings
// the C side kept, to apply one by one.
func ParamLists(p unsafe.Pointer, f func(Params) *Error) *Error {
	next := func(q *Param) *Param { return (*Param)(unsafe.Add(unsafe.Pointer(q), unsafe.Sizeof(Param{}))) }
	for q := (*Param)(p); q != nil && q.Key != nil; q = next(q) {
		if err := f(Params{q}); err != nil {
			return err
		}
		for q.Key != nil {
			q = next(q)
		}
	}
	return nil
}

// Walk calls f for each entry in order until f returns an error, which it
// returns.
func (ps Params) Walk(f func(name string, p *Param) *Error) *Error {
	var err *Error
	ps.Each(func(name string, p *Param) bool {
		err = f(name, p)
		return err == nil
	})
	return err
}

// Locate returns the first entry named name, or nil.
func (ps Params) Locate(name string) *Param {
	var found *Param
	ps.Each(func(n string, p *Param) bool {
		if n == name {
			found = p
			return false
		}
		return true
	})
	return found
}

func cstring(p *byte) string {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return unsafe.String(p, n)
}

// bytes is the parameter's buffer.
func (p *Param) bytes() []byte {
	if p.Data == nil || p.DataSize == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p.Data), p.DataSize)
}

// Octets returns the value of an OCTET_STRING parameter (the caller's
// memory: copy what must outlive the call).
func (p *Param) Octets() ([]byte, bool) {
	if p.DataType != TypeOctet || (p.Data == nil && p.DataSize != 0) {
		return nil, false
	}
	return p.bytes(), true
}

// Uint64 reads an INTEGER or UNSIGNED_INTEGER parameter as a non-negative
// value, as OSSL_PARAM_get_uint64 and OSSL_PARAM_get_size_t do.
func (p *Param) Uint64() (uint64, bool) {
	if p.Data == nil {
		return 0, false
	}
	b := p.bytes()
	switch p.DataType {
	case TypeUnsigned:
		switch len(b) {
		case 1:
			return uint64(b[0]), true
		case 2:
			return uint64(*(*uint16)(p.Data)), true
		case 4:
			return uint64(*(*uint32)(p.Data)), true
		case 8:
			return *(*uint64)(p.Data), true
		}
	case TypeInteger:
		if v, ok := p.signed(); ok && v >= 0 {
			return uint64(v), true
		}
	}
	return 0, false
}

// signed reads an INTEGER parameter of any width.
func (p *Param) signed() (int64, bool) {
	switch p.DataSize {
	case 1:
		return int64(*(*int8)(p.Data)), true
	case 2:
		return int64(*(*int16)(p.Data)), true
	case 4:
		return int64(*(*int32)(p.Data)), true
	case 8:
		return *(*int64)(p.Data), true
	}
	return 0, false
}

// Int32 reads an INTEGER parameter that fits an int, as OSSL_PARAM_get_int
// does of one.
func (p *Param) Int32() (int32, bool) {
	if p.Data == nil || p.DataType != TypeInteger {
		return 0, false
	}
	v, ok := p.signed()
	if !ok {
		return 0, false
	}
	if v != int64(int32(v)) {
		return 0, false
	}
	return int32(v), true
}

// SetUint64 writes an integer parameter of any width that holds v, as
// OSSL_PARAM_set_size_t does; with no buffer it only reports the size.
func (p *Param) SetUint64(v uint64) bool {
	if p.DataType != TypeInteger && p.DataType != TypeUnsigned {
		return false
	}
	if p.Data == nil {
		p.ReturnSize = 8
		return true
	}
	signed := p.DataType == TypeInteger
	switch p.DataSize {
	case 4:
		if (signed && v > math.MaxInt32) || v > math.MaxUint32 {
			return false
		}
		*(*uint32)(p.Data) = uint32(v)
	case 8:
		if signed && v > math.MaxInt64 {
			return false
		}
		*(*uint64)(p.Data) = v
	case 2:
		if (signed && v > math.MaxInt16) || v > math.MaxUint16 {
			return false
		}
		*(*uint16)(p.Data) = uint16(v)
	case 1:
		if (signed && v > math.MaxInt8) || v > math.MaxUint8 {
			return false
		}
		*(*uint8)(p.Data) = uint8(v)
	default:
		return false
	}
	p.ReturnSize = p.DataSize
	return true
}

// SetOctets writes an OCTET_STRING parameter (or, for an OCTET_PTR one,
// points it at v, which must then stay valid: callers pass context memory).
func (p *Param) SetOctets(v []byte) bool {
	switch p.DataType {
	case TypeOctet:
		p.ReturnSize = uintptr(len(v))
		if p.Data == nil {
			return true
		}
		if p.DataSize < uintptr(len(v)) {
			return false
		}
		copy(p.bytes(), v)
		return true
	case TypeOctetPtr:
		if p.Data == nil {
			return false
		}
		var ptr unsafe.Pointer
		if len(v) > 0 {
			ptr = unsafe.Pointer(&v[0])
		}
		*(*unsafe.Pointer)(p.Data) = ptr
		p.ReturnSize = uintptr(len(v))
		return true
	}
	return false
}

// paramTypeReason is the reason for a parameter that could not be read:
// ReasonParamOfIncompatibleType when its type is none of types (as OpenSSL
// 3.5's OSSL_PARAM_get_* say), else ReasonBadParameter.
func paramTypeReason(p *Param, types ...uint32) Reason {
	for _, t := range types {
		if p.DataType == t {
			return ReasonBadParameter
		}
	}
	return ReasonParamOfIncompatibleType
}

// UTF8 returns the value of a UTF8_STRING parameter (without the NUL that
// some callers count in the size).
func (p *Param) UTF8() (string, bool) {
	if p.DataType != TypeUTF8 || p.Data == nil {
		return "", false
	}
	b := p.bytes()
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return string(b), true
}

// BigEndian returns an UNSIGNED_INTEGER parameter of any size (OpenSSL's
// BIGNUMs travel in native byte order) as big-endian bytes.
func (p *Param) BigEndian() ([]byte, bool) {
	if p.DataType != TypeUnsigned || p.Data == nil {
		return nil, false
	}
	b := append([]byte(nil), p.bytes()...)
	if nativeLittleEndian {
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
	}
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b, true
}

// SetUTF8 writes a UTF8_STRING parameter (NUL-terminated when there is room,
// as OSSL_PARAM_set_utf8_string does).
func (p *Param) SetUTF8(v string) bool {
	if p.DataType != TypeUTF8 {
		return false
	}
	p.ReturnSize = uintptr(len(v))
	if p.Data == nil {
		return true
	}
	if p.DataSize < uintptr(len(v)) {
		return false
	}
	b := p.bytes()
	copy(b, v)
	if uintptr(len(v)) < p.DataSize {
		b[len(v)] = 0
	}
	return true
}

var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
