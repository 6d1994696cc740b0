// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"strconv"
	"testing"
)

// BenchmarkBlockUpdate is one EVP update of a CTR and a CBC stream as the
// provider makes it, synchronously: the dispatch layer, the queue and the
// simulated engine, without the C side. It reports allocations: the hot
// path should make none.
func BenchmarkBlockUpdate(b *testing.B) {
	env := testEnv(b)
	for _, id := range []int{AlgAES128CTR, AlgAES128CBC} {
		c := CipherByID(id)
		for _, size := range []int{64, 16384} {
			b.Run(c.Name()+"/"+strconv.Itoa(size), func(b *testing.B) {
				st := dma(b, int(c.StateSize()))
				buf := dma(b, size)
				if err := c.Init(env, ptr(st), true, make([]byte, 16), true, make([]byte, 16), true, Params{}); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := c.Update(env, ptr(st), ptr(buf), size, ptr(buf), size, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
