// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"cptprov/cptdrv"
)

// dmaBuf returns n bytes of DMA memory that stays mapped for the test.
func dmaBuf(t testing.TB, n int) []byte {
	d, err := cptdrv.AllocDMA(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Free() })
	return d.Bytes()[:n]
}

// newQueue opens a queue on a new device, with neither retries nor a
// fallback: the tests see the device's own completions.
func newQueue(t testing.TB, cfg Config) (*Device, *cptdrv.Queue) {
	d := New(cfg)
	q, err := cptdrv.NewQueue(d, cptdrv.QueueConfig{Group: cptdrv.GroupSE, Depth: 64, Timeout: 2 * time.Second,
		Policy: cptdrv.Policy{Retries: -1, Threshold: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close(); d.Close() })
	return d, q
}

// gcmStream drives one GCM message through the device in random pieces, as
// the dispatch layer does, and returns ciphertext||tag.
func gcmStream(t *testing.T, q *cptdrv.Queue, async bool, key, iv, aad, msg []byte, rng *rand.Rand) []byte {
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	ctx := cptdrv.ContextAt(cptdrv.Addr(ctxMem))
	copy(ctx.Key[:], key)
	ctx.KeyLen = uint32(len(key))
	ctx.KeyID = rng.Uint64()
	copy(ctx.IV[:], iv)
	ctx.IVLen = uint32(len(iv))
	in := dmaBuf(t, len(msg)+1)
	out := dmaBuf(t, len(msg)+1)
	copy(in, msg)
	aadMem := dmaBuf(t, len(aad)+1)
	copy(aadMem, aad)

	exec := func(inst cptdrv.Instruction) cptdrv.Result {
		inst.Op = cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorEnc)
		inst.Param1 = cptdrv.CipherAESGCM
		return fcExec(t, q, async, ctxMem, inst)
	}
	flags := cptdrv.FlagStart
	for off := 0; off < len(aad); {
		n := 1 + rng.Intn(len(aad)-off)
		r := exec(cptdrv.Instruction{Param2: flags | cptdrv.FlagAAD, DPtr: cptdrv.Addr(aadMem[off:]), DLen: uint32(n)})
		if r.CompCode != cptdrv.CompGood || r.UCCode != cptdrv.UCSuccess {
			t.Fatalf("AAD piece: %+v", r)
		}
		flags, off = 0, off+n
	}
	for off := 0; off < len(msg); {
		n := 1 + rng.Intn(len(msg)-off)
		r := exec(cptdrv.Instruction{Param2: flags, DPtr: cptdrv.Addr(in[off:]), DLen: uint32(n), RPtr: cptdrv.Addr(out[off:]), RLen: uint32(n)})
		if r.CompCode != cptdrv.CompGood || r.UCCode != cptdrv.UCSuccess || r.RLen != uint32(n) {
			t.Fatalf("data piece: %+v", r)
		}
		flags, off = 0, off+n
	}
	r := exec(cptdrv.Instruction{Param2: flags | cptdrv.FlagFinal})
	if r.CompCode != cptdrv.CompGood || r.UCCode != cptdrv.UCSuccess {
		t.Fatalf("final: %+v", r)
	}
	return append(append([]byte{}, out[:len(msg)]...), ctx.Tag[:]...)
}

func TestGCMThroughDevice(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 2})
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		key := make([]byte, []int{16, 24, 32}[i%3])
		iv := make([]byte, []int{12, 12, 1, 16, 60}[i%5])
		aad := make([]byte, rng.Intn(100))
		msg := make([]byte, rng.Intn(5000))
		rng.Read(key)
		rng.Read(iv)
		rng.Read(aad)
		rng.Read(msg)
		block, _ := aes.NewCipher(key)
		aead, _ := cipher.NewGCMWithNonceSize(block, len(iv))
		want := aead.Seal(nil, iv, msg, aad)
		got := gcmStream(t, q, i%2 == 1, key, iv, aad, msg, rng)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d (key %d iv %d aad %d msg %d): device result differs", i, len(key), len(iv), len(aad), len(msg))
		}
	}
}

