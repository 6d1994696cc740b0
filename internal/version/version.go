// SPDX-License-Identifier: Apache-2.0

// Package version holds cptprov's version in the Go programs (cptstat,
// cptbench). The Makefile sets it from tools/version.sh with
// -ldflags -X cptprov/internal/version.Version=..., the string the
// provider's C half gets with -D, so that both halves, the package and the
// bench report agree.
package version

// Version is empty in a build that did not go through the Makefile (go run,
// go test).
var Version string

// String is Version, or says why there is none.
func String() string {
	if Version == "" {
		return "unknown (not built by make)"
	}
	return Version
}
