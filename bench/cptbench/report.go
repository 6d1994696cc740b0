// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The issues' performance targets the report checks.
type target struct {
	what   string
	want   float64 // the ratio must be at least this
	atMost bool    // or, for a cost, at most this
	got    float64
	why    string // when missed
	where  string
}

func (r *report) write(dir string) error {
	if err := r.save(dir); err != nil {
		return err
	}
	charts, err := r.charts(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# cptprov against OpenSSL's default provider\n\n")
	w("Measured by `cptbench` (`make bench`%s): every point runs through both providers in the same\n", map[bool]string{true: ", quick mode", false: ""}[r.cfg.quick])
	w("run, alternating, %d time(s); tables show the median and the spread (half the range, relative\n", r.cfg.runs)
	w("to the median) of cptprov's runs. Ratios are cptprov / default: above 1, cptprov is faster.\n\n")
	w("| | |\n|---|---|\n")
	for _, e := range r.env {
		w("| %s | %s |\n", e[0], e[1])
	}
	w("\n## Headline\n\n")
	r.headline(w)
	w("\n## Targets\n\n| target | wanted | measured | |\n|---|---:|---:|---|\n")
	for _, t := range r.targets() {
		verdict := "met"
		if math.IsNaN(t.got) {
			verdict = "not measured in this run"
		} else if t.got < t.want && !t.atMost || t.got > t.want && t.atMost {
			verdict = "missed: " + t.why
		}
		w("| %s | %s | %s | %s |\n", t.what, fmtRatio(t.want), fmtRatio(t.got), verdict)
	}
	w("\n## Public key: operations per second\n\n")
	w("Synchronous (one process, `openssl speed -elapsed ALG`) and cptprov with `-async_jobs N` (one\n")
	w("process) against the default provider synchronously, run alternately with it.\n\n")
	w("| algorithm | operation | mode | default ops/s | cptprov ops/s | ratio | spread |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, k := range r.pkKeys(func(k pkKey) bool { return k.procs == 0 }) {
		p := r.pk[k]
		mode := "sync"
		if k.jobs > 0 {
			mode = fmt.Sprintf("async %d", k.jobs)
		}
		w("| %s | %s | %s | %.0f | %.0f | %s | ±%.0f%% |\n", k.alg, k.op, mode, p.def.median(), p.cpt.median(), fmtRatio(ratio(p.cpt, p.def)), 100*p.cpt.spread())
	}
	w("\nAgainst the number of processes (`openssl speed -multi P`, synchronous):\n\n")
	w("| algorithm | operation | processes | default ops/s | cptprov ops/s | ratio | spread |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, k := range r.pkKeys(func(k pkKey) bool { return k.procs > 0 }) {
		p := r.pk[k]
		w("| %s | %s | %d | %.0f | %.0f | %s | ±%.0f%% |\n", k.alg, k.op, k.procs, p.def.median(), p.cpt.median(), fmtRatio(ratio(p.cpt, p.def)), 100*p.cpt.spread())
	}
	w("\n## Ciphers and digests: MB/s against block size\n\n")
	w("`openssl speed -elapsed -evp ALG` (one process, synchronous; each operation of a digest is a\n")
	w("whole message, of a cipher one update of a long stream).\n\n")
	w("| algorithm | bytes | default MB/s | cptprov MB/s | ratio | spread |\n|---|---:|---:|---:|---:|---:|\n")
	for _, k := range r.symKeys(func(k symKey) bool { return k.procs == 0 }) {
		p := r.sym[k]
		w("| %s | %d | %.0f | %.0f | %s | ±%.0f%% |\n", title(k.alg), k.size, p.def.median()/1e6, p.cpt.median()/1e6, fmtRatio(ratio(p.cpt, p.def)), 100*p.cpt.spread())
	}
	w("\nAES-256-GCM at 16 KiB against the number of processes (`-multi P`):\n\n")
	w("| processes | default MB/s | cptprov MB/s | ratio | spread |\n|---:|---:|---:|---:|---:|\n")
	for _, k := range r.symKeys(func(k symKey) bool { return k.procs > 0 }) {
		p := r.sym[k]
		w("| %d | %.0f | %.0f | %s | ±%.0f%% |\n", k.procs, p.def.median()/1e6, p.cpt.median()/1e6, fmtRatio(ratio(p.cpt, p.def)), 100*p.cpt.spread())
	}
	w("\n## The calling thread's CPU per operation\n\n")
	w("`build/bench_ops`: signatures through EVP for %d s, the calling thread's CPU time\n", r.cfg.seconds)
	w("(`CLOCK_THREAD_CPUTIME_ID`) over the operations done. In ASYNC jobs cptprov's thread submits,\n")
	w("pauses and sleeps in `poll()` while the engines work: what it saves is CPU the application keeps.\n")
	w("When the simulator's engines are behind, it executes its own EC instruction instead, and the job\n")
	w("goes on without pausing (a modular exponentiation it leaves to them). Process CPU is the whole process's\n")
	w("(`CLOCK_PROCESS_CPUTIME_ID`: the thread, the engines, the Go runtime) over the same operations.\n\n")
	w("| algorithm | provider | mode | ops/s | thread CPU µs/op | spread | process CPU µs/op |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, k := range r.opsKeys() {
		p := r.ops[k]
		mode := "sync"
		if k.jobs > 0 {
			mode = fmt.Sprintf("async %d", k.jobs)
		}
		proc := "-"
		if len(p.procUs) > 0 {
			proc = fmt.Sprintf("%.1f", p.procUs.median())
		}
		w("| %s | %s | %s | %.0f | %.1f | ±%.0f%% | %s |\n", k.alg, k.prov, mode, p.rate.median(), p.cpuUs.median(), 100*p.cpuUs.spread(), proc)
	}
	w("\n## Where an operation's time goes\n\n")
	w("The driver times one request in 64 (cptdrv.Phases): the driver's submission (the instruction\n")
	w("and its result slot into the ring; operands stay where they are, the engines read and write them\n")
	w("in place, so there is no other data copy), the wait in the queue until an engine starts, the\n")
	w("engine's work, and the completion reaching the submitter (a synchronous waiter awake, or an ASYNC\n")
	w("job's callback done, eventfd written). Each operation is a run of its own through cptprov with a\n")
	w("statistics directory of its own (`build/bench_ops --stats-dir` for the signatures, `openssl speed`\n")
	w("under an openssl.cnf with a `stats_dir` for AES-256-GCM, whose 16 KiB updates it puts on the device\n")
	w("rather than its CPU path, which the driver does not time; see the commands): the figures are read\n")
	w("from the statistics areas its processes left there (`cptprov-<pid>.stats`, as `cptstat` reads\n")
	w("them), summed over those processes, out of the queue's requests they completed. In µs per\n")
	w("operation:\n\n")
	w("| operation | processes | requests | samples | submit | queue wait | engine | completion | engine share |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, s := range r.split {
		tot := s.submit + s.wait + s.engine + s.notify
		procs, reqs := "n/a", "n/a" // a report from before they were counted
		if s.procs > 0 {
			procs, reqs = strconv.Itoa(s.procs), strconv.FormatUint(s.requests, 10)
		}
		w("| (%d) %s | %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.0f%% |\n", i+1, s.name, procs, reqs, s.samples, s.submit, s.wait, s.engine, s.notify, 100*s.engine/tot)
	}
	w("\n## TLS servers\n\n")
	if len(r.srv) == 0 {
		w("Not measured (see the notes).\n")
	} else {
		w("Debian's nginx (two workers) and haproxy (master-worker, `nbthread 2`, `ssl-mode-async`, in front of a\n")
		w("plain nginx) with cptprov enabled by `OPENSSL_CONF` against the same server without it, each point\n")
		runs := 0
		for _, p := range r.srv {
			runs = max(runs, len(p.def))
		}
		w("on a freshly started server after a warm-up, the two sides alternated, %d runs each (medians). Handshakes: `h2load --h1 -c 32`\n", runs)
		w("with `Connection: close`, every request a new TLS connection (no resumption), on the group named;\n")
		w("bulk: 1 MiB downloads over 4 keep-alive connections. Server CPU is the user and system time of the\n")
		w("server's processes (master and workers, all their threads) from /proc over the measured run, per\n")
		w("handshake or MiB. The clients run on the same machine. Ratios are with / without: above 1 is faster\n")
		w("for rates, costlier for CPU.\n\n")
		w("| workload | measure | without | with cptprov | ratio | spread |\n|---|---|---:|---:|---:|---:|\n")
		for _, k := range r.srvKeys() {
			p := r.srv[k]
			q, sp := r.srvRatio(k)
			w("| %s | %s | %.0f | %.0f | %s | ±%.0f%% |\n", k.server, k.what, p.def.median(), p.cpt.median(), fmtRatio(q), 100*sp)
		}
		if r.hasSide() {
			w("\nSide by side: the two servers started together and loaded at the same time, each by its own\n")
			w("`h2load` with the same number of requests, which one starts first alternating; the ratio is the\n")
			w("median of the runs' ratios and the spread theirs. Alternated runs meet a shared machine at two\n")
			w("moments whose speeds differ by up to tens of percent; side by side both meet the same one (two\n")
			w("identical servers measured so differ by 1%% or less), on CPUs that both servers keep busy.\n")
		}
	}
	r.writeAttribution(w)
	r.writeDPDK(w)
	w("\n## Charts\n\n")
	for _, c := range charts {
		w("![%s](%s)\n\n", c.title, c.file)
	}
	w("## Notes\n\n")
	for _, n := range r.notes {
		w("- %s\n", n)
	}
	w("\n## Commands\n\n```\n")
	for _, c := range r.cmds {
		w("%s\n", c)
	}
	w("```\n")
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(b.String()), 0o644)
}

