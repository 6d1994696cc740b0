// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"math/big"
	"strings"
	"unsafe"

	"cptprov/cptdrv"
)

// RSA keys, and RSA-PSS keys (RFC 4055: RSA keys for PSS signatures only,
// possibly restricted to a digest, an MGF1 digest and a minimum salt).
// Generation runs on the CPU (crypto/rsa), as the issue allows; every use
// of a key is a modular exponentiation on the device.
type rsaKT struct{ pss bool }

const (
	rsaMaxLen   = 1024 // 8192-bit modulus
	rsaMaxPrime = rsaMaxLen / 2
	rsaMaxE     = 64
)

// rsaKey is an RSA key in C memory; numbers big-endian, right-aligned in
// their field widths (nLen and pLen bytes).
type rsaKey struct {
	head   KeyHead
	nLen   uint32
	eLen   uint32
	pLen   uint32
	hasCRT uint32
	pss    pssRestriction
	n      [rsaMaxLen]byte
	e      [rsaMaxE]byte
	d      [rsaMaxLen]byte
	p, q   [rsaMaxPrime]byte
	dp, dq [rsaMaxPrime]byte
	qinv   [rsaMaxPrime]byte
}

// pssRestriction is what an RSA-PSS key allows (md 0: unrestricted).
type pssRestriction struct {
	isPSS   uint32
	md      uint32
	mgf1    uint32
	saltMin int32
}

// rsaGen is an RSA key-generation context in C memory.
type rsaGen struct {
	bits uint32
	e    uint32
	pss  pssRestriction
}

func (t rsaKT) Name() string {
	if t.pss {
		return "RSA-PSS"
	}
	return "RSA"
}

func (t rsaKT) keyType() uint32 {
	if t.pss {
		return KeyRSAPSS
	}
	return KeyRSA
}

// restriction reads an RSA-PSS key's restriction parameters.
func (t rsaKT) restriction(params Params, r *pssRestriction) *Error {
	if !t.pss {
		return nil
	}
	r.isPSS = 1
	restricted := false
	err := params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "digest", "mgf1-digest", "mgf", "saltlen":
			restricted = true
		}
		switch name {
		case "digest", "mgf1-digest":
			v, _ := p.UTF8()
			d := digestByName(v)
			if d == nil {
				err = errorf(ReasonBadParameter, "RSA-PSS %s %q not supported", name, v)
			} else if name == "digest" {
				r.md = d.id
			} else {
				r.mgf1 = d.id
			}
		case "mgf":
			if v, _ := p.UTF8(); !strings.EqualFold(v, "MGF1") {
				err = errorf(ReasonBadParameter, "RSA-PSS mask generation %q (only MGF1)", v)
			}
		case "saltlen":
			v, ok := p.Uint64()
			if !ok || v > 1<<16 {
				err = errorf(ReasonBadParameter, "RSA-PSS saltlen must be a small integer")
			} else {
				r.saltMin = int32(v)
			}
		}
		return err
	})
	if err == nil && restricted {
		// What a restricted key leaves out takes RFC 4055's defaults:
		// SHA-1, MGF1 with SHA-1, a 20-byte salt.
		sha1 := digestByName("SHA1").id
		if r.md == 0 {
			r.md = sha1
		}
		if r.mgf1 == 0 {
			r.mgf1 = sha1
		}
		if !hasParam(params, "saltlen") {
			r.saltMin = 20
		}
	}
	return err
}

func hasParam(params Params, name string) bool { return params.Locate(name) != nil }
func (rsaKT) StateSize() uintptr               { return unsafe.Sizeof(rsaKey{}) }
func (rsaKT) GenStateSize() uintptr            { return unsafe.Sizeof(rsaGen{}) }

func (k *rsaKey) N() []byte { return k.n[:k.nLen] }
func (k *rsaKey) E() []byte { return k.e[:k.eLen] }

