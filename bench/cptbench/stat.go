// SPDX-License-Identifier: Apache-2.0

package main

import (
	"math"
	"sort"
)

// point is one measured quantity: the runs' values, summarised by their
// median and their spread (half the range, relative to the median).
type point []float64

func (p point) median() float64 {
	if len(p) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), p...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// spread is ±(max-min)/2 as a fraction of the median.
func (p point) spread() float64 {
	if len(p) < 2 {
		return 0
	}
	lo, hi := p[0], p[0]
	for _, v := range p {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	m := p.median()
	if m == 0 {
		return 0
	}
	return (hi - lo) / 2 / m
}

// ratio of two medians (NaN when either is missing).
func ratio(a, b point) float64 {
	d := b.median()
	if d == 0 || math.IsNaN(d) {
		return math.NaN()
	}
	return a.median() / d
}

// pairedRatio is the median of a's runs over b's, run by run, for points
// whose runs are pairs measured at the same moment; spread is theirs.
func pairedRatio(a, b point) (ratio, spread float64) {
	var rs point
	for i := 0; i < len(a) && i < len(b); i++ {
		if b[i] != 0 {
			rs = append(rs, a[i]/b[i])
		}
	}
	return rs.median(), rs.spread()
}
