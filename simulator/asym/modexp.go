// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"crypto/sha256"
	"math/bits"
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

// modulusBytes returns a public modulus without its leading zero bytes,
// or ErrInput unless it is odd and > 1 (Montgomery arithmetic needs both).
func modulusBytes(m []byte) ([]byte, error) {
	m = trimPublic(m)
	if len(m) == 0 || m[len(m)-1]&1 == 0 || (len(m) == 1 && m[0] == 1) {
		return nil, ErrInput
	}
	return m, nil
}

// fit returns b as exactly size bytes: left-padded, or stripped of excess
// leading bytes, which must be zero (checked in constant time, so that only
// validity is revealed).
func fit(b []byte, size int) ([]byte, error) {
	if excess := len(b) - size; excess > 0 {
		var acc byte
		for _, v := range b[:excess] {
			acc |= v
		}
		if acc != 0 {
			return nil, ErrInput
		}
		return b[excess:], nil
	}
	out := make([]byte, size)
	copy(out[size-len(b):], b)
	return out, nil
}

// ModExp computes base^exp mod m. m must be odd and > 1 (RSA moduli are),
// otherwise ErrInput; base must be < m (it may carry leading zero bytes),
// otherwise ErrInput. exp may be empty or zero (the result is then 1). The
// output is len(m) bytes after stripping m's leading zero bytes. Constant
// time in base and exp for a given length of exp. ErrInternal reports a
// failure of libcrypto, which does the exponentiation (ModExpPublic's and
// ModExpCRT's too).
func ModExp(base, exp, m []byte) ([]byte, error) {
	m, err := modulusBytes(m)
	if err != nil {
		return nil, err
	}
	b, err := fit(base, len(m))
	if err != nil {
		return nil, err
	}
	return modExpConstTime(b, false, exp, m)
}

// ModExpPublic is ModExp for a public base, exponent and modulus (an RSA
// verification or encryption), in variable time, with the Montgomery
// constants of recently used moduli cached. The exponent has at most 8
// bytes (an RSA e), as the device's public-exponent opcode requires.
func ModExpPublic(base, exp, m []byte) ([]byte, error) {
	if len(exp) > 8 {
		return nil, ErrInput
	}
	m, err := modulusBytes(m)
	if err != nil {
		return nil, err
	}
	return modExpPublic(base, exp, m) // checks base < m
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
	k, err := crtKeys.get(p, q, qInv)
	if err != nil {
		return nil, err
	}
	p, q = trimPublic(p), trimPublic(q)
	C, err := natFor(c, k.N)
	if err != nil {
		return nil, err
	}
	cB := C.Bytes(k.N)

	// The halves m1 = c^dP mod p and m2 = c^dQ mod q are independent: both
	// in one call where libcrypto pairs them (IFMA), otherwise one after
	// the other on this goroutine. A second goroutine would halve a lone
	// operation's latency but wakes three or four threads per signature
	// (spawn, exit, channel close), and under a server's load those
	// context switches cost more CPU than the parallel half saves; the
	// engines already run independent operations in parallel.
	var m1B, m2B []byte
	if len(p) == len(q) && pairedHalves(len(p)) {
		m1B, m2B, err = modExpPairConstTime(cB, dP, p, dQ, q)
	} else if m1B, err = modExpConstTime(cB, true, dP, p); err == nil {
		m2B, err = modExpConstTime(cB, true, dQ, q)
	}
	if err != nil {
		return nil, err
	}
	return k.combine(m1B, m2B)
}

// combine is Garner's recombination of m1 = c^dP mod p and m2 = c^dQ mod q
// into c^d mod n, in constant time.
func (k *crtKey) combine(m1B, m2B []byte) ([]byte, error) {
	P, Q, QInv := k.P, k.Q, k.QInv
	m, err1 := bigmod.NewNat().SetBytes(m1B, P)
	m2, err2 := bigmod.NewNat().SetBytes(m2B, Q)
	if err1 != nil || err2 != nil {
		return nil, ErrInput
	}
	// h = (m1 - m2) * qInv mod p
	t0 := bigmod.NewNat()
	if k.qFitsP {
		// m2 < q < 2^bitlen(p): one conditional subtraction reduces it,
		// where Mod would shift it in bit by bit.
		if _, err := t0.SetOverflowingBytes(m2B, P); err != nil {
			return nil, ErrInput
		}
	} else {
		t0.Mod(m2, P)
	}
	m.Sub(t0, P)
	m.Mul(QInv, P) // reads QInv only: one Nat serves concurrent engines
	// c^d = m2 + h*q, below n without a reduction (h <= p-1, m2 <= q-1): a
	// plain product, where a multiplication mod n would take two Montgomery
	// multiplications and q's own reduction mod n.
	return mulAdd(m.Bits(), k.qLimbs, m2.Bits(), k.N.Size()), nil
}

