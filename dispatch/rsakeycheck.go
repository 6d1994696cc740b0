// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/rand"
	"math/big"
	"sync"
)

// RSA key validation (EVP_PKEY_check, _public_check, _private_check,
// _pairwise_check) follows the default provider's rsa_validate exactly, so
// that a key one of them refuses the other refuses too, for the same
// reasons: the whole key selected, the pairwise check (OpenSSL's
// rsa_validate_keypair_multiprime, which does not include the public
// check); otherwise the private check (1 <= d < n) and the public check
// (ossl_rsa_sp800_56b_check_public). Neither runs at import, where the
// default provider checks nothing either.
//
// These run on the CPU in variable time, as OpenSSL's own checks do: a
// check is an administrative operation on a key, not one an attacker can
// drive per request and time.

// rsaCheckFailure is one failed rule: OpenSSL's reason and what it means.
type rsaCheckFailure struct {
	reason Reason
	msg    string
}

// validate checks the selected parts of k and returns every failure (the
// default provider raises one error per failed rule), nil if none.
func (k *rsaKey) validate(selection int) []rsaCheckFailure {
	var fails []rsaCheckFailure
	fail := func(r Reason, msg string) { fails = append(fails, rsaCheckFailure{r, msg}) }
	if selection&SelectKeypair == SelectKeypair {
		k.checkPairwise(fail)
		return fails
	}
	if selection&SelectPrivate != 0 {
		// OpenSSL's private check raises nothing; cptprov says why.
		if d := k.num(k.d[:k.nLen]); k.head.Has&KeyHasPrivate == 0 || d.Sign() <= 0 || d.Cmp(k.num(k.N())) >= 0 {
			fail(ReasonInvalidKey, "RSA private exponent d not in [1, n)")
		}
	}
	if selection&SelectPublic != 0 {
		k.checkPublic(fail)
	}
	return fails
}

func (k *rsaKey) num(b []byte) *big.Int { return new(big.Int).SetBytes(b) }

// checkPublic is SP 800-89 5.3.3's partial public key validation as
// OpenSSL 3.0 runs it outside FIPS: n odd; e odd and > 1; n without prime
// factors up to 751; n composite and not a prime power (an enhanced
// Miller-Rabin test of five rounds, FIPS 186-4 C.3.2).
func (k *rsaKey) checkPublic(fail func(Reason, string)) {
	n, e := k.num(k.N()), k.num(k.E())
	switch {
	case n.Bit(0) == 0:
		fail(ReasonInvalidModulus, "RSA modulus is even")
	case e.Bit(0) == 0 || e.Cmp(big.NewInt(1)) <= 0:
		fail(ReasonPubExponentOutOfRange, "RSA public exponent must be odd and greater than 1")
	case new(big.Int).GCD(nil, nil, n, smallPrimeProduct()).Cmp(big.NewInt(1)) != 0:
		fail(ReasonInvalidModulus, "RSA modulus has a prime factor below 752")
	case !compositeNotPrimePower(n, 5, n.BitLen()):
		fail(ReasonInvalidModulus, "RSA modulus is a prime or a prime power")
	}
}

