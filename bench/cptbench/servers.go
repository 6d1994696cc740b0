// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serverKey names a TLS server measurement: a workload (server, protocol,
// certificate, group) and what was measured of it: its rate, or the
// server's CPU per operation.
type serverKey struct{ server, what string }

// What a server measurement reports, by the what of its serverKey.
const (
	whatHandshakes = "handshakes/s"
	whatHSCPU      = "server CPU µs per handshake"
	whatBulk       = "MiB/s"
	whatBulkCPU    = "server CPU µs per MiB"
	// The same, the two servers loaded at the same time (sideBySide); a
	// point's runs are pairs, and its ratio the median of theirs.
	sideSuffix      = ", side by side"
	whatHSCPUSide   = whatHSCPU + sideSuffix
	whatBulkCPUSide = whatBulkCPU + sideSuffix
)

// A workload is a server and a load as users run them (issue 20): h2load
// with 32 concurrent clients, each request a new TLS connection
// (`Connection: close`, no resumption: h2load resumes the sessions a
// server offers, so the servers offer none), or 1 MiB downloads over 4
// keep-alive connections.
type workload struct {
	name   string
	server string // nginx or haproxy
	cert   string // rsa or ecdsa
	tls12  string // a TLS 1.2 cipher suite: the server speaks TLS 1.2 only
	group  string // the client's only group (h2load --groups)
	bulk   bool
}

var workloads = []workload{
	{name: "nginx TLS 1.3 RSA-2048 X25519", server: "nginx", cert: "rsa", group: "X25519"},
	{name: "nginx TLS 1.3 ECDSA-P256 P-256", server: "nginx", cert: "ecdsa", group: "P-256"},
	{name: "nginx TLS 1.2 ECDHE-RSA-AES128-GCM X25519", server: "nginx", cert: "rsa", tls12: "ECDHE-RSA-AES128-GCM-SHA256", group: "X25519"},
	{name: "haproxy ssl-mode-async TLS 1.3 RSA-2048 X25519", server: "haproxy", cert: "rsa", group: "X25519"},
	{name: "nginx bulk TLS 1.3 AES-256-GCM 1 MiB", server: "nginx", cert: "rsa", group: "X25519", bulk: true},
}

// serverFiles are what the servers are made of: certificates, keys, the
// files they serve, cptprov's openssl.cnf.
type serverFiles struct {
	dir, www, conf, statsConf, stats string
	crt, key, pem                    map[string]string // by workload.cert
	backend                          int               // haproxy's backend, a plain HTTP nginx
}

// serverSetup makes the servers' files and starts haproxy's backend; it
// returns false, with a note, where a server or h2load is not installed.
// done removes it all.
func (b *bench) serverSetup(r *report, step string) (f serverFiles, done func(), ok bool, err error) {
	for _, tool := range []string{"nginx", "haproxy", "h2load"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				r.notes = append(r.notes, fmt.Sprintf("%s: skipped, %s is not installed (tests/deps.sh installs it).", step, tool))
				return f, nil, false, nil
			}
		}
	}
	os.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin")
	dir, err := os.MkdirTemp("", "cptbench-servers")
	if err != nil {
		return f, nil, false, err
	}
	fail := func(err error) (serverFiles, func(), bool, error) {
		os.RemoveAll(dir)
		return f, nil, false, err
	}
	os.Chmod(dir, 0o755)
	f = serverFiles{dir: dir, www: filepath.Join(dir, "www"), conf: filepath.Join(dir, "openssl.cnf"),
		statsConf: filepath.Join(dir, "openssl-stats.cnf"), stats: filepath.Join(dir, "stats"), crt: map[string]string{}, key: map[string]string{}, pem: map[string]string{}}
	os.MkdirAll(f.www, 0o755)
	os.MkdirAll(f.stats, 0o755)
	if err := os.WriteFile(filepath.Join(f.www, "f1048576"), make([]byte, 1<<20), 0o644); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(f.www, "small"), []byte("ok\n"), 0o644); err != nil {
		return fail(err)
	}
	for cert, newkey := range map[string][]string{"rsa": {"-newkey", "rsa:2048"}, "ecdsa": {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"}} {
		crt, key := filepath.Join(dir, cert+".crt"), filepath.Join(dir, cert+".key")
		args := append([]string{"req", "-x509"}, newkey...)
		args = append(args, "-nodes", "-sha256", "-subj", "/CN=localhost", "-keyout", key, "-out", crt, "-days", "2")
		if _, err := b.run([]string{"OPENSSL_CONF=/dev/null"}, "openssl", args...); err != nil {
			return fail(err)
		}
		pem := filepath.Join(dir, cert+".pem")
		c, _ := os.ReadFile(crt)
		k, _ := os.ReadFile(key)
		os.WriteFile(pem, append(c, k...), 0o600)
		f.crt[cert], f.key[cert], f.pem[cert] = crt, key, pem
	}
	// The measured servers keep no statistics, as by default; the
	// attribution's do.
	os.WriteFile(f.conf, []byte(opensslConf(b.cfg.root, "")), 0o644)
	os.WriteFile(f.statsConf, []byte(opensslConf(b.cfg.root, f.stats)), 0o644)
	if f.backend, err = freePort(); err != nil {
		return fail(err)
	}
	backend, err := b.startServer(f, workload{name: "backend", server: "backend", cert: "rsa"}, "OPENSSL_CONF=/dev/null", f.backend, "")
	if err != nil {
		return fail(err)
	}
	return f, func() { backend.Stop(); os.RemoveAll(dir) }, true, nil
}

