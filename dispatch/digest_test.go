package dispatch

import (
	"bytes"
	"testing"
)

// Every digest's state fits hashState, and a hash split across a save and a
// load gives the same sum as in one piece.
func TestHashStateRoundTrip(t *testing.T) {
	data := bytes.Repeat([]byte("cptprov"), 100)
	for _, d := range digests {
		var s hashState
		h := d.newHash()
		h.Write(data[:333])
		if err := s.save(h); err != nil {
			t.Fatalf("%s: %v", d.names[0], err)
		}
		h2, err := s.load(d)
		if err != nil {
			t.Fatal(err)
		}
		h2.Write(data[333:])
		want := d.newHash()
		want.Write(data)
		if !bytes.Equal(h2.Sum(nil), want.Sum(nil)) || h2.Size() != d.size {
			t.Fatalf("%s: sums differ", d.names[0])
		}
	}
}
