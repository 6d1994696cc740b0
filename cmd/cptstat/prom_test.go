// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"cptprov/stats"
)

// parse reads the text format back, failing on anything malformed.
func parse(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("%v in:\n%s", err, text)
	}
	return mfs
}

// series returns the metric of family name whose labels include want.
func series(mfs map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	mf := mfs[name]
	if mf == nil {
		return nil
	}
next:
	for _, m := range mf.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

// A scrape of a live process and of one that then exits: each kind of
// counter with its Prometheus type and labels, the latency histogram
// cumulative with its count and sum, the same text through -prom and over
// HTTP, and the exited process's series gone at the next scrape.
func TestCollector(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	self, other := os.Getpid(), child.Process.Pid
	write(t, dir, doc(self, 3))
	d := doc(other, 4)
	d.Device["ae_in_flight"] = 2
	d.Device["dpdk_ops_out"] = 5
	write(t, dir, d)
	reg := newRegistry(func() ([]stats.Snapshot, error) { return Load(dir, true) })

	var text bytes.Buffer
	if err := WriteProm(&text, reg); err != nil {
		t.Fatal(err)
	}
	mfs := parse(t, text.Bytes())
	pid := strconv.Itoa(self)
	for _, c := range []struct {
		family string
		labels map[string]string
		typ    dto.MetricType
		value  float64
	}{
		{"cptprov_ops_total", map[string]string{"pid": pid, "algorithm": "AES-256-GCM", "backend": "simulator"}, dto.MetricType_COUNTER, 3},
		{"cptprov_bytes_total", map[string]string{"pid": pid, "algorithm": "AES-256-GCM"}, dto.MetricType_COUNTER, 30},
		{"cptprov_queue_submitted_total", map[string]string{"pid": pid, "queue": "se"}, dto.MetricType_COUNTER, 3},
		{"cptprov_queue_in_flight_max", map[string]string{"pid": pid, "queue": "se"}, dto.MetricType_GAUGE, 3},
		{"cptprov_queue_in_flight", map[string]string{"pid": strconv.Itoa(other), "queue": "ae"}, dto.MetricType_GAUGE, 2},
		{"cptprov_queue_phase_seconds_total", map[string]string{"pid": pid, "queue": "se", "phase": "wait"}, dto.MetricType_COUNTER, 2e-6},
		{"cptprov_backend_stat", map[string]string{"pid": strconv.Itoa(other), "name": "dpdk_ops_out"}, dto.MetricType_UNTYPED, 5},
		{"cptprov_processes", nil, dto.MetricType_GAUGE, 2},
	} {
		m := series(mfs, c.family, c.labels)
		if m == nil || mfs[c.family].GetType() != c.typ {
			t.Errorf("%s%v: missing, or not a %v:\n%s", c.family, c.labels, c.typ, text.String())
			continue
		}
		var v float64
		switch c.typ {
		case dto.MetricType_COUNTER:
			v = m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			v = m.GetGauge().GetValue()
		default:
			v = m.GetUntyped().GetValue()
		}
		if math.Abs(v-c.value) > 1e-12 {
			t.Errorf("%s%v = %g, want %g", c.family, c.labels, v, c.value)
		}
	}
	// doc's histogram {0, 1, 2, 0, 1} in the area's 21 buckets (the last,
	// everything over 2^19 µs, is +Inf's): under 2 µs 1, under 4 µs 3,
	// under 8 µs 3, under 16 µs 4
	h := series(mfs, "cptprov_request_latency_seconds", map[string]string{"pid": pid, "queue": "se"})
	if h == nil || mfs["cptprov_request_latency_seconds"].GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("no latency histogram:\n%s", text.String())
	}
	hist := h.GetHistogram()
	if hist.GetSampleCount() != 4 || math.Abs(hist.GetSampleSum()-3e-6) > 1e-12 || len(hist.Bucket) != stats.LatencyBuckets ||
		!math.IsInf(hist.Bucket[stats.LatencyBuckets-1].GetUpperBound(), 1) {
		t.Fatalf("histogram %v", hist)
	}
	for _, want := range []struct {
		i  int
		le float64
		n  uint64
	}{{0, 1e-6, 0}, {1, 2e-6, 1}, {2, 4e-6, 3}, {3, 8e-6, 3}, {4, 16e-6, 4}, {stats.LatencyBuckets - 2, 0.524288, 4}} {
		if b := hist.Bucket[want.i]; b.GetUpperBound() != want.le || b.GetCumulativeCount() != want.n {
			t.Errorf("bucket %d: le %g count %d, want le %g count %d", want.i, b.GetUpperBound(), b.GetCumulativeCount(), want.le, want.n)
		}
	}

	srv := httptest.NewServer(handler(reg))
	defer srv.Close()
	scrape := func() []byte {
		t.Helper()
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape: %v, %s: %s", err, resp.Status, b)
		}
		return b
	}
	if got := scrape(); !bytes.Equal(got, text.Bytes()) {
		t.Fatalf("-prom and /metrics differ:\n%s\n---\n%s", text.String(), got)
	}

	child.Process.Kill()
	child.Wait()
	mfs = parse(t, scrape())
	for name := range mfs {
		if m := series(mfs, name, map[string]string{"pid": strconv.Itoa(other)}); m != nil {
			t.Errorf("%s of the exited process %d still scraped", name, other)
		}
	}
	if series(mfs, "cptprov_ops_total", map[string]string{"pid": pid}) == nil || series(mfs, "cptprov_processes", nil).GetGauge().GetValue() != 1 {
		t.Errorf("the live process's series went too")
	}
}
