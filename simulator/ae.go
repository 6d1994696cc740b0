// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"errors"

	"cptprov/cptdrv"
	"cptprov/simulator/asym"
)

// curves maps the instruction's curve field to the arithmetic.
var curves = map[uint16]asym.Curve{
	cptdrv.CurveP192: asym.P192,
	cptdrv.CurveP224: asym.P224,
	cptdrv.CurveP256: asym.P256,
	cptdrv.CurveP384: asym.P384,
	cptdrv.CurveP521: asym.P521,
}

// operands splits the instruction's input into fields of the given lengths;
// ok is false when DLen is not exactly their sum.
func operands(inst *cptdrv.Instruction, lens ...int) (fields [][]byte, ok bool) {
	total := 0
	for _, n := range lens {
		total += n
	}
	if total != int(inst.DLen) {
		return nil, false
	}
	in := cptdrv.Bytes(inst.DPtr, total)
	for _, n := range lens {
		fields = append(fields, in[:n:n])
		in = in[n:]
	}
	return fields, true
}

// output returns the instruction's output buffer if it has room for n bytes.
func output(inst *cptdrv.Instruction, n int) ([]byte, bool) {
	if int(inst.RLen) < n || inst.RPtr == 0 {
		return nil, false
	}
	return cptdrv.Bytes(inst.RPtr, n), true
}

// aeResult maps the arithmetic's verdict to a completion. onInput is what
// invalid input (asym.ErrInput, and any error not named here) means to the
// engine: UCBadOperand for a modular exponentiation, UCBadPoint for the
// curves, and UCZeroResult where the operand lengths are already checked
// and ErrInput means a zero result (an all-zero X25519 secret, an ECDSA r
// or s of zero). A failure of the arithmetic itself is an engine error:
// nothing was executed, and the driver may retry or compute in software.
func aeResult(out []byte, res []byte, err error, onInput uint8) (comp, uc uint8, rlen uint32) {
	switch {
	case err == nil:
		copy(out, res)
		return cptdrv.CompGood, cptdrv.UCSuccess, uint32(len(res))
	case errors.Is(err, asym.ErrInternal):
		return cptdrv.CompHWError, 0, 0
	case errors.Is(err, asym.ErrPointAtInfinity):
		return cptdrv.CompGood, cptdrv.UCZeroResult, 0
	case errors.Is(err, asym.ErrNotOnCurve):
		return cptdrv.CompGood, cptdrv.UCBadPoint, 0
	}
	return cptdrv.CompGood, onInput, 0
}

// modExp executes MajorModExp. With crtFault a CRT exponentiation gets one
// half wrong, as an engine with a flipped bit would: dP or dQ, in turn,
// read with one bit changed.
func (d *Device) modExp(inst *cptdrv.Instruction, crtFault bool) (comp, uc uint8, rlen uint32) {
	l, e := int(inst.Param1), int(inst.Param2)
	out, ok := output(inst, l)
	if !ok || l == 0 {
		return cptdrv.CompBadInst, 0, 0
	}
	switch uint8(inst.Op) {
	case cptdrv.MinorModExpPlain, cptdrv.MinorModExpPublic:
		f, ok := operands(inst, l, e, l)
		if !ok {
			return cptdrv.CompBadInst, 0, 0
		}
		exp := asym.ModExp
		if uint8(inst.Op) == cptdrv.MinorModExpPublic {
			exp = asym.ModExpPublic
		}
		res, err := exp(f[2], f[1], f[0])
		return aeResult(out, res, err, cptdrv.UCBadOperand)
	case cptdrv.MinorModExpCRT:
		p := e
		f, ok := operands(inst, p, p, p, p, p, l)
		if !ok {
			return cptdrv.CompBadInst, 0, 0
		}
		dP, dQ := f[2], f[3]
		if crtFault {
			if d.crtStrikes.Add(1)&1 == 1 {
				dP = flipBit(dP)
			} else {
				dQ = flipBit(dQ)
			}
		}
		res, err := asym.ModExpCRT(f[5], f[0], f[1], dP, dQ, f[4])
		if err == nil && len(res) != l {
			return cptdrv.CompGood, cptdrv.UCBadLength, 0
		}
		return aeResult(out, res, err, cptdrv.UCBadOperand)
	}
	return cptdrv.CompBadInst, 0, 0
}

// flipBit returns a copy of b with its second-lowest bit changed (the
// lowest of a CRT exponent is always 1).
func flipBit(b []byte) []byte {
	c := append([]byte(nil), b...)
	if len(c) > 0 {
		c[len(c)-1] ^= 2
	}
	return c
}

