package chachax

import "testing"

func BenchmarkXORKeyStream16K(b *testing.B) {
	var key [32]byte
	var iv [16]byte
	buf := make([]byte, 16384)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		if err := XORKeyStream(&key, &iv, 0, buf, buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkXORKeyStream64(b *testing.B) {
	var key [32]byte
	var iv [16]byte
	buf := make([]byte, 64)
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		if err := XORKeyStream(&key, &iv, 0, buf, buf); err != nil {
			b.Fatal(err)
		}
	}
}
