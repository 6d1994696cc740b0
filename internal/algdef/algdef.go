// SPDX-License-Identifier: Apache-2.0

// Package algdef reads the provider's X-macro lists and writes Go's copies
// of them: provider/algorithms.def, the symmetric algorithms cptprov runs
// on the device (dispatch/algorithms_gen.go), and provider/reasons.def, the
// reason codes it raises (dispatch/reasons_gen.go). The C side includes
// each file as an X-macro list; this package reads the same lines, and
// refuses any line that the C preprocessor could read differently
// (conditionals, includes, macros of its own, rows spread over lines), so
// that both sides see one list.
package algdef

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// MaxSlots bounds the counter slots (CPT_MAX_ALGS).
const MaxSlots = 64

// Family is a CPU path threshold family (the cpu_threshold_<Name> key).
type Family struct {
	Name      string
	Threshold int
}

// Base is where a kind of counter slot starts (CPT_ALG_<ID>_BASE).
type Base struct {
	ID  string
	Num int
}

// Cipher is a row of CPT_CIPHER or CPT_STITCHED.
type Cipher struct {
	ID     string // CPT_ALG_<ID>
	Num    int
	Names  []string // the canonical name, then the aliases
	Family string
	KeyLen int
	Digest string // CPT_STITCHED: the HMAC's digest (a Digest's ID)
}

// Digest is a row of CPT_DIGEST.
type Digest struct {
	ID         string // CPT_MD_<ID>
	Num        int
	Names      []string
	Family     string
	HMACFamily string
	Size       int
	BlockSize  int
}

// List is the whole file, rows in their order.
type List struct {
	Families []Family
	Bases    []Base
	Ciphers  []Cipher
	Digests  []Digest
}

// Base returns the number of base id, or -1.
func (l *List) Base(id string) int {
	for _, b := range l.Bases {
		if b.ID == id {
			return b.Num
		}
	}
	return -1
}

// argument kinds of the row macros
const (
	ident = 'i'
	num   = 'n'
	str   = 's'
)

// rowSet is the row macros of a file and their arguments, as the file's
// own default definitions spell them (checked when read).
type rowSet map[string]struct{ params, kinds string }

// algRows are algorithms.def's row macros.
var algRows = rowSet{
	"CPT_FAMILY":       {"family, threshold", "in"},
	"CPT_COUNTER_BASE": {"ID, num", "in"},
	"CPT_CIPHER":       {"ID, num, name, aliases, family, keylen", "inssin"},
	"CPT_STITCHED":     {"ID, num, name, family, keylen, digest", "insini"},
	"CPT_DIGEST":       {"ID, num, name, aliases, family, hmac_family, size, blocksize", "inssiinn"},
}

var (
	comment   = regexp.MustCompile(`(?s)/\*.*?\*/`)
	rowLine   = regexp.MustCompile(`^([A-Z_]+)\((.*)\)$`)
	identArg  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	numArg    = regexp.MustCompile(`^[0-9]+$`)
	strArg    = regexp.MustCompile(`^"[^"\\]*"$`)
	directive = regexp.MustCompile(`^#(ifndef|define|endif|undef)\b\s*([A-Z_]*)(.*)$`)
)

// ParseFile reads the list at path.
func ParseFile(path string) (*List, error) {
	return parseFile(path, Parse)
}

