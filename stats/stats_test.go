// SPDX-License-Identifier: Apache-2.0

package stats

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

func TestCountersConcurrentAndSnapshot(t *testing.T) {
	c := New(nil)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				a := c.Alg([]string{"AES-128-GCM", "AES-256-GCM"}[j%2])
				a.Ops.Add(1)
				a.Device.Add(1)
				a.Bytes.Add(16)
			}
		}(i)
	}
	wg.Wait()
	s := c.Snapshot()
	if len(s) != 2 || s["AES-128-GCM"].Ops != 4000 || s["AES-256-GCM"].Bytes != 64000 {
		t.Fatalf("snapshot %+v", s)
	}
}

// The counters live in the mapped file: another mapping of it (cptstat's)
// sees every update at once, the CPU path's counters are merged by name,
// and the device counters appear once published.
func TestAreaLiveThroughAnotherMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cptprov-1.stats")
	area, m, err := CreateFile(path, os.Getpid(), 42)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	c := New(area)
	gcm := c.Alg("AES-256-GCM")
	gcm.Ops.Add(3)
	gcm.Device.Add(3)
	gcm.Bytes.Add(300)
	area.CPU[5].Ops.Add(2)
	area.CPU[5].Bytes.Add(20)
	area.CPU[6].Ops.Add(7) // no name: not shown
	r, err := MapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(r)
	names := func(id int) string {
		if id == 5 {
			return "AES-256-GCM"
		}
		return ""
	}
	s, err := ReadArea(r, names)
	if err != nil {
		t.Fatal(err)
	}
	want := AlgSnapshot{Ops: 5, Bytes: 320, Device: 3, Software: 2}
	if s.PID != os.Getpid() || s.Algorithms["AES-256-GCM"] != want || len(s.Algorithms) != 1 || s.Device != nil {
		t.Fatalf("read %+v", s)
	}
	if StartTime(r) != 42 {
		t.Fatalf("start time %d", StartTime(r))
	}
	gcm.Errors.Add(1) // live: no copy, no flush
	if s, _ = ReadArea(r, names); s.Algorithms["AES-256-GCM"].Errors != 1 {
		t.Fatalf("update not seen: %+v", s.Algorithms)
	}
	n := uint64(0)
	p := NewPublisher(area, "simulator", func() DeviceCounters {
		n++
		return DeviceCounters{Names: []string{"submitted", "in_flight"}, Values: []uint64{10 * n, n},
			Latency: [2][]uint64{{0, 1, 2}, {3}}}
	})
	p.Start()
	p.Stop()
	s, _ = ReadArea(r, names)
	if s.Backend != "simulator" || s.Device["submitted"] != 10*n || s.Device["in_flight"] != n ||
		s.LatencyUS["se"][2] != 2 || s.LatencyUS["ae"][0] != 3 || len(s.LatencyUS["se"]) != LatencyBuckets || s.Time == "" {
		t.Fatalf("published %+v (n %d)", s, n)
	}
}

// More algorithms than slots: the rest are counted on the heap, unseen,
// and nothing breaks.
func TestAreaFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cptprov-2.stats")
	area, m, err := CreateFile(path, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	c := New(area)
	for i := 0; i < AlgSlots+5; i++ {
		c.Alg(fmt.Sprintf("ALG-%d", i)).Ops.Add(uint64(i))
	}
	if c.Alg("ALG-3") != c.Alg("ALG-3") || len(c.Snapshot()) != AlgSlots+5 {
		t.Fatal("lookup")
	}
	s, err := ReadArea(m, func(int) string { return "" })
	if err != nil || len(s.Algorithms) != AlgSlots || s.Algorithms["ALG-7"].Ops != 7 {
		t.Fatalf("%v, %d algorithms", err, len(s.Algorithms))
	}
}

func TestReadAreaRejects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.stats")
	area, m, err := CreateFile(path, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	none := func(int) string { return "" }
	if _, err := ReadArea(m[:100], none); err != ErrNotArea {
		t.Fatalf("short: %v", err)
	}
	area.Version++
	if _, err := ReadArea(m, none); err != ErrNotArea {
		t.Fatalf("other version: %v", err)
	}
	area.Version--
	area.Magic[0] = 0
	if _, err := ReadArea(m, none); err != ErrNotArea {
		t.Fatalf("no magic (still being created): %v", err)
	}
	os.WriteFile(path+".small", []byte("hello"), 0o644)
	if _, err := MapFile(path + ".small"); err != ErrNotArea {
		t.Fatalf("small file: %v", err)
	}
}