// headline: the figures a reader looks for first.
func (r *report) headline(w func(string, ...any)) {
	w("| measure | default | cptprov | ratio |\n|---|---:|---:|---:|\n")
	for _, t := range asyncTargets {
		if a := r.pk[t.key()]; a != nil {
			w("| %s %s/s, cptprov in 16 ASYNC jobs vs default synchronous | %.0f | %.0f | %s |\n", t.alg, t.op(), a.def.median(), a.cpt.median(), fmtRatio(ratio(a.cpt, a.def)))
		}
		d, c := r.ops[opsKey{t.alg, dflt, 0}], r.ops[opsKey{t.alg, cpt, 16}]
		if d != nil && c != nil {
			w("| %s %s: calling thread's CPU µs per operation (async 16) | %.1f | %.1f | %.1fx less |\n", t.alg, t.op(), d.cpuUs.median(), c.cpuUs.median(), d.cpuUs.median()/c.cpuUs.median())
		}
	}
	for _, wl := range workloads {
		for _, what := range []string{whatHSCPU, whatHSCPUSide} {
			k := serverKey{wl.name, what}
			if wl.bulk {
				k.what = strings.Replace(what, whatHSCPU, whatBulkCPU, 1)
			}
			if p := r.srv[k]; p != nil {
				q, _ := r.srvRatio(k)
				w("| %s: %s | %.0f | %.0f | %s |\n", wl.name, k.what, p.def.median(), p.cpt.median(), fmtRatio(q))
			}
		}
	}
	for _, alg := range []string{"aes-256-gcm", "chacha20-poly1305", "aes-128-cbc", "sha256"} {
		if p := r.sym[symKey{alg, 16384, 0}]; p != nil {
			w("| %s MB/s at 16 KiB | %.0f | %.0f | %s |\n", title(alg), p.def.median()/1e6, p.cpt.median()/1e6, fmtRatio(ratio(p.cpt, p.def)))
		}
	}
}

