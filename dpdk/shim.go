// SPDX-License-Identifier: Apache-2.0

package dpdk

/*
#cgo CFLAGS: -I${SRCDIR}/shim
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "shimcalls.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The shim is loaded once per process; a second device in the same
// process (tests) shares it and the EAL.
var (
	shimMu     sync.Mutex
	shimLoaded string // path, once loaded
	ealDone    bool
	ealDevs    int
	ealErr     error
	logSink    atomic.Pointer[func(level int, msg string)]
)

// errInherited is the EAL's refusal to start in a process image whose
// ancestor started it (a forked child): DPDK cannot initialise twice.
var errInherited = errors.New("dpdk: the EAL ran in a parent of this process (fork): DPDK cannot start again in a forked child")

func loadShim(path string) error {
	shimMu.Lock()
	defer shimMu.Unlock()
	if shimLoaded != "" {
		return nil
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.shim_load(cpath); msg != nil {
		return fmt.Errorf("dpdk: loading %s: %s", path, C.GoString(msg))
	}
	shimLoaded = path
	return nil
}

//export cptdpdkGoLog
func cptdpdkGoLog(level C.int, msg *C.char, n C.size_t) {
	defer func() { _ = recover() }() // a log line never takes the host down
	if f := logSink.Load(); f != nil {
		(*f)(int(level), C.GoStringN(msg, C.int(n)))
	}
}

// ealInit starts the EAL once per process with args (args[0]: a program
// name) and returns the number of cryptodevs.
func ealInit(args []string, level int) (int, error) {
	shimMu.Lock()
	defer shimMu.Unlock()
	if ealDone {
		return ealDevs, ealErr
	}
	argv := make([]*C.char, len(args)+1)
	for i, a := range args {
		argv[i] = C.CString(a)
	}
	// The EAL keeps pointers into argv: they live as long as the process.
	cargv := (**C.char)(C.malloc(C.size_t(len(argv)) * C.size_t(unsafe.Sizeof(argv[0]))))
	copy(unsafe.Slice(cargv, len(argv)), argv)
	var errbuf [512]C.char
	n := C.shim_eal_init(C.int(len(args)), cargv, C.int(level), &errbuf[0], C.size_t(len(errbuf)))
	ealDone = true
	switch {
	case n == -2:
		ealErr = errInherited
	case n < 0:
		ealErr = fmt.Errorf("dpdk: rte_eal_init: %s", C.GoString(&errbuf[0]))
	default:
		ealDevs = int(n)
	}
	return ealDevs, ealErr
}

func cerr(buf []C.char) string { return C.GoString(&buf[0]) }
