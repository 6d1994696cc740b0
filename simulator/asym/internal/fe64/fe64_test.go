// SPDX-License-Identifier: Apache-2.0

//go:build amd64 && !purego

package fe64

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"math/big"
	"testing"
)

var p = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))

func toBig(x *fe64) *big.Int {
	r := new(big.Int)
	for i := 3; i >= 0; i-- {
		r.Lsh(r, 64)
		r.Or(r, new(big.Int).SetUint64(x[i]))
	}
	return r
}

// random returns a random element below 2^256, one in four times an edge
// value whose carries run through every limb.
func random() fe64 {
	var b [32]byte
	rand.Read(b[:])
	x := fe64FromBytes(b[:])
	x[3] |= uint64(b[31]&0x80) << 56 // the full 2^256 range
	switch b[0] % 16 {
	case 0:
		x = fe64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)} // 2^256-1
	case 1:
		x = fe64{^uint64(0) - 18, ^uint64(0), ^uint64(0), 1<<63 - 1} // p
	case 2:
		x = fe64{}
	case 3:
		x = fe64{^uint64(0) - 17, ^uint64(0), ^uint64(0), 1<<63 - 1} // p+1
	}
	return x
}

func checkMod(t *testing.T, what string, got *fe64, want *big.Int, args ...any) {
	t.Helper()
	if new(big.Int).Mod(toBig(got), p).Cmp(new(big.Int).Mod(want, p)) != 0 {
		t.Fatalf("%s%x: got %x", what, args, got)
	}
}

func TestMulAgainstBig(t *testing.T) {
	for i := 0; i < 100000; i++ {
		x, y := random(), random()
		var z fe64
		fe64Mul(&z, &x, &y)
		checkMod(t, "mul", &z, new(big.Int).Mul(toBig(&x), toBig(&y)), x, y)
		want := new(big.Int).Mul(toBig(&x), toBig(&x))
		fe64Mul(&x, &x, &x) // aliased operands
		checkMod(t, "square in place", &x, want, x)
	}
}

func TestSqrNAgainstBig(t *testing.T) {
	for i := 0; i < 50000; i++ {
		x := random()
		n := 1 + i%7
		var z fe64
		fe64SqrN(&z, &x, n)
		want := toBig(&x)
		for j := 0; j < n; j++ {
			want.Mul(want, want).Mod(want, p)
		}
		checkMod(t, "sqrN", &z, want, x, n)
	}
}

func TestInvert(t *testing.T) {
	for i := 0; i < 2000; i++ {
		x := random()
		var z fe64
		z.invert(&x)
		xb := new(big.Int).Mod(toBig(&x), p)
		want := new(big.Int)
		if xb.Sign() != 0 {
			want.ModInverse(xb, p)
		}
		checkMod(t, "invert", &z, want, x)
	}
}

func TestBytesCanonical(t *testing.T) {
	for i := 0; i < 100000; i++ {
		x := random()
		got := x.bytes()
		want := new(big.Int).Mod(toBig(&x), p).FillBytes(make([]byte, 32))
		for i, j := 0, 31; i < j; i, j = i+1, j-1 {
			want[i], want[j] = want[j], want[i]
		}
		if !bytes.Equal(got[:], want) {
			t.Fatalf("bytes(%x) = %x, want %x", x, got, want)
		}
	}
}

// TestX25519AgainstCryptoECDH checks the ladder (ladderStep, swaps,
// inversion, encoding) against Go's crypto/ecdh on random keys.
func TestX25519AgainstCryptoECDH(t *testing.T) {
	if !Available {
		t.Skip("no BMI2/ADX")
	}
	for i := 0; i < 2000; i++ {
		k, peerKey := make([]byte, 32), make([]byte, 32)
		rand.Read(k)
		rand.Read(peerKey)
		priv, err1 := ecdh.X25519().NewPrivateKey(k)
		peer, err2 := ecdh.X25519().NewPrivateKey(peerKey)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		want, err := priv.ECDH(peer.PublicKey())
		if err != nil {
			t.Fatal(err)
		}
		e := [32]byte(k)
		e[0] &= 248
		e[31] &= 127
		e[31] |= 64
		got := X25519(&e, peer.PublicKey().Bytes())
		if !bytes.Equal(got[:], want) {
			t.Fatalf("k %x: got %x, want %x", k, got, want)
		}
	}
}

func BenchmarkMul(b *testing.B) {
	x, y := random(), random()
	for b.Loop() {
		fe64Mul(&x, &x, &y)
	}
}

func BenchmarkSqr(b *testing.B) {
	x := random()
	for b.Loop() {
		fe64SqrN(&x, &x, 1)
	}
}
