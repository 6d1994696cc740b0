// SPDX-License-Identifier: Apache-2.0

// Package tlsrec is the arithmetic of MAC-then-encrypt TLS CBC records that
// both sides of cptprov need: the driver (dispatch, which opens plain CBC
// records for libssl) and the device's engines (simulator, whose chained
// "decrypt then HMAC" operation verifies a record by itself). Everything a
// secret (the padding length, hence the payload length and where the MAC
// lies) decides is computed with masks: no branch and no memory access
// depends on it, so that a bad padding and a bad MAC take the same work
// (no padding oracle, Lucky 13).
package tlsrec

const bitsUint = 32 << (^uint(0) >> 63)

// MaxMAC is the longest MAC of a TLS CBC suite (EVP_MAX_MD_SIZE).
const MaxMAC = 64

// MaxPadCheck is how many trailing bytes a padding check reads: the most
// padding there can be (255 bytes and the length byte).
const MaxPadCheck = 256

// LT, GE and Eq compare in constant time and return all ones or zero.
func LT(a, b uint) uint { return ((a ^ ((a ^ b) | ((a - b) ^ b))) >> (bitsUint - 1)) * ^uint(0) }

// GE is LT's complement, on ints that are never negative.
func GE(a, b int) uint { return ^LT(uint(a), uint(b)) }

// Eq returns all ones when a == b.
func Eq(a, b uint) uint {
	x := a ^ b
	return ((^x & (x - 1)) >> (bitsUint - 1)) * ^uint(0)
}

// Select returns a where mask is all ones, b where it is zero.
func Select(mask uint, a, b int) int { return int(mask&uint(a) | ^mask&uint(b)) }

// Padding checks the TLS padding at the end of rec, which must also hold
// overhead more bytes (the length byte and the MAC): it returns the padding
// length (the last byte's value) and all ones when the padding is good.
// The most padding there could be is read, whatever the last byte says.
func Padding(rec []byte, overhead int) (pad int, good uint) {
	l := len(rec)
	pad = int(rec[l-1])
	good = GE(l, overhead+pad)
	for i := 0; i < min(MaxPadCheck, l); i++ {
		mask := GE(pad, i)
		good &= ^(mask & uint(pad^int(rec[l-1-i])))
	}
	return pad, Eq(0xff, good&0xff)
}

// ExtractMAC copies into mac (macSize bytes) the macSize bytes of rec that
// start at macStart, a secret position in the last macSize+256 bytes of
// rec: every byte of that window is read, and the rotation that brings the
// MAC to the front is done with masks.
func ExtractMAC(mac, rec []byte, macStart, macSize int) {
	var rotated [MaxMAC]byte
	orig := len(rec)
	macEnd := macStart + macSize
	scanStart := 0
	if orig > macSize+MaxPadCheck {
		scanStart = orig - (macSize + MaxPadCheck)
	}
	var inMAC, rotate uint
	j := 0
	for i := scanStart; i < orig; i++ {
		started := Eq(uint(i), uint(macStart))
		ended := LT(uint(i), uint(macEnd))
		inMAC |= started
		inMAC &= ended
		rotate |= uint(j) & started
		rotated[j] |= rec[i] & byte(inMAC)
		j++
		j &= int(LT(uint(j), uint(macSize)))
	}
	rotate = uint(macSize) - rotate
	rotate &= LT(rotate, uint(macSize))
	clear(mac[:macSize])
	for i := 0; i < macSize; i++ {
		for k := 0; k < macSize; k++ {
			mac[k] |= rotated[i] & byte(Eq(uint(k), rotate))
		}
		rotate++
		rotate &= LT(rotate, uint(macSize))
	}
}
