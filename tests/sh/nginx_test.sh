#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# nginx_test.sh - Debian's unmodified nginx with cptprov enabled by
# openssl.cnf alone (OPENSSL_CONF, default_properties = ?provider=cptprov):
# a master and two workers, RSA-2048 and ECDSA P-256 certificates, TLS 1.2
# and 1.3. curl fetches files of 1 KiB, 64 KiB and 1 MiB over every suite
# and group the issue names, and their SHA-256 is checked; the workers'
# counters must show that cptprov signed the handshakes, generated and
# derived the ECDHE keys and protected the records. Then the life cycle:
# a reload (SIGHUP) under h2load load, and a graceful quit (SIGQUIT): no
# failed request, no crash, no worker left behind.
#
# Usage: tests/sh/nginx_test.sh [-v] [-k]     (-k keeps the temp dir)
set -u
. "$(dirname "$0")/lib.sh"

cpt_script_args "$@"
cpt_require_build
cpt_server_test_setup nginx cpt-nginx
mkdir -p "$T/tmp"

PORT=$(cpt_free_port)
# OpenSSL 3.5's hybrid groups first where it has them.
HYBRID_GROUPS=$(for hg in $(cpt_tls_hybrid_groups); do printf '%s:' "${hg%%:*}"; done)
cat >"$T/nginx.conf" <<EOF
daemon on;
master_process on;
worker_processes 2;
pid $T/nginx.pid;
error_log $LOGS/error.log info;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
events { worker_connections 1024; }
http {
    access_log $LOGS/access.log;
    client_body_temp_path $T/tmp/body;
    proxy_temp_path $T/tmp/proxy;
    fastcgi_temp_path $T/tmp/fastcgi;
    uwsgi_temp_path $T/tmp/uwsgi;
    scgi_temp_path $T/tmp/scgi;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:$PORT ssl http2;
        server_name localhost;
        ssl_certificate $T/rsa.crt;
        ssl_certificate_key $T/rsa.key;
        ssl_certificate $T/ec.crt;
        ssl_certificate_key $T/ec.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-SHA256;
        ssl_ecdh_curve ${HYBRID_GROUPS}X25519:prime256v1:secp384r1;
        ssl_session_cache off;
        ssl_session_tickets off;
        root $WWW;
    }
}
EOF

nginx_pids() { cpt_nginx_workers "$T"; }
cpt_on_exit "cpt_nginx_stop '$T'"

if ! OPENSSL_CONF=$CONF timeout 20 nginx -c "$T/nginx.conf" -p "$T" >"$LOGS/start.log" 2>&1; then
    sed 's/^/    /' "$LOGS/start.log" "$LOGS/error.log" 2>/dev/null | tail -20
    cpt_abort start "nginx did not start"
fi
cpt_nginx_wait_workers "$T"
MASTER=$(cat "$T/nginx.pid")
cpt_pass start "master $MASTER, workers $(nginx_pids | tr '\n' ' ')"

cpt_tls_fetch_suites "$PORT" "$T" "$WWW" "$LOGS"

# The workers' counters: sums over the worker processes (stats files are
# rewritten every second).
sleep 1.5
worker_sum() { # ALG FIELD
    local p s=0 v
    for p in $(nginx_pids); do
        v=$(cpt_stats_get "$STATS" "$p" "$1" "$2")
        s=$((s + ${v:-0}))
    done
    echo "$s"
}
worker_any() { # ALG: device + software of every worker
    echo $(($(worker_sum "$1" device) + $(worker_sum "$1" software)))
}
for alg in RSA ECDSA X25519 ECDH AES-128-GCM AES-256-GCM ChaCha20-Poly1305 AES-128-CBC; do
    n=$(worker_any "$alg")
    if [ "$n" -gt 0 ]; then
        cpt_pass "counters-$alg" "$n operations in the workers (device $(worker_sum "$alg" device))"
    else
        cpt_fail "counters-$alg" "no $alg operation by cptprov in the workers: $(for p in $(nginx_pids); do cpt_stats_show "$STATS" "$p"; done)"
    fi
done

