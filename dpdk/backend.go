// SPDX-License-Identifier: Apache-2.0

package dpdk

/*
#include <stdlib.h>
#include "shimcalls.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cptprov/cptdrv"
	"cptprov/internal/cptlog"
	"cptprov/simulator"
)

func init() { cptdrv.RegisterBackend("dpdk", newBackend) }

var _ cptdrv.Device = (*Device)(nil)
var _ cptdrv.Software = (*Device)(nil)
var _ cptdrv.Assister = (*Device)(nil)

// Defaults of the configuration keys.
const (
	defaultQueuePairs = 2
	defaultDepth      = 512
	// defaultEALArgs: no hugepages, so that a machine without any set up
	// runs the software devices; a hardware user gives hugepages instead
	// (docs/dpdk.md).
	defaultEALArgs = "--no-huge -m 512"
	// maxData is the largest input of one symmetric request (an mbuf's data
	// room): a TLS record with room to spare; larger inputs take the CPU
	// path.
	maxData = 65000
	// sessionsPerDevice sizes each session pool.
	sessionsPerDevice = 4096
)

// newBackend builds the device from the provider's configuration: the EAL,
// then the configured cryptodevs.
func newBackend(cfg cptdrv.BackendConfig) (cptdrv.Device, error) {
	var plan *simulator.FaultPlan
	if cfg.Faults != "" {
		var err error
		if plan, err = simulator.ParseFaultPlan(cfg.Faults); err != nil {
			return nil, fmt.Errorf("dpdk: bad fault plan: %v", err)
		}
		for _, k := range plan.Kinds() {
			if k != simulator.FaultReset {
				return nil, fmt.Errorf("dpdk: fault kind %s is the simulator's: the dpdk backend injects reset only (the device stopped and restarted)", k)
			}
		}
	}
	if cfg.Shim == "" {
		return nil, errors.New("dpdk: no shim (libcptdpdk.so) configured")
	}
	log := cfg.Log
	if log == nil {
		log = func(cptlog.Level, string) {}
	}
	d := &Device{
		sw:     simulator.New(simulator.Config{Absent: true}),
		log:    log,
		depth:  cfg.QueueDepth,
		nqp:    cfg.QueuePairs,
		spin:   cfg.Spin,
		faults: plan,
	}
	if d.depth <= 0 {
		d.depth = defaultDepth
	}
	if d.nqp <= 0 {
		d.nqp = defaultQueuePairs
	}
	if err := loadShim(cfg.Shim); err != nil {
		return nil, err
	}
	sink := func(level int, msg string) { log(rteLevel(level), "dpdk: "+strings.TrimRight(msg, "\n")) }
	logSink.Store(&sink)
	// The claim comes before the EAL, which probes (and maps) every PCI
	// device on its command line: only the one this process holds goes
	// there.
	use, claims := claimDevices(cfg.Devices, lockDir(), log)
	if len(cfg.Devices) > 0 && len(use) == 0 {
		log(cptlog.Warn, "dpdk: no configured cryptodev is free for this process: every operation of this process runs on the CPU")
		d.start()
		return d, nil
	}
	d.claims = claims
	cfg.Devices = use
	args := ealArgs(cfg)
	t0 := time.Now()
	n, err := ealInit(args, ealLevel(cfg.LogLevel))
	switch {
	case errors.Is(err, errInherited):
		log(cptlog.Warn, "dpdk: "+err.Error()+"; every operation of this process runs on the CPU")
		d.unclaimAll()
		d.start()
		return d, nil
	case err != nil:
		d.unclaimAll()
		return nil, err
	}
	log(cptlog.Info, fmt.Sprintf("dpdk: EAL started in %v (%s), %d cryptodevs", time.Since(t0).Round(time.Millisecond), strings.Join(args[1:], " "), n))
	if err := d.open(cfg.Devices, n); err != nil {
		return nil, err
	}
	d.start()
	return d, nil
}

// ealArgs is the EAL's command line: this process's own instance (file
// prefix, no shared configuration), the main lcore (the EAL pins its
// caller there; the shim gives the thread its affinity back), the memory
// arguments of dpdk_eal_args, and the configured devices: virtual ones
// (crypto_*) created with --vdev, PCI ones allowed with -a.
func ealArgs(cfg cptdrv.BackendConfig) []string {
	args := []string{"cptprov", "--file-prefix=cptprov-" + strconv.Itoa(os.Getpid()), "--no-shconf", "--no-telemetry", "-l", firstCPU()}
	user := cfg.Args
	if user == "" {
		user = defaultEALArgs
	}
	args = append(args, strings.Fields(user)...)
	pci := false
	for _, dev := range cfg.Devices {
		if isPCI(dev) {
			args = append(args, "-a", dev)
			pci = true
		} else {
			args = append(args, "--vdev="+dev)
		}
	}
	if !pci && len(cfg.Devices) > 0 && !strings.Contains(" "+user, " -a") && !strings.Contains(user, "--allow") {
		args = append(args, "--no-pci")
	}
	return args
}

// isPCI reports whether a device name is a PCI address (0002:20:00.1).
func isPCI(name string) bool { return strings.Count(name, ":") >= 1 && strings.Contains(name, ".") }

// ealLevel maps cptprov's log level to the shim's (syslog's: 3 error ...
// 7 debug).
func ealLevel(l cptlog.Level) int {
	switch l {
	case cptlog.Debug:
		return 7
	case cptlog.Info:
		return 5 // notice: DPDK's info is a line per driver probed
	case cptlog.Warn:
		return 4
	case cptlog.Error:
		return 3
	}
	return 0
}

func rteLevel(l int) cptlog.Level {
	switch {
	case l <= 3:
		return cptlog.Error
	case l == 4:
		return cptlog.Warn
	case l <= 6:
		return cptlog.Info
	}
	return cptlog.Debug
}

// open starts the configured devices (all the EAL found when none is
// named), in order.
func (d *Device) open(names []string, found int) error {
	var ids []int
	if len(names) == 0 {
		for i := 0; i < found; i++ {
			ids = append(ids, i)
		}
	}
	for _, name := range names {
		cname := C.CString(name)
		id := int(C.shim_dev_find(cname))
		C.free(unsafePointer(cname))
		if id < 0 {
			d.log(cptlog.Warn, fmt.Sprintf("dpdk: device %s not found", name))
			d.unclaim(name)
			continue
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		var info C.struct_cptdpdk_info
		if C.shim_dev_info(C.int(id), &info) != 0 {
			continue
		}
		name := C.GoString(&info.name[0])
		nqp := min(d.nqp, int(info.max_qps))
		var errbuf [512]C.char
		if C.shim_dev_start(C.int(id), C.int(nqp), C.int(d.depth), sessionsPerDevice, maxData, &errbuf[0], C.size_t(len(errbuf))) != 0 {
			d.log(cptlog.Warn, fmt.Sprintf("dpdk: %s: %s; not used", name, cerr(errbuf[:])))
			d.unclaim(name)
			continue
		}
		C.shim_dev_info(C.int(id), &info)
		cd := &cryptodev{id: id, name: name, driver: C.GoString(&info.driver[0]), algs: uint32(info.algs),
			maxModLen: int(info.max_modlen), maxData: int(info.max_data)}
		cd.algs &= usable(cd.driver)
		cd.counter = "dpdk_" + name
		if len(cd.counter) > 31 { // the statistics area's names
			cd.counter = cd.counter[:31]
		}
		if cd.maxData == 0 || cd.maxData > maxData {
			cd.maxData = maxData
		}
		for q := 0; q < nqp; q++ {
			cd.qps = append(cd.qps, newQpair(cd, q))
		}
		t0 := time.Now()
		failed, why, err := selfTest(cd)
		tested := time.Since(t0)
		if err != nil {
			// Its sessions, ops and the burst's buffers stay out: the
			// device may still complete into them.
			d.log(cptlog.Warn, fmt.Sprintf("dpdk: %s: self-test: %v; not used", name, err))
			for _, qp := range cd.qps {
				qp.free()
			}
			d.selfTestFailed |= cd.algs
			C.shim_dev_stop(C.int(id))
			d.unclaim(name)
			continue
		}
		for bit := uint32(1); bit != 0; bit <<= 1 {
			if failed&bit != 0 {
				d.log(cptlog.Warn, fmt.Sprintf("dpdk: %s: %s failed the self-test (%s): not used on this device", name, algNames(bit), why[bit]))
			}
		}
		cd.algs &^= failed
		d.selfTestFailed |= failed
		d.devs = append(d.devs, cd)
		d.log(cptlog.Info, fmt.Sprintf("dpdk: %s (%s): %d queue pairs of %d, offers %s (self-test %v)", name, cd.driver, nqp, d.depth, algNames(cd.algs), tested.Round(100*time.Microsecond)))
	}
	if len(d.devs) == 0 {
		d.log(cptlog.Warn, "dpdk: no cryptodev usable: every operation of this process runs on the CPU")
	}
	d.route()
	return nil
}

// claimDevices picks the configured devices this process uses: every
// virtual device (crypto_*: each process creates its own), and of the PCI
// devices the first one no other process holds. The PCI devices listed
// are a pool that the host's processes (an nginx's workers) share out, one
// each: on an OCTEON, one CPT VF per process. The claim is a POSIX record
// lock on a file named for the device, which the kernel releases when the
// process ends however it ends, and which a forked child does not inherit:
// a reload's new workers find the old workers' devices free as they exit.
func claimDevices(names []string, dir string, log func(cptlog.Level, string)) (use []string, claims map[string]*os.File) {
	claims = map[string]*os.File{}
	var busy []string
	held := ""
	for _, name := range names {
		if !isPCI(name) {
			use = append(use, name)
			continue
		}
		if len(claims) > 0 {
			continue // one PCI device per process
		}
		f, err := claim(dir, name)
		if err != nil {
			busy = append(busy, name)
			log(cptlog.Debug, fmt.Sprintf("dpdk: %s: %v", name, err))
			continue
		}
		claims[name], held = f, name
		use = append(use, name)
	}
	switch {
	case held != "":
		log(cptlog.Info, fmt.Sprintf("dpdk: this process claims PCI device %s (%d listed before it in use)", held, len(busy)))
	case len(busy) > 0:
		log(cptlog.Warn, fmt.Sprintf("dpdk: every configured PCI device is in use by another process (%s): none for this one", strings.Join(busy, ", ")))
	}
	return use, claims
}

// lockDir is where the claims' lock files are.
func lockDir() string {
	dir := "/run/lock"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = os.TempDir()
	}
	return dir
}

// lockPath is the file whose lock is the claim of PCI device name.
func lockPath(dir, name string) string {
	return filepath.Join(dir, "cptprov-dpdk-"+strings.ReplaceAll(name, ":", "_")+".lock")
}

// claim takes PCI device name for this process (see claimDevices).
func claim(dir, name string) (*os.File, error) {
	f, err := os.OpenFile(lockPath(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		f.Close()
		return nil, errors.New("in use by another process")
	}
	return f, nil
}

// unclaim gives up the claim of a device this process cannot use.
func (d *Device) unclaim(name string) {
	if f := d.claims[name]; f != nil {
		f.Close()
		delete(d.claims, name)
	}
}

func (d *Device) unclaimAll() {
	for name := range d.claims {
		d.unclaim(name)
	}
}

// firstCPU is the first CPU this process may run on: the EAL's main lcore
// must be one of them.
func firstCPU() string {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				v = strings.TrimSpace(v)
				if i := strings.IndexAny(v, "-,"); i > 0 {
					v = v[:i]
				}
				if _, err := strconv.Atoi(v); err == nil {
					return v
				}
			}
		}
	}
	return "0"
}

// algNames lists the CPTDPDK_* algorithms in algs.
func algNames(algs uint32) string {
	names := []string{"AES-GCM", "ChaCha20-Poly1305", "AES-CBC", "AES-CTR", "DES-EDE3-CBC",
		"SHA1", "SHA224", "SHA256", "SHA384", "SHA512",
		"HMAC-SHA1", "HMAC-SHA224", "HMAC-SHA256", "HMAC-SHA384", "HMAC-SHA512", "modexp"}
	var out []string
	for i, n := range names {
		if algs&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "nothing cptprov uses"
	}
	return strings.Join(out, ", ")
}

// usable is what cptprov takes of a driver's algorithms. crypto_openssl
// computes its ciphers, digests and MACs through EVP in the application's
// default library context, which an openssl.cnf preferring cptprov makes
// cptprov itself: such a request re-enters the provider from inside the
// device and waits on itself (seen: a TLS server's HMAC on crypto_openssl
// hung in cptprov's own HMAC under rte_cryptodev_enqueue_burst). Its
// exponentiations use BN alone.
func usable(driver string) uint32 {
	if driver == "crypto_openssl" {
		return C.CPTDPDK_MODEXP
	}
	return ^uint32(0)
}
