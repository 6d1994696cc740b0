// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/stats"
)

// mdRow is a digest of the list of algorithms (provider/algorithms.def,
// copied to mdRows in algorithms_gen.go): id n (CPT_MD_*, the device's hash
// type, cptdrv.Hash*) counts as algorithm AlgMDBase+n, HMAC over it as
// AlgMACBase+n.
type mdRow struct {
	id        int
	names     []string // canonical first
	size      int
	blockSize int
}

// mdRowByID returns the row of digest id, or nil.
func mdRowByID(id int) *mdRow {
	for i := range mdRows {
		if mdRows[i].id == id {
			return &mdRows[i]
		}
	}
	return nil
}

// MD is the EVP_MD semantics of one digest over a context in C memory,
// hashed on the device's symmetric engines. A zeroed context is a fresh
// message, so init needs no call into Go.
type MD struct {
	d *digest
}

// mdCtx is a digest operation context, overlaid on C memory.
type mdCtx struct {
	dev     cptdrv.HashContext
	started bool // the device holds a running state for this message
}

// MDByID returns the digest with CPT_MD_* id, or nil.
func MDByID(id int) *MD {
	if mdRowByID(id) == nil {
		return nil
	}
	return &MD{digestByID(uint32(id))}
}

// AlgName is the name the counters of algorithm id (CPT_ALG_*, or
// CPT_ALG_MD_BASE or CPT_ALG_MAC_BASE + CPT_MD_*) go by, or "" for an
// unknown id.
func AlgName(id int) string {
	if c := CipherByID(id); c != nil {
		return c.Name()
	}
	if id < AlgMACBase {
		if m := MDByID(id - AlgMDBase); m != nil {
			return m.Name()
		}
	} else if m := MACByID(id - AlgMACBase); m != nil {
		return m.Name()
	}
	return ""
}

// MDStateSize is the C memory a digest context needs (CPT_MD_STATE_SIZE).
func MDStateSize() uintptr { return unsafe.Sizeof(mdCtx{}) }

// Name is the digest's canonical OpenSSL name.
func (m *MD) Name() string { return m.d.names[0] }

// hashJob is what digests and HMAC share: the pieces of one message as
// instructions of the hash opcode on a device context, started with the
// message's first one.
//
// A message's first bytes wait in the context (the State of its hash, of
// the inner one for HMAC, unused until the device starts the message) while
// they fit: a short message then goes to the device whole, in the one
// instruction its final makes, which is one instruction instead of two and
// what devices that take only whole messages (DPDK's) can compute.
type hashJob struct {
	d       *digest
	flags   uint16 // cptdrv.FlagHMAC for HMAC
	started *bool  // the device holds a running state for the message
	ctx     unsafe.Pointer
	held    *cptdrv.HashContext // where the first bytes wait, StateLen of them
	alg     *stats.Alg
}

func (j hashJob) instruction(flags uint16) cptdrv.Instruction {
	flags |= j.flags
	if !*j.started {
		flags |= cptdrv.FlagStart
		if j.held.StateLen > 0 {
			flags |= cptdrv.FlagCtxData
		}
		*j.started = true
	}
	return cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorHash, cptdrv.MinorNone),
		Param1: uint16(j.d.id),
		Param2: flags,
		CPtr:   uintptr(j.ctx),
	}
}

// update hashes inl bytes at in.
func (j hashJob) update(env *Env, in unsafe.Pointer, inl int, w Waiter) (bool, *Error) {
	if inl == 0 {
		return false, nil
	}
	if uint64(inl) > 1<<32-1 {
		return false, errorf(ReasonOperationFailed, "update of %d bytes is too large", inl)
	}
	if h := j.held; !*j.started && int(h.StateLen)+inl <= len(h.State) {
		h.StateLen += uint32(copy(h.State[h.StateLen:], unsafe.Slice((*byte)(in), inl)))
		return false, nil
	}
	inst := j.instruction(0)
	inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
	_, pending, err := run(env.SE, j.alg, &inst, w, dataDone{})
	return pending, err
}

// final writes the result at out; the next message starts afresh.
func (j hashJob) final(env *Env, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	if out == nil || outsize < j.d.size {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, j.d.size)
	}
	inst := j.instruction(cptdrv.FlagFinal)
	*j.started = false
	inst.RPtr, inst.RLen = uintptr(out), uint32(j.d.size)
	return run(env.SE, j.alg, &inst, w, dataDone{})
}

func (m *MD) job(env *Env, st unsafe.Pointer) hashJob {
	c := (*mdCtx)(st)
	return hashJob{d: m.d, started: &c.started, ctx: unsafe.Pointer(&c.dev), held: &c.dev,
		alg: env.algCounters(AlgMDBase+int(m.d.id), m.Name())}
}

// Update hashes inl bytes at in.
func (m *MD) Update(env *Env, st unsafe.Pointer, in unsafe.Pointer, inl int, w Waiter) (bool, *Error) {
	return m.job(env, st).update(env, in, inl, w)
}

// Final writes the digest at out and leaves the context fresh.
func (m *MD) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	return m.job(env, st).final(env, out, outsize, w)
}
