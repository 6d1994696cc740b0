// SPDX-License-Identifier: Apache-2.0

package simulator

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"cptprov/cptdrv"
)

// FaultKind is what the device does wrong.
type FaultKind int

const (
	FaultNone  FaultKind = iota
	FaultError           // complete with CompHWError without executing
	FaultDelay           // execute after a delay
	FaultStall           // never execute nor complete
	FaultReset           // reset the device: every queued instruction fails
	FaultFull            // the group's engines take nothing for Delay: the ring fills up
	FaultCRT             // a CRT exponentiation completes with one half wrong
)

func (k FaultKind) String() string {
	return [...]string{"none", "error", "delay", "stall", "reset", "full", "crt"}[k]
}

// Fault is one injected fault.
type Fault struct {
	Kind  FaultKind
	Delay time.Duration
}

// FaultRule injects Kind into the instructions it selects: every Every-th
// instruction (counting from 1) of the matching ones, or with Rate > 0 each
// with probability Rate (from a generator seeded with the plan's seed, so a
// run can be replayed), starting after Skip of them, at most Limit times (0:
// no limit). Op, when non-zero, restricts the rule to one opcode.
type FaultRule struct {
	Kind  FaultKind
	Delay time.Duration
	Every uint64
	Rate  float64
	Skip  uint64
	Limit uint64
	Op    uint16
}

// FaultPlan is an ordered set of rules; the first rule that selects an
// instruction decides its fault. Absent is a device that is not there at
// all: the driver finds no device when it starts.
type FaultPlan struct {
	Absent bool

	mu    sync.Mutex
	rules []FaultRule
	seen  []uint64
	fired []uint64
	rng   *rand.Rand
}

// NewFaultPlan returns a plan with the given rules; seed drives the rules
// with a rate.
func NewFaultPlan(seed uint64, rules ...FaultRule) *FaultPlan {
	return &FaultPlan{rules: rules, seen: make([]uint64, len(rules)), fired: make([]uint64, len(rules)),
		rng: rand.New(rand.NewPCG(seed, 0x63707470726f76))}
}

// Fired returns how many times each rule has fired.
func (p *FaultPlan) Fired() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]uint64(nil), p.fired...)
}

// Next is the fault the plan gives inst (another backend's use of a plan:
// the dpdk backend's device resets).
func (p *FaultPlan) Next(inst *cptdrv.Instruction) Fault { return p.next(inst) }

// Kinds returns the kinds of the plan's rules, in order.
func (p *FaultPlan) Kinds() []FaultKind {
	var k []FaultKind
	for _, r := range p.rules {
		k = append(k, r.Kind)
	}
	return k
}

func (p *FaultPlan) next(inst *cptdrv.Instruction) Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.rules {
		r := &p.rules[i]
		if r.Op != 0 && r.Op != inst.Op {
			continue
		}
		p.seen[i]++
		n := p.seen[i]
		if n <= r.Skip || (r.Limit != 0 && p.fired[i] >= r.Limit) {
			continue
		}
		if r.Rate > 0 {
			if p.rng.Float64() >= r.Rate {
				continue
			}
		} else if every := max(r.Every, 1); (n-r.Skip)%every != 0 {
			continue
		}
		p.fired[i]++
		return Fault{Kind: r.Kind, Delay: r.Delay}
	}
	return Fault{}
}

func errUnknownGroup(g uint8) error { return fmt.Errorf("simulator: no engine group %d", g) }

// ParseFaultPlan reads a plan written as rules separated by ';', each
// "kind[:key=value,...]" with kind error, delay, stall, reset, full, crt or
// absent, and keys every, rate (a probability), seed, skip, limit, delay (a
// duration: how long a delay lasts, or how long a full ring stays full) and
// op (hex opcode), for example
// "error:rate=0.01;delay:every=7,delay=2ms;stall:skip=50,limit=1;reset:every=500;full:every=300,delay=20ms".
// "absent" alone is a device missing at start.
func ParseFaultPlan(s string) (*FaultPlan, error) {
	var rules []FaultRule
	var seed uint64 = 1
	absent := false
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		kind, args, _ := strings.Cut(part, ":")
		var r FaultRule
		switch strings.TrimSpace(kind) {
		case "error":
			r.Kind = FaultError
		case "delay":
			r.Kind = FaultDelay
			r.Delay = time.Millisecond
		case "stall":
			r.Kind = FaultStall
		case "reset":
			r.Kind = FaultReset
		case "full":
			r.Kind = FaultFull
			r.Delay = 10 * time.Millisecond
		case "crt":
			// Counts and strikes RSA CRT exponentiations only: the fault
			// a private-key operation must catch before its result leaves.
			r.Kind = FaultCRT
			r.Op = cptdrv.Op(cptdrv.MajorModExp, cptdrv.MinorModExpCRT)
		case "absent":
			if args != "" {
				return nil, fmt.Errorf("simulator: fault %q: absent takes no keys", part)
			}
			absent = true
			continue
		default:
			return nil, fmt.Errorf("simulator: fault %q: kind must be error, delay, stall, reset, full, crt or absent", part)
		}
		if args != "" {
			for _, kv := range strings.Split(args, ",") {
				k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
				if !ok {
					return nil, fmt.Errorf("simulator: fault %q: %q is not key=value", part, kv)
				}
				var err error
				switch k {
				case "every":
					r.Every, err = strconv.ParseUint(v, 10, 64)
				case "rate":
					r.Rate, err = strconv.ParseFloat(v, 64)
					if err == nil && !(r.Rate > 0 && r.Rate <= 1) {
						err = fmt.Errorf("%s is not a probability in (0, 1]", v)
					}
				case "seed":
					seed, err = strconv.ParseUint(v, 10, 64)
				case "skip":
					r.Skip, err = strconv.ParseUint(v, 10, 64)
				case "limit":
					r.Limit, err = strconv.ParseUint(v, 10, 64)
				case "delay":
					r.Delay, err = time.ParseDuration(v)
				case "op":
					var op uint64
					op, err = strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 16)
					r.Op = uint16(op)
				default:
					err = fmt.Errorf("unknown key (every, rate, seed, skip, limit, delay, op)")
				}
				if err != nil {
					return nil, fmt.Errorf("simulator: fault %q: %s: %v", part, k, err)
				}
			}
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 && !absent {
		return nil, fmt.Errorf("simulator: empty fault plan %q", s)
	}
	p := NewFaultPlan(seed, rules...)
	p.Absent = absent
	return p, nil
}
