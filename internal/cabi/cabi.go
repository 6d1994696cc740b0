// SPDX-License-Identifier: Apache-2.0

// Package cabi checks that the Go copies of C layouts and lists agree with
// C, where the compiler cannot: dispatch reads and writes OpenSSL's
// OSSL_PARAM arrays in place through dispatch.Param, a Go struct written to
// the same layout, without cgo; the C side reads and frees keys by the head
// of their state (dispatch.KeyHead); and the C side accepts the backends of
// cptabi.h's CPT_BACKENDS at activation, which the Go side must have.
package cabi

/*
#cgo CFLAGS: -I${SRCDIR}/../../provider
#include <openssl/core.h>
#include "cptabi.h"

static const char *const cpt_backends[] = CPT_BACKENDS;
static const char *cpt_backend(int i)
{
    return i >= 0 && i < (int)(sizeof(cpt_backends) / sizeof(cpt_backends[0])) ? cpt_backends[i] : NULL;
}
*/
import "C"

import (
	"fmt"
	"reflect"

	"cptprov/dispatch"
)

// CheckParam reports how dispatch.Param differs from the OSSL_PARAM of the
// OpenSSL headers the Go half is built against; nil when it does not.
func CheckParam() error {
	return Compare(reflect.TypeOf(dispatch.Param{}), osslParam, "OSSL_PARAM")
}

var osslParam = reflect.TypeOf(C.OSSL_PARAM{})

// CheckKeyHead reports how dispatch.KeyHead differs from struct
// cpt_key_head, which the C side reads and frees keys by; nil when it does
// not.
func CheckKeyHead() error {
	return Compare(reflect.TypeOf(dispatch.KeyHead{}), reflect.TypeOf(C.struct_cpt_key_head{}), "struct cpt_key_head")
}

// Compare checks that struct goT lays out its fields as C struct cT (called
// cName in errors) does:
// the same size, and, in order, the same offset and size of each named
// field, and pointers where C has pointers (blank Go fields and cgo's
// padding are layout only).
func Compare(goT, cT reflect.Type, cName string) error {
	gf, cf := fields(goT), fields(cT)
	for i := 0; i < len(gf) || i < len(cf); i++ {
		switch {
		case i >= len(gf):
			return fmt.Errorf("%v has no field for %s's %s", goT, cName, cf[i].Name)
		case i >= len(cf):
			return fmt.Errorf("%v's %s has no counterpart in %s", goT, gf[i].Name, cName)
		case gf[i].Offset != cf[i].Offset || gf[i].Type.Size() != cf[i].Type.Size() || isPointer(gf[i].Type) != isPointer(cf[i].Type):
			return fmt.Errorf("%v's %s is a %d-byte %v at offset %d, %s's %s a %d-byte %v at offset %d",
				goT, gf[i].Name, gf[i].Type.Size(), gf[i].Type, gf[i].Offset, cName, cf[i].Name, cf[i].Type.Size(), cf[i].Type, cf[i].Offset)
		}
	}
	if goT.Size() != cT.Size() {
		return fmt.Errorf("%v is %d bytes, %s %d", goT, goT.Size(), cName, cT.Size())
	}
	return nil
}

func fields(t reflect.Type) []reflect.StructField {
	var fs []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Name != "_" {
			fs = append(fs, f)
		}
	}
	return fs
}

func isPointer(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer || t.Kind() == reflect.UnsafePointer
}

// Backends returns the backend names the C side accepts (CPT_BACKENDS), the
// default first.
func Backends() []string {
	var names []string
	for i := 0; C.cpt_backend(C.int(i)) != nil; i++ {
		names = append(names, C.GoString(C.cpt_backend(C.int(i))))
	}
	return names
}
