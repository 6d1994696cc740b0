#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/metrics_test.sh - cptstat -listen as Prometheus scrapes it: nginx
# workers and an `openssl speed` run work through cptprov while cptstat
# serves /metrics; a scrape over HTTP (curl) has the live processes'
# counters, nonzero, with their Prometheus types (counters, gauges, the
# latency histogram), and passes `promtool check metrics`; `cptstat -prom`
# prints the same metric families; once the speed run is stopped, the next
# scrape has none of its series and the nginx workers' are still there.
# With CPTPROV_TEST_BACKEND=dpdk, on DPDK's devices: the backend's own
# statistics in the scrape too.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cpt_require_build
B=$(cpt_build_dir)
command -v promtool >/dev/null || cpt_abort setup "promtool is not installed (tests/deps.sh installs prometheus)"
cpt_server_test_setup nginx cpt-metrics

PORT=$(cpt_free_port)
cpt_nginx_start "$T" "$CONF" "$PORT" ||
	cpt_abort nginx "did not start: $(tail -5 "$T/logs/start.log" "$T/logs/error.log" 2>/dev/null)"
mapfile -t workers < <(cpt_nginx_workers "$T")
# Every block on the device (and some in its latency samples): no CPU
# path, and blocks of 16 KiB, which the dpdk backend's devices take too.
CPTPROV_CPU_THRESHOLD=0 OPENSSL_CONF=$CONF cpt_run_pid "$T/speed.pid" 60 \
	openssl speed -seconds 20 -bytes 16384 -evp aes-256-gcm >"$T/speed.log" 2>&1 &
cpt_on_exit "kill $!"
cpt_wait_file_grep "$T/speed.pid" . 5 || cpt_abort speed "openssl speed did not start"
SPEED=$(cat "$T/speed.pid")
MPORT=$(cpt_free_port)
cpt_exporter_start EXPORTER "$B/cptstat" "$STATS" "$MPORT" ||
	cpt_abort exporter "cptstat -listen did not listen: $(cat "$STATS.exporter.log")"
for n in 1024 65536 1048576; do
	curl -sS --cacert "$T/ca.crt" --resolve "localhost:$PORT:127.0.0.1" -o /dev/null "https://localhost:$PORT/f$n" ||
		cpt_fail fetch "f$n from nginx"
done
cpt_stats_wait "$STATS" "$SPEED" AES-256-GCM device 10 || cpt_fail speed "no AES-256-GCM by the device in $SPEED"
sleep 0.5 # a publication of the device counters (four a second)

scrape() { # FILE: one scrape of /metrics, 0 when it answered 200
	curl -sSf -o "$1" "http://127.0.0.1:$MPORT/metrics" 2>"$1.err"
}
if scrape "$T/scrape1.txt"; then
	cpt_pass scrape "$(grep -vc '^#' "$T/scrape1.txt") samples from http://127.0.0.1:$MPORT/metrics"
else
	cpt_abort scrape "$(cat "$T/scrape1.txt.err")"
fi

# The live processes' counters, in the scrape.
why=""
for p in "${workers[@]}"; do
	n=$(cpt_prom_sum "$T/scrape1.txt" cptprov_ops_total "$p")
	[ "${n:-0}" -gt 0 ] || why="$why worker $p: ops ${n:-none};"
done
families="cptprov_ops_total cptprov_device_total cptprov_queue_submitted_total cptprov_request_latency_seconds_count"
[ "${CPTPROV_TEST_BACKEND:-}" != dpdk ] || families="$families cptprov_backend_stat"
for f in $families; do
	n=$(cpt_prom_sum "$T/scrape1.txt" "$f" "$SPEED")
	[ "${n:-0}" -gt 0 ] || why="$why speed $SPEED: $f ${n:-none};"
done
if [ -z "$why" ]; then
	cpt_pass live-counters "nginx workers ${workers[*]} and openssl speed $SPEED counted, nonzero"
else
	cpt_fail live-counters "$why"
fi

# Their types.
why=""
for t in "cptprov_ops_total counter" "cptprov_queue_completed_total counter" "cptprov_queue_in_flight gauge" \
	"cptprov_queue_ring_depth gauge" "cptprov_request_latency_seconds histogram"; do
	grep -qx "# TYPE $t" "$T/scrape1.txt" || why="$why $t;"
done
if [ -z "$why" ]; then
	cpt_pass types "counters _total, in flight and ring depth gauges, latency a histogram"
else
	cpt_fail types "missing or mistyped:$why"
fi

if out=$(promtool check metrics <"$T/scrape1.txt" 2>&1) && [ -z "$out" ]; then
	cpt_pass promtool "promtool check metrics: nothing to say"
else
	cpt_fail promtool "$out"
fi

# -prom: the same collector, so the same families.
"$B/cptstat" -dir "$STATS" -prom >"$T/prom.txt" 2>&1
if diff <(grep '^# TYPE' "$T/scrape1.txt") <(grep '^# TYPE' "$T/prom.txt") >"$T/families.diff"; then
	cpt_pass prom-same "cptstat -prom: the same $(grep -c '^# TYPE' "$T/prom.txt") metric families"
else
	cpt_fail prom-same "$(head -10 "$T/families.diff")"
fi

# An exited process's series go with it.
kill "$SPEED"
cpt_wait_pid "$SPEED" 10
if scrape "$T/scrape2.txt"; then
	gone=$(grep -c "pid=\"$SPEED\"" "$T/scrape2.txt")
	kept=$(cpt_prom_sum "$T/scrape2.txt" cptprov_ops_total "${workers[0]}")
	if [ "$gone" = 0 ] && [ "${kept:-0}" -gt 0 ] && [ ! -e "$STATS/cptprov-$SPEED.stats" ]; then
		cpt_pass exited "no series of $SPEED after it stopped (its file removed), worker ${workers[0]}'s still there"
	else
		cpt_fail exited "$gone series of $SPEED left; worker ${workers[0]} ops ${kept:-none}"
	fi
else
	cpt_fail exited "second scrape: $(cat "$T/scrape2.txt.err")"
fi
cpt_finish
