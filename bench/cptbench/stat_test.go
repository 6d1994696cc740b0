// SPDX-License-Identifier: Apache-2.0

package main

import (
	"math"
	"testing"
)

func TestPoint(t *testing.T) {
	p := point{3, 1, 2}
	if p.median() != 2 || math.Abs(p.spread()-0.5) > 1e-12 {
		t.Errorf("median %v spread %v", p.median(), p.spread())
	}
	if q := (point{1, 2, 3, 10}); q.median() != 2.5 {
		t.Errorf("even median %v", q.median())
	}
	if !math.IsNaN(point{}.median()) || !math.IsNaN(ratio(point{1}, point{})) {
		t.Error("an empty point has a median")
	}
	if r := ratio(point{4}, point{2}); r != 2 {
		t.Errorf("ratio %v", r)
	}
}

// Pairs are divided run by run: a drift that moves both sides of every
// pair cancels, where the ratio of medians keeps it.
func TestPairedRatio(t *testing.T) {
	def := point{100, 200, 130}
	cpt := point{110, 220, 143}
	if q, sp := pairedRatio(cpt, def); math.Abs(q-1.1) > 1e-12 || sp > 1e-12 {
		t.Errorf("paired ratio %v spread %v", q, sp)
	}
	// Runs without a partner (a failed side) are left out.
	if q, _ := pairedRatio(point{2, 4, 9}, point{1, 2}); q != 2 {
		t.Errorf("unpaired run counted: %v", q)
	}
	if q, _ := pairedRatio(point{}, point{}); !math.IsNaN(q) {
		t.Errorf("no pairs, ratio %v", q)
	}
}
