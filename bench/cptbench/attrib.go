// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The attribution (issue 20): what a server's workers do per handshake of
// each handshake workload (not the bulk one), with cptprov and without: system calls, context
// switches and CPU migrations (perf stat on the workers), the CPU time of
// the server's own threads and of the threads Go starts in a worker (its
// runtime's and the simulator's engines: threadSplit), calls into Go
// (with cptprov: uprobes on libcptgo.so's exported cptgo_* functions,
// each call from C into Go, by function), and cptprov's operations by
// algorithm and path (its statistics). A run of its own: a uprobe costs a
// trap per call, which the measured runs must not pay.

// attribKey names an attribution counter of a workload.
type attribKey struct{ workload, counter string }

const (
	ctrSyscalls   = "system calls"
	ctrSwitches   = "context switches"
	ctrMigrations = "CPU migrations"
	ctrGoCalls    = "calls into Go"
	ctrHostCPU    = "CPU µs on the server's threads"
	ctrGoCPU      = "CPU µs on Go's threads"
)

// uprobes are perf's events for the build's libcptgo.so exports.
const uprobes = "probe_libcptgo:*"

func (b *bench) attribution(r *report) error {
	if _, err := exec.LookPath("perf"); err != nil {
		r.notes = append(r.notes, "attribution: skipped, perf is not installed (apt-get install linux-perf).")
		return nil
	}
	f, done, ok, err := b.serverSetup(r, "attribution")
	if !ok {
		return err
	}
	defer done()
	lib := filepath.Join(b.cfg.root, "build", "libcptgo.so")
	exec.Command("perf", "probe", "-q", "-d", uprobes).Run()
	goCalls := true
	if out, err := exec.Command("perf", "probe", "-q", "-x", lib, "-a", "cptgo_*").CombinedOutput(); err != nil {
		goCalls = false
		r.notes = append(r.notes, fmt.Sprintf("attribution: calls into Go not counted (perf probe: %s)", strings.TrimSpace(string(out))))
	} else {
		defer exec.Command("perf", "probe", "-q", "-d", uprobes).Run()
	}
	for i := 0; i < b.cfg.runs; i++ {
		for _, wl := range workloads {
			if wl.bulk {
				continue
			}
			// The server's own threads per worker, as the run without
			// cptprov counts them: the first threads of a worker with it.
			own := 0
			for _, prov := range []string{dflt, cpt} {
				env := "OPENSSL_CONF=/dev/null"
				events := []string{"raw_syscalls:sys_enter", "context-switches", "cpu-migrations"}
				host := 0 // every thread is the server's
				if prov == cpt {
					env = "OPENSSL_CONF=" + f.statsConf
					host = own
				}
				got, threads, err := b.countHandshake(f, wl, env, events, host)
				if prov == dflt {
					own = threads
				}
				// The calls into Go in a run of their own: a uprobe's trap
				// per call slows the host thread, and the runtime's monitor
				// then spends more CPU (docs/performance.md), which the run
				// above must not count.
				if prov == cpt && goCalls && err == nil {
					var calls map[string]float64
					if calls, _, err = b.countHandshake(f, wl, env, []string{uprobes}, host); err == nil {
						for ctr, v := range calls {
							if strings.HasPrefix(ctr, ctrGoCalls) {
								got[ctr] = v
							}
						}
					}
				}
				if err != nil {
					r.notes = append(r.notes, fmt.Sprintf("attribution: %s %s, run %d: %v", wl.name, prov, i+1, err))
					continue
				}
				for ctr, v := range got {
					getPair(r.attrib, attribKey{wl.name, ctr}).add(prov, v)
				}
				if prov != cpt {
					continue
				}
				for _, alg := range wl.offloaded() {
					if v := got[alg+" on the device"]; v < 0.95 {
						r.notes = append(r.notes, fmt.Sprintf("attribution: %s, run %d: %s on the device %.2f per handshake, not 1: the handshakes' public-key work was not all cptprov's", wl.name, i+1, alg, v))
					}
				}
			}
		}
	}
	return nil
}

