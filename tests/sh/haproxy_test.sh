#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# haproxy_test.sh - Debian's unmodified haproxy in master-worker mode (-W),
# nbthread 2 and ssl-mode-async, terminating TLS in front of a local HTTP
# backend, with cptprov enabled by openssl.cnf alone. curl fetches files of
# 1 KiB, 64 KiB and 1 MiB over TLS 1.3 and 1.2 suites and groups, SHA-256
# checked; the worker's counters must show cptprov did the signatures, the
# ECDHE keys and the records, and that operations went through ASYNC jobs;
# then a reload (SIGUSR2) while h2load runs, and a stop: no failed request,
# no crash, no process left behind.
#
# Usage: tests/sh/haproxy_test.sh [-v] [-k]     (-k keeps the temp dir)
set -u
. "$(dirname "$0")/lib.sh"

cpt_script_args "$@"
cpt_require_build
cpt_server_test_setup haproxy cpt-haproxy
# GCM records on the device (TLS 1.2's too are the twin's below the
# default threshold), so that records go through ASYNC jobs (async-records).
cpt_write_config "$CONF" "$STATS" "?provider=cptprov" "cpu_threshold_aes_gcm = 0"

# The backend: a plain HTTP file server.
BPORT=$(cpt_free_port)
(cd "$WWW" && exec timeout 300 python3 -m http.server --bind 127.0.0.1 "$BPORT") >"$LOGS/backend.log" 2>&1 &
BACKEND=$!
cpt_on_exit "kill $BACKEND"

PORT=$(cpt_free_port)
# OpenSSL 3.5's hybrid groups first where it has them.
HYBRID_GROUPS=$(for hg in $(cpt_tls_hybrid_groups); do printf '%s:' "${hg%%:*}"; done)
cat >"$T/haproxy.cfg" <<EOF
global
    nbthread 2
    ssl-mode-async
    pidfile $T/haproxy.pid
    ssl-default-bind-ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305:ECDHE-RSA-AES128-SHA256
    ssl-default-bind-curves ${HYBRID_GROUPS}X25519:P-256:P-384
defaults
    mode http
    # On a reload, answer an idle keep-alive connection's next request (with
    # Connection: close) instead of closing it under the client.
    option idle-close-on-response
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend tls
    bind 127.0.0.1:$PORT ssl crt $T/rsa.pem crt $T/ec.pem alpn h2,http/1.1 ssl-min-ver TLSv1.2
    default_backend files
backend files
    server local 127.0.0.1:$BPORT
EOF

master() { cat "$T/haproxy.pid" 2>/dev/null; }
workers() {
    local m
    m=$(master) || return 0
    [ -n "$m" ] || return 0
    pgrep -P "$m" -x haproxy 2>/dev/null || true
}
stop_haproxy() {
    local m
    m=$(master) || return 0
    kill -TERM "$m" 2>/dev/null
    cpt_wait_pid "$m" 10 || kill -KILL "$m" 2>/dev/null
}
cpt_on_exit stop_haproxy

if ! OPENSSL_CONF=$CONF timeout 20 haproxy -W -D -f "$T/haproxy.cfg" >"$LOGS/start.log" 2>&1; then
    sed 's/^/    /' "$LOGS/start.log" | tail -20
    cpt_abort start "haproxy did not start"
fi
for _ in $(seq 50); do
    [ -n "$(workers)" ] && break
    sleep 0.1
done
MASTER=$(master)
cpt_pass start "master $MASTER, worker $(workers | tr '\n' ' ')"

cpt_tls_fetch_suites "$PORT" "$T" "$WWW" "$LOGS"

sleep 1.5
WORKER=$(workers | head -1)
for alg in RSA ECDSA X25519 ECDH AES-128-GCM AES-256-GCM ChaCha20-Poly1305 AES-128-CBC; do
    d=$(cpt_stats_get "$STATS" "$WORKER" "$alg" device)
    s=$(cpt_stats_get "$STATS" "$WORKER" "$alg" software)
    if [ $((${d:-0} + ${s:-0})) -gt 0 ]; then
        cpt_pass "counters-$alg" "device ${d:-0}, software ${s:-0} in the worker"
    else
        cpt_fail "counters-$alg" "$(cpt_stats_show "$STATS" "$WORKER")"
    fi