// checkPairwise is OpenSSL's rsa_validate_keypair_multiprime for two
// primes: e odd and not 1; p and q prime; n = p·q; d·e = 1 mod λ(n); and,
// where the key has them, dP, dQ and qInv consistent with d, p and q.
func (k *rsaKey) checkPairwise(fail func(Reason, string)) {
	if k.head.Has&KeyHasPrivate == 0 || k.hasCRT == 0 {
		fail(ReasonValueMissing, "RSA key pair check needs n, e, d, p and q")
		return
	}
	pl := k.pLen
	n, e, d := k.num(k.N()), k.num(k.E()), k.num(k.d[:k.nLen])
	p, q := k.num(k.p[:pl]), k.num(k.q[:pl])
	one := big.NewInt(1)
	if e.Cmp(one) == 0 {
		fail(ReasonBadEValue, "RSA public exponent is 1")
	}
	if e.Bit(0) == 0 {
		fail(ReasonBadEValue, "RSA public exponent is even")
	}
	if !p.ProbablyPrime(20) {
		fail(ReasonPNotPrime, "RSA factor p is not prime")
	}
	if !q.ProbablyPrime(20) {
		fail(ReasonQNotPrime, "RSA factor q is not prime")
	}
	if new(big.Int).Mul(p, q).Cmp(n) != 0 {
		fail(ReasonNDoesNotEqualPQ, "RSA modulus is not p·q")
	}
	p1, q1 := new(big.Int).Sub(p, one), new(big.Int).Sub(q, one)
	if p1.Sign() <= 0 || q1.Sign() <= 0 {
		fail(ReasonInvalidKey, "RSA factor below 2")
		return
	}
	lambda := new(big.Int).Mul(p1, q1)
	lambda.Div(lambda, new(big.Int).GCD(nil, nil, p1, q1))
	if new(big.Int).Mod(new(big.Int).Mul(d, e), lambda).Cmp(one) != 0 {
		fail(ReasonDENotCongruentTo1, "RSA d·e is not 1 mod lcm(p-1, q-1)")
	}
	if new(big.Int).Mod(d, p1).Cmp(k.num(k.dp[:pl])) != 0 {
		fail(ReasonDMP1NotCongruentToD, "RSA CRT exponent dP is not d mod (p-1)")
	}
	if new(big.Int).Mod(d, q1).Cmp(k.num(k.dq[:pl])) != 0 {
		fail(ReasonDMQ1NotCongruentToD, "RSA CRT exponent dQ is not d mod (q-1)")
	}
	if inv := new(big.Int).ModInverse(q, p); inv == nil || inv.Cmp(k.num(k.qinv[:pl])) != 0 {
		fail(ReasonIQMPNotInverseOfQ, "RSA CRT coefficient qInv is not q^-1 mod p")
	}
}

// validateError is what EVP_PKEY_check and its kin raise: an error per
// failed rule, in the default provider's order.
func validateError(fails []rsaCheckFailure) *Error {
	var first *Error
	for i := len(fails) - 1; i >= 0; i-- {
		first = &Error{Reason: fails[i].reason, Msg: fails[i].msg, Next: first}
	}
	return first
}

var smallPrimes = sync.OnceValue(func() *big.Int {
	// The odd primes up to 751, as OpenSSL's ossl_bn_get0_small_factors.
	prod := big.NewInt(1)
	var composite [752]bool
	for i := 2; i < len(composite); i++ {
		if composite[i] {
			continue
		}
		for j := i * i; j < len(composite); j += i {
			composite[j] = true
		}
		if i > 2 {
			prod.Mul(prod, big.NewInt(int64(i)))
		}
	}
	return prod
})

func smallPrimeProduct() *big.Int { return smallPrimes() }

// compositeNotPrimePower is FIPS 186-4 C.3.2's enhanced Miller-Rabin test
// (OpenSSL's ossl_bn_miller_rabin_is_prime with enhanced set) of an odd
// w > 3: true when it proves w composite and not a power of a prime. Below
// 512 bits OpenSSL also accepts a modulus the test finds a factor of.
func compositeNotPrimePower(w *big.Int, rounds, bits int) bool {
	one := big.NewInt(1)
	w1 := new(big.Int).Sub(w, one)
	w3 := new(big.Int).Sub(w, big.NewInt(3))
	if w3.Sign() <= 0 {
		return false
	}
	a := 1
	for w1.Bit(a) == 0 {
		a++
	}
	m := new(big.Int).Rsh(w1, uint(a))
	withFactor := func() bool { return bits < 512 }
	for i := 0; i < rounds; i++ {
		b, err := rand.Int(rand.Reader, w3)
		if err != nil {
			return false
		}
		b.Add(b, big.NewInt(2))
		if new(big.Int).GCD(nil, nil, b, w).Cmp(one) != 0 {
			return withFactor()
		}
		z := new(big.Int).Exp(b, m, w)
		if z.Cmp(one) == 0 || z.Cmp(w1) == 0 {
			continue
		}
		var x *big.Int
		passed := false
		for j := 1; j < a; j++ {
			x = z
			z = new(big.Int).Mod(new(big.Int).Mul(x, x), w)
			if z.Cmp(w1) == 0 {
				passed = true
				break
			}
			if z.Cmp(one) == 0 {
				break
			}
		}
		if passed {
			continue
		}
		if z.Cmp(one) != 0 {
			x = z
			z = new(big.Int).Mod(new(big.Int).Mul(x, x), w)
			if z.Cmp(one) != 0 {
				x = z
			}
		}
		// composite: g = gcd(x-1, w)
		if new(big.Int).GCD(nil, nil, new(big.Int).Sub(x, one), w).Cmp(one) == 0 {
			return true
		}
		return withFactor()
	}
	return false // probably prime
}
