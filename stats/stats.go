// Package stats keeps cptprov's per-process counters and writes them where
// tests and operators can read them: stats_dir/cptprov-<pid>.json.
package stats

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Alg holds the counters of one algorithm (OpenSSL's canonical name).
type Alg struct {
	Ops      atomic.Uint64 // operations that reached the device or the CPU path
	Bytes    atomic.Uint64 // input bytes of those operations
	Device   atomic.Uint64 // completed by the device
	Software atomic.Uint64 // completed on the calling CPU
	Errors   atomic.Uint64 // failed
}

// Counters is the set of per-algorithm counters of one process.
type Counters struct {
	mu   sync.Mutex
	algs atomic.Pointer[map[string]*Alg]
}

// New returns empty counters.
func New() *Counters {
	c := &Counters{}
	m := map[string]*Alg{}
	c.algs.Store(&m)
	return c
}

// Alg returns the counters of name, creating them on first use. Callers keep
// the pointer: the hot path does not look names up.
func (c *Counters) Alg(name string) *Alg {
	if a, ok := (*c.algs.Load())[name]; ok {
		return a
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.algs.Load()
	if a, ok := old[name]; ok {
		return a
	}
	m := make(map[string]*Alg, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	a := &Alg{}
	m[name] = a
	c.algs.Store(&m)
	return a
}

// AlgSnapshot is the JSON form of Alg.
type AlgSnapshot struct {
	Ops      uint64 `json:"ops"`
	Bytes    uint64 `json:"bytes"`
	Device   uint64 `json:"device"`
	Software uint64 `json:"software"`
	Errors   uint64 `json:"errors"`
}

// Snapshot is the JSON document a process writes.
type Snapshot struct {
	PID        int                    `json:"pid"`
	Backend    string                 `json:"backend"`
	Time       string                 `json:"time"`
	Algorithms map[string]AlgSnapshot `json:"algorithms"`
	Device     map[string]uint64      `json:"device,omitempty"`
	// LatencyUS: per queue ("se", "ae"), a histogram of a sample of the
	// requests' latency: bucket i counts those under 2^i µs, the last one
	// everything longer.
	LatencyUS map[string][]uint64 `json:"latency_us,omitempty"`
}

// Snapshot reads every counter once.
func (c *Counters) Snapshot() map[string]AlgSnapshot {
	out := map[string]AlgSnapshot{}
	m := *c.algs.Load()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := m[n]
		out[n] = AlgSnapshot{Ops: a.Ops.Load(), Bytes: a.Bytes.Load(), Device: a.Device.Load(), Software: a.Software.Load(), Errors: a.Errors.Load()}
	}
	return out
}

// Writer writes a process's snapshot to dir/cptprov-<pid>.json.
type Writer struct {
	dir    string
	pid    int
	snap   func() Snapshot
	mu     sync.Mutex
	last   []byte
	stop   chan struct{}
	done   chan struct{}
	period time.Duration
}

// NewWriter prepares a writer; snap builds the document each time.
func NewWriter(dir string, snap func() Snapshot) *Writer {
	return &Writer{dir: dir, pid: os.Getpid(), snap: snap, period: time.Second}
}

// Path is the file this process writes.
func (w *Writer) Path() string { return filepath.Join(w.dir, fmt.Sprintf("cptprov-%d.json", w.pid)) }

// Flush writes the current snapshot if it changed since the last write. The
// file is replaced atomically so readers never see half a document.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.snap()
	s.PID = w.pid
	b, err := json.Marshal(s.withoutTime())
	if err != nil {
		return err
	}
	if w.last != nil && string(b) == string(w.last) {
		return nil
	}
	s.Time = time.Now().UTC().Format(time.RFC3339Nano)
	full, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp.%d", w.Path(), w.pid)
	if err := os.WriteFile(tmp, append(full, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, w.Path()); err != nil {
		os.Remove(tmp)
		return err
	}
	w.last = b
	return nil
}

func (s Snapshot) withoutTime() Snapshot { s.Time = ""; return s }

// Start writes once a second until Stop.
func (w *Writer) Start() {
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	os.MkdirAll(w.dir, 0o755)
	go func() {
		defer close(w.done)
		t := time.NewTicker(w.period)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				w.Flush()
			case <-w.stop:
				return
			}
		}
	}()
}

// Stop ends the periodic writes and writes a last time.
func (w *Writer) Stop() error {
	if w.stop != nil {
		close(w.stop)
		<-w.done
		w.stop = nil
	}
	return w.Flush()
}