// servers measures TLS servers with cptprov (OPENSSL_CONF loading it and
// preferring it) against the same servers without it, alternated, and the
// servers' own CPU per operation.
func (b *bench) servers(r *report) error {
	f, done, ok, err := b.serverSetup(r, "TLS servers")
	if !ok {
		return err
	}
	defer done()
	for i := 0; i < b.serverRuns(); i++ {
		for _, wl := range workloads {
			// Who goes first alternates from run to run: a drift of the
			// machine's speed then falls on both sides.
			provs := []string{dflt, cpt}
			if i%2 == 1 {
				provs = []string{cpt, dflt}
			}
			for _, prov := range provs {
				rate, cpuPer, err := b.loadServer(f, wl, prov)
				if err != nil {
					// One failed point (a crashed worker, say) is a finding:
					// recorded, and the other points still measured.
					r.notes = append(r.notes, fmt.Sprintf("TLS servers: %s %s, run %d: %v", wl.name, prov, i+1, err))
					continue
				}
				rw, cw := whatHandshakes, whatHSCPU
				if wl.bulk {
					rw, cw = whatBulk, whatBulkCPU
				}
				getPair(r.srv, serverKey{wl.name, rw}).add(prov, rate)
				getPair(r.srv, serverKey{wl.name, cw}).add(prov, cpuPer)
			}
		}
	}
	for i := 0; i < b.sideRuns(); i++ {
		for _, wl := range workloads {
			def, cptv, err := b.sideBySide(f, wl, i%2 == 1)
			if err != nil {
				r.notes = append(r.notes, fmt.Sprintf("TLS servers side by side: %s, run %d: %v", wl.name, i+1, err))
				continue
			}
			what := whatHSCPUSide
			if wl.bulk {
				what = whatBulkCPUSide
			}
			p := getPair(r.srv, serverKey{wl.name, what})
			p.add(dflt, def)
			p.add(cpt, cptv)
		}
	}
	return nil
}

// sideRuns is how many side-by-side runs each workload gets: their
// ratios spread by a few percent where alternated runs spread by tens.
func (b *bench) sideRuns() int {
	if b.cfg.quick {
		return 1
	}
	return max(b.cfg.runs, 7)
}

// serverRuns is how many alternated runs the TLS servers get: at least 11
// in a full report. A server point spreads by several times the 2% margin
// of issue 20's targets where the clients share the server's CPUs; a
// median of five moved by more than that margin from one report to the
// next. Eleven narrow a median's error by a third against five; it still
// moves by more than the margin (docs/performance.md).
func (b *bench) serverRuns() int {
	if b.cfg.quick {
		return b.cfg.runs
	}
	return max(b.cfg.runs, 11)
}

// env is the environment that runs a server through prov: cptprov's
// openssl.cnf, or none.
func (f serverFiles) env(prov string) string {
	if prov == cpt {
		return "OPENSSL_CONF=" + f.conf
	}
	return "OPENSSL_CONF=/dev/null"
}

// loadServer starts wl's server through prov, warms it up and measures it:
// the rate (handshakes or MiB per second) and the CPU its processes spent
// per handshake or MiB.
func (b *bench) loadServer(f serverFiles, wl workload, prov string) (float64, float64, error) {
	var rate, cpuPer float64
	err := b.underLoad(f, wl, f.env(prov), func(srv running, run func() (float64, float64, error)) error {
		n, el, c, err := serverCPU(srv, f.side(prov).check, run)
		rate, cpuPer = n/el, c
		return err
	})
	return rate, cpuPer, err
}

