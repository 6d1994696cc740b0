//go:build amd64 && !purego

package aesni

import "golang.org/x/sys/cpu"

// Available reports whether the CPU has AES-NI and AVX (for the VEX
// encodings, whose memory operands need no alignment).
var Available = cpu.X86.HasAES && cpu.X86.HasAVX

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