// targets are the ratios the issues ask for: AES-GCM (the foundation),
// public key synchronous (issue 3), the other ciphers and digests
// (issue 4), and asynchronous offload (issue 5).
func (r *report) targets() []target {
	var t []target
	add := func(what string, want, got float64, why string) {
		t = append(t, target{what: what, want: want, got: got, why: why})
	}
	for _, k := range r.symKeys(func(k symKey) bool { return k.procs == 0 }) {
		p := r.sym[k]
		switch {
		case strings.HasSuffix(k.alg, "-gcm") && k.size == 16384:
			add(fmt.Sprintf("%s at 16 KiB", title(k.alg)), 1.0, ratio(p.cpt, p.def), "the device's fixed cost per update")
		case strings.HasSuffix(k.alg, "-gcm") && k.size == 1024:
			add(fmt.Sprintf("%s at 1 KiB", title(k.alg)), 0.7, ratio(p.cpt, p.def), "the CPU path's second pass through EVP (the twin context of the default provider)")
		case strings.HasSuffix(k.alg, "-gcm"):
		case k.size == 16384:
			add(fmt.Sprintf("%s at 16 KiB", title(k.alg)), 0.9, ratio(p.cpt, p.def), "the device's fixed cost per operation (ring, call into Go) against OpenSSL's inline code")
		case k.size == 64:
			add(fmt.Sprintf("%s at 64 bytes", title(k.alg)), 0.7, ratio(p.cpt, p.def), "the CPU path's per-call overhead")
		}
	}
	for _, k := range r.pkKeys(func(k pkKey) bool { return k.jobs == 0 && k.procs == 0 }) {
		p := r.pk[k]
		add(fmt.Sprintf("%s %s, synchronous", k.alg, k.op), 0.9, ratio(p.cpt, p.def), "the engine's arithmetic plus the ring against OpenSSL's inline code")
	}
	for _, c := range asyncTargets {
		got := math.NaN()
		if a := r.pk[c.key()]; a != nil {
			got = ratio(a.cpt, a.def)
		}
		add(c.alg+" "+c.op()+", cptprov in 16 ASYNC jobs / default synchronous", c.want, got, r.asyncBound(c))
	}
	// Issue 20: a server with cptprov at most 1.02x the CPU per operation
	// of the same server without it, and handshakes at least as fast.
	for _, k := range r.srvKeys() {
		q, _ := r.srvRatio(k)
		switch k.what {
		case whatHandshakes:
			add(k.server+" handshakes/s, with / without cptprov", 1.0, q, "the provider's own cost per handshake (see server CPU)")
		case whatHSCPU, whatBulkCPU, whatHSCPUSide, whatBulkCPUSide:
			t = append(t, target{what: k.server + " " + k.what + ", with / without cptprov", want: 1.02, atMost: true,
				got: q, why: "the provider's own cost per operation: glue, calls into Go, hand-offs"})
		}
	}
	for _, k := range r.dpdkKeys() {
		if k.size == 16384 && k.jobs != deviceAlone {
			mode := "synchronous"
			if k.jobs > 0 {
				mode = fmt.Sprintf("%d ASYNC jobs", k.jobs)
			}
			why := "each request copied into an mbuf and back, and IPSec-MB's GCM against OpenSSL's on the same CPUs"
			if dev := r.dpdk[dpdkKey{k.size, deviceAlone}]; dev != nil {
				why = fmt.Sprintf("the device alone does %s of the default provider here (IPSec-MB's GCM against OpenSSL's on the same CPU)", fmtRatio(ratio(dev.cpt, dev.def)))
			}
			add("AES-256-GCM at 16 KiB on the dpdk backend (crypto_aesni_gcm), "+mode, 1.2, ratio(r.dpdk[k].cpt, r.dpdk[k].def), why)
		}
	}
	if d, c := r.ops[opsKey{"rsa2048", dflt, 0}], r.ops[opsKey{"rsa2048", cpt, 16}]; d != nil && c != nil {
		add("rsa2048 sign: calling thread's CPU, default synchronous / cptprov 16 ASYNC jobs", 6, ratio(d.cpuUs, c.cpuUs), "per-job overhead of OpenSSL's ASYNC")
	}
	return t
}

