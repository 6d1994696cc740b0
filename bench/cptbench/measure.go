// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"cptprov/internal/version"
)

// The two sides of every comparison.
const (
	dflt = "default"
	cpt  = "cptprov"
)

// bench runs the measurements and remembers every command it ran.
type bench struct {
	cfg       config
	root, out string
	mu        sync.Mutex // cmds and seen: servers measured side by side run commands at once
	cmds      []string
	seen      map[string]bool
}

// Keys of the measured points.
type (
	pkKey struct {
		alg, op     string // op: sign, verify, derive
		jobs, procs int    // jobs 0: synchronous; procs 0: one process without -multi
	}
	symKey struct {
		alg         string
		size, procs int
	}
	opsKey struct {
		alg, prov string
		jobs      int
	}
)

// pair is one point measured through both providers.
type pair struct{ def, cpt point }

// opsPoint is what bench_ops reports for a configuration: its rate, the
// calling thread's CPU per operation and the whole process's (procUs,
// absent from reports before 2026-12-04).
type opsPoint struct{ rate, cpuUs, procUs point }

// split is where a sampled operation spent its time, in µs per operation,
// summed over the processes of one run that timed some of their requests:
// procs of them, whose queue completed requests, samples of them timed.
type split struct {
	name                         string
	procs                        int
	requests, samples            uint64
	submit, wait, engine, notify float64
}

// report is everything measured, ready to be written.
type report struct {
	cfg    config
	env    [][2]string
	cmds   []string
	pk     map[pkKey]*pair
	sym    map[symKey]*pair
	dpdk   map[dpdkKey]*pair
	ops    map[opsKey]*opsPoint
	srv    map[serverKey]*pair
	attrib map[attribKey]*pair
	split  []split
	notes  []string
}

// failedNote follows a step's name in the note a failed step leaves, which
// checkReport looks for.
const failedNote = ": failed, its figures are incomplete: "

// A step of the measurements: key (for -steps), name, and what it fills.
type step struct {
	key, name string
	fn        func(*report) error
	clear     func(*report) // forgets the step's figures, before measuring again
}

func (b *bench) steps() []step {
	return []step{
		{"pk", "public key, synchronous and asynchronous", b.publicKey, func(r *report) { deleteKeys(r.pk, func(k pkKey) bool { return k.procs == 0 }) }},
		{"procs", "public key, processes", b.processes, func(r *report) { deleteKeys(r.pk, func(k pkKey) bool { return k.procs > 0 }) }},
		{"sym", "ciphers and digests against block size", b.symmetric, func(r *report) { deleteKeys(r.sym, func(k symKey) bool { return k.procs == 0 }) }},
		{"gcm", "AES-256-GCM against processes", b.gcmProcesses, func(r *report) { deleteKeys(r.sym, func(k symKey) bool { return k.procs > 0 }) }},
		{"cpu", "calling thread's CPU per operation", b.threadCPU, func(r *report) { r.ops = map[opsKey]*opsPoint{} }},
		{"split", "time split", b.timeSplit, func(r *report) { r.split = nil }},
		{"servers", "TLS servers", b.servers, func(r *report) { r.srv = map[serverKey]*pair{} }},
		{"attrib", "attribution", b.attribution, func(r *report) { r.attrib = map[attribKey]*pair{} }},
		{"dpdk", "the dpdk backend", b.dpdk, func(r *report) { r.dpdk = map[dpdkKey]*pair{} }},
	}
}

func deleteKeys[K comparable, V any](m map[K]V, del func(K) bool) {
	for k := range m {
		if del(k) {
			delete(m, k)
		}
	}
}

// measure runs every step into a new report, or with only (step keys)
// those steps into prev, replacing their figures.
func (b *bench) measure(prev *report, only map[string]bool) (*report, error) {
	b.seen = map[string]bool{}
	r := prev
	if r == nil {
		r = &report{cfg: b.cfg, pk: map[pkKey]*pair{}, sym: map[symKey]*pair{}, ops: map[opsKey]*opsPoint{}, srv: map[serverKey]*pair{}, attrib: map[attribKey]*pair{}, dpdk: map[dpdkKey]*pair{}}
	} else {
		b.cfg = r.cfg
		b.cfg.root, b.cfg.out = b.root, b.out
		b.seen = map[string]bool{}
		for _, c := range r.cmds {
			b.seen[c] = true
			b.cmds = append(b.cmds, c)
		}
	}
	r.env = environment()
	var steps []step
	for _, s := range b.steps() {
		if only == nil || only[s.key] {
			if prev != nil {
				s.clear(r)
				var kept []string
				for _, n := range r.notes {
					if !strings.HasPrefix(n, s.name+":") {
						kept = append(kept, n)
					}
				}
				r.notes = kept
			}
			steps = append(steps, s)
		}
	}
	for _, s := range steps {
		t0 := time.Now()
		fmt.Fprintf(os.Stderr, "cptbench: %s...\n", s.name)
		// A step that fails is reported, not fatal: the others' figures
		// still make a report, which says what is missing and why.
		if err := s.fn(r); err != nil {
			fmt.Fprintf(os.Stderr, "cptbench: %s failed: %v\n", s.name, err)
			r.notes = append(r.notes, s.name+failedNote+err.Error())
			continue
		}
		fmt.Fprintf(os.Stderr, "cptbench: %s done in %.0f s\n", s.name, time.Since(t0).Seconds())
	}
	r.cmds = b.cmds
	return r, nil
}

