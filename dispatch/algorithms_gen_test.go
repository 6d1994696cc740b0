// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"cptprov/internal/algdef"
)

func readList(t *testing.T) *algdef.List {
	t.Helper()
	l, err := algdef.ParseFile("../provider/algorithms.def")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The committed copy of the list is what the list generates today.
func TestAlgorithmsGenUpToDate(t *testing.T) {
	want, err := readList(t).Go()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("algorithms_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("dispatch/algorithms_gen.go is out of date with provider/algorithms.def: run go generate ./dispatch (or make)")
	}
}

// Every row of the list is implemented, by its number and name, and nothing
// else is; every counter slot names its algorithm.
func TestAlgorithmList(t *testing.T) {
	l := readList(t)
	if l.Base("MD") != AlgMDBase || l.Base("MAC") != AlgMACBase {
		t.Fatalf("bases %d, %d; list %v", AlgMDBase, AlgMACBase, l.Bases)
	}
	names := map[int]string{}
	for _, r := range l.Ciphers {
		c := CipherByID(r.Num)
		if c == nil {
			t.Errorf("%s (%d): no cipher (a family without an implementation in cipherFamilies?)", r.ID, r.Num)
			continue
		}
		if c.Name() != r.Names[0] {
			t.Errorf("%s (%d): cipher %s", r.ID, r.Num, c.Name())
		}
		names[r.Num] = r.Names[0]
	}
	for _, r := range l.Digests {
		m, mac, d := MDByID(r.Num), MACByID(r.Num), digestByID(uint32(r.Num))
		if m == nil || mac == nil || d == nil {
			t.Errorf("%s (%d): digest %v, HMAC %v", r.ID, r.Num, m, mac)
			continue
		}
		if !slices.Equal(d.names, r.Names) || d.size != r.Size {
			t.Errorf("%s: Go has %v, %d bytes; the list %v, %d", r.ID, d.names, d.size, r.Names, r.Size)
		}
		if h := d.newHash(); h.Size() != r.Size || h.BlockSize() != r.BlockSize {
			t.Errorf("%s: the hash has %d bytes, blocks of %d; the list %d, %d", r.ID, h.Size(), h.BlockSize(), r.Size, r.BlockSize)
		}
		names[AlgMDBase+r.Num] = r.Names[0]
		names[AlgMACBase+r.Num] = "HMAC-" + r.Names[0]
	}
	for id := range maxAlg {
		if got := AlgName(id); got != names[id] {
			t.Errorf("slot %d: counters named %q, the list %q", id, got, names[id])
		}
		if id >= algX25519 && id <= algRSA && names[id] != "" {
			t.Errorf("slot %d: %s takes an asymmetric algorithm's counters", id, names[id])
		}
	}
	// The digests only signatures and OAEP use keep out of the device's
	// ids.
	seen := map[uint32]string{}
	for _, d := range digests {
		if o, ok := seen[d.id]; ok {
			t.Errorf("digest id %d: %s and %s", d.id, o, d.names[0])
		}
		seen[d.id] = d.names[0]
	}
}