func (k *rsaKey) bits() int {
	if k.nLen == 0 {
		return 0
	}
	return int(k.nLen-1)*8 + bitLen8(k.n[0])
}

func bitLen8(b byte) int {
	n := 0
	for b != 0 {
		n++
		b >>= 1
	}
	return n
}

// setNum stores v (big-endian, leading zeros allowed) right-aligned in dst.
// int32Bytes is v as the big-endian bytes an exported integer takes (the C
// side converts to native order).
func int32Bytes(v int32) []byte {
	return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

func setNum(dst []byte, v []byte) bool {
	for len(v) > 0 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) > len(dst) {
		return false
	}
	clear(dst)
	copy(dst[len(dst)-len(v):], v)
	return true
}

var rsaParamNames = []string{"n", "e", "d", "rsa-factor1", "rsa-factor2", "rsa-exponent1", "rsa-exponent2", "rsa-coefficient1"}

func (t rsaKT) Import(env *Env, st unsafe.Pointer, selection int, params Params) *Error {
	k := (*rsaKey)(st)
	vals := map[string][]byte{}
	err := params.Walk(func(name string, p *Param) (err *Error) {
		for _, want := range rsaParamNames {
			if name == want {
				v, ok := p.BigEndian()
				if !ok {
					err = errorf(ReasonBadParameter, "RSA %q must be an unsigned integer", name)
				}
				vals[name] = v
			}
		}
		if name == "rsa-factor3" {
			err = errorf(ReasonBadParameter, "multi-prime RSA keys are not supported")
		}
		return err
	})
	if err != nil {
		return err
	}
	if selection&SelectKeypair == 0 {
		return errorf(ReasonBadParameter, "RSA import needs the public or the private key selected")
	}
	n, e := vals["n"], vals["e"]
	if len(n) == 0 || len(e) == 0 {
		return errorf(ReasonMissingKey, "RSA import needs n and e")
	}
	// As the default provider, import takes any modulus and leaves the
	// rules to the key checks and to the operations; the one limit is the
	// device's largest operand.
	n = trimPublicBytes(n)
	if len(n) > rsaMaxLen || len(n) == 0 {
		return errorf(ReasonInvalidKey, "RSA modulus of %d bytes (1 to 8192 bits)", len(n))
	}
	k.dropCheck()
	*k = rsaKey{head: KeyHead{Type: t.keyType()}, nLen: uint32(len(n))}
	if err := t.restriction(params, &k.pss); err != nil {
		return err
	}
	copy(k.n[:], n)
	if len(e) > rsaMaxE {
		return errorf(ReasonInvalidKey, "RSA public exponent too long")
	}
	k.eLen = uint32(len(e))
	copy(k.e[:], e)
	k.head.Has = KeyHasPublic
	if selection&SelectPrivate == 0 || vals["d"] == nil {
		return nil
	}
	if !setNum(k.d[:k.nLen], vals["d"]) {
		return errorf(ReasonInvalidKey, "RSA private exponent longer than the modulus")
	}
	k.head.Has |= KeyHasPrivate
	p, q := vals["rsa-factor1"], vals["rsa-factor2"]
	if p == nil || q == nil || vals["rsa-exponent1"] == nil || vals["rsa-exponent2"] == nil || vals["rsa-coefficient1"] == nil {
		return nil // exponentiation without CRT
	}
	pl := (len(n) + 1) / 2
	k.pLen = uint32(pl)
	ok := setNum(k.p[:pl], p) && setNum(k.q[:pl], q) && setNum(k.dp[:pl], vals["rsa-exponent1"]) &&
		setNum(k.dq[:pl], vals["rsa-exponent2"]) && setNum(k.qinv[:pl], vals["rsa-coefficient1"])
	if !ok {
		return errorf(ReasonInvalidKey, "RSA CRT values longer than half the modulus")
	}
	k.hasCRT = 1
	return nil
}