func TestTLSRecordTagInline(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 1})
	key, iv, aad := bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{2}, 12), bytes.Repeat([]byte{3}, 13)
	msg := bytes.Repeat([]byte("record"), 100)
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	ctx := cptdrv.ContextAt(cptdrv.Addr(ctxMem))
	copy(ctx.Key[:], key)
	ctx.KeyLen, ctx.KeyID = 16, 7
	copy(ctx.IV[:], iv)
	ctx.IVLen = 12
	copy(ctx.AAD[:], aad)
	ctx.AADLen = 13
	rec := dmaBuf(t, len(msg)+16)
	copy(rec, msg)
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorEnc), Param1: cptdrv.CipherAESGCM,
		Param2: cptdrv.FlagStart | cptdrv.FlagCtxAAD | cptdrv.FlagFinal | cptdrv.FlagTagInline,
		DPtr:   cptdrv.Addr(rec), DLen: uint32(len(msg)), RPtr: cptdrv.Addr(rec), RLen: uint32(len(rec)), CPtr: cptdrv.Addr(ctxMem)}
	res, err := q.Do(&inst)
	if err != nil || res.UCCode != cptdrv.UCSuccess || res.RLen != uint32(len(rec)) {
		t.Fatalf("seal: %v %+v", err, res)
	}
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	if want := aead.Seal(nil, iv, msg, aad); !bytes.Equal(rec, want) {
		t.Fatal("sealed record differs from crypto/cipher")
	}
	// Open it in place; then a tampered copy must fail with the output wiped.
	for _, tamper := range []bool{false, true} {
		sealed := aead.Seal(nil, iv, msg, aad)
		if tamper {
			sealed[5] ^= 1
		}
		copy(rec, sealed)
		ctx.AADLen = 13 // the engine consumed it
		inst.Op = cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorDec)
		inst.RLen = uint32(len(msg))
		res, err := q.Do(&inst)
		if err != nil {
			t.Fatal(err)
		}
		if tamper {
			if res.UCCode != cptdrv.UCAuthFail || !bytes.Equal(rec[:len(msg)], make([]byte, len(msg))) {
				t.Fatalf("tampered record: %+v, output not wiped", res)
			}
		} else if res.UCCode != cptdrv.UCSuccess || !bytes.Equal(rec[:len(msg)], msg) {
			t.Fatalf("open: %+v", res)
		}
	}
}

func TestBadInstructions(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 1})
	for _, inst := range []cptdrv.Instruction{
		{Op: 0x7777},
		{Op: cptdrv.Op(cptdrv.MajorFC, 9), Param1: cptdrv.CipherAESGCM, CPtr: 1},
		{Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorEnc), Param1: 99},
	} {
		res, err := q.Do(&inst)
		if err != nil || res.CompCode != cptdrv.CompBadInst {
			t.Fatalf("instruction %+v: %v %+v, want CompBadInst", inst, err, res)
		}
	}
	// Memory the device cannot read becomes a fault completion, not a crash.
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.CipherContext{})))
	ctx := cptdrv.ContextAt(cptdrv.Addr(ctxMem))
	ctx.KeyLen, ctx.IVLen = 16, 12
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorFC, cptdrv.MinorEnc), Param1: cptdrv.CipherAESGCM,
		Param2: cptdrv.FlagStart, CPtr: cptdrv.Addr(ctxMem), DPtr: 0x8000, DLen: 64, RPtr: 0x8000, RLen: 64} // below mmap_min_addr: never mapped
	res, err := q.Do(&inst)
	if err != nil || res.CompCode != cptdrv.CompFault {
		t.Fatalf("unreadable memory: %v %+v, want CompFault", err, res)
	}
}

func TestFaultInjection(t *testing.T) {
	d, q := newQueue(t, Config{SEEngines: 2})
	plan, err := ParseFaultPlan("error:every=3;delay:every=5,delay=3ms")
	if err != nil {
		t.Fatal(err)
	}
	d.SetFaults(plan)
	var errorsSeen int
	start := time.Now()
	for i := 0; i < 30; i++ {
		inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorNOP, 0)}
		res, err := q.Do(&inst)
		if err != nil {
			t.Fatal(err)
		}
		if res.CompCode == cptdrv.CompHWError {
			errorsSeen++
		}
	}
	// Rule 1 sees every instruction and fires on each third; rule 2 sees the
	// other 20 and delays every fifth of them.
	if errorsSeen != 10 {
		t.Fatalf("%d error completions, want 10", errorsSeen)
	}
	if f := plan.Fired(); f[0] != 10 || f[1] != 4 {
		t.Fatalf("fired %v, want [10 4]", f)
	}
	if time.Since(start) < 12*time.Millisecond {
		t.Fatal("delays not applied")
	}

	// A stall: the request never completes; the driver times out, the
	// device counts it, and the queue keeps serving.
	d.SetFaults(NewFaultPlan(1, FaultRule{Kind: FaultStall, Limit: 1}))
	q2, err := cptdrv.NewQueue(d, cptdrv.QueueConfig{Group: cptdrv.GroupSE, Depth: 4, Timeout: 50 * time.Millisecond,
		Policy: cptdrv.Policy{Retries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorNOP, 0)}
	if _, err := q2.Do(&inst); err != cptdrv.ErrTimeout {
		t.Fatalf("stalled instruction: %v, want ErrTimeout", err)
	}
	if _, err := q2.Do(&inst); err != nil {
		t.Fatalf("after a stall: %v", err)
	}
	if d.Stats().Stalled != 1 {
		t.Fatalf("stats %+v", d.Stats())
	}
}

