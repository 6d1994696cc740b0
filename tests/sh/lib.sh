# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# tests/sh/lib.sh - shared helpers for the cptprov shell integration tests.
#
# Source it from a test script (bash):  . "$(dirname "$0")/lib.sh"
#
# Provides:
#   cpt_repo_root, cpt_build_dir      where the repository and build/ are
#   cpt_require_build                 fails (exit 2) when build/*.so are missing
#   cpt_mktemp_dir VAR [PREFIX]       a temp dir (path in VAR) removed at exit
#   cpt_on_exit CMD                   registers CMD to run at exit (LIFO)
#   cpt_free_port                     a free TCP port on 127.0.0.1
#   cpt_write_config FILE STATS_DIR [default_properties] [extra provider lines]
#                                     an openssl.cnf loading default + cptprov
#   cpt_stats_get DIR PID ALG FIELD   prints a counter of a process's statistics (or "")
#   cpt_stats_wait DIR PID ALG FIELD SECS   waits until FIELD > 0
#   cpt_stats_show DIR PID            one-line summary of a process's statistics
#   cpt_pass NAME [detail] / cpt_fail NAME [detail]   counting + one line
#   cpt_finish                        prints "N passed, N failed", returns rc
#   cpt_abort NAME [detail]           cpt_fail, cpt_finish and exit 1
#   cpt_run_pid PIDFILE TIMEOUT CMD...  runs CMD under timeout, writing the
#                                     pid CMD itself runs as to PIDFILE
#   cpt_wait_pid PID SECS             waits for a (non-child) pid to vanish
#   cpt_wait_pids SECS "PIDS"         cpt_wait_pid for each of them
#   cpt_tls_server_setup DIR WWW      certificates and files for the server tests
#   cpt_server_test_setup SERVER PREFIX   a server test's tools, dirs, config, files
#   cpt_h2load_signal PORT LOG SIG PID    h2load while PID gets SIG
#   cpt_h2load_clean RC "RESULT"          all of cpt_h2load_signal's requests succeeded
#   cpt_kill_wait SIG PID SECS "PIDS"     signals PID, waits for it and PIDS
#   cpt_tls_fetch_suites PORT DIR WWW LOGS   curl over every server-test suite
#   cpt_nginx_start DIR CONF PORT     nginx, a master and two workers, under CONF
#   cpt_nginx_workers DIR             that nginx's workers, one pid a line
#   cpt_nginx_wait_workers DIR        waits for its two workers
#   cpt_nginx_stop DIR                stops it
#   cpt_exporter_start PIDVAR CPTSTAT DIR PORT   cptstat -listen on PORT
#   cpt_prom_sum FILE FAMILY PID      a process's samples of FAMILY, summed
#
# Everything is bounded: no helper waits longer than it is told.

CPT_PASSED=0
CPT_FAILED=0
VERBOSE=0
OPENSSL=${OPENSSL:-openssl}
CPT_EXIT_CMDS=()

cpt_repo_root() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
}

cpt_build_dir() {
    if [ -n "${CPTPROV_BUILD:-}" ]; then
        (cd "$CPTPROV_BUILD" && pwd)
    else
        echo "$(cpt_repo_root)/build"
    fi
}

cpt_require_build() {
    local b
    b=$(cpt_build_dir)
    if [ ! -f "$b/cptprov.so" ] || [ ! -f "$b/libcptgo.so" ]; then
        echo "missing $b/cptprov.so or $b/libcptgo.so: run 'make all' first" >&2
        exit 2
    fi
    command -v openssl >/dev/null || { echo "openssl not found" >&2; exit 2; }
    command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
    command -v timeout >/dev/null || { echo "timeout not found" >&2; exit 2; }
}

