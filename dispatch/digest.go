// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding"
	"errors"
	"hash"
	"strings"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"
)

// digest is a hash a signature or OAEP can be computed over, by the names
// OpenSSL knows it by. Hashing is the driver's work, as on the real device.
type digest struct {
	id      uint32
	names   []string
	size    int
	newHash func() hash.Hash
	// ecdsaAID is the DER AlgorithmIdentifier of ECDSA with this digest.
	ecdsaAID []byte
	use      digestUse
}

// digestUse is where a digest may serve beyond ECDSA and OAEP, which
// OpenSSL's default provider runs over any digest it can fetch.
type digestUse uint8

const (
	// useRSA: RSA signatures and their MGF1 (ossl_digest_rsa_sign_get_md_nid
	// lists SHA-1, SHA-2, SHA-3, MD5 and MD5-SHA1).
	useRSA digestUse = 1 << iota
	// usePSSKey: an RSA-PSS key restricted to it can sign. The default
	// provider takes a restriction to any digest but keeps only SHA-1 and
	// SHA-2 (ossl_rsa_oaeppss_md2nid): a key restricted to another signs
	// with nothing.
	usePSSKey
)

// digestInfo is the DER DigestInfo prefix of PKCS#1 v1.5 signatures
// (RFC 8017 section 9.2, note 1): AlgorithmIdentifier with NULL parameters,
// then the OCTET STRING header of the hash.
func (d *digest) digestInfo() []byte {
	switch d {
	case md5SHA1: // no OID: TLS 1.0 and 1.1 sign the 36 bytes bare
		return nil
	case md5Digest: // 1.2.840.113549.2.5
		return []byte{0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05, 0x05, 0x00, 0x04, 0x10}
	}
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

const rsaAndPSSKey = useRSA | usePSSKey

// digests are the device's digests (the list's, by their names there),
// then those only signatures and OAEP hash, with ids of their own above.
var digests = []*digest{
	listed(MDSHA1, sha1.New, []byte{0x30, 0x09, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01}, rsaAndPSSKey),
	listed(MDSHA224, sha256.New224, []byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x01}, rsaAndPSSKey),
	listed(MDSHA256, sha256.New, []byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02}, rsaAndPSSKey),
	listed(MDSHA384, sha512.New384, []byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03}, rsaAndPSSKey),
	listed(MDSHA512, sha512.New, []byte{0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04}, rsaAndPSSKey),
	listed(MDSHA512224, sha512.New512_224, nil, rsaAndPSSKey),
	listed(MDSHA512256, sha512.New512_256, nil, rsaAndPSSKey),
	{8, []string{"SHA3-224", "2.16.840.1.101.3.4.2.7"}, 28, func() hash.Hash { return sha3.New224() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x09}, useRSA},
	{9, []string{"SHA3-256", "2.16.840.1.101.3.4.2.8"}, 32, func() hash.Hash { return sha3.New256() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x0a}, useRSA},
	{10, []string{"SHA3-384", "2.16.840.1.101.3.4.2.9"}, 48, func() hash.Hash { return sha3.New384() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x0b}, useRSA},
	{11, []string{"SHA3-512", "2.16.840.1.101.3.4.2.10"}, 64, func() hash.Hash { return sha3.New512() },
		[]byte{0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x0c}, useRSA},
	md5SHA1,
	md5Digest,
	// SHAKE at OpenSSL's default output length (its EVP_MD_get_size), and
	// BLAKE2: the default provider signs over them with ECDSA only.
	{14, []string{"SHAKE-128", "SHAKE128", "2.16.840.1.101.3.4.2.11"}, 16, newSHAKE(sha3.NewSHAKE128, 16), nil, 0},
	{15, []string{"SHAKE-256", "SHAKE256", "2.16.840.1.101.3.4.2.12"}, 32, newSHAKE(sha3.NewSHAKE256, 32), nil, 0},
	{16, []string{"BLAKE2S-256", "BLAKE2s256", "1.3.6.1.4.1.1722.12.2.2.8"}, 32, newBLAKE2(blake2s.New256), nil, 0},
	{17, []string{"BLAKE2B-512", "BLAKE2b512", "1.3.6.1.4.1.1722.12.2.1.16"}, 64, newBLAKE2(blake2b.New512), nil, 0},
}

