// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/subtle"
	"unsafe"

	"cptprov/cptdrv"
)

// EC keys on the NIST prime curves: key management and ECDH. Scalars are
// drawn here; public keys and shared secrets are point multiplications on
// the device's asymmetric engines.
type ec struct{}

const (
	ecMaxLen   = 66             // P-521 scalar and coordinate bytes
	ecMaxPoint = 1 + 2*ecMaxLen // uncompressed point
)

// ecKey is an EC key in C memory: a curve, and the parts the head says it
// has. pub is the uncompressed point 04||X||Y.
type ecKey struct {
	head KeyHead
	ecGroup
	priv [ecMaxLen]byte
	pub  [ecMaxPoint]byte
}

// ecGroup is a key's or a generation's curve with the sizes the C side
// answers from without a call into Go (struct cpt_ec_group): the order's
// bits, the security bits, the largest ECDSA signature, and the bytes of a
// coordinate (and of an ECDH secret).
type ecGroup struct {
	curve                          uint32 // cptdrv.Curve*, 0 while there is no group
	bits, secBits, sigLen, byteLen uint16
}

func groupOf(c *curve) ecGroup {
	return ecGroup{uint32(c.dev), uint16(c.bits), uint16(c.secBits), uint16(c.sigLen()), uint16(c.byteLen)}
}

// ecGen is an EC key-generation context in C memory.
type ecGen struct {
	ecGroup
}

// The C side reads these (struct cpt_ec_key, struct cpt_ec_group): golib
// checks them against it when it builds.
const (
	ECKeySize     = unsafe.Sizeof(ecKey{})
	ECGroupOffset = unsafe.Offsetof(ecKey{}.ecGroup)
	ECGroupSize   = unsafe.Sizeof(ecGroup{})
	ECPubOffset   = unsafe.Offsetof(ecKey{}.pub)
	ECGenSize     = unsafe.Sizeof(ecGen{})
)

// Both fit an operand slot and the key state the C side reserves.
var _ [scratchSlot - unsafe.Sizeof(ecKey{})]byte

func (ec) Name() string          { return "EC" }
func (ec) StateSize() uintptr    { return unsafe.Sizeof(ecKey{}) }
func (ec) GenStateSize() uintptr { return unsafe.Sizeof(ecGen{}) }

func (k *ecKey) c() *curve { return curveByID(k.curve) }

func (k *ecKey) privBytes() []byte { return k.priv[:k.c().byteLen] }
func (k *ecKey) pubBytes() []byte  { return k.pub[:1+2*k.c().byteLen] }

func ecGroupParam(p *Param) (*curve, *Error) {
	name, ok := p.UTF8()
	if ok && p.DataSize == 0 {
		// OpenSSL reads a group name as a C string whatever its data_size
		// (ec_backend.c, group_new_from_name), and callers rely on it: a
		// static OSSL_PARAM_utf8_string(..., 0) initialiser has size 0.
		name = cstring((*byte)(p.Data))
	}
	if !ok {
		return nil, errorf(ReasonBadParameter, "parameter \"group\" must be a UTF-8 string")
	}
	c := curveByName(name)
	if c == nil {
		return nil, errorf(ReasonBadParameter, "unsupported EC group %q (prime192v1, secp224r1, prime256v1, secp384r1, secp521r1)", name)
	}
	return c, nil
}

// setPub takes an encoded point, uncompressed or compressed, once the
// device has checked it is on the curve (and decompressed it).
func (k *ecKey) setPub(env *Env, v []byte) *Error {
	c := k.c()
	switch {
	case len(v) == 1+2*c.byteLen && (v[0] == 4 || v[0] == 6 || v[0] == 7):
		// 6 and 7: the hybrid form (X9.62), uncompressed with y's parity in
		// the prefix, which OpenSSL accepts too; the parity must match.
		if v[0] != 4 && v[0]&1 != v[len(v)-1]&1 {
			return errorf(ReasonInvalidKey, "EC public key: hybrid encoding with the wrong parity of y")
		}
		copy(k.pub[:], v)
		k.pub[0] = 4
		if err := ecCheckPoint(env, k); err != nil {
			clear(k.pub[:])
			return err
		}
	case len(v) == 1+c.byteLen && (v[0] == 2 || v[0] == 3):
		if err := ecDecompress(env, k, v); err != nil {
			return err
		}
	default:
		return errorf(ReasonInvalidKey, "EC public key must be a point of %d (uncompressed) or %d (compressed) bytes on %s",
			1+2*c.byteLen, 1+c.byteLen, c.name)
	}
	k.head.Has |= KeyHasPublic
	return nil
}