// offloaded are the algorithms each handshake of wl must run on the device
// once at least (issue 20: the public-key work stays offloaded): a
// resumed session or a key that OpenSSL could not export to cptprov
// would silently measure something else.
func (wl workload) offloaded() []string {
	sig := map[string]string{"rsa": "RSA", "ecdsa": "ECDSA"}[wl.cert]
	kex := map[string]string{"X25519": "X25519", "P-256": "ECDH"}[wl.group]
	return []string{sig, kex}
}

// countHandshake loads wl's server and returns, per handshake, the perf
// events of its workers and cptprov's operations in them, and the most
// threads a worker had. host is the number of a worker's first threads
// that are the server's own (threadSplit); 0 counts them all as its own.
func (b *bench) countHandshake(f serverFiles, wl workload, env string, events []string, host int) (map[string]float64, int, error) {
	got := map[string]float64{}
	threads := 0
	err := b.underLoad(f, wl, env, func(srv running, run func() (float64, float64, error)) error {
		workers := children(srv.pid)
		if len(workers) == 0 {
			return fmt.Errorf("no workers under %d", srv.pid)
		}
		var pids []string
		for _, p := range workers {
			pids = append(pids, strconv.Itoa(p))
		}
		before := cptOps(b.cfg.root, f.stats, workers)
		cpuBefore := map[int]threadTimes{}
		for _, p := range workers {
			cpuBefore[p] = threadCPU(p)
		}
		var stderr bytes.Buffer
		perf := exec.Command("perf", "stat", "-x,", "-e", strings.Join(events, ","), "-p", strings.Join(pids, ","))
		perf.Stderr = &stderr
		if err := perf.Start(); err != nil {
			return err
		}
		n, _, err := run()
		perf.Process.Signal(syscall.SIGINT)
		perf.Wait()
		if err != nil {
			return err
		}
		var own, goThreads time.Duration
		for _, p := range workers {
			o, g, nt := threadSplit(cpuBefore[p], threadCPU(p), host)
			own, goThreads, threads = own+o, goThreads+g, max(threads, nt)
		}
		got[ctrHostCPU] = float64(own.Microseconds()) / n
		if host > 0 {
			got[ctrGoCPU] = float64(goThreads.Microseconds()) / n
		}
		for _, line := range strings.Split(stderr.String(), "\n") {
			// value,unit,event,... (perf stat -x,)
			fl := strings.Split(line, ",")
			if len(fl) < 3 {
				continue
			}
			v, err := strconv.ParseFloat(fl[0], 64)
			if err != nil {
				continue // "<not counted>", "<not supported>"
			}
			switch fl[2] {
			case "raw_syscalls:sys_enter":
				got[ctrSyscalls] = v / n
			case "context-switches":
				got[ctrSwitches] = v / n
			case "cpu-migrations":
				got[ctrMigrations] = v / n
			default:
				if fn, ok := strings.CutPrefix(fl[2], "probe_libcptgo:cptgo_"); ok {
					got[ctrGoCalls] += v / n
					if v > 0 {
						got[ctrGoCalls+": "+fn] = v / n
					}
				}
			}
		}
		if len(got) == 0 {
			return fmt.Errorf("perf stat counted nothing: %q", stderr.String())
		}
		after := cptOps(b.cfg.root, f.stats, workers)
		for k, v := range after {
			if d := v - before[k]; d > 0 {
				got[k] = float64(d) / n
			}
		}
		return nil
	})
	return got, threads, err
}

// threadTimes are one process's threads: their CPU time (schedstat's
// nanoseconds) by thread id, and the ids in the order the threads started.
type threadTimes struct {
	cpu   map[int]time.Duration
	order []int
}

// threadCPU reads pid's threads (none when it is gone).
func threadCPU(pid int) threadTimes {
	t := threadTimes{cpu: map[int]time.Duration{}}
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, _ := os.ReadDir(dir)
	start := map[int]uint64{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		sched, err1 := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		stat, err2 := os.ReadFile(filepath.Join(dir, e.Name(), "stat"))
		if err1 != nil || err2 != nil {
			continue // gone meanwhile
		}
		sf := strings.Fields(string(sched))
		if len(sf) == 0 {
			continue
		}
		ns, _ := strconv.ParseInt(sf[0], 10, 64)
		// starttime, the 22nd field: the 20th after the command's ')'.
		if fields := statFields(stat); len(fields) > 19 {
			start[tid], _ = strconv.ParseUint(fields[19], 10, 64)
		}
		t.cpu[tid] = time.Duration(ns)
		t.order = append(t.order, tid)
	}
	sort.Slice(t.order, func(i, j int) bool {
		a, b := t.order[i], t.order[j]
		if start[a] != start[b] {
			return start[a] < start[b]
		}
		return a < b
	})
	return t
}

