// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"unsafe"

	"cptprov/cptdrv"
)

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
	c.dev.Inner.StateLen = 0 // no bytes of a message wait
	return nil
}

func (m *MAC) job(env *Env, c *macCtx) hashJob {
	return hashJob{d: m.d, flags: cptdrv.FlagHMAC, started: &c.started, ctx: unsafe.Pointer(&c.dev),
		held: &c.dev.Inner, alg: env.algCounters(AlgMACBase+int(m.d.id), m.Name())}
}

// Update adds inl bytes at in to the message.
func (m *MAC) Update(env *Env, st unsafe.Pointer, in unsafe.Pointer, inl int, w Waiter) (bool, *Error) {
	c := (*macCtx)(st)
	if !c.keySet {
		return false, errorf(ReasonMissingKey, "no key set")
	}
	return m.job(env, c).update(env, in, inl, w)
}

// Final writes the MAC at out; the next message needs a new key or init.
func (m *MAC) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	c := (*macCtx)(st)
	if !c.keySet {
		return 0, false, errorf(ReasonMissingKey, "no key set")
	}
	return m.job(env, c).final(env, out, outsize, w)
}
