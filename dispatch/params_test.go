// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"testing"
	"unsafe"
)

// paramList builds an OSSL_PARAM array in Go memory; the returned keep-alive
// slice holds the key strings.
type paramList struct {
	ps   []Param
	keys [][]byte
}

func (l *paramList) add(key string, typ uint32, data unsafe.Pointer, size uintptr) *Param {
	k := append([]byte(key), 0)
	l.keys = append(l.keys, k)
	l.ps = append(l.ps, Param{Key: &k[0], DataType: typ, Data: data, DataSize: size, ReturnSize: ^uintptr(0)})
	return &l.ps[len(l.ps)-1]
}

func (l *paramList) params() Params {
	l.ps = append(l.ps, Param{})
	return ParamsAt(unsafe.Pointer(&l.ps[0]))
}

func TestParamIntegers(t *testing.T) {
	var u32 uint32 = 7
	var i64 int64 = -1
	var i8 int8 = 100
	var l paramList
	l.add("a", TypeUnsigned, unsafe.Pointer(&u32), 4)
	l.add("b", TypeInteger, unsafe.Pointer(&i64), 8)
	l.add("c", TypeInteger, unsafe.Pointer(&i8), 1)
	l.add("d", TypeUTF8, unsafe.Pointer(&u32), 4)
	ps := l.params()
	if v, ok := ps.Locate("a").Uint64(); !ok || v != 7 {
		t.Fatalf("a = %d %v", v, ok)
	}
	if _, ok := ps.Locate("b").Uint64(); ok {
		t.Fatal("negative integer accepted as unsigned")
	}
	if v, ok := ps.Locate("c").Uint64(); !ok || v != 100 {
		t.Fatalf("c = %d %v", v, ok)
	}
	if _, ok := ps.Locate("d").Uint64(); ok {
		t.Fatal("UTF8 string accepted as integer")
	}
	if ps.Locate("zz") != nil {
		t.Fatal("found a missing key")
	}
	// Set: range checks per width and signedness.
	if !ps.Locate("a").SetUint64(1<<32-1) || u32 != 1<<32-1 {
		t.Fatal("set uint32 max")
	}
	if ps.Locate("a").SetUint64(1 << 32) {
		t.Fatal("uint32 overflow accepted")
	}
	if ps.Locate("c").SetUint64(200) {
		t.Fatal("int8 overflow accepted")
	}
	if !ps.Locate("b").SetUint64(12) || i64 != 12 || ps.Locate("b").ReturnSize != 8 {
		t.Fatal("set int64")
	}
	if ps.Locate("d").SetUint64(1) {
		t.Fatal("integer written into a string parameter")
	}
}

func TestParamOctets(t *testing.T) {
	buf := make([]byte, 4)
	var ptr unsafe.Pointer
	var l paramList
	l.add("s", TypeOctet, unsafe.Pointer(&buf[0]), 4)
	l.add("p", TypeOctetPtr, unsafe.Pointer(&ptr), 8)
	l.add("n", TypeOctet, nil, 0)
	ps := l.params()
	if !ps.Locate("s").SetOctets([]byte{1, 2, 3}) || buf[2] != 3 || ps.Locate("s").ReturnSize != 3 {
		t.Fatal("set octets")
	}
	if ps.Locate("s").SetOctets(make([]byte, 5)) {
		t.Fatal("5 bytes into a 4-byte buffer")
	}
	src := []byte{9, 8}
	if !ps.Locate("p").SetOctets(src) || ptr != unsafe.Pointer(&src[0]) {
		t.Fatal("set octet ptr")
	}
	if !ps.Locate("n").SetOctets(src) || ps.Locate("n").ReturnSize != 2 {
		t.Fatal("size query on a NULL buffer")
	}
	v, ok := ps.Locate("s").Octets()
	if !ok || len(v) != 4 {
		t.Fatal("read octets")
	}
	if _, ok := ps.Locate("p").Octets(); ok {
		t.Fatal("octet ptr read as octet string")
	}
}