_cpt_run_exit_cmds() {
    local i
    for ((i = ${#CPT_EXIT_CMDS[@]} - 1; i >= 0; i--)); do
        eval "${CPT_EXIT_CMDS[$i]}" >/dev/null 2>&1 || true
    done
    CPT_EXIT_CMDS=()
}

# cpt_on_exit CMD: run CMD (a string, eval'ed) when the script exits.
cpt_on_exit() {
    CPT_EXIT_CMDS+=("$1")
}

trap '_cpt_run_exit_cmds' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# cpt_mktemp_dir VAR [PREFIX]: makes a temp dir, stores its path in the
# variable VAR, and removes it at exit (kept when CPT_KEEP_TMP is set).  Not
# through $(...): the removal must be registered in the calling shell.
cpt_mktemp_dir() {
    local d
    d=$(mktemp -d "${TMPDIR:-/tmp}/${2:-cpt}.XXXXXX") || exit 2
    if [ -z "${CPT_KEEP_TMP:-}" ]; then
        cpt_on_exit "rm -rf '$d'"
    else
        echo "keeping $d" >&2
    fi
    printf -v "$1" '%s' "$d"
}

# cpt_free_port: a TCP port on 127.0.0.1 that nothing listened on a moment
# ago (the caller retries on a bind race).
cpt_free_port() {
    python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# cpt_write_config FILE STATS_DIR [DEFAULT_PROPERTIES] [EXTRA_LINES]
# Writes an openssl.cnf that activates the default provider and cptprov
# (module = absolute path of build/cptprov.so, stats_dir = STATS_DIR).
# DEFAULT_PROPERTIES, when given, goes to [algorithm_sect].  EXTRA_LINES
# (newline separated) are added to cptprov's section.
cpt_write_config() {
    local file=$1 stats=$2 props=${3:-} extra=${4:-} b
    b=$(cpt_build_dir)
    {
        echo "openssl_conf = openssl_init"
        echo
        echo "[openssl_init]"
        echo "providers = provider_sect"
        [ -n "$props" ] && echo "alg_section = algorithm_sect"
        echo
        echo "[provider_sect]"
        echo "default = default_sect"
        echo "cptprov = cptprov_sect"
        echo
        echo "[default_sect]"
        echo "activate = 1"
        echo
        echo "[cptprov_sect]"
        echo "module = $b/cptprov.so"
        [ -n "$stats" ] && echo "stats_dir = $stats"
        [ -n "$extra" ] && printf '%s\n' "$extra"
        # CPTPROV_TEST_BACKEND=NAME: the lines of tests/backends/NAME.conf
        if [ -n "${CPTPROV_TEST_BACKEND:-}" ]; then
            grep -v '^#' "$(cpt_repo_root)/tests/backends/$CPTPROV_TEST_BACKEND.conf"
        fi
        echo "activate = 1"
        if [ -n "$props" ]; then
            echo
            echo "[algorithm_sect]"
            echo "default_properties = $props"
        fi
    } >"$file"
}

# cpt_path_of ALG: the counter that shows ALG's work on the tests' backend:
# "device" where it computes ALG on a device (always, without a test
# backend), "software" where it runs ALG on its CPU path (the "# device:"
# line of tests/backends/$CPTPROV_TEST_BACKEND.conf does not name it).
cpt_path_of() {
    local f pat pats=()
    [ -n "${CPTPROV_TEST_BACKEND:-}" ] || { echo device; return; }
    f="$(cpt_repo_root)/tests/backends/$CPTPROV_TEST_BACKEND.conf"
    read -r -a pats < <(sed -n 's/^# device://p' "$f")
    for pat in "${pats[@]}"; do
        # shellcheck disable=SC2254 # pat is a pattern
        case "$1" in $pat) echo device; return ;; esac
    done
    echo software
}

# cpt_test_backend_workers NAME REF_PID PID...: on the tests' dpdk backend,
# the server workers PID... had DPDK's devices do work (their dpdk_crypto_*
# counters in $STATS), hold no op or mbuf, and run on the CPUs of REF_PID
# (their master: the EAL pins the thread that starts it, the backend gives
# it its affinity back). Nothing without a test backend.
cpt_test_backend_workers() {
    [ "${CPTPROV_TEST_BACKEND:-}" = dpdk ] || return 0
    local name=$1 ref=$2 p want got ops out why="" n=0
    shift 2
    want=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$ref/status")
    for p in "$@"; do
        ops=$(cpt_stats_doc "$STATS" "$p" "sum(v for k, v in j.get('device', {}).items() if k.startswith('dpdk_crypto_'))")
        out=$(cpt_stats_doc "$STATS" "$p" "j.get('device', {}).get('dpdk_ops_out', -1) + j.get('device', {}).get('dpdk_mbufs_out', -1)")
        got=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$p/status")
        if [ "${ops:-0}" -gt 0 ] && [ "$out" = 0 ] && [ "$got" = "$want" ]; then
            n=$((n + ops))
        else
            why="$why pid $p: device requests ${ops:-none}, ops and mbufs out ${out:-none}, CPUs $got (master: $want);"
        fi
    done
    if [ -z "$why" ]; then
        cpt_pass "$name" "DPDK's devices completed $n requests in the workers, nothing left out, the workers on CPUs $want as their master"
    else
        cpt_fail "$name" "$why"
    fi
}

# cpt_stats_doc DIR PID FILTER: runs the Python expression FILTER on the
# process's statistics (cptstat -json, exited processes included) bound to
# j; prints an integer or string result, or nothing when the process has no
# area.
cpt_stats_doc() {
    "$(cpt_build_dir)/cptstat" -dir "$1" -keep-dead -json -pid "$2" 2>/dev/null | python3 -c '
import json, sys
try:
    docs = json.load(sys.stdin) or []
except Exception:
    sys.exit(0)
if not docs:
    sys.exit(0)
j = docs[0]
try:
    v = eval(sys.argv[1])
except Exception:
    sys.exit(0)
if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
    print(v)
' "$3"
}

# cpt_stats_get DIR PID ALG FIELD: prints the counter (empty when the
# process has no statistics area, or the algorithm or field is missing).
cpt_stats_get() {
    cpt_stats_doc "$1" "$2" "j.get('algorithms', {}).get('$3', {}).get('$4')"
}

# cpt_stats_device_get DIR PID KEY: prints a counter of the "device" object
# (submitted, completed, faults, ...), empty when missing.
cpt_stats_device_get() {
    cpt_stats_doc "$1" "$2" "j.get('device', {}).get('$3')"
}

# cpt_stats_pids DIR: the pids that have a statistics area in DIR, one a line.
cpt_stats_pids() {
    local f p
    for f in "$1"/cptprov-*.stats; do
        [ -e "$f" ] || continue
        p=${f##*/cptprov-}
        echo "${p%.stats}"
    done
}

# cpt_stats_wait DIR PID ALG FIELD SECS: returns 0 once FIELD of ALG is > 0
# in the statistics of PID in DIR, 1 after SECS seconds.
cpt_stats_wait() {
    local d=$1 pid=$2 alg=$3 field=$4 secs=${5:-3} v end
    end=$(($(date +%s%N) / 1000000 + secs * 1000))
    while :; do
        v=$(cpt_stats_get "$d" "$pid" "$alg" "$field")
        if [ -n "$v" ] && [ "$v" -gt 0 ]; then
            return 0
        fi
        [ $(($(date +%s%N) / 1000000)) -ge $end ] && return 1
        sleep 0.1
    done
}

# cpt_stats_show DIR PID: a one-line summary of every algorithm's counters.
cpt_stats_show() {
    local line
    line=$(cpt_stats_doc "$1" "$2" '"pid %s: %s" % (j.get("pid"), "; ".join(
        "%s ops=%s bytes=%s device=%s software=%s errors=%s" % (alg, c.get("ops"), c.get("bytes"),
            c.get("device"), c.get("software"), c.get("errors"))
        for alg, c in sorted(j.get("algorithms", {}).items())) or "no algorithms")')
    echo "${line:-$1/cptprov-$2.stats: missing}"
}

cpt_pass() {
    CPT_PASSED=$((CPT_PASSED + 1))
    echo "PASS $1${2:+: $2}"
}

cpt_fail() {
    CPT_FAILED=$((CPT_FAILED + 1))
    echo "FAIL $1${2:+: $2}"
}

# cpt_finish: the closing line; returns 0 only when nothing failed and
# something passed.
cpt_finish() {
    echo "$CPT_PASSED passed, $CPT_FAILED failed"
    [ "$CPT_FAILED" -eq 0 ] && [ "$CPT_PASSED" -gt 0 ]
}

# cpt_abort NAME [DETAIL]: a failure after which the test cannot go on.
cpt_abort() {
    cpt_fail "$@"
    cpt_finish
    exit 1
}

# cpt_run_pid PIDFILE SECS CMD [ARGS...]: runs CMD under `timeout SECS`
# (TERM, then KILL 2 s later) such that the pid CMD runs as (not timeout's)
# is written to PIDFILE before CMD starts.  Returns CMD's status (124 on
# timeout).  Redirect and background it as any command.
cpt_run_pid() {
    local pidfile=$1 secs=$2
    shift 2
    # shellcheck disable=SC2016 # the inner shell expands them
    timeout -k 2 "$secs" sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@"
}

# cpt_wait_pid PID SECS: waits for PID (any process) to exit; 0 when it did.
cpt_wait_pid() {
    local pid=$1 secs=${2:-5} end
    end=$(($(date +%s%N) / 1000000 + secs * 1000))
    while kill -0 "$pid" 2>/dev/null; do
        # A zombie child of ours counts as gone.
        case "$(ps -o stat= -p "$pid" 2>/dev/null)" in Z*) return 0 ;; esac
        [ $(($(date +%s%N) / 1000000)) -ge $end ] && return 1
        sleep 0.05
    done
    return 0
}

# cpt_wait_pids SECS "PID...": cpt_wait_pid for each, one after the other;
# 0 when every one exited.
cpt_wait_pids() {
    local p rc=0
    for p in $2; do
        cpt_wait_pid "$p" "$1" || rc=1
    done
    return $rc
}

# cpt_wait_file_grep FILE PATTERN SECS: waits until FILE contains PATTERN.
cpt_wait_file_grep() {
    local file=$1 pat=$2 secs=${3:-5} end
    end=$(($(date +%s%N) / 1000000 + secs * 1000))
    while ! grep -q -- "$pat" "$file" 2>/dev/null; do
        [ $(($(date +%s%N) / 1000000)) -ge $end ] && return 1
        sleep 0.05
    done
    return 0
}

# cpt_wait_listen PORT SECS: waits until something listens on TCP PORT
# (127.0.0.1 or any address), without connecting to it.
cpt_wait_listen() {
    timeout "$(( ${2:-5} + 1 ))" python3 -c '
import sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
end = time.time() + secs
while True:
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(f).read().splitlines()[1:]
        except OSError:
            continue
        for l in lines:
            p = l.split()
            if p[3] == "0A" and int(p[1].rsplit(":", 1)[1], 16) == port:
                sys.exit(0)
    if time.time() > end:
        sys.exit(1)
    time.sleep(0.05)
' "$1" "${2:-5}"
}

# cpt_script_args "$@": the options every test script takes: -v (verbose),
# -k (keep the temp dirs).
cpt_script_args() {
    local a
    for a in "$@"; do
        # shellcheck disable=SC2034 # VERBOSE: read by the scripts that source this file
        case $a in
        -v) VERBOSE=1 ;;
        -k) CPT_KEEP_TMP=1 ;;
        *) echo "usage: $0 [-v] [-k]" >&2; exit 2 ;;
        esac
    done
}

