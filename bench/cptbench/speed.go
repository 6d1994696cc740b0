// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// speedResult is what one `openssl speed -mr` run printed: for each
// public-key algorithm its rates (sign and verify, or derive) in operations
// per second, and for each cipher or digest its bytes per second at each
// block size.
type speedResult struct {
	pk   map[string][2]float64      // "rsa2048" -> {sign/s, verify/s}; "ecdhp256" -> {derive/s, 0}
	sym  map[string]map[int]float64 // "AES-128-GCM" -> size -> bytes/s
	size []int                      // the block sizes of the +H line
}

// parseSpeed reads openssl speed's machine-readable output (-mr):
//
//	+H:16:64:256            block sizes
//	+F:25:AES-128-GCM:v:v   bytes per second per size (cipher, digest)
//	+F2:2:2048:s:v          RSA bits, sign/s, verify/s
//	+F4:3:256:s:v           ECDSA curve bits, sign/s, verify/s
//	+F5:3:256:d:t           ECDH curve bits, derive/s, seconds per derive
//
// With -multi the children's lines come first, echoed, and the sums last.
// Index numbers tell the curves apart (OpenSSL 3.0's speed.c tables).
func parseSpeed(out string) (speedResult, error) {
	r := speedResult{pk: map[string][2]float64{}, sym: map[string]map[int]float64{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		// -multi: the parent echoes each child's lines ("Got: +F... from 1")
		// and prints the sums last, so the last value of a key is the total.
		if rest, ok := strings.CutPrefix(line, "Got: "); ok {
			if i := strings.LastIndex(rest, " from "); i >= 0 {
				line = rest[:i]
			}
		}
		f := strings.Split(line, ":")
		if len(f) == 0 || !strings.HasPrefix(f[0], "+") {
			continue
		}
		nums := func(from int) ([]float64, error) {
			var v []float64
			for _, s := range f[from:] {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, fmt.Errorf("openssl speed: bad number %q in %q", s, sc.Text())
				}
				v = append(v, x)
			}
			return v, nil
		}
		switch f[0] {
		case "+H":
			v, err := nums(1)
			if err != nil {
				return r, err
			}
			r.size = nil
			for _, x := range v {
				r.size = append(r.size, int(x))
			}
		case "+F":
			if len(f) < 4 {
				continue
			}
			v, err := nums(3)
			if err != nil {
				return r, err
			}
			m := r.sym[f[2]]
			if m == nil {
				m = map[int]float64{}
				r.sym[f[2]] = m
			}
			for i, x := range v {
				if i < len(r.size) {
					m[r.size[i]] = x
				}
			}
		case "+F2", "+F4", "+F5":
			if len(f) < 5 {
				continue
			}
			v, err := nums(2)
			if err != nil {
				return r, err
			}
			name, ok := pkName(f[0], f[1], int(v[0]))
			if !ok {
				continue
			}
			if f[0] == "+F5" {
				r.pk[name] = [2]float64{v[1], 0}
			} else {
				r.pk[name] = [2]float64{v[1], v[2]}
			}
		}
	}
	if len(r.pk) == 0 && len(r.sym) == 0 {
		return r, fmt.Errorf("openssl speed printed no results")
	}
	return r, sc.Err()
}

// pkName maps a result line to speed's algorithm name.
func pkName(tag, index string, bits int) (string, bool) {
	switch tag {
	case "+F2":
		return fmt.Sprintf("rsa%d", bits), true
	case "+F4":
		switch bits {
		case 256:
			return "ecdsap256", true
		case 384:
			return "ecdsap384", true
		}
	case "+F5":
		switch {
		case bits == 253 || index == "22":
			return "ecdhx25519", true
		case bits == 256:
			return "ecdhp256", true
		case bits == 384:
			return "ecdhp384", true
		}
	}
	return "", false
}
