// SPDX-License-Identifier: Apache-2.0

package asym

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"math/big"
	"sync"
	"testing"
)

// The engines are shared, lazily initialised state: hammer them from
// several goroutines (run with -race).
func TestConcurrentUse(t *testing.T) {
	key := rsaKey(t, 1024)
	pre := key.Precomputed
	c := key.N.Bytes()[1:] // < n
	want, err := ModExpCRT(c, key.Primes[0].Bytes(), key.Primes[1].Bytes(), pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("concurrent"))
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for _, cv := range allCurves {
				d := []byte{byte(g + 1), 0x55}
				pub, err := ScalarBaseMult(cv, d)
				if err != nil {
					errs <- err.Error()
					return
				}
				r, s, err := ECDSASign(cv, d, []byte{0x77, byte(g)}, h[:])
				if err != nil || !ECDSAVerify(cv, pub, h[:], r, s) {
					errs <- cv.Name() + ": sign/verify"
					return
				}
				if _, err := ECDHX(cv, []byte{3}, pub); err != nil {
					errs <- err.Error()
					return
				}
			}
			got, err := ModExpCRT(c, key.Primes[0].Bytes(), key.Primes[1].Bytes(), pre.Dp.Bytes(), pre.Dq.Bytes(), pre.Qinv.Bytes())
			if err != nil || !bytes.Equal(got, want) {
				errs <- "ModExpCRT"
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// The key set-up caches (crtKeys in Go, the Montgomery table in C) under
// eviction and concurrent use: more keys and primes than either holds, in
// several goroutines, every result checked with math/big.
func TestCRTCachesEvict(t *testing.T) {
	e := big.NewInt(65537)
	var primes []*big.Int
	for len(primes) < 70 {
		p, err := rand.Prime(rand.Reader, 256)
		if err != nil {
			t.Fatal(err)
		}
		if new(big.Int).GCD(nil, nil, e, new(big.Int).Sub(p, big.NewInt(1))).Cmp(big.NewInt(1)) == 0 {
			primes = append(primes, p)
		}
	}
	type key struct{ p, q, dP, dQ, qInv, n *big.Int }
	var keys []key
	for i := range primes {
		for _, j := range []int{(i + 1) % len(primes), (i + 2) % len(primes)} {
			p, q := primes[i], primes[j]
			keys = append(keys, key{p: p, q: q,
				dP:   new(big.Int).ModInverse(e, new(big.Int).Sub(p, big.NewInt(1))),
				dQ:   new(big.Int).ModInverse(e, new(big.Int).Sub(q, big.NewInt(1))),
				qInv: new(big.Int).ModInverse(q, p),
				n:    new(big.Int).Mul(p, q)})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for round := 0; round < 2; round++ {
				for i := range keys {
					k := keys[(i*7+g*31+round*13)%len(keys)]
					c := new(big.Int).Mod(big.NewInt(int64(1000003*i+g)), k.n)
					got, err := ModExpCRT(c.Bytes(), k.p.Bytes(), k.q.Bytes(), k.dP.Bytes(), k.dQ.Bytes(), k.qInv.Bytes())
					if err != nil {
						errs <- err.Error()
						return
					}
					if new(big.Int).Exp(new(big.Int).SetBytes(got), e, k.n).Cmp(c) != 0 {
						errs <- fmt.Sprintf("key %d: wrong result", i)
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}