// asyncBound explains an asynchronous rate from the measurements: the
// machine's CPUs are shared by the engines and the calling thread, so the
// rate cannot exceed CPUs / (the process's CPU per operation). Reports
// before the process's CPU was measured add the engine time and the
// calling thread's CPU instead (the thread then never executed an
// instruction of its own jobs).
func (r *report) asyncBound(t asyncTarget) string {
	var eng float64
	for _, s := range r.split {
		if strings.HasPrefix(s.name, splitName(t.alg, 16)) {
			eng = s.engine
		}
	}
	c, d := r.ops[opsKey{t.alg, cpt, 16}], r.pk[t.key()]
	if c == nil || d == nil || (eng == 0 && len(c.procUs) == 0) {
		return "the engines share the machine's CPUs with the calling process"
	}
	cpus := 0
	for _, e := range r.env {
		if e[0] == "logical CPUs" {
			fmt.Sscan(e[1], &cpus)
		}
	}
	need := float64(cpus) / (t.want * d.def.median()) * 1e6
	if len(c.procUs) > 0 {
		bound := float64(cpus) / c.procUs.median() * 1e6
		return fmt.Sprintf("the %d CPUs run the engines and the calling process: %.0f µs of the process's CPU per operation (%.0f µs of them the calling thread's) bound the rate at %.0f/s, %.2fx of the default's synchronous rate; %.2gx would need at most %.0f µs, where the default provider spends %.0f",
			cpus, c.procUs.median(), c.cpuUs.median(), bound, bound/d.def.median(), t.want, need, 1e6/d.def.median())
	}
	bound := float64(cpus) / (eng + c.cpuUs.median()) * 1e6
	return fmt.Sprintf("the %d CPUs run the engines and the calling process: %.0f µs of engine time (under load) and %.0f µs of the calling thread's CPU per operation bound the rate at %.0f/s, %.2fx of the default's synchronous rate, before the kernel's context switches; %.2gx would need at most %.0f µs of CPU per operation in all, where the default provider spends %.0f",
		cpus, eng, c.cpuUs.median(), bound, bound/d.def.median(), t.want, need, 1e6/d.def.median())
}

