// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/cipher"
	"crypto/subtle"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/simulator/aesni"
)

// blockState is what a block or stream mode keeps in the context's Engine
// area between instructions.
type blockState struct {
	ks   [16]byte // CTR: the current keystream block
	used uint8    // CTR: bytes of ks already used; 0 when none is left
}

var _ [len(cptdrv.CipherContext{}.Engine) - int(unsafe.Sizeof(blockState{}))]byte

// blockMode executes a MajorFC instruction of a block or stream mode (see
// cptdrv.CipherAESCBC): the optional context prefix, then the data at DPtr,
// with the running IV read from and written back to the context.
func (d *Device) blockMode(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	minor := uint8(inst.Op)
	if minor != cptdrv.MinorEnc && minor != cptdrv.MinorDec {
		return cptdrv.CompBadInst, 0, 0
	}
	flags := inst.Param2
	if flags&^(cptdrv.FlagStart|cptdrv.FlagCtxData) != 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	ctx := cptdrv.ContextAt(inst.CPtr)
	ctx.TagValid = 0
	bs := 16
	if inst.Param1 == cptdrv.Cipher3DESCBC {
		bs = 8
	}
	if ctx.KeyLen == 0 || ctx.IVLen != uint32(bs) || ctx.AADLen > uint32(len(ctx.AAD)) {
		return cptdrv.CompGood, cptdrv.UCBadContext, 0
	}
	st := (*blockState)(unsafe.Pointer(&ctx.Engine))
	if flags&cptdrv.FlagStart != 0 {
		*st = blockState{}
	}
	var prefix []byte
	if flags&cptdrv.FlagCtxData != 0 {
		prefix = append([]byte(nil), ctx.AAD[:ctx.AADLen]...)
		ctx.AADLen = 0
	}
	n := int(inst.DLen)
	total := len(prefix) + n
	if total == 0 {
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	}
	if int(inst.RLen) < total || inst.RPtr == 0 || (n > 0 && inst.DPtr == 0) {
		return cptdrv.CompBadInst, 0, 0
	}
	in := cptdrv.Bytes(inst.DPtr, n)
	out := cptdrv.Bytes(inst.RPtr, total)
	// The prefix's output may overwrite input not read yet (an in-place
	// update shifted by a buffered block): read from a copy then.
	if len(prefix) > 0 && n > 0 && overlaps(out, in) || inexactOverlap(out[len(prefix):], in) {
		in = bytes.Clone(in)
	}
	if inst.Param1 != cptdrv.CipherAESCTR && total%bs != 0 {
		return cptdrv.CompGood, cptdrv.UCBadLength, 0
	}
	k, err := d.keys.modes(ctx, inst.Param1)
	if err != nil {
		return cptdrv.CompGood, cptdrv.UCBadKey, 0
	}
	iv := ctx.IV[:bs]
	switch inst.Param1 {
	case cptdrv.CipherAESCBC, cptdrv.Cipher3DESCBC:
		crypt := k.CBCDecrypt
		if minor == cptdrv.MinorEnc {
			crypt = k.CBCEncrypt
		}
		crypt(iv, out[:len(prefix)], prefix)
		crypt(iv, out[len(prefix):], in)
	case cptdrv.CipherAESCTR:
		ctrCrypt(k, st, iv, out[:len(prefix)], prefix)
		ctrCrypt(k, st, iv, out[len(prefix):], in)
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(total)
}

// blockModes runs the modes over whole blocks (dst may be exactly src):
// CBC with the chaining value in iv, CTR from the counter block in ctr
// (both a block long); both leave the next value there.
type blockModes interface {
	CBCEncrypt(iv, dst, src []byte)
	CBCDecrypt(iv, dst, src []byte)
	CTR(ctr, dst, src []byte)
}

// aesniModes is blockModes on the AES-NI loops.
type aesniModes struct{ k *aesni.Key }

func (a aesniModes) CBCEncrypt(iv, dst, src []byte) { a.k.CBCEncrypt((*[16]byte)(iv), dst, src) }
func (a aesniModes) CBCDecrypt(iv, dst, src []byte) { a.k.CBCDecrypt((*[16]byte)(iv), dst, src) }
func (a aesniModes) CTR(ctr, dst, src []byte)       { a.k.CTR((*[16]byte)(ctr), dst, src) }

// genericModes is blockModes on crypto/cipher: 3DES, and AES on CPUs
// without AES-NI.
type genericModes struct{ b cipher.Block }

func (g genericModes) CTR(ctr, dst, src []byte) {
	if n := len(src) &^ 15; n > 0 {
		cipher.NewCTR(g.b, ctr).XORKeyStream(dst[:n], src[:n])
		addCounter(ctr, uint64(n/16))
	}
}

func (g genericModes) CBCEncrypt(iv, dst, src []byte) {
	if len(src) == 0 {
		return
	}
	cipher.NewCBCEncrypter(g.b, iv).CryptBlocks(dst, src)
	copy(iv, dst[len(src)-len(iv):len(src)])
}

func (g genericModes) CBCDecrypt(iv, dst, src []byte) {
	if len(src) == 0 {
		return
	}
	var next [16]byte
	copy(next[:], src[len(src)-len(iv):]) // before an in-place decryption overwrites it
	cipher.NewCBCDecrypter(g.b, iv).CryptBlocks(dst, src)
	copy(iv, next[:len(iv)])
}

// ctrCrypt XORs src with the CTR keystream: first what is left of the
// current keystream block, then whole blocks from the counter in ctr
// (128-bit big-endian, as OpenSSL and NIST SP 800-38A count), then part of
// a new block whose rest is kept for the next instruction.
func ctrCrypt(k blockModes, st *blockState, ctr, dst, src []byte) {
	if len(src) == 0 {
		return
	}
	if st.used != 0 {
		k := min(len(src), 16-int(st.used))
		subtle.XORBytes(dst[:k], src[:k], st.ks[st.used:int(st.used)+k])
		st.used += uint8(k)
		if st.used == 16 {
			st.used = 0
		}
		dst, src = dst[k:], src[k:]
	}
	full := len(src) &^ 15
	k.CTR(ctr, dst[:full], src[:full])
	if rest := len(src) - full; rest > 0 {
		// The keystream block is the encryption of zeros.
		st.ks = [16]byte{}
		k.CTR(ctr, st.ks[:], st.ks[:])
		subtle.XORBytes(dst[full:], src[full:], st.ks[:rest])
		st.used = uint8(rest)
	}
}

// addCounter adds n to the 128-bit big-endian counter block ctr.
func addCounter(ctr []byte, n uint64) {
	for i := 15; i >= 0 && n != 0; i-- {
		s := uint64(ctr[i]) + n&0xff
		ctr[i] = byte(s)
		n = n>>8 + s>>8
	}
}

// overlaps reports whether a and b share memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	x, y := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return x < y+uintptr(len(b)) && y < x+uintptr(len(a))
}

// inexactOverlap reports whether dst[:len(src)] and src share memory
// without being the same slice, which crypto/cipher refuses.
func inexactOverlap(dst, src []byte) bool {
	if len(src) == 0 || &dst[0] == &src[0] {
		return false
	}
	d, s := uintptr(unsafe.Pointer(&dst[0])), uintptr(unsafe.Pointer(&src[0]))
	return d < s+uintptr(len(src)) && s < d+uintptr(len(src))
}
