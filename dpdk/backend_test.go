// SPDX-License-Identifier: Apache-2.0

package dpdk

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cptprov/cptdrv"
	"cptprov/internal/cptlog"
)

// The EAL's command line: the process's own instance, the devices as
// --vdev or -a, --no-pci only when no PCI device is named.
func TestEALArgs(t *testing.T) {
	for _, c := range []struct {
		devs       []string
		args       string
		want, not  []string
		defaultMem bool
	}{
		{devs: []string{"crypto_aesni_gcm0", "crypto_openssl0"}, want: []string{"--vdev=crypto_aesni_gcm0", "--vdev=crypto_openssl0", "--no-pci", "--no-huge"}, defaultMem: true},
		{devs: []string{"0002:20:00.1"}, args: "-m 1024", want: []string{"-a", "0002:20:00.1", "-m", "1024"}, not: []string{"--no-pci", "--no-huge"}},
		{devs: nil, args: "-a 0002:20:00.1", not: []string{"--no-pci"}},
		{devs: []string{"crypto_openssl0"}, args: "--allow 0002:20:00.1", not: []string{"--no-pci"}},
	} {
		got := ealArgs(cptdrv.BackendConfig{Devices: c.devs, Args: c.args})
		line := strings.Join(got, " ")
		for _, w := range append([]string{"--no-shconf", "--no-telemetry", "--file-prefix=cptprov-"}, c.want...) {
			if !strings.Contains(line, w) {
				t.Errorf("%v %q: %q lacks %q", c.devs, c.args, line, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("%v %q: %q has %q", c.devs, c.args, line, n)
			}
		}
		if i := slices.Index(got, "-l"); i < 0 || i+1 >= len(got) || got[i+1] == "" {
			t.Errorf("no main lcore in %q", line)
		}
	}
}

func TestIsPCI(t *testing.T) {
	for name, want := range map[string]bool{"0002:20:00.1": true, "20:00.1": true, "crypto_openssl0": false, "crypto_aesni_gcm0": false} {
		if isPCI(name) != want {
			t.Errorf("isPCI(%q) = %v", name, !want)
		}
	}
}

// The CTR counter advances as a 128-bit big-endian number.
func TestAddCounter(t *testing.T) {
	ctr := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}
	addCounter(ctr, 3)
	want := []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}
	if !slices.Equal(ctr, want) {
		t.Fatalf("got %x, want %x", ctr, want)
	}
	addCounter(ctr, 0x1ff)
	if ctr[15] != 0 || ctr[14] != 2 {
		t.Fatalf("got %x", ctr)
	}
}

// A level given to DPDK comes back from its log as the same level.
func TestLevels(t *testing.T) {
	for _, l := range []cptlog.Level{cptlog.Debug, cptlog.Info, cptlog.Warn, cptlog.Error} {
		if got := rteLevel(ealLevel(l)); got != l {
			t.Errorf("level %v -> %d -> %v", l, ealLevel(l), got)
		}
	}
}

// The modulus checks that keep an exponentiation off the device, whose
// verdict the CPU path gives instead.
func TestOddModulus(t *testing.T) {
	for _, c := range []struct {
		m    []byte
		want bool
	}{{[]byte{0, 0, 3}, true}, {[]byte{1}, false}, {[]byte{0, 1}, false}, {[]byte{4}, false}, {nil, false}, {[]byte{1, 0, 1}, true}} {
		if oddModulus(c.m) != c.want {
			t.Errorf("oddModulus(%x) = %v", c.m, !c.want)
		}
	}
}

// TestClaimDevices: PCI devices are a pool, one per process, free again
// when their holder exits; virtual devices are every process's own.
func TestClaimDevices(t *testing.T) {
	if path := os.Getenv("CPTPROV_TEST_HOLD"); path != "" {
		// The other process: hold the lock until stdin closes.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		lk := syscall.Flock_t{Type: syscall.F_WRLCK}
		if err != nil || syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk) != nil {
			os.Exit(2)
		}
		fmt.Println("held")
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	dir := t.TempDir()
	var logged []string
	log := func(_ cptlog.Level, m string) { logged = append(logged, m) }
	a, b := "0002:20:00.1", "0002:20:00.2"
	names := []string{"crypto_openssl0", a, b}

	hold := func(name string) (stop func()) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClaimDevices$")
		cmd.Env = append(os.Environ(), "CPTPROV_TEST_HOLD="+lockPath(dir, name))
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "held\n" {
			t.Fatalf("the holder did not take %s: %q", name, line)
		}
		return func() { in.Close(); cmd.Wait() }
	}
	check := func(what string, want []string) {
		t.Helper()
		use, claims := claimDevices(names, dir, log)
		if strings.Join(use, " ") != strings.Join(want, " ") {
			t.Errorf("%s: uses %v, want %v (log %q)", what, use, want, logged)
		}
		for _, f := range claims {
			f.Close()
		}
	}
	check("all free", []string{"crypto_openssl0", a})
	if !strings.Contains(logged[len(logged)-1], "claims PCI device "+a) {
		t.Errorf("no log line for the claim: %q", logged)
	}
	stopA := hold(a)
	check("the first held elsewhere", []string{"crypto_openssl0", b})
	stopB := hold(b)
	check("both held elsewhere", []string{"crypto_openssl0"})
	if !strings.Contains(logged[len(logged)-1], "every configured PCI device is in use") {
		t.Errorf("no log line for no free device: %q", logged)
	}
	stopA() // the holder exits: its claim goes with it
	check("the first's holder exited", []string{"crypto_openssl0", a})
	stopB()
}
