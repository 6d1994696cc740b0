// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"sync"
	"testing"
)

func TestRingFIFOAndFull(t *testing.T) {
	r := newRing[int](4)
	for i := 0; i < 4; i++ {
		if !r.push(i) {
			t.Fatalf("push %d failed on a ring with room", i)
		}
	}
	if r.push(99) {
		t.Fatal("push succeeded on a full ring")
	}
	for i := 0; i < 4; i++ {
		v, ok := r.pop()
		if !ok || v != i {
			t.Fatalf("pop = %d,%v; want %d,true", v, ok, i)
		}
	}
	if _, ok := r.pop(); ok {
		t.Fatal("pop succeeded on an empty ring")
	}
	// Wrap around many times.
	for i := 0; i < 1000; i++ {
		if !r.push(i) {
			t.Fatal("push failed")
		}
		if v, _ := r.pop(); v != i {
			t.Fatalf("got %d want %d", v, i)
		}
	}
}

// Many producers and consumers: every value comes out exactly once.
func TestRingManyProducersConsumers(t *testing.T) {
	const producers, consumers, per = 8, 8, 20000
	r := newRing[uint64](64)
	seen := make([]int32, producers*per)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := make(chan struct{})
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				for !r.push(uint64(p*per + i)) {
				}
			}
		}(p)
	}
	var cwg sync.WaitGroup
	for c := 0; c < consumers; c++ {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			local := map[uint64]int{}
			for {
				v, ok := r.pop()
				if ok {
					local[v]++
					continue
				}
				select {
				case <-done:
					if r.len() == 0 {
						mu.Lock()
						for k, n := range local {
							seen[k] += int32(n)
						}
						mu.Unlock()
						return
					}
				default:
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	cwg.Wait()
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("value %d seen %d times", i, n)
		}
	}
}