// serverCPU runs a load on srv and returns what run returns (the requests
// done and the seconds they took) and the CPU the server's processes spent
// per request (a request is a handshake, or a MiB of the bulk download).
// Then check, unless nil, must hold of srv (a server through cptprov must
// have started it in every worker: cptprovRan).
func serverCPU(srv running, check func(running) error, run func() (float64, float64, error)) (n, el, cpuPer float64, err error) {
	before, err := treeCPU(srv.pid)
	if err != nil {
		return 0, 0, 0, err
	}
	if n, el, err = run(); err != nil {
		return 0, 0, 0, err
	}
	after, err := treeCPU(srv.pid)
	if err == nil && check != nil {
		err = check(srv)
	}
	if err != nil {
		return 0, 0, 0, err
	}
	return n, el, (after - before).Seconds() * 1e6 / n, nil
}

// underLoad starts wl's server and warms it up (its workers load the
// providers, cptprov its Go half); then measure gets the server and run,
// which loads it with h2load for about the step's seconds and returns the
// requests done and the seconds they took.
func (b *bench) underLoad(f serverFiles, wl workload, env string, measure func(running, func() (float64, float64, error)) error) error {
	l, err := b.startLoaded(f, wl, env, "")
	if err != nil {
		return err
	}
	defer l.srv.Stop()
	return measure(l.srv, func() (float64, float64, error) { return l.run(l.count) })
}

// loaded is a started and warmed-up server, and the load users put on it.
type loaded struct {
	srv running
	// count is a number of requests that lasts about three times the
	// step's seconds at the warm-up's rate: h2load's timed mode (-D) does
	// not end when the server closes each connection (nghttp2 1.52).
	count int
	// run loads the server with h2load for count requests and returns
	// the requests done and the seconds they took.
	run func(count int) (float64, float64, error)
}

// startLoaded starts wl's server (tag keeps its files apart from another
// instance's) and warms it up.
func (b *bench) startLoaded(f serverFiles, wl workload, env, tag string) (loaded, error) {
	port, err := freePort()
	if err != nil {
		return loaded{}, err
	}
	srv, err := b.startServer(f, wl, env, port, tag)
	if err != nil {
		return loaded{}, err
	}
	secs := b.cfg.seconds * 3
	path, args := "/small", []string{"-c", "32", "-H", "Connection: close"}
	if wl.bulk {
		path, args = "/f1048576", []string{"-c", "4"}
	}
	args = append(args, "-m", "1", "--h1", "--groups", wl.group)
	if wl.tls12 != "" {
		args = append(args, "--ciphers", wl.tls12)
	}
	if wl.bulk {
		args = append(args, "--tls13-ciphers", "TLS_AES_256_GCM_SHA384")
	}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, path)
	run := func(count int) (float64, float64, error) {
		return b.h2load(append(append([]string{"-n", strconv.Itoa(count)}, args...), url))
	}
	warm := 32 * 8
	if wl.bulk {
		warm = 4 * 8
	}
	n, el, err := run(warm)
	if err != nil {
		srv.Stop()
		return loaded{}, fmt.Errorf("warm-up: %w", err)
	}
	return loaded{srv: srv, count: max(warm, int(float64(secs)*n/el)), run: run}, nil
}

// sideBySide loads wl's server without cptprov and the same server with
// it at the same time, each with its own h2load, and returns each one's
// CPU per handshake or MiB. Alternated runs compare two moments of a
// shared machine whose speed moves by 10-30% from one to the next; side by
// side, both servers meet the same moment: two identical stock nginx
// servers measured this way came within 1% of each other (two cptprov
// haproxy within 10%, its own noise). Both servers compete for the
// same two CPUs, as the processes of a loaded machine do. Which one starts
// first alternates with cptFirst.
func (b *bench) sideBySide(f serverFiles, wl workload, cptFirst bool) (def, cptv float64, err error) {
	got, err := b.pair(f, wl, [2]side{f.side(dflt), f.side(cpt)}, cptFirst)
	return got[0], got[1], err
}

// A side is one of two servers measured side by side: its name, the
// environment that runs it, and what must hold of it once loaded (nil:
// nothing).
type side struct {
	name, env string
	check     func(running) error
}