func (r *report) pkKeys(keep func(pkKey) bool) []pkKey {
	var ks []pkKey
	for k := range r.pk {
		if keep(k) {
			ks = append(ks, k)
		}
	}
	order := map[string]int{}
	for i, a := range r.cfg.pkAlgs {
		order[a] = i
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.alg != b.alg {
			return order[a.alg] < order[b.alg]
		}
		if a.op != b.op {
			return a.op < b.op // derive, sign, verify
		}
		if a.procs != b.procs {
			return a.procs < b.procs
		}
		return a.jobs < b.jobs
	})
	return ks
}

func (r *report) symKeys(keep func(symKey) bool) []symKey {
	var ks []symKey
	for k := range r.sym {
		if keep(k) {
			ks = append(ks, k)
		}
	}
	order := map[string]int{}
	for i, a := range append(append([]string(nil), r.cfg.ciphers...), r.cfg.digests...) {
		order[a] = i + 1
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.alg != b.alg {
			if order[a.alg] != order[b.alg] {
				return order[a.alg] < order[b.alg]
			}
			return a.alg < b.alg
		}
		if a.procs != b.procs {
			return a.procs < b.procs
		}
		return a.size < b.size
	})
	return ks
}

// srvRatio is a server point's ratio, with / without cptprov, and its
// spread: of the medians for alternated runs, of the pairs' ratios for
// side-by-side ones.
func (r *report) srvRatio(k serverKey) (q, spread float64) {
	p := r.srv[k]
	if strings.HasSuffix(k.what, sideSuffix) {
		return pairedRatio(p.cpt, p.def)
	}
	return ratio(p.cpt, p.def), p.cpt.spread()
}

