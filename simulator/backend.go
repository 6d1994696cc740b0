// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"fmt"

	"cptprov/cptdrv"
)

// The simulator is the backend called "simulator" (the provider's default).
func init() { cptdrv.RegisterBackend("simulator", newBackend) }

var _ cptdrv.Device = (*Device)(nil)
var _ cptdrv.Software = (*Device)(nil)

// newBackend builds the simulator from the provider's configuration; its
// fault plan ("absent" among the rules: a machine without the device) is
// installed before any queue attaches.
func newBackend(cfg cptdrv.BackendConfig) (cptdrv.Device, error) {
	c := Config{SEEngines: cfg.SEEngines, AEEngines: cfg.AEEngines, Spin: cfg.Spin}
	var plan *FaultPlan
	if cfg.Faults != "" {
		var err error
		if plan, err = ParseFaultPlan(cfg.Faults); err != nil {
			return nil, fmt.Errorf("bad fault plan: %v", err)
		}
		c.Absent = plan.Absent
	}
	d := New(c)
	if plan != nil {
		d.SetFaults(plan)
	}
	return d, nil
}
