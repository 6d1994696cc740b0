// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReasonsMatchABI checks that the Reason constants and cptabi.h's
// CPT_REASONS list name the same reasons (the Go library's build checks the
// numbers of those it names), apart from the C side's own.
func TestReasonsMatchABI(t *testing.T) {
	h, err := os.ReadFile("../provider/cptabi.h")
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]bool{}
	// Two reasons with one number would print one's string for the other.
	nums := map[string]string{}
	for _, m := range regexp.MustCompile(`X\(CPT_R_([A-Z0-9_]+), *([^,]+),`).FindAllStringSubmatch(string(h), -1) {
		if other, dup := nums[m[2]]; dup {
			t.Errorf("CPT_R_%s and CPT_R_%s are both number %s", other, m[1], m[2])
		}
		nums[m[2]] = m[1]
	}
	for _, m := range regexp.MustCompile(`X\(CPT_R_([A-Z0-9_]+),[^\n]*`).FindAllStringSubmatch(string(h), -1) {
		if !strings.Contains(m[0], "C side only") {
			c[strings.ReplaceAll(m[1], "_", "")] = true
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := map[string]bool{}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			for _, s := range gd.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					g[strings.ToUpper(strings.TrimPrefix(n.Name, "Reason"))] = true
				}
			}
		}
	}
	if len(c) == 0 || len(g) == 0 {
		t.Fatalf("found %d reasons in cptabi.h, %d in errors.go", len(c), len(g))
	}
	for n := range c {
		if !g[n] {
			t.Errorf("cptabi.h's CPT_R_ reason %s has no Reason constant", n)
		}
	}
	for n := range g {
		if !c[n] {
			t.Errorf("Reason%s is not in cptabi.h's CPT_REASONS", n)
		}
	}
}
