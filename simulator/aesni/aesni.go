// SPDX-License-Identifier: Apache-2.0

// Package aesni is the AES arithmetic of the simulated symmetric engines
// for CBC and CTR: AES-NI in amd64 assembly. Go's crypto/cipher runs CBC a
// block at a time through an interface, which keeps CBC encryption at two
// thirds of OpenSSL's speed; here a whole run of blocks is one loop (CTR
// eight blocks at a time).
package aesni

import (
	"errors"
	"math/bits"
)

// Key is an expanded AES key: the encryption schedule and the decryption
// schedule of the equivalent inverse cipher (FIPS 197, 5.3.5).
type Key struct {
	enc, dec [15][16]byte
	enc2     [15][32]byte // each encryption round key twice, for VAES on 256 bits
	rounds   int
}

// ErrKeySize reports a key that is not 16, 24 or 32 bytes.
var ErrKeySize = errors.New("aesni: invalid key size")

// NewKey expands key, or returns nil and ErrKeySize. Only when Available.
func NewKey(key []byte) (*Key, error) {
	nk := len(key) / 4
	if len(key) != 16 && len(key) != 24 && len(key) != 32 {
		return nil, ErrKeySize
	}
	k := &Key{rounds: nk + 6}
	var w [60]uint32 // big-endian words of the schedule
	for i := 0; i < nk; i++ {
		w[i] = uint32(key[4*i])<<24 | uint32(key[4*i+1])<<16 | uint32(key[4*i+2])<<8 | uint32(key[4*i+3])
	}
	rcon := uint32(1)
	for i := nk; i < 4*(k.rounds+1); i++ {
		t := w[i-1]
		switch {
		case i%nk == 0:
			t = sub(bits.RotateLeft32(t, 8)) ^ rcon<<24
			rcon = rcon << 1
			if rcon&0x100 != 0 {
				rcon ^= 0x11b
			}
		case nk > 6 && i%nk == 4:
			t = sub(t)
		}
		w[i] = w[i-nk] ^ t
	}
	for r := 0; r <= k.rounds; r++ {
		for j := 0; j < 4; j++ {
			v := w[4*r+j]
			k.enc[r][4*j], k.enc[r][4*j+1], k.enc[r][4*j+2], k.enc[r][4*j+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
		}
	}
	for r := range k.enc {
		copy(k.enc2[r][:16], k.enc[r][:])
		copy(k.enc2[r][16:], k.enc[r][:])
	}
	k.dec[0], k.dec[k.rounds] = k.enc[k.rounds], k.enc[0]
	for r := 1; r < k.rounds; r++ {
		invMixColumns(&k.dec[r], &k.enc[k.rounds-r])
	}
	return k, nil
}

// sub is SubWord on a big-endian word (the S-box is byte-wise, so the
// byte order the instruction sees does not matter).
func sub(w uint32) uint32 { return subWord(w) }

// CBCEncrypt encrypts whole blocks from src into dst (which may be src)
// with the chaining value in iv, and leaves the next one there.
func (k *Key) CBCEncrypt(iv *[16]byte, dst, src []byte) {
	if n := len(src) / 16; n > 0 {
		cbcEncrypt(&k.enc[0][0], k.rounds, iv, &dst[0], &src[0], n)
	}
}

// CTR XORs whole blocks of src with the keystream from the 128-bit
// big-endian counter block ctr (dst may be src), and advances ctr past
// them.
func (k *Key) CTR(ctr *[16]byte, dst, src []byte) {
	n := len(src) / 16
	if n >= 16 && haveVAES {
		done := ctrXORWide(&k.enc2[0][0], k.rounds, ctr, &dst[0], &src[0], n)
		dst, src, n = dst[16*done:], src[16*done:], n-done
	}
	if n > 0 {
		ctrXOR(&k.enc[0][0], k.rounds, ctr, &dst[0], &src[0], n)
	}
}

// CBCDecrypt is CBCEncrypt's inverse.
func (k *Key) CBCDecrypt(iv *[16]byte, dst, src []byte) {
	if n := len(src) / 16; n > 0 {
		cbcDecrypt(&k.dec[0][0], k.rounds, iv, &dst[0], &src[0], n)
	}
}
