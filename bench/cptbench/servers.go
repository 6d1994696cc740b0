// SPDX-License-Identifier: Apache-2.0

package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// serverKey names a TLS server measurement: nginx or haproxy, handshakes
// (a new connection each, `openssl s_time -new`) or bulk (1 MiB downloads
// over keep-alive connections, h2load).
type serverKey struct{ server, what string }

// A server under test: started with or without cptprov, stopped after.
type server struct {
	name string
	cmd  []string
	pid  func() int
}

// servers measures nginx and haproxy with cptprov (OPENSSL_CONF loading it
// and preferring it) against the same server without it. Skipped, with a
// note, where they or the clients are not installed.
func (b *bench) servers(r *report) error {
	for _, tool := range []string{"nginx", "haproxy", "h2load"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				r.notes = append(r.notes, fmt.Sprintf("TLS servers: skipped, %s is not installed (tests/deps.sh installs it).", tool))
				return nil
			}
		}
	}
	os.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin")
	dir, err := os.MkdirTemp("", "cptbench-servers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	www := filepath.Join(dir, "www")
	os.MkdirAll(www, 0o755)
	if err := os.WriteFile(filepath.Join(www, "f1048576"), make([]byte, 1<<20), 0o644); err != nil {
		return err
	}
	crt, key := filepath.Join(dir, "rsa.crt"), filepath.Join(dir, "rsa.key")
	if _, err := b.run([]string{"OPENSSL_CONF=/dev/null"}, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
		"-sha256", "-subj", "/CN=localhost", "-keyout", key, "-out", crt, "-days", "2"); err != nil {
		return err
	}
	pem := filepath.Join(dir, "rsa.pem")
	c, _ := os.ReadFile(crt)
	k, _ := os.ReadFile(key)
	os.WriteFile(pem, append(c, k...), 0o600)
	conf := filepath.Join(dir, "openssl.cnf")
	os.WriteFile(conf, []byte(opensslConf(b.cfg.root, "")), 0o644)
	// haproxy's backend: a plain HTTP nginx, the same for both sides.
	backend, err := freePort()
	if err != nil {
		return err
	}
	stopBackend, err := b.startServer("backend", dir, "OPENSSL_CONF=/dev/null", backend, 0, www, crt, key, pem)
	if err != nil {
		return err
	}
	defer stopBackend()
	for i := 0; i < b.cfg.runs; i++ {
		for _, prov := range []string{dflt, cpt} {
			env := "OPENSSL_CONF=/dev/null"
			if prov == cpt {
				env = "OPENSSL_CONF=" + conf
			}
			for _, name := range []string{"nginx", "haproxy"} {
				port, err := freePort()
				if err != nil {
					return err
				}
				stop, err := b.startServer(name, dir, env, port, backend, www, crt, key, pem)
				if err != nil {
					return err
				}
				hs, bulk, err := b.loadServer(port)
				stop()
				if err != nil {
					// One failed point (a crashed worker, say) is a finding:
					// recorded, and the other points still measured.
					r.notes = append(r.notes, fmt.Sprintf("TLS servers: %s %s, run %d: %v", name, prov, i+1, err))
					continue
				}
				getPair(r.srv, serverKey{name, "handshakes/s"}).add(prov, hs)
				getPair(r.srv, serverKey{name, "bulk MB/s"}).add(prov, bulk)
			}
		}
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startServer starts the TLS nginx (two workers), haproxy (master-worker,
// nbthread 2, ssl-mode-async, in front of the backend) or the backend (a
// plain HTTP nginx), and returns how to stop it.
func (b *bench) startServer(name, dir, env string, port, backend int, www, crt, key, pem string) (func(), error) {
	pidf := filepath.Join(dir, name+".pid")
	os.Remove(pidf)
	var cmd []string
	switch name {
	case "nginx", "backend":
		user := ""
		if os.Geteuid() == 0 {
			user = "user root;"
		}
		srv := fmt.Sprintf("listen 127.0.0.1:%d ssl; ssl_protocols TLSv1.2 TLSv1.3; ssl_certificate %s; ssl_certificate_key %s;", port, crt, key)
		if name == "backend" {
			srv = fmt.Sprintf("listen 127.0.0.1:%d;", port)
		}
		cfg := fmt.Sprintf(`daemon on; worker_processes 2; pid %s; error_log %s/%s-error.log; %s
events { worker_connections 1024; }
http { access_log off; client_body_temp_path %[2]s/tmp-body; proxy_temp_path %[2]s/tmp-proxy;
  fastcgi_temp_path %[2]s/tmp-fcgi; uwsgi_temp_path %[2]s/tmp-uwsgi; scgi_temp_path %[2]s/tmp-scgi;
  keepalive_requests 1000000; ssl_session_cache off; ssl_session_tickets off;
  server { %[5]s root %[6]s; } }
`, pidf, dir, name, user, srv, www)
		path := filepath.Join(dir, name+".conf")
		os.WriteFile(path, []byte(cfg), 0o644)
		cmd = []string{"nginx", "-c", path, "-p", dir}
	case "haproxy":
		cfg := fmt.Sprintf(`global
    nbthread 2
    ssl-mode-async
    pidfile %s
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend tls
    bind 127.0.0.1:%d ssl crt %s
    default_backend files
backend files
    server local 127.0.0.1:%d
`, pidf, port, pem, backend)
		path := filepath.Join(dir, "haproxy.cfg")
		os.WriteFile(path, []byte(cfg), 0o644)
		cmd = []string{"haproxy", "-W", "-D", "-f", path}
	}
	if _, err := b.run([]string{env}, cmd[0], cmd[1:]...); err != nil {
		return nil, err
	}
	var master int
	for i := 0; i < 100 && master == 0; i++ {
		if data, err := os.ReadFile(pidf); err == nil {
			master, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if master == 0 {
		return nil, fmt.Errorf("%s did not start", name)
	}
	// The workers listen a moment after the master wrote its pid.
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return func() {
		sig := syscall.SIGTERM
		if name == "nginx" {
			sig = syscall.SIGQUIT
		}
		syscall.Kill(master, sig)
		for i := 0; i < 200 && syscall.Kill(master, 0) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		syscall.Kill(master, syscall.SIGKILL)
	}, nil
}

var (
	h2loadRE = regexp.MustCompile(`requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed`)
	h2timeRE = regexp.MustCompile(`finished in ([0-9.]+)(m?s)`)
)

// handshakeClients is how many connections are opened at once.
const handshakeClients = 4

// handshakes opens new TLS 1.3 connections (X25519, the server's RSA-2048
// signature, no session resumption) from handshakeClients goroutines for
// secs seconds and returns completed handshakes per second. Unlike
// openssl s_time it lets the last handshakes finish rather than cutting
// them off, and it counts its own failures.
func handshakes(port int, secs int) (float64, error) {
	cfg := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
		CurvePreferences: []tls.CurveID{tls.X25519}, ClientSessionCache: nil}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	stop := time.Now().Add(time.Duration(secs) * time.Second)
	var done, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := 0; i < handshakeClients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				done.Add(1)
				c.Close()
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0).Seconds()
	if failed.Load() > 0 {
		return 0, fmt.Errorf("%d of %d handshakes failed, the first: %v", failed.Load(), failed.Load()+done.Load(), firstErr.Load())
	}
	return float64(done.Load()) / el, nil
}

// loadServer measures new TLS 1.3 connections per second and the bulk rate
// of 1 MiB downloads over 4 keep-alive connections (h2load).
func (b *bench) loadServer(port int) (float64, float64, error) {
	hs, err := handshakes(port, b.cfg.seconds*3)
	if err != nil {
		return 0, 0, err
	}
	out, err := b.run([]string{"OPENSSL_CONF=/dev/null"}, "h2load", "-n", "400", "-c", "4", "-m", "1", "--h1",
		fmt.Sprintf("https://127.0.0.1:%d/f1048576", port))
	if err != nil {
		return 0, 0, err
	}
	h := h2loadRE.FindStringSubmatch(out)
	f := h2timeRE.FindStringSubmatch(out)
	if h == nil || f == nil || h[2] != "0" {
		return 0, 0, fmt.Errorf("h2load: %q", out)
	}
	ok, _ := strconv.ParseFloat(h[1], 64)
	el, _ := strconv.ParseFloat(f[1], 64)
	if f[2] == "ms" {
		el /= 1000
	}
	return hs, ok * (1 << 20) / el / 1e6, nil
}
