package asym

import (
	"bytes"
	"crypto/sha256"
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
