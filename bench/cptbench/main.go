// SPDX-License-Identifier: Apache-2.0

// Command cptbench measures cptprov against OpenSSL's default provider on
// this machine, side by side in the same run and interleaved, and writes a
// report with charts to bench/results/<date>-<host>/ (report.md, *.png).
//
// It drives `openssl speed -elapsed -mr` and the project's C harness
// build/bench_ops as child processes: it is never loaded into an OpenSSL
// process itself (a Go program with cgo must not share a process with the
// provider's Go runtime).
//
//	cptbench [-quick] [-runs N] [-out DIR]   measure and write the report
//	cptbench -check DIR                      verify a report (no step failed) and its charts
//	cptbench -render DIR                     draw them again from DIR/data.json
//	cptbench -out DIR -steps servers,cpu     measure some steps again into DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// config says what to measure and how long.
type config struct {
	quick   bool
	runs    int
	seconds int
	root    string // the checkout: build/ holds the provider and harnesses
	out     string
	pkAlgs  []string
	jobs    []int
	procs   []int
	ciphers []string
	digests []string
	sizes   []int
	opsAlgs []string
}

func main() {
	quick := flag.Bool("quick", false, "short durations and a subset (a smoke test: about three minutes)")
	runs := flag.Int("runs", 3, "runs per point (the report shows their median and spread)")
	out := flag.String("out", "", "output directory (default bench/results/<date>-<host>)")
	check := flag.String("check", "", "verify the report and charts in this directory and exit")
	render := flag.String("render", "", "draw the report and charts again from this directory's data.json and exit")
	only := flag.String("steps", "", "measure again only these steps (comma separated: pk, procs, sym, gcm, cpu, split, servers, attrib, dpdk) into -out's data.json")
	ab := flag.String("ab", "", "A,B: measure a server through A and through B side by side, -runs rounds, and exit; A and B are each stock, a directory holding a cptprov.so, or an openssl.cnf")
	abWorkload := flag.String("workload", "nginx TLS 1.3 RSA", "with -ab: the one workload whose name contains this (nginx TLS 1.3 RSA, ECDSA, TLS 1.2, haproxy, bulk)")
	flag.Parse()
	if *render != "" {
		r, err := loadReport(*render)
		if err == nil {
			err = r.write(*render)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "cptbench:", err)
			os.Exit(1)
		}
		return
	}
	if *check != "" {
		if err := checkReport(*check); err != nil {
			fmt.Fprintln(os.Stderr, "cptbench:", err)
			os.Exit(1)
		}
		fmt.Println("cptbench: report and charts in", *check, "are complete")
		return
	}
	root, err := findRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cptbench:", err)
		os.Exit(1)
	}
	cfg := fullConfig(root, *runs)
	if *quick {
		cfg = quickConfig(root)
	}
	if *ab != "" {
		sides := strings.Split(*ab, ",")
		if len(sides) != 2 {
			fmt.Fprintln(os.Stderr, "cptbench: -ab takes A,B")
			os.Exit(2)
		}
		cfg.runs = *runs
		b := &bench{cfg: cfg, root: root, seen: map[string]bool{}}
		if err := b.ab(sides, *abWorkload); err != nil {
			fmt.Fprintln(os.Stderr, "cptbench:", err)
			os.Exit(1)
		}
		return
	}
	cfg.out = *out
	if cfg.out == "" {
		host, _ := os.Hostname()
		cfg.out = filepath.Join(root, "bench", "results", time.Now().Format("2006-01-02")+"-"+host)
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "cptbench:", err)
		os.Exit(1)
	}
	b := &bench{cfg: cfg, root: root, out: cfg.out}
	var prev *report
	var keys map[string]bool
	if *only != "" {
		keys = map[string]bool{}
		for _, k := range strings.Split(*only, ",") {
			keys[strings.TrimSpace(k)] = true
		}
		if prev, err = loadReport(cfg.out); err != nil {
			fmt.Fprintln(os.Stderr, "cptbench: -steps needs a previous run in -out:", err)
			os.Exit(1)
		}
	}
	rep, err := b.measure(prev, keys)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cptbench:", err)
		os.Exit(1)
	}
	if err := rep.write(cfg.out); err != nil {
		fmt.Fprintln(os.Stderr, "cptbench:", err)
		os.Exit(1)
	}
	fmt.Println("cptbench: report in", filepath.Join(cfg.out, "report.md"))
	// The report is kept whole even when a step failed, but the run fails.
	if err := checkReport(cfg.out); err != nil {
		fmt.Fprintln(os.Stderr, "cptbench:", err)
		os.Exit(1)
	}
}

func fullConfig(root string, runs int) config {
	procs := []int{}
	for p := 1; p <= runtime.NumCPU(); p++ {
		procs = append(procs, p)
	}
	return config{
		runs: max(runs, 3), seconds: 1, root: root,
		pkAlgs: []string{"rsa2048", "rsa4096", "ecdsap256", "ecdsap384", "ecdhp256", "ecdhx25519"},
		jobs:   []int{1, 4, 16, 64},
		procs:  procs,
		ciphers: []string{"aes-128-gcm", "aes-256-gcm", "aes-128-cbc", "aes-256-cbc", "aes-128-ctr",
			"aes-256-ctr", "des-ede3-cbc", "chacha20", "chacha20-poly1305", "aes-128-cbc-hmac-sha1",
			"aes-256-cbc-hmac-sha1", "aes-128-cbc-hmac-sha256", "aes-256-cbc-hmac-sha256"},
		digests: []string{"sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256"},
		sizes:   []int{16, 64, 256, 1024, 8192, 16384, 65536},
		opsAlgs: asyncAlgs(),
	}
}

// asyncTarget is an operation whose rate in 16 ASYNC jobs is measured
// against the default provider's synchronous rate (issue 20's item 4).
type asyncTarget struct {
	alg  string
	want float64
}

func (t asyncTarget) op() string { return pkOp(t.alg) }

// key is the public-key row a target reads: cptprov in 16 jobs, alternated
// with the default provider's synchronous run.
func (t asyncTarget) key() pkKey { return pkKey{t.alg, t.op(), 16, 0} }

// asyncTargets is the one list of them: the report's headline, targets and
// charts, and the calling-thread and phase measurements (opsAlgs) follow it.
var asyncTargets = []asyncTarget{
	{"rsa2048", 1.9},
	{"ecdsap256", 1.6},
	{"ecdhx25519", 1.6},
}

func asyncAlgs() []string {
	var a []string
	for _, t := range asyncTargets {
		a = append(a, t.alg)
	}
	return a
}

// pkOp is what bench_ops and openssl speed do with alg's key.
func pkOp(alg string) string {
	if strings.HasPrefix(alg, "ecdh") {
		return "derive"
	}
	return "sign"
}

// quickConfig is the smoke test's subset: one run of one second per point.
func quickConfig(root string) config {
	return config{
		quick: true, runs: 1, seconds: 1, root: root,
		pkAlgs:  []string{"rsa2048", "ecdsap256"},
		jobs:    []int{16},
		procs:   []int{1},
		ciphers: []string{"aes-128-gcm"},
		digests: []string{"sha256"},
		sizes:   []int{64, 16384},
		opsAlgs: []string{"rsa2048"},
	}
}

// findRoot is the checkout holding build/cptprov.so: the working
// directory or one of its parents.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "build", "cptprov.so")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no build/cptprov.so in %s or above: run make first", dir)
		}
	}
}

// title is a speed algorithm name as the report shows it.
func title(alg string) string { return strings.ToUpper(alg) }
