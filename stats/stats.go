// SPDX-License-Identifier: Apache-2.0

// Package stats keeps cptprov's per-process counters. With a statistics
// directory they live in the process's statistics area, a small file
// stats_dir/cptprov-<pid>.stats mapped shared (Area, the twin of struct
// cpt_stats_area in provider/cptabi.h): the hot counters are updated in
// place, the queue and device counters are copied in four times a second,
// and cptstat reads it all live with ReadArea.
package stats

import (
	"bytes"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Alg holds the counters of one algorithm (OpenSSL's canonical name).
type Alg struct {
	Ops      atomic.Uint64 // operations that reached the device or the CPU path
	Bytes    atomic.Uint64 // input bytes of those operations
	Device   atomic.Uint64 // completed by the device
	Software atomic.Uint64 // completed on the calling CPU
	Errors   atomic.Uint64 // failed
}

// The area's dimensions (CPT_STATS_* in cptabi.h).
const (
	AreaVersion    = 1
	NameLen        = 32
	AlgSlots       = 96
	DeviceSlots    = 48
	LatencyBuckets = 21
	CPUSlots       = 64
)

var areaMagic = [8]byte{'c', 'p', 't', 's', 't', 'a', 't', 0}

// AreaAlg is a named algorithm slot: Ready is set once Name is written.
type AreaAlg struct {
	Name  [NameLen]byte
	Ready atomic.Uint64
	Alg
}

// Area is the statistics area's layout; the provider checks it against
// the C struct when Go starts.
type Area struct {
	Magic       [8]byte
	Version     uint32
	Size        uint32
	PID         int64
	StartTime   uint64
	Backend     [NameLen]byte
	PublishedNS atomic.Int64
	DeviceNames [DeviceSlots][NameLen]byte
	Device      [DeviceSlots]atomic.Uint64
	Latency     [2][LatencyBuckets]atomic.Uint64
	CPU         [CPUSlots]struct{ Ops, Bytes atomic.Uint64 }
	Algs        [AlgSlots]AreaAlg
}

// Counters is the set of per-algorithm counters of one process.
type Counters struct {
	mu    sync.Mutex
	algs  atomic.Pointer[map[string]*Alg]
	area  *Area // nil: counters on the heap, seen by nobody else
	slots int   // named slots of area in use
}

// New returns empty counters kept in area (nil: on the heap).
func New(area *Area) *Counters {
	c := &Counters{area: area}
	m := map[string]*Alg{}
	c.algs.Store(&m)
	return c
}

// Alg returns the counters of name, creating them on first use (in the
// area while it has a free slot). Callers keep the pointer: the hot path
// does not look names up.
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
	if c.area != nil && c.slots < AlgSlots && len(name) < NameLen {
		s := &c.area.Algs[c.slots]
		c.slots++
		copy(s.Name[:], name)
		s.Ready.Store(1)
		a = &s.Alg
	}
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

// Snapshot is what cptstat shows of a process, and its JSON document.
type Snapshot struct {
	PID        int                    `json:"pid"`
	Exited     bool                   `json:"exited,omitempty"` // a file left by a process that ended
	Backend    string                 `json:"backend"`
	Time       string                 `json:"time"`
	Algorithms map[string]AlgSnapshot `json:"algorithms"`
	Device     map[string]uint64      `json:"device,omitempty"`
	// LatencyUS: per queue ("se", "ae"), a histogram of a sample of the
	// requests' latency: bucket i counts those under 2^i µs, the last one
	// everything longer.
	LatencyUS map[string][]uint64 `json:"latency_us,omitempty"`
}

func (a *Alg) snapshot() AlgSnapshot {
	return AlgSnapshot{Ops: a.Ops.Load(), Bytes: a.Bytes.Load(), Device: a.Device.Load(), Software: a.Software.Load(), Errors: a.Errors.Load()}
}

// Snapshot reads every counter once.
func (c *Counters) Snapshot() map[string]AlgSnapshot {
	out := map[string]AlgSnapshot{}
	for n, a := range *c.algs.Load() {
		out[n] = a.snapshot()
	}
	return out
}

// DeviceCounters is what the publisher copies into the area: named
// counters (at most DeviceSlots, names shorter than NameLen, the same set
// each time) and the per-queue latency histograms.
type DeviceCounters struct {
	Names   []string
	Values  []uint64
	Latency [2][]uint64 // se, ae
}

// Publisher copies a process's device counters into its area.
type Publisher struct {
	area   *Area
	read   func() DeviceCounters
	mu     sync.Mutex
	stop   chan struct{}
	done   chan struct{}
	period time.Duration
}

// NewPublisher prepares a publisher; read collects the counters each time.
func NewPublisher(area *Area, backend string, read func() DeviceCounters) *Publisher {
	copy(area.Backend[:NameLen-1], backend)
	return &Publisher{area: area, read: read, period: 250 * time.Millisecond}
}

// Publish copies the counters now.
func (p *Publisher) Publish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.read()
	for i, name := range d.Names {
		if i >= DeviceSlots {
			break
		}
		if p.area.DeviceNames[i][0] == 0 {
			copy(p.area.DeviceNames[i][:NameLen-1], name)
		}
		p.area.Device[i].Store(d.Values[i])
	}
	for q := range d.Latency {
		for i, v := range d.Latency[q] {
			if i < LatencyBuckets {
				p.area.Latency[q][i].Store(v)
			}
		}
	}
	p.area.PublishedNS.Store(time.Now().UnixNano())
}

// Start publishes four times a second until Stop.
func (p *Publisher) Start() {
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	p.Publish()
	go func() {
		defer close(p.done)
		t := time.NewTicker(p.period)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.Publish()
			case <-p.stop:
				return
			}
		}
	}()
}

