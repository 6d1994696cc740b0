package dispatch

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding"
	"hash"
	"strings"
)

// digest is a hash a signature can be computed over, by the names OpenSSL
// knows it by. Hashing is the driver's work, as on the real device.
type digest struct {
	id      uint32
	names   []string
	size    int
	newHash func() hash.Hash
	// ecdsaAID is the DER AlgorithmIdentifier of ECDSA with this digest.
	ecdsaAID []byte
}

// digestInfo is the DER DigestInfo prefix of PKCS#1 v1.5 signatures
// (RFC 8017 section 9.2, note 1): AlgorithmIdentifier with NULL parameters,
// then the OCTET STRING header of the hash.
func (d *digest) digestInfo() []byte {
	if d.id == 1 { // SHA-1: 1.3.14.3.2.26
		return []byte{0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14}
	}
	// SHA-2 and SHA-3: 2.16.840.1.101.3.4.2.n, n from the dotted name.
	oid := d.names[len(d.names)-1]
	arc := oid[strings.LastIndexByte(oid, '.')+1:]
	n := 0
	for _, ch := range arc {
		n = n*10 + int(ch-'0')
	}
	return []byte{0x30, byte(0x11 + d.size), 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, byte(n),
		0x05, 0x00, 0x04, byte(d.size)}
}

var digests = []*digest{
	{1, []string{"SHA1", "SHA-1", "SSL3-SHA1", "1.3.14.3.2.26"}, 20, sha1.New,
		[]byte{0x30, 0x09, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01}},
	{2, []string{"SHA2-224", "SHA-224", "SHA224", "2.16.840.1.101.3.4.2.4"}, 28, sha256.New224,
		[]byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x01}},
	{3, []string{"SHA2-256", "SHA-256", "SHA256", "2.16.840.1.101.3.4.2.1"}, 32, sha256.New,
		[]byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02}},
	{4, []string{"SHA2-384", "SHA-384", "SHA384", "2.16.840.1.101.3.4.2.2"}, 48, sha512.New384,
		[]byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03}},
	{5, []string{"SHA2-512", "SHA-512", "SHA512", "2.16.840.1.101.3.4.2.3"}, 64, sha512.New,
		[]byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04}},
	{6, []string{"SHA2-512/224", "SHA-512/224", "SHA512-224", "2.16.840.1.101.3.4.2.5"}, 28, sha512.New512_224, nil},
	{7, []string{"SHA2-512/256", "SHA-512/256", "SHA512-256", "2.16.840.1.101.3.4.2.6"}, 32, sha512.New512_256, nil},
	{8, []string{"SHA3-224", "2.16.840.1.101.3.4.2.7"}, 28, func() hash.Hash { return sha3.New224() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x09}},
	{9, []string{"SHA3-256", "2.16.840.1.101.3.4.2.8"}, 32, func() hash.Hash { return sha3.New256() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x0a}},
	{10, []string{"SHA3-384", "2.16.840.1.101.3.4.2.9"}, 48, func() hash.Hash { return sha3.New384() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x0b}},
	{11, []string{"SHA3-512", "2.16.840.1.101.3.4.2.10"}, 64, func() hash.Hash { return sha3.New512() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x0c}},
}

func digestByName(name string) *digest {
	for _, d := range digests {
		for _, n := range d.names {
			if strings.EqualFold(n, name) {
				return d
			}
		}
	}
	return nil
}

func digestByID(id uint32) *digest {
	for _, d := range digests {
		if d.id == id {
			return d
		}
	}
	return nil
}

// hashState keeps a running hash in C memory between calls: Go's hashes
// marshal their state, which then survives in the operation context.
type hashState struct {
	n   uint32
	buf [232]byte
}

func (s *hashState) save(h hash.Hash) *Error {
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil || len(b) > len(s.buf) {
		return errorf(ReasonInternal, "saving a hash state: %v (%d bytes)", err, len(b))
	}
	s.n = uint32(copy(s.buf[:], b))
	return nil
}

func (s *hashState) load(d *digest) (hash.Hash, *Error) {
	h := d.newHash()
	if s.n == 0 {
		return h, nil
	}
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(s.buf[:s.n]); err != nil {
		return nil, errorf(ReasonInternal, "restoring a hash state: %v", err)
	}
	return h, nil
}

func (s *hashState) reset() {
	clear(s.buf[:s.n])
	s.n = 0
}