# cpt_tls_server_setup DIR WWW: for the server tests, RSA-2048 and ECDSA
# P-256 certificates made with the default provider only (DIR/rsa.* and
# DIR/ec.*: .crt, .key, and .pem with both), DIR/ca.crt trusting both, and
# files of 1 KiB, 64 KiB and 1 MiB in WWW (f<size>). Returns 1 on failure.
cpt_tls_server_setup() {
    local d=$1 www=$2 n
    OPENSSL_CONF=/dev/null openssl req -x509 -newkey rsa:2048 -nodes -sha256 -subj /CN=localhost \
        -keyout "$d/rsa.key" -out "$d/rsa.crt" -days 2 >/dev/null 2>&1 || return 1
    OPENSSL_CONF=/dev/null openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -sha256 -subj /CN=localhost -keyout "$d/ec.key" -out "$d/ec.crt" -days 2 >/dev/null 2>&1 || return 1
    cat "$d/rsa.crt" "$d/rsa.key" >"$d/rsa.pem"
    cat "$d/ec.crt" "$d/ec.key" >"$d/ec.pem"
    cat "$d/rsa.crt" "$d/ec.crt" >"$d/ca.crt"
    for n in 1024 65536 1048576; do
        head -c "$n" /dev/urandom >"$www/f$n"
    done
}

