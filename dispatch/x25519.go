// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/rand"
	"crypto/subtle"
	"strings"
	"unsafe"

	"cptprov/cptdrv"
)

// X25519 (RFC 7748): key management and key exchange. Key generation is a
// fixed-base multiplication and derivation a variable-base one, both on the
// device's asymmetric engines; the private key is drawn and clamped here.
type x25519 struct{}

const x25519Len = 32

// x25519Key is an X25519 key in C memory.
type x25519Key struct {
	head KeyHead
	pub  [x25519Len]byte
	priv [x25519Len]byte
}

// The C side reads and writes the key's public part (struct
// cpt_x25519_key): golib checks these against it when it builds.
const (
	X25519KeySize    = unsafe.Sizeof(x25519Key{})
	X25519PubOffset  = unsafe.Offsetof(x25519Key{}.pub)
	X25519PrivOffset = unsafe.Offsetof(x25519Key{}.priv)
)

// A key fits an operand slot (Validate recomputes one there).
var _ [scratchSlot - unsafe.Sizeof(x25519Key{})]byte

// x25519Gen is a key-generation context in C memory (X25519 has no
// parameters to remember).
type x25519Gen struct {
	selection uint32
}

func (x25519) Name() string          { return "X25519" }
func (x25519) StateSize() uintptr    { return unsafe.Sizeof(x25519Key{}) }
func (x25519) GenStateSize() uintptr { return unsafe.Sizeof(x25519Gen{}) }

func (x25519) Import(env *Env, st unsafe.Pointer, selection int, params Params) *Error {
	k := (*x25519Key)(st)
	if selection&SelectKeypair == 0 {
		return errorf(ReasonBadParameter, "X25519 import needs the public or the private key selected")
	}
	var pub, priv []byte
	err := params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "pub":
			pub, err = x25519Octets(p, name)
		case "priv":
			if selection&SelectPrivate != 0 {
				priv, err = x25519Octets(p, name)
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	if pub == nil && priv == nil {
		return errorf(ReasonMissingKey, "no X25519 key in the parameters")
	}
	k.head = KeyHead{Type: KeyX25519}
	if priv != nil {
		copy(k.priv[:], priv)
		k.head.Has |= KeyHasPrivate
		if pub == nil {
			// The public key follows from the private one.
			if _, e := x25519Public(env, k, nil); e != nil {
				clear(k.priv[:])
				k.head.Has = 0
				return e
			}
		}
	}
	if pub != nil {
		copy(k.pub[:], pub)
		k.head.Has |= KeyHasPublic
	}
	return nil
}

func x25519Octets(p *Param, name string) ([]byte, *Error) {
	v, ok := p.Octets()
	if !ok || len(v) != x25519Len {
		return nil, errorf(ReasonBadParameter, "X25519 %q must be an octet string of 32 bytes", name)
	}
	return v, nil
}

// x25519Public computes k's public key on the device.
func x25519Public(env *Env, k *x25519Key, w Waiter) (bool, *Error) {
	return fixedBase(env, &k.head, cptdrv.CurveX25519, k.priv[:], k.pub[:], algX25519, "X25519", w)
}

func (x25519) Export(env *Env, st unsafe.Pointer, selection int) ([]KeyParam, *Error) {
	k := (*x25519Key)(st)
	var out []KeyParam
	if selection&SelectKeypair != 0 && k.head.Has&KeyHasPublic != 0 {
		out = append(out, KeyParam{Name: "pub", Type: TypeOctet, Data: k.pub[:]})
	}
	if selection&SelectPrivate != 0 && k.head.Has&KeyHasPrivate != 0 {
		out = append(out, KeyParam{Name: "priv", Type: TypeOctet, Data: k.priv[:]})
	}
	return out, nil
}

func (x25519) GetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	k := (*x25519Key)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "bits":
			err = setUint(p, name, 253)
		case "security-bits":
			err = setUint(p, name, 128)
		case "max-size":
			err = setUint(p, name, x25519Len)
		case "encoded-pub-key", "pub":
			if k.head.Has&KeyHasPublic == 0 {
				err = errorf(ReasonMissingKey, "the X25519 key has no public part")
			} else if !p.SetOctets(k.pub[:]) {
				err = errorf(ReasonBadParameter, "parameter %q: buffer of %d bytes for 32", name, p.DataSize)
			}
		case "priv":
			if k.head.Has&KeyHasPrivate != 0 && !p.SetOctets(k.priv[:]) {
				err = errorf(ReasonBadParameter, "parameter %q: buffer of %d bytes for 32", name, p.DataSize)
			}
		}
		return err
	})
}

// SetParams takes a peer's public key (TLS key shares arrive this way).
func (x25519) SetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	k := (*x25519Key)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		if name == "encoded-pub-key" {
			var v []byte
			if v, err = x25519Octets(p, name); err == nil {
				clear(k.priv[:])
				copy(k.pub[:], v)
				k.head = KeyHead{Type: KeyX25519, Has: KeyHasPublic}
			}
		}
		return err
	})
}

