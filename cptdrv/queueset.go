// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"sync"
	"sync/atomic"
)

// QueueSet is the queues a backend's engines serve: attached and detached
// rarely, read on every poll without a lock (copy on write).
type QueueSet struct {
	mu     sync.Mutex
	queues atomic.Pointer[[]*Queue]
}

// Add attaches q.
func (s *QueueSet) Add(q *Queue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	qs := append(append([]*Queue{}, s.Load()...), q)
	s.queues.Store(&qs)
}

// Remove detaches q.
func (s *QueueSet) Remove(q *Queue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var qs []*Queue
	for _, x := range s.Load() {
		if x != q {
			qs = append(qs, x)
		}
	}
	s.queues.Store(&qs)
}

// Load returns the queues now attached; the slice is never written.
func (s *QueueSet) Load() []*Queue {
	if p := s.queues.Load(); p != nil {
		return *p
	}
	return nil
}

// Pending reports whether an instruction waits in one of the queues.
func (s *QueueSet) Pending() bool {
	for _, q := range s.Load() {
		if q.Pending() > 0 {
			return true
		}
	}
	return false
}
