// SPDX-License-Identifier: Apache-2.0

package asym

import "filippo.io/nistec"

// p256Point is a P-256 point whose multiplications run on libcrypto's
// nistz256 assembly (constant time in the scalar), faster on x86-64 than
// nistec's; parsing and addition (public data) stay with nistec. It holds
// the uncompressed encoding, or the single 0 byte of the point at infinity.
type p256Point struct {
	enc []byte
}

func newP256Point() *p256Point { return &p256Point{enc: []byte{0}} }

func (p *p256Point) Bytes() []byte { return append([]byte(nil), p.enc...) }

func (p *p256Point) BytesX() ([]byte, error) {
	if len(p.enc) == 1 {
		return nil, ErrPointAtInfinity
	}
	return append([]byte(nil), p.enc[1:33]...), nil
}

func (p *p256Point) set(enc []byte, err error) (*p256Point, error) {
	switch err {
	case nil:
		p.enc = enc
	case ErrPointAtInfinity:
		p.enc = []byte{0}
	default:
		return nil, err
	}
	return p, nil
}

// SetBytes validates b (uncompressed, compressed or infinity) with nistec.
// An uncompressed b is kept as it is: re-encoding would cost a field
// inversion.
func (p *p256Point) SetBytes(b []byte) (*p256Point, error) {
	q, err := nistec.NewP256Point().SetBytes(b)
	if err != nil {
		return nil, err
	}
	if len(b) == 65 {
		p.enc = append([]byte(nil), b...)
	} else {
		p.enc = q.Bytes()
	}
	return p, nil
}

func (p *p256Point) nistec() *nistec.P256Point {
	q, err := nistec.NewP256Point().SetBytes(p.enc)
	if err != nil {
		panic("asym: internal error: invalid P-256 point") // enc is always valid
	}
	return q
}

func (p *p256Point) Add(a, b *p256Point) *p256Point {
	p.enc = a.nistec().Add(a.nistec(), b.nistec()).Bytes()
	return p
}

// scalar32 returns a scalar as the 32 bytes libcrypto is given.
func scalar32(k []byte) ([]byte, error) {
	if len(k) != 32 {
		return nil, ErrInput
	}
	return k, nil
}

func (p *p256Point) ScalarBaseMult(k []byte) (*p256Point, error) {
	k, err := scalar32(k)
	if err != nil {
		return nil, err
	}
	return p.set(p256Mul(k, nil, nil))
}

func (p *p256Point) ScalarMult(q *p256Point, k []byte) (*p256Point, error) {
	k, err := scalar32(k)
	if err != nil {
		return nil, err
	}
	if len(q.enc) == 1 {
		p.enc = []byte{0}
		return p, nil
	}
	return p.set(p256Mul(nil, k, q.enc))
}

// doubleScalarMult returns u1·G + u2·q in one pass, for verification
// (public scalars).
func (p *p256Point) doubleScalarMult(u1 []byte, q *p256Point, u2 []byte) (*p256Point, error) {
	if len(u1) != 32 || len(u2) != 32 || len(q.enc) == 1 {
		return nil, ErrInput
	}
	return p.set(p256Mul(u1, u2, q.enc))
}
