// SPDX-License-Identifier: Apache-2.0

//go:build !amd64 || purego

package fe64

// Available is false: there is no assembly for this platform.
var Available = false

// X25519 is not implemented here; see Available.
func X25519(*[32]byte, []byte) [32]byte { panic("fe64: not available") }
