// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeReport is a report as a quick run fills it (made-up figures).
func fakeReport() *report {
	cfg := quickConfig("/nonexistent")
	r := &report{cfg: cfg, pk: map[pkKey]*pair{}, sym: map[symKey]*pair{}, ops: map[opsKey]*opsPoint{}, srv: map[serverKey]*pair{}, attrib: map[attribKey]*pair{}, dpdk: map[dpdkKey]*pair{}}
	hs, bulk := workloads[0].name, workloads[len(workloads)-1].name
	r.srv[serverKey{hs, whatHandshakes}] = &pair{point{400}, point{380}}
	r.srv[serverKey{hs, whatHSCPU}] = &pair{point{400}, point{440}}
	r.srv[serverKey{bulk, whatBulk}] = &pair{point{900}, point{880}}
	r.srv[serverKey{bulk, whatBulkCPU}] = &pair{point{700}, point{707}}
	r.attrib[attribKey{hs, ctrSyscalls}] = &pair{point{20}, point{31}}
	r.attrib[attribKey{hs, ctrGoCalls}] = &pair{nil, point{12}}
	r.env = [][2]string{{"logical CPUs", "2"}, {"CPU", "test"}}
	for _, alg := range cfg.pkAlgs {
		for _, jobs := range []int{0, 16} {
			r.pk[pkKey{alg, "sign", jobs, 0}] = &pair{point{1000}, point{1100 + float64(jobs)}}
			r.pk[pkKey{alg, "verify", jobs, 0}] = &pair{point{9000}, point{8000}}
		}
		r.pk[pkKey{alg, "sign", 0, 1}] = &pair{point{1000}, point{990}}
	}
	for _, alg := range append(cfg.ciphers, cfg.digests...) {
		for _, size := range cfg.sizes {
			r.sym[symKey{alg, size, 0}] = &pair{point{1e9, 1.1e9}, point{0.9e9}}
		}
	}
	r.sym[symKey{"aes-256-gcm", 16384, 1}] = &pair{point{4e9}, point{4.1e9}}
	r.ops[opsKey{"rsa2048", dflt, 0}] = &opsPoint{point{4000}, point{250}, nil}
	r.ops[opsKey{"rsa2048", cpt, 0}] = &opsPoint{point{3900}, point{255}, nil}
	r.ops[opsKey{"rsa2048", cpt, 16}] = &opsPoint{point{6500}, point{15}, nil}
	r.split = []split{{"rsa2048 sign, synchronous", 1, 6400, 100, 0.1, 0.05, 240, 0.1},
		{"rsa2048 sign, 16 ASYNC jobs", 1, 6400, 100, 0.1, 2000, 290, 15},
		{"AES-256-GCM 16 KiB update, synchronous, 2 processes", 2, 128000, 2000, 0.1, 0.1, 5, 0.1}}
	r.notes = []string{"a note"}
	r.cmds = []string{"openssl speed -mr rsa2048"}
	return r
}

func TestReportWriteCheckRender(t *testing.T) {
	dir := t.TempDir()
	r := fakeReport()
	if err := r.write(dir); err != nil {
		t.Fatal(err)
	}
	if err := checkReport(dir); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"| rsa2048 | sign | async 16 | 1000 | 1116 | 1.12x |", "missed: the 2 CPUs run the engines",
		"| (2) rsa2048 sign, 16 ASYNC jobs | 1 | 6400 | 100 |", "| (3) AES-256-GCM 16 KiB update, synchronous, 2 processes | 2 | 128000 | 2000 |", "| nginx TLS 1.3 RSA-2048 X25519 | handshakes/s | 400 | 380 | 0.95x |",
		"| nginx TLS 1.3 RSA-2048 X25519 | calls into Go | - | 12.0 |",
		"| nginx TLS 1.3 RSA-2048 X25519 server CPU µs per handshake, with / without cptprov | 1.02x | 1.10x | missed: ",
		"| nginx bulk TLS 1.3 AES-256-GCM 1 MiB server CPU µs per MiB, with / without cptprov | 1.02x | 1.01x | met |", "![AES-128-GCM: throughput against block size](aes-128-gcm-sizes.png)"} {
		if !strings.Contains(string(first), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Drawn again from data.json: the same report.
	r2, err := loadReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.write(dir); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if string(again) != string(first) {
		t.Error("the report drawn from data.json differs")
	}
	// A missing chart or section is caught.
	os.Remove(filepath.Join(dir, "cpu-per-op.png"))
	if checkReport(dir) == nil {
		t.Error("a missing chart was not noticed")
	}
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("# nothing\n"), 0o644)
	if checkReport(dir) == nil {
		t.Error("an empty report was not noticed")
	}
}

func TestCheckFailedSection(t *testing.T) {
	dir := t.TempDir()
	r := fakeReport()
	r.notes = append(r.notes, "time split"+failedNote+"no statistics area", "TLS servers: skipped, nginx is not installed.")
	if err := r.write(dir); err != nil {
		t.Fatal(err)
	}
	err := checkReport(dir)
	if err == nil || !strings.Contains(err.Error(), `failed section "time split" (no statistics area)`) {
		t.Fatalf("a report with a failed step: %v", err)
	}
	if strings.Contains(err.Error(), "TLS servers") {
		t.Errorf("a skipped step counted as failed: %v", err)
	}
	// The same report without the failure passes.
	r.notes = r.notes[:len(r.notes)-2]
	r.notes = append(r.notes, "TLS servers: skipped, nginx is not installed.")
	if err := r.write(dir); err != nil {
		t.Fatal(err)
	}
	if err := checkReport(dir); err != nil {
		t.Fatal(err)
	}
}
