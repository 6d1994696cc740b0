// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"cptprov/stats"
)

// timeSplit runs sampled operations through cptprov, each run with a
// statistics directory of its own, and reads the phases the driver timed
// (one request in 64) from the statistics areas its processes left there:
// the signatures in build/bench_ops (--stats-dir), AES-256-GCM in openssl
// speed under an openssl.cnf with a stats_dir, in one process and with
// -multi 2, whose children keep an area each. AES-GCM's 16 KiB updates
// would run on the CPU path, which the driver does not see: its threshold
// is 0 here.
func (b *bench) timeSplit(r *report) error {
	dir, err := os.MkdirTemp("", "cptbench-stats")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	runs := 0
	statsDir := func() (string, error) {
		runs++
		sub := filepath.Join(dir, strconv.Itoa(runs))
		return sub, os.MkdirAll(sub, 0o755)
	}
	for _, alg := range b.cfg.opsAlgs {
		for _, jobs := range []int{0, 16} {
			sub, err := statsDir()
			if err != nil {
				return err
			}
			if _, err := b.benchOps(cpt, alg, jobs, "--stats-dir", sub); err != nil {
				return err
			}
			s, err := readSplit(sub, "ae", 1, splitName(alg, jobs))
			if err != nil {
				return err
			}
			r.split = append(r.split, s)
		}
	}
	for _, procs := range []int{1, 2} {
		sub, err := statsDir()
		if err != nil {
			return err
		}
		conf := filepath.Join(dir, fmt.Sprintf("openssl-%d.cnf", runs))
		if err := os.WriteFile(conf, []byte(opensslConf(b.cfg.root, sub, gcmDevice)), 0o644); err != nil {
			return err
		}
		args := []string{"speed", "-elapsed", "-seconds", strconv.Itoa(b.cfg.seconds), "-bytes", "16384"}
		name := "AES-256-GCM 16 KiB update on the device (" + gcmDevice + "), synchronous"
		if procs > 1 {
			args = append(args, "-multi", strconv.Itoa(procs))
			name += fmt.Sprintf(", %d processes (-multi %d)", procs, procs)
		}
		if _, err := b.run([]string{"OPENSSL_CONF=" + conf}, "openssl", append(args, "-evp", "aes-256-gcm")...); err != nil {
			return err
		}
		s, err := readSplit(sub, "se", procs, name)
		if err != nil {
			return err
		}
		r.split = append(r.split, s)
	}
	return nil
}

// splitName names the phases of alg's operations run in jobs ASYNC jobs
// (0: synchronously).
func splitName(alg string, jobs int) string {
	mode := "synchronous"
	if jobs > 0 {
		mode = fmt.Sprintf("%d ASYNC jobs", jobs)
	}
	return fmt.Sprintf("%s %s, %s", alg, pkOp(alg), mode)
}

// gcmDevice puts every AES-GCM update on the device.
const gcmDevice = "cpu_threshold_aes_gcm = 0"

// completedKey is the device counter of queue q's completed requests.
var completedKey = map[string]string{"se": "completed", "ae": "ae_completed"}

// readSplit sums the phases of queue q ("se" or "ae") over the statistics
// areas in dir, which must be those of procs processes that each timed
// some of their requests.
func readSplit(dir, q string, procs int, name string) (split, error) {
	files, err := filepath.Glob(filepath.Join(dir, "cptprov-*.stats"))
	if err != nil {
		return split{}, err
	}
	s := split{name: name}
	var ns [4]uint64
	for _, f := range files {
		m, err := stats.MapFile(f)
		if err != nil {
			return s, fmt.Errorf("%s: %w", f, err)
		}
		// Only the device counters: the CPU path's need no names here.
		a, err := stats.ReadArea(m, func(int) string { return "" })
		syscall.Munmap(m)
		if err != nil {
			return s, fmt.Errorf("%s: %w", f, err)
		}
		d := a.Device
		if d[q+"_phase_samples"] == 0 {
			continue // a process that did no device request, as -multi's parent
		}
		s.procs++
		s.samples += d[q+"_phase_samples"]
		s.requests += d[completedKey[q]]
		for i, ph := range []string{"submit", "wait", "engine", "notify"} {
			ns[i] += d[q+"_"+ph+"_ns"]
		}
	}
	if s.procs != procs {
		return s, fmt.Errorf("%s: %d processes timed %s requests (statistics areas in %s: %d), want %d",
			name, s.procs, q, dir, len(files), procs)
	}
	us := func(v uint64) float64 { return float64(v) / float64(s.samples) / 1000 }
	s.submit, s.wait, s.engine, s.notify = us(ns[0]), us(ns[1]), us(ns[2]), us(ns[3])
	return s, nil
}