func (x25519) Match(a, b unsafe.Pointer, selection int) bool {
	ka, kb := (*x25519Key)(a), (*x25519Key)(b)
	if selection&SelectKeypair == 0 {
		return true // X25519 has no domain parameters of its own
	}
	if selection&SelectPublic != 0 && ka.head.Has&kb.head.Has&KeyHasPublic != 0 {
		return subtle.ConstantTimeCompare(ka.pub[:], kb.pub[:]) == 1
	}
	if selection&SelectPrivate != 0 && ka.head.Has&kb.head.Has&KeyHasPrivate != 0 {
		return subtle.ConstantTimeCompare(ka.priv[:], kb.priv[:]) == 1
	}
	return false
}

// Validate checks what is selected is present and, for a key pair, that the
// public key is the private key's.
func (x25519) Validate(env *Env, st unsafe.Pointer, selection int) *Error {
	k := (*x25519Key)(st)
	if selection&SelectPublic != 0 && k.head.Has&KeyHasPublic == 0 {
		return errorf(ReasonNotAPublicKey, "X25519 key without a public key")
	}
	if selection&SelectPrivate != 0 && k.head.Has&KeyHasPrivate == 0 {
		return errorf(ReasonNotAPrivateKey, "X25519 key without a private key")
	}
	if selection&SelectKeypair == SelectKeypair {
		// Recompute the public key into operand memory and compare.
		mem := env.getScratch()
		defer env.putScratch(mem)
		check := (*x25519Key)(unsafe.Pointer(&mem[0]))
		check.priv = k.priv
		if _, err := x25519Public(env, check, nil); err != nil {
			return err
		}
		if subtle.ConstantTimeCompare(check.pub[:], k.pub[:]) != 1 {
			return errorf(ReasonInvalidKey, "the X25519 private key is not the public key's")
		}
	}
	return nil
}

func (x25519) GenSetParams(env *Env, gen unsafe.Pointer, params Params) *Error {
	return params.Walk(func(name string, p *Param) (err *Error) {
		if name == "group" {
			if v, ok := p.UTF8(); !ok || !strings.EqualFold(v, "x25519") {
				err = errorf(ReasonBadParameter, "X25519 key generation only knows the group \"x25519\"")
			}
		}
		return err
	})
}

// GenSetTemplate has nothing to take: X25519 has no domain parameters.
func (x25519) GenSetTemplate(gen, template unsafe.Pointer) *Error { return nil }

// Generate draws a private key, clamps it as RFC 7748 decodes scalars (and
// as OpenSSL stores them), and has the device compute the public key.
func (x25519) Generate(env *Env, gen, st unsafe.Pointer, selection int, w Waiter) (bool, *Error) {
	k := (*x25519Key)(st)
	*k = x25519Key{head: KeyHead{Type: KeyX25519}}
	if selection&SelectKeypair == 0 {
		return false, nil // X25519 has no domain parameters to make
	}
	if _, err := rand.Read(k.priv[:]); err != nil {
		return false, errorf(ReasonOperationFailed, "drawing an X25519 key: %v", err)
	}
	k.priv[0] &= 248
	k.priv[31] &= 127
	k.priv[31] |= 64
	k.head.Has = KeyHasPrivate
	return x25519Public(env, k, w)
}

// Derive computes X25519(priv, peer pub) on the device; an all-zero result
// (a low-order peer point) is an error, as RFC 7748 section 6.1 allows and
// TLS requires.
func (x25519) Derive(env *Env, key, peer, scratch, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	k, pk := (*x25519Key)(key), (*x25519Key)(peer)
	if k == nil || k.head.Has&KeyHasPrivate == 0 || pk == nil || pk.head.Has&KeyHasPublic == 0 {
		return 0, false, errorf(ReasonMissingKey, "X25519 derivation needs a private key and a peer public key")
	}
	if out == nil {
		return x25519Len, false, nil
	}
	if outsize < x25519Len {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer of %d bytes for a 32-byte secret", outsize)
	}
	ops := unsafe.Slice((*byte)(scratch), 2*x25519Len)
	copy(ops, k.priv[:])
	copy(ops[x25519Len:], pk.pub[:])
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCShared),
		Param1: cptdrv.CurveX25519,
		DPtr:   uintptr(scratch), DLen: 2 * x25519Len,
		RPtr: uintptr(out), RLen: x25519Len,
	}
	n, pending, err := run(env.AE, env.algCounters(algX25519, "X25519"), &inst, w, finishFunc(func(res cptdrv.Result) (int, *Error) {
		clear(ops)
		return x25519Len, nil
	}))
	if !pending {
		clear(ops) // the C side also wipes the context when it is freed
	}
	return n, pending, err
}
