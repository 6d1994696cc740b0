// SPDX-License-Identifier: Apache-2.0

package aesgcm

import (
	"bytes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// mulRef is SP 800-38D Algorithm 1, bit by bit on byte strings, sharing no
// code with the fast paths.
func mulRef(x, y [16]byte) [16]byte {
	var z [16]byte
	v := y
	for i := range 128 {
		if x[i/8]>>(7-i%8)&1 == 1 {
			for j := range z {
				z[j] ^= v[j]
			}
		}
		lsb := v[15] & 1
		for j := 15; j > 0; j-- {
			v[j] = v[j]>>1 | v[j-1]<<7
		}
		v[0] >>= 1
		if lsb == 1 {
			v[0] ^= 0xe1
		}
	}
	return z
}

// ghashRef is GHASH_H(pad(a) || pad(c) || [8·len(a)]_64 || [8·len(c)]_64).
func ghashRef(h [16]byte, a, c []byte) [16]byte {
	var x [16]byte
	absorb := func(b []byte) {
		for len(b) > 0 {
			var blk [16]byte
			n := copy(blk[:], b)
			b = b[n:]
			for j := range x {
				x[j] ^= blk[j]
			}
			x = mulRef(x, h)
		}
	}
	absorb(a)
	absorb(c)
	var l [16]byte
	binary.BigEndian.PutUint64(l[:8], uint64(len(a))*8)
	binary.BigEndian.PutUint64(l[8:], uint64(len(c))*8)
	absorb(l[:])
	return x
}

// refJ0 computes the pre-counter block of iv per SP 800-38D.
func refJ0(block cipher.Block, iv []byte) [16]byte {
	var j0 [16]byte
	if len(iv) == 12 {
		copy(j0[:], iv)
		j0[15] = 1
		return j0
	}
	var h [16]byte
	block.Encrypt(h[:], h[:])
	// GHASH(IV || pad || 0^64 || [len]_64) is ghashRef with a = nil, c = iv.
	return ghashRef(h, nil, iv)
}

// refGCM is GCM from the specification with a given J0: CTR with inc32 and
// GHASH by mulRef. It is the oracle where crypto/cipher cannot be one (J0
// set directly) and a cross-check of crypto/cipher at the counter wrap.
func refGCM(block cipher.Block, j0 [16]byte, aad, pt []byte, decrypt bool) (out []byte, tag [16]byte) {
	var h [16]byte
	block.Encrypt(h[:], h[:])
	out = make([]byte, len(pt))
	ctr := j0
	var ks [16]byte
	for i := 0; i < len(pt); i += 16 {
		binary.BigEndian.PutUint32(ctr[12:], binary.BigEndian.Uint32(ctr[12:])+1)
		block.Encrypt(ks[:], ctr[:])
		for j := i; j < len(pt) && j < i+16; j++ {
			out[j] = pt[j] ^ ks[j-i]
		}
	}
	ct := out
	if decrypt {
		ct = pt
	}
	s := ghashRef(h, aad, ct)
	block.Encrypt(tag[:], j0[:])
	for j := range tag {
		tag[j] ^= s[j]
	}
	return out, tag
}

func randElem(r *rand.Rand) elem {
	switch r.IntN(8) {
	case 0:
		return elem{}
	case 1:
		return one
	case 2:
		return elem{hi: r.Uint64() & 0xff, lo: r.Uint64() & 1}
	case 3:
		return elem{hi: ^uint64(0), lo: ^uint64(0)}
	}
	return elem{r.Uint64(), r.Uint64()}
}

func elemBytes(e elem) (b [16]byte) {
	storeElem(b[:], e)
	return
}

func TestMulMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var tab mulTable
	for i := range n {
		a, b := randElem(r), randElem(r)
		want := mulRef(elemBytes(a), elemBytes(b))
		if got := elemBytes(mulGeneric(a, b)); got != want {
			t.Fatalf("mulGeneric(%x, %x) = %x, want %x", elemBytes(a), elemBytes(b), got, want)
		}
		if i%16 == 0 {
			tab.init(b)
		} else {
			a = randElem(r)
			want = mulRef(elemBytes(a), elemBytes(tabElem(&tab)))
		}
		if got := elemBytes(tab.mul(a)); got != want {
			t.Fatalf("mulTable.mul: got %x, want %x", got, want)
		}
		c := r.Uint32()
		want = mulRef(elemBytes(elem{lo: uint64(c)}), elemBytes(tabElem(&tab)))
		if i%16 == 0 {
			var ct ctrTable
			ct.init(tabElem(&tab))
			if got := elemBytes(ct.mulLow32(c)); got != want {
				t.Fatalf("mulLow32(%#x): got %x, want %x", c, got, want)
			}
		}
	}
}