func TestParseFaultPlanErrors(t *testing.T) {
	for _, s := range []string{"", "explode", "error:every", "delay:delay=xyz", "error:bogus=1",
		"error:rate=0", "error:rate=1.5", "error:rate=x", "absent:every=2", "error:seed=-1"} {
		if _, err := ParseFaultPlan(s); err == nil {
			t.Errorf("ParseFaultPlan(%q) accepted", s)
		}
	}
}

// Engines and assisting submitters together: many goroutines, sync and
// async, every instruction completed once.
func TestConcurrentEnginesAndAssist(t *testing.T) {
	d, q := newQueue(t, Config{SEEngines: 3})
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 3000; i++ {
				inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorNOP, 0)}
				if w%2 == 0 {
					if _, err := q.Do(&inst); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					done++
					mu.Unlock()
					continue
				}
				ch := make(chan struct{})
				if err := q.Submit(&inst, func(cptdrv.Result) { close(ch) }); err != nil {
					t.Error(err)
					return
				}
				<-ch
				mu.Lock()
				done++
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if done != 18000 || d.Stats().Executed != 18000 {
		t.Fatalf("done %d executed %d", done, d.Stats().Executed)
	}
}

// A sample of the requests reports its phases: as many as one in 64, with
// the engine's time covering the work it did.
func TestQueuePhases(t *testing.T) {
	_, q := newQueue(t, Config{SEEngines: 2})
	for i := 0; i < 640; i++ {
		inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorNOP, 0)}
		if i%2 == 0 {
			if _, err := q.Do(&inst); err != nil {
				t.Fatal(err)
			}
			continue
		}
		done := make(chan struct{})
		if err := q.Submit(&inst, func(cptdrv.Result) { close(done) }); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	// The last sample may be accounted just after its callback returned.
	p := q.Stats().Phases
	for end := time.Now().Add(time.Second); p.Samples < 10 && time.Now().Before(end); p = q.Stats().Phases {
		time.Sleep(time.Millisecond)
	}
	if p.Samples != 10 {
		t.Fatalf("%d samples of 640 requests, want 10", p.Samples)
	}
	if p.Submit == 0 || p.Engine+p.Wait+p.Notify == 0 {
		t.Fatalf("phases not measured: %+v", p)
	}
}

// hashJob is a SHA-256 of msg through the queue: asynchronous when async.
func sha256Via(t *testing.T, q *cptdrv.Queue, async bool, msg []byte) ([]byte, cptdrv.Result) {
	t.Helper()
	ctxMem := dmaBuf(t, int(unsafe.Sizeof(cptdrv.HashContext{})))
	in := dmaBuf(t, len(msg)+1)
	copy(in, msg)
	out := dmaBuf(t, 32)
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorHash, 0), Param1: cptdrv.HashSHA256,
		Param2: cptdrv.FlagStart | cptdrv.FlagFinal, DPtr: cptdrv.Addr(in), DLen: uint32(len(msg)),
		RPtr: cptdrv.Addr(out), RLen: 32, CPtr: cptdrv.Addr(ctxMem)}
	var res cptdrv.Result
	if async {
		ch := make(chan cptdrv.Result, 1)
		if err := q.Submit(&inst, func(r cptdrv.Result) { ch <- r }); err != nil {
			t.Fatal(err)
		}
		res = <-ch
	} else {
		var err error
		if res, err = q.Do(&inst); err != nil {
			t.Fatal(err)
		}
	}
	return append([]byte(nil), out...), res
}

