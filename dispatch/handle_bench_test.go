// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"runtime/cgo"
	"testing"

	pointer "github.com/mattn/go-pointer"
)

// The design card names two ways to hand a Go object to C and get it back:
// runtime/cgo.Handle and github.com/mattn/go-pointer. cptprov keeps operation
// state in C memory and needs neither on the hot path; these benchmarks are
// the measurement behind that choice and behind docs/performance.md's numbers, for
// the day a Go object must cross (lookups from many threads at once, as
// OpenSSL callers do).

type handleTarget struct{ n int }

func BenchmarkHandleLookup(b *testing.B) {
	b.Run("cgo.Handle", func(b *testing.B) {
		h := cgo.NewHandle(&handleTarget{1})
		defer h.Delete()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if h.Value().(*handleTarget).n != 1 {
					b.Fatal("wrong value")
				}
			}
		})
	})
	b.Run("go-pointer", func(b *testing.B) {
		p := pointer.Save(&handleTarget{1})
		defer pointer.Unref(p)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if pointer.Restore(p).(*handleTarget).n != 1 {
					b.Fatal("wrong value")
				}
			}
		})
	})
}

func BenchmarkHandleCreateDelete(b *testing.B) {
	b.Run("cgo.Handle", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				cgo.NewHandle(&handleTarget{1}).Delete()
			}
		})
	})
	b.Run("go-pointer", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				pointer.Unref(pointer.Save(&handleTarget{1}))
			}
		})
	})
}
