// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"sync/atomic"

	"cptprov/cptdrv"
	"cptprov/internal/rsacheck"
	"cptprov/stats"
)

// RSA private-key operations never release a result they have not
// checked. A CRT result with one wrong half, from a flipped bit in an
// engine or a key whose dP, dQ or qInv is wrong, gives away the key to
// whoever gets it (gcd(s^e - m, n) is a prime factor: the Bellcore
// attack). So the device's result lands in operand memory, where the host
// raises it to e and compares with the input; only a result that passes is
// copied out. One that fails is recomputed once without CRT (with d, as
// OpenSSL's rsa_ossl_mod_exp does), and checked again; if that fails too,
// the operation fails. This runs on every path a result can take: the
// device, the driver's software fallback, a circuit breaker's probe.
//
// Unlike OpenSSL, the check also covers results computed without CRT
// (keys without their factors): such a result cannot leak the key, but a
// wrong one must still not be released.

// CheckCounters counts private-key results that failed their check.
type CheckCounters struct {
	Rejected   atomic.Uint64 // results that failed their check
	Recomputed atomic.Uint64 // of those, recomputed without CRT and released after passing
}

// CheckEvent describes a result that failed its check, for the log.
type CheckEvent struct {
	Alg        string // the key type: RSA or RSA-PSS
	Bits       int
	Software   bool // computed by the driver's software fallback
	CRT        bool // the failed result was a CRT one
	Recomputed bool // a recomputation without CRT follows (false: the operation fails)
}

// rsaPriv is one private-key operation: its operands and result in
// operand memory, and which exponentiation runs next.
type rsaPriv struct {
	env   *Env
	k     *rsaKey
	in    []byte // the input, nLen bytes
	res   []byte // the device writes here, nLen bytes
	ops   []byte // the current instruction's operands
	mem   *scratchRun
	crt   bool
	inst  cptdrv.Instruction
	soft  bool // the last result came from the software fallback
	outer Waiter
	out   []byte
}

// newRSAPriv lays out in and a CRT (or, without the factors, plain)
// exponentiation in one run of operand memory: in, the result, operands.
func newRSAPriv(env *Env, k *rsaKey, in []byte) *rsaPriv {
	l, pl := int(k.nLen), int(k.pLen)
	opLen := 3 * l
	if k.hasCRT != 0 {
		opLen = max(opLen, 5*pl+l)
	}
	p := &rsaPriv{env: env, k: k, mem: dmaScratch(env, 2*l+opLen)}
	b := p.mem.b
	p.in, p.res, p.ops = b[:l:l], b[l:2*l:2*l], b[2*l:]
	setNum(p.in, in)
	p.setup(k.hasCRT != 0)
	return p
}

// setup writes the operands of a CRT or a plain exponentiation of in.
func (p *rsaPriv) setup(crt bool) {
	k, l := p.k, int(p.k.nLen)
	p.crt = crt
	clear(p.ops)
	var ops []byte
	if crt {
		pl := int(k.pLen)
		ops = p.ops[:5*pl+l]
		copy(ops, k.p[:pl])
		copy(ops[pl:], k.q[:pl])
		copy(ops[2*pl:], k.dp[:pl])
		copy(ops[3*pl:], k.dq[:pl])
		copy(ops[4*pl:], k.qinv[:pl])
		copy(ops[5*pl:], p.in)
		p.inst = cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpCRT), Param1: uint16(l), Param2: uint16(pl)}
	} else {
		ops = p.ops[:3*l]
		copy(ops, k.N())
		copy(ops[l:], k.d[:l])
		copy(ops[2*l:], p.in)
		p.inst = cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpPlain), Param1: uint16(l), Param2: uint16(l)}
	}
	p.inst.DPtr, p.inst.DLen = cptdrv.Addr(ops), uint32(len(ops))
	p.inst.RPtr, p.inst.RLen = cptdrv.Addr(p.res), uint32(len(p.res))
}

