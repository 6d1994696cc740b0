#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/cptstat_test.sh - cptstat against running `openssl speed` processes.
#
# Two `openssl speed` runs through an openssl.cnf with a stats_dir, one of
# them with -multi 2 (a parent and two children, forked after loading):
# while they run, cptstat lists every process that works through cptprov,
# its Prometheus text parses (every sample line well formed, each process's
# operations counted) and its JSON names the same processes; once they
# have exited, cptstat lists none and has removed their files.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cpt_require_build
B=$(cpt_build_dir)
cpt_mktemp_dir T cpt-cptstat
STATS=$T/stats
mkdir -p "$STATS"
cpt_write_config "$T/openssl.cnf" "$STATS" "?provider=cptprov"
OPENSSL_CONF=$T/openssl.cnf openssl speed -seconds 4 -bytes 65536 -evp aes-256-gcm >"$T/speed1.log" 2>&1 &
S1=$!
OPENSSL_CONF=$T/openssl.cnf openssl speed -seconds 4 -bytes 65536 -multi 2 -evp aes-128-gcm >"$T/speed2.log" 2>&1 &
S2=$!
sleep 2.5
"$B/cptstat" -dir "$STATS" -prom >"$T/prom.txt" 2>&1
"$B/cptstat" -dir "$STATS" -json >"$T/procs.json" 2>&1
"$B/cptstat" -dir "$STATS" -per-process >"$T/table.txt" 2>&1
mapfile -t children < <(pgrep -P "$S2")
if python3 - "$T/prom.txt" "$T/procs.json" "$S1" "${children[@]}" <<'PY'; then
import json, re, sys
prom, procs, pids = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3:]
sample = re.compile(r'^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9.e+-]+$')
bad = [l for l in prom.splitlines() if not l.startswith("# ") and not sample.match(l)]
assert not bad, "not Prometheus samples: %r" % bad[:3]
listed = {str(p["pid"]) for p in procs}
for pid in pids:
    assert pid in listed, "pid %s not listed (%s)" % (pid, sorted(listed))
    ops = [float(l.rsplit(" ", 1)[1]) for l in prom.splitlines()
           if l.startswith("cptprov_ops_total{") and ('pid="%s"' % pid) in l]
    assert ops and max(ops) > 0, "no operations for pid %s" % pid
print("cptstat: %d processes listed, %d Prometheus samples" % (len(listed), len(prom.splitlines())))
PY
	cpt_pass running "cptstat lists $S1 and the -multi children ${children[*]} with their operations"
else
	cpt_fail running "cptstat output: $(head -c 600 "$T/prom.txt") $(head -c 300 "$T/procs.json")"
fi
if grep -q "processes" "$T/table.txt"; then
	cpt_pass table "top-style table printed"
else
	cpt_fail table "$(head -5 "$T/table.txt")"
fi
wait "$S1" "$S2"
if ls "$STATS"/cptprov-*.stats >/dev/null 2>&1; then
	cpt_pass files-written "the processes left their statistics areas"
else
	cpt_fail files-written "no statistics file at all"
fi
left=$("$B/cptstat" -dir "$STATS" -json)
if [ "$left" = "null" ] && ! ls "$STATS"/cptprov-*.stats >/dev/null 2>&1; then
	cpt_pass cleanup "the exited processes' files are gone"
else
	cpt_fail cleanup "still listed or left: $left $(ls "$STATS")"
fi
cpt_finish