// Stop ends the periodic copies and publishes a last time.
func (p *Publisher) Stop() {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.Publish()
}

// ErrNotArea: the bytes are not a statistics area of this version (yet).
var ErrNotArea = errors.New("not a cptprov statistics area of this version")

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// ReadArea reads a mapped area into a snapshot. cpuName names the CPU
// path's counters by CPT_ALG_* id ("" for none); they count as software.
func ReadArea(b []byte, cpuName func(int) string) (Snapshot, error) {
	if len(b) < int(unsafe.Sizeof(Area{})) || uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
		return Snapshot{}, ErrNotArea
	}
	a := (*Area)(unsafe.Pointer(&b[0]))
	if a.Magic != areaMagic || a.Version != AreaVersion || a.Size != uint32(unsafe.Sizeof(Area{})) {
		return Snapshot{}, ErrNotArea
	}
	s := Snapshot{PID: int(a.PID), Backend: cstring(a.Backend[:]), Algorithms: map[string]AlgSnapshot{}}
	for i := range a.Algs {
		slot := &a.Algs[i]
		if slot.Ready.Load() == 0 {
			break
		}
		s.Algorithms[cstring(slot.Name[:])] = slot.snapshot()
	}
	for id := range a.CPU {
		ops := a.CPU[id].Ops.Load()
		name := cpuName(id)
		if ops == 0 || name == "" {
			continue
		}
		as := s.Algorithms[name]
		as.Ops += ops
		as.Software += ops
		as.Bytes += a.CPU[id].Bytes.Load()
		s.Algorithms[name] = as
	}
	if ns := a.PublishedNS.Load(); ns != 0 {
		s.Time = time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
		s.Device = map[string]uint64{}
		for i := range a.DeviceNames {
			if n := cstring(a.DeviceNames[i][:]); n != "" {
				s.Device[n] = a.Device[i].Load()
			}
		}
		s.LatencyUS = map[string][]uint64{}
		for q, name := range []string{"se", "ae"} {
			h := make([]uint64, LatencyBuckets)
			for i := range h {
				h[i] = a.Latency[q][i].Load()
			}
			s.LatencyUS[name] = h
		}
	}
	return s, nil
}

// StartTime is the process start time the area records (/proc/<pid>/stat
// field 22), which tells a live process from one that reused its pid.
func StartTime(b []byte) uint64 {
	if len(b) < int(unsafe.Sizeof(Area{})) {
		return 0
	}
	return (*Area)(unsafe.Pointer(&b[0])).StartTime
}

// MapFile maps a statistics file read-only; unmap with syscall.Munmap.
func MapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int(unsafe.Sizeof(Area{}))
	if st, err := f.Stat(); err != nil || st.Size() < int64(size) {
		return nil, ErrNotArea
	}
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

// CreateFile makes a statistics area file for pid, as the provider's C side
// does (for tools and tests that stand in for a process).
func CreateFile(path string, pid int, startTime uint64) (*Area, []byte, error) {
	size := int(unsafe.Sizeof(Area{}))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if err := f.Truncate(int64(size)); err != nil {
		return nil, nil, err
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	a := (*Area)(unsafe.Pointer(&m[0]))
	a.Version, a.Size, a.PID, a.StartTime = AreaVersion, uint32(size), int64(pid), startTime
	a.Magic = areaMagic
	return a, m, nil
}
