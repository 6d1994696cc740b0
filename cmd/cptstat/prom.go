// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"cptprov/internal/version"
	"cptprov/stats"
)

// Collector turns the statistics areas into Prometheus metrics. It reads
// the directory at each scrape (Collect) and keeps nothing between
// scrapes, so a process that has exited has no series at the next one.
type Collector struct {
	load func() ([]stats.Snapshot, error)

	alg       []algMetric
	device    map[string]*prometheus.Desc // by family
	backend   *prometheus.Desc
	latency   *prometheus.Desc
	published *prometheus.Desc
	processes *prometheus.Desc
	info      *prometheus.Desc
}

type algMetric struct {
	desc *prometheus.Desc
	get  func(stats.AlgSnapshot) uint64
}

// The labels of every per-process series: the pid tells processes apart,
// the backend what computed their work.
var procLabels = []string{"pid", "backend"}

// NewCollector returns a collector over what load reads.
func NewCollector(load func() ([]stats.Snapshot, error)) *Collector {
	c := &Collector{load: load, device: map[string]*prometheus.Desc{}}
	algLabels := append(procLabels[:len(procLabels):len(procLabels)], "algorithm")
	for _, m := range []struct {
		name, help string
		get        func(stats.AlgSnapshot) uint64
	}{
		{"ops_total", "Operations cptprov issued, per algorithm.", func(a stats.AlgSnapshot) uint64 { return a.Ops }},
		{"bytes_total", "Input bytes of those operations.", func(a stats.AlgSnapshot) uint64 { return a.Bytes }},
		{"device_total", "Operations completed by the device.", func(a stats.AlgSnapshot) uint64 { return a.Device }},
		{"software_total", "Operations completed on the CPU (the CPU path, or the fallback).", func(a stats.AlgSnapshot) uint64 { return a.Software }},
		{"errors_total", "Operations that failed.", func(a stats.AlgSnapshot) uint64 { return a.Errors }},
	} {
		c.alg = append(c.alg, algMetric{prometheus.NewDesc("cptprov_"+m.name, m.help, algLabels, nil), m.get})
	}
	for _, m := range stats.DeviceMetrics {
		if m.Help == "" {
			continue // described by its family's entry that has the help
		}
		labels := procLabels
		if m.Queue != "" {
			labels = append(labels[:len(labels):len(labels)], "queue")
		}
		if m.Phase != "" {
			labels = append(labels[:len(labels):len(labels)], "phase")
		}
		c.device[m.Family] = prometheus.NewDesc("cptprov_"+m.Family, m.Help, labels, nil)
	}
	// Not "..._counter": promtool refuses a type in a name.
	c.backend = prometheus.NewDesc("cptprov_backend_stat",
		"A statistic of the backend's own (dpdk_*: per device, ops and mbufs out, sessions), of no fixed type.",
		append(procLabels[:len(procLabels):len(procLabels)], "name"), nil)
	c.latency = prometheus.NewDesc("cptprov_request_latency_seconds",
		"Latency of the sampled device requests (one in 64), from submission to the result in the caller's hands.",
		append(procLabels[:len(procLabels):len(procLabels)], "queue"), nil)
	c.published = prometheus.NewDesc("cptprov_stats_published_timestamp_seconds",
		"When the process last copied its device counters into its statistics area (four times a second while it runs).",
		procLabels, nil)
	c.processes = prometheus.NewDesc("cptprov_processes", "Processes with a statistics area, live ones only unless cptstat runs with -keep-dead.", nil, nil)
	c.info = prometheus.NewDesc("cptstat_build_info", "The version of this cptstat (and of the cptprov it was built with).", []string{"version"}, nil)
	return c
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.alg {
		ch <- m.desc
	}
	for _, d := range c.device {
		ch <- d
	}
	ch <- c.backend
	ch <- c.latency
	ch <- c.published
	ch <- c.processes
	ch <- c.info
}