# cpt_server_test_setup SERVER PREFIX: a server test's start: SERVER, curl
# and h2load installed (else an abort), a temp dir T (PREFIX) with STATS
# (writable by the workers), WWW and LOGS, CONF an openssl.cnf enabling
# cptprov for every fetch, and cpt_tls_server_setup's certificates and files.
cpt_server_test_setup() {
    local tool
    PATH=$PATH:/usr/sbin
    for tool in "$1" curl h2load; do
        if ! command -v "$tool" >/dev/null; then
            cpt_abort setup "$tool is not installed (tests/deps.sh installs $1, curl and nghttp2-client)"
        fi
    done
    cpt_mktemp_dir T "$2"
    chmod 755 "$T"
    STATS=$T/stats WWW=$T/www LOGS=$T/logs
    mkdir -p "$STATS" "$WWW" "$LOGS"
    chmod 777 "$STATS"
    CONF=$T/openssl.cnf
    cpt_write_config "$CONF" "$STATS" "?provider=cptprov"
    cpt_tls_server_setup "$T" "$WWW" || cpt_abort setup "cannot make the certificates"
}

# cpt_h2load_signal PORT LOG SIG PID: h2load's 3000 requests (8 clients,
# new connections) to PORT, with SIG sent to PID a second in; prints
# "succeeded failed" from its LOG and returns its status.
cpt_h2load_signal() {
    local h2 rc
    timeout 60 h2load -n 3000 -c 8 -m 1 --h1 "https://127.0.0.1:$1/f1024" >"$2" 2>&1 &
    h2=$!
    sleep 1
    kill "-$3" "$4"
    wait $h2
    rc=$?
    sed -n 's/.*requests: .* \([0-9]*\) succeeded, \([0-9]*\) failed.*/\1 \2/p' "$2"
    return $rc
}

