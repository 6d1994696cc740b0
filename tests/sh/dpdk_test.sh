#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/dpdk_test.sh - the dpdk backend as a host process meets it, on
# DPDK's software cryptodevs (tests/backends/dpdk.conf):
#
#   keys      the dpdk keys are checked at activation: a bad device list, a
#             queue-pair count out of range, a dpdk key with another
#             backend, and backend = dpdk without the shim are refused,
#             each with its reason
#   speed     openssl speed through the devices: a figure, the EAL's lines
#             in cptprov's log and none on the host's stderr, the devices'
#             counters > 0 and no op or mbuf left out
#   multi2    speed -multi 2: the children fork from a parent that never
#             started the EAL; each starts its own and the devices work in
#             both
#   async8    speed -async_jobs 8: ASYNC jobs paused while the devices work
#   claim     the PCI devices a pool, one per process, claimed before the
#             EAL starts (locks held by another process; no hardware needed)
#   server    s_server, started with every CPU allowed: after TLS 1.2 and
#             1.3 handshakes (RSA on crypto_openssl, AES-GCM records on
#             crypto_aesni_gcm) its main thread's CPU affinity is what it
#             was (the EAL pins its caller), and idle it uses no CPU
#   tls, nginx, haproxy
#             tls_test.sh's cases of the algorithms the devices take (and
#             one each of those they do not), nginx_test.sh and
#             haproxy_test.sh (ssl-mode-async), all on the dpdk backend:
#             their checks, and the workers' devices did work, hold
#             nothing, and kept their master's CPUs
#
# Usage: tests/sh/dpdk_test.sh [-v] [-k]
set -u
. "$(dirname "$0")/lib.sh"

cpt_script_args "$@"
cpt_require_build
BUILD=$(cpt_build_dir)
[ -e "$BUILD/libcptdpdk.so" ] || cpt_abort build "$BUILD/libcptdpdk.so is missing (libdpdk-dev not installed when it was built)"
cpt_mktemp_dir T cpt-dpdk
export CPTPROV_TEST_BACKEND=dpdk

# conf NAME [EXTRA_LINES]: an openssl.cnf with the tests' dpdk lines, cptprov
# for every fetch and every size (no CPU path), its log in $T/NAME.log.
conf() {
    mkdir -p "$T/$1.stats"
    cpt_write_config "$T/$1.cnf" "$T/$1.stats" "?provider=cptprov" \
        "log_file = $T/$1.log
log_level = info
cpu_threshold = 0${2:+
$2}"
    echo "$T/$1.cnf"
}

# refused NAME LINES PATTERN [ENV...]: activation with LINES in the section
# (the tests' dpdk lines dropped) fails, with PATTERN in what it says.
refused() {
    local name=$1 lines=$2 pat=$3 cnf out
    shift 3
    cnf=$(CPTPROV_TEST_BACKEND='' conf "$name" "$lines")
    out=$(env "$@" OPENSSL_CONF="$cnf" openssl list -providers 2>&1)
    if grep -q -- "$pat" <<<"$out" "$T/$name.log" 2>/dev/null; then
        cpt_pass "keys-$name" "refused: $(grep -h -o -m1 -- "$pat.\{0,60\}" <<<"$out" "$T/$name.log" 2>/dev/null | head -1)"
    else
        cpt_fail "keys-$name" "not refused with '$pat': $(tail -3 <<<"$out")"
    fi
}

refused devices "backend = dpdk
dpdk_devices = crypto_openssl0;rm" "dpdk_devices"
refused qps "backend = dpdk
dpdk_queue_pairs = 0" "dpdk_queue_pairs"
refused other "dpdk_devices = crypto_openssl0" "applies to backend = dpdk only"
mkdir -p "$T/noshim"
cp "$BUILD/libcptgo.so" "$T/noshim/"
refused noshim "backend = dpdk" "built without DPDK" CPTPROV_GOLIB="$T/noshim/libcptgo.so"

# figure LOG: the k-bytes/s of the AES-256-GCM line, or "".
figure() {
    sed -n 's/^AES-256-GCM[[:space:]]\{1,\}\([0-9][0-9.]*\)k\{0,1\}[[:space:]]*$/\1/p' "$1" | tail -n1
}

# devices_worked NAME PID: the devices' counters of PID are > 0 and nothing
# is out of their pools.
devices_worked() {
    local d=$T/$1.stats pid=$2 gcm out mbufs
    gcm=$(cpt_stats_device_get "$d" "$pid" dpdk_crypto_aesni_gcm0)
    out=$(cpt_stats_device_get "$d" "$pid" dpdk_ops_out)
    mbufs=$(cpt_stats_device_get "$d" "$pid" dpdk_mbufs_out)
    [ "${gcm:-0}" -gt 0 ] && [ "$out" = 0 ] && [ "$mbufs" = 0 ] && return 0
    echo "pid $pid: crypto_aesni_gcm0 ${gcm:-none}, ops out ${out:-none}, mbufs out ${mbufs:-none}"
    return 1
}

