// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"sync/atomic"
)

// ring is a bounded multi-producer multi-consumer queue (Vyukov's design):
// each slot carries a sequence number that tells producers and consumers
// whose turn it is, so neither side takes a lock and a full or empty ring is
// detected without a shared count.
type ring[T any] struct {
	mask  uint64
	_     [56]byte
	enq   atomic.Uint64
	_     [56]byte
	deq   atomic.Uint64
	_     [56]byte
	slots []ringSlot[T]
}

type ringSlot[T any] struct {
	seq atomic.Uint64
	val T
}

// newRing returns a ring of depth slots; depth must be a power of two.
func newRing[T any](depth int) *ring[T] {
	r := &ring[T]{mask: uint64(depth - 1), slots: make([]ringSlot[T], depth)}
	for i := range r.slots {
		r.slots[i].seq.Store(uint64(i))
	}
	return r
}

// push appends v; it returns false when the ring is full.
func (r *ring[T]) push(v T) bool {
	pos := r.enq.Load()
	for {
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch dif := int64(seq - pos); {
		case dif == 0:
			if r.enq.CompareAndSwap(pos, pos+1) {
				s.val = v
				s.seq.Store(pos + 1)
				return true
			}
			pos = r.enq.Load()
		case dif < 0:
			return false
		default:
			pos = r.enq.Load()
		}
	}
}

// pop removes the oldest value; it returns false when the ring is empty.
func (r *ring[T]) pop() (T, bool) {
	pos := r.deq.Load()
	for {
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch dif := int64(seq - (pos + 1)); {
		case dif == 0:
			if r.deq.CompareAndSwap(pos, pos+1) {
				v := s.val
				var zero T
				s.val = zero
				s.seq.Store(pos + r.mask + 1)
				return v, true
			}
			pos = r.deq.Load()
		case dif < 0:
			var zero T
			return zero, false
		default:
			pos = r.deq.Load()
		}
	}
}

// len is a racy estimate of the number of queued values.
func (r *ring[T]) len() int {
	n := int64(r.enq.Load() - r.deq.Load())
	if n < 0 {
		return 0
	}
	return int(n)
}
