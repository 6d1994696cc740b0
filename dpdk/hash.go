// SPDX-License-Identifier: Apache-2.0

package dpdk

/*
#include "shimcalls.h"
*/
import "C"

import "cptprov/cptdrv"

// authAlgs are the CPTDPDK_* bits of each hash (cptdrv.Hash*), plain and
// HMAC. DPDK has no SHA-512/224 or SHA-512/256: those run on the CPU path.
var authAlgs = map[uint16][2]uint32{
	cptdrv.HashSHA1:   {C.CPTDPDK_SHA1, C.CPTDPDK_HMAC_SHA1},
	cptdrv.HashSHA224: {C.CPTDPDK_SHA224, C.CPTDPDK_HMAC_SHA224},
	cptdrv.HashSHA256: {C.CPTDPDK_SHA256, C.CPTDPDK_HMAC_SHA256},
	cptdrv.HashSHA384: {C.CPTDPDK_SHA384, C.CPTDPDK_HMAC_SHA384},
	cptdrv.HashSHA512: {C.CPTDPDK_SHA512, C.CPTDPDK_HMAC_SHA512},
}

// hashSizes are the digests' sizes, hashBlocks their block sizes.
var (
	hashSizes  = map[uint16]int{cptdrv.HashSHA1: 20, cptdrv.HashSHA224: 28, cptdrv.HashSHA256: 32, cptdrv.HashSHA384: 48, cptdrv.HashSHA512: 64}
	hashBlocks = map[uint16]uint32{cptdrv.HashSHA1: 64, cptdrv.HashSHA224: 64, cptdrv.HashSHA256: 64, cptdrv.HashSHA384: 128, cptdrv.HashSHA512: 128}
)

// planHash maps a hash or HMAC instruction that is a whole message (start
// and final in one: the driver holds a short message's bytes back until
// its final, cptdrv.MajorHash): DPDK's auth operations take only whole
// messages, and a running state is the CPU path's own format. The held
// bytes and the data go to the device as one input.
func (d *Device) planHash(inst *cptdrv.Instruction, lane int) *job {
	const whole = cptdrv.FlagStart | cptdrv.FlagFinal
	f := inst.Param2
	algs, known := authAlgs[inst.Param1]
	if !known || uint8(inst.Op) != cptdrv.MinorNone || f&whole != whole ||
		f&^(whole|cptdrv.FlagHMAC|cptdrv.FlagCtxData) != 0 {
		return nil
	}
	hmac := f&cptdrv.FlagHMAC != 0
	ctx := cptdrv.HashContextAt(inst.CPtr)
	var key []byte
	alg := algs[0]
	if hmac {
		hc := cptdrv.HMACContextAt(inst.CPtr)
		// A key of the device's sizes (an empty one is not).
		if hc.KeyLen == 0 || hc.KeyLen > hashBlocks[inst.Param1] {
			return nil
		}
		ctx, key, alg = &hc.Inner, hc.Key[:hc.KeyLen], algs[1]
	}
	held := uint32(0)
	if f&cptdrv.FlagCtxData != 0 {
		held = ctx.StateLen
	}
	cd, size := d.byAlg[alg], hashSizes[inst.Param1]
	if cd == nil || held > uint32(len(ctx.State)) || int(held)+int(inst.DLen) > cd.maxData ||
		int(inst.RLen) < size || inst.RPtr == 0 || inst.DLen > 0 && inst.DPtr == 0 {
		return nil
	}
	qp := pick(cd, lane)
	ss := d.sess.auth(qp, alg, key)
	if ss == nil {
		return nil
	}
	j := newJob(inst, qp, 1, hashDone)
	j.sess[0] = ss
	j.reqs[0] = C.struct_cptdpdk_req{sess: ss.ptr, kind: C.CPTDPDK_OP_AUTH,
		in0: bptr(ctx.State[:]), in0len: C.uint32_t(held), in: ptr(inst.DPtr), inlen: C.uint32_t(inst.DLen),
		out: ptr(inst.RPtr), outlen: C.uint32_t(size)}
	return j
}

// hashDone leaves the context as the engine does after a final: no
// message, nothing of it (the held bytes, the key's pads) left behind.
func hashDone(d *Device, j *job) (comp, uc uint8, rlen uint32, written bool) {
	inst := &j.inst
	if inst.Param2&cptdrv.FlagHMAC != 0 {
		hc := cptdrv.HMACContextAt(inst.CPtr)
		clear(hc.Inner.State[:])
		clear(hc.Outer.State[:])
		hc.Inner.StateLen, hc.Outer.StateLen = 0, 0
	} else {
		ctx := cptdrv.HashContextAt(inst.CPtr)
		clear(ctx.State[:])
		ctx.StateLen = 0
	}
	return cptdrv.CompGood, cptdrv.UCSuccess, uint32(j.reqs[0].outlen), false
}
