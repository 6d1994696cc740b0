// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/rand"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/internal/tlsrec"
)

// TLS versions as libssl passes them in "tls-version".
const (
	ssl3Version   = 0x0300
	tls1Version   = 0x0301
	dtls1BadVer   = 0x0100
	maxTLSMACSize = tlsrec.MaxMAC // EVP_MAX_MD_SIZE
)

// tlsRecord seals or opens one TLS CBC record in place, as OpenSSL's
// providers do once libssl has set "tls-version" (and "tls-mac-size" for
// MAC-then-encrypt): sealing adds the padding after the record (which
// carries its explicit IV and MAC already); opening removes the explicit IV
// (TLS 1.1 and later, DTLS), the padding and the MAC in constant time and
// keeps the MAC for "tls-mac" (a random one when the padding was bad, so
// that the MAC check fails without telling why). Each update is one record.
func (b blockCipher) tlsRecord(env *Env, c *blockCtx, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	bs := b.block
	switch {
	case !b.padded || in == nil || out != in || outsize < inl || c.noPad:
		return 0, false, errorf(ReasonOperationFailed, "a TLS record must be processed in place with padding on")
	case c.tlsVersion == ssl3Version:
		return 0, false, errorf(ReasonOperationFailed, "SSLv3 records are not supported")
	case c.tlsMacSize > maxTLSMACSize:
		return 0, false, errorf(ReasonOperationFailed, "TLS MAC of %d bytes", c.tlsMacSize)
	}
	n := inl
	rec := unsafe.Slice((*byte)(in), outsize)
	if c.enc {
		pad := bs - inl%bs
		if outsize < inl+pad {
			return 0, false, errorf(ReasonOutputTooSmall, "no room for %d bytes of TLS padding", pad)
		}
		for i := inl; i < inl+pad; i++ {
			rec[i] = byte(pad - 1)
		}
		n += pad
	}
	if n%bs != 0 || n == 0 {
		return 0, false, errorf(ReasonOperationFailed, "TLS record of %d bytes: not whole blocks", n)
	}
	c.tlsMacLen = 0
	inst := b.instruction(c)
	inst.DPtr, inst.DLen = uintptr(in), uint32(n)
	inst.RPtr, inst.RLen = uintptr(in), uint32(n)
	return run(env.SE, b.counters(env), &inst, w, finishFunc(func(cptdrv.Result) (int, *Error) {
		if c.enc {
			return n, nil
		}
		return c.tlsOpen(rec[:n], bs)
	}))
}

// tlsOpen removes the explicit IV, the padding and the MAC of a decrypted
// record and returns the length of what remains (which libssl reads after
// the explicit IV). Only public lengths decide branches.
func (c *blockCtx) tlsOpen(rec []byte, bs int) (int, *Error) {
	if c.tlsVersion >= tls1Version+1 || c.tlsVersion == dtls1BadVer || c.tlsVersion >= 0xfe00 {
		if len(rec) < bs {
			return 0, errorf(ReasonOperationFailed, "TLS record shorter than its explicit IV")
		}
		rec = rec[bs:]
	}
	macSize := int(c.tlsMacSize)
	overhead := 1 + macSize
	if overhead > len(rec) {
		return 0, errorf(ReasonOperationFailed, "TLS record of %d bytes cannot hold padding and a %d-byte MAC", len(rec), macSize)
	}
	orig, l := len(rec), len(rec)
	pad, good := tlsrec.Padding(rec, overhead)
	l -= int(good & uint(pad+1))
	if macSize == 0 {
		if good == 0 {
			return 0, errorf(ReasonBadDecrypt, "bad TLS record padding")
		}
		return l, nil
	}
	l -= macSize
	c.copyMAC(rec[:orig], l, macSize, good)
	return l, nil
}

// copyMAC keeps the macSize bytes at rec[macStart:] for "tls-mac", read
// without the position showing (tlsrec.ExtractMAC); a random MAC instead
// when good is 0, so that the MAC check fails without telling why.
func (c *blockCtx) copyMAC(rec []byte, macStart, macSize int, good uint) {
	var mac, random [maxTLSMACSize]byte
	rand.Read(random[:macSize])
	tlsrec.ExtractMAC(mac[:], rec, macStart, macSize)
	for i := 0; i < macSize; i++ {
		mac[i] = mac[i]&byte(good) | random[i]&^byte(good)
	}
	c.tlsMac = mac
	c.tlsMacLen = uint8(macSize)
}
