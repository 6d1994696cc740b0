// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"cptprov/cptdrv"
)

// curve is what the driver side knows of a prime curve: names, sizes and
// the order it draws scalars below. The arithmetic is the device's.
type curve struct {
	dev     uint16   // cptdrv.Curve*
	name    string   // the name OpenSSL exports ("prime256v1")
	aliases []string // names accepted on import and generation
	byteLen int
	bits    int // of the order (EC_GROUP_order_bits)
	secBits int
	order   []byte
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func orderOf(c elliptic.Curve, n int) []byte { return c.Params().N.FillBytes(make([]byte, n)) }

var curves = []*curve{
	{cptdrv.CurveP192, "prime192v1", []string{"prime192v1", "secp192r1", "P-192"}, 24, 192, 80,
		mustHex("ffffffffffffffffffffffff99def836146bc9b1b4d22831")},
	{cptdrv.CurveP224, "secp224r1", []string{"secp224r1", "P-224"}, 28, 224, 112, orderOf(elliptic.P224(), 28)},
	{cptdrv.CurveP256, "prime256v1", []string{"prime256v1", "secp256r1", "P-256"}, 32, 256, 128, orderOf(elliptic.P256(), 32)},
	{cptdrv.CurveP384, "secp384r1", []string{"secp384r1", "P-384"}, 48, 384, 192, orderOf(elliptic.P384(), 48)},
	{cptdrv.CurveP521, "secp521r1", []string{"secp521r1", "P-521"}, 66, 521, 256, orderOf(elliptic.P521(), 66)},
}

// sigLen is the longest DER ECDSA-Sig-Value: r and s as long as the
// order, as OpenSSL's ECDSA_size counts. Counted, not encoded: signing
// asks for it twice per signature.
func (c *curve) sigLen() int {
	body := 2 * derIntegerLen(derMagnitude(c.order))
	if body >= 0x80 {
		return 3 + body
	}
	return 2 + body
}

// curveByName finds a curve by any of its names, ignoring case.
func curveByName(name string) *curve {
	for _, c := range curves {
		for _, a := range c.aliases {
			if strings.EqualFold(a, name) {
				return c
			}
		}
	}
	return nil
}

func curveByID(id uint32) *curve {
	for _, c := range curves {
		if uint32(c.dev) == id {
			return c
		}
	}
	return nil
}

// inRange reports 0 < k < n for big-endian k and n of the same length.
func (c *curve) inRange(k []byte) bool {
	zero := true
	for _, b := range k {
		zero = zero && b == 0
	}
	return !zero && string(k) < string(c.order)
}

// randomScalar draws a uniform scalar in [1, n-1] by rejection: at most a
// few draws, since every order here is close to a power of two.
func (c *curve) randomScalar(out []byte) error {
	extra := c.byteLen*8 - c.bits
	for {
		if _, err := rand.Read(out); err != nil {
			return err
		}
		out[0] &= byte(0xff >> extra)
		if c.inRange(out) {
			return nil
		}
	}
}