// ecDecompress has the device check a compressed point and write it into
// k.pub uncompressed.
func ecDecompress(env *Env, k *ecKey, v []byte) *Error {
	c := k.c()
	mem := env.getScratch()
	defer env.putScratch(mem)
	ops := mem[:len(v)]
	copy(ops, v)
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCCheck),
		Param1: c.dev,
		DPtr:   cptdrv.Addr(ops), DLen: uint32(len(ops)),
		RPtr: uintptr(unsafe.Pointer(&k.pub[0])), RLen: uint32(1 + 2*c.byteLen),
	}
	_, _, err := run(env.AE, env.algCounters(algEC, "EC"), &inst, nil, finishFunc(func(cptdrv.Result) (int, *Error) { return 0, nil }))
	return err
}

func (ec) Import(env *Env, st unsafe.Pointer, selection int, params Params) *Error {
	k := (*ecKey)(st)
	var c *curve
	var pub, priv []byte
	err := params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "group":
			c, err = ecGroupParam(p)
		case "pub":
			var ok bool
			if pub, ok = p.Octets(); !ok {
				err = errorf(ReasonBadParameter, "EC \"pub\" must be an octet string")
			}
		case "priv":
			if selection&SelectPrivate != 0 {
				var ok bool
				if priv, ok = p.BigEndian(); !ok {
					err = errorf(ReasonBadParameter, "EC \"priv\" must be an unsigned integer")
				}
			}
		case "p", "a", "b", "generator", "order":
			err = errorf(ReasonBadParameter, "explicit EC parameters are not supported: use a named group")
		}
		return err
	})
	if err != nil {
		return err
	}
	if c == nil {
		if k.curve == 0 {
			return errorf(ReasonBadParameter, "EC import without a group")
		}
		c = k.c()
	}
	*k = ecKey{head: KeyHead{Type: KeyEC, Has: KeyHasDomain}, ecGroup: groupOf(c)}
	if selection&SelectKeypair == 0 {
		return nil
	}
	if priv != nil {
		if len(priv) > c.byteLen {
			return errorf(ReasonInvalidKey, "EC private key longer than the %s order", c.name)
		}
		copy(k.priv[c.byteLen-len(priv):], priv)
		if !c.inRange(k.privBytes()) {
			clear(k.priv[:])
			return errorf(ReasonInvalidKey, "EC private key out of range for %s", c.name)
		}
		k.head.Has |= KeyHasPrivate
	}
	if pub != nil {
		if e := k.setPub(env, pub); e != nil {
			return e
		}
	} else if priv != nil {
		if _, e := ecPublic(env, k, nil); e != nil {
			return e
		}
	}
	if k.head.Has&KeyHasPublic == 0 && k.head.Has&KeyHasPrivate == 0 {
		return errorf(ReasonMissingKey, "no EC key in the parameters")
	}
	return nil
}

// ecPublic computes k's public point on the device.
func ecPublic(env *Env, k *ecKey, w Waiter) (bool, *Error) {
	c := k.c()
	return fixedBase(env, &k.head, c.dev, k.priv[:c.byteLen], k.pub[:1+2*c.byteLen], algEC, "EC", w)
}

func (ec) Export(env *Env, st unsafe.Pointer, selection int) ([]KeyParam, *Error) {
	k := (*ecKey)(st)
	c := k.c()
	if c == nil {
		return nil, errorf(ReasonMissingKey, "EC key without a group")
	}
	out := []KeyParam{{Name: "group", Type: TypeUTF8, Data: []byte(c.name)}}
	if selection&SelectKeypair != 0 && k.head.Has&KeyHasPublic != 0 {
		out = append(out, KeyParam{Name: "pub", Type: TypeOctet, Data: k.pubBytes()})
	}
	if selection&SelectPrivate != 0 && k.head.Has&KeyHasPrivate != 0 {
		out = append(out, KeyParam{Name: "priv", Type: TypeUnsigned, Data: k.privBytes()})
	}
	return out, nil
}

