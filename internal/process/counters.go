// SPDX-License-Identifier: Apache-2.0

package process

import (
	"cptprov/cptdrv"
	"cptprov/stats"
)

// inFlight is how many submitted instructions await their completion.
func inFlight(submitted, completed uint64) uint64 {
	if completed > submitted {
		return 0
	}
	return submitted - completed
}

// deviceCounters collects the queue and device counters the publisher
// copies into the statistics area, always in the same order.
func (p *Process) deviceCounters() stats.DeviceCounters {
	qs := p.se.Stats()
	as := p.ae.Stats()
	ds := p.dev.Stats()
	d := stats.DeviceCounters{Latency: [2][]uint64{qs.Phases.Latency[:], as.Phases.Latency[:]}}
	add := func(name string, v uint64) {
		d.Names = append(d.Names, name)
		d.Values = append(d.Values, v)
	}
	add("submitted", qs.Submitted)
	add("completed", qs.Completed)
	add("in_flight", inFlight(qs.Submitted, qs.Completed))
	add("queue_full", qs.Full)
	add("stale_completions", qs.Stale)
	add("timeouts", qs.Timeouts)
	add("assisted", qs.Assisted)
	add("in_flight_max", qs.InFlightHi)
	add("executed", ds.Executed)
	add("errors", ds.Errors)
	add("faults", ds.Faults)
	add("stalled", ds.Stalled)
	phases := func(q string, ph cptdrv.Phases) {
		add(q+"_phase_samples", ph.Samples)
		add(q+"_submit_ns", ph.Submit)
		add(q+"_wait_ns", ph.Wait)
		add(q+"_engine_ns", ph.Engine)
		add(q+"_notify_ns", ph.Notify)
	}
	phases("se", qs.Phases)
	add("ae_submitted", as.Submitted)
	add("ae_completed", as.Completed)
	add("ae_in_flight", inFlight(as.Submitted, as.Completed))
	add("ae_assisted", as.Assisted)
	phases("ae", as.Phases)
	add("device_failures", qs.Failed+as.Failed)
	add("retries", qs.Retries+as.Retries)
	add("fallbacks", qs.Fallbacks+as.Fallbacks)
	add("circuit_opens", qs.Opens+as.Opens)
	add("resets", ds.Resets)
	add("ae_timeouts", as.Timeouts)
	add("se_circuit_open", circuitOpen(qs.Circuit))
	add("ae_circuit_open", circuitOpen(as.Circuit))
	add("results_rejected", p.Env.Checks.Rejected.Load())
	add("results_recomputed", p.Env.Checks.Recomputed.Load())
	add("software", ds.Software)
	// Both queues' rings have the configured depth. With the dpdk
	// backend's counters this fills the area's DeviceSlots exactly.
	add("ring_depth", uint64(p.se.Depth()))
	for _, c := range ds.Extra {
		add(c.Name, c.Value)
	}
	return d
}

// circuitOpen is 1 while a queue's circuit keeps requests off the device.
func circuitOpen(state string) uint64 {
	if state == "closed" {
		return 0
	}
	return 1
}
