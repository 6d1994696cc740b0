// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/asn1"
	"math/big"
	"strings"
	"testing"
	"unsafe"
)

// The parsers of untrusted bytes in this package, each against a plain
// reference: `go test -fuzz=FuzzX ./dispatch` runs one for as long as
// wanted (tests/fuzz/fuzz.sh runs each briefly in make test); the seeds and any
// failing input found are kept in testdata/fuzz/.

// A DER ECDSA signature is accepted exactly when it is the canonical
// encoding of two positive integers of at most b bytes, which
// encoding/asn1 (strict DER) decodes to the same values, and re-encoding
// gives the same bytes.
func FuzzParseDERSignature(f *testing.F) {
	f.Add(derSignature([]byte{1, 2, 3}, []byte{0x80, 1}), uint8(32))
	f.Add([]byte{0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, uint8(32))
	f.Add([]byte{0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01}, uint8(66))
	f.Add([]byte{0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01}, uint8(32))
	f.Fuzz(func(t *testing.T, sig []byte, b uint8) {
		r, s, ok := parseDERSignature(sig, int(b))
		var ref struct{ R, S *big.Int }
		rest, err := asn1.Unmarshal(sig, &ref)
		refOK := err == nil && len(rest) == 0 && ref.R.Sign() > 0 && ref.S.Sign() > 0 &&
			len(ref.R.Bytes()) <= int(b) && len(ref.S.Bytes()) <= int(b)
		if refOK {
			// encoding/asn1 accepts a long-form length where DER needs the
			// short form only above 127 bytes; OpenSSL takes DER only.
			again, _ := asn1.Marshal(ref)
			refOK = bytes.Equal(again, sig)
		}
		if ok != refOK {
			t.Fatalf("parse %x (b=%d): ours %v, strict DER %v (%v)", sig, b, ok, refOK, err)
		}
		if !ok {
			return
		}
		if !bytes.Equal(r, ref.R.Bytes()) || !bytes.Equal(s, ref.S.Bytes()) {
			t.Fatalf("parse %x: r=%x s=%x, want %x %x", sig, r, s, ref.R.Bytes(), ref.S.Bytes())
		}
		if again := derSignature(r, s); !bytes.Equal(again, sig) {
			t.Fatalf("re-encoding %x gives %x", sig, again)
		}
	})
}

// EME-PKCS1-v1_5 decoding against the obvious branching version.
func FuzzPKCS1Unpad(f *testing.F) {
	f.Add([]byte{0, 2, 1, 2, 3, 4, 5, 6, 7, 8, 0, 'h', 'i'})
	f.Add([]byte{0, 2, 1, 2, 3, 4, 5, 6, 7, 0, 'h', 'i'})
	f.Add([]byte{0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0})
	f.Fuzz(func(t *testing.T, em []byte) {
		if len(em) < 11 {
			return // the caller passes the modulus length, never less
		}
		n, good := pkcs1Unpad(em)
		want, wantGood := 0, 0
		if em[0] == 0 && em[1] == 2 {
			if i := bytes.IndexByte(em[2:], 0); i >= 8 {
				want, wantGood = len(em)-(i+2)-1, 1
			}
		}
		if n != want || good != wantGood {
			t.Fatalf("%x: (%d, %d), want (%d, %d)", em, n, good, want, wantGood)
		}
		// Implicit rejection: the message of a good padding, else the
		// tail of the synthetic message, never longer than a padding
		// allows.
		kdk := rsaKDK(em, em)
		out := make([]byte, len(em))
		m := out[:pkcs1ImplicitUnpad(out, em, kdk)]
		if good == 1 && !bytes.Equal(m, em[len(em)-n:]) {
			t.Fatalf("%x: implicit rejection returned %x for a good padding", em, m)
		}
		if syn := rsaPRF(kdk, "message", len(em)); good == 0 && (len(m) > len(em)-10 || !bytes.Equal(m, syn[len(em)-len(m):])) {
			t.Fatalf("%x: implicit rejection returned %x, not a tail of %x", em, m, syn)
		}
	})
}

// EME-OAEP decoding accepts what crypto/rsa encrypted, and only that: the
// fuzzer flips bytes of a real encoding.
func FuzzOAEPUnpad(f *testing.F) {
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		f.Fatal(err)
	}
	d := digestByName("SHA2-256")
	f.Add([]byte("message"), []byte("label"), uint16(0), uint8(0))
	f.Add([]byte(""), []byte(""), uint16(5), uint8(1))
	f.Fuzz(func(t *testing.T, msg, label []byte, pos uint16, flip uint8) {
		if len(msg) > 1024/8-2*32-2 {
			return
		}
		ct, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, &key.PublicKey, msg, label)
		if err != nil {
			t.Fatal(err)
		}
		em := new(big.Int).Exp(new(big.Int).SetBytes(ct), key.D, key.N).FillBytes(make([]byte, 128))
		tampered := flip != 0
		if tampered {
			em[int(pos)%len(em)] ^= flip
		}
		n, good := oaepUnpad(em, d, d, label)
		if !tampered && (good != 1 || !bytes.Equal(em[len(em)-n:], msg)) {
			t.Fatalf("a good encoding of %q: good %d, n %d", msg, good, n)
		}
		if tampered && good == 1 && int(pos)%len(em) != 0 {
			// Only the leading zero byte is not covered by the check... and
			// it is: em[0] must be 0. Any flip must be caught.
			t.Fatalf("flip %#x at %d accepted", flip, int(pos)%len(em))
		}
		if tampered && good == 1 {
			t.Fatalf("flip %#x of the leading byte accepted", flip)
		}
	})
}