# cpt_h2load_clean RC "SUCCEEDED FAILED": cpt_h2load_signal's status and
# output say every request succeeded.
cpt_h2load_clean() {
    [ "$1" = 0 ] && [ "${2% *}" = 3000 ] && [ "${2#* }" = 0 ]
}

# cpt_kill_wait SIG PID SECS "PIDS": sends SIG to PID, then waits up to SECS
# for PID and each of PIDS to exit; 0 when every one did.
cpt_kill_wait() {
    kill "-$1" "$2"
    cpt_wait_pids "$3" "$2 $4"
}

# _cpt_tls_fetch NAME PORT DIR WWW LOGS CURL_ARGS...: every file over a new
# connection, SHA-256 checked; one pass or fail line.
_cpt_tls_fetch() {
    local name=$1 port=$2 d=$3 www=$4 logs=$5 n got want ok=1
    shift 5
    for n in 1024 65536 1048576; do
        got=$(timeout 30 curl -sS --cacert "$d/ca.crt" --resolve "localhost:$port:127.0.0.1" \
            "$@" "https://localhost:$port/f$n" 2>"$logs/$name.err" | sha256sum | cut -d' ' -f1)
        want=$(sha256sum "$www/f$n" | cut -d' ' -f1)
        if [ "$got" != "$want" ]; then
            ok=0
            cpt_fail "$name" "f$n: $(head -c 300 "$logs/$name.err")"
        fi
    done
    [ $ok = 1 ] && cpt_pass "$name" "1 KiB, 64 KiB and 1 MiB intact"
}

