// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// abSide is how one side of -ab runs its server: "stock" without
// cptprov, a directory through the cptprov.so in it (which must start its
// Go half in every worker), or a file as the server's OPENSSL_CONF.
func abSide(f serverFiles, arg string, i int) (side, error) {
	s := side{name: fmt.Sprintf("ab%d", i)}
	if arg == "stock" {
		s.env = "OPENSSL_CONF=/dev/null"
		return s, nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return s, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return s, err
	}
	if !st.IsDir() {
		s.env = "OPENSSL_CONF=" + abs
		return s, nil
	}
	conf := filepath.Join(f.dir, s.name+".cnf")
	if err := os.WriteFile(conf, []byte(moduleConf(filepath.Join(abs, "cptprov.so"), "")), 0o644); err != nil {
		return s, err
	}
	s.env, s.check = "OPENSSL_CONF="+conf, cptprovRan
	return s, nil
}

// abWorkload is the one workload whose name contains name, in any case.
func abWorkload(name string) (workload, error) {
	var wl workload
	n := 0
	for _, w := range workloads {
		if strings.Contains(strings.ToLower(w.name), strings.ToLower(name)) {
			wl, n = w, n+1
		}
	}
	if n != 1 {
		return wl, fmt.Errorf("-workload %q names %d of the workloads, not one", name, n)
	}
	return wl, nil
}

// ab measures two builds or configurations of cptprov (or one against
// stock) side by side, as the report measures cptprov against stock: the
// workload whose name contains wlName, runs rounds, which side starts
// first alternating. It prints each round's CPU per handshake (or MiB) and
// B/A, and the median of B/A.
func (b *bench) ab(args []string, wlName string) error {
	wl, err := abWorkload(wlName)
	if err != nil {
		return err
	}
	r := &report{}
	f, done, ok, err := b.serverSetup(r, "-ab")
	if !ok {
		if err == nil {
			err = fmt.Errorf("%s", strings.Join(r.notes, " "))
		}
		return err
	}
	defer done()
	var sides [2]side
	for i, a := range args {
		if sides[i], err = abSide(f, a, i); err != nil {
			return err
		}
	}
	fmt.Printf("%s, A %s, B %s\n", wl.name, args[0], args[1])
	var ratios point
	for i := 0; i < b.cfg.runs; i++ {
		got, err := b.pair(f, wl, sides, i%2 == 1)
		if err != nil {
			return err
		}
		ratios = append(ratios, got[1]/got[0])
		fmt.Printf("round %d: A %.0f, B %.0f µs, B/A %.3f\n", i+1, got[0], got[1], got[1]/got[0])
	}
	lo, hi := slices.Min(ratios), slices.Max(ratios)
	fmt.Printf("median B/A %.3f over %d rounds (%.3f to %.3f)\n", ratios.median(), len(ratios), lo, hi)
	return nil
}