# speed NAME ARGS...: openssl speed of AES-256-GCM through the devices.
speed() {
    local name=$1 cnf why
    shift
    cnf=$(conf "$name")
    OPENSSL_CONF=$cnf timeout 60 openssl speed -elapsed -seconds 1 -bytes 16384 "$@" \
        -evp aes-256-gcm >"$T/$name.out" 2>"$T/$name.err"
    local rc=$? fig
    fig=$(figure "$T/$name.out")
    if [ $rc -ne 0 ] || [ -z "$fig" ]; then
        cpt_fail "$name" "rc $rc, no figure: $(tail -3 "$T/$name.err")"
        return
    fi
    if grep -q -i -E 'EAL|dpdk|cryptodev' "$T/$name.err"; then
        cpt_fail "$name" "DPDK wrote to the host's stderr: $(grep -m2 -i -E 'EAL|dpdk|cryptodev' "$T/$name.err")"
        return
    fi
    if ! grep -q 'dpdk: EAL started' "$T/$name.log"; then
        cpt_fail "$name" "no EAL start in cptprov's log"
        return
    fi
    why=""
    for pid in $(cpt_stats_pids "$T/$name.stats"); do
        devices_worked "$name" "$pid" >/dev/null || why="$why $(devices_worked "$name" "$pid")"
    done
    local n
    n=$(cpt_stats_pids "$T/$name.stats" | wc -l)
    if [ -n "$why" ] || [ "$n" -lt "${SPEED_PROCS:-1}" ]; then
        cpt_fail "$name" "$n processes with statistics:$why"
        return
    fi
    # The EAL's run directory goes with its (empty) contents at start.
    for pid in $(cpt_stats_pids "$T/$name.stats"); do
        if [ -e "/var/run/dpdk/cptprov-$pid" ] || [ -e "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/cptprov-$pid" ]; then
            cpt_fail "$name" "pid $pid left its EAL run directory behind"
            return
        fi
    done
    cpt_pass "$name" "${fig}k bytes/s, $n process(es), EAL log in cptprov's log only, no run directory left"
}

speed speed
SPEED_PROCS=2 speed multi2 -multi 2
speed async8 -async_jobs 8