// tabElem recovers the multiplier of a table: hi[0x80] = 1·q.
func tabElem(t *mulTable) elem { return t.hi[0x80] }

func TestMulX(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := elemBytes(elem{hi: 1 << 62}) // the element x
	for range 1000 {
		a := randElem(r)
		if got, want := elemBytes(mulX(a)), mulRef(elemBytes(a), x); got != want {
			t.Fatalf("mulX(%x) = %x, want %x", elemBytes(a), got, want)
		}
	}
}

func TestInverse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		a := elem{r.Uint64(), r.Uint64()}
		switch i {
		case 0:
			a = one
		case 1:
			a = elem{hi: 1 << 62}
		case 2:
			a = elem{lo: 1}
		}
		inv := inverse(a)
		if got := mulRef(elemBytes(a), elemBytes(inv)); got != elemBytes(one) {
			t.Fatalf("%x · inverse = %x, want 1", elemBytes(a), got)
		}
	}
	// And through a real key: H·H^-1 = 1 and H^-2·H² = 1.
	k, err := NewKey(make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	inv := k.invTables()
	if inv == nil {
		t.Fatal("no inverse tables")
	}
	hInv := tabElem(&inv.hInv)
	if got := mulRef(elemBytes(k.h), elemBytes(hInv)); got != elemBytes(one) {
		t.Fatalf("H·H^-1 = %x", got)
	}
	h2 := mulRef(elemBytes(k.h), elemBytes(k.h))
	if got := mulRef(elemBytes(tabElem(&inv.hInv2)), h2); got != elemBytes(one) {
		t.Fatalf("H^-2·H² = %x", got)
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// Known GHASH values from McGrew and Viega, "The Galois/Counter Mode of
// Operation (GCM)", test cases 2 and 4.
func TestGHASHKnownAnswers(t *testing.T) {
	for _, tc := range []struct{ h, a, c, want string }{
		{
			h:    "66e94bd4ef8a2c3b884cfa59ca342b2e",
			c:    "0388dace60b6a392f328c2b971b2fe78",
			want: "f38cbb1ad69223dcc3457ae5b6b0f885",
		},
		{
			h: "b83b533708bf535d0aa6e52980d53b78",
			a: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
			c: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e" +
				"21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
			want: "698e57f70e6ecc7fd9463b7260a9ae5f",
		},
	} {
		h := [16]byte(mustHex(tc.h))
		a, c := mustHex(tc.a), mustHex(tc.c)
		if got := ghashRef(h, a, c); !bytes.Equal(got[:], mustHex(tc.want)) {
			t.Errorf("ghashRef = %x, want %s", got, tc.want)
		}
		// The same through the table and the B form used by State.
		var tab mulTable
		tab.init(loadElem(h[:]))
		y := elem{}
		for _, part := range [][]byte{a, c} {
			for len(part) > 0 {
				var blk [16]byte
				n := copy(blk[:], part)
				part = part[n:]
				y = tab.mul(y).xor(loadElem(blk[:]))
			}
		}
		y = tab.mul(y).xor(elem{uint64(len(a)) * 8, uint64(len(c)) * 8})
		if got := elemBytes(tab.mul(y)); !bytes.Equal(got[:], mustHex(tc.want)) {
			t.Errorf("table GHASH = %x, want %s", got, tc.want)
		}
	}
}