func (rsaKT) Export(env *Env, st unsafe.Pointer, selection int) ([]KeyParam, *Error) {
	k := (*rsaKey)(st)
	var out []KeyParam
	if r := k.pss; r.md != 0 {
		out = append(out,
			KeyParam{Name: "digest", Type: TypeUTF8, Data: []byte(digestByID(r.md).names[0])},
			KeyParam{Name: "mgf", Type: TypeUTF8, Data: []byte("MGF1")},
			KeyParam{Name: "mgf1-digest", Type: TypeUTF8, Data: []byte(digestByID(r.mgf1).names[0])},
			KeyParam{Name: "saltlen", Type: TypeInteger, Data: int32Bytes(r.saltMin)})
	}
	if selection&SelectKeypair == 0 || k.head.Has&KeyHasPublic == 0 {
		return nil, nil
	}
	num := func(name string, v []byte) {
		for len(v) > 1 && v[0] == 0 {
			v = v[1:]
		}
		out = append(out, KeyParam{Name: name, Type: TypeUnsigned, Data: v})
	}
	num("n", k.N())
	num("e", k.E())
	if selection&SelectPrivate != 0 && k.head.Has&KeyHasPrivate != 0 {
		num("d", k.d[:k.nLen])
		if k.hasCRT != 0 {
			pl := k.pLen
			num("rsa-factor1", k.p[:pl])
			num("rsa-factor2", k.q[:pl])
			num("rsa-exponent1", k.dp[:pl])
			num("rsa-exponent2", k.dq[:pl])
			num("rsa-coefficient1", k.qinv[:pl])
		}
	}
	return out, nil
}

// rsaSecurityBits is OpenSSL's estimate for a modulus of n bits
// (ossl_ifc_ffc_compute_security_bits): SP 800-56B's table, else its
// formula in OpenSSL's fixed point, step for step, since floating point
// rounds some lengths to the next multiple of 8.
func rsaSecurityBits(n int) int {
	switch n {
	case 2048:
		return 112
	case 3072:
		return 128
	case 4096:
		return 152
	case 6144:
		return 176
	case 7680:
		return 192
	case 8192:
		return 200
	case 15360:
		return 256
	}
	if n >= 687737 {
		return 1200
	}
	if n < 8 {
		return 0
	}
	capBits := uint16(1200)
	if n <= 7680 {
		capBits = 192
	} else if n <= 15360 {
		capBits = 256
	}
	x := uint64(n) * secLog2
	lx := secLogE(x)
	y := uint16((secMul(secC1923, secCbrt(secMul(secMul(x, lx), lx))) - secC4690) / secLog2)
	return int(min((y+4)&^7, capBits))
}

// OpenSSL's fixed point for the estimate: numbers scaled by 2^18.
const (
	secScale     = 1 << 18
	secCbrtScale = 1 << (2 * 18 / 3)
	secLog2      = 0x02c5c8 // scale * ln(2)
	secLog2E     = 0x05c551 // scale * log2(e)
	secC1923     = 0x07b126 // scale * 1.923
	secC4690     = 0x12c28f // scale * 4.690
)

func secMul(a, b uint64) uint64 { return a * b / secScale }

// secCbrt is the cube root of a scaled number (the shifting nth root).
func secCbrt(x uint64) uint64 {
	var r uint64
	for s := 63; s >= 0; s -= 3 {
		r <<= 1
		b := 3*r*(r+1) + 1
		if x>>s >= b {
			x -= b << s
			r++
		}
	}
	return r * secCbrtScale
}

// secLogE is the natural logarithm of a scaled number above 1, through its
// base 2 logarithm.
func secLogE(v uint64) uint64 {
	var r uint64
	for v >= 2*secScale {
		v >>= 1
		r += secScale
	}
	for i := uint64(secScale / 2); i != 0; i /= 2 {
		v = secMul(v, v)
		if v >= 2*secScale {
			v >>= 1
			r += i
		}
	}
	return uint64(uint32(r * secScale / secLog2E))
}