// run executes a command with a time limit and returns its output.
func (b *bench) run(env []string, name string, args ...string) (string, error) {
	shown := strings.Join(append([]string{name}, args...), " ")
	shown = strings.ReplaceAll(shown, b.cfg.root+"/", "")
	if len(env) > 0 {
		shown = strings.Join(env, " ") + " " + shown
	}
	b.mu.Lock()
	if !b.seen[shown] {
		b.seen[shown] = true
		b.cmds = append(b.cmds, shown)
	}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.cfg.root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = strings.TrimSpace(string(ee.Stderr))
		}
		return string(out), fmt.Errorf("%s: %w: %s", shown, err, stderr)
	}
	return string(out), nil
}

// speed runs openssl speed through one provider.
func (b *bench) speed(prov string, args ...string) (speedResult, error) {
	a := []string{"speed"}
	if prov == cpt {
		a = append(a, "-provider-path", filepath.Join(b.cfg.root, "build"), "-provider", "cptprov",
			"-provider", "default", "-propquery", "provider=cptprov")
	}
	a = append(a, "-mr", "-elapsed", "-seconds", strconv.Itoa(b.cfg.seconds))
	out, err := b.run(nil, "openssl", append(a, args...)...)
	if err != nil {
		return speedResult{}, err
	}
	return parseSpeed(out)
}

// both runs the same speed arguments through both providers, alternating,
// cfg.runs times, and hands each result to add.
func (b *bench) both(args []string, add func(prov string, r speedResult)) error {
	return b.alternate(args, args, add)
}

// alternate is both with the default provider's arguments apart.
func (b *bench) alternate(dargs, cargs []string, add func(prov string, r speedResult)) error {
	for i := 0; i < b.cfg.runs; i++ {
		for _, prov := range []string{dflt, cpt} {
			args := cargs
			if prov == dflt {
				args = dargs
			}
			r, err := b.speed(prov, args...)
			if err != nil {
				return err
			}
			add(prov, r)
		}
	}
	return nil
}

func (p *pair) add(prov string, v float64) {
	if prov == dflt {
		p.def = append(p.def, v)
	} else {
		p.cpt = append(p.cpt, v)
	}
}

func getPair[K comparable](m map[K]*pair, k K) *pair {
	p := m[k]
	if p == nil {
		p = &pair{}
		m[k] = p
	}
	return p
}

func (b *bench) addPK(r *report, alg string, jobs, procs int) func(string, speedResult) {
	return func(prov string, s speedResult) {
		v, ok := s.pk[alg]
		if !ok {
			return
		}
		if strings.HasPrefix(alg, "ecdh") {
			getPair(r.pk, pkKey{alg, "derive", jobs, procs}).add(prov, v[0])
			return
		}
		getPair(r.pk, pkKey{alg, "sign", jobs, procs}).add(prov, v[0])
		getPair(r.pk, pkKey{alg, "verify", jobs, procs}).add(prov, v[1])
	}
}

