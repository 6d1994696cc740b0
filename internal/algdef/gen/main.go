// SPDX-License-Identifier: Apache-2.0

// Command gen writes dispatch/algorithms_gen.go from provider/algorithms.def
// (go generate ./dispatch, and make, run it).
package main

import (
	"flag"
	"fmt"
	"os"

	"cptprov/internal/algdef"
)

func main() {
	def := flag.String("def", "../provider/algorithms.def", "the list")
	out := flag.String("o", "algorithms_gen.go", "the Go file to write")
	flag.Parse()
	l, err := algdef.ParseFile(*def)
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
