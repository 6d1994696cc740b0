// SPDX-License-Identifier: Apache-2.0

// Command gen writes dispatch/algorithms_gen.go from provider/algorithms.def,
// or with -reasons, dispatch/reasons_gen.go from provider/reasons.def
// (go generate ./dispatch, and make, run it).
package main

import (
	"flag"
	"fmt"
	"os"

	"cptprov/internal/algdef"
)

// list is a file algdef reads and writes Go's copy of.
type list interface{ Go() ([]byte, error) }

func main() {
	def := flag.String("def", "../provider/algorithms.def", "the list of algorithms")
	reasons := flag.String("reasons", "", "the list of reasons, read instead of -def")
	out := flag.String("o", "algorithms_gen.go", "the Go file to write")
	flag.Parse()
	var l list
	var err error
	if *reasons != "" {
		l, err = algdef.ParseReasonsFile(*reasons)
	} else {
		l, err = algdef.ParseFile(*def)
	}
	if err == nil {
		var src []byte
		if src, err = l.Go(); err == nil {
			err = os.WriteFile(*out, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "algdef:", err)
		os.Exit(1)
	}
}