# cpt_openssl_at_least MAJOR.MINOR: the openssl command is at least that
# version (OpenSSL 3.5 has the hybrid TLS groups, for one).
cpt_openssl_at_least() {
    printf '%s\n' "$1" "$("${OPENSSL:-openssl}" version | awk '{print $2}' | cut -d. -f1,2)" | sort -C -V
}

# cpt_tls_hybrid_groups: the hybrid TLS 1.3 groups of this OpenSSL, each as
# GROUP:ALG with the classical half's cptprov algorithm; none before 3.5.
cpt_tls_hybrid_groups() {
    cpt_openssl_at_least 3.5 && echo X25519MLKEM768:X25519 SecP256r1MLKEM768:ECDH
    return 0
}

# cpt_tls_fetch_hybrid PORT DIR WWW LOGS SUM: for each hybrid group, curl
# offering that group only (so the handshake is on it or fails), and the
# server's count of the group's classical half (device, or software where
# the tests' backend runs it on its CPU path: cpt_path_of), read by the
# command SUM ALG, must have grown: the server's hybrid code ran that half in
# cptprov (the default provider's ML-KEM code fetches X25519 / EC through
# the library context, which prefers cptprov).
cpt_tls_fetch_hybrid() {
    local port=$1 d=$2 www=$3 logs=$4 sum=$5 hg group alg before after
    for hg in $(cpt_tls_hybrid_groups); do
        group=${hg%%:*} alg=${hg#*:}
        before=$($sum "$alg")
        _cpt_tls_fetch "tls13-$group" "$port" "$d" "$www" "$logs" --tlsv1.3 --curves "$group"
        after=$($sum "$alg")
        if [ "${after:-0}" -gt "${before:-0}" ]; then
            cpt_pass "hybrid-$group" "the server's $alg half in cptprov ($(cpt_path_of "$alg")): $before -> $after"
        else
            cpt_fail "hybrid-$group" "no $alg by cptprov in the server for $group ($before -> $after)"
        fi
    done
}

# cpt_tls_fetch_suites PORT DIR WWW LOGS: curl over the TLS 1.3 and TLS 1.2
# suites and groups of the server tests (cpt_tls_server_setup's files and
# CA). TLS 1.3 clients accept either certificate, and the servers present the
# ECDSA one; TLS 1.2 ECDHE-RSA suites take the RSA one, and ECDHE-ECDSA needs
# the certificate's curve among the client's groups.
cpt_tls_fetch_suites() {
    local f="_cpt_tls_fetch"
    $f tls13-aes128gcm-x25519 "$@" --tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256 --curves X25519
    $f tls13-aes256gcm-p256 "$@" --tlsv1.3 --tls13-ciphers TLS_AES_256_GCM_SHA384 --curves P-256
    $f tls13-chacha20-p384 "$@" --tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256 --curves P-384
    $f tls12-ecdhe-rsa-aes128gcm "$@" --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES128-GCM-SHA256 --curves X25519
    $f tls12-ecdhe-rsa-aes256gcm "$@" --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES256-GCM-SHA384 --curves P-256
    $f tls12-ecdhe-rsa-chacha20 "$@" --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-CHACHA20-POLY1305 --curves P-384
    $f tls12-ecdhe-rsa-aes128sha256 "$@" --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES128-SHA256 --curves X25519
    $f tls12-ecdhe-ecdsa-aes128gcm "$@" --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256 --curves X25519:P-256
}

# cpt_nginx_start DIR CONF PORT: Debian's nginx under OPENSSL_CONF=CONF, a
# master and two workers (as root: user root), serving DIR/www over TLS
# 1.2 and 1.3 on 127.0.0.1:PORT with cpt_tls_server_setup's certificates
# in DIR; stopped at exit. Returns 1 when it does not start (its logs in
# DIR/logs).
cpt_nginx_start() {
    local d=$1 conf=$2 port=$3 nginx
    nginx=$(PATH=$PATH:/usr/sbin command -v nginx) || return 1
    mkdir -p "$d/logs" "$d/tmp"
    cat >"$d/nginx.conf" <<EOF
daemon on;
master_process on;
worker_processes 2;
pid $d/nginx.pid;
error_log $d/logs/error.log info;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
events { worker_connections 256; }
http {
    access_log $d/logs/access.log;
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $d/ec.crt;
        ssl_certificate_key $d/ec.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        root $d/www;
    }
}
EOF
    cpt_on_exit "cpt_nginx_stop '$d'"
    OPENSSL_CONF=$conf timeout 20 "$nginx" -c "$d/nginx.conf" -p "$d" >"$d/logs/start.log" 2>&1 || return 1
    cpt_nginx_wait_workers "$d"
}