func (ec) GetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	k := (*ecKey)(st)
	c := k.c()
	return params.Walk(func(name string, p *Param) (err *Error) {
		if c == nil {
			if name == "bits" || name == "group" || name == "encoded-pub-key" {
				err = errorf(ReasonMissingKey, "EC key without a group")
			}
			return err
		}
		switch name {
		case "bits":
			err = setUint(p, name, uint64(c.bits))
		case "security-bits":
			err = setUint(p, name, uint64(c.secBits))
		case "max-size":
			err = setUint(p, name, uint64(c.sigLen()))
		case "group":
			if !p.SetUTF8(c.name) {
				err = errorf(ReasonBadParameter, "parameter \"group\": buffer too small")
			}
		case "point-format":
			if !p.SetUTF8("uncompressed") {
				err = errorf(ReasonBadParameter, "parameter %q: buffer too small", name)
			}
		case "default-digest":
			if !p.SetUTF8("SHA256") {
				err = errorf(ReasonBadParameter, "parameter %q: buffer too small", name)
			}
		case "encoded-pub-key", "pub":
			if k.head.Has&KeyHasPublic == 0 {
				err = errorf(ReasonMissingKey, "the EC key has no public part")
			} else if !p.SetOctets(k.pubBytes()) {
				err = errorf(ReasonBadParameter, "parameter %q: buffer too small", name)
			}
		}
		return err
	})
}

func (ec) SetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	k := (*ecKey)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		if name == "encoded-pub-key" {
			v, ok := p.Octets()
			switch {
			case !ok:
				err = errorf(ReasonBadParameter, "parameter \"encoded-pub-key\" must be an octet string")
			case k.c() == nil:
				err = errorf(ReasonMissingKey, "EC key without a group")
			default:
				clear(k.priv[:])
				k.head.Has &^= KeyHasPrivate | KeyHasPublic
				err = k.setPub(env, v)
			}
		}
		return err
	})
}

func (ec) Match(a, b unsafe.Pointer, selection int) bool {
	ka, kb := (*ecKey)(a), (*ecKey)(b)
	if ka.curve != kb.curve {
		return false
	}
	if selection&SelectKeypair == 0 {
		return true
	}
	if selection&SelectPublic != 0 && ka.head.Has&kb.head.Has&KeyHasPublic != 0 {
		return subtle.ConstantTimeCompare(ka.pubBytes(), kb.pubBytes()) == 1
	}
	if selection&SelectPrivate != 0 && ka.head.Has&kb.head.Has&KeyHasPrivate != 0 {
		return subtle.ConstantTimeCompare(ka.privBytes(), kb.privBytes()) == 1
	}
	return false
}

// Validate checks the selected parts; a public point is checked on the
// device (a multiplication by 1 that rejects points off the curve), a key
// pair by recomputing the public point.
func (ec) Validate(env *Env, st unsafe.Pointer, selection int) *Error {
	k := (*ecKey)(st)
	c := k.c()
	switch {
	case c == nil:
		return errorf(ReasonInvalidKey, "EC key without a curve")
	case selection&SelectPublic != 0 && k.head.Has&KeyHasPublic == 0:
		return errorf(ReasonPointAtInfinity, "EC key without a public point")
	case selection&SelectPublic != 0 && ecCheckPoint(env, k) != nil:
		return errorf(ReasonPointIsNotOnCurve, "the public point is not on %s", c.name)
	case selection&SelectPrivate != 0 && k.head.Has&KeyHasPrivate == 0:
		return errorf(ReasonMissingPrivateKey, "EC key without a private key")
	case selection&SelectPrivate != 0 && !c.inRange(k.privBytes()):
		return errorf(ReasonInvalidPrivateKey, "EC private key out of range")
	}
	if selection&SelectKeypair == SelectKeypair {
		mem := env.getScratch()
		defer env.putScratch(mem)
		check := (*ecKey)(unsafe.Pointer(&mem[0]))
		check.curve, check.priv = k.curve, k.priv
		if _, err := ecPublic(env, check, nil); err != nil {
			return err
		}
		if subtle.ConstantTimeCompare(check.pubBytes(), k.pubBytes()) != 1 {
			return errorf(ReasonInvalidPrivateKey, "the EC private key is not the public key's")
		}
	}
	return nil
}

