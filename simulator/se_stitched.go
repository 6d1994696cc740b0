// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/subtle"

	"cptprov/cptdrv"
	"cptprov/internal/tlsrec"
)

// chainedHashes are the HMAC hashes of cptdrv.CipherAESCBCHMAC.
var chainedHashes = map[uint16]*tlsrec.Hash{cptdrv.HashSHA1: tlsrec.SHA1, cptdrv.HashSHA256: tlsrec.SHA256}

// chained executes a cptdrv.CipherAESCBCHMAC instruction: plain AES-CBC,
// or one TLS record sealed (HMAC, padding, then CBC) or opened (CBC, then
// the padding and the HMAC checked in constant time) in one pass of the
// engine, with the CBC state in the context at CPtr and the HMAC key in
// the AuthContext at APtr.
func (d *Device) chained(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	minor := uint8(inst.Op)
	flags := inst.Param2
	if (minor != cptdrv.MinorEnc && minor != cptdrv.MinorDec) ||
		flags&^(cptdrv.FlagTLSRecord|cptdrv.FlagExplicitIV) != 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	ctx := cptdrv.ContextAt(inst.CPtr)
	ctx.TagValid = 0
	if ctx.KeyLen == 0 || ctx.IVLen != 16 {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	n, total := int(inst.DLen), int(inst.RLen)
	if (n > 0 && inst.DPtr == 0) || inst.RPtr == 0 || total < n {
		return cptdrv.CompBadInst, 0, 0
	}
	k, err := d.keys.modes(ctx, cptdrv.CipherAESCBC)
	if err != nil {
		return cptdrv.CompGood, cptdrv.UCBadKey, 0
	}
	iv := ctx.IV[:16]
	enc := minor == cptdrv.MinorEnc
	in := cptdrv.Bytes(inst.DPtr, n)
	if flags&cptdrv.FlagTLSRecord == 0 {
		if n%16 != 0 {
			return cptdrv.CompGood, cptdrv.UCBadLength, 0
		}
		if n == 0 {
			return cptdrv.CompGood, cptdrv.UCSuccess, 0
		}
		out := cptdrv.Bytes(inst.RPtr, n)
		if inexactOverlap(out, in) {
			in = bytes.Clone(in)
		}
		if enc {
			k.CBCEncrypt(iv, out, in)
		} else {
			k.CBCDecrypt(iv, out, in)
		}
		return cptdrv.CompGood, cptdrv.UCSuccess, uint32(n)
	}
	if inst.APtr == 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	a := cptdrv.AuthContextAt(inst.APtr)
	h := chainedHashes[a.Hash]
	if h == nil || a.HdrLen > uint32(len(a.Hdr)) || (!enc && a.HdrLen < 2) {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	ivOff := 0
	if flags&cptdrv.FlagExplicitIV != 0 {
		ivOff = 16
	}
	if enc {
		return seal(k, iv, a, h, in, cptdrv.Bytes(inst.RPtr, total), ivOff)
	}
	return open(k, iv, a, h, in, cptdrv.Bytes(inst.RPtr, n), ivOff)
}

// seal: HMAC over the header and the payload, the MAC and the padding
// after the payload, then CBC over everything (explicit IV included).
func seal(k blockModes, iv []byte, a *cptdrv.AuthContext, h *tlsrec.Hash, in, out []byte, ivOff int) (comp, uc uint8, rlen uint32) {
	n, total := len(in), len(out)
	if n < ivOff || total%16 != 0 || total < n+h.Size+1 || total-n-h.Size > tlsrec.MaxPadCheck {
		return cptdrv.CompGood, cptdrv.UCBadLength, 0
	}
	if n > 0 && overlaps(out, in) && &out[0] != &in[0] {
		in = bytes.Clone(in)
	}
	var mac [32]byte
	h.MAC(mac[:], a.Inner[:], a.Outer[:], a.Hdr[:a.HdrLen], in[ivOff:])
	copy(out, in)
	copy(out[n:], mac[:h.Size])
	pad := byte(total - n - h.Size - 1)
	for i := n + h.Size; i < total; i++ {
		out[i] = pad
	}
	k.CBCEncrypt(iv, out, out)
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(total)
}

// open: CBC, then the padding and the MAC checked with the same work
// whatever the padding says; one verdict for both.
func open(k blockModes, iv []byte, a *cptdrv.AuthContext, h *tlsrec.Hash, in, out []byte, ivOff int) (comp, uc uint8, rlen uint32) {
	n := len(in)
	if n%16 != 0 || n < ivOff+h.Size+1 {
		return cptdrv.CompGood, cptdrv.UCBadLength, 0
	}
	if ivOff > 0 {
		copy(iv, in[:ivOff])
	}
	src, rec := in[ivOff:], out[ivOff:]
	if inexactOverlap(rec, src) {
		src = bytes.Clone(src)
	}
	k.CBCDecrypt(iv, rec, src)
	l, size := len(rec), h.Size
	pad, good := tlsrec.Padding(rec, 1+size)
	// A bad padding still gives a length in range, so that the MAC below
	// is computed over the same blocks.
	pad = tlsrec.Select(good, pad, min(255, l-size-1))
	plen := l - size - 1 - pad
	hdr := a.Hdr[:a.HdrLen]
	hdr[len(hdr)-2], hdr[len(hdr)-1] = byte(plen>>8), byte(plen)
	var want, got [32]byte
	h.MACSecretLen(want[:], a.Inner[:], a.Outer[:], hdr, rec[:l-size-1], plen, max(0, l-size-256))
	tlsrec.ExtractMAC(got[:], rec, plen, size)
	good &= tlsrec.Eq(uint(subtle.ConstantTimeCompare(want[:size], got[:size])), 1)
	if good == 0 {
		clear(rec)
		return cptdrv.CompGood, cptdrv.UCAuthFail, 0
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(plen)
}
