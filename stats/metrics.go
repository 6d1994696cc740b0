// SPDX-License-Identifier: Apache-2.0

package stats

// DeviceMetric says what a device counter of the area (a name of
// DeviceCounters) is, for cptstat's Prometheus collector: the family it
// belongs to, its queue or phase label, and whether it only grows (a
// counter) or goes up and down (a gauge). The area itself holds only names
// and values.
type DeviceMetric struct {
	Family  string  // Prometheus name without cptprov_ (counters end in _total)
	Help    string  // the family's help (the same for each of its counters)
	Gauge   bool    // a level (in flight, depth, a state), not a count
	Queue   string  // "se" (symmetric engine group), "ae" (public key), or none
	Phase   string  // of a request's sampled time: submit, wait, engine, notify
	PerUnit float64 // counts per unit of the family (1e9: ns in seconds; 0: 1)
}

// DeviceMetrics classifies every device counter internal/process publishes
// (its test checks that none is missing); a backend's own counters (dpdk_*)
// are not here, and cptstat exports them untyped.
var DeviceMetrics = map[string]DeviceMetric{
	"submitted":          {Family: "queue_submitted_total", Help: "Instructions queued to the device.", Queue: "se"},
	"ae_submitted":       {Family: "queue_submitted_total", Queue: "ae"},
	"completed":          {Family: "queue_completed_total", Help: "Results reported by the device.", Queue: "se"},
	"ae_completed":       {Family: "queue_completed_total", Queue: "ae"},
	"in_flight":          {Family: "queue_in_flight", Help: "Instructions submitted and not yet completed.", Gauge: true, Queue: "se"},
	"ae_in_flight":       {Family: "queue_in_flight", Gauge: true, Queue: "ae"},
	"in_flight_max":      {Family: "queue_in_flight_max", Help: "Most instructions in flight at once since the process started.", Gauge: true, Queue: "se"},
	"ring_depth":         {Family: "queue_ring_depth", Help: "Slots of each instruction ring (ring_depth, rounded up to a power of two).", Gauge: true},
	"queue_full":         {Family: "queue_full_total", Help: "Submissions that found every ring slot in flight.", Queue: "se"},
	"stale_completions":  {Family: "queue_stale_completions_total", Help: "Completions for requests already completed or abandoned.", Queue: "se"},
	"timeouts":           {Family: "queue_timeouts_total", Help: "Instructions no engine took within request_timeout_ms.", Queue: "se"},
	"ae_timeouts":        {Family: "queue_timeouts_total", Queue: "ae"},
	"assisted":           {Family: "queue_assisted_total", Help: "Instructions a submitter executed itself (a synchronous caller, or an asynchronous one that found the engines behind).", Queue: "se"},
	"ae_assisted":        {Family: "queue_assisted_total", Queue: "ae"},
	"se_circuit_open":    {Family: "queue_circuit_open", Help: "1 while the circuit breaker keeps the queue's requests off the device.", Gauge: true, Queue: "se"},
	"ae_circuit_open":    {Family: "queue_circuit_open", Gauge: true, Queue: "ae"},
	"se_phase_samples":   {Family: "queue_phase_samples_total", Help: "Requests sampled for their phases and latency (one in 64).", Queue: "se"},
	"ae_phase_samples":   {Family: "queue_phase_samples_total", Queue: "ae"},
	"se_submit_ns":       {Family: "queue_phase_seconds_total", Help: "Time the sampled requests spent in each phase.", Queue: "se", Phase: "submit", PerUnit: 1e9},
	"se_wait_ns":         {Family: "queue_phase_seconds_total", Queue: "se", Phase: "wait", PerUnit: 1e9},
	"se_engine_ns":       {Family: "queue_phase_seconds_total", Queue: "se", Phase: "engine", PerUnit: 1e9},
	"se_notify_ns":       {Family: "queue_phase_seconds_total", Queue: "se", Phase: "notify", PerUnit: 1e9},
	"ae_submit_ns":       {Family: "queue_phase_seconds_total", Queue: "ae", Phase: "submit", PerUnit: 1e9},
	"ae_wait_ns":         {Family: "queue_phase_seconds_total", Queue: "ae", Phase: "wait", PerUnit: 1e9},
	"ae_engine_ns":       {Family: "queue_phase_seconds_total", Queue: "ae", Phase: "engine", PerUnit: 1e9},
	"ae_notify_ns":       {Family: "queue_phase_seconds_total", Queue: "ae", Phase: "notify", PerUnit: 1e9},
	"executed":           {Family: "device_executed_total", Help: "Instructions the device executed."},
	"errors":             {Family: "device_errors_total", Help: "Instructions the device failed."},
	"faults":             {Family: "device_faults_total", Help: "Device faults (injected with the faults key, or device resets)."},
	"stalled":            {Family: "device_stalled_total", Help: "Instructions swallowed by a stalled engine."},
	"resets":             {Family: "device_resets_total", Help: "Device resets."},
	"software":           {Family: "device_software_total", Help: "Instructions the backend computed in software."},
	"device_failures":    {Family: "device_failures_total", Help: "Instructions the device failed without executing them (errors, resets, timeouts)."},
	"retries":            {Family: "retries_total", Help: "Instructions sent to the device again after a failure."},
	"fallbacks":          {Family: "fallbacks_total", Help: "Instructions computed in software instead of on the device."},
	"circuit_opens":      {Family: "circuit_opens_total", Help: "Times a circuit breaker opened."},
	"results_rejected":   {Family: "results_rejected_total", Help: "Private-key results from the device that failed their check."},
	"results_recomputed": {Family: "results_recomputed_total", Help: "Rejected results recomputed without CRT and released after passing their check."},
}