// side is how a server runs through prov.
func (f serverFiles) side(prov string) side {
	s := side{name: prov, env: f.env(prov)}
	if prov == cpt {
		s.check = cptprovRan
	}
	return s
}

// pair loads wl's server as each of the two sides at the same time, each
// with its own h2load, and returns each one's CPU per handshake or MiB;
// the second starts first with secondFirst.
func (b *bench) pair(f serverFiles, wl workload, sides [2]side, secondFirst bool) (cpuPer [2]float64, err error) {
	order := []int{0, 1}
	if secondFirst {
		order = []int{1, 0}
	}
	var ls [2]loaded
	for _, i := range order {
		l, err := b.startLoaded(f, wl, sides[i].env, fmt.Sprintf("-%d%s", i, sides[i].name))
		if err != nil {
			return cpuPer, err
		}
		defer l.srv.Stop()
		ls[i] = l
	}
	count := min(ls[0].count, ls[1].count)
	type result struct {
		i      int
		cpuPer float64
		err    error
	}
	done := make(chan result, len(order))
	for _, i := range order {
		go func(i int, l loaded) {
			_, _, c, err := serverCPU(l.srv, sides[i].check, func() (float64, float64, error) { return l.run(count) })
			done <- result{i, c, err}
		}(i, ls[i])
	}
	for range order {
		r := <-done
		if r.err != nil {
			err = r.err
		}
		cpuPer[r.i] = r.cpuPer
	}
	return cpuPer, err
}

// cptprovRan checks that every worker of a server meant to run with
// cptprov started cptprov's Go half, as it does at its first operation on
// the device. A cptprov that refuses to activate (a bad key in its
// section) leaves OpenSSL running on the default provider alone, without
// a word to the server: until 2026-12-06 the servers "with cptprov" of
// every report ran so, on an empty stats_dir.
func cptprovRan(srv running) error {
	workers := children(srv.pid)
	if len(workers) == 0 {
		return fmt.Errorf("no workers under %d", srv.pid)
	}
	for _, w := range workers {
		maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", w))
		if err != nil {
			return err
		}
		if !strings.Contains(string(maps), "/libcptgo.so") {
			return fmt.Errorf("worker %d of the server with cptprov never started cptprov (no libcptgo.so in its maps): cptprov did not activate", w)
		}
	}
	return nil
}

// h2load runs h2load with args and returns the requests that succeeded and
// the seconds it took; a failed request fails the point.
func (b *bench) h2load(args []string) (float64, float64, error) {
	out, err := b.run([]string{"OPENSSL_CONF=/dev/null"}, "h2load", args...)
	if err != nil {
		return 0, 0, err
	}
	h := h2loadRE.FindStringSubmatch(out)
	f := h2timeRE.FindStringSubmatch(out)
	if h == nil || f == nil || h[2] != "0" || h[1] == "0" {
		return 0, 0, fmt.Errorf("h2load: %q", out)
	}
	ok, _ := strconv.ParseFloat(h[1], 64)
	el, _ := strconv.ParseFloat(f[1], 64)
	if f[2] == "ms" {
		el /= 1000
	}
	return ok, el, nil
}

// procStat is what /proc/PID/stat says of a process: its parent, and its
// user and system CPU time in clock ticks (all its threads).
type procStat struct {
	ppid  int
	ticks uint64
}

// procStats reads every process's stat.
func procStats() (map[int]procStat, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	st := map[int]procStat{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// state ppid ... utime (14th field) stime (15th).
		fields := statFields(data)
		if len(fields) < 13 {
			continue
		}
		pp, _ := strconv.Atoi(fields[1])
		ut, _ := strconv.ParseUint(fields[11], 10, 64)
		sy, _ := strconv.ParseUint(fields[12], 10, 64)
		st[p] = procStat{pp, ut + sy}
	}
	return st, nil
}