// listed is a digest of the list of algorithms (mdRows), its names and size
// from there.
func listed(id int, newHash func() hash.Hash, ecdsaAID []byte, use digestUse) *digest {
	r := mdRowByID(id)
	return &digest{uint32(r.id), r.names, r.size, newHash, ecdsaAID, use}
}

// md5SHA1 is TLS 1.0 and 1.1's MD5 || SHA-1 (RFC 4346 section 4.7), which
// RSA signs in a PKCS#1 v1.5 block without a DigestInfo.
var md5SHA1 = &digest{12, []string{"MD5-SHA1"}, md5.Size + sha1.Size, newMD5SHA1, nil, useRSA}

var md5Digest = &digest{13, []string{"MD5", "SSL3-MD5", "1.2.840.113549.2.5"}, md5.Size, md5.New, nil, useRSA}

func digestByName(name string) *digest { return digestNamed(digests, name) }
func digestByID(id uint32) *digest     { return digestWithID(digests, id) }

func digestNamed(list []*digest, name string) *digest {
	for _, d := range list {
		for _, n := range d.names {
			if strings.EqualFold(n, name) {
				return d
			}
		}
	}
	return nil
}

func digestWithID(list []*digest, id uint32) *digest {
	for _, d := range list {
		if d.id == id {
			return d
		}
	}
	return nil
}

// noDefaultLength reports a digest without a default output length in the
// running OpenSSL: SHAKE since 3.4, which OAEP and ECDSA then refuse.
func (d *digest) noDefaultLength(env *Env) bool {
	_, xof := d.newHash().(*shakeHash)
	return xof && env.openSSLAtLeast(3, 4)
}

// newSHAKE makes a SHAKE read to size bytes a hash.Hash.
func newSHAKE(xof func() *sha3.SHAKE, size int) func() hash.Hash {
	return func() hash.Hash { return &shakeHash{xof(), xof, size} }
}

type shakeHash struct {
	*sha3.SHAKE
	xof  func() *sha3.SHAKE
	size int
}

// Sum reads the output from a copy, so that the XOF can take more input.
func (h *shakeHash) Sum(b []byte) []byte {
	st, err := h.MarshalBinary()
	c := h.xof()
	if err != nil || c.UnmarshalBinary(st) != nil {
		panic("sha3: copying a SHAKE state")
	}
	out := make([]byte, h.size)
	c.Read(out)
	return append(b, out...)
}

func (h *shakeHash) Size() int { return h.size }

// newBLAKE2 makes an unkeyed BLAKE2 constructor (which cannot fail).
func newBLAKE2(f func(key []byte) (hash.Hash, error)) func() hash.Hash {
	return func() hash.Hash {
		h, err := f(nil)
		if err != nil {
			panic(err)
		}
		return h
	}
}

// md5SHA1Hash hashes with MD5 and SHA-1 at once; its sum is the two sums.
type md5SHA1Hash struct{ md5, sha1 hash.Hash }

func newMD5SHA1() hash.Hash { return &md5SHA1Hash{md5.New(), sha1.New()} }

func (h *md5SHA1Hash) Write(p []byte) (int, error) {
	h.md5.Write(p)
	return h.sha1.Write(p)
}

func (h *md5SHA1Hash) Sum(b []byte) []byte { return h.sha1.Sum(h.md5.Sum(b)) }
func (h *md5SHA1Hash) Reset()              { h.md5.Reset(); h.sha1.Reset() }
func (h *md5SHA1Hash) Size() int           { return md5.Size + sha1.Size }
func (h *md5SHA1Hash) BlockSize() int      { return md5.BlockSize }

// MarshalBinary puts the two states side by side behind the length of
// MD5's, so that hashState keeps a half-hashed message like any other.
func (h *md5SHA1Hash) MarshalBinary() ([]byte, error) {
	a, err := h.md5.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, err
	}
	b, err := h.sha1.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, err
	}
	return append(append([]byte{byte(len(a))}, a...), b...), nil
}

func (h *md5SHA1Hash) UnmarshalBinary(b []byte) error {
	if len(b) == 0 || len(b) < 1+int(b[0]) {
		return errors.New("md5-sha1: short state")
	}
	n := 1 + int(b[0])
	if err := h.md5.(encoding.BinaryUnmarshaler).UnmarshalBinary(b[1:n]); err != nil {
		return err
	}
	return h.sha1.(encoding.BinaryUnmarshaler).UnmarshalBinary(b[n:])
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
