// SPDX-License-Identifier: Apache-2.0

//go:build amd64 && !purego

package aesni

import "golang.org/x/sys/cpu"

// Available reports whether the CPU has AES-NI and AVX (for the VEX
// encodings, whose memory operands need no alignment).
var Available = cpu.X86.HasAES && cpu.X86.HasAVX

// haveVAES reports VAES on 256-bit registers (the CPUID bit x/sys/cpu
// files under AVX-512, though its VEX forms need AVX2 only).
var haveVAES = cpu.X86.HasAVX512VAES && cpu.X86.HasAVX2

//go:noescape
func subWord(w uint32) uint32

//go:noescape
func invMixColumns(dst, src *[16]byte)

//go:noescape
func cbcEncrypt(rk *byte, rounds int, iv *[16]byte, dst, src *byte, n int)

//go:noescape
func cbcDecrypt(rk *byte, rounds int, iv *[16]byte, dst, src *byte, n int)

//go:noescape
func ctrXOR(rk *byte, rounds int, ctr *[16]byte, dst, src *byte, n int)

//go:noescape
func ctrXORWide(rk2 *byte, rounds int, ctr *[16]byte, dst, src *byte, n int) int
