// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeDevice is a minimal Backend for driver tests: a few engine goroutines
// that complete NOPs with the code verdict returns for each (nil: always
// CompGood; executed, result RLen = DLen + rlenDelta), optionally reporting
// every completion twice (a faulty interrupt), taking nothing while hold is
// set (to fill the queue or stall it), or absent altogether. Instructions
// carry a request number in DLen, so results can be matched to requests.
type fakeDevice struct {
	mu        sync.Mutex
	q         *Queue
	wake      chan struct{}
	stop      chan struct{}
	wg        sync.WaitGroup
	duplicate bool
	absent    bool
	rlenDelta uint32
	hold      atomic.Bool
	verdict   atomic.Pointer[func(n uint64) uint8]
	executed  atomic.Uint64 // instructions an engine started
}

func newFakeDevice(engines int, duplicate bool) *fakeDevice {
	return (&fakeDevice{duplicate: duplicate}).start(engines)
}

// start runs the device's engines.
func (d *fakeDevice) start(engines int) *fakeDevice {
	d.wake, d.stop = make(chan struct{}, 1), make(chan struct{})
	for i := 0; i < engines; i++ {
		d.wg.Add(1)
		go d.engine()
	}
	return d
}

func (d *fakeDevice) Name() string { return "fake" }
func (d *fakeDevice) Attach(q *Queue) error {
	if d.absent {
		return ErrAbsent
	}
	d.mu.Lock()
	d.q = q
	d.mu.Unlock()
	return nil
}
func (d *fakeDevice) Detach(q *Queue) {}
func (d *fakeDevice) Doorbell(q *Queue) {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}
func (d *fakeDevice) close() { close(d.stop); d.wg.Wait() }

func (d *fakeDevice) engine() {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		q := d.q
		d.mu.Unlock()
		if q != nil && !d.hold.Load() {
			if inst, ok := q.Next(); ok {
				d.exec(q, &inst)
				continue
			}
		}
		select {
		case <-d.wake:
		case <-d.stop:
			return
		case <-time.After(100 * time.Microsecond):
		}
	}
}

// exec runs one instruction as an engine does.
func (d *fakeDevice) exec(q *Queue, inst *Instruction) {
	if !q.Started(inst.Tag) {
		return
	}
	n := d.executed.Add(1)
	comp := uint8(CompGood)
	if v := d.verdict.Load(); v != nil {
		comp = (*v)(n)
	}
	if comp == CompGood {
		ResultAt(inst.ResPtr).Publish(CompGood, UCSuccess, inst.DLen+d.rlenDelta)
	} else {
		ResultAt(inst.ResPtr).Publish(comp, 0, 0)
	}
	q.Complete(inst.Tag)
	if d.duplicate {
		q.Complete(inst.Tag)
	}
}

// assistingDevice is a fakeDevice whose engines are the host's CPUs, as the
// simulator's are: submitters may execute, and help from a backlog.
type assistingDevice struct {
	*fakeDevice
	backlog int
}

func (d assistingDevice) Execute(q *Queue, inst Instruction) { d.exec(q, &inst) }
func (d assistingDevice) Helps(q *Queue, _ uint16) bool {
	return d.backlog > 0 && q.Pending() >= d.backlog
}
func (d assistingDevice) Assist(q *Queue) bool {
	inst, ok := q.Next()
	if !ok {
		return false
	}
	q.Assisted()
	d.exec(q, &inst)
	return true
}

