// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"crypto/sha3"
	"testing"
)

// Every digest's state (MD5-SHA1's and SHAKE's too) fits hashState, and a
// hash split across a save and a load gives the same sum as in one piece.
func TestHashStateRoundTrip(t *testing.T) {
	data := bytes.Repeat([]byte("cptprov"), 100)
	for _, d := range digests {
		var s hashState
		h := d.newHash()
		h.Write(data[:333])
		if err := s.save(h); err != nil {
			t.Fatalf("%s: %v", d.names[0], err)
		}
		h2, err := s.load(d)
		if err != nil {
			t.Fatal(err)
		}
		h2.Write(data[333:])
		want := d.newHash()
		want.Write(data)
		if !bytes.Equal(h2.Sum(nil), want.Sum(nil)) || h2.Size() != d.size || len(want.Sum(nil)) != d.size {
			t.Fatalf("%s: sums differ", d.names[0])
		}
	}
}

// SHAKE's sum is the XOF's first bytes, and taking it leaves the XOF
// absorbing.
func TestSHAKESum(t *testing.T) {
	data := bytes.Repeat([]byte("shake"), 77)
	for _, c := range []struct {
		name string
		ref  func([]byte, int) []byte
	}{{"SHAKE128", sha3.SumSHAKE128}, {"SHAKE256", sha3.SumSHAKE256}} {
		d := digestByName(c.name)
		h := d.newHash()
		h.Write(data[:100])
		if !bytes.Equal(h.Sum(nil), c.ref(data[:100], d.size)) {
			t.Fatalf("%s: sum of the first part differs", c.name)
		}
		h.Write(data[100:])
		if !bytes.Equal(h.Sum([]byte{1}), append([]byte{1}, c.ref(data, d.size)...)) {
			t.Fatalf("%s: sum after more input differs", c.name)
		}
	}
}

// The DigestInfo prefixes are those of RFC 8017 (checked for MD5, SHA-256
// and SHA-512 byte for byte) and all parse as DER of the right length;
// MD5-SHA1 has none.
func TestDigestInfo(t *testing.T) {
	md5Prefix := []byte{0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05, 0x05, 0x00, 0x04, 0x10}
	sha256Prefix := []byte{0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20}
	sha512Prefix := []byte{0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40}
	if !bytes.Equal(digestByName("MD5").digestInfo(), md5Prefix) || !bytes.Equal(digestByName("SHA256").digestInfo(), sha256Prefix) ||
		!bytes.Equal(digestByName("SHA512").digestInfo(), sha512Prefix) {
		t.Fatal("DigestInfo prefix differs from RFC 8017")
	}
	if md5SHA1.digestInfo() != nil {
		t.Fatal("MD5-SHA1 has a DigestInfo")
	}
	for _, d := range digests {
		if d.use&useRSA == 0 || d == md5SHA1 {
			continue
		}
		p := d.digestInfo()
		if int(p[1]) != len(p)-2+d.size || int(p[len(p)-1]) != d.size {
			t.Fatalf("%s: malformed DigestInfo %x", d.names[0], p)
		}
	}
}