// hasSide reports whether any server point was measured side by side.
func (r *report) hasSide() bool {
	for k := range r.srv {
		if strings.HasSuffix(k.what, sideSuffix) {
			return true
		}
	}
	return false
}

func (r *report) srvKeys() []serverKey {
	var ks []serverKey
	for k := range r.srv {
		ks = append(ks, k)
	}
	// In the workloads' order, rate before CPU; keys of older reports last.
	rank := func(k serverKey) int {
		for i, wl := range workloads {
			if wl.name == k.server {
				switch {
				case strings.HasSuffix(k.what, sideSuffix):
					return 3*i + 2
				case strings.HasPrefix(k.what, "server CPU"):
					return 3*i + 1
				}
				return 3 * i
			}
		}
		return 3 * len(workloads)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ri, rj := rank(ks[i]), rank(ks[j]); ri != rj {
			return ri < rj
		}
		if ks[i].server != ks[j].server {
			return ks[i].server > ks[j].server
		}
		return ks[i].what > ks[j].what
	})
	return ks
}

func (r *report) opsKeys() []opsKey {
	var ks []opsKey
	for k := range r.ops {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.alg != b.alg {
			return a.alg > b.alg // rsa before ecdsa
		}
		if a.prov != b.prov {
			return a.prov > b.prov // default first
		}
		return a.jobs < b.jobs
	})
	return ks
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", v)
}

// checkReport verifies that dir holds a report with its sections and
// tables, that no step failed (the notes say which did), and that every
// chart it shows exists and decodes as a PNG of a legible size.
func checkReport(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		return err
	}
	text := string(data)
	for _, h := range []string{"## Headline", "## Targets", "## Public key", "## Ciphers and digests",
		"## The calling thread's CPU", "## Where an operation's time goes", "## TLS servers", "## The dpdk backend", "## Charts", "## Notes", "## Commands"} {
		if !strings.Contains(text, h) {
			return fmt.Errorf("report.md has no section %q", h)
		}
	}
	rows := regexp.MustCompile(`(?m)^\| [a-zA-Z0-9].*\| [0-9.]+x \|`).FindAllString(text, -1)
	if len(rows) < 3 {
		return fmt.Errorf("report.md has %d table rows with a ratio, want at least 3", len(rows))
	}
	imgs := regexp.MustCompile(`!\[[^]]*\]\(([^)]+\.png)\)`).FindAllStringSubmatch(text, -1)
	if len(imgs) < 4 {
		return fmt.Errorf("report.md shows %d charts, want at least 4", len(imgs))
	}
	var failed []string
	if _, notes, ok := strings.Cut(text, "\n## Notes\n"); ok {
		notes, _, _ = strings.Cut(notes, "\n## ")
		for _, l := range strings.Split(notes, "\n") {
			if step, why, ok := strings.Cut(strings.TrimPrefix(l, "- "), failedNote); ok {
				failed = append(failed, fmt.Sprintf("%q (%s)", step, why))
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("report.md: failed section %s", strings.Join(failed, "; failed section "))
	}
	for _, m := range imgs {
		f, err := os.Open(filepath.Join(dir, m[1]))
		if err != nil {
			return err
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", m[1], err)
		}
		if cfg.Width < 400 || cfg.Height < 300 {
			return fmt.Errorf("%s is %dx%d pixels, too small to read", m[1], cfg.Width, cfg.Height)
		}
	}
	return nil
}