// OSSL_PARAM integers as OSSL_PARAM_get_uint64 reads them: any size and
// type the fuzzer picks, never a read outside the buffer, and the value of
// the reference decoding.
func FuzzParamUint64(f *testing.F) {
	f.Add(uint8(TypeUnsigned), []byte{1, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(TypeInteger), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint8(TypeInteger), []byte{5})
	f.Add(uint8(TypeUTF8), []byte("12"))
	f.Fuzz(func(t *testing.T, typ uint8, data []byte) {
		buf := make([]byte, len(data)+8) // aligned, and room to catch over-reads
		copy(buf, data)
		p := Param{DataType: uint32(typ), DataSize: uintptr(len(data))}
		if len(data) > 0 {
			p.Data = unsafe.Pointer(&buf[0])
		}
		v, ok := p.Uint64()
		want, wantOK := refUint64(uint32(typ), data)
		if ok != wantOK || (ok && v != want) {
			t.Fatalf("type %d %x: (%d, %v), want (%d, %v)", typ, data, v, ok, want, wantOK)
		}
	})
}

func refUint64(typ uint32, b []byte) (uint64, bool) {
	le := func(b []byte) uint64 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	switch n := len(b); {
	case n != 1 && n != 2 && n != 4 && n != 8:
		return 0, false
	case typ == TypeUnsigned:
		return le(b), true
	case typ == TypeInteger:
		v := le(b)
		if b[n-1]&0x80 != 0 {
			return 0, false // negative
		}
		return v, true
	}
	return 0, false
}

// A group name with data_size 0 is read as a C string, as OpenSSL reads it.
func TestGroupNameSizeZero(t *testing.T) {
	name := []byte("P-256\x00")
	c, err := ecGroupParam(&Param{DataType: TypeUTF8, Data: unsafe.Pointer(&name[0])})
	if err != nil || c.name != "P-256" && c.name != "prime256v1" {
		t.Fatalf("%v %v", c, err)
	}
}

// The other OSSL_PARAM readers and the writers: BigEndian against a plain
// decoding of native-order bytes, UTF8 (trailing NULs dropped), and
// SetUint64 followed by Uint64 giving the value back when it fits the
// width and type, refusing it otherwise, never writing past DataSize.
func FuzzParamsRoundTrip(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0}, uint64(300), uint8(4), false, "P-256\x00")
	f.Add([]byte{}, uint64(1<<40), uint8(8), true, "")
	f.Fuzz(func(t *testing.T, data []byte, v uint64, width uint8, signed bool, s string) {
		buf := make([]byte, len(data)+8)
		copy(buf, data)
		p := Param{DataType: TypeUnsigned, DataSize: uintptr(len(data))}
		if len(data) > 0 {
			p.Data = unsafe.Pointer(&buf[0])
		}
		got, ok := p.BigEndian()
		want := make([]byte, len(data))
		for i := range data {
			want[i] = data[len(data)-1-i]
		}
		want = bytes.TrimLeft(want, "\x00")
		if len(data) > 0 && (!ok || !bytes.Equal(got, want)) {
			t.Fatalf("BigEndian(%x) = %x, want %x", data, got, want)
		}
		sb := append([]byte(s), 0)
		u := Param{DataType: TypeUTF8, Data: unsafe.Pointer(&sb[0]), DataSize: uintptr(len(s))}
		if str, ok := u.UTF8(); !ok || str != strings.TrimRight(s, "\x00") {
			t.Fatalf("UTF8(%q) = %q", s, str)
		}
		w := []int{1, 2, 4, 8, 3}[int(width)%5]
		out := make([]byte, 16)
		typ := TypeUnsigned
		if signed {
			typ = TypeInteger
		}
		q := Param{DataType: typ, Data: unsafe.Pointer(&out[0]), DataSize: uintptr(w)}
		bits := uint(8 * w)
		if signed {
			bits--
		}
		fits := w != 3 && (bits >= 64 || v < uint64(1)<<bits)
		if q.SetUint64(v) != fits {
			t.Fatalf("SetUint64(%d) into %d bytes (signed %v): ok %v, fits %v", v, w, signed, !fits, fits)
		}
		if !bytes.Equal(out[w:], make([]byte, 16-w)) {
			t.Fatalf("SetUint64 wrote past %d bytes: %x", w, out)
		}
		if fits {
			if back, ok := q.Uint64(); !ok || back != v {
				t.Fatalf("Uint64 after SetUint64(%d) in %d bytes: %d %v", v, w, back, ok)
			}
		}
	})
}