// An asynchronous submitter that finds the backend's backlog queued
// executes its own instruction, completed before Submit returns, and
// leaves the backlog to the engines; with no backlog asked for, it never
// does. Every request still completes exactly once, with its own result.
func TestSubmitHelpsBacklog(t *testing.T) {
	for _, backlog := range []int{0, 3} {
		d := assistingDevice{newFakeDevice(2, false), backlog}
		d.hold.Store(true)
		q, err := NewQueue(d, QueueConfig{Group: GroupAE, Depth: 16, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var got [10]atomic.Int32
		var order []int
		var mu sync.Mutex
		for i := range got {
			inst := Instruction{Op: Op(MajorNOP, 0), DLen: uint32(i)}
			err := q.Submit(&inst, func(r Result) {
				got[r.RLen].Add(1)
				mu.Lock()
				order = append(order, int(r.RLen))
				mu.Unlock()
			})
			if err != nil {
				t.Fatal(err)
			}
			inline := backlog > 0 && i >= backlog
			if n := got[i].Load(); n != map[bool]int32{true: 1, false: 0}[inline] {
				t.Fatalf("backlog %d: submission %d completed %d times on return", backlog, i, n)
			}
			want := 0
			if backlog > 0 {
				want = max(i+1-backlog, 0)
			}
			if a := q.Stats().Assisted; a != uint64(want) {
				t.Fatalf("backlog %d: after submission %d, %d assisted, want %d", backlog, i, a, want)
			}
		}
		mu.Lock()
		for k, n := range order {
			if n != backlog+k {
				t.Fatalf("backlog %d: executed inline: %v", backlog, order)
			}
		}
		mu.Unlock()
		d.hold.Store(false)
		d.Doorbell(q)
		for deadline := time.Now().Add(5 * time.Second); q.InFlight() > 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		for i := range got {
			if n := got[i].Load(); n != 1 {
				t.Fatalf("backlog %d: request %d completed %d times", backlog, i, n)
			}
		}
		q.Close()
		d.close()
	}
}

// Many goroutines submit synchronously and asynchronously: every request
// completes exactly once, with its own result.
func TestQueueNoLostOrDuplicatedCompletions(t *testing.T) {
	for _, dup := range []bool{false, true} {
		d := newFakeDevice(4, dup)
		q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 32})
		if err != nil {
			t.Fatal(err)
		}
		const workers, per = 8, 2000
		var completions atomic.Int64
		counts := make([]atomic.Int32, workers*per)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < per; i++ {
					id := w*per + i
					inst := Instruction{Op: Op(MajorNOP, 0), DLen: uint32(id)}
					if i%2 == 0 {
						res, err := q.Do(&inst)
						if err != nil || res.RLen != uint32(id) {
							t.Errorf("Do: %v rlen %d want %d", err, res.RLen, id)
							return
						}
						counts[id].Add(1)
						completions.Add(1)
						continue
					}
					err := q.Submit(&inst, func(res Result) {
						if res.RLen != uint32(id) {
							t.Errorf("async rlen %d want %d", res.RLen, id)
						}
						counts[id].Add(1)
						completions.Add(1)
					})
					if err != nil {
						t.Errorf("Submit: %v", err)
						return
					}
				}
			}(w)
		}
		wg.Wait()
		deadline := time.Now().Add(10 * time.Second)
		for completions.Load() < workers*per && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		for i := range counts {
			if n := counts[i].Load(); n != 1 {
				t.Fatalf("duplicate=%v: request %d completed %d times", dup, i, n)
			}
		}
		st := q.Stats()
		if st.Completed != workers*per || q.InFlight() != 0 {
			t.Fatalf("duplicate=%v: stats %+v in flight %d", dup, st, q.InFlight())
		}
		if dup && st.Stale != workers*per {
			t.Fatalf("duplicate reports: %d stale, want %d", st.Stale, workers*per)
		}
		q.Close()
		d.close()
	}
}

// A full queue: TrySubmit says so, Submit waits for room (back-pressure).
func TestQueueFull(t *testing.T) {
	d := newFakeDevice(1, false)
	defer d.close()
	d.hold.Store(true)
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 4, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var done atomic.Int32
	cb := func(Result) { done.Add(1) }
	for i := 0; i < 4; i++ {
		inst := Instruction{Op: Op(MajorNOP, 0)}
		if err := q.TrySubmit(&inst, cb); err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
	}
	inst := Instruction{Op: Op(MajorNOP, 0)}
	if err := q.TrySubmit(&inst, cb); err != ErrQueueFull {
		t.Fatalf("TrySubmit on a full queue: %v", err)
	}
	if q.Stats().Full == 0 {
		t.Fatal("full event not counted")
	}
	go func() { time.Sleep(50 * time.Millisecond); d.hold.Store(false); d.Doorbell(q) }()
	start := time.Now()
	if err := q.Submit(&inst, cb); err != nil {
		t.Fatalf("Submit with back-pressure: %v", err)
	}
	if time.Since(start) < 40*time.Millisecond {
		t.Fatal("Submit did not wait for room")
	}
	for deadline := time.Now().Add(5 * time.Second); done.Load() < 5 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if done.Load() != 5 {
		t.Fatalf("%d of 5 completions", done.Load())
	}
}

// A request the device never completes: Do gives up with ErrTimeout, and the
// slot comes back only when the late completion arrives.
func TestQueueTimeoutAndLateCompletion(t *testing.T) {
	d := newFakeDevice(1, false)
	defer d.close()
	d.hold.Store(true)
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 2, Timeout: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	inst := Instruction{Op: Op(MajorNOP, 0)}
	res, err := q.Do(&inst)
	if err != ErrTimeout || res.CompCode != CompTimeout {
		t.Fatalf("Do on a stalled device: %v %+v", err, res)
	}
	if q.InFlight() != 1 {
		t.Fatalf("abandoned slot returned early: in flight %d", q.InFlight())
	}
	d.hold.Store(false)
	d.Doorbell(q)
	for deadline := time.Now().Add(5 * time.Second); q.InFlight() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if q.InFlight() != 0 {
		t.Fatal("late completion did not free the slot")
	}
	if _, err := q.Do(&inst); err != nil {
		t.Fatalf("Do after recovery: %v", err)
	}
}