# The Go runtime's monitor thread runs as SCHED_BATCH (provider/golib/
# monitor.go): a thread Go started (threads it starts inherit the
# policy), never nginx's own. Go starts in a worker with its first
# operation (cptprov.so loads libcptgo.so then), and a worker the kernel
# gave no connection has none: it is left out; at least one worker must
# have started Go.
started=0
for p in $(nginx_pids); do
    grep -q '/libcptgo\.so$' /proc/"$p"/maps || continue
    started=$((started + 1))
    batch=$(grep -lE '^policy +: +3$' /proc/"$p"/task/*/sched 2>/dev/null | cut -d/ -f5 | paste -sd' ')
    if [ -n "$batch" ] && ! grep -qw "$p" <<<"$batch"; then
        cpt_pass "monitor-batch-$p" "thread $batch of worker $p is SCHED_BATCH"
    else
        cpt_fail "monitor-batch-$p" "worker $p: SCHED_BATCH threads '${batch}', the monitor's expected, not $p"
    fi
done
[ "$started" -gt 0 ] || cpt_fail monitor-batch "no worker has started Go's runtime"
# shellcheck disable=SC2046 # one pid a word
cpt_test_backend_workers devices-dpdk "$MASTER" $(nginx_pids)

worker_device() { worker_sum "$1" "$(cpt_path_of "$1")"; }
cpt_tls_fetch_hybrid "$PORT" "$T" "$WWW" "$LOGS" worker_device

# cptstat sees the workers: each one listed, and the Prometheus text has
# their GCM operations.
B=$(cpt_build_dir)
if prom=$("$B/cptstat" -dir "$STATS" -prom 2>&1) && listed=$("$B/cptstat" -dir "$STATS" -json 2>&1); then
    missing=""
    for p in $(nginx_pids); do
        grep -q "\"pid\": $p," <<<"$listed" || missing="$missing $p"
        grep -qE "^cptprov_ops_total\{algorithm=\"AES-(128|256)-GCM\",backend=\"[^\"]*\",pid=\"$p\"\} [1-9]" <<<"$prom" || missing="$missing $p(gcm)"
    done
    if [ -z "$missing" ]; then
        cpt_pass cptstat-workers "cptstat lists the workers $(nginx_pids | tr '\n' ' ')and their GCM operations"
    else
        cpt_fail cptstat-workers "cptstat misses workers:$missing"
    fi
else
    cpt_fail cptstat-workers "cptstat failed: $prom $listed"
fi

# A bounded load run: 64 keep-alive connections downloading for LOAD_SECS
# seconds (default 60) while openssl s_time opens new connections (a full
# handshake each) all along. No request may fail; the workers' memory
# (RSS, from a warm-up point to the end) and open files must stay flat.
LOAD_SECS=${LOAD_SECS:-60}
rss_kib() { # the workers' summed RSS
    local p s=0 v
    for p in $(nginx_pids); do
        v=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null)
        s=$((s + ${v:-0}))
    done
    echo "$s"
}
fds() {
    local p s=0
    for p in $(nginx_pids); do
        s=$((s + $(find "/proc/$p/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)))
    done
    echo "$s"
}
FD0=$(fds)
timeout $((LOAD_SECS + 30)) h2load -D "$LOAD_SECS" --warm-up-time 5 -c 64 -m 1 --h1 \
    "https://127.0.0.1:$PORT/f65536" >"$LOGS/load.log" 2>&1 &
LOADPID=$!
timeout $((LOAD_SECS + 30)) openssl s_time -connect "127.0.0.1:$PORT" -new -time "$LOAD_SECS" \
    -CAfile "$T/ca.crt" >"$LOGS/s_time.log" 2>&1 &
STIME=$!
sleep 15
RSS0=$(rss_kib)
wait $LOADPID
lrc=$?
wait $STIME
src=$?
sleep 1
RSS1=$(rss_kib) FD1=$(fds)
res=$(sed -n 's/.*requests: .* \([0-9]*\) succeeded, \([0-9]*\) failed.*/\1 \2/p' "$LOGS/load.log")
conns=$(sed -n 's/^\([0-9]*\) connections in [0-9.]*s.*/\1/p' "$LOGS/s_time.log" | head -1)
growth=$((RSS1 - RSS0))
if [ $lrc = 0 ] && [ $src = 0 ] && [ "${res#* }" = 0 ] && [ "${res% *}" -gt 0 ] && [ "${conns:-0}" -gt 0 ] &&
    [ $growth -lt 32768 ] && [ $((FD1 - FD0)) -le 4 ]; then
    cpt_pass load "${LOAD_SECS} s: ${res% *} downloads of 64 KiB and $conns new connections, none failed; worker RSS ${RSS0} -> ${RSS1} KiB (limit +32 MiB), open files $FD0 -> $FD1"
else
    cpt_fail load "h2load rc $lrc (succeeded failed: $res), s_time rc $src ($conns connections), RSS $RSS0 -> $RSS1 KiB, files $FD0 -> $FD1"
    tail -5 "$LOGS/load.log" "$LOGS/s_time.log"
fi

# A reload under load: h2load keeps requesting (new connections) while the
# master gets SIGHUP; nothing may fail, the old workers must go.
OLD=$(nginx_pids | tr '\n' ' ')
succeeded=$(cpt_h2load_signal "$PORT" "$LOGS/h2load.log" HUP "$MASTER")
rc=$?
gone=1
cpt_wait_pids 10 "$OLD" || gone=0
if cpt_h2load_clean $rc "$succeeded" && [ $gone = 1 ] && [ "$(nginx_pids | wc -l)" = 2 ]; then
    cpt_pass reload "3000 requests through a reload, none failed; the old workers exited"
else
    cpt_fail reload "h2load rc $rc (succeeded/failed: $succeeded), old workers gone: $gone, workers now: $(nginx_pids | tr '\n' ' ')"
    tail -5 "$LOGS/h2load.log"
fi

# Graceful quit: the master and every worker exit, and no core or crash
# shows in the error log.
left=0
cpt_kill_wait QUIT "$MASTER" 15 "$(nginx_pids)" || left=1
if [ $left = 0 ] && ! grep -qE 'signal (6|11)|core dumped|exited on signal' "$LOGS/error.log"; then
    cpt_pass quit "master and workers exited"
else
    cpt_fail quit "$(grep -E 'signal|core' "$LOGS/error.log" | tail -3)"
fi
cpt_finish
