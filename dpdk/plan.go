// SPDX-License-Identifier: Apache-2.0

package dpdk

/*
#include <stdlib.h>
#include "shimcalls.h"
*/
import "C"

import (
	"bytes"
	"crypto/subtle"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/internal/cptlog"
	"cptprov/simulator"
	"cptprov/simulator/aesgcm"
	"cptprov/simulator/asym"
)

// job is one instruction on a device: its requests (two for a CRT
// exponentiation, one otherwise), and what turns their completions into the
// instruction's result.
type job struct {
	q        *cptdrv.Queue
	inst     cptdrv.Instruction
	dev      *cryptodev
	qp       *qpair
	lane     bool // a lane submitted it (and collects it)
	n        int
	reqs     [2]C.struct_cptdpdk_req
	sess     [2]*session
	status   [2]int32
	outlen   [2]uint32
	left     atomic.Int32
	finished atomic.Bool
	post     func(d *Device, j *job) (comp, uc uint8, rlen uint32, written bool)
	saved    [16]byte       // a CBC decryption's next chaining value
	scratch  unsafe.Pointer // C memory the requests write (the CRT halves)
	crt      [][]byte       // the CRT key: p, q, qInv
}

var jobs = sync.Pool{New: func() any { return new(job) }}

// newJob is a job for inst on qp (from the pool: one per operation).
func newJob(inst *cptdrv.Instruction, qp *qpair, n int, post func(*Device, *job) (uint8, uint8, uint32, bool)) *job {
	j := jobs.Get().(*job)
	*j = job{inst: *inst, dev: qp.dev, qp: qp, n: n, post: post}
	return j
}

func putJob(j *job) {
	j.crt = nil
	jobs.Put(j)
}

func (j *job) release(d *Device) {
	for i, ss := range j.sess {
		if ss != nil {
			d.sess.release(ss)
			j.sess[i] = nil
		}
	}
	if j.scratch != nil {
		C.free(j.scratch)
		j.scratch = nil
	}
}

func ptr(a uintptr) *C.uint8_t { return (*C.uint8_t)(unsafe.Add(unsafe.Pointer(nil), a)) }

// bptr is the C address of b, also of an empty b with room (cmem's).
func bptr(b []byte) *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))) }

// plan returns inst as a job on a device, or nil when the CPU path must
// compute it. It reads the instruction's context, which a bad address
// would fault on: that too is the CPU path's to report.
func (d *Device) plan(inst *cptdrv.Instruction, lane int) (j *job) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			j = nil
		}
	}()
	switch inst.Op >> 8 {
	case cptdrv.MajorFC:
		if inst.Group != cptdrv.GroupSE || inst.CPtr == 0 {
			return nil
		}
		switch inst.Param1 {
		case cptdrv.CipherAESGCM, cptdrv.CipherChaChaPoly:
			return d.planAEAD(inst, lane)
		case cptdrv.CipherAESCBC, cptdrv.CipherAESCTR, cptdrv.Cipher3DESCBC:
			return d.planBlock(inst, lane)
		}
	case cptdrv.MajorHash:
		if inst.Group != cptdrv.GroupSE || inst.CPtr == 0 {
			return nil
		}
		return d.planHash(inst, lane)
	case cptdrv.MajorModExp:
		if inst.Group != cptdrv.GroupAE {
			return nil
		}
		return d.planModExp(inst, lane)
	}
	return nil
}

// pick is the queue pair of cd a job submitted from lane goes to. Sessions
// are per queue pair: some devices keep per-session working state that
// two queue pairs would race on (DPDK 22.11's crypto_openssl does).
func pick(cd *cryptodev, lane int) *qpair { return cd.qps[lane%len(cd.qps)] }

// instName names what inst computes, for the log line of the CPU path.
func instName(inst *cptdrv.Instruction) string {
	switch inst.Op >> 8 {
	case cptdrv.MajorFC:
		switch inst.Param1 {
		case cptdrv.CipherAESGCM:
			return "AES-GCM"
		case cptdrv.CipherAESCBC:
			return "AES-CBC"
		case cptdrv.CipherAESCTR:
			return "AES-CTR"
		case cptdrv.Cipher3DESCBC:
			return "DES-EDE3-CBC"
		case cptdrv.CipherChaCha20:
			return "ChaCha20"
		case cptdrv.CipherChaChaPoly:
			return "ChaCha20-Poly1305"
		case cptdrv.CipherAESCBCHMAC:
			return "AES-CBC-HMAC"
		}
	case cptdrv.MajorHash:
		return "digests and HMAC"
	case cptdrv.MajorModExp:
		return "modular exponentiation"
	case cptdrv.MajorECC:
		return "EC point multiplication"
	case cptdrv.MajorECDSA:
		return "ECDSA"
	}
	return ""
}

