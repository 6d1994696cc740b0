// SPDX-License-Identifier: Apache-2.0

// Command cptstat shows what cptprov is doing in the processes that use it,
// without touching them: each process keeps its counters in a small file
// of its own in the statistics directory (stats_dir; /dev/shm/cptprov is a
// shared-memory file system), rewritten every second. cptstat lists the
// live processes, shows their counters aggregated or per process, once or
// top-style, prints them in the Prometheus text format or as JSON, or
// serves them to Prometheus on /metrics (-listen). The files of processes
// that have exited are removed.
//
//	cptstat [-dir DIR] [-pid PID] [-per-process] [-watch 1s] [-prom | -json | -listen ADDR] [-keep-dead]
//	cptstat -version
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cptprov/dispatch"
	"cptprov/internal/version"
	"cptprov/stats"
)

func main() {
	dir := flag.String("dir", envOr("CPTPROV_STATS_DIR", "/dev/shm/cptprov"), "statistics directory (the provider's stats_dir)")
	pid := flag.Int("pid", 0, "only this process")
	per := flag.Bool("per-process", false, "one table per process instead of the total")
	watch := flag.Duration("watch", 0, "refresh every interval, top-style")
	prom := flag.Bool("prom", false, "Prometheus text format")
	asJSON := flag.Bool("json", false, "JSON: the processes' documents")
	keep := flag.Bool("keep-dead", false, "leave the files of exited processes, and show their last counters")
	listen := flag.String("listen", "", "serve the Prometheus metrics on `ADDR`/metrics (host:port), read at each scrape")
	showVersion := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println("cptstat", version.String())
		return
	}
	load := func() ([]stats.Snapshot, error) {
		procs, err := Load(*dir, !*keep)
		if *pid != 0 {
			procs = filterPID(procs, *pid)
		}
		return procs, err
	}
	reg := newRegistry(load)
	if *listen != "" {
		if err := Serve(*listen, reg); err != nil {
			fmt.Fprintln(os.Stderr, "cptstat:", err)
			os.Exit(1)
		}
		return
	}
	for {
		procs, err := load()
		if err != nil {
			fmt.Fprintln(os.Stderr, "cptstat:", err)
			os.Exit(1)
		}
		if *watch > 0 {
			fmt.Print("\033[H\033[2J")
		}
		switch {
		case *prom:
			// the same collector as -listen's, so the same text
			if err := WriteProm(os.Stdout, reg); err != nil {
				fmt.Fprintln(os.Stderr, "cptstat:", err)
				os.Exit(1)
			}
		case *asJSON:
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			enc.Encode(procs)
		default:
			WriteTable(os.Stdout, procs, *per)
		}
		if *watch <= 0 {
			return
		}
		time.Sleep(*watch)
	}
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// fileName is a statistics area's file: cptprov-<pid>.stats.
var fileName = regexp.MustCompile(`^cptprov-([0-9]+)\.stats$`)

// Load reads the statistics areas in dir: of the processes still running,
// and either removes (clean) the files of those that exited or reads them
// too, marked as exited.
func Load(dir string, clean bool) ([]stats.Snapshot, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []stats.Snapshot
	for _, e := range ents {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		path := filepath.Join(dir, e.Name())
		b, err := stats.MapFile(path)
		if err != nil {
			continue // being created, or gone: next time
		}
		exited := !alive(pid, stats.StartTime(b))
		if exited && clean {
			syscall.Munmap(b)
			os.Remove(path)
			continue
		}
		s, err := stats.ReadArea(b, dispatch.AlgName)
		syscall.Munmap(b)
		if err != nil || s.PID != pid {
			continue
		}
		s.Exited = exited
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, nil
}

// alive: the process runs, and is the one that made the area (started at
// start, in clock ticks since boot; 0: unknown) rather than a later process
// that was given the same pid. A zombie has exited: its counters are final
// even before its parent reaps it.
func alive(pid int, start uint64) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	state, started := procStat(pid)
	if state == 'Z' || state == 'X' {
		return false
	}
	return start == 0 || started == start
}

// procStartTime is field 22 of /proc/<pid>/stat (0 if unreadable).
func procStartTime(pid int) uint64 {
	_, start := procStat(pid)
	return start
}

// procStat returns the state (field 3) and the start time (field 22) of
// /proc/<pid>/stat (0 and 0 if unreadable).
func procStat(pid int) (state byte, start uint64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return f[0][0], v
}

func filterPID(procs []stats.Snapshot, pid int) []stats.Snapshot {
	for _, p := range procs {
		if p.PID == pid {
			return []stats.Snapshot{p}
		}
	}
	return nil
}