// threadSplit is the CPU time a worker's threads spent between two
// readings: its first host threads' (all of them for host 0), which are the
// server's own, and the others', which Go started later (the runtime's
// threads, and the engines the simulator runs its instructions on), and
// the number of threads at the end. Go starts at the worker's first
// device operation, after the server started its own threads.
func threadSplit(before, after threadTimes, host int) (own, goThreads time.Duration, threads int) {
	for i, tid := range after.order {
		d := after.cpu[tid] - before.cpu[tid]
		if host == 0 || i < host {
			own += d
		} else {
			goThreads += d
		}
	}
	return own, goThreads, len(after.order)
}

// cptOps are cptprov's operations in the processes pids, summed, by
// "ALG on the device" and "ALG on the CPU path" (cptstat's documents).
func cptOps(root, dir string, pids []int) map[string]uint64 {
	ops := map[string]uint64{}
	for _, p := range pids {
		out, err := exec.Command(filepath.Join(root, "build", "cptstat"), "-dir", dir, "-keep-dead", "-json", "-pid", strconv.Itoa(p)).Output()
		if err != nil {
			continue
		}
		var docs []struct {
			Algorithms map[string]struct{ Device, Software uint64 } `json:"algorithms"`
		}
		if json.Unmarshal(out, &docs) != nil {
			continue
		}
		for _, d := range docs {
			for alg, a := range d.Algorithms {
				ops[alg+" on the device"] += a.Device
				ops[alg+" on the CPU path"] += a.Software
			}
		}
	}
	return ops
}

// attribKeys are the counters in a fixed order: perf's first, then calls
// into Go, then cptprov's operations by name.
func (r *report) attribKeys() []attribKey {
	var ks []attribKey
	for k := range r.attrib {
		ks = append(ks, k)
	}
	rank := map[string]int{ctrSyscalls: 0, ctrSwitches: 1, ctrMigrations: 2, ctrHostCPU: 3, ctrGoCPU: 4, ctrGoCalls: 5}
	for _, k := range ks {
		if strings.HasPrefix(k.counter, ctrGoCalls+": ") {
			rank[k.counter] = 6 // after the total, by name below
		}
	}
	sort.Slice(ks, func(i, j int) bool {
		ri, oki := rank[ks[i].counter]
		rj, okj := rank[ks[j].counter]
		switch {
		case ks[i].workload != ks[j].workload:
			return ks[i].workload < ks[j].workload
		case oki && okj && ri != rj:
			return ri < rj
		case oki && okj:
			return ks[i].counter < ks[j].counter
		case oki != okj:
			return oki
		}
		return ks[i].counter < ks[j].counter
	})
	return ks
}

// writeAttribution is the report's section.
func (r *report) writeAttribution(w func(string, ...any)) {
	w("\n## Where a TLS handshake's cost goes\n\n")
	if len(r.attrib) == 0 {
		w("Not measured (see the notes).\n")
		return
	}
	w("Per handshake of each handshake workload above, in the server's workers (a run of its own, the same\n")
	w("load): system calls, context switches and CPU migrations (`perf stat`), the CPU time of the\n")
	w("server's own threads and of the threads Go starts in a worker (its runtime's, and the simulator's\n")
	w("engines; each thread's schedstat), calls from C into Go (uprobes on libcptgo.so's exported\n")
	w("functions, in a run of their own: their traps slow the threads), in all and by function, and cptprov's operations\n")
	w("by algorithm and path (its statistics). Medians of the runs.\n\n")
	w("| workload | counter | without | with cptprov |\n|---|---|---:|---:|\n")
	for _, k := range r.attribKeys() {
		p := r.attrib[k]
		def := "-"
		if len(p.def) > 0 {
			def = fmt.Sprintf("%.1f", p.def.median())
		}
		w("| %s | %s | %s | %.1f |\n", k.workload, k.counter, def, p.cpt.median())
	}
}