// The record an AEAD message's first piece leaves in its context's Engine
// area when it ran on a device and the message stays open (the running
// tag): where its ciphertext is, so that the CPU path can rebuild the
// stream's state (GCM's GHASH, ChaCha20-Poly1305's Poly1305) should the
// message continue. It lies past the space of the CPU path's own state:
// GCM's, which it leaves zero (no message), or ChaCha20-Poly1305's handle
// of the simulator's stream, which it leaves alone.
type aeadRecord struct {
	magic  uint64
	src    uint64 // the piece's ciphertext: its output (encryption) or input
	n      uint32
	aad    uint32 // bytes of the context's AAD the piece absorbed
	tagLen uint32 // bytes of the context's Tag that are its running tag
	enc    uint32 // 1: the message is an encryption (the instruction that finds the record may be a clone)
}

const (
	recordMagic = 0x3148475044504443 // "CDPDPGH1"
	recordOff   = len(cptdrv.CipherContext{}.Engine) - int(unsafe.Sizeof(aeadRecord{}))
)

// The record must not overlap the CPU path's state.
var (
	_ [recordOff - aesgcm.StateSize]byte
	_ [recordOff - simulator.ChaChaPolyStateSize]byte
)

func recordAt(ctx *cptdrv.CipherContext) *aeadRecord {
	return (*aeadRecord)(unsafe.Pointer(&ctx.Engine[recordOff]))
}

// planAEAD maps an AES-GCM or ChaCha20-Poly1305 instruction that starts a
// message and either ends it or asks for the running tag.
func (d *Device) planAEAD(inst *cptdrv.Instruction, lane int) *job {
	alg := uint32(C.CPTDPDK_AES_GCM)
	if inst.Param1 == cptdrv.CipherChaChaPoly {
		alg = C.CPTDPDK_CHACHAPOLY
	}
	cd := d.byAlg[alg]
	minor, f := uint8(inst.Op), inst.Param2
	if cd == nil || minor != cptdrv.MinorEnc && minor != cptdrv.MinorDec {
		return nil
	}
	const known = cptdrv.FlagStart | cptdrv.FlagCtxAAD | cptdrv.FlagFinal | cptdrv.FlagTagInline | cptdrv.FlagRunningTag
	enc := minor == cptdrv.MinorEnc
	final, inline, running := f&cptdrv.FlagFinal != 0, f&cptdrv.FlagTagInline != 0, f&cptdrv.FlagRunningTag != 0
	if f&^known != 0 || f&cptdrv.FlagStart == 0 || !final && !running || inline && !final {
		return nil
	}
	ctx := cptdrv.ContextAt(inst.CPtr)
	keyOK := aesKey(ctx.KeyLen)
	if alg == C.CPTDPDK_CHACHAPOLY {
		keyOK = ctx.KeyLen == 32
	}
	if !keyOK || ctx.IVLen != 12 || ctx.AADLen > uint32(len(ctx.AAD)) {
		return nil
	}
	var aad uint32
	if f&cptdrv.FlagCtxAAD != 0 {
		aad = ctx.AADLen
	}
	n := int(inst.DLen)
	if n > cd.maxData || n > 0 && (inst.DPtr == 0 || inst.RPtr == 0 || int(inst.RLen) < n) {
		return nil
	}
	dir, tagLen := C.CPTDPDK_DIR_DECRYPT, uint32(16)
	if enc {
		dir = C.CPTDPDK_DIR_ENCRYPT
	}
	tag := uintptr(unsafe.Pointer(&ctx.Tag[0]))
	switch {
	case inline && enc:
		if inst.RPtr == 0 || int(inst.RLen) < n+16 {
			return nil
		}
		tag = inst.RPtr + uintptr(n)
	case inline:
		if inst.DPtr == 0 {
			return nil
		}
		tag = inst.DPtr + uintptr(n)
	case enc:
	case n == 0 && (alg == C.CPTDPDK_AES_GCM || !final):
		// No ciphertext: the tag is the same either way, and an
		// encryption returns it, for the driver to compare. Not a
		// ChaCha20-Poly1305 decryption's final, which the driver leaves
		// the engine to verify (aeadAlg.deviceVerifies).
		dir = C.CPTDPDK_DIR_ENCRYPT
	case !final && ctx.TagLen >= 1 && ctx.TagLen <= 16 && (alg == C.CPTDPDK_AES_GCM || ctx.TagLen == 16):
		// A decryption's first data with the message's tag already
		// known (TLS 1.3): the device checks it. (DPDK's ChaCha20-Poly1305
		// digests are 16 bytes only.)
		tagLen = ctx.TagLen
	default:
		return nil
	}
	qp := pick(cd, lane)
	ss := d.sess.cipher(qp, sessKey{keyID: ctx.KeyID, alg: alg, dir: dir, aead: true, aad: aad, tag: tagLen}, ctx.Key[:ctx.KeyLen])
	if ss == nil {
		return nil
	}
	j := newJob(inst, qp, 1, aeadDone)
	j.sess[0] = ss
	j.reqs[0] = C.struct_cptdpdk_req{sess: ss.ptr, kind: C.CPTDPDK_OP_AEAD,
		in: ptr(inst.DPtr), inlen: C.uint32_t(n), out: ptr(inst.RPtr), outlen: C.uint32_t(n),
		iv: bptr(ctx.IV[:]), ivlen: 12, aad: bptr(ctx.AAD[:]), aadlen: C.uint32_t(aad),
		tag: ptr(tag), taglen: C.uint32_t(tagLen)}
	return j
}