// Total adds the processes' documents into one (pid 0).
func Total(procs []stats.Snapshot) stats.Snapshot {
	t := stats.Snapshot{Algorithms: map[string]stats.AlgSnapshot{}, Device: map[string]uint64{}, LatencyUS: map[string][]uint64{}}
	for _, p := range procs {
		t.Backend = p.Backend
		for name, a := range p.Algorithms {
			s := t.Algorithms[name]
			s.Ops += a.Ops
			s.Bytes += a.Bytes
			s.Device += a.Device
			s.Software += a.Software
			s.Errors += a.Errors
			t.Algorithms[name] = s
		}
		for k, v := range p.Device {
			if strings.HasSuffix(k, "_max") || strings.HasSuffix(k, "_open") {
				t.Device[k] = max(t.Device[k], v)
			} else {
				t.Device[k] += v
			}
		}
		for q, h := range p.LatencyUS {
			sum := t.LatencyUS[q]
			if len(sum) < len(h) {
				sum = append(sum, make([]uint64, len(h)-len(sum))...)
			}
			for i, v := range h {
				sum[i] += v
			}
			t.LatencyUS[q] = sum
		}
	}
	return t
}

// The device counters a table shows, in this order.
// tableDevice is what the table shows of the device counters, a line per
// engine group (the symmetric group's counters have no prefix) and one for
// the driver: label and counter.
var tableDevice = [][][2]string{
	{{"se: submitted", "submitted"}, {"completed", "completed"}, {"in flight", "in_flight"},
		{"at most", "in_flight_max"}, {"inline", "assisted"}, {"ring full", "queue_full"}, {"timeouts", "timeouts"}},
	{{"ae: submitted", "ae_submitted"}, {"completed", "ae_completed"}, {"in flight", "ae_in_flight"},
		{"inline", "ae_assisted"}, {"timeouts", "ae_timeouts"}},
	{{"device failures", "device_failures"}, {"retries", "retries"}, {"fallbacks", "fallbacks"},
		{"circuit opens", "circuit_opens"}, {"faults", "faults"}},
}

// WriteTable prints the total (or each process) as a table.
func WriteTable(w io.Writer, procs []stats.Snapshot, perProcess bool) {
	pids := make([]string, len(procs))
	for i, p := range procs {
		pids[i] = strconv.Itoa(p.PID)
	}
	fmt.Fprintf(w, "cptprov: %d processes %s\n", len(procs), strings.Join(pids, " "))
	docs := []stats.Snapshot{Total(procs)}
	if perProcess {
		docs = procs
	}
	for _, d := range docs {
		if perProcess {
			state := d.Time
			if d.Exited {
				state = "exited"
			}
			fmt.Fprintf(w, "\npid %d (%s, %s)\n", d.PID, d.Backend, state)
		}
		fmt.Fprintf(w, "\n%-22s %12s %14s %12s %12s %8s\n", "algorithm", "ops", "bytes", "device", "software", "errors")
		for _, name := range sortedKeys(d.Algorithms) {
			a := d.Algorithms[name]
			fmt.Fprintf(w, "%-22s %12d %14d %12d %12d %8d\n", name, a.Ops, a.Bytes, a.Device, a.Software, a.Errors)
		}
		fmt.Fprintln(w)
		for _, line := range tableDevice {
			for i, c := range line {
				if i > 0 {
					fmt.Fprint(w, "  ")
				}
				fmt.Fprintf(w, "%s %d", c[0], d.Device[c[1]])
			}
			fmt.Fprintln(w)
		}
		for _, q := range sortedKeys(d.LatencyUS) {
			fmt.Fprintf(w, "%s latency (sampled): %s\n", q, quantiles(d.LatencyUS[q]))
		}
	}
}

// quantiles summarises a latency histogram: median and 99th percentile, as
// the upper bounds of their buckets.
func quantiles(h []uint64) string {
	var n uint64
	for _, v := range h {
		n += v
	}
	if n == 0 {
		return "no samples"
	}
	at := func(q float64) string {
		var c uint64
		for i, v := range h {
			c += v
			if float64(c) >= q*float64(n) {
				if i == len(h)-1 {
					return fmt.Sprintf(">%dµs", 1<<(i-1))
				}
				return fmt.Sprintf("<%dµs", 1<<i)
			}
		}
		return "?"
	}
	return fmt.Sprintf("%d samples, p50 %s, p99 %s", n, at(0.5), at(0.99))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
