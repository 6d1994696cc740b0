// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The device sits below the provider: nothing under simulator/ may take
// headers from provider/ (what both need lives in include/), so that a
// change to the host's front end cannot change what the device computes.
func TestNoProviderHeaders(t *testing.T) {
	reach := regexp.MustCompile(`(-I\S*/provider\b|#include\s+"[^"]*provider/)`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(path) == "layering_test.go" {
			return err
		}
		switch filepath.Ext(path) {
		case ".go", ".c", ".h":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := reach.Find(b); m != nil {
			t.Errorf("%s reaches into provider/: %s", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
