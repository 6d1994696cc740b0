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
