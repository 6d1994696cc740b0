// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"math/rand"
	"testing"
	"time"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/simulator"
	"cptprov/stats"
)

func testEnv(t testing.TB) *Env {
	dev := simulator.New(simulator.Config{SEEngines: 2, AEEngines: 2})
	se, err := cptdrv.NewQueue(dev, cptdrv.QueueConfig{Group: cptdrv.GroupSE, Depth: 64, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ae, err := cptdrv.NewQueue(dev, cptdrv.QueueConfig{Group: cptdrv.GroupAE, Depth: 64, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { se.Close(); ae.Close(); dev.Close() })
	return NewEnv(se, ae, stats.New(nil), dev.Forget, 1)
}

// dma returns n bytes outside the Go heap, like the C memory the provider
// hands over.
func dma(t testing.TB, n int) []byte {
	d, err := cptdrv.AllocDMA(n + 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Free() })
	return d.Bytes()[:n]
}

func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

type chanWaiter chan struct {
	n   int
	err *Error
}

func (w chanWaiter) Complete(n int, err *Error) {
	w <- struct {
		n   int
		err *Error
	}{n, err}
}

// call runs an Update or Final synchronously, or asynchronously through a
// waiter, and returns its outcome either way.
func call(async bool, f func(Waiter) (int, bool, *Error)) (int, *Error) {
	if !async {
		n, _, err := f(nil)
		return n, err
	}
	w := make(chanWaiter, 1)
	n, pending, err := f(w)
	if !pending {
		return n, err
	}
	r := <-w
	return r.n, r.err
}

func TestGCMStreamsMatchCryptoCipher(t *testing.T) {
	env := testEnv(t)
	rng := rand.New(rand.NewSource(2))
	g := CipherByID(AlgAES256GCM)
	for i := 0; i < 300; i++ {
		async := i%2 == 1
		key, iv := make([]byte, 32), make([]byte, []int{12, 12, 7, 16, 100}[i%5])
		aad, msg := make([]byte, rng.Intn(200)), make([]byte, rng.Intn(3000))
		rng.Read(key)
		rng.Read(iv)
		rng.Read(aad)
		rng.Read(msg)
		block, _ := aes.NewCipher(key)
		aead, _ := cipher.NewGCMWithNonceSize(block, len(iv))
		want := aead.Seal(nil, iv, msg, aad)

		for _, enc := range []bool{true, false} {
			st := dma(t, int(g.StateSize()))
			in := dma(t, len(msg))
			out := dma(t, len(msg))
			aadBuf := dma(t, len(aad))
			copy(aadBuf, aad)
			if enc {
				copy(in, msg)
			} else {
				copy(in, want[:len(msg)])
			}
			var l paramList
			ivlen := uintptr(len(iv))
			l.add("ivlen", TypeUnsigned, unsafe.Pointer(&ivlen), unsafe.Sizeof(ivlen))
			if err := g.Init(env, ptr(st), enc, key, true, nil, false, l.params()); err != nil {
				t.Fatal(err)
			}
			if err := g.Init(env, ptr(st), enc, nil, false, iv, true, Params{}); err != nil {
				t.Fatal(err)
			}
			for off := 0; off < len(aad); {
				n := 1 + rng.Intn(len(aad)-off)
				if _, err := call(async, func(w Waiter) (int, bool, *Error) {
					return g.Update(env, ptr(st), nil, 0, ptr(aadBuf[off:]), n, w)
				}); err != nil {
					t.Fatalf("AAD: %v", err)
				}
				off += n
			}
			for off := 0; off < len(msg); {
				n := rng.Intn(len(msg) - off + 1)
				got, err := call(async, func(w Waiter) (int, bool, *Error) {
					return g.Update(env, ptr(st), ptr(out[off:]), len(msg)-off, ptr(in[off:]), n, w)
				})
				if err != nil || got != n {
					t.Fatalf("update: %d %v", got, err)
				}
				off += n
			}
			if !enc {
				tag := dma(t, 16)
				copy(tag, want[len(msg):])
				var l paramList
				l.add("tag", TypeOctet, ptr(tag), 16)
				if err := g.SetCtxParams(env, ptr(st), l.params()); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := call(async, func(w Waiter) (int, bool, *Error) { return g.Final(env, ptr(st), nil, 0, w) }); err != nil {
				t.Fatalf("case %d enc=%v final: %v", i, enc, err)
			}
			if enc {
				tag := dma(t, 16)
				var l paramList
				l.add("tag", TypeOctet, ptr(tag), 16)
				if err := g.GetCtxParams(env, ptr(st), l.params()); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(append(append([]byte{}, out...), tag...), want) {
					t.Fatalf("case %d (iv %d aad %d msg %d): ciphertext or tag differs\n got %x\nwant %x", i, len(iv), len(aad), len(msg), append(append([]byte{}, out...), tag...)[:48], want[:48])
				}
			} else if !bytes.Equal(out, msg) {
				t.Fatalf("case %d: plaintext differs", i)
			}
			g.Free(env, ptr(st))
		}
	}
	if a := env.Counters.Snapshot()["AES-256-GCM"]; a.Device == 0 || a.Ops != a.Device || a.Errors != 0 {
		t.Fatalf("counters %+v", a)
	}
}

func TestGCMErrors(t *testing.T) {
	env := testEnv(t)
	g := CipherByID(AlgAES128GCM)
	st := dma(t, int(g.StateSize()))
	buf := dma(t, 64)
	if r := reason(g.Init(env, ptr(st), true, make([]byte, 17), true, nil, false, Params{})); r != ReasonInvalidKeyLength {
		t.Fatalf("17-byte key: reason %d", r)
	}
	if r := reason(g.Init(env, ptr(st), true, nil, false, make([]byte, 129), true, Params{})); r != ReasonInvalidIVLength {
		t.Fatalf("129-byte IV: reason %d", r)
	}
	if _, _, err := g.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 16, nil); reason(err) != ReasonMissingKey {
		t.Fatalf("update without key: %v", err)
	}
	if err := g.Init(env, ptr(st), false, make([]byte, 16), true, make([]byte, 12), true, Params{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.Update(env, ptr(st), ptr(buf), 8, ptr(buf), 16, nil); reason(err) != ReasonOutputTooSmall {
		t.Fatalf("small output: %v", err)
	}
	if _, _, err := g.Final(env, ptr(st), nil, 0, nil); reason(err) != ReasonInvalidTag {
		t.Fatalf("decrypt final without tag: %v", err)
	}
	long := dma(t, 17)
	var l paramList
	l.add("tag", TypeOctet, ptr(long), 17)
	if err := g.SetCtxParams(env, ptr(st), l.params()); reason(err) != ReasonInvalidTag {
		t.Fatalf("17-byte tag: %v", err)
	}
	var l2 paramList
	l2.add("tlsaad", TypeOctet, ptr(buf), 12)
	if err := g.SetCtxParams(env, ptr(st), l2.params()); reason(err) != ReasonInvalidAAD {
		t.Fatalf("12-byte TLS AAD: %v", err)
	}
	var l3 paramList
	l3.add("ivlen", TypeUTF8, ptr(buf), 2)
	if err := g.SetCtxParams(env, ptr(st), l3.params()); reason(err) != ReasonBadParameter {
		t.Fatalf("ivlen as a string: %v", err)
	}
	var l4 paramList
	l4.add("no-such-param", TypeUTF8, ptr(buf), 2)
	if err := g.SetCtxParams(env, ptr(st), l4.params()); err != nil {
		t.Fatalf("unknown parameters are ignored, as OpenSSL's ciphers do: %v", err)
	}
	// AAD after data.
	if err := g.Init(env, ptr(st), true, make([]byte, 16), true, make([]byte, 12), true, Params{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 16, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.Update(env, ptr(st), nil, 0, ptr(buf), 16, nil); reason(err) != ReasonWrongState {
		t.Fatalf("AAD after data: %v", err)
	}
	// After final, the IV is spent.
	if _, _, err := g.Final(env, ptr(st), nil, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.Update(env, ptr(st), ptr(buf), 64, ptr(buf), 16, nil); reason(err) != ReasonMissingIV {
		t.Fatalf("update after final: %v", err)
	}
}

// TLS 1.2 records (RFC 5288) sealed by dispatch open with crypto/cipher and
// the reverse; a tampered record fails and leaves no plaintext behind.
func TestGCMTLS12Records(t *testing.T) {
	env := testEnv(t)
	g := CipherByID(AlgAES128GCM)
	key, fixed := bytes.Repeat([]byte{5}, 16), []byte{1, 2, 3, 4}
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	setup := func(enc bool) []byte {
		st := dma(t, int(g.StateSize()))
		if err := g.Init(env, ptr(st), enc, key, true, nil, false, Params{}); err != nil {
			t.Fatal(err)
		}
		fx := dma(t, 4)
		copy(fx, fixed)
		var l paramList
		l.add("tlsivfixed", TypeOctet, ptr(fx), 4)
		if err := g.SetCtxParams(env, ptr(st), l.params()); err != nil {
			t.Fatal(err)
		}
		return st
	}
	tlsAAD := func(st []byte, seq byte, n int) {
		aad := dma(t, 13)
		copy(aad, []byte{0, 0, 0, 0, 0, 0, 0, seq, 23, 3, 3, byte(n >> 8), byte(n)})
		pad := uintptr(0)
		var l paramList
		l.add("tlsaad", TypeOctet, ptr(aad), 13)
		if err := g.SetCtxParams(env, ptr(st), l.params()); err != nil {
			t.Fatal(err)
		}
		var l2 paramList
		l2.add("tlsaadpad", TypeUnsigned, unsafe.Pointer(&pad), unsafe.Sizeof(pad))
		if err := g.GetCtxParams(env, ptr(st), l2.params()); err != nil || pad != 16 {
			t.Fatalf("tlsaadpad %d %v", pad, err)
		}
	}
	enc, dec := setup(true), setup(false)
	for seq := byte(0); seq < 20; seq++ {
		msg := bytes.Repeat([]byte{seq}, 100+int(seq)*37)
		rec := dma(t, 8+len(msg)+16)
		copy(rec[8:], msg)
		tlsAAD(enc, seq, len(rec)-16) // libssl: explicit nonce + payload when sealing
		n, err := call(seq%2 == 0, func(w Waiter) (int, bool, *Error) {
			return g.Update(env, ptr(enc), ptr(rec), len(rec), ptr(rec), len(rec), w)
		})
		if err != nil || n != len(rec) {
			t.Fatalf("seal record %d: %d %v", seq, n, err)
		}
		nonce := append(append([]byte{}, fixed...), rec[:8]...)
		aad := []byte{0, 0, 0, 0, 0, 0, 0, seq, 23, 3, 3, byte(len(msg) >> 8), byte(len(msg))}
		plain, oerr := aead.Open(nil, nonce, rec[8:], aad)
		if oerr != nil || !bytes.Equal(plain, msg) {
			t.Fatalf("record %d does not open with crypto/cipher: %v", seq, oerr)
		}
		// Now open it with dispatch, then a tampered copy.
		for _, tamper := range []bool{false, true} {
			sealed := append([]byte{}, rec...)
			if tamper {
				sealed[20] ^= 0x80
			}
			buf := dma(t, len(sealed))
			copy(buf, sealed)
			tlsAAD(dec, seq, len(buf)) // the whole record when opening
			n, err := call(seq%3 == 0, func(w Waiter) (int, bool, *Error) {
				return g.Update(env, ptr(dec), ptr(buf), len(buf), ptr(buf), len(buf), w)
			})
			if tamper {
				if err == nil || err.Reason != ReasonAuthFailed || !bytes.Equal(buf[8:8+len(msg)], make([]byte, len(msg))) {
					t.Fatalf("tampered record %d: %v (plaintext must be wiped)", seq, err)
				}
			} else if err != nil || n != len(msg) || !bytes.Equal(buf[8:8+len(msg)], msg) {
				t.Fatalf("open record %d: %d %v", seq, n, err)
			}
		}
	}
}

// reason is err's reason code, 0 for no error.
func reason(err *Error) Reason {
	if err == nil {
		return 0
	}
	return err.Reason
}