func aesKey(n uint32) bool { return n == 16 || n == 24 || n == 32 }

func aeadDone(d *Device, j *job) (comp, uc uint8, rlen uint32, written bool) {
	inst := &j.inst
	ctx := cptdrv.ContextAt(inst.CPtr)
	f, n := inst.Param2, inst.DLen
	enc := uint8(inst.Op) == cptdrv.MinorEnc
	final, inline := f&cptdrv.FlagFinal != 0, f&cptdrv.FlagTagInline != 0
	ctx.TagValid = 0
	if j.status[0] == C.CPTDPDK_AUTH_FAILED && !final {
		// The tag was the whole message's and the message is longer:
		// the CPU path computes this piece and its running tag.
		d.cpu(inst)
		return 0, 0, 0, true
	}
	var aad uint32
	if f&cptdrv.FlagCtxAAD != 0 {
		aad, ctx.AADLen = ctx.AADLen, 0
	}
	if inst.Param1 == cptdrv.CipherAESGCM {
		*(*aesgcm.State)(unsafe.Pointer(&ctx.Engine)) = aesgcm.State{}
	}
	*recordAt(ctx) = aeadRecord{}
	if j.status[0] == C.CPTDPDK_AUTH_FAILED {
		if n > 0 {
			clear(cptdrv.Bytes(inst.RPtr, int(n))) // as the CPT does: no plaintext
		}
		return cptdrv.CompGood, cptdrv.UCAuthFail, 0, false
	}
	if final {
		if inline && enc {
			n += 16
		}
		return cptdrv.CompGood, cptdrv.UCSuccess, n, false
	}
	src := inst.RPtr
	if !enc {
		src = inst.DPtr
	}
	r := aeadRecord{magic: recordMagic, src: uint64(src), n: n, aad: aad, tagLen: uint32(j.reqs[0].taglen)}
	if enc {
		r.enc = 1
	}
	*recordAt(ctx) = r
	ctx.TagValid = 1
	return cptdrv.CompGood, cptdrv.UCSuccess, n, false
}

