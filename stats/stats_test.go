package stats

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestCountersConcurrentAndSnapshot(t *testing.T) {
	c := New()
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

func TestWriterFile(t *testing.T) {
	dir := t.TempDir()
	c := New()
	c.Alg("AES-256-GCM").Ops.Add(3)
	w := NewWriter(dir, func() Snapshot { return Snapshot{Backend: "test", Algorithms: c.Snapshot()} })
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PID        int                          `json:"pid"`
		Algorithms map[string]map[string]uint64 `json:"algorithms"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	if doc.PID != os.Getpid() || doc.Algorithms["AES-256-GCM"]["ops"] != 3 {
		t.Fatalf("document %s", b)
	}
	for _, k := range []string{"ops", "bytes", "device", "software", "errors"} {
		if _, ok := doc.Algorithms["AES-256-GCM"][k]; !ok {
			t.Fatalf("key %q missing in %s", k, b)
		}
	}
	// Unchanged counters: the file is not rewritten.
	st1, _ := os.Stat(w.Path())
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(w.Path())
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Fatal("unchanged snapshot rewritten")
	}
	// No temporary file is left behind.
	if m, _ := filepath.Glob(filepath.Join(dir, "*.tmp.*")); len(m) != 0 {
		t.Fatalf("left over: %v", m)
	}
	c.Alg("AES-256-GCM").Ops.Add(1)
	w.Start()
	if err := w.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(w.Path())
	json.Unmarshal(b, &doc)
	if doc.Algorithms["AES-256-GCM"]["ops"] != 4 {
		t.Fatalf("Stop did not write the last counters: %s", b)
	}
}
