package asym

import "crypto/ecdh"

// X25519 returns the RFC 7748 function X25519(k, u): k is the 32-byte
// scalar (clamped as the RFC says), u the 32-byte little-endian
// u-coordinate (its top bit is ignored, non-canonical values are reduced).
// An all-zero result (u of small order) yields ErrInput. Constant time in k.
func X25519(k, u []byte) ([]byte, error) {
	if len(k) != 32 || len(u) != 32 {
		return nil, ErrInput
	}
	priv, err := ecdh.X25519().NewPrivateKey(k)
	if err != nil {
		return nil, ErrInput
	}
	pub, err := ecdh.X25519().NewPublicKey(u)
	if err != nil {
		return nil, ErrInput
	}
	out, err := priv.ECDH(pub)
	if err != nil {
		return nil, ErrInput
	}
	return out, nil
}

// X25519Base returns X25519(k, 9), the public key for scalar k.
func X25519Base(k []byte) ([]byte, error) {
	if len(k) != 32 {
		return nil, ErrInput
	}
	priv, err := ecdh.X25519().NewPrivateKey(k)
	if err != nil {
		return nil, ErrInput
	}
	return priv.PublicKey().Bytes(), nil
}