// Collect implements prometheus.Collector: one read of the directory.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.info, prometheus.GaugeValue, 1, version.String())
	procs, err := c.load()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.processes, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.processes, prometheus.GaugeValue, float64(len(procs)))
	for _, p := range procs {
		c.collectProcess(ch, p)
	}
}

func (c *Collector) collectProcess(ch chan<- prometheus.Metric, p stats.Snapshot) {
	pid := strconv.Itoa(p.PID)
	for _, alg := range sortedKeys(p.Algorithms) {
		for _, m := range c.alg {
			ch <- prometheus.MustNewConstMetric(m.desc, prometheus.CounterValue, float64(m.get(p.Algorithms[alg])), pid, p.Backend, alg)
		}
	}
	if p.Time != "" {
		if t, err := time.Parse(time.RFC3339Nano, p.Time); err == nil {
			ch <- prometheus.MustNewConstMetric(c.published, prometheus.GaugeValue, float64(t.UnixNano())/1e9, pid, p.Backend)
		}
	}
	for _, name := range sortedKeys(p.Device) {
		v := p.Device[name]
		m, ok := stats.DeviceMetrics[name]
		if !ok {
			ch <- prometheus.MustNewConstMetric(c.backend, prometheus.UntypedValue, float64(v), pid, p.Backend, name)
			continue
		}
		typ, val := prometheus.CounterValue, float64(v)
		if m.Gauge {
			typ = prometheus.GaugeValue
		}
		if m.PerUnit != 0 {
			val /= m.PerUnit
		}
		lv := []string{pid, p.Backend}
		if m.Queue != "" {
			lv = append(lv, m.Queue)
		}
		if m.Phase != "" {
			lv = append(lv, m.Phase)
		}
		ch <- prometheus.MustNewConstMetric(c.device[m.Family], typ, val, lv...)
	}
	for _, q := range sortedKeys(p.LatencyUS) {
		count, sum, buckets := latencyHistogram(p.LatencyUS[q], p.Device, q)
		ch <- prometheus.MustNewConstHistogram(c.latency, count, sum, buckets, pid, p.Backend, q)
	}
}

// latencyHistogram maps an area's latency buckets (bucket i: requests under
// 2^i µs, the last one everything longer) onto a Prometheus histogram:
// cumulative counts under upper bounds in seconds, the last bucket being
// +Inf (implicit: the count). The sum is that of the same sampled
// requests' phases, which add up to their latencies.
func latencyHistogram(h []uint64, device map[string]uint64, q string) (uint64, float64, map[float64]uint64) {
	buckets := make(map[float64]uint64, len(h))
	var cum uint64
	for i, v := range h {
		cum += v
		if i < len(h)-1 {
			buckets[math.Ldexp(1e-6, i)] = cum
		}
	}
	var sumNS uint64
	for _, ph := range []string{"submit", "wait", "engine", "notify"} {
		sumNS += device[q+"_"+ph+"_ns"]
	}
	return cum, float64(sumNS) / 1e9, buckets
}

// newRegistry holds the collector only: the same metrics for -prom and
// -listen, and none of the exporter's own Go runtime.
func newRegistry(load func() ([]stats.Snapshot, error)) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(load))
	return reg
}

// WriteProm prints one scrape in the Prometheus text format.
func WriteProm(w io.Writer, reg prometheus.Gatherer) error {
	mfs, err := reg.Gather()
	if err != nil {
		return err
	}
	sort.Slice(mfs, func(i, j int) bool { return mfs[i].GetName() < mfs[j].GetName() })
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}

// Serve answers scrapes of /metrics on addr until the process ends.
func Serve(addr string, reg *prometheus.Registry) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "cptstat: serving http://%s/metrics\n", ln.Addr())
	// Slow or stuck clients cannot hold connections forever.
	srv := &http.Server{Handler: handler(reg), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	return srv.Serve(ln)
}

// handler answers /metrics with a scrape, / with a line saying where.
func handler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "cptstat", version.String(), "- cptprov's statistics for Prometheus: /metrics")
	})
	return mux
}