// ecc executes MajorECC.
func (d *Device) ecc(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	if inst.Param1 == cptdrv.CurveX25519 {
		out, ok := output(inst, 32)
		if !ok {
			return cptdrv.CompBadInst, 0, 0
		}
		switch uint8(inst.Op) {
		case cptdrv.MinorECCFixed:
			if f, ok := operands(inst, 32); ok {
				res, err := asym.X25519Base(f[0])
				return aeResult(out, res, err, cptdrv.UCBadPoint)
			}
		case cptdrv.MinorECCVar, cptdrv.MinorECCShared:
			if f, ok := operands(inst, 32, 32); ok {
				res, err := asym.X25519(f[0], f[1])
				return aeResult(out, res, err, cptdrv.UCZeroResult)
			}
		}
		return cptdrv.CompBadInst, 0, 0
	}
	c, ok := curves[inst.Param1]
	if !ok {
		return cptdrv.CompBadInst, 0, 0
	}
	b := c.ByteLen()
	switch uint8(inst.Op) {
	case cptdrv.MinorECCFixed:
		f, ok1 := operands(inst, b)
		out, ok2 := output(inst, 1+2*b)
		if ok1 && ok2 {
			res, err := asym.ScalarBaseMult(c, f[0])
			return aeResult(out, res, err, cptdrv.UCBadPoint)
		}
	case cptdrv.MinorECCVar:
		f, ok1 := operands(inst, b, 1+2*b)
		out, ok2 := output(inst, 1+2*b)
		if ok1 && ok2 {
			res, err := asym.ScalarMult(c, f[0], f[1])
			return aeResult(out, res, err, cptdrv.UCBadPoint)
		}
	case cptdrv.MinorECCShared:
		f, ok1 := operands(inst, b, 1+2*b)
		out, ok2 := output(inst, b)
		if ok1 && ok2 {
			res, err := asym.ECDHX(c, f[0], f[1])
			return aeResult(out, res, err, cptdrv.UCBadPoint)
		}
	case cptdrv.MinorECCCheck:
		if f, ok := operands(inst, 1+2*b); ok && inst.RLen == 0 {
			return aeResult(nil, nil, c.ValidatePoint(f[0]), cptdrv.UCBadPoint)
		}
		// Decompress (and so check) a point: 1·P in uncompressed form.
		f, ok1 := operands(inst, 1+b)
		if !ok1 {
			f, ok1 = operands(inst, 1+2*b)
		}
		out, ok2 := output(inst, 1+2*b)
		if ok1 && ok2 {
			one := make([]byte, b)
			one[b-1] = 1
			res, err := asym.ScalarMult(c, one, f[0])
			return aeResult(out, res, err, cptdrv.UCBadPoint)
		}
	}
	return cptdrv.CompBadInst, 0, 0
}

// ecdsa executes MajorECDSA.
func (d *Device) ecdsa(inst *cptdrv.Instruction) (comp, uc uint8, rlen uint32) {
	c, ok := curves[inst.Param1]
	if !ok {
		return cptdrv.CompBadInst, 0, 0
	}
	b, h := c.ByteLen(), int(inst.Param2)
	if h > b {
		// The driver cuts the hash to the order's bytes, the engine to its
		// bits (asym.ECDSASign).
		return cptdrv.CompBadInst, 0, 0
	}
	switch uint8(inst.Op) {
	case cptdrv.MinorECDSASign:
		f, ok1 := operands(inst, b, b, h)
		out, ok2 := output(inst, 2*b)
		if !ok1 || !ok2 {
			return cptdrv.CompBadInst, 0, 0
		}
		r, s, err := asym.ECDSASign(c, f[0], f[1], f[2])
		if err != nil {
			return aeResult(nil, nil, err, cptdrv.UCZeroResult)
		}
		copy(out[:b], r)
		copy(out[b:], s)
		return cptdrv.CompGood, cptdrv.UCSuccess, uint32(2 * b)
	case cptdrv.MinorECDSAVerify:
		f, ok := operands(inst, 1+2*b, b, b, h)
		if !ok {
			return cptdrv.CompBadInst, 0, 0
		}
		if !asym.ECDSAVerify(c, f[0], f[3], f[1], f[2]) {
			return cptdrv.CompGood, cptdrv.UCVerifyFail, 0
		}
		return cptdrv.CompGood, cptdrv.UCSuccess, 0
	}
	return cptdrv.CompBadInst, 0, 0
}
