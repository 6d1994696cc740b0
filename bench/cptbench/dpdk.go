// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// dpdkKey is a point of the dpdk backend's step: AES-256-GCM of size bytes
// an operation, synchronous (jobs 0) or in ASYNC jobs.
// dpdkKey is a point of the dpdk step: a size and the ASYNC jobs, or
// deviceAlone: the device through the shim without the provider.
type dpdkKey struct{ size, jobs int }

const deviceAlone = -1

// The dpdk backend's devices in the bench: AES-GCM on crypto_aesni_gcm.
const dpdkDevices = "crypto_aesni_gcm0"

// dpdkConf writes the openssl.cnf of the dpdk runs: cptprov for every
// fetch and every size (no CPU path), on DPDK's software AES-GCM device.
func (b *bench) dpdkConf() (string, error) {
	shim := filepath.Join(b.cfg.root, "build", "libcptdpdk.so")
	if _, err := os.Stat(shim); err != nil {
		return "", fmt.Errorf("the dpdk backend is not built (%v)", err)
	}
	stats := filepath.Join(b.out, "dpdk-stats")
	if err := os.MkdirAll(stats, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(b.out, "dpdk-openssl.cnf")
	conf := opensslConf(b.cfg.root, stats, "backend = dpdk", "dpdk_devices = "+dpdkDevices, "cpu_threshold = 0")
	return path, os.WriteFile(path, []byte(conf), 0o644)
}

// dpdk measures AES-256-GCM through the dpdk backend against the default
// provider, alternated: TLS-record-sized operations synchronous and in
// ASYNC jobs, and 64-byte ones, whose time is the path's own cost.
func (b *bench) dpdk(r *report) error {
	conf, err := b.dpdkConf()
	if err != nil {
		return err
	}
	points := []dpdkKey{{16384, 0}, {16384, 8}, {64, 0}}
	if b.cfg.quick {
		points = points[:1]
	}
	for _, k := range points {
		args := []string{"-mr", "-elapsed", "-seconds", strconv.Itoa(b.cfg.seconds), "-bytes", strconv.Itoa(k.size)}
		if k.jobs > 0 {
			args = append(args, "-async_jobs", strconv.Itoa(k.jobs))
		}
		args = append(args, "-evp", "aes-256-gcm")
		for i := 0; i < b.cfg.runs; i++ {
			for _, prov := range []string{dflt, cpt} {
				env := []string{"OPENSSL_CONF=/dev/null"}
				if prov == cpt {
					env = []string{"OPENSSL_CONF=" + conf}
				}
				out, err := b.run(env, "openssl", append([]string{"speed"}, args...)...)
				if err != nil {
					return err
				}
				s, err := parseSpeed(out)
				if err != nil {
					return err
				}
				var v float64
				ok := false
				for name, sizes := range s.sym {
					if strings.EqualFold(name, "aes-256-gcm") {
						v, ok = sizes[k.size]
					}
				}
				if !ok {
					return fmt.Errorf("no AES-256-GCM figure at %d bytes", k.size)
				}
				getPair(r.dpdk, k).add(prov, v)
				if k.jobs == 0 && prov == dflt {
					getPair(r.dpdk, dpdkKey{k.size, deviceAlone}).add(dflt, v)
				}
			}
			if k.jobs == 0 {
				// The ceiling: the device through the shim alone, in
				// the same round.
				v, err := b.dpdkDevice(k.size)
				if err != nil {
					return err
				}
				getPair(r.dpdk, dpdkKey{k.size, deviceAlone}).add(cpt, v)
			}
		}
	}
	return nil
}

// dpdkDevice is the device's own rate in bytes/s at size (bench_dpdkdev).
func (b *bench) dpdkDevice(size int) (float64, error) {
	out, err := b.run(nil, filepath.Join(b.cfg.root, "build", "bench_dpdkdev"), "--device", dpdkDevices,
		"--bytes", strconv.Itoa(size), "--seconds", strconv.Itoa(b.cfg.seconds))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(out)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "MBps" {
			v, err := strconv.ParseFloat(f[i+1], 64)
			return v * 1e6, err
		}
	}
	return 0, fmt.Errorf("bench_dpdkdev: no figure in %q", out)
}

func (r *report) dpdkKeys() []dpdkKey {
	var ks []dpdkKey
	for k := range r.dpdk {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].size != ks[j].size {
			return ks[i].size > ks[j].size
		}
		return ks[i].jobs < ks[j].jobs
	})
	return ks
}

// writeDPDK is the report's section of the dpdk backend.
func (r *report) writeDPDK(w func(string, ...any)) {
	w("\n## The dpdk backend\n\n")
	w("cptprov with `backend = dpdk` on DPDK's software AES-GCM device (`%s`, IPSec-MB; no\n", dpdkDevices)
	w("hugepages), `cpu_threshold = 0`, against the default provider, alternated, `openssl speed\n")
	w("-elapsed -bytes N [-async_jobs J] -evp aes-256-gcm`. Each request is copied into an mbuf and\n")
	w("back; in ASYNC jobs the backend's lanes do the device's work on the other CPU. µs/op is the\n")
	w("whole operation's time in cptprov: at 64 bytes, what the path itself costs (submit to completion).\n")
	w("The device alone is the same device driven through cptprov's shim by a C loop, one request at a time,\n")
	w("copies into and out of mbufs included, without the provider: the ceiling of what cptprov can do\n")
	w("with it, against the default provider measured in the same rounds.\n\n")
	w("| bytes | mode | default MB/s | cptprov (dpdk) MB/s | ratio | cptprov µs/op | spread |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, k := range r.dpdkKeys() {
		p := r.dpdk[k]
		mode := "sync"
		switch {
		case k.jobs == deviceAlone:
			mode = "the device alone (bench_dpdkdev)"
		case k.jobs > 0:
			mode = fmt.Sprintf("async %d", k.jobs)
		}
		us := 0.0
		if m := p.cpt.median(); m > 0 {
			us = 1e6 * float64(k.size) / m
		}
		w("| %d | %s | %.0f | %.0f | %s | %.2f | ±%.0f%% |\n", k.size, mode, p.def.median()/1e6, p.cpt.median()/1e6,
			fmtRatio(ratio(p.cpt, p.def)), us, 100*p.cpt.spread())
	}
}

type savedDPDK struct {
	Size, Jobs int
	Def, Cpt   []float64
}
