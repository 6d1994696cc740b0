// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// saved is the report's measurements as data.json keeps them, so that the
// report and charts can be drawn again (cptbench -render DIR) without
// measuring again.
type saved struct {
	Quick         bool
	Runs, Seconds int
	PKAlgs        []string
	Jobs, Procs   []int
	Ciphers       []string
	Digests       []string
	Sizes         []int
	OpsAlgs       []string
	Env           [][2]string
	Cmds, Notes   []string
	PK            []savedPK
	Sym           []savedSym
	Ops           []savedOps
	Split         []savedSplit
	Servers       []savedServer
	Attrib        []savedServer
	DPDK          []savedDPDK
}

type savedServer struct {
	Server, What string
	Def, Cpt     []float64
}

type savedPK struct {
	Alg, Op     string
	Jobs, Procs int
	Def, Cpt    []float64
}

type savedSym struct {
	Alg         string
	Size, Procs int
	Def, Cpt    []float64
}

type savedOps struct {
	Alg, Prov   string
	Jobs        int
	Rate, CPUUs []float64
	ProcUs      []float64 `json:",omitempty"`
}

type savedSplit struct {
	Name                         string
	Procs                        int
	Requests, Samples            uint64
	Submit, Wait, Engine, Notify float64
}

func (r *report) save(dir string) error {
	c := r.cfg
	s := saved{Quick: c.quick, Runs: c.runs, Seconds: c.seconds, PKAlgs: c.pkAlgs, Jobs: c.jobs,
		Procs: c.procs, Ciphers: c.ciphers, Digests: c.digests, Sizes: c.sizes, OpsAlgs: c.opsAlgs,
		Env: r.env, Cmds: r.cmds, Notes: r.notes}
	for k, p := range r.pk {
		s.PK = append(s.PK, savedPK{k.alg, k.op, k.jobs, k.procs, p.def, p.cpt})
	}
	for k, p := range r.sym {
		s.Sym = append(s.Sym, savedSym{k.alg, k.size, k.procs, p.def, p.cpt})
	}
	for k, p := range r.ops {
		s.Ops = append(s.Ops, savedOps{k.alg, k.prov, k.jobs, p.rate, p.cpuUs, p.procUs})
	}
	for k, p := range r.dpdk {
		s.DPDK = append(s.DPDK, savedDPDK{k.size, k.jobs, p.def, p.cpt})
	}
	for k, p := range r.srv {
		s.Servers = append(s.Servers, savedServer{k.server, k.what, p.def, p.cpt})
	}
	for k, p := range r.attrib {
		s.Attrib = append(s.Attrib, savedServer{k.workload, k.counter, p.def, p.cpt})
	}
	for _, x := range r.split {
		s.Split = append(s.Split, savedSplit{x.name, x.procs, x.requests, x.samples, x.submit, x.wait, x.engine, x.notify})
	}
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644)
}

func loadReport(dir string) (*report, error) {
	data, err := os.ReadFile(filepath.Join(dir, "data.json"))
	if err != nil {
		return nil, err
	}
	var s saved
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	r := &report{
		cfg: config{quick: s.Quick, runs: s.Runs, seconds: s.Seconds, pkAlgs: s.PKAlgs, jobs: s.Jobs,
			procs: s.Procs, ciphers: s.Ciphers, digests: s.Digests, sizes: s.Sizes, opsAlgs: s.OpsAlgs},
		env: s.Env, cmds: s.Cmds, notes: s.Notes,
		pk: map[pkKey]*pair{}, sym: map[symKey]*pair{}, ops: map[opsKey]*opsPoint{}, srv: map[serverKey]*pair{},
		attrib: map[attribKey]*pair{}, dpdk: map[dpdkKey]*pair{},
	}
	for _, x := range s.Attrib {
		r.attrib[attribKey{x.Server, x.What}] = &pair{x.Def, x.Cpt}
	}
	for _, x := range s.DPDK {
		r.dpdk[dpdkKey{x.Size, x.Jobs}] = &pair{x.Def, x.Cpt}
	}
	for _, x := range s.Servers {
		r.srv[serverKey{x.Server, x.What}] = &pair{x.Def, x.Cpt}
	}
	for _, x := range s.PK {
		r.pk[pkKey{x.Alg, x.Op, x.Jobs, x.Procs}] = &pair{x.Def, x.Cpt}
	}
	for _, x := range s.Sym {
		r.sym[symKey{x.Alg, x.Size, x.Procs}] = &pair{x.Def, x.Cpt}
	}
	for _, x := range s.Ops {
		r.ops[opsKey{x.Alg, x.Prov, x.Jobs}] = &opsPoint{x.Rate, x.CPUUs, x.ProcUs}
	}
	for _, x := range s.Split {
		r.split = append(r.split, split{x.Name, x.Procs, x.Requests, x.Samples, x.Submit, x.Wait, x.Engine, x.Notify})
	}
	return r, nil
}