// prepareCPU readies a context for the CPU path: an AEAD message whose
// first piece ran on a device gets its stream's state rebuilt from that
// piece (or, when the instruction starts a new message, the record goes).
// false: the state cannot be rebuilt (the piece's buffer changed or went
// away).
func (d *Device) prepareCPU(inst *cptdrv.Instruction) (ok bool) {
	if inst.Op>>8 != cptdrv.MajorFC || inst.Param1 != cptdrv.CipherAESGCM && inst.Param1 != cptdrv.CipherChaChaPoly || inst.CPtr == 0 {
		return true
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	ctx := cptdrv.ContextAt(inst.CPtr)
	r := recordAt(ctx)
	if r.magic != recordMagic {
		return true
	}
	rec := *r
	*r = aeadRecord{}
	if inst.Param2&cptdrv.FlagStart != 0 || uint8(inst.Op) == cptdrv.MinorCtxFlush {
		return true
	}
	if inst.Param1 == cptdrv.CipherAESGCM && rebuildGCM(ctx, rec) ||
		inst.Param1 == cptdrv.CipherChaChaPoly && rec.tagLen >= 1 && rec.tagLen <= 16 &&
			simulator.ResumeChaChaPoly(inst.CPtr, ctx.AAD[:rec.aad], cptdrv.Bytes(uintptr(rec.src), int(rec.n)),
				rec.enc == 1, ctx.Tag[:rec.tagLen]) {
		return true
	}
	d.log(cptlog.Warn, "dpdk: an "+instName(inst)+" message continued after its first piece, whose buffer has changed since: failed (the tag could not be computed)")
	return false
}

// rebuildGCM recomputes the GHASH state after a message's first piece
// from its ciphertext and checks it against the tag the device gave.
func rebuildGCM(ctx *cptdrv.CipherContext, r aeadRecord) bool {
	k, err := aesgcm.NewKey(ctx.Key[:ctx.KeyLen])
	if err != nil || r.tagLen == 0 || r.tagLen > 16 {
		return false
	}
	st := (*aesgcm.State)(unsafe.Pointer(&ctx.Engine))
	*st = aesgcm.State{}
	if k.Start(st, ctx.IV[:ctx.IVLen]) != nil || k.AAD(st, ctx.AAD[:r.aad]) != nil {
		return false
	}
	if r.n > 0 {
		tmp := make([]byte, r.n)
		err := k.Decrypt(st, tmp, bytes.Clone(cptdrv.Bytes(uintptr(r.src), int(r.n))))
		clear(tmp)
		if err != nil {
			return false
		}
	}
	peek := *st
	tag, err := k.Tag(&peek)
	if err != nil || subtle.ConstantTimeCompare(tag[:r.tagLen], ctx.Tag[:r.tagLen]) != 1 {
		*st = aesgcm.State{}
		return false
	}
	return true
}

// planBlock maps a CBC or CTR instruction over whole blocks.
func (d *Device) planBlock(inst *cptdrv.Instruction, lane int) *job {
	alg, bs := uint32(C.CPTDPDK_AES_CBC), 16
	switch inst.Param1 {
	case cptdrv.CipherAESCTR:
		alg = C.CPTDPDK_AES_CTR
	case cptdrv.Cipher3DESCBC:
		alg, bs = C.CPTDPDK_DES3_CBC, 8
	}
	cd := d.byAlg[alg]
	minor, f := uint8(inst.Op), inst.Param2
	if cd == nil || minor != cptdrv.MinorEnc && minor != cptdrv.MinorDec || f&^(cptdrv.FlagStart|cptdrv.FlagCtxData) != 0 {
		return nil
	}
	ctx := cptdrv.ContextAt(inst.CPtr)
	if ctx.IVLen != uint32(bs) || ctx.AADLen > uint32(len(ctx.AAD)) ||
		alg == C.CPTDPDK_DES3_CBC && ctx.KeyLen != 24 || alg != C.CPTDPDK_DES3_CBC && !aesKey(ctx.KeyLen) {
		return nil
	}
	prefix := 0
	if f&cptdrv.FlagCtxData != 0 {
		prefix = int(ctx.AADLen)
	}
	n := int(inst.DLen)
	total := prefix + n
	if total == 0 || total%bs != 0 || total > cd.maxData || int(inst.RLen) < total || inst.RPtr == 0 || n > 0 && inst.DPtr == 0 {
		return nil
	}
	dir := C.CPTDPDK_DIR_DECRYPT
	if minor == cptdrv.MinorEnc || alg == C.CPTDPDK_AES_CTR {
		dir = C.CPTDPDK_DIR_ENCRYPT // CTR is its own inverse: one session serves both
	}
	if alg == C.CPTDPDK_AES_CTR {
		// Only from a block boundary (no keystream left over), and
		// without a carry out of the counter's low 32 bits, where
		// devices differ in how far the carry goes.
		used := ctx.Engine[16] // the CPU path's blockState.used
		low := uint64(ctx.IV[12])<<24 | uint64(ctx.IV[13])<<16 | uint64(ctx.IV[14])<<8 | uint64(ctx.IV[15])
		if f&cptdrv.FlagStart == 0 && used != 0 || low+uint64(total/16) > 1<<32 {
			return nil
		}
	}
	qp := pick(cd, lane)
	ss := d.sess.cipher(qp, sessKey{keyID: ctx.KeyID, alg: alg, dir: dir}, ctx.Key[:ctx.KeyLen])
	if ss == nil {
		return nil
	}
	j := newJob(inst, qp, 1, blockDone)
	j.sess[0] = ss
	j.reqs[0] = C.struct_cptdpdk_req{sess: ss.ptr, kind: C.CPTDPDK_OP_CIPHER,
		in0: bptr(ctx.AAD[:]), in0len: C.uint32_t(prefix), in: ptr(inst.DPtr), inlen: C.uint32_t(n),
		out: ptr(inst.RPtr), outlen: C.uint32_t(total), iv: bptr(ctx.IV[:]), ivlen: C.uint32_t(bs)}
	if alg != C.CPTDPDK_AES_CTR && minor == cptdrv.MinorDec {
		// The next chaining value is the last ciphertext block, which an
		// in-place decryption overwrites.
		// Its bytes come from the end of the data, and from the end of the
		// buffered prefix when the data is shorter than a block.
		k := min(n, bs)
		copy(j.saved[bs-k:bs], cptdrv.Bytes(inst.DPtr+uintptr(n-k), k))
		copy(j.saved[:bs-k], ctx.AAD[prefix-(bs-k):prefix])
	}
	return j
}

func blockDone(d *Device, j *job) (comp, uc uint8, rlen uint32, written bool) {
	inst := &j.inst
	ctx := cptdrv.ContextAt(inst.CPtr)
	f := inst.Param2
	bs := 16
	if inst.Param1 == cptdrv.Cipher3DESCBC {
		bs = 8
	}
	total := int(j.reqs[0].outlen)
	ctx.TagValid = 0
	if f&cptdrv.FlagCtxData != 0 {
		ctx.AADLen = 0
	}
	if f&cptdrv.FlagStart != 0 {
		clear(ctx.Engine[:17]) // the CPU path's blockState: no keystream left
	}
	switch {
	case inst.Param1 == cptdrv.CipherAESCTR:
		addCounter(ctx.IV[:16], uint64(total/16))
	case uint8(inst.Op) == cptdrv.MinorEnc:
		copy(ctx.IV[:bs], cptdrv.Bytes(inst.RPtr+uintptr(total-bs), bs))
	default:
		copy(ctx.IV[:bs], j.saved[:bs])
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(total), false
}

// addCounter adds n to a 128-bit big-endian counter block.
func addCounter(ctr []byte, n uint64) {
	for i := len(ctr) - 1; i >= 0 && n != 0; i-- {
		s := uint64(ctr[i]) + n&0xff
		ctr[i] = byte(s)
		n = n>>8 + s>>8
	}
}

// planModExp maps an exponentiation: one request, or for a CRT key the
// two half-size exponentiations, recombined on the CPU.
func (d *Device) planModExp(inst *cptdrv.Instruction, lane int) *job {
	cd := d.byAlg[C.CPTDPDK_MODEXP]
	l := int(inst.Param1)
	if cd == nil || l == 0 || l > 1024 || cd.maxModLen > 0 && l > cd.maxModLen || inst.RPtr == 0 || int(inst.RLen) < l || inst.DPtr == 0 {
		return nil
	}
	switch uint8(inst.Op) {
	case cptdrv.MinorModExpPlain, cptdrv.MinorModExpPublic:
		e := int(inst.Param2)
		if int(inst.DLen) < 2*l+e {
			return nil
		}
		in := cptdrv.Bytes(inst.DPtr, 2*l+e)
		m, exp, base := in[:l], trim(in[l:l+e]), in[l+e:]
		if !oddModulus(m) || len(exp) == 0 || bytes.Compare(base, m) >= 0 {
			return nil // the CPU path's verdict: UCBadOperand, or 1
		}
		qp := pick(cd, lane)
		ss := d.sess.modExp(qp, trim(m), exp)
		if ss == nil {
			return nil
		}
		j := newJob(inst, qp, 1, modExpDone)
		j.sess[0] = ss
		j.reqs[0] = C.struct_cptdpdk_req{sess: ss.ptr, kind: C.CPTDPDK_OP_MODEXP,
			in: bptr(base), inlen: C.uint32_t(l), out: ptr(inst.RPtr), outlen: C.uint32_t(l)}
		return j
	case cptdrv.MinorModExpCRT:
		p := int(inst.Param2)
		if p == 0 || p > l || int(inst.DLen) < 5*p+l {
			return nil
		}
		in := cptdrv.Bytes(inst.DPtr, 5*p+l)
		P, Q, dP, dQ, qInv, c := in[:p], in[p:2*p], trim(in[2*p:3*p]), trim(in[3*p:4*p]), in[4*p:5*p], in[5*p:]
		if !oddModulus(P) || !oddModulus(Q) || len(dP) == 0 || len(dQ) == 0 {
			return nil
		}
		c1, c2, err := asym.CRTSplit(c, P, Q, qInv)
		if err != nil {
			return nil
		}
		tp, tq := trim(P), trim(Q)
		qp := pick(cd, lane)
		s1 := d.sess.modExp(qp, tp, dP)
		if s1 == nil {
			return nil
		}
		s2 := d.sess.modExp(qp, tq, dQ)
		if s2 == nil {
			d.sess.release(s1)
			return nil
		}
		j := newJob(inst, qp, 2, crtDone)
		j.crt = [][]byte{bytes.Clone(P), bytes.Clone(Q), bytes.Clone(qInv)}
		j.sess[0], j.sess[1] = s1, s2
		// The halves and their inputs in C memory: the shim reads and
		// writes them after this call returns.
		j.scratch = C.malloc(C.size_t(2 * (len(tp) + len(tq))))
		sc := unsafe.Slice((*byte)(j.scratch), 2*(len(tp)+len(tq)))
		in1, in2 := sc[:len(tp)], sc[len(tp):len(tp)+len(tq)]
		out1, out2 := sc[len(tp)+len(tq):2*len(tp)+len(tq)], sc[2*len(tp)+len(tq):]
		copy(in1, c1)
		copy(in2, c2)
		j.reqs[0] = C.struct_cptdpdk_req{sess: s1.ptr, kind: C.CPTDPDK_OP_MODEXP,
			in: bptr(in1), inlen: C.uint32_t(len(in1)), out: bptr(out1), outlen: C.uint32_t(len(out1))}
		j.reqs[1] = C.struct_cptdpdk_req{sess: s2.ptr, kind: C.CPTDPDK_OP_MODEXP,
			in: bptr(in2), inlen: C.uint32_t(len(in2)), out: bptr(out2), outlen: C.uint32_t(len(out2))}
		return j
	}
	return nil
}

func modExpDone(d *Device, j *job) (comp, uc uint8, rlen uint32, written bool) {
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(j.inst.Param1), false
}

func crtDone(d *Device, j *job) (comp, uc uint8, rlen uint32, written bool) {
	l := int(j.inst.Param1)
	sc := unsafe.Slice((*byte)(j.scratch), 2*(int(j.reqs[0].outlen)+int(j.reqs[1].outlen)))
	off := int(j.reqs[0].inlen) + int(j.reqs[1].inlen)
	m1 := sc[off : off+int(j.reqs[0].outlen)]
	m2 := sc[off+int(j.reqs[0].outlen):]
	m, err := asym.CRTCombine(m1, m2, j.crt[0], j.crt[1], j.crt[2])
	clear(sc)
	switch {
	case err != nil:
		return cptdrv.CompGood, cptdrv.UCBadOperand, 0, false
	case len(m) != l:
		return cptdrv.CompGood, cptdrv.UCBadLength, 0, false
	}
	copy(cptdrv.Bytes(j.inst.RPtr, l), m)
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(l), false
}

// trim strips leading zero bytes (of public lengths).
func trim(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// oddModulus reports whether m is odd and above 1.
func oddModulus(m []byte) bool {
	m = trim(m)
	return len(m) > 0 && m[len(m)-1]&1 == 1 && !(len(m) == 1 && m[0] == 1)
}