// mulAdd returns x·y + z as size big-endian bytes, in time that depends
// only on the lengths; the result must fit and z have at most len(y) limbs.
func mulAdd(x, y, z []uint, size int) []byte {
	t := make([]uint, len(x)+len(y))
	copy(t, z)
	for i, xi := range x {
		var carry uint
		for j, yj := range y {
			hi, lo := bits.Mul(xi, yj)
			lo, c := bits.Add(lo, t[i+j], 0)
			hi += c
			lo, c = bits.Add(lo, carry, 0)
			hi += c
			t[i+j], carry = lo, hi
		}
		t[i+len(y)] = carry
	}
	out := make([]byte, size)
	const w = bits.UintSize / 8
	for i := 0; i < size && i/w < len(t); i++ { // i: from the least significant byte
		out[size-1-i] = byte(t[i/w] >> (8 * (i % w)))
	}
	return out
}

// CRTSplit reduces c (< n = p·q) modulo p and modulo q, for a device that
// exponentiates the two halves of a CRT key itself; CRTCombine joins its
// results. Both are constant time in their inputs (lengths excepted) and
// take the same key set-up as ModExpCRT.
func CRTSplit(c, p, q, qInv []byte) (cp, cq []byte, err error) {
	k, err := crtKeys.get(p, q, qInv)
	if err != nil {
		return nil, nil, err
	}
	C, err := natFor(c, k.N)
	if err != nil {
		return nil, nil, err
	}
	return bigmod.NewNat().Mod(C, k.P).Bytes(k.P), bigmod.NewNat().Mod(C, k.Q).Bytes(k.Q), nil
}

// CRTCombine returns c^d mod n from m1 = c^dP mod p and m2 = c^dQ mod q
// (each at most the byte length of its prime), as ModExpCRT's last step.
func CRTCombine(m1, m2, p, q, qInv []byte) ([]byte, error) {
	k, err := crtKeys.get(p, q, qInv)
	if err != nil {
		return nil, err
	}
	return k.combine(m1, m2)
}

// crtKey is the arithmetic set-up of one RSA private key in CRT form.
// Building it (three moduli, the inverse and R² of each) cost 8% of an
// RSA-2048 signature, and a host signs with the same few keys again and
// again: the default provider keeps the same in its RSA key object.
type crtKey struct {
	P, Q, N *bigmod.Modulus
	QInv    *bigmod.Nat // never written after newCRTKey
	qLimbs  []uint      // q's limbs, for the recombination's product
	qFitsP  bool        // q's bit length is at most p's
}

// crtCache holds the keys of recent CRT instructions, looked up by the
// SHA-256 of the key's primes and qInv so that the lookup compares no
// secret byte. Bounded: replaced round robin when full.
type crtCache struct {
	mu    sync.Mutex
	byKey map[[sha256.Size]byte]*crtKey
	ring  [crtCacheSize][sha256.Size]byte
	used  int
	next  int
}

const crtCacheSize = 64

var crtKeys = crtCache{byKey: map[[sha256.Size]byte]*crtKey{}}

func (c *crtCache) get(p, q, qInv []byte) (*crtKey, error) {
	h := sha256.New()
	for _, b := range [][]byte{p, q, qInv} {
		var l [4]byte
		l[0], l[1], l[2], l[3] = byte(len(b)>>24), byte(len(b)>>16), byte(len(b)>>8), byte(len(b))
		h.Write(l[:])
		h.Write(b)
	}
	var id [sha256.Size]byte
	h.Sum(id[:0])
	c.mu.Lock()
	k := c.byKey[id]
	c.mu.Unlock()
	if k != nil {
		return k, nil
	}
	k, err := newCRTKey(p, q, qInv)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey[id] == nil {
		if c.used == crtCacheSize {
			delete(c.byKey, c.ring[c.next])
		} else {
			c.used++
		}
		c.ring[c.next] = id
		c.next = (c.next + 1) % crtCacheSize
		c.byKey[id] = k
	}
	return k, nil
}

func newCRTKey(p, q, qInv []byte) (*crtKey, error) {
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
	QInv, err := natFor(qInv, P)
	if err != nil {
		return nil, err
	}
	return &crtKey{P: P, Q: Q, N: N, QInv: QInv, qLimbs: Q.Nat().Bits(), qFitsP: Q.BitLen() <= P.BitLen()}, nil
}
