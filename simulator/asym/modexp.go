package asym

import (
	"sync"

	"filippo.io/bigmod"
)

// trimPublic strips the leading zero bytes of a public value (a modulus).
// Not constant time: only for values whose length may leak.
func trimPublic(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

// oddModulus builds a Modulus from a public-length odd value > 1.
func oddModulus(m []byte) (*bigmod.Modulus, error) {
	m = trimPublic(m)
	if len(m) == 0 || m[len(m)-1]&1 == 0 || (len(m) == 1 && m[0] == 1) {
		return nil, ErrInput
	}
	M, err := bigmod.NewModulus(m)
	if err != nil {
		return nil, ErrInput
	}
	return M, nil
}

// natFor loads b, which must be < M, as a Nat mod M. b may be longer than M
// if its excess leading bytes are zero; they are checked in constant time
// so that only validity is revealed.
func natFor(b []byte, M *bigmod.Modulus) (*bigmod.Nat, error) {
	if excess := len(b) - M.Size(); excess > 0 {
		var acc byte
		for _, v := range b[:excess] {
			acc |= v
		}
		if acc != 0 {
			return nil, ErrInput
		}
		b = b[excess:]
	}
	x, err := bigmod.NewNat().SetBytes(b, M)
	if err != nil {
		return nil, ErrInput
	}
	return x, nil
}

// ModExp computes base^exp mod m. m must be odd and > 1 (RSA moduli are),
// otherwise ErrInput; base must be < m (it may carry leading zero bytes),
// otherwise ErrInput. exp may be empty or zero (the result is then 1). The
// output is len(m) bytes after stripping m's leading zero bytes. Constant
// time in base and exp for a given length of exp.
func ModExp(base, exp, m []byte) ([]byte, error) {
	M, err := oddModulus(m)
	if err != nil {
		return nil, err
	}
	x, err := natFor(base, M)
	if err != nil {
		return nil, err
	}
	return bigmod.NewNat().Exp(x, exp, M).Bytes(M), nil
}

// ModulusCache holds the Montgomery constants of recently used public moduli:
// a verifying or encrypting host uses one RSA key many times, and setting a
// modulus up costs a third of a public operation. Its zero value is ready.
type ModulusCache struct {
	mu sync.Mutex
	m  map[string]*bigmod.Modulus
}

// modulusCacheSize bounds the cache; it starts over when full.
const modulusCacheSize = 64

func (c *ModulusCache) modulus(m []byte) (*bigmod.Modulus, error) {
	m = trimPublic(m)
	c.mu.Lock()
	M := c.m[string(m)]
	c.mu.Unlock()
	if M != nil {
		return M, nil
	}
	M, err := oddModulus(m)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= modulusCacheSize {
		c.m = make(map[string]*bigmod.Modulus)
	}
	c.m[string(m)] = M
	c.mu.Unlock()
	return M, nil
}

// ModExp is ModExp for a public exponent of at most 8 bytes (an RSA e),
// by square-and-multiply in time that depends on the exponent (but not on
// base): three times faster than the fixed-window exponentiation for e =
// 65537. The modulus is public too, and cached.
func (c *ModulusCache) ModExp(base, exp, m []byte) ([]byte, error) {
	if len(exp) > 8 {
		return nil, ErrInput
	}
	var e uint64
	for _, b := range exp {
		e = e<<8 | uint64(b)
	}
	M, err := c.modulus(m)
	if err != nil {
		return nil, err
	}
	x, err := natFor(base, M)
	if err != nil {
		return nil, err
	}
	if e == 0 {
		return bigmod.NewNat().Exp(x, nil, M).Bytes(M), nil
	}
	return bigmod.NewNat().ExpShortVarTime(x, uint(e), M).Bytes(M), nil
}

// ModExpCRT computes c^d mod n for an RSA private key given in CRT form
// (p, q, dP = d mod p-1, dQ = d mod q-1, qInv = q^-1 mod p), with Garner's
// recombination, in constant time in all of them (their lengths excepted).
// n = p·q is computed. p and q must be odd and > 1, qInv < p and c < n,
// otherwise ErrInput. The output is the byte length of n.
//
// As on the hardware, the key is not otherwise checked: a wrong dP, dQ or
// qInv gives a wrong result, not an error.
func ModExpCRT(c, p, q, dP, dQ, qInv []byte) ([]byte, error) {
	P, err := oddModulus(p)
	if err != nil {
		return nil, err
	}
	Q, err := oddModulus(q)
	if err != nil {
		return nil, err
	}
	N, err := bigmod.NewModulusProduct(trimPublic(p), trimPublic(q))
	if err != nil {
		return nil, ErrInput
	}
	C, err := natFor(c, N)
	if err != nil {
		return nil, err
	}
	QInv, err := natFor(qInv, P)
	if err != nil {
		return nil, err
	}

	// m2 = c^dQ mod q on a second goroutine while this one computes
	// m1 = c^dP mod p: the two halves are independent, and a device has
	// engines to spare for them, which halves a lone operation's latency.
	// A panic there must not kill the host: it becomes ErrInput here.
	var m2 *bigmod.Nat
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		m2 = bigmod.NewNat().Exp(bigmod.NewNat().Mod(C, Q), dQ, Q)
	}()
	t0 := bigmod.NewNat()
	m := bigmod.NewNat().Exp(t0.Mod(C, P), dP, P)
	<-done
	if m2 == nil {
		return nil, ErrInput
	}
	// h = (m1 - m2) * qInv mod p
	m.Sub(t0.Mod(m2, P), P)
	m.Mul(QInv, P)
	// m = m2 + h*q mod n
	m.ExpandFor(N).Mul(t0.Mod(Q.Nat(), N), N)
	m.Add(m2.ExpandFor(N), N)
	return m.Bytes(N), nil
}