// statFields are the fields of a /proc stat file (a process's or a
// thread's) after the command name, which may hold spaces and parentheses:
// the first is the state, the third field of the file.
func statFields(data []byte) []string {
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// treeCPU is the user and system CPU time of process pid and all its
// descendants (a server's master and workers, every thread of each: the
// Go half's threads in a worker count as the worker's).
func treeCPU(pid int) (time.Duration, error) {
	st, err := procStats()
	if err != nil {
		return 0, err
	}
	if _, ok := st[pid]; !ok {
		return 0, fmt.Errorf("process %d is gone", pid)
	}
	var sum uint64
	for p, s := range st {
		for q := p; q > 1; q = st[q].ppid {
			if q == pid {
				sum += s.ticks
				break
			}
		}
	}
	return time.Duration(sum) * time.Second / clockTicks, nil
}

// children are the processes whose parent is pid (a server's workers).
func children(pid int) []int {
	st, _ := procStats()
	var out []int
	for p, s := range st {
		if s.ppid == pid {
			out = append(out, p)
		}
	}
	return out
}

// clockTicks is the unit of /proc's CPU times (sysconf(_SC_CLK_TCK), 100
// on Linux for every architecture Go runs on).
const clockTicks = 100

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// A running server: its master's pid, and how to stop it.
type running struct {
	pid  int
	stop func()
}

func (s running) Stop() { s.stop() }

// startServer starts wl's TLS nginx (two workers), haproxy (master-worker,
// nbthread 2, ssl-mode-async, in front of the backend) or the backend (a
// plain HTTP nginx).
func (b *bench) startServer(f serverFiles, wl workload, env string, port int, tag string) (running, error) {
	name, dir, www := wl.server, f.dir, f.www
	crt, key, pem, backend := f.crt[wl.cert], f.key[wl.cert], f.pem[wl.cert], f.backend
	pidf := filepath.Join(dir, name+tag+".pid")
	os.Remove(pidf)
	var cmd []string
	switch name {
	case "nginx", "backend":
		user := ""
		if os.Geteuid() == 0 {
			user = "user root;"
		}
		srv := fmt.Sprintf("listen 127.0.0.1:%d ssl; ssl_protocols TLSv1.2 TLSv1.3; ssl_certificate %s; ssl_certificate_key %s;", port, crt, key)
		if wl.tls12 != "" {
			srv = fmt.Sprintf("listen 127.0.0.1:%d ssl; ssl_protocols TLSv1.2; ssl_ciphers %s; ssl_certificate %s; ssl_certificate_key %s;", port, wl.tls12, crt, key)
		}
		if name == "backend" {
			srv = fmt.Sprintf("listen 127.0.0.1:%d;", port)
		}
		cfg := fmt.Sprintf(`daemon on; worker_processes 2; pid %s; error_log %s/%s-error.log; %s
events { worker_connections 1024; }
http { access_log off; client_body_temp_path %[2]s/tmp-body; proxy_temp_path %[2]s/tmp-proxy;
  fastcgi_temp_path %[2]s/tmp-fcgi; uwsgi_temp_path %[2]s/tmp-uwsgi; scgi_temp_path %[2]s/tmp-scgi;
  keepalive_requests 1000000; ssl_session_cache off; ssl_session_tickets off;
  server { %[5]s root %[6]s; } }
`, pidf, dir, name+tag, user, srv, www)
		path := filepath.Join(dir, name+tag+".conf")
		os.WriteFile(path, []byte(cfg), 0o644)
		cmd = []string{"nginx", "-c", path, "-p", dir}
	case "haproxy":
		cfg := fmt.Sprintf(`global
    nbthread 2
    ssl-mode-async
    tune.ssl.cachesize 0
    pidfile %s
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend tls
    bind 127.0.0.1:%d ssl crt %s no-tls-tickets
    default_backend files
backend files
    server local 127.0.0.1:%d
`, pidf, port, pem, backend)
		path := filepath.Join(dir, "haproxy"+tag+".cfg")
		os.WriteFile(path, []byte(cfg), 0o644)
		cmd = []string{"haproxy", "-W", "-D", "-f", path}
	}
	if _, err := b.run([]string{env}, cmd[0], cmd[1:]...); err != nil {
		return running{}, err
	}
	var master int
	for i := 0; i < 100 && master == 0; i++ {
		if data, err := os.ReadFile(pidf); err == nil {
			master, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if master == 0 {
		return running{}, fmt.Errorf("%s did not start", name)
	}
	// The workers listen a moment after the master wrote its pid.
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return running{master, func() {
		sig := syscall.SIGTERM
		if name == "nginx" {
			sig = syscall.SIGQUIT
		}
		syscall.Kill(master, sig)
		for i := 0; i < 200 && syscall.Kill(master, 0) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		syscall.Kill(master, syscall.SIGKILL)
	}}, nil
}

var (
	h2loadRE = regexp.MustCompile(`requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed`)
	h2timeRE = regexp.MustCompile(`finished in ([0-9.]+)(m?s)`)
)