// ecCheckPoint has the device check that k's public point is on the curve.
func ecCheckPoint(env *Env, k *ecKey) *Error {
	c := k.c()
	mem := env.getScratch()
	defer env.putScratch(mem)
	ops := mem[:1+2*c.byteLen]
	copy(ops, k.pubBytes())
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCCheck),
		Param1: c.dev,
		DPtr:   cptdrv.Addr(ops), DLen: uint32(len(ops)),
	}
	_, _, err := run(env.AE, env.algCounters(algEC, "EC"), &inst, nil, finishFunc(func(cptdrv.Result) (int, *Error) { return 0, nil }))
	return err
}

func (ec) GenSetParams(env *Env, gen unsafe.Pointer, params Params) *Error {
	g := (*ecGen)(gen)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "group":
			var c *curve
			if c, err = ecGroupParam(p); err == nil {
				g.ecGroup = groupOf(c)
			}
		case "point-format":
			if v, ok := p.UTF8(); !ok || v != "uncompressed" {
				err = errorf(ReasonBadParameter, "only the uncompressed point format is supported")
			}
		}
		return err
	})
}

// GenSetTemplate takes the group of a template key.
func (ec) GenSetTemplate(gen, template unsafe.Pointer) *Error {
	t := (*ecKey)(template)
	if t.curve == 0 {
		return errorf(ReasonBadParameter, "EC template key without a group")
	}
	(*ecGen)(gen).ecGroup = t.ecGroup
	return nil
}

// Generate makes domain parameters only, or a key pair: a scalar drawn
// here, its public point from the device.
func (ec) Generate(env *Env, gen, st unsafe.Pointer, selection int, w Waiter) (bool, *Error) {
	g, k := (*ecGen)(gen), (*ecKey)(st)
	c := curveByID(g.curve)
	if c == nil {
		return false, errorf(ReasonBadParameter, "EC key generation without a group")
	}
	*k = ecKey{head: KeyHead{Type: KeyEC, Has: KeyHasDomain}, ecGroup: groupOf(c)}
	if selection&SelectKeypair == 0 {
		return false, nil
	}
	if err := c.randomScalar(k.privBytes()); err != nil {
		return false, errorf(ReasonOperationFailed, "drawing an EC key: %v", err)
	}
	k.head.Has |= KeyHasPrivate
	return ecPublic(env, k, w)
}

// Derive computes the ECDH shared secret, the x coordinate of priv·peer,
// on the device, which rejects a peer point off the curve.
func (ec) Derive(env *Env, key, peer, scratch, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	k, pk := (*ecKey)(key), (*ecKey)(peer)
	if k == nil || k.head.Has&KeyHasPrivate == 0 || pk == nil || pk.head.Has&KeyHasPublic == 0 {
		return 0, false, errorf(ReasonMissingKey, "ECDH needs a private key and a peer public key")
	}
	if k.curve != pk.curve {
		return 0, false, errorf(ReasonInvalidKey, "ECDH peer key is on another curve")
	}
	c := k.c()
	if out == nil {
		return c.byteLen, false, nil
	}
	if outsize < c.byteLen {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer of %d bytes for a %d-byte secret", outsize, c.byteLen)
	}
	ops := unsafe.Slice((*byte)(scratch), c.byteLen+1+2*c.byteLen)
	copy(ops, k.privBytes())
	copy(ops[c.byteLen:], pk.pubBytes())
	inst := cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorECC, cptdrv.MinorECCShared),
		Param1: c.dev,
		DPtr:   uintptr(scratch), DLen: uint32(len(ops)),
		RPtr: uintptr(out), RLen: uint32(c.byteLen),
	}
	n, pending, err := run(env.AE, env.algCounters(algECDH, "ECDH"), &inst, w, finishFunc(func(cptdrv.Result) (int, *Error) {
		clear(ops)
		return c.byteLen, nil
	}))
	if !pending {
		clear(ops)
	}
	return n, pending, err
}
