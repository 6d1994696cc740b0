// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// chart is one PNG of the report.
type chart struct{ title, file string }

// charts draws every figure of the report into dir.
func (r *report) charts(dir string) ([]chart, error) {
	var out []chart
	save := func(p *plot.Plot, file string) error {
		p.Legend.Top = true
		if err := p.Save(8*vg.Inch, 5*vg.Inch, filepath.Join(dir, file)); err != nil {
			return err
		}
		out = append(out, chart{p.Title.Text, file})
		return nil
	}
	// The asynchronous targets' operations against ASYNC jobs.
	for _, t := range asyncTargets {
		alg := t.alg
		var def, cp plotter.XYs
		var ticks []plot.Tick
		for i, jobs := range append([]int{0}, r.cfg.jobs...) {
			p := r.pk[pkKey{alg, t.op(), jobs, 0}]
			if p == nil {
				continue
			}
			def = appendXY(def, float64(i), p.def.median())
			cp = appendXY(cp, float64(i), p.cpt.median())
			label := strconv.Itoa(jobs)
			if jobs == 0 {
				label = "sync"
			}
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: label})
		}
		if len(def) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = alg + " " + t.op() + " against ASYNC jobs (one process)"
		p.X.Label.Text = "openssl speed -async_jobs"
		p.Y.Label.Text = "operations per second"
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.3, float64(len(ticks))-0.7
		p.Y.Min = 0
		if err := plotutil.AddLinePoints(p, "default, synchronous", def, "cptprov", cp); err != nil {
			return nil, err
		}
		if err := save(p, alg+"-"+t.op()+"-async.png"); err != nil {
			return nil, err
		}
	}
	// Signatures against processes.
	{
		p := plot.New()
		p.Title.Text = "Signatures against processes (openssl speed -multi)"
		p.X.Label.Text = "processes"
		p.Y.Label.Text = "signatures per second"
		p.Y.Min = 0
		var lines []any
		for _, alg := range []string{"rsa2048", "ecdsap256"} {
			var def, cp plotter.XYs
			for _, n := range r.cfg.procs {
				if q := r.pk[pkKey{alg, "sign", 0, n}]; q != nil {
					def = appendXY(def, float64(n), q.def.median())
					cp = appendXY(cp, float64(n), q.cpt.median())
				}
			}
			if len(def) > 0 {
				lines = append(lines, alg+" default", def, alg+" cptprov", cp)
			}
		}
		if len(lines) > 0 {
			if err := plotutil.AddLinePoints(p, lines...); err != nil {
				return nil, err
			}
			p.X.Tick.Marker = integerTicks(r.cfg.procs)
			if err := save(p, "sign-processes.png"); err != nil {
				return nil, err
			}
		}
	}
	// AES-256-GCM 16 KiB against processes.
	if len(r.symKeys(func(k symKey) bool { return k.procs > 0 })) > 0 {
		p := plot.New()
		p.Title.Text = "AES-256-GCM at 16 KiB against processes"
		p.X.Label.Text = "processes (openssl speed -multi)"
		p.Y.Label.Text = "MB/s (all processes)"
		p.Y.Min = 0
		var def, cp plotter.XYs
		for _, n := range r.cfg.procs {
			if q := r.sym[symKey{"aes-256-gcm", 16384, n}]; q != nil {
				def = appendXY(def, float64(n), q.def.median()/1e6)
				cp = appendXY(cp, float64(n), q.cpt.median()/1e6)
			}
		}
		if err := plotutil.AddLinePoints(p, "default", def, "cptprov", cp); err != nil {
			return nil, err
		}
		p.X.Tick.Marker = integerTicks(r.cfg.procs)
		if err := save(p, "aes-256-gcm-processes.png"); err != nil {
			return nil, err
		}
	}
	// Throughput against block size, one chart per algorithm.
	for _, alg := range append(append([]string(nil), r.cfg.ciphers...), r.cfg.digests...) {
		var def, cp plotter.XYs
		for _, s := range r.cfg.sizes {
			if q := r.sym[symKey{alg, s, 0}]; q != nil {
				def = appendXY(def, float64(s), q.def.median()/1e6)
				cp = appendXY(cp, float64(s), q.cpt.median()/1e6)
			}
		}
		if len(def) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = title(alg) + ": throughput against block size"
		p.X.Label.Text = "bytes per operation (log scale)"
		p.Y.Label.Text = "MB/s"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = integerTicks(r.cfg.sizes)
		p.Y.Min = 0
		if err := plotutil.AddLinePoints(p, "default", def, "cptprov", cp); err != nil {
			return nil, err
		}
		if err := save(p, alg+"-sizes.png"); err != nil {
			return nil, err
		}
	}
	// The calling thread's CPU per operation.
	if len(r.ops) > 0 {
		p := plot.New()
		p.Title.Text = "Calling thread's CPU time per operation"
		p.Y.Label.Text = "µs of CPU per operation"
		var names []string
		for _, alg := range r.cfg.opsAlgs {
			names = append(names, alg)
		}
		w := vg.Points(20)
		for i, c := range []struct {
			label string
			k     func(string) opsKey
		}{
			{"default, sync", func(a string) opsKey { return opsKey{a, dflt, 0} }},
			{"cptprov, sync", func(a string) opsKey { return opsKey{a, cpt, 0} }},
			{"cptprov, 16 ASYNC jobs", func(a string) opsKey { return opsKey{a, cpt, 16} }},
		} {
			var v plotter.Values
			for _, a := range names {
				x := 0.0
				if q := r.ops[c.k(a)]; q != nil {
					x = zeroIfNaN(q.cpuUs.median())
				}
				v = append(v, x)
			}
			bc, err := plotter.NewBarChart(v, w)
			if err != nil {
				return nil, err
			}
			bc.Color = plotutil.Color(i)
			bc.Offset = w * vg.Length(i-1)
			p.Add(bc)
			p.Legend.Add(c.label, bc)
		}
		p.NominalX(names...)
		if err := save(p, "cpu-per-op.png"); err != nil {
			return nil, err
		}
	}
	// TLS servers: with cptprov relative to without.
	if len(r.srv) > 0 {
		p := plot.New()
		p.Title.Text = "TLS servers with cptprov, relative to the same server without it"
		p.Y.Label.Text = "ratio (1 = the same)"
		var names []string
		var v plotter.Values
		for _, k := range r.srvKeys() {
			if strings.HasPrefix(k.what, "server CPU") {
				continue // rates only: above 1 is better for every bar
			}
			names = append(names, k.server+" "+k.what)
			v = append(v, zeroIfNaN(ratio(r.srv[k].cpt, r.srv[k].def)))
		}
		bc, err := plotter.NewBarChart(v, vg.Points(40))
		if err != nil {
			return nil, err
		}
		bc.Color = plotutil.Color(1)
		p.Add(bc)
		one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(v)) - 0.5, Y: 1}})
		if err != nil {
			return nil, err
		}
		p.Add(one)
		p.NominalX(names...)
		p.Y.Min = 0
		if err := save(p, "tls-servers.png"); err != nil {
			return nil, err
		}
	}
	// The time split, stacked.
	if len(r.split) > 0 {
		p := plot.New()
		p.Title.Text = "Where a device operation's time goes (sampled by the driver)"
		p.Y.Label.Text = "µs per operation"
		var names []string
		for i := range r.split {
			names = append(names, fmt.Sprintf("(%d)", i+1))
		}
		p.X.Label.Text = "operations as numbered in the report's table"
		var below *plotter.BarChart
		for i, ph := range []struct {
			label string
			v     func(split) float64
		}{
			{"submit", func(s split) float64 { return s.submit }},
			{"queue wait", func(s split) float64 { return s.wait }},
			{"engine", func(s split) float64 { return s.engine }},
			{"completion", func(s split) float64 { return s.notify }},
		} {
			var v plotter.Values
			for _, s := range r.split {
				v = append(v, ph.v(s))
			}
			bc, err := plotter.NewBarChart(v, vg.Points(30))
			if err != nil {
				return nil, err
			}
			bc.Color = plotutil.Color(i)
			if below != nil {
				bc.StackOn(below)
			}
			below = bc
			p.Add(bc)
			p.Legend.Add(ph.label, bc)
		}
		p.NominalX(names...)
		if err := save(p, "time-split.png"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// integerTicks labels exactly the measured x values.
func integerTicks(xs []int) plot.Ticker {
	var t []plot.Tick
	for _, x := range xs {
		t = append(t, plot.Tick{Value: float64(x), Label: strconv.Itoa(x)})
	}
	return plot.ConstantTicks(t)
}

// appendXY adds a point unless it was not measured (a failed step leaves
// empty points, whose median is NaN).
func appendXY(xys plotter.XYs, x, y float64) plotter.XYs {
	if math.IsNaN(y) {
		return xys
	}
	return append(xys, plotter.XY{X: x, Y: y})
}

func zeroIfNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
