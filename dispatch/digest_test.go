package dispatch

import (
	"bytes"
	"testing"
)

// Every digest's state (MD5-SHA1's too) fits hashState, and a hash split
// across a save and a load gives the same sum as in one piece.
func TestHashStateRoundTrip(t *testing.T) {
	data := bytes.Repeat([]byte("cptprov"), 100)
	for _, d := range append(digests, md5SHA1) {
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
		if !bytes.Equal(h2.Sum(nil), want.Sum(nil)) || h2.Size() != d.size {
			t.Fatalf("%s: sums differ", d.names[0])
		}
	}
}

// The DigestInfo prefixes are those of RFC 8017 (checked for SHA-256 and
// SHA-512 byte for byte) and all parse as DER of the right length.
func TestDigestInfo(t *testing.T) {
	sha256Prefix := []byte{0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20}
	sha512Prefix := []byte{0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40}
	if !bytes.Equal(digestByName("SHA256").digestInfo(), sha256Prefix) || !bytes.Equal(digestByName("SHA512").digestInfo(), sha512Prefix) {
		t.Fatal("DigestInfo prefix differs from RFC 8017")
	}
	for _, d := range digests {
		p := d.digestInfo()
		if int(p[1]) != len(p)-2+d.size || int(p[len(p)-1]) != d.size {
			t.Fatalf("%s: malformed DigestInfo %x", d.names[0], p)
		}
	}
}
