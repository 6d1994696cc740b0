// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"os"
	"testing"

	"cptprov/internal/algdef"
)

// The committed copy of the reasons is what the list generates today.
func TestReasonsGenUpToDate(t *testing.T) {
	rs, err := algdef.ParseReasonsFile("../provider/reasons.def")
	if err != nil {
		t.Fatal(err)
	}
	want, err := rs.Go()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("reasons_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("dispatch/reasons_gen.go is out of date with provider/reasons.def: run go generate ./dispatch (or make)")
	}
}
