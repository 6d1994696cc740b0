// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newFlakyDevice is a fakeDevice whose engines complete each instruction
// with the code verdict returns for it (CompGood: result RLen = DLen + 1, so
// that no request's result is the zero one).
func newFlakyDevice(engines int, verdict func(n uint64) uint8) *fakeDevice {
	d := &fakeDevice{rlenDelta: 1}
	d.verdict.Store(&verdict)
	return d.start(engines)
}

// soft is the fallback: the same result as the device, counted.
type soft struct{ computed atomic.Uint64 }

func (s *soft) Compute(inst *Instruction) {
	s.computed.Add(1)
	ResultAt(inst.ResPtr).Publish(CompGood, UCSuccess, inst.DLen+1)
}

// submitAll runs n requests, half asynchronous (in flight together), half
// synchronous, and returns every result by request number. It fails the
// test on a request completed twice or never.
func submitAll(t *testing.T, q *Queue, n int) (map[uint32]Result, map[uint32]error) {
	t.Helper()
	var mu sync.Mutex
	res := map[uint32]Result{}
	errs := map[uint32]error{}
	seen := make([]atomic.Int32, n)
	var wg sync.WaitGroup
	record := func(i uint32, r Result, err error) {
		if seen[i].Add(1) != 1 {
			t.Errorf("request %d completed twice", i)
			return
		}
		mu.Lock()
		res[i], errs[i] = r, err
		mu.Unlock()
	}
	for i := 0; i < n; i++ {
		i := uint32(i)
		inst := Instruction{Op: Op(MajorNOP, MinorNone), DLen: i}
		if i%2 == 0 {
			wg.Add(1)
			if err := q.Submit(&inst, func(r Result) { record(i, r, nil); wg.Done() }); err != nil {
				record(i, Result{}, err)
				wg.Done()
			}
			continue
		}
		r, err := q.Do(&inst)
		record(i, r, err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("asynchronous requests never completed")
	}
	if len(res) != n {
		t.Fatalf("%d of %d requests completed", len(res), n)
	}
	return res, errs
}

// Every instruction fails on the device: with a fallback every request
// still gets the right result, once, from software, after its retry.
func TestFallbackAfterDeviceErrors(t *testing.T) {
	for _, code := range []uint8{CompHWError, CompReset} {
		d := newFlakyDevice(2, func(uint64) uint8 { return code })
		sw := &soft{}
		q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 16, Policy: Policy{Software: sw, Threshold: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		res, errs := submitAll(t, q, 200)
		for i, r := range res {
			if errs[i] != nil || r.CompCode != CompGood || r.RLen != i+1 || r.Flags&FlagSoftware == 0 {
				t.Fatalf("code %d: request %d: %+v, %v", code, i, r, errs[i])
			}
		}
		st := q.Stats()
		if st.Fallbacks != 200 || sw.computed.Load() != 200 || st.Retries != 200 || st.Failed != 400 {
			t.Fatalf("code %d: stats %+v, software %d", code, st, sw.computed.Load())
		}
		q.Close()
		d.close()
	}
}

// The first attempt of every instruction fails, the retry succeeds: the
// results are the device's.
func TestRetrySucceeds(t *testing.T) {
	// One engine, one request at a time: attempts alternate fail, succeed.
	var failNext atomic.Bool
	failNext.Store(true)
	d := newFlakyDevice(1, func(uint64) uint8 {
		if failNext.CompareAndSwap(true, false) {
			return CompHWError
		}
		failNext.Store(true)
		return CompGood
	})
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 16, Policy: Policy{Software: &soft{}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint32(0); i < 50; i++ {
		inst := Instruction{Op: Op(MajorNOP, MinorNone), DLen: i}
		var r Result
		if i%2 == 0 {
			ch := make(chan Result, 2)
			if err := q.Submit(&inst, func(res Result) { ch <- res }); err != nil {
				t.Fatal(err)
			}
			r = <-ch
		} else if r, err = q.Do(&inst); err != nil {
			t.Fatal(err)
		}
		if r.CompCode != CompGood || r.RLen != i+1 || r.Flags&FlagSoftware != 0 {
			t.Fatalf("request %d: %+v", i, r)
		}
	}
	if st := q.Stats(); st.Retries != 50 || st.Fallbacks != 0 {
		t.Fatalf("stats %+v", st)
	}
	q.Close()
	d.close()
}

// Without a fallback the failures reach the caller as such, once each,
// and an open circuit fails requests at once.
func TestNoFallbackReportsFailures(t *testing.T) {
	d := newFlakyDevice(2, func(uint64) uint8 { return CompHWError })
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 16, Policy: Policy{Threshold: 4, Cooldown: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	res, errs := submitAll(t, q, 100)
	unavailable, hw := 0, 0
	for i, r := range res {
		switch {
		case errors.Is(errs[i], ErrDeviceUnavailable):
			unavailable++
		case errs[i] == nil && r.CompCode == CompHWError:
			hw++
		default:
			t.Fatalf("request %d: %+v, %v", i, r, errs[i])
		}
	}
	if hw == 0 || unavailable == 0 || hw+unavailable != 100 {
		t.Fatalf("%d device errors, %d refused", hw, unavailable)
	}
	if st := q.Stats(); st.Circuit != "open" || st.Opens != 1 {
		t.Fatalf("stats %+v", st)
	}
	q.Close()
	d.close()
}

// A device that takes nothing: the watchdog gives up on queued
// asynchronous requests, the synchronous ones give up themselves, all get
// software results; once the device consumes again, the stale entries are
// skipped, the slots come back, and nothing completes twice.
func TestStalledDeviceExpires(t *testing.T) {
	d := newFlakyDevice(2, func(uint64) uint8 { return CompGood })
	d.hold.Store(true)
	sw := &soft{}
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 8, Timeout: 20 * time.Millisecond,
		Policy: Policy{Software: sw, Threshold: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	res, errs := submitAll(t, q, 40)
	for i, r := range res {
		if errs[i] != nil || r.CompCode != CompGood || r.RLen != i+1 || r.Flags&FlagSoftware == 0 {
			t.Fatalf("request %d: %+v, %v", i, r, errs[i])
		}
	}
	st := q.Stats()
	if st.Timeouts == 0 || st.Fallbacks != 40 || d.executed.Load() != 0 {
		t.Fatalf("stats %+v, executed %d", st, d.executed.Load())
	}
	d.hold.Store(false)
	d.Doorbell(q)
	deadline := time.Now().Add(5 * time.Second)
	for q.InFlight() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if q.InFlight() != 0 || d.executed.Load() != 0 {
		t.Fatalf("in flight %d, executed %d after the device resumed", q.InFlight(), d.executed.Load())
	}
	// The queue works normally again, on the device.
	res, _ = submitAll(t, q, 40)
	for i, r := range res {
		if r.CompCode != CompGood || r.Flags&FlagSoftware != 0 || r.RLen != i+1 {
			t.Fatalf("after recovery, request %d: %+v", i, r)
		}
	}
	q.Close()
	d.close()
}

// Without a fallback, a stalled device's requests fail with a timeout.
func TestStalledDeviceNoFallback(t *testing.T) {
	d := newFlakyDevice(1, func(uint64) uint8 { return CompGood })
	d.hold.Store(true)
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 8, Timeout: 10 * time.Millisecond,
		Policy: Policy{Threshold: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	res, errs := submitAll(t, q, 6)
	for i, r := range res {
		if !(r.CompCode == CompTimeout || errors.Is(errs[i], ErrTimeout) || errors.Is(errs[i], ErrQueueFull)) {
			t.Fatalf("request %d: %+v, %v", i, r, errs[i])
		}
	}
	q.Close()
	d.close()
}

// The breaker opens after Threshold failures, keeps requests off the
// device while open, lets one probe through after the cooldown, and closes
// when the device is healthy again.
func TestBreakerOpensProbesCloses(t *testing.T) {
	var healthy atomic.Bool
	var failures, opens, closes atomic.Int32
	d := newFlakyDevice(1, func(uint64) uint8 {
		if healthy.Load() {
			return CompGood
		}
		return CompHWError
	})
	sw := &soft{}
	onEvent := func(ev Event, code uint8) {
		switch ev {
		case EventFailure:
			failures.Add(1)
		case EventOpen:
			opens.Add(1)
		case EventClose:
			closes.Add(1)
		}
	}
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 8,
		Policy: Policy{Software: sw, Retries: -1, Threshold: 3, Cooldown: 50 * time.Millisecond, OnEvent: onEvent}})
	if err != nil {
		t.Fatal(err)
	}
	do := func(i uint32) Result {
		r, err := q.Do(&Instruction{Op: Op(MajorNOP, MinorNone), DLen: i})
		if err != nil || r.CompCode != CompGood || r.RLen != i+1 {
			t.Fatalf("request %d: %+v %v", i, r, err)
		}
		return r
	}
	for i := uint32(0); i < 3; i++ {
		do(i)
	}
	if st := q.Stats(); st.Circuit != "open" || st.Opens != 1 {
		t.Fatalf("after 3 failures: %+v", st)
	}
	before := d.executed.Load()
	for i := uint32(0); i < 20; i++ {
		if r := do(i); r.Flags&FlagSoftware == 0 {
			t.Fatalf("request %d reached the device while the circuit was open", i)
		}
	}
	if d.executed.Load() != before {
		t.Fatalf("the device executed %d instructions while open", d.executed.Load()-before)
	}
	// A failed probe opens it again, for longer (100ms).
	time.Sleep(60 * time.Millisecond)
	do(100)
	if d.executed.Load() != before+1 || q.Stats().Circuit != "open" {
		t.Fatalf("probe: executed %d, %+v", d.executed.Load()-before, q.Stats())
	}
	healthy.Store(true)
	if r := do(101); r.Flags&FlagSoftware == 0 || q.Stats().Circuit != "open" {
		t.Fatalf("the second open period ended at once: %+v", q.Stats())
	}
	time.Sleep(150 * time.Millisecond)
	if r := do(102); r.Flags&FlagSoftware != 0 || q.Stats().Circuit != "closed" {
		t.Fatalf("a good probe did not close the circuit: %+v, %+v", r, q.Stats())
	}
	if r := do(103); r.Flags&FlagSoftware != 0 {
		t.Fatalf("closed circuit, software result")
	}
	// Three failures opened it, a failed probe opened it again, a good one
	// closed it.
	if failures.Load() != 4 || opens.Load() != 2 || closes.Load() != 1 {
		t.Fatalf("events: %d failures, %d opens, %d closes", failures.Load(), opens.Load(), closes.Load())
	}
	q.Close()
	d.close()
}

// A ring that stays full: with a fallback, submitters stop waiting after a
// short while and compute in software; nothing is lost.
func TestFullQueueFallsBack(t *testing.T) {
	d := newFlakyDevice(1, func(uint64) uint8 { return CompGood })
	d.hold.Store(true)
	sw := &soft{}
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 4, Timeout: time.Hour,
		Policy: Policy{Software: sw, Threshold: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int32
	for i := uint32(0); i < 4; i++ { // fill every slot
		if err := q.TrySubmit(&Instruction{Op: Op(MajorNOP, MinorNone), DLen: i}, func(Result) { got.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for i := uint32(4); i < 14; i++ {
		ch := make(chan Result, 1)
		if err := q.Submit(&Instruction{Op: Op(MajorNOP, MinorNone), DLen: i}, func(r Result) { ch <- r }); err != nil {
			t.Fatal(err)
		}
		if r := <-ch; r.Flags&FlagSoftware == 0 || r.RLen != i+1 {
			t.Fatalf("request %d: %+v", i, r)
		}
		if r, err := q.Do(&Instruction{Op: Op(MajorNOP, MinorNone), DLen: i}); err != nil || r.Flags&FlagSoftware == 0 {
			t.Fatalf("sync request %d: %+v %v", i, r, err)
		}
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("20 fallbacks on a full queue took %v", el)
	}
	d.hold.Store(false)
	d.Doorbell(q)
	for deadline := time.Now().Add(5 * time.Second); got.Load() != 4 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got.Load() != 4 {
		t.Fatalf("%d of the 4 queued requests completed", got.Load())
	}
	q.Close()
	d.close()
}

// No device at all: with a fallback the queue serves everything in
// software; without one it cannot open.
func TestAbsentDevice(t *testing.T) {
	d := &fakeDevice{absent: true}
	if _, err := NewQueue(d, QueueConfig{Group: GroupSE}); !errors.Is(err, ErrAbsent) {
		t.Fatalf("no fallback: %v", err)
	}
	sw := &soft{}
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 8, Policy: Policy{Software: sw}})
	if err != nil {
		t.Fatal(err)
	}
	res, errs := submitAll(t, q, 20)
	for i, r := range res {
		if errs[i] != nil || r.Flags&FlagSoftware == 0 || r.RLen != i+1 {
			t.Fatalf("request %d: %+v %v", i, r, errs[i])
		}
	}
	if st := q.Stats(); st.Circuit != "absent" || st.Fallbacks != 20 {
		t.Fatalf("stats %+v", st)
	}
	q.Close()
}

// Requests a reset flushed are retried or computed in software, but do not
// open the circuit: a reset is one event, after which the device works.
func TestResetsDoNotOpenTheCircuit(t *testing.T) {
	d := newFlakyDevice(1, func(uint64) uint8 { return CompReset })
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: 8, Policy: Policy{Software: &soft{}, Retries: -1, Threshold: 2}})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := submitAll(t, q, 20)
	for i, r := range res {
		if r.Flags&FlagSoftware == 0 || r.RLen != i+1 {
			t.Fatalf("request %d: %+v", i, r)
		}
	}
	if st := q.Stats(); st.Circuit != "closed" || st.Opens != 0 || st.Failed != 20 {
		t.Fatalf("stats %+v", st)
	}
	q.Close()
	d.close()
}

// The watchdog takes back only instructions queued for longer than the
// timeout. A slot an asynchronous submitter has just taken, not yet bound
// to its instruction, is none of them, even on its first use, when its
// claim and tick are still zero: taking it computed whatever the slot held
// before (a zero instruction, or one half copied) and delivered that to
// the submitter (seen once in CI: an AES-GCM update completed with
// CompBadInst). Here the clock is far ahead of every fresh slot's tick and
// the watchdog scans without pause while submitters take fresh slots; a
// queued instruction never waits long enough to expire.
func TestWatchdogSparesFreshSlots(t *testing.T) {
	d := newFlakyDevice(2, func(uint64) uint8 { return CompGood })
	defer d.close()
	sw := &soft{}
	const depth, n = 4096, 4000
	q, err := NewQueue(d, QueueConfig{Group: GroupSE, Depth: depth, Timeout: time.Hour,
		Policy: Policy{Software: sw, Threshold: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	q.tick.Store(1 << 20)
	stop := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		for {
			select {
			case <-stop:
				return
			default:
				q.watch(q.tick.Load())
			}
		}
	}()
	var wg sync.WaitGroup
	var bad atomic.Uint64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var done sync.WaitGroup
			for i := w; i < n; i += 4 {
				inst := Instruction{Op: Op(MajorNOP, MinorNone), DLen: uint32(i)}
				done.Add(1)
				err := q.TrySubmit(&inst, func(r Result) {
					if r.CompCode != CompGood || r.RLen != uint32(i)+1 || r.Flags&FlagSoftware != 0 {
						bad.Add(1)
					}
					done.Done()
				})
				if err != nil {
					t.Errorf("request %d: %v", i, err)
					done.Done()
				}
			}
			done.Wait()
		}()
	}
	wg.Wait()
	close(stop)
	<-scanned
	if st := q.Stats(); bad.Load() != 0 || st.Timeouts != 0 || sw.computed.Load() != 0 {
		t.Fatalf("%d of %d requests completed with another instruction's result; timeouts %d, computed in software %d",
			bad.Load(), n, st.Timeouts, sw.computed.Load())
	}
}