# cpt_nginx_workers DIR: the workers (the master's children) of the nginx
# whose pid file is DIR/nginx.pid.
cpt_nginx_workers() {
    local m
    m=$(cat "$1/nginx.pid" 2>/dev/null) || return 0
    # An exited worker stays the master's zombie until the master reaps it:
    # not a worker any more (cpt_wait_pid counts it as gone too).
    ps -o pid=,stat= --ppid "$m" 2>/dev/null | awk '$2 !~ /^Z/ {print $1}'
}

# cpt_nginx_wait_workers DIR: 0 once that nginx has its two workers, 1
# after 5 s.
cpt_nginx_wait_workers() {
    for _ in $(seq 50); do
        [ "$(cpt_nginx_workers "$1" | wc -l)" -ge 2 ] && return 0
        sleep 0.1
    done
    return 1
}

# cpt_nginx_stop DIR: a graceful quit of that nginx (SIGQUIT), SIGKILL
# after 10 s.
cpt_nginx_stop() {
    local m
    m=$(cat "$1/nginx.pid" 2>/dev/null) || return 0
    kill -QUIT "$m" 2>/dev/null
    cpt_wait_pid "$m" 10 || kill -KILL "$m" 2>/dev/null
}

# cpt_exporter_start PIDVAR CPTSTAT DIR PORT: CPTSTAT -listen
# 127.0.0.1:PORT -dir DIR in the background (its log: DIR.exporter.log),
# its pid in the variable PIDVAR, killed at exit; 1 when nothing listens
# on PORT within 10 s.
cpt_exporter_start() {
    local pid
    "$2" -listen "127.0.0.1:$4" -dir "$3" >"$3.exporter.log" 2>&1 &
    pid=$!
    cpt_on_exit "kill $pid"
    printf -v "$1" '%s' "$pid"
    cpt_wait_listen "$4" 10
}

# cpt_prom_sum FILE FAMILY PID: the sum of the samples of FAMILY (a
# metric name) with pid="PID" in the Prometheus text FILE; empty when
# there is none.
cpt_prom_sum() {
    awk -v name="$2" -v pid="pid=\"$3\"" '
        index($0, name "{") == 1 && index($0, pid) { s += $NF; n++ }
        END { if (n) printf "%.0f\n", s }' "$1"
}
