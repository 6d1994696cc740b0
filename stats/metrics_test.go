// SPDX-License-Identifier: Apache-2.0

package stats

import (
	"strings"
	"testing"
)

// Each family of DeviceMetrics has one help, one type and one label set
// (Prometheus refuses a family whose series disagree), and its name says
// its type: counters end in _total, gauges do not.
func TestDeviceMetricsFamilies(t *testing.T) {
	type family struct {
		helps        int
		gauge        bool
		queue, phase bool
	}
	fams := map[string]*family{}
	for name, m := range DeviceMetrics {
		f := fams[m.Family]
		if f == nil {
			f = &family{gauge: m.Gauge, queue: m.Queue != "", phase: m.Phase != ""}
			fams[m.Family] = f
		}
		if m.Help != "" {
			f.helps++
		}
		if f.gauge != m.Gauge || f.queue != (m.Queue != "") || f.phase != (m.Phase != "") {
			t.Errorf("%s: type or labels differ from the rest of %s", name, m.Family)
		}
		if strings.HasSuffix(m.Family, "_total") == m.Gauge {
			t.Errorf("%s: family %s, gauge %v", name, m.Family, m.Gauge)
		}
	}
	for n, f := range fams {
		if f.helps != 1 {
			t.Errorf("family %s has %d helps, want 1", n, f.helps)
		}
	}
}
