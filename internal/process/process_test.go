// SPDX-License-Identifier: Apache-2.0

package process

import (
	"strings"
	"testing"

	"cptprov/cptdrv"
	"cptprov/internal/cabi"
	"cptprov/internal/cptlog"
	"cptprov/stats"
)

// hardware is a backend without a software twin, as a real device's would
// be: it is never attached here.
type hardware struct{}

func (hardware) Attach(*cptdrv.Queue) error { return nil }
func (hardware) Doorbell(*cptdrv.Queue)     {}
func (hardware) Detach(*cptdrv.Queue)       {}
func (hardware) Name() string               { return "test-hardware" }
func (hardware) Stats() cptdrv.DeviceStats  { return cptdrv.DeviceStats{} }
func (hardware) Forget(uint64)              {}
func (hardware) Close()                     {}

var built cptdrv.BackendConfig

func init() {
	cptdrv.RegisterBackend("test-hardware", func(cfg cptdrv.BackendConfig) (cptdrv.Device, error) {
		built = cfg
		return hardware{}, nil
	})
}

// What activation accepts (cptabi.h) is what is registered here, with the
// same default.
func TestBackendsAgreeWithC(t *testing.T) {
	c := cabi.Backends()
	if len(c) == 0 || c[0] != DefaultBackend {
		t.Fatalf("CPT_BACKENDS %v: the default should be %s", c, DefaultBackend)
	}
	registered := map[string]bool{}
	for _, n := range cptdrv.Backends() {
		registered[n] = n != "test-hardware"
	}
	for _, n := range c {
		if !registered[n] {
			t.Errorf("CPT_BACKENDS names %s, which no package registers", n)
		}
		delete(registered, n)
	}
	for n, real := range registered {
		if real {
			t.Errorf("backend %s is registered but not in CPT_BACKENDS: activation would refuse it", n)
		}
	}
}

func TestUnknownBackendRefused(t *testing.T) {
	_, err := Start(Config{Backend: "cpt-vf", LogLevel: cptlog.Off})
	if err == nil || !strings.Contains(err.Error(), `unknown backend "cpt-vf"`) || !strings.Contains(err.Error(), "simulator") {
		t.Fatalf("Start with an unknown backend: %v", err)
	}
}

// The named backend's factory builds the device, with the configuration's
// device part; a fallback it cannot give is refused, not ignored.
func TestBackendByName(t *testing.T) {
	dev := cptdrv.BackendConfig{SEEngines: 3, AEEngines: 5, Faults: "error:every=2"}
	_, err := Start(Config{Backend: "test-hardware", Device: dev, Fallback: true, LogLevel: cptlog.Off})
	if built.SEEngines != dev.SEEngines || built.AEEngines != dev.AEEngines || built.Faults != dev.Faults || built.Log == nil {
		t.Fatalf("factory got %+v, want %+v", built, dev)
	}
	if err == nil || !strings.Contains(err.Error(), "fallback = off") {
		t.Fatalf("fallback on a backend without software: %v", err)
	}
}

func TestSimulatorStarts(t *testing.T) {
	p, err := Start(Config{Fallback: true, LogLevel: cptlog.Off})
	if err != nil {
		t.Fatal(err)
	}
	if p.Env == nil || p.dev.Name() != "simulator" {
		t.Fatalf("started %+v", p)
	}
	d := p.deviceCounters()
	if len(d.Names) != len(d.Values) || len(d.Names) == 0 || len(d.Names) > stats.DeviceSlots {
		t.Fatalf("device counters %v", d)
	}
	// cptstat's Prometheus collector types every counter of the list.
	for _, n := range d.Names {
		if _, ok := stats.DeviceMetrics[n]; !ok {
			t.Errorf("device counter %q is not in stats.DeviceMetrics", n)
		}
	}
}
