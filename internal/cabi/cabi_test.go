// SPDX-License-Identifier: Apache-2.0

package cabi

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func TestParamMatchesOpenSSL(t *testing.T) {
	if err := CheckParam(); err != nil {
		t.Fatal(err)
	}
}

func TestKeyHeadMatchesC(t *testing.T) {
	if err := CheckKeyHead(); err != nil {
		t.Fatal(err)
	}
}

// Layouts that differ from OSSL_PARAM the way a careless edit of
// dispatch.Param would are each reported, naming the field.
func TestCompareFindsDifferences(t *testing.T) {
	if err := CheckParam(); err != nil {
		t.Skip(err) // reported by TestParamMatchesOpenSSL
	}
	cases := []struct {
		typ  any
		want string
	}{
		{struct { // a field wider than C's
			Key        *byte
			DataType   uint64
			Data       unsafe.Pointer
			DataSize   uintptr
			ReturnSize uintptr
		}{}, "DataType"},
		{struct { // two fields swapped
			Key        *byte
			DataType   uint32
			_          uint32
			DataSize   uintptr
			Data       unsafe.Pointer
			ReturnSize uintptr
		}{}, "DataSize"},
		{struct { // a field narrower than C's
			Key        *byte
			DataType   uint32
			_          uint32
			Data       unsafe.Pointer
			DataSize   uint32
			_          uint32
			ReturnSize uintptr
		}{}, "DataSize"},
		{struct { // the last field missing
			Key      *byte
			DataType uint32
			_        uint32
			Data     unsafe.Pointer
			DataSize uintptr
		}{}, "no field for"},
		{struct { // a field too many
			Key        *byte
			DataType   uint32
			_          uint32
			Data       unsafe.Pointer
			DataSize   uintptr
			ReturnSize uintptr
			Extra      uintptr
		}{}, "Extra"},
	}
	for i, c := range cases {
		err := Compare(reflect.TypeOf(c.typ), osslParam, "OSSL_PARAM")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: %v, want an error naming %q", i, err, c.want)
		}
	}
}
