// SPDX-License-Identifier: Apache-2.0

package main

import "testing"

// Output of OpenSSL 3.0's speed -mr, as seen on this project's machine.
const sampleSpeed = `+DT:rsa2048:10:2048
+R2:29256:2048:10.00
+F2:2:2048:3658.585859:60818.000000
+F4:3:256:50047.474747:16168.000000
+F5:3:256:20551.000000:0.000049
+F5:22:253:30410.000000:0.000033
+H:16:1024
+F:25:AES-128-GCM:1842166784.00:4000000000.50
`

func TestParseSpeed(t *testing.T) {
	r, err := parseSpeed(sampleSpeed)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{
		"rsa2048":    {3658.585859, 60818},
		"ecdsap256":  {50047.474747, 16168},
		"ecdhp256":   {20551, 0},
		"ecdhx25519": {30410, 0},
	}
	for k, v := range want {
		if r.pk[k] != v {
			t.Errorf("%s: %v, want %v", k, r.pk[k], v)
		}
	}
	if g := r.sym["AES-128-GCM"]; g[16] != 1842166784 || g[1024] != 4000000000.5 {
		t.Errorf("AES-128-GCM: %v", g)
	}
	multi := "Got: +H:16384 from 0\nGot: +F:25:AES-256-GCM:3891019776.00 from 0\n" +
		"Got: +H:16384 from 1\nGot: +F:25:AES-256-GCM:4193091584.00 from 1\n+F:25:AES-256-GCM:8084111360.00\n"
	if m, err := parseSpeed(multi); err != nil || m.sym["AES-256-GCM"][16384] != 8084111360 {
		t.Errorf("-multi output: %v %v", m.sym, err)
	}
	if _, err := parseSpeed("Doing nothing\n"); err == nil {
		t.Error("output without results was accepted")
	}
	if _, err := parseSpeed("+F2:2:2048:x:1\n"); err == nil {
		t.Error("a bad number was accepted")
	}
}
