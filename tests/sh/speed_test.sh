#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/speed_test.sh - `openssl speed` through cptprov.
#
#   plain         speed -evp aes-256-gcm with -provider flags
#   multi2        the same with -multi 2: the children fork after the parent
#                 loaded the provider; both must report a figure
#   async8        -async_jobs 8: operations run in ASYNC jobs that cptprov
#                 pauses while the device works
#   faults-async4 CPTPROV_FAULTS=delay:every=5,delay=1ms with -async_jobs 4
#   stats-async8  OPENSSL_CONF with stats_dir: the speed process's stats
#                 show AES-256-GCM device > 0
#   stats-multi2  OPENSSL_CONF with stats_dir and -multi 2: each forked child
#                 writes its own stats file with device > 0
#   stats-faults  OPENSSL_CONF + the fault plan: device "faults" > 0 (the
#                 plan was active) and the run still reports a figure
#   threshold-*   64-byte AES-CTR updates on the CPU path by default, on the
#                 device with cpu_threshold_aes_ctr = 0 in openssl.cnf
#
# Each run is `-seconds 1 -bytes 65536` under `timeout`; the figures must
# parse and be > 0.
#
# Usage: tests/sh/speed_test.sh [-v] [-k]
# Env:   CPTPROV_BUILD (default build/), SPEED_TEST_CASES (subset), OPENSSL

set -u
. "$(dirname "$0")/lib.sh"

cpt_script_args "$@"
cpt_require_build
BUILD=$(cpt_build_dir)
START=$(date +%s%N)
cpt_mktemp_dir T cpt-speed
LIMIT=${SPEED_TEST_TIMEOUT:-30}   # seconds per run (each measures ~1 s)
FAULTS='delay:every=5,delay=1ms'

FLAGS=(-provider-path "$BUILD" -provider cptprov -provider default
       -propquery provider=cptprov)
BASE=(-elapsed -seconds 1 -bytes 65536 -evp aes-256-gcm)

selected() {
    [ -z "${SPEED_TEST_CASES:-}" ] || [[ " $SPEED_TEST_CASES " == *" $1 "* ]]
}

# figure LOG: the k-bytes/s figure of the AES-256-GCM result line, or "".
figure() {
    sed -n 's/^AES-256-GCM[[:space:]]\{1,\}\([0-9][0-9.]*\)k\{0,1\}[[:space:]]*$/\1/p' "$1" | tail -n1
}

positive() {
    python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)' "$1" 2>/dev/null
}