// rsaPrivate computes in^d mod n into out (nLen bytes) on the device, with
// CRT when the key has its factors, and writes out only once the result
// has passed its check. With a waiter it may complete asynchronously.
func rsaPrivate(env *Env, k *rsaKey, in, out []byte, w Waiter) (bool, *Error) {
	if err := rsaBelowModulus(k, in); err != nil {
		return false, err
	}
	p := newRSAPriv(env, k, in)
	p.out = out
	if w == nil {
		for {
			if _, _, err := run(env.AE, p.counters(), &p.inst, nil, p); err != nil {
				p.mem.release()
				return false, err
			}
			if done, err := p.check(); done {
				p.mem.release()
				return false, err
			}
		}
	}
	p.outer = w
	return p.submit()
}

// submit runs the current instruction asynchronously; p is its waiter.
func (p *rsaPriv) submit() (bool, *Error) {
	_, pending, err := run(p.env.AE, p.counters(), &p.inst, p, p)
	if !pending {
		p.mem.release()
	}
	return pending, err
}

func (p *rsaPriv) counters() *stats.Alg { return p.env.algCounters(algRSA, "RSA") }

// finish notes where the result came from; the check follows.
func (p *rsaPriv) finish(res cptdrv.Result) (int, *Error) {
	p.soft = res.Flags&cptdrv.FlagSoftware != 0
	return len(p.out), nil
}

// Complete is the asynchronous path's completion: check, then release the
// result or recompute it.
func (p *rsaPriv) Complete(n int, err *Error) {
	if err == nil {
		done, e := p.check()
		if !done {
			if pending, e := p.submit(); !pending {
				p.outer.Complete(0, e)
			}
			return
		}
		err = e
	}
	p.mem.release()
	if err != nil {
		n = 0
	}
	p.outer.Complete(n, err)
}

// check verifies the result. done with a nil error: out holds it. Not
// done: the result failed as a CRT one and a plain exponentiation is set up
// to replace it. Done with an error: no result may be released.
func (p *rsaPriv) check() (done bool, err *Error) {
	k := p.k
	if rsaResultOK(k, p.in, p.res) {
		copy(p.out, p.res)
		return true, nil
	}
	clear(p.res)
	recompute := p.crt && k.head.Has&KeyHasPrivate != 0 && !allZero(k.d[:k.nLen])
	p.env.Checks.Rejected.Add(1)
	if recompute {
		p.env.Checks.Recomputed.Add(1)
	}
	if f := p.env.OnCheckFailed; f != nil {
		f(CheckEvent{Alg: rsaKT{pss: k.pss.isPSS != 0}.Name(), Bits: k.bits(), Software: p.soft, CRT: p.crt, Recomputed: recompute})
	}
	if recompute {
		p.setup(false)
		return false, nil
	}
	p.counters().Errors.Add(1)
	return true, errorf(ReasonOperationFailed, "RSA private-key result failed its check (s^e mod n is not the input): not released")
}

// allZero reports whether b is all zero, reading every byte.
func allZero(b []byte) bool {
	var acc byte
	for _, v := range b {
		acc |= v
	}
	return acc == 0
}

// rsaResultOK reports whether res^e mod n equals in (rsacheck), with the
// key's check, built on first use and kept in its aux slot.
func rsaResultOK(k *rsaKey, in, res []byte) bool {
	c := k.check()
	if c == nil {
		return false // n even or 1, or no memory: nothing may pass
	}
	ok, err := c.Verify(in, res)
	return ok && err == nil
}

// check is the key's result check; nil when none can be built.
func (k *rsaKey) check() *rsacheck.Check {
	if aux := atomic.LoadPointer(&k.head.Aux); aux != nil {
		return rsacheck.FromAux(aux)
	}
	var p, q []byte
	if k.hasCRT != 0 {
		p, q = k.p[:k.pLen], k.q[:k.pLen]
	}
	c := rsacheck.New(k.N(), k.E(), p, q)
	if c == nil {
		return nil
	}
	if atomic.CompareAndSwapPointer(&k.head.Aux, nil, c.Aux()) {
		return c
	}
	c.Free() // another thread's came first
	return rsacheck.FromAux(atomic.LoadPointer(&k.head.Aux))
}

// dropCheck frees the key's check before its material is rewritten.
func (k *rsaKey) dropCheck() {
	rsacheck.FromAux(atomic.SwapPointer(&k.head.Aux, nil)).Free()
}
