package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
)

// AlgMDBase (CPT_ALG_MD_BASE) puts the digests' counters after the
// ciphers': digest id n (CPT_MD_*, the same numbers as cptdrv.Hash* and the
// digest table) counts as algorithm AlgMDBase+n.
const AlgMDBase = 16

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
	if id < int(cptdrv.HashSHA1) || id > int(cptdrv.HashSHA512256) {
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

func (m *MD) instruction(c *mdCtx, flags uint16) cptdrv.Instruction {
	if !c.started {
		flags |= cptdrv.FlagStart
		c.started = true
	}
	return cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorHash, cptdrv.MinorNone),
		Param1: uint16(m.d.id),
		Param2: flags,
		CPtr:   uintptr(unsafe.Pointer(&c.dev)),
	}
}

// Update hashes inl bytes at in.
func (m *MD) Update(env *Env, st unsafe.Pointer, in unsafe.Pointer, inl int, w Waiter) (bool, *Error) {
	c := (*mdCtx)(st)
	if inl == 0 {
		return false, nil
	}
	if uint64(inl) > 1<<32-1 {
		return false, errorf(ReasonOperationFailed, "update of %d bytes is too large", inl)
	}
	inst := m.instruction(c, 0)
	inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
	_, pending, err := run(env.SE, env.algCounters(AlgMDBase+int(m.d.id), m.Name()), &inst, w, dataDone{})
	return pending, err
}

// Final writes the digest at out and leaves the context fresh.
func (m *MD) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	c := (*mdCtx)(st)
	if out == nil || outsize < m.d.size {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for a %d-byte digest", outsize, m.d.size)
	}
	inst := m.instruction(c, cptdrv.FlagFinal)
	c.started = false
	inst.RPtr, inst.RLen = uintptr(out), uint32(m.d.size)
	return run(env.SE, env.algCounters(AlgMDBase+int(m.d.id), m.Name()), &inst, w, dataDone{})
}
