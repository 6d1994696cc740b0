package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/stats"
)

// AlgMACBase (CPT_ALG_MAC_BASE) puts HMAC's counters after the digests':
// HMAC over digest n counts as algorithm AlgMACBase+n.
const AlgMACBase = 24

// MAC is HMAC over one digest, on the device's symmetric engines (their
// HMAC mode of the hash opcode). Hashing a key longer than a block down to
// K0 is the driver's work, as on the real device.
type MAC struct {
	d *digest
}

// macCtx is an HMAC operation context, overlaid on C memory.
type macCtx struct {
	dev     cptdrv.HMACContext
	started bool // the device has keyed the message's hashes
	keySet  bool
}

// MACByID returns HMAC over the digest with CPT_MD_* id, or nil.
func MACByID(id int) *MAC {
	if MDByID(id) == nil {
		return nil
	}
	return &MAC{digestByID(uint32(id))}
}

// MACStateSize is the C memory an HMAC context needs (CPT_MAC_STATE_SIZE).
func MACStateSize() uintptr { return unsafe.Sizeof(macCtx{}) }

// Name is what HMAC's counters go by.
func (m *MAC) Name() string { return "HMAC-" + m.d.names[0] }

func (m *MAC) counters(env *Env) *stats.Alg {
	return env.algCounters(AlgMACBase+int(m.d.id), m.Name())
}

// SetKey keys the context and starts a new message.
func (m *MAC) SetKey(st unsafe.Pointer, key []byte) *Error {
	c := (*macCtx)(st)
	h := m.d.newHash()
	if len(key) > h.BlockSize() {
		h.Write(key)
		key = h.Sum(nil)
	}
	clear(c.dev.Key[:])
	copy(c.dev.Key[:], key)
	c.dev.KeyLen = uint32(len(key))
	c.keySet, c.started = true, false
	return nil
}

func (m *MAC) instruction(c *macCtx, flags uint16) cptdrv.Instruction {
	flags |= cptdrv.FlagHMAC
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

// Update adds inl bytes at in to the message.
func (m *MAC) Update(env *Env, st unsafe.Pointer, in unsafe.Pointer, inl int, w Waiter) (bool, *Error) {
	c := (*macCtx)(st)
	switch {
	case !c.keySet:
		return false, errorf(ReasonMissingKey, "no key set")
	case inl == 0:
		return false, nil
	case uint64(inl) > 1<<32-1:
		return false, errorf(ReasonOperationFailed, "update of %d bytes is too large", inl)
	}
	inst := m.instruction(c, 0)
	inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
	_, pending, err := run(env.SE, m.counters(env), &inst, w, dataDone{})
	return pending, err
}

// Final writes the MAC at out; the next message needs a new key or init.
func (m *MAC) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	c := (*macCtx)(st)
	switch {
	case !c.keySet:
		return 0, false, errorf(ReasonMissingKey, "no key set")
	case out == nil || outsize < m.d.size:
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for a %d-byte MAC", outsize, m.d.size)
	}
	inst := m.instruction(c, cptdrv.FlagFinal)
	c.started = false
	inst.RPtr, inst.RLen = uintptr(out), uint32(m.d.size)
	return run(env.SE, m.counters(env), &inst, w, dataDone{})
}
