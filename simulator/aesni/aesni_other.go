// SPDX-License-Identifier: Apache-2.0

//go:build !amd64 || purego

package aesni

// Available is false: there is no assembly for this platform.
var Available = false

func subWord(uint32) uint32 { panic("aesni: not available") }

func invMixColumns(_, _ *[16]byte) { panic("aesni: not available") }

func cbcEncrypt(*byte, int, *[16]byte, *byte, *byte, int) { panic("aesni: not available") }

func cbcDecrypt(*byte, int, *[16]byte, *byte, *byte, int) { panic("aesni: not available") }

func ctrXOR(*byte, int, *[16]byte, *byte, *byte, int) { panic("aesni: not available") }

var haveVAES = false

func ctrXORWide(*byte, int, *[16]byte, *byte, *byte, int) int { panic("aesni: not available") }