done
cpt_test_backend_workers devices-dpdk "$MASTER" "$WORKER"
worker_device() { cpt_stats_get "$STATS" "$WORKER" "$1" "$(cpt_path_of "$1")"; }
cpt_tls_fetch_hybrid "$PORT" "$T" "$WWW" "$LOGS" worker_device
# ssl-mode-async: public-key instructions submitted from ASYNC jobs and
# executed by an engine (assisted: inline on a synchronous caller's
# goroutine, or by an asynchronous submitter that found the engines
# behind, which only happens while others wait in the ring for them).
sub=$(cpt_stats_device_get "$STATS" "$WORKER" ae_submitted)
inl=$(cpt_stats_device_get "$STATS" "$WORKER" ae_assisted)
if [ "${sub:-0}" -gt "${inl:-0}" ]; then
    cpt_pass async "$((sub - inl)) of $sub public-key instructions went through ASYNC jobs"
else
    cpt_fail async "no asynchronous public-key instruction (submitted ${sub:-?}, inline ${inl:-?})"
fi
# Records: GCM records go to the device here (cpu_threshold_aes_gcm = 0),
# from ASYNC jobs too.
sub=$(cpt_stats_device_get "$STATS" "$WORKER" submitted)
inl=$(cpt_stats_device_get "$STATS" "$WORKER" assisted)
if [ "${sub:-0}" -gt "${inl:-0}" ]; then
    cpt_pass async-records "$((sub - inl)) of $sub record instructions went through ASYNC jobs"
else
    cpt_fail async-records "no asynchronous record instruction (submitted ${sub:-?}, inline ${inl:-?})"
fi

# Handshakes cut off mid-flight: three openssl s_time clients open new
# connections for 2 s each, three rounds, and drop the ones in progress at
# their deadline. haproxy frees such an SSL once its async fd is readable
# without resuming the job; a signal left on the fd by an earlier operation
# made it free the SSL under an instruction in flight (worker crashes with
# heap corruption). The worker must survive, unchanged, and still serve.
WORKER=$(workers | head -1)
hs=0
for round in 1 2 3; do
    pids=()
    for j in 1 2 3; do
        timeout 30 openssl s_time -connect "127.0.0.1:$PORT" -new -time 2 >"$LOGS/s_time.$round.$j" 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
    for j in 1 2 3; do
        n=$(sed -n 's/^\([0-9]*\) connections in [0-9.]* real seconds.*/\1/p' "$LOGS/s_time.$round.$j")
        hs=$((hs + ${n:-0}))
    done
done
code=$(curl -sk -m 10 -o /dev/null -w '%{http_code}' "https://127.0.0.1:$PORT/f1024" 2>&1)
if [ "$(workers | head -1)" = "$WORKER" ] && kill -0 "$WORKER" 2>/dev/null && [ "$code" = 200 ] && [ "$hs" -gt 0 ]; then
    cpt_pass aborted-handshakes "$hs handshakes by 9 s_time clients cut off at their deadlines; worker $WORKER still serving"
else
    cpt_fail aborted-handshakes "worker before $WORKER, now: $(workers | tr '\n' ' '), handshakes $hs, then a request: HTTP $code"
fi

# A reload (SIGUSR2 to the master) under load: no request may fail; the
# old worker finishes its connections and goes.
OLD=$(workers | tr '\n' ' ')
res=$(cpt_h2load_signal "$PORT" "$LOGS/h2load.log" USR2 "$MASTER")
rc=$?
gone=1
cpt_wait_pids 15 "$OLD" || gone=0
# On SIGUSR2 the old worker would close its idle keep-alive connections
# under h2load's next requests (haproxy's own drop, 0 to 182 of 3000
# measured with and without cptprov); option idle-close-on-response makes it
# answer them with Connection: close instead, so no request may fail. A
# crash would leave no worker (exit-on-failure) and fail the check too.
if cpt_h2load_clean $rc "$res" && [ $gone = 1 ] && [ -n "$(workers)" ]; then
    cpt_pass reload "3000 requests through a reload, none failed; the old worker exited"
else
    cpt_fail reload "h2load rc $rc (succeeded failed: $res), old worker gone: $gone, workers now: $(workers | tr '\n' ' ')"
    tail -5 "$LOGS/h2load.log"
fi

# Stop: the master and its worker exit.
left=0
cpt_kill_wait TERM "$MASTER" 15 "$(workers)" || left=1
if [ $left = 0 ]; then
    cpt_pass stop "master and worker exited"
else
    cpt_fail stop "processes left: $(pgrep -a haproxy)"
fi
cpt_finish