func (rsaKT) GetParams(env *Env, st unsafe.Pointer, params Params) *Error {
	k := (*rsaKey)(st)
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "bits":
			err = setUint(p, name, uint64(k.bits()))
		case "security-bits":
			err = setUint(p, name, uint64(rsaSecurityBits(k.bits())))
		case "max-size":
			err = setUint(p, name, uint64(k.nLen))
		case "default-digest":
			if !p.SetUTF8("SHA256") {
				err = errorf(ReasonBadParameter, "parameter %q: buffer too small", name)
			}
		}
		return err
	})
}

func (rsaKT) SetParams(env *Env, st unsafe.Pointer, params Params) *Error { return nil }

func (rsaKT) Match(a, b unsafe.Pointer, selection int) bool {
	ka, kb := (*rsaKey)(a), (*rsaKey)(b)
	if selection&SelectKeypair == 0 {
		return true
	}
	if ka.head.Has&kb.head.Has&KeyHasPublic == 0 {
		return false
	}
	ok := ka.nLen == kb.nLen && subtle.ConstantTimeCompare(ka.N(), kb.N()) == 1 && subtle.ConstantTimeCompare(ka.E(), kb.E()) == 1
	if ok && selection&SelectPublic == 0 && selection&SelectPrivate != 0 {
		ok = ka.head.Has&kb.head.Has&KeyHasPrivate != 0 && subtle.ConstantTimeCompare(ka.d[:ka.nLen], kb.d[:kb.nLen]) == 1
	}
	return ok
}

// Validate runs the default provider's key checks (rsakeycheck.go).
func (rsaKT) Validate(env *Env, st unsafe.Pointer, selection int) *Error {
	return validateError((*rsaKey)(st).validate(selection))
}

func (t rsaKT) GenSetParams(env *Env, gen unsafe.Pointer, params Params) *Error {
	g := (*rsaGen)(gen)
	if err := t.restriction(params, &g.pss); err != nil {
		return err
	}
	return params.Walk(func(name string, p *Param) (err *Error) {
		switch name {
		case "bits":
			v, ok := p.Uint64()
			if !ok || v < 1024 || v > 8192 {
				err = errorf(ReasonBadParameter, "RSA key generation: bits must be 1024 to 8192")
			} else {
				g.bits = uint32(v)
			}
		case "primes":
			if v, ok := p.Uint64(); !ok || v != 2 {
				err = errorf(ReasonBadParameter, "RSA key generation: only two primes")
			}
		case "e":
			if v, ok := p.BigEndian(); !ok || new(big.Int).SetBytes(v).Cmp(big.NewInt(65537)) != 0 {
				err = errorf(ReasonBadParameter, "RSA key generation: only e = 65537")
			}
		}
		return err
	})
}

func (rsaKT) GenSetTemplate(gen, template unsafe.Pointer) *Error { return nil }

// Generate makes a key pair on the CPU; the device has no prime search.
func (t rsaKT) Generate(env *Env, gen, st unsafe.Pointer, selection int, w Waiter) (bool, *Error) {
	g, k := (*rsaGen)(gen), (*rsaKey)(st)
	k.dropCheck()
	*k = rsaKey{head: KeyHead{Type: t.keyType()}, pss: g.pss}
	if t.pss {
		k.pss.isPSS = 1
	}
	if selection&SelectKeypair == 0 {
		return false, nil
	}
	bits := int(g.bits)
	if bits == 0 {
		bits = 2048
	}
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return false, errorf(ReasonOperationFailed, "generating an RSA key: %v", err)
	}
	nb := key.N.Bytes()
	k.nLen = uint32(len(nb))
	copy(k.n[:], nb)
	eb := big.NewInt(int64(key.E)).Bytes()
	k.eLen = uint32(copy(k.e[:], eb))
	key.D.FillBytes(k.d[:k.nLen])
	pl := int(k.nLen+1) / 2
	k.pLen = uint32(pl)
	key.Primes[0].FillBytes(k.p[:pl])
	key.Primes[1].FillBytes(k.q[:pl])
	key.Precomputed.Dp.FillBytes(k.dp[:pl])
	key.Precomputed.Dq.FillBytes(k.dq[:pl])
	key.Precomputed.Qinv.FillBytes(k.qinv[:pl])
	k.hasCRT = 1
	k.head.Has = KeyHasPublic | KeyHasPrivate
	return false, nil
}

