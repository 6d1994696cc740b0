// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestABSide(t *testing.T) {
	dir := t.TempDir()
	f := serverFiles{dir: dir}
	build := filepath.Join(dir, "build")
	conf := filepath.Join(dir, "my.cnf")
	os.Mkdir(build, 0o755)
	os.WriteFile(conf, []byte("# a configuration\n"), 0o644)

	s, err := abSide(f, "stock", 0)
	if err != nil || s.env != "OPENSSL_CONF=/dev/null" || s.check != nil {
		t.Errorf("stock: %+v, %v", s, err)
	}
	s, err = abSide(f, conf, 1)
	if err != nil || s.env != "OPENSSL_CONF="+conf || s.check != nil {
		t.Errorf("a file: %+v, %v", s, err)
	}
	// A build directory: a configuration of its own that loads its
	// cptprov.so, and the check that every worker started it.
	s, err = abSide(f, build, 1)
	if err != nil || s.check == nil || !strings.HasPrefix(s.env, "OPENSSL_CONF="+dir) {
		t.Fatalf("a directory: %+v, %v", s, err)
	}
	data, err := os.ReadFile(strings.TrimPrefix(s.env, "OPENSSL_CONF="))
	if err != nil || !strings.Contains(string(data), "module = "+filepath.Join(build, "cptprov.so")+"\n") {
		t.Errorf("a directory's configuration: %q, %v", data, err)
	}
	if _, err := abSide(f, filepath.Join(dir, "none"), 0); err == nil {
		t.Error("a path that does not exist was taken")
	}
}

// The names -workload's help and docs/performance.md give each name one
// workload; a part of two names none.
func TestABWorkload(t *testing.T) {
	for _, name := range []string{"nginx TLS 1.3 RSA", "ECDSA", "TLS 1.2", "haproxy", "bulk"} {
		if _, err := abWorkload(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := abWorkload("TLS 1.3 RSA"); err == nil {
		t.Error("TLS 1.3 RSA names nginx's and haproxy's workloads, and was taken")
	}
}
