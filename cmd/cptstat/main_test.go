// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"cptprov/stats"
)

// write makes the statistics area of a process holding s, as the
// provider would: counters in their slots, device counters published.
func write(t *testing.T, dir string, s stats.Snapshot) string {
	t.Helper()
	path := filepath.Join(dir, "cptprov-"+strconv.Itoa(s.PID)+".stats")
	area, m, err := stats.CreateFile(path, s.PID, procStartTime(s.PID))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	c := stats.New(area)
	for name, v := range s.Algorithms {
		a := c.Alg(name)
		a.Ops.Add(v.Ops)
		a.Bytes.Add(v.Bytes)
		a.Device.Add(v.Device)
		a.Software.Add(v.Software)
		a.Errors.Add(v.Errors)
	}
	var d stats.DeviceCounters
	for k, v := range s.Device {
		d.Names = append(d.Names, k)
		d.Values = append(d.Values, v)
	}
	d.Latency[0] = s.LatencyUS["se"]
	stats.NewPublisher(area, s.Backend, func() stats.DeviceCounters { return d }).Publish()
	return path
}

func doc(pid int, ops uint64) stats.Snapshot {
	return stats.Snapshot{PID: pid, Backend: "simulator",
		Algorithms: map[string]stats.AlgSnapshot{"AES-256-GCM": {Ops: ops, Bytes: 10 * ops, Device: ops}},
		Device:     map[string]uint64{"submitted": ops, "in_flight_max": ops, "se_submit_ns": 1000, "se_wait_ns": 2000},
		LatencyUS:  map[string][]uint64{"se": {0, 1, 2, 0, 1}}}
}

// Two live processes and a dead one: the dead one's file goes, the others
// are read and added up.
func TestLoadTotal(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPath := write(t, dir, doc(dead.Process.Pid, 5))
	write(t, dir, doc(os.Getpid(), 3))
	write(t, dir, doc(os.Getppid(), 4))
	os.WriteFile(filepath.Join(dir, "unrelated.txt"), nil, 0o644)
	procs, err := Load(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(procs) != 2 {
		t.Fatalf("%d processes, want the 2 live ones", len(procs))
	}
	if _, err := os.Stat(deadPath); !os.IsNotExist(err) {
		t.Fatalf("the dead process's file is still there: %v", err)
	}
	tot := Total(procs)
	if a := tot.Algorithms["AES-256-GCM"]; a.Ops != 7 || a.Bytes != 70 || tot.Device["submitted"] != 7 ||
		tot.Device["in_flight_max"] != 4 || tot.LatencyUS["se"][2] != 4 {
		t.Fatalf("total %+v", tot)
	}
	var tb bytes.Buffer
	WriteTable(&tb, procs, true)
	if !strings.Contains(tb.String(), "2 processes") || !strings.Contains(tb.String(), "p50 <4µs") ||
		!strings.Contains(tb.String(), "se: submitted 3  completed 0") || !strings.Contains(tb.String(), "ae: submitted 0") {
		t.Fatalf("table:\n%s", tb.String())
	}
}

// A file whose pid now belongs to another process (a different start
// time) is a dead process's: not shown, and removed.
func TestPidReused(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, doc(os.Getpid(), 1))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(unsafe.Sizeof(stats.Area{})), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	(*stats.Area)(unsafe.Pointer(&m[0])).StartTime++
	syscall.Munmap(m)
	procs, err := Load(dir, false)
	if err != nil || len(procs) != 1 || !procs[0].Exited || procs[0].Algorithms["AES-256-GCM"].Ops != 1 {
		t.Fatalf("-keep-dead: %v, %+v", err, procs)
	}
	procs, err = Load(dir, true)
	if err != nil || len(procs) != 0 {
		t.Fatalf("%v, %d processes", err, len(procs))
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file left: %v", err)
	}
}

// A process that exited but is not reaped yet (a zombie) is not alive: its
// series must go at the next scrape, not when its parent gets round to it.
func TestZombieIsNotAlive(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skip("cannot start sleep:", err)
	}
	pid := child.Process.Pid
	start := procStartTime(pid)
	if !alive(pid, start) {
		t.Fatal("a running child is not alive")
	}
	child.Process.Signal(syscall.SIGKILL)
	for i := 0; ; i++ {
		if state, _ := procStat(pid); state == 'Z' {
			break
		}
		if i == 500 {
			t.Fatal("the child did not become a zombie")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid, start) {
		t.Error("a zombie counts as alive")
	}
	child.Wait()
}