func (b *bench) publicKey(r *report) error {
	for _, alg := range b.cfg.pkAlgs {
		for _, jobs := range append([]int{0}, b.cfg.jobs...) {
			// Against the default provider's synchronous rate (issue 20),
			// measured alternately with each asynchronous run: a rate taken
			// minutes apart moves with this machine's load by more than the
			// targets' margins. Its rate in jobs that never pause is lower
			// still by the fiber switches, which are not what is compared.
			args := []string{alg}
			if jobs > 0 {
				args = []string{"-async_jobs", strconv.Itoa(jobs), alg}
			}
			if err := b.alternate([]string{alg}, args, b.addPK(r, alg, jobs, 0)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *bench) processes(r *report) error {
	for _, alg := range b.cfg.pkAlgs {
		for _, p := range b.cfg.procs {
			if err := b.both([]string{"-multi", strconv.Itoa(p), alg}, b.addPK(r, alg, 0, p)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *bench) addSym(r *report, procs int) func(string, speedResult) {
	return func(prov string, s speedResult) {
		for name, bySize := range s.sym {
			for size, v := range bySize {
				getPair(r.sym, symKey{strings.ToLower(name), size, procs}).add(prov, v)
			}
		}
	}
}

func (b *bench) symmetric(r *report) error {
	// openssl speed's own list of sizes in one run, the others one by one.
	own := map[int]bool{16: true, 64: true, 256: true, 1024: true, 8192: true, 16384: true}
	all := true
	for _, s := range b.cfg.sizes {
		all = all && own[s]
	}
	for _, alg := range append(append([]string(nil), b.cfg.ciphers...), b.cfg.digests...) {
		var runs [][]string
		if !b.cfg.quick && len(b.cfg.sizes) > 1 {
			runs = append(runs, []string{"-evp", alg})
		}
		for _, s := range b.cfg.sizes {
			if b.cfg.quick || !own[s] || all && len(runs) == 0 {
				runs = append(runs, []string{"-bytes", strconv.Itoa(s), "-evp", alg})
			}
		}
		for _, args := range runs {
			if err := b.both(args, b.addSym(r, 0)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *bench) gcmProcesses(r *report) error {
	for _, p := range b.cfg.procs {
		args := []string{"-multi", strconv.Itoa(p), "-bytes", "16384", "-evp", "aes-256-gcm"}
		if err := b.both(args, b.addSym(r, p)); err != nil {
			return err
		}
	}
	return nil
}

// benchOps runs build/bench_ops and returns its key=value line.
func (b *bench) benchOps(prov, alg string, jobs int, extra ...string) (map[string]string, error) {
	args := append([]string{"--provider", prov, "--provider-path", filepath.Join(b.cfg.root, "build"),
		"--alg", alg, "--jobs", strconv.Itoa(jobs), "--seconds", strconv.Itoa(b.cfg.seconds)}, extra...)
	out, err := b.run(nil, filepath.Join(b.cfg.root, "build", "bench_ops"), args...)
	if err != nil {
		return nil, err
	}
	kv := map[string]string{}
	for _, f := range strings.Fields(out) {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		}
	}
	if kv["ops_per_s"] == "" || kv["cpu_us_per_op"] == "" {
		return nil, fmt.Errorf("bench_ops printed %q", out)
	}
	return kv, nil
}

// threadCPU: the default provider synchronously, cptprov synchronously and
// in 16 ASYNC jobs.
func (b *bench) threadCPU(r *report) error {
	type cfg struct {
		prov string
		jobs int
	}
	for _, alg := range b.cfg.opsAlgs {
		for i := 0; i < b.cfg.runs; i++ {
			for _, c := range []cfg{{dflt, 0}, {cpt, 0}, {cpt, 16}} {
				kv, err := b.benchOps(c.prov, alg, c.jobs)
				if err != nil {
					return err
				}
				k := opsKey{alg, c.prov, c.jobs}
				p := r.ops[k]
				if p == nil {
					p = &opsPoint{}
					r.ops[k] = p
				}
				rate, _ := strconv.ParseFloat(kv["ops_per_s"], 64)
				cpu, _ := strconv.ParseFloat(kv["cpu_us_per_op"], 64)
				proc, _ := strconv.ParseFloat(kv["proc_cpu_us_per_op"], 64)
				p.rate = append(p.rate, rate)
				p.cpuUs = append(p.cpuUs, cpu)
				p.procUs = append(p.procUs, proc)
			}
		}
	}
	return nil
}

// opensslConf loads cptprov, with a stats_dir unless statsDir is empty,
// and prefers it; keys are more lines of its section. (An empty stats_dir
// is a bad value: cptprov refuses to activate, and OpenSSL goes on
// without it.)
func opensslConf(root, statsDir string, keys ...string) string {
	return moduleConf(filepath.Join(root, "build", "cptprov.so"), statsDir, keys...)
}

// moduleConf is opensslConf for the cptprov.so at module.
func moduleConf(module, statsDir string, keys ...string) string {
	if statsDir != "" {
		keys = append([]string{"stats_dir = " + statsDir}, keys...)
	}
	return fmt.Sprintf(`openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
alg_section = algorithm_sect
[provider_sect]
default = default_sect
cptprov = cptprov_sect
[default_sect]
activate = 1
[cptprov_sect]
module = %s
activate = 1
%s[algorithm_sect]
default_properties = ?provider=cptprov
`, module, strings.Join(append(keys, ""), "\n"))
}

// environment describes the machine and the software measured.
func environment() [][2]string {
	cpu := "unknown"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	ver, _ := exec.Command("openssl", "version").Output()
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	host, _ := os.Hostname()
	env := [][2]string{
		{"date", time.Now().UTC().Format("2006-01-02 15:04 UTC")},
		{"host", host},
		{"CPU", cpu},
		{"logical CPUs", strconv.Itoa(runtime.NumCPU())},
		{"OpenSSL", strings.TrimSpace(string(ver))},
		{"Go", runtime.Version()},
		{"cptprov version", version.String()},
		{"cptprov commit", strings.TrimSpace(string(commit))},
	}
	return env
}