// Every fault kind, with the driver's software fallback (the device's own
// code on the CPU): every operation gives the right digest, sync and async,
// and the counters show the faults and what the driver did about them.
func TestFaultsWithFallback(t *testing.T) {
	for _, plan := range []string{
		"error:rate=0.2,seed=3",
		"stall:every=7",
		"delay:every=5,delay=2ms",
		"reset:every=9",
		"full:every=11,delay=20ms",
		"error:every=4;reset:every=13;stall:every=17;full:every=19,delay=5ms",
	} {
		t.Run(plan, func(t *testing.T) {
			p, err := ParseFaultPlan(plan)
			if err != nil {
				t.Fatal(err)
			}
			d := New(Config{SEEngines: 2, AEEngines: 1})
			defer d.Close()
			d.SetFaults(p)
			q, err := cptdrv.NewQueue(d, cptdrv.QueueConfig{Group: cptdrv.GroupSE, Depth: 8,
				Timeout: 20 * time.Millisecond, Policy: cptdrv.Policy{Software: d, Threshold: 1 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			var wg sync.WaitGroup
			var mu sync.Mutex
			soft := 0
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < 40; i++ {
						msg := []byte{byte(g), byte(i), 1, 2, 3}
						got, res := sha256Via(t, q, (g+i)%2 == 0, msg)
						want := sha256.Sum256(msg)
						if res.CompCode != cptdrv.CompGood || !bytes.Equal(got, want[:]) {
							t.Errorf("goroutine %d op %d: %+v, digest %x", g, i, res, got)
							return
						}
						if res.Flags&cptdrv.FlagSoftware != 0 {
							mu.Lock()
							soft++
							mu.Unlock()
						}
					}
				}(g)
			}
			wg.Wait()
			st, ds := q.Stats(), d.Stats()
			// Delays and full rings need not make anything fail (a burst
			// may fit the ring); errors, stalls and resets must be handled.
			handled := strings.HasPrefix(plan, "delay") || strings.HasPrefix(plan, "full") || st.Retries > 0 || st.Fallbacks > 0
			if ds.Faults == 0 || !handled {
				t.Fatalf("faults %d, queue %+v", ds.Faults, st)
			}
			if uint64(soft) != st.Fallbacks {
				t.Fatalf("%d software results, %d fallbacks counted", soft, st.Fallbacks)
			}
			t.Logf("faults %d resets %d stalled %d; retries %d fallbacks %d timeouts %d", ds.Faults, ds.Resets,
				ds.Stalled, st.Retries, st.Fallbacks, st.Timeouts)
			// Every slot comes back once the device drains.
			for deadline := time.Now().Add(5 * time.Second); q.InFlight() != 0 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			if q.InFlight() != 0 {
				t.Fatalf("%d requests still in flight", q.InFlight())
			}
		})
	}
}

func TestFaultPlanRateAndAbsent(t *testing.T) {
	p, err := ParseFaultPlan("error:rate=0.1,seed=7")
	if err != nil {
		t.Fatal(err)
	}
	inst := cptdrv.Instruction{Op: cptdrv.Op(cptdrv.MajorNOP, 0)}
	n := 0
	for i := 0; i < 10000; i++ {
		if p.next(&inst).Kind == FaultError {
			n++
		}
	}
	if n < 800 || n > 1200 {
		t.Fatalf("rate 0.1 fired %d times in 10000", n)
	}
	// The same seed replays the same faults.
	p2, _ := ParseFaultPlan("error:rate=0.1,seed=7")
	m := 0
	for i := 0; i < 10000; i++ {
		if p2.next(&inst).Kind == FaultError {
			m++
		}
	}
	if m != n {
		t.Fatalf("seed 7 fired %d then %d times", n, m)
	}
	a, err := ParseFaultPlan("absent")
	if err != nil || !a.Absent {
		t.Fatalf("absent: %+v %v", a, err)
	}
	d := New(Config{Absent: true})
	defer d.Close()
	if _, err := cptdrv.NewQueue(d, cptdrv.QueueConfig{Group: cptdrv.GroupSE}); err != cptdrv.ErrAbsent {
		t.Fatalf("absent device, no fallback: %v", err)
	}
	q, err := cptdrv.NewQueue(d, cptdrv.QueueConfig{Group: cptdrv.GroupSE, Policy: cptdrv.Policy{Software: d}})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	got, res := sha256Via(t, q, true, []byte("abc"))
	want := sha256.Sum256([]byte("abc"))
	if !bytes.Equal(got, want[:]) || res.Flags&cptdrv.FlagSoftware == 0 {
		t.Fatalf("absent device with fallback: %x %+v", got, res)
	}
}

// Asynchronous submitters execute short instructions only (a modular
// exponentiation's hand-off is a small part of it): while every engine
// sleeps, all but one in wakeEvery; never for engines a fault holds.
func TestHelps(t *testing.T) {
	d := New(Config{AEEngines: 3})
	q, err := cptdrv.NewQueue(d, cptdrv.QueueConfig{Group: cptdrv.GroupAE, Depth: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { q.Close(); d.Close() }()
	g := d.groups[cptdrv.GroupAE]
	for deadline := time.Now().Add(5 * time.Second); g.park.Sleepers() < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 engines asleep after 5 s", g.park.Sleepers())
		}
	}
	helped := 0
	for i := 0; i < 4*wakeEvery; i++ {
		if d.Helps(q, cptdrv.Op(cptdrv.MajorECC, 0)) {
			helped++
		}
	}
	if helped != 4*(wakeEvery-1) {
		t.Errorf("engines asleep: %d of %d short instructions executed by the submitter, want %d", helped, 4*wakeEvery, 4*(wakeEvery-1))
	}
	if d.Helps(q, cptdrv.Op(cptdrv.MajorModExp, 0)) {
		t.Error("a modular exponentiation executed by the submitter")
	}
	g.pause(time.Minute)
	if d.Helps(q, cptdrv.Op(cptdrv.MajorECC, 0)) {
		t.Error("held engines helped")
	}
}
