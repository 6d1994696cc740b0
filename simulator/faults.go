package simulator

import (
	"fmt"
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
)

func (k FaultKind) String() string {
	return [...]string{"none", "error", "delay", "stall"}[k]
}

// Fault is one injected fault.
type Fault struct {
	Kind  FaultKind
	Delay time.Duration
}

// FaultRule injects Kind into the instructions it selects. Selection is
// deterministic: every Every-th instruction (counting from 1) of the
// matching ones, starting after Skip of them, at most Limit times (0: no
// limit). Op, when non-zero, restricts the rule to one opcode.
type FaultRule struct {
	Kind  FaultKind
	Delay time.Duration
	Every uint64
	Skip  uint64
	Limit uint64
	Op    uint16
}

// FaultPlan is an ordered set of rules; the first rule that selects an
// instruction decides its fault.
type FaultPlan struct {
	mu    sync.Mutex
	rules []FaultRule
	seen  []uint64
	fired []uint64
}

// NewFaultPlan returns a plan with the given rules.
func NewFaultPlan(rules ...FaultRule) *FaultPlan {
	return &FaultPlan{rules: rules, seen: make([]uint64, len(rules)), fired: make([]uint64, len(rules))}
}

// Fired returns how many times each rule has fired.
func (p *FaultPlan) Fired() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]uint64(nil), p.fired...)
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
		every := r.Every
		if every == 0 {
			every = 1
		}
		if (n-r.Skip)%every != 0 {
			continue
		}
		p.fired[i]++
		return Fault{Kind: r.Kind, Delay: r.Delay}
	}
	return Fault{}
}

func errUnknownGroup(g uint8) error { return fmt.Errorf("simulator: no engine group %d", g) }

// ParseFaultPlan reads a plan written as rules separated by ';', each
// "kind[:key=value,...]" with kind error, delay or stall and keys every,
// skip, limit, delay (a duration) and op (hex opcode), for example
// "error:every=100;delay:every=7,delay=2ms;stall:skip=50,limit=1".
func ParseFaultPlan(s string) (*FaultPlan, error) {
	var rules []FaultRule
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
		default:
			return nil, fmt.Errorf("simulator: fault %q: kind must be error, delay or stall", part)
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
					err = fmt.Errorf("unknown key (every, skip, limit, delay, op)")
				}
				if err != nil {
					return nil, fmt.Errorf("simulator: fault %q: %s: %v", part, k, err)
				}
			}
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("simulator: empty fault plan %q", s)
	}
	return NewFaultPlan(rules...), nil
}