func (rsaKT) Derive(env *Env, key, peer, scratch, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	return 0, false, errorf(ReasonBadParameter, "RSA keys do not derive")
}

// trimPublicBytes strips the leading zero bytes of a public number.
func trimPublicBytes(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// rsaPublicOK applies the default provider's rules for the public
// operations (rsa_ossl_public_encrypt and _decrypt): e below n, and no more
// than 64 bits of e with a modulus above 3072 bits.
func rsaPublicOK(k *rsaKey) *Error {
	n, e := k.N(), trimPublicBytes(k.E())
	if len(e) > len(n) || len(e) == len(n) && bytes.Compare(e, n) >= 0 {
		return errorf(ReasonBadEValue, "RSA public exponent not below the modulus")
	}
	if k.bits() > 3072 && len(e) > 8 {
		return errorf(ReasonBadEValue, "RSA public exponent of more than 64 bits with a modulus above 3072 bits")
	}
	return nil
}

// rsaBelowModulus checks that the input of an exponentiation (a
// ciphertext, a signature, a block to sign or encrypt without padding: all
// the caller's, none secret) is below n, with the default provider's
// reason when it is not.
func rsaBelowModulus(k *rsaKey, in []byte) *Error {
	in, n := trimPublicBytes(in), k.N()
	if len(in) > len(n) || len(in) == len(n) && bytes.Compare(in, n) >= 0 {
		return errorf(ReasonDataTooLargeForModulus, "RSA input not below the modulus")
	}
	return nil
}

// rsaPublic computes in^e mod n into out on the device.
func rsaPublic(env *Env, k *rsaKey, in, out []byte, w Waiter) (bool, *Error) {
	if err := rsaPublicOK(k); err != nil {
		return false, err
	}
	if err := rsaBelowModulus(k, in); err != nil {
		return false, err
	}
	l, el := int(k.nLen), int(k.eLen)
	ops := dmaScratch(env, 2*l+el)
	copy(ops.b, k.N())
	copy(ops.b[l:], k.E())
	setNum(ops.b[l+el:], in)
	minor := uint8(cptdrv.MinorModExpPlain)
	if el <= 8 {
		minor = cptdrv.MinorModExpPublic // e is public: the engine's fast path
	}
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorModExp, minor), Param1: uint16(l), Param2: uint16(el)}
	return rsaRun(env, ops, &inst, out, w)
}

// rsaRun executes a modular exponentiation whose operands are in ops,
// writing len(out) bytes; the operands are wiped and returned once the
// device is done with them (after the call, or in the completion).
func rsaRun(env *Env, ops *scratchRun, inst *cptdrv.Instruction, out []byte, w Waiter) (bool, *Error) {
	inst.DPtr, inst.DLen = cptdrv.Addr(ops.b), uint32(len(ops.b))
	inst.RPtr, inst.RLen = cptdrv.Addr(out), uint32(len(out))
	_, pending, err := run(env.AE, env.algCounters(algRSA, "RSA"), inst, w, finishFunc(func(cptdrv.Result) (int, *Error) {
		if w != nil {
			ops.release()
		}
		return len(out), nil
	}))
	if !pending && (w == nil || err != nil) {
		ops.release()
	}
	return pending, err
}