func parseFile[T any](path string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	b, err := os.ReadFile(path)
	if err != nil {
		return zero, err
	}
	l, err := parse(b)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Parse reads a list and checks that it is consistent: every number free,
// every family and digest named by a row defined, every slot below
// MaxSlots and used once.
func Parse(src []byte) (*List, error) {
	l := &List{}
	if err := readRows(src, algRows, l.add); err != nil {
		return nil, err
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	return l, nil
}

// row is a row of a file: its macro and its arguments by kind, in order.
type row struct {
	macro string
	ids   []string
	nums  []int
	strs  []string
}

// readRows reads a file of the row macros of set, passing each row to add.
func readRows(src []byte, set rowSet, add func(row) error) error {
	if bytes.Contains(comment.ReplaceAll(src, nil), []byte("//")) {
		return fmt.Errorf("// comments are not allowed: /* */ only")
	}
	// Comments become blanks with their newlines, so that lines keep
	// their numbers.
	text := comment.ReplaceAllFunc(src, func(c []byte) []byte {
		return bytes.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, c)
	})
	for i, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		r, err := set.line(line)
		if err == nil && r.macro != "" {
			err = add(r)
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return nil
}

// line reads one line: a row, or a directive (an empty row).
func (set rowSet) line(line string) (row, error) {
	if strings.HasSuffix(line, `\`) {
		return row{}, fmt.Errorf("continued line: a row is one line")
	}
	if strings.HasPrefix(line, "#") {
		return row{}, set.directiveLine(line)
	}
	m := rowLine.FindStringSubmatch(line)
	if m == nil {
		return row{}, fmt.Errorf("not a row: %q", line)
	}
	r, ok := set[m[1]]
	if !ok {
		return row{}, fmt.Errorf("unknown row %s", m[1])
	}
	args, err := splitArgs(m[2])
	if err != nil {
		return row{}, fmt.Errorf("%s: %w", m[1], err)
	}
	if len(args) != len(r.kinds) {
		return row{}, fmt.Errorf("%s: %d arguments, want %d (%s)", m[1], len(args), len(r.kinds), r.params)
	}
	out := row{macro: m[1]}
	for j, a := range args {
		switch r.kinds[j] {
		case ident:
			if !identArg.MatchString(a) {
				return row{}, fmt.Errorf("%s: argument %d (%s) is not an identifier: %s", m[1], j+1, r.params, a)
			}
			out.ids = append(out.ids, a)
		case num:
			if !numArg.MatchString(a) {
				return row{}, fmt.Errorf("%s: argument %d (%s) is not a number: %s", m[1], j+1, r.params, a)
			}
			n, err := strconv.Atoi(a)
			if err != nil {
				return row{}, err
			}
			out.nums = append(out.nums, n)
		case str:
			if !strArg.MatchString(a) {
				return row{}, fmt.Errorf("%s: argument %d (%s) is not a plain string: %s", m[1], j+1, r.params, a)
			}
			out.strs = append(out.strs, a[1:len(a)-1])
		}
	}
	return out, nil
}

// add takes a row of algorithms.def.
func (l *List) add(r row) error {
	ids, nums, strs := r.ids, r.nums, r.strs
	switch r.macro {
	case "CPT_FAMILY":
		l.Families = append(l.Families, Family{ids[0], nums[0]})
	case "CPT_COUNTER_BASE":
		l.Bases = append(l.Bases, Base{ids[0], nums[0]})
	case "CPT_CIPHER":
		names, err := nameList(strs[0], strs[1])
		if err != nil {
			return err
		}
		l.Ciphers = append(l.Ciphers, Cipher{ID: ids[0], Num: nums[0], Names: names, Family: ids[1], KeyLen: nums[1]})
	case "CPT_STITCHED":
		names, err := nameList(strs[0], "")
		if err != nil {
			return err
		}
		l.Ciphers = append(l.Ciphers, Cipher{ID: ids[0], Num: nums[0], Names: names, Family: ids[1], KeyLen: nums[1], Digest: ids[2]})
	case "CPT_DIGEST":
		names, err := nameList(strs[0], strs[1])
		if err != nil {
			return err
		}
		l.Digests = append(l.Digests, Digest{ID: ids[0], Num: nums[0], Names: names, Family: ids[1], HMACFamily: ids[2],
			Size: nums[1], BlockSize: nums[2]})
	}
	return nil
}

// directiveLine accepts the file's own default definitions of its row
// macros, which expand to nothing, and nothing else.
func (set rowSet) directiveLine(line string) error {
	m := directive.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("directive not allowed: %q", line)
	}
	op, name, rest := m[1], m[2], strings.TrimSpace(m[3])
	if op == "endif" {
		if name != "" || rest != "" {
			return fmt.Errorf("directive not allowed: %q", line)
		}
		return nil
	}
	r, ok := set[name]
	if !ok {
		return fmt.Errorf("directive for an unknown macro: %q", line)
	}
	if op == "define" {
		if rest != "("+r.params+")" {
			return fmt.Errorf("%s must be defined as %s(%s), with an empty expansion", name, name, r.params)
		}
	} else if rest != "" {
		return fmt.Errorf("directive not allowed: %q", line)
	}
	return nil
}

// splitArgs splits a row's arguments at the commas outside strings.
func splitArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ',' && !quoted:
			args = append(args, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated string")
	}
	return append(args, strings.TrimSpace(cur.String())), nil
}

// nameList is a row's canonical name followed by its aliases, which the C
// side appends to it: empty, or each after a colon.
func nameList(name, aliases string) ([]string, error) {
	if name == "" || strings.Contains(name, ":") {
		return nil, fmt.Errorf("name %q: one non-empty name", name)
	}
	names := []string{name}
	if aliases == "" {
		return names, nil
	}
	if !strings.HasPrefix(aliases, ":") {
		return nil, fmt.Errorf("aliases %q: each after a colon", aliases)
	}
	for _, a := range strings.Split(aliases[1:], ":") {
		if a == "" {
			return nil, fmt.Errorf("aliases %q: an empty alias", aliases)
		}
		names = append(names, a)
	}
	return names, nil
}

func (l *List) check() error {
	families := map[string]bool{}
	for _, f := range l.Families {
		if families[f.Name] {
			return fmt.Errorf("family %s twice", f.Name)
		}
		families[f.Name] = true
	}
	family := func(row, f string) error {
		if !families[f] {
			return fmt.Errorf("%s: unknown family %s", row, f)
		}
		return nil
	}
	slots := map[int]string{}
	slot := func(n int, what string) error {
		if n <= 0 || n >= MaxSlots {
			return fmt.Errorf("%s: counter slot %d outside 1 to %d", what, n, MaxSlots-1)
		}
		if o, ok := slots[n]; ok {
			return fmt.Errorf("%s: counter slot %d is %s's", what, n, o)
		}
		slots[n] = what
		return nil
	}
	names := map[string]string{}
	name := func(row string, ns []string) error {
		for _, n := range ns {
			k := strings.ToLower(n)
			if o, ok := names[k]; ok {
				return fmt.Errorf("%s: name %s is %s's", row, n, o)
			}
			names[k] = row
		}
		return nil
	}
	ids := map[string]bool{}
	id := func(prefix, s string) error {
		if ids[prefix+s] {
			return fmt.Errorf("%s%s twice", prefix, s)
		}
		ids[prefix+s] = true
		return nil
	}
	md, mac := l.Base("MD"), l.Base("MAC")
	if md < 0 || mac < 0 || len(l.Bases) != 2 {
		return fmt.Errorf("the counter bases are MD and MAC")
	}
	digests := map[string]bool{}
	for _, d := range l.Digests {
		for _, err := range []error{id("CPT_MD_", d.ID), family(d.ID, d.Family), family(d.ID, d.HMACFamily),
			slot(md+d.Num, "digest "+d.ID), slot(mac+d.Num, "HMAC "+d.ID), name(d.ID, d.Names)} {
			if err != nil {
				return err
			}
		}
		if d.Num+md >= mac {
			return fmt.Errorf("digest %s: id %d reaches the HMAC slots", d.ID, d.Num)
		}
		digests[d.ID] = true
	}
	for _, c := range l.Ciphers {
		for _, err := range []error{id("CPT_ALG_", c.ID), family(c.ID, c.Family), slot(c.Num, "cipher "+c.ID), name(c.ID, c.Names)} {
			if err != nil {
				return err
			}
		}
		if c.Digest != "" && !digests[c.Digest] {
			return fmt.Errorf("%s: unknown digest %s", c.ID, c.Digest)
		}
	}
	return nil
}

// goName is the Go spelling of a C id or family: AES_128_GCM is AES128GCM.
func goName(s string) string {
	return strings.ReplaceAll(strings.ToUpper(s), "_", "")
}

// Go is dispatch/algorithms_gen.go: the ids as constants and the rows as
// the tables package dispatch builds its ciphers and digests from.
func (l *List) Go() ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// SPDX-License-Identifier: Apache-2.0\n\n")
	p("// Code generated by internal/algdef from provider/algorithms.def; DO NOT EDIT.\n\n")
	p("package dispatch\n\n")
	consts := func(doc string, names []string, nums []int) {
		p("// %s\nconst (\n", doc)
		for i, n := range names {
			p("%s = %d\n", n, nums[i])
		}
		p(")\n\n")
	}
	var names []string
	var nums []int
	for _, c := range l.Ciphers {
		names, nums = append(names, "Alg"+goName(c.ID)), append(nums, c.Num)
	}
	consts("Cipher ids and counter slots shared with the C side (CPT_ALG_*).", names, nums)
	names, nums = nil, nil
	for _, b := range l.Bases {
		names, nums = append(names, "Alg"+b.ID+"Base"), append(nums, b.Num)
	}
	consts("Where the digests' and HMAC's counter slots start (CPT_ALG_*_BASE).", names, nums)
	names, nums = nil, nil
	for _, d := range l.Digests {
		names, nums = append(names, "MD"+goName(d.ID)), append(nums, d.Num)
	}
	consts("Digest ids shared with the C side (CPT_MD_*): the device's hash types.", names, nums)
	p("// The families (the C side's cpu_threshold_<family> keys).\nconst (\n")
	for i, f := range l.Families {
		if i == 0 {
			p("fam%s family = iota\n", goName(f.Name))
		} else {
			p("fam%s\n", goName(f.Name))
		}
	}
	p("numFamilies\n)\n\n")
	p("var cipherRows = [...]cipherRow{\n")
	for _, c := range l.Ciphers {
		p("{id: Alg%s, name: %q, family: fam%s, keyLen: %d", goName(c.ID), c.Names[0], goName(c.Family), c.KeyLen)
		if c.Digest != "" {
			p(", digest: MD%s", goName(c.Digest))
		}
		p("},\n")
	}
	p("}\n\n")
	p("var mdRows = [...]mdRow{\n")
	for _, d := range l.Digests {
		p("{id: MD%s, names: []string{", goName(d.ID))
		for i, n := range d.Names {
			if i > 0 {
				p(", ")
			}
			p("%q", n)
		}
		p("}, size: %d, blockSize: %d},\n", d.Size, d.BlockSize)
	}
	p("}\n")
	return format.Source(b.Bytes())
}