# The claim of PCI devices, which needs no hardware: the listed PCI devices
# are a pool, each process takes the first free one before its EAL starts
# (a POSIX lock on a file in /run/lock, held here by another process), and
# a process that finds none free starts no EAL and computes on the CPU.
PCI_A=0000:ff:1f.6 PCI_B=0000:ff:1f.7
# hold DEV...: another process holds the claims of DEV... until killed; its
# pid in HOLDER.
hold() {
    local f=$T/holder.out
    python3 -c '
import fcntl, sys, time
fs = [open("/run/lock/cptprov-dpdk-%s.lock" % d.replace(":", "_"), "a+") for d in sys.argv[1:]]
for f in fs:
    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("held", flush=True)
time.sleep(120)' "$@" >"$f" 2>&1 &
    HOLDER=$!
    for _ in $(seq 50); do grep -q held "$f" && return 0; sleep 0.1; done
    return 1
}
# claimed NAME PATTERN...: openssl speed with the two PCI devices (and no
# other) configured runs, and its log has each PATTERN.
claimed() {
    local name=$1 cnf miss=""
    shift
    cnf=$(CPTPROV_TEST_BACKEND='' conf "$name" "backend = dpdk
dpdk_devices = $PCI_A, $PCI_B")
    if ! OPENSSL_CONF=$cnf timeout 60 openssl speed -elapsed -seconds 1 -bytes 1024 -evp aes-256-gcm \
        >"$T/$name.out" 2>"$T/$name.err" || [ -z "$(figure "$T/$name.out")" ]; then
        cpt_fail "$name" "speed failed: $(tail -2 "$T/$name.err")"
        return
    fi
    for pat in "$@"; do
        grep -q -- "$pat" "$T/$name.log" || miss="$miss '$pat'"
    done
    if [ -n "$miss" ]; then
        cpt_fail "$name" "not in the log:$miss: $(grep -m3 'dpdk' "$T/$name.log")"
    else
        cpt_pass "$name" "$(grep -h -o -m1 -E 'claims PCI device.*|every configured PCI device.*' "$T/$name.log")"
    fi
}
if hold "$PCI_A"; then
    claimed claim-second "claims PCI device $PCI_B (1 listed before it in use)" "dpdk: EAL started.* -a $PCI_B"
    kill "$HOLDER"; wait "$HOLDER" 2>/dev/null
else
    cpt_fail claim-second "the holder did not take $PCI_A: $(cat "$T/holder.out")"
fi
if hold "$PCI_A" "$PCI_B"; then
    claimed claim-none "every configured PCI device is in use by another process" \
        "no configured cryptodev is free for this process"
    sw=""
    for pid in $(cpt_stats_pids "$T/claim-none.stats"); do
        sw=$(cpt_stats_get "$T/claim-none.stats" "$pid" AES-256-GCM software)
    done
    if grep -q 'EAL started' "$T/claim-none.log" || [ "${sw:-0}" -eq 0 ]; then
        cpt_fail claim-none-cpu "EAL: $(grep -c 'EAL started' "$T/claim-none.log") starts; AES-256-GCM software ${sw:-none}"
    else
        cpt_pass claim-none-cpu "no EAL, AES-256-GCM computed on the CPU ($sw operations)"
    fi
    kill "$HOLDER"; wait "$HOLDER" 2>/dev/null
else
    cpt_fail claim-none "the holder did not take both: $(cat "$T/holder.out")"
fi
# The holder is gone, and its claims with it.
claimed claim-released "claims PCI device $PCI_A (0 listed before it in use)"

# The server: affinity after the EAL started in it, and its idle CPU.
cpt_tls_server_setup "$T" "$T" || cpt_abort server "cannot make certificates"
PORT=$(cpt_free_port)
SCNF=$(conf server)
ALL=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
OPENSSL_CONF=$SCNF taskset -c "$ALL" openssl s_server -accept "127.0.0.1:$PORT" -cert "$T/rsa.crt" \
    -key "$T/rsa.key" -quiet -naccept 1000 >"$T/server.out" 2>&1 &
SPID=$!
cpt_on_exit "kill $SPID 2>/dev/null"
cpt_wait_listen "$PORT" 10 || cpt_abort server "s_server did not listen"
ok=1
for v in -tls1_2 -tls1_3; do
    if ! echo Q | OPENSSL_CONF=/dev/null timeout 10 openssl s_client -connect "127.0.0.1:$PORT" \
        "$v" -cipher ECDHE-RSA-AES256-GCM-SHA384 -ciphersuites TLS_AES_256_GCM_SHA384 \
        -CAfile "$T/ca.crt" -verify_return_error -servername localhost >"$T/client$v.out" 2>&1; then
        ok=0
        cpt_fail "server-handshake$v" "$(tail -3 "$T/client$v.out")"
    fi
done
[ $ok = 1 ] && cpt_pass server-handshakes "TLS 1.2 and 1.3 with the server on the dpdk backend"
# the statistics are published a little later
for _ in $(seq 30); do
    rsa=$(cpt_stats_device_get "$T/server.stats" "$SPID" dpdk_crypto_openssl0)
    gcm=$(cpt_stats_device_get "$T/server.stats" "$SPID" dpdk_crypto_aesni_gcm0)
    [ "${rsa:-0}" -gt 0 ] && [ "${gcm:-0}" -gt 0 ] && break
    sleep 0.1
done
if [ "${rsa:-0}" -gt 0 ] && [ "${gcm:-0}" -gt 0 ]; then
    cpt_pass server-devices "crypto_openssl0 $rsa requests (RSA), crypto_aesni_gcm0 $gcm (records)"
else
    cpt_fail server-devices "crypto_openssl0 ${rsa:-none}, crypto_aesni_gcm0 ${gcm:-none}"
fi
got=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$SPID/status")
if [ "$got" = "$ALL" ]; then
    cpt_pass server-affinity "CPUs $got, as started"
else
    cpt_fail server-affinity "CPUs $got after the EAL started, started with $ALL"
fi
# utime + stime of every thread (fields 14 and 15), in clock ticks
ticks() { awk '{ print $14 + $15 }' "/proc/$SPID/stat"; }
sleep 1
t0=$(ticks)
sleep 3
t1=$(ticks)
hz=$(getconf CLK_TCK)
# The Go runtime's timers and the lanes' parking wake-ups are all an idle
# process may spend: under 1% of a CPU.
if [ $((t1 - t0)) -le $((3 * hz / 100)) ]; then
    cpt_pass server-idle "$((t1 - t0)) ticks of CPU in 3 s idle ($hz a second)"
else
    cpt_fail server-idle "$((t1 - t0)) ticks of CPU in 3 s idle ($hz a second)"
fi
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null

# sub NAME CMD...: another test script on the dpdk backend; its PASS and
# FAIL lines count here.
sub() {
    local name=$1 line
    shift
    while IFS= read -r line; do
        case $line in
        PASS*) CPT_PASSED=$((CPT_PASSED + 1)); echo "PASS $name/${line#PASS }" ;;
        FAIL*) CPT_FAILED=$((CPT_FAILED + 1)); echo "FAIL $name/${line#FAIL }" ;;
        esac
    done < <("$@" 2>&1)
}
TLS_CASES=(tls13-aes256gcm tls12-aes128gcm tls13-aes256gcm-async tls12-aes256gcm-async
    interop-tls13-aes256gcm-cptprov-server interop-tls12-aes128gcm-cptprov-client tls12-aes256cbc-mte
    tls12-aes256cbc-mte-async tls13-aes256gcm-p256 tls12-rsa-kx tls13-chacha20 tls12-chacha20
    tls13-chacha20-async tls12-aes128sha-stitched)
sub tls env TLS_TEST_CASES="${TLS_CASES[*]}" "$(cpt_repo_root)/tests/sh/tls_test.sh"
sub nginx env LOAD_SECS=10 "$(cpt_repo_root)/tests/sh/nginx_test.sh"
sub haproxy "$(cpt_repo_root)/tests/sh/haproxy_test.sh"
cpt_finish