# run_speed NAME LOGFILE PIDFILE [ENV=VAL...] -- ARGS...: runs openssl speed
# under timeout; sets RC and ELAPSED_MS.
run_speed() {
    local name=$1 log=$2 pidf=$3 t0
    shift 3
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    t0=$(date +%s%N)
    # shellcheck disable=SC2016 # the inner shell expands them
    env "${envs[@]}" timeout -k 3 "$LIMIT" sh -c 'echo $$ >"$0"; exec "$@"' "$pidf" \
        "$OPENSSL" speed "$@" >"$log" 2>&1 </dev/null
    RC=$?
    ELAPSED_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

# check_run NAME LOG [EXPECT_CHILDREN]: common checks; appends to errs.
check_run() {
    local name=$1 log=$2 children=${3:-0} f n
    if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
        errs+=("timed out after ${LIMIT}s")
    elif [ "$RC" != 0 ]; then
        errs+=("openssl speed exited $RC")
    fi
    f=$(figure "$log")
    if [ -z "$f" ]; then
        errs+=("no 'AES-256-GCM <n>[k]' result line")
    elif ! positive "$f"; then
        errs+=("figure $f is not > 0")
    fi
    FIG=$f
    if [ "$children" -gt 0 ]; then
        # Each child reports "Got: +F:<n>:AES-256-GCM:<bytes/s> from <i>".
        n=$(grep -c '^Got: +F:[0-9]*:AES-256-GCM:[0-9.]*[1-9][0-9.]* from [0-9]' "$log")
        if [ "$n" != "$children" ]; then
            errs+=("$n of $children children reported a positive figure")
        fi
    fi
    if grep -v '^\(compiler\|CPUINFO\|version\|built\|options\):' "$log" |
        grep -qi 'error\|fatal\|panic\|segmentation'; then
        errs+=("errors in the output")
    fi
}

finish_case() {
    local name=$1 log=$2 extra=${3:-}
    if [ ${#errs[@]} -eq 0 ]; then
        cpt_pass "$name" "${FIG}k bytes/s (64 KiB blocks: above the CPU path's threshold), ${ELAPSED_MS} ms${extra:+, $extra}"
    else
        cpt_fail "$name" "$(printf '%s; ' "${errs[@]}")(${ELAPSED_MS} ms)"
        grep -v '^\(compiler\|CPUINFO\|version\|built\|options\):' "$log" | tail -n 15 | sed 's/^/    /'
    fi
    [ "$VERBOSE" = 1 ] && grep -v '^\(compiler\|CPUINFO\)' "$log" | sed 's/^/    | /'
}

# --- runs with -provider flags ---------------------------------------------

flag_case() {
    local name=$1 children=$2
    shift 2
    selected "$name" || return
    errs=()
    run_speed "$name" "$T/$name.log" "$T/$name.pid" "$@"
    check_run "$name" "$T/$name.log" "$children"
    finish_case "$name" "$T/$name.log"
}

flag_case plain 0 OPENSSL_CONF=/dev/null -- "${FLAGS[@]}" "${BASE[@]}"
flag_case multi2 2 OPENSSL_CONF=/dev/null -- "${FLAGS[@]}" "${BASE[@]}" -multi 2
flag_case async8 0 OPENSSL_CONF=/dev/null -- "${FLAGS[@]}" "${BASE[@]}" -async_jobs 8
flag_case faults-async4 0 OPENSSL_CONF=/dev/null "CPTPROV_FAULTS=$FAULTS" -- \
    "${FLAGS[@]}" "${BASE[@]}" -async_jobs 4

# --- runs with OPENSSL_CONF and stats_dir ------------------------------------

# conf_case NAME CHILDREN [ENV...] -- ARGS: a run with its own stats dir.
conf_case() {
    local name=$1 children=$2 sd conf pid p good=0 others=() extra="" faults
    shift 2
    selected "$name" || return
    errs=()
    sd=$T/$name.stats
    conf=$T/$name.cnf
    mkdir -p "$sd"
    cpt_write_config "$conf" "$sd" "?provider=cptprov"
    run_speed "$name" "$T/$name.log" "$T/$name.pid" OPENSSL_CONF="$conf" "$@"
    check_run "$name" "$T/$name.log" "$children"
    pid=$(cat "$T/$name.pid" 2>/dev/null)
    if [ "$children" = 0 ]; then
        # The speed process itself did the work (and has exited).
        if [ -z "$pid" ]; then
            errs+=("pid of openssl speed unknown")
        elif ! cpt_stats_wait "$sd" "$pid" AES-256-GCM device 3; then
            errs+=("stats: $(cpt_stats_show "$sd" "$pid")")
        else
            extra="pid $pid device ops $(cpt_stats_get "$sd" "$pid" AES-256-GCM device)"
        fi
        if [ -n "$pid" ] && [ "$name" = stats-faults ]; then
            faults=$(cpt_stats_device_get "$sd" "$pid" faults)
            if [ -z "$faults" ] || [ "$faults" -le 0 ]; then
                errs+=("device faults = '${faults}': the fault plan was not active")
            else
                extra="$extra, $faults faults injected"
            fi
        fi
    else
        # The children forked by -multi did the work: one file each.
        for p in $(cpt_stats_pids "$sd"); do
            [ "$p" = "$pid" ] && continue
            others+=("$p")
            if cpt_stats_wait "$sd" "$p" AES-256-GCM device 1; then
                good=$((good + 1))
            else
                errs+=("child stats: $(cpt_stats_show "$sd" "$p")")
            fi
        done
        if [ "$good" -lt "$children" ]; then
            errs+=("$good child stats files with device > 0, expected $children (files: $(find "$sd" -mindepth 1 -maxdepth 1 -printf '%f '))")
        else
            extra="child pids ${others[*]} each with device > 0"
        fi
    fi
    finish_case "$name" "$T/$name.log" "$extra"
    if [ "$VERBOSE" = 1 ]; then
        for p in $(cpt_stats_pids "$sd"); do cpt_stats_show "$sd" "$p" | sed 's/^/    /'; done
    fi
}

conf_case stats-async8 0 -- -propquery provider=cptprov "${BASE[@]}" -async_jobs 8
conf_case stats-multi2 2 -- -propquery provider=cptprov "${BASE[@]}" -multi 2
conf_case stats-faults 0 "CPTPROV_FAULTS=$FAULTS" -- \
    -propquery provider=cptprov "${BASE[@]}" -async_jobs 4

# --- the CPU path's thresholds from openssl.cnf ------------------------------
# 64-byte AES-128-CTR updates run on the CPU path by default (software > 0,
# device 0); with cpu_threshold_aes_ctr = 0 in cptprov's section they go to
# the device (device > 0, software 0).
threshold_case() {
    local name=$1 line=$2 on=$3 off=$4 sd=$T/$1.stats conf=$T/$1.cnf pid
    if [ -n "${SPEED_TEST_CASES:-}" ] && ! [[ " $SPEED_TEST_CASES " == *" $name "* ]]; then
        return
    fi
    mkdir -p "$sd"
    cpt_write_config "$conf" "$sd" "" "$line"
    if ! OPENSSL_CONF=$conf CPTPROV_CPU_THRESHOLD='' timeout 60 "$OPENSSL" speed -propquery provider=cptprov \
        -elapsed -seconds 1 -bytes 64 -evp aes-128-ctr >"$T/$name.log" 2>&1; then
        cpt_fail "$name" "openssl speed failed: $(tail -2 "$T/$name.log" | tr '\n' ' ')"
        return
    fi
    pid=$(cpt_stats_pids "$sd" | head -1)
    if [ -n "$pid" ] && cpt_stats_wait "$sd" "$pid" AES-128-CTR "$on" 3 &&
        [ "$(cpt_stats_get "$sd" "$pid" AES-128-CTR "$off")" = 0 ]; then
        cpt_pass "$name" "AES-128-CTR $on > 0, $off 0"
    else
        cpt_fail "$name" "stats: $(cpt_stats_show "$sd" "$pid")"
    fi
}
threshold_case threshold-default "" software device
threshold_case threshold-config "cpu_threshold_aes_ctr = 0" device software

echo "speed_test: $(( ($(date +%s%N) - START) / 1000000 )) ms"
cpt_finish
