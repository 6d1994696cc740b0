#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/tls_test.sh - TLS through cptprov at both ends.
#
# openssl s_server and s_client both run with an OPENSSL_CONF that loads the
# default provider and cptprov (with stats_dir) and prefers cptprov
# (default_properties = ?provider=cptprov), with an RSA-2048 self-signed
# certificate made here.  Per suite (TLS 1.3 AES-256/128-GCM, TLS 1.2
# ECDHE-RSA-AES256/128-GCM):
#
#   download  s_server -WWW serves a 200 KiB file of random data; s_client
#             sends "GET /file" and the SHA-256 of the body that came back
#             must be the file's.
#   async     s_server -async (SSL_MODE_ASYNC: libssl runs the cipher inside
#             ASYNC jobs, which cptprov pauses while the device works); the
#             client uploads the 200 KiB file and what the server wrote out
#             must be the file.  (Not -WWW: s_server's -WWW loop does not
#             handle SSL_ERROR_WANT_ASYNC -- it sleeps 1 s per read retry and
#             drops the buffered response on flush -- so it cannot carry an
#             async exchange whatever the provider does.)
#
# In every case the server serves one connection (-naccept 1) and exits
# normally, then the statistics files of BOTH processes must show device > 0
# (and no errors) for the GCM cipher of the negotiated suite.
#
#   interop   one end with cptprov, the other with OpenSSL's default provider
#             only (OPENSSL_CONF=/dev/null): two cptprov ends agreeing with
#             each other prove nothing about the records being standard GCM
#             (a tag computed the same wrong way at both ends still matches).
#             Only the cptprov end's statistics are checked.
#
# Usage: tests/sh/tls_test.sh [-v] [-k]     (-k keeps the temp dir)
# Env:   CPTPROV_BUILD (default build/), TLS_TEST_CASES (space separated
#        subset of case names), OPENSSL (default openssl)

set -u
. "$(dirname "$0")/lib.sh"

cpt_script_args "$@"
cpt_require_build
START=$(date +%s%N)

cpt_mktemp_dir T cpt-tls
STATS=$T/stats
WWW=$T/www
mkdir -p "$STATS" "$WWW"
# AES-GCM records on the device: TLS 1.3's are below the CPU path's default
# threshold, which tls13-aes256gcm-cpu-path runs with.
CONF=$T/openssl.cnf
cpt_write_config "$CONF" "$STATS" "?provider=cptprov" "cpu_threshold_aes_gcm = 0"
CONF_GCM_CPU=$T/openssl-gcm-cpu.cnf
cpt_write_config "$CONF_GCM_CPU" "$STATS" "?provider=cptprov"

# Certificate (made without our config: only the default provider).
if ! OPENSSL_CONF=/dev/null timeout 30 "$OPENSSL" req -x509 -newkey rsa:2048 \
    -nodes -sha256 -keyout "$T/key.pem" -out "$T/cert.pem" -subj /CN=localhost \
    -days 2 >"$T/req.log" 2>&1; then
    cat "$T/req.log"
    cpt_fail setup "cannot generate the certificate"
    cpt_finish
    exit 1
fi

# An ECDSA P-256 certificate too: with it, cptprov signs the handshake.
if ! OPENSSL_CONF=/dev/null timeout 30 "$OPENSSL" req -x509 -newkey ec \
    -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -keyout "$T/eckey.pem" \
    -out "$T/eccert.pem" -subj /CN=localhost -days 2 >"$T/req.log" 2>&1; then
    cat "$T/req.log"
    cpt_fail setup "cannot generate the ECDSA certificate"
    cpt_finish
    exit 1
fi

# 200 KiB of random data: 13 full TLS records, and then some.
PAYLOAD=$WWW/file
head -c 204800 /dev/urandom >"$PAYLOAD"
WANT_SHA=$(sha256sum "$PAYLOAD" | cut -d' ' -f1)

# A FIFO opened read-write as the server's stdin: never readable, never EOF.
mkfifo -m 600 "$T/stdin.fifo"

# Sanity: cptprov is loaded through the config at all.
if ! OPENSSL_CONF=$CONF timeout 20 "$OPENSSL" list -providers >"$T/list.log" 2>&1 ||
    ! grep -q 'cptprov' "$T/list.log"; then
    sed 's/^/    /' "$T/list.log"
    cpt_fail setup "cptprov is not listed as a provider with $CONF"
    cpt_finish
    exit 1
fi

SRV_TPID=""  # pid of the server's `timeout` wrapper (our child)
SRV_PIDF=""  # file holding the pid of s_server itself

stop_server() {
    local pid
    if [ -n "$SRV_PIDF" ] && [ -s "$SRV_PIDF" ]; then
        pid=$(cat "$SRV_PIDF")
        kill -TERM "$pid" 2>/dev/null
        cpt_wait_pid "$pid" 3 || kill -KILL "$pid" 2>/dev/null
    fi
    if [ -n "$SRV_TPID" ]; then
        kill -TERM "$SRV_TPID" 2>/dev/null
        wait "$SRV_TPID" 2>/dev/null
    fi
    SRV_TPID=""
    SRV_PIDF=""
}
cpt_on_exit stop_server

# sha_of FILE [http]: "sha256 length" of FILE, or of the body after an
# HTTP/1.0 200 header when the second argument is "http".
sha_of() {
    python3 -c '
import hashlib, sys
try:
    b = open(sys.argv[1], "rb").read()
except OSError:
    print("missing 0"); sys.exit(0)
if sys.argv[2] == "http":
    i = b.find(b"\r\n\r\n")
    if not b.startswith(b"HTTP/1.0 200") or i < 0:
        print("not-an-http-200-response %d" % len(b)); sys.exit(0)
    b = b[i + 4:]
print(hashlib.sha256(b).hexdigest(), len(b))
' "$1" "${2:-raw}"
}

# payload_file SIZE: a file of SIZE random bytes in $WWW, made once.
payload_file() {
    local f=$WWW/file-$1
    [ -f "$f" ] || head -c "$1" /dev/urandom >"$f"
    echo "$f"
}

# run_case NAME MODE ALG SUITE SERVER_ARGS... -- CLIENT_ARGS...
# MODE: download (-WWW) or upload (server writes what it gets to stdout).
# SIZE (variable, default 204800): bytes of payload, which with the mode
# decides how large the records are.
# ALG: the cptprov algorithm the negotiated SUITE must have used.
# ENDS (variable, default both): which ends load cptprov: both, server, client.
# KILL_SERVER=1: the server keeps listening and is killed (SIGTERM, no at-exit
# handlers) 1.5 s after the client ended: its counters, kept in place in
# its statistics area, must be there all the same.
run_case() {
    local name=$1 mode=$2 alg=$3 suite=$4 ends=${ENDS:-both}
    shift 4
    local srv_conf=$CONF cli_conf=$CONF
    [ "$ends" = client ] && srv_conf=/dev/null
    [ "$ends" = server ] && cli_conf=/dev/null
    local sargs=() cargs=() d port try srv_pid cli_pid rc got cs errs=()
    local size=${SIZE:-204800} file=$PAYLOAD want=$WANT_SHA
    local naccept=(-naccept 1)
    [ "${KILL_SERVER:-0}" = 1 ] && naccept=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do sargs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    cargs=("$@")

    if [ -n "${TLS_TEST_CASES:-}" ] && ! [[ " $TLS_TEST_CASES " == *" $name "* ]]; then
        return
    fi
    d=$T/$name
    mkdir -p "$d"
    if [ "$size" != 204800 ]; then
        file=$(payload_file "$size")
        want=$(sha256sum "$file" | cut -d' ' -f1)
    fi
    if [ "$mode" = download ]; then
        sargs=(-WWW "${sargs[@]}")
    else
        sargs=(-quiet "${sargs[@]}")
    fi

    # Start the server (retrying on a port race).  -naccept 1: it serves one
    # connection and exits normally, so its at-exit statistics write runs.
    for try in 1 2 3; do
        port=$(cpt_free_port)
        SRV_PIDF=$d/server.pid
        rm -f "$SRV_PIDF"
        # shellcheck disable=SC2016 # the inner shell expands them
        (cd "$WWW" && OPENSSL_CONF=$srv_conf exec timeout -k 2 40 \
            sh -c 'echo $$ >"$0"; exec "$@"' "$SRV_PIDF" \
            "$OPENSSL" s_server -accept "127.0.0.1:$port" \
            -cert "$T/${CERT:-}cert.pem" -key "$T/${CERT:-}key.pem" "${naccept[@]}" "${sargs[@]}") \
            >"$d/server.out" 2>"$d/server.err" <>"$T/stdin.fifo" &
        SRV_TPID=$!
        if cpt_wait_listen "$port" 10; then
            break
        fi
        stop_server
        if [ $try = 3 ] || ! grep -qi 'in use\|bind' "$d/server.err"; then
            sed 's/^/    server: /' "$d/server.err"
            cpt_fail "$name" "server did not start listening on port $port"
            return
        fi
    done
    srv_pid=$(cat "$SRV_PIDF")

    if [ "$mode" = download ]; then
        # -ign_eof: keep reading after stdin's EOF until the server closes.
        printf 'GET /%s HTTP/1.0\r\n\r\n' "${file##*/}" |
            OPENSSL_CONF=$cli_conf cpt_run_pid "$d/client.pid" 30 \
                "$OPENSSL" s_client -connect "127.0.0.1:$port" -servername localhost \
                -brief -ign_eof "${cargs[@]}" >"$d/client.out" 2>"$d/client.err"
        rc=$?
    else
        # At stdin's EOF s_client has written everything and closes.
        OPENSSL_CONF=$cli_conf cpt_run_pid "$d/client.pid" 30 \
            "$OPENSSL" s_client -connect "127.0.0.1:$port" -servername localhost \
            -brief -nocommands "${cargs[@]}" <"$file" >"$d/client.out" 2>"$d/client.err"
        rc=$?
    fi
    cli_pid=$(cat "$d/client.pid" 2>/dev/null)

    if [ ${#naccept[@]} -eq 0 ]; then
        # A while after the client, then SIGTERM: no exit handler runs.
        sleep 1.5
        kill -0 "$srv_pid" 2>/dev/null || errs+=("s_server died before it was killed")
    elif ! cpt_wait_pid "$srv_pid" 10; then
        # The server exits by itself after its one connection.
        errs+=("s_server -naccept 1 still running 10 s after the client ended")
    fi
    stop_server

    [ $rc -eq 124 ] && errs+=("s_client timed out")
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && errs+=("s_client exited $rc")

    if [ "$mode" = download ]; then
        got=$(sha_of "$d/client.out" http)
    else
        got=$(sha_of "$d/server.out")
    fi
    if [ "${got%% *}" != "$want" ]; then
        errs+=("payload mismatch: got '${got}' want '$want $size'")
    fi

    # NEGOTIATED (variable): the TLS 1.3 group s_client -brief must report.
    if [ -n "${NEGOTIATED:-}" ] && ! grep -q "^Negotiated TLS1.3 group: $NEGOTIATED\$" "$d/client.err"; then
        errs+=("negotiated group $(sed -n 's/^Negotiated TLS1.3 group: //p' "$d/client.err"), expected $NEGOTIATED")
    fi
    cs=$(sed -n 's/^Ciphersuite: //p' "$d/client.err" | head -n1)
    if [ -z "$cs" ]; then
        errs+=("no Ciphersuite line from s_client -brief")
    elif [ "$cs" != "$suite" ]; then
        errs+=("negotiated $cs, expected $suite")
    fi

    # Statistics of the cptprov ends (they have exited: final at-exit write).
    if [ "$ends" != server ]; then
        if [ -z "$cli_pid" ]; then
            errs+=("client pid unknown")
        elif ! cpt_stats_wait "$STATS" "$cli_pid" "$alg" "${ALG_PATH:-$(cpt_path_of "$alg")}" 3; then
            errs+=("client stats: $(cpt_stats_show "$STATS" "$cli_pid")")
        fi
    fi
    if [ "$ends" != client ] && ! cpt_stats_wait "$STATS" "$srv_pid" "$alg" "${ALG_PATH:-$(cpt_path_of "$alg")}" 3; then
        errs+=("server stats: $(cpt_stats_show "$STATS" "$srv_pid")")
    fi
    # The public-key work (KEX: by default the X25519 key exchange, OpenSSL
    # 3.0's first group, and the RSA handshake signature or its check), done
    # by cptprov at its ends.
    local who p e kex
    for who in server client; do
        [ $who = server ] && p=$srv_pid || p=$cli_pid
        [ -n "$p" ] || continue
        [ "$ends" = both ] || [ "$ends" = $who ] || continue
        for kex in ${KEX:-X25519 RSA}; do
            if ! cpt_stats_wait "$STATS" "$p" "$kex" "$(cpt_path_of "$kex")" 3; then
                errs+=("$who did no $kex in cptprov ($(cpt_path_of "$kex")): $(cpt_stats_show "$STATS" "$p")")
            fi
        done
    done
    # CLIENT_KEX_MIN="ALG N" (variable): the client did at least N ALG
    # operations on the device (OpenSSL 3.5's client offers two key shares).
    if [ -n "${CLIENT_KEX_MIN:-}" ] && [ -n "$cli_pid" ]; then
        local kalg=${CLIENT_KEX_MIN% *} kmin=${CLIENT_KEX_MIN#* } kops
        kops=$(cpt_stats_get "$STATS" "$cli_pid" "$kalg" "$(cpt_path_of "$kalg")")
        [ "${kops:-0}" -ge "$kmin" ] || errs+=("client did ${kops:-0} $kalg on the device, at least $kmin expected")
    fi
    # A clean exchange has no failed operation at either end.
    for who in server client; do
        [ $who = server ] && p=$srv_pid || p=$cli_pid
        [ -n "$p" ] || continue
        [ "$ends" = both ] || [ "$ends" = $who ] || continue
        e=$(cpt_stats_get "$STATS" "$p" "$alg" errors)
        if [ -n "$e" ] && [ "$e" != 0 ]; then
            errs+=("$who stats count $e errors: $(cpt_stats_show "$STATS" "$p")")
        fi
    done

    if [ ${#errs[@]} -eq 0 ]; then
        local sdev=default cdev=default
        [ "$ends" != client ] && sdev=$(cpt_stats_get "$STATS" "$srv_pid" "$alg" "${ALG_PATH:-$(cpt_path_of "$alg")}")
        [ "$ends" != server ] && cdev=$(cpt_stats_get "$STATS" "$cli_pid" "$alg" "${ALG_PATH:-$(cpt_path_of "$alg")}")
        cpt_pass "$name" "$cs, $mode $size bytes, $alg ${ALG_PATH:-$(cpt_path_of "$alg")} ops: server $sdev, client $cdev"
    else
        cpt_fail "$name" "$(printf '%s; ' "${errs[@]}")"
        sed 's/^/    client: /' "$d/client.err" | head -n 20
        sed 's/^/    server: /' "$d/server.err" | head -n 20
        [ "$mode" = download ] && grep -a 'BLOCK' "$d/server.out" | sort | uniq -c | sed 's/^/    server:/'
    fi
    if [ "$VERBOSE" = 1 ]; then
        cpt_stats_show "$STATS" "$srv_pid" | sed 's/^/    server /'
        cpt_stats_show "$STATS" "$cli_pid" | sed 's/^/    client /'
    fi
}


run_case tls13-aes256gcm download AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384
run_case tls13-aes128gcm download AES-128-GCM \
    TLS_AES_128_GCM_SHA256 -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256 -- \
    -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256
run_case tls12-aes256gcm download AES-256-GCM \
    ECDHE-RSA-AES256-GCM-SHA384 -cipher ECDHE-RSA-AES256-GCM-SHA384 -- \
    -tls1_2 -cipher ECDHE-RSA-AES256-GCM-SHA384
run_case tls12-aes128gcm download AES-128-GCM \
    ECDHE-RSA-AES128-GCM-SHA256 -cipher ECDHE-RSA-AES128-GCM-SHA256 -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256

run_case tls13-aes256gcm-async upload AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -async -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384
run_case tls13-aes128gcm-async upload AES-128-GCM \
    TLS_AES_128_GCM_SHA256 -async -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256 -- \
    -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256
run_case tls12-aes256gcm-async upload AES-256-GCM \
    ECDHE-RSA-AES256-GCM-SHA384 -async -cipher ECDHE-RSA-AES256-GCM-SHA384 -- \
    -tls1_2 -cipher ECDHE-RSA-AES256-GCM-SHA384
run_case tls12-aes128gcm-async upload AES-128-GCM \
    ECDHE-RSA-AES128-GCM-SHA256 -async -cipher ECDHE-RSA-AES128-GCM-SHA256 -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256
CONF=$CONF_GCM_CPU ALG_PATH=software run_case tls13-aes256gcm-cpu-path download AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384
# TLS 1.2 records below the default threshold: the twin has the context
# whole (tlsivfixed, tlsaad, every record), with and without ASYNC jobs.
CONF=$CONF_GCM_CPU ALG_PATH=software run_case tls12-aes128gcm-cpu-path download AES-128-GCM \
    ECDHE-RSA-AES128-GCM-SHA256 -cipher ECDHE-RSA-AES128-GCM-SHA256 -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256
CONF=$CONF_GCM_CPU ALG_PATH=software run_case tls12-aes256gcm-async-cpu-path upload AES-256-GCM \
    ECDHE-RSA-AES256-GCM-SHA384 -async -cipher ECDHE-RSA-AES256-GCM-SHA384 -- \
    -tls1_2 -cipher ECDHE-RSA-AES256-GCM-SHA384
# A server that never exits normally: its counters, kept in place in its
# statistics area, are there all the same.
KILL_SERVER=1 run_case tls13-aes256gcm-killed-server download AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384

# Interoperability with OpenSSL's own GCM at the other end.
ENDS=server run_case interop-tls13-aes256gcm-cptprov-server download AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384
ENDS=client run_case interop-tls13-aes256gcm-cptprov-client download AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384
ENDS=server run_case interop-tls12-aes128gcm-cptprov-server download AES-128-GCM \
    ECDHE-RSA-AES128-GCM-SHA256 -cipher ECDHE-RSA-AES128-GCM-SHA256 -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256
ENDS=client run_case interop-tls12-aes128gcm-cptprov-client download AES-128-GCM \
    ECDHE-RSA-AES128-GCM-SHA256 -cipher ECDHE-RSA-AES128-GCM-SHA256 -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256

# ECDHE on the NIST curves: key generation and derivation by cptprov.
KEX="ECDH RSA" run_case tls13-aes256gcm-p256 download AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -groups P-256 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -groups P-256
KEX="ECDH RSA" run_case tls12-aes256gcm-p384 download AES-256-GCM \
    ECDHE-RSA-AES256-GCM-SHA384 -cipher ECDHE-RSA-AES256-GCM-SHA384 -groups P-384 -- \
    -tls1_2 -cipher ECDHE-RSA-AES256-GCM-SHA384 -groups P-384
KEX="ECDH RSA" ENDS=server run_case interop-tls13-p521-cptprov-server download AES-256-GCM \
    TLS_AES_256_GCM_SHA384 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -groups P-521 -- \
    -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -groups P-521

# RSA key transport: the client encrypts the pre-master secret, the server
# decrypts it in the TLS padding mode, both on the device.
KEX=RSA run_case tls12-rsa-kx download AES-256-GCM \
    AES256-GCM-SHA384 -cipher AES256-GCM-SHA384 -- \
    -tls1_2 -cipher AES256-GCM-SHA384

# An ECDSA certificate: the server's handshake signature (TLS 1.3
# CertificateVerify, TLS 1.2 ServerKeyExchange) and the client's check of it
# are ECDSA operations of cptprov.
KEX="X25519 ECDSA" CERT=ec run_case tls13-aes128gcm-ecdsa download AES-128-GCM \
    TLS_AES_128_GCM_SHA256 -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256 -- \
    -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256
KEX="X25519 ECDSA" CERT=ec run_case tls12-aes128gcm-ecdsa download AES-128-GCM \
    ECDHE-ECDSA-AES128-GCM-SHA256 -cipher ECDHE-ECDSA-AES128-GCM-SHA256 -- \
    -tls1_2 -cipher ECDHE-ECDSA-AES128-GCM-SHA256
KEX="X25519 ECDSA" CERT=ec ENDS=client run_case interop-tls13-ecdsa-cptprov-client download AES-128-GCM \
    TLS_AES_128_GCM_SHA256 -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256 -- \
    -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256

# TLS 1.2 CBC suites: libssl sets tls-version (and tls-mac-size when the MAC
# comes before encryption) and leaves padding, explicit IV and MAC removal
# to the provider. Encrypt-then-MAC is OpenSSL's default; -no_etm with a
# SHA-384 MAC keeps libssl on AES-256-CBC (for SHA-1 and SHA-256 MACs it
# would take the default provider's stitched AES-CBC-HMAC ciphers).
run_case tls12-aes128cbc-etm download AES-128-CBC \
    ECDHE-RSA-AES128-SHA256 -cipher ECDHE-RSA-AES128-SHA256 -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA256
run_case tls12-aes256cbc-mte download AES-256-CBC \
    ECDHE-RSA-AES256-SHA384 -cipher ECDHE-RSA-AES256-SHA384 -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES256-SHA384 -no_etm
run_case tls12-aes256cbc-mte-async upload AES-256-CBC \
    ECDHE-RSA-AES256-SHA384 -async -cipher ECDHE-RSA-AES256-SHA384 -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES256-SHA384 -no_etm
ENDS=server run_case interop-tls12-aes256cbc-mte-cptprov-server download AES-256-CBC \
    ECDHE-RSA-AES256-SHA384 -cipher ECDHE-RSA-AES256-SHA384 -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES256-SHA384 -no_etm
ENDS=client run_case interop-tls12-aes128cbc-etm-cptprov-client download AES-128-CBC \
    ECDHE-RSA-AES128-SHA256 -cipher ECDHE-RSA-AES128-SHA256 -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA256

# TLS 1.0 and 1.1 CBC suites with encrypt-then-MAC (no stitched cipher
# then): TLS 1.0 chains each record's IV from the ciphertext of the one
# before and, against the known-IV attack, sends an empty record ahead of
# application data, whose plaintext with encrypt-then-MAC is a block of
# padding alone. Payloads of 1 byte to 200 KiB give records of one block
# to 16 KiB, on both sides of the CPU path's threshold (TLS records take
# the device whatever their size; CONF_CBC_DEV has no CPU path at all);
# RSA key transport and ECDHE-RSA, each end against the default provider
# too.
CONF_CBC_DEV=$T/openssl-cbc-device.cnf
cpt_write_config "$CONF_CBC_DEV" "$STATS" "?provider=cptprov" "cpu_threshold_aes_cbc = 0"
KEX=RSA run_case tls10-aes128cbc-etm download AES-128-CBC \
    AES128-SHA -cipher AES128-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher AES128-SHA:@SECLEVEL=0
SIZE=1 KEX=RSA run_case tls10-aes128cbc-etm-1byte download AES-128-CBC \
    AES128-SHA -cipher AES128-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher AES128-SHA:@SECLEVEL=0
SIZE=5000 KEX=RSA run_case tls10-aes128cbc-etm-async upload AES-128-CBC \
    AES128-SHA -async -cipher AES128-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher AES128-SHA:@SECLEVEL=0
CONF=$CONF_CBC_DEV SIZE=3000 KEX=RSA run_case tls10-aes256cbc-etm-device download AES-256-CBC \
    AES256-SHA -cipher AES256-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher AES256-SHA:@SECLEVEL=0
run_case tls10-ecdhe-rsa-aes256cbc-etm download AES-256-CBC \
    ECDHE-RSA-AES256-SHA -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0
SIZE=40000 run_case tls10-ecdhe-rsa-aes256cbc-etm-async upload AES-256-CBC \
    ECDHE-RSA-AES256-SHA -async -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0
KEX=RSA run_case tls11-aes256cbc-etm download AES-256-CBC \
    AES256-SHA -cipher AES256-SHA:@SECLEVEL=0 -- \
    -tls1_1 -cipher AES256-SHA:@SECLEVEL=0
KEX=RSA ENDS=server run_case interop-tls10-aes128cbc-etm-cptprov-server download AES-128-CBC \
    AES128-SHA -cipher AES128-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher AES128-SHA:@SECLEVEL=0
SIZE=20000 KEX=RSA ENDS=server run_case interop-tls10-aes128cbc-etm-cptprov-server-async upload AES-128-CBC \
    AES128-SHA -async -cipher AES128-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher AES128-SHA:@SECLEVEL=0
SIZE=1000 ENDS=client run_case interop-tls10-ecdhe-rsa-aes256cbc-etm-cptprov-client download AES-256-CBC \
    ECDHE-RSA-AES256-SHA -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0
ENDS=client run_case interop-tls10-ecdhe-rsa-aes256cbc-etm-cptprov-client-upload upload AES-256-CBC \
    ECDHE-RSA-AES256-SHA -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -- \
    -tls1 -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0

# ChaCha20-Poly1305: TLS 1.3 (the nonce per record, the tag by parameter)
# and TLS 1.2 (RFC 7905: tlsivfixed and tlsaad, the sequence number in the
# nonce). Records of both are below the CPU path's default threshold: on
# the device with cpu_threshold_chacha20_poly1305 = 0, on the CPU path
# (software) with the default.
CONF_CHACHA_DEV=$T/openssl-chacha-device.cnf
cpt_write_config "$CONF_CHACHA_DEV" "$STATS" "?provider=cptprov" "cpu_threshold_chacha20_poly1305 = 0"
CONF=$CONF_CHACHA_DEV run_case tls13-chacha20 download ChaCha20-Poly1305 \
    TLS_CHACHA20_POLY1305_SHA256 -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256 -- \
    -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256
CONF=$CONF_CHACHA_DEV run_case tls12-chacha20 download ChaCha20-Poly1305 \
    ECDHE-RSA-CHACHA20-POLY1305 -cipher ECDHE-RSA-CHACHA20-POLY1305 -- \
    -tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305
ALG_PATH=software run_case tls12-chacha20-cpu-path download ChaCha20-Poly1305 \
    ECDHE-RSA-CHACHA20-POLY1305 -cipher ECDHE-RSA-CHACHA20-POLY1305 -- \
    -tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305
CONF=$CONF_CHACHA_DEV run_case tls13-chacha20-async upload ChaCha20-Poly1305 \
    TLS_CHACHA20_POLY1305_SHA256 -async -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256 -- \
    -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256
CONF=$CONF_CHACHA_DEV run_case tls12-chacha20-async upload ChaCha20-Poly1305 \
    ECDHE-RSA-CHACHA20-POLY1305 -async -cipher ECDHE-RSA-CHACHA20-POLY1305 -- \
    -tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305
ALG_PATH=software ENDS=server run_case interop-tls13-chacha20-cptprov-server download ChaCha20-Poly1305 \
    TLS_CHACHA20_POLY1305_SHA256 -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256 -- \
    -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256
CONF=$CONF_CHACHA_DEV ENDS=client run_case interop-tls12-chacha20-cptprov-client download ChaCha20-Poly1305 \
    ECDHE-RSA-CHACHA20-POLY1305 -cipher ECDHE-RSA-CHACHA20-POLY1305 -- \
    -tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305
# TLS 1.0 to 1.2 CBC suites with SHA-1 or SHA-256 MACs without
# encrypt-then-MAC (-no_etm): libssl swaps in the stitched ciphers
# AES-128/256-CBC-HMAC-SHA1/SHA256 (mackey, tlsaad per record), whose
# records cptprov seals and opens as one chained instruction on the device
# (200 KiB in 16 KiB records) when cpu_threshold_aes_cbc_hmac = 0 (CONF_DEV);
# by default every TLS record takes the CPU path (the last case), where the
# measured device path is slower (README). There is no stitched cipher for
# SHA-384 (see the AES-256-CBC case above).
CONF_DEV=$T/openssl-stitched-device.cnf
cpt_write_config "$CONF_DEV" "$STATS" "?provider=cptprov" "cpu_threshold_aes_cbc_hmac = 0"
CONF=$CONF_DEV run_case tls12-aes128sha256-stitched download AES-128-CBC-HMAC-SHA256 \
    ECDHE-RSA-AES128-SHA256 -cipher ECDHE-RSA-AES128-SHA256 -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA256 -no_etm
CONF=$CONF_DEV run_case tls12-aes128sha-stitched download AES-128-CBC-HMAC-SHA1 \
    ECDHE-RSA-AES128-SHA -cipher ECDHE-RSA-AES128-SHA -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA -no_etm
CONF=$CONF_DEV KEX=RSA run_case tls12-aes256sha-stitched download AES-256-CBC-HMAC-SHA1 \
    AES256-SHA -cipher AES256-SHA -no_etm -- \
    -tls1_2 -cipher AES256-SHA -no_etm
CONF=$CONF_DEV KEX=RSA run_case tls12-aes256sha256-stitched download AES-256-CBC-HMAC-SHA256 \
    AES256-SHA256 -cipher AES256-SHA256 -no_etm -- \
    -tls1_2 -cipher AES256-SHA256 -no_etm
CONF=$CONF_DEV run_case tls12-aes128sha256-stitched-async upload AES-128-CBC-HMAC-SHA256 \
    ECDHE-RSA-AES128-SHA256 -async -cipher ECDHE-RSA-AES128-SHA256 -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA256 -no_etm
# TLS 1.1 (explicit IV) and 1.0 (records chained by their IV), which
# OpenSSL 3 allows at security level 0 only; RSA key transport here, ECDHE
# (the server's RSA signature over MD5-SHA1) below.
CONF=$CONF_DEV KEX=RSA run_case tls11-aes256sha-stitched download AES-256-CBC-HMAC-SHA1 \
    AES256-SHA -cipher AES256-SHA:@SECLEVEL=0 -no_etm -- \
    -tls1_1 -cipher AES256-SHA:@SECLEVEL=0 -no_etm
CONF=$CONF_DEV KEX=RSA run_case tls10-aes128sha-stitched upload AES-128-CBC-HMAC-SHA1 \
    AES128-SHA -cipher AES128-SHA:@SECLEVEL=0 -no_etm -- \
    -tls1 -cipher AES128-SHA:@SECLEVEL=0 -no_etm
# TLS 1.0 and 1.1 ECDHE-RSA: the ServerKeyExchange signature is RSA
# PKCS#1 v1.5 over MD5 || SHA-1 with no DigestInfo. ECDHE leaves no other
# RSA operation: the server's RSA count is that signature, the client's
# the check of it. Against the default provider at the other end too, where
# a signature encoded the same wrong way at both ends would not pass.
CONF=$CONF_DEV run_case tls10-ecdhe-rsa-stitched download AES-128-CBC-HMAC-SHA1 \
    ECDHE-RSA-AES128-SHA -cipher ECDHE-RSA-AES128-SHA:@SECLEVEL=0 -no_etm -- \
    -tls1 -cipher ECDHE-RSA-AES128-SHA:@SECLEVEL=0 -no_etm
CONF=$CONF_DEV run_case tls11-ecdhe-rsa-stitched-async upload AES-256-CBC-HMAC-SHA1 \
    ECDHE-RSA-AES256-SHA -async -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -no_etm -- \
    -tls1_1 -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -no_etm
CONF=$CONF_DEV ENDS=server run_case interop-tls10-ecdhe-rsa-cptprov-server download AES-256-CBC-HMAC-SHA1 \
    ECDHE-RSA-AES256-SHA -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -no_etm -- \
    -tls1 -cipher ECDHE-RSA-AES256-SHA:@SECLEVEL=0 -no_etm
CONF=$CONF_DEV ENDS=client run_case interop-tls11-ecdhe-rsa-cptprov-client download AES-128-CBC-HMAC-SHA1 \
    ECDHE-RSA-AES128-SHA -cipher ECDHE-RSA-AES128-SHA:@SECLEVEL=0 -no_etm -- \
    -tls1_1 -cipher ECDHE-RSA-AES128-SHA:@SECLEVEL=0 -no_etm
# Against OpenSSL's own stitched ciphers at the other end.
CONF=$CONF_DEV ENDS=server run_case interop-tls12-aes128sha-stitched-cptprov-server download AES-128-CBC-HMAC-SHA1 \
    ECDHE-RSA-AES128-SHA -cipher ECDHE-RSA-AES128-SHA -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA -no_etm
CONF=$CONF_DEV ENDS=client run_case interop-tls12-aes128sha256-stitched-cptprov-client upload AES-128-CBC-HMAC-SHA256 \
    ECDHE-RSA-AES128-SHA256 -cipher ECDHE-RSA-AES128-SHA256 -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA256 -no_etm
CONF=$CONF_DEV KEX=RSA ENDS=client run_case interop-tls10-aes256sha-stitched-cptprov-client download AES-256-CBC-HMAC-SHA1 \
    AES256-SHA -cipher AES256-SHA:@SECLEVEL=0 -no_etm -- \
    -tls1 -cipher AES256-SHA:@SECLEVEL=0 -no_etm

# The default threshold: the records on the CPU path, counted as software.
ALG_PATH=software run_case tls12-aes128sha-stitched-cpu-path download AES-128-CBC-HMAC-SHA1 \
    ECDHE-RSA-AES128-SHA -cipher ECDHE-RSA-AES128-SHA -no_etm -- \
    -tls1_2 -cipher ECDHE-RSA-AES128-SHA -no_etm

echo "tls_test: $(( ($(date +%s%N) - START) / 1000000 )) ms"

# OpenSSL 3.5's hybrid groups: libssl hands the classical half of
# X25519MLKEM768 and SecP256r1MLKEM768 to the default provider's hybrid
# code, which fetches X25519 / EC through the library context and so runs
# that half in cptprov (key generation, export of the public key, import of
# the peer's, the derivation), also inside ASYNC jobs. Its client offers two
# key shares by default (X25519MLKEM768 and X25519): two X25519 key
# generations and the derivation. Not on OpenSSL before 3.5 (no such groups).
if printf '%s\n' 3.5 "$("$OPENSSL" version | awk '{print $2}' | cut -d. -f1,2)" | sort -C -V; then
    NEGOTIATED=X25519MLKEM768 run_case tls13-x25519mlkem768 download AES-256-GCM \
        TLS_AES_256_GCM_SHA384 -tls1_3 -groups X25519MLKEM768 -- -tls1_3 -groups X25519MLKEM768
    NEGOTIATED=X25519MLKEM768 run_case tls13-x25519mlkem768-async upload AES-256-GCM \
        TLS_AES_256_GCM_SHA384 -async -tls1_3 -groups X25519MLKEM768 -- -tls1_3 -groups X25519MLKEM768
    KEX="ECDH RSA" NEGOTIATED=SecP256r1MLKEM768 run_case tls13-secp256r1mlkem768 download AES-256-GCM \
        TLS_AES_256_GCM_SHA384 -tls1_3 -groups SecP256r1MLKEM768 -- -tls1_3 -groups SecP256r1MLKEM768
    KEX="ECDH RSA" NEGOTIATED=SecP256r1MLKEM768 run_case tls13-secp256r1mlkem768-async upload AES-256-GCM \
        TLS_AES_256_GCM_SHA384 -async -tls1_3 -groups SecP256r1MLKEM768 -- -tls1_3 -groups SecP256r1MLKEM768
    NEGOTIATED=X25519MLKEM768 CLIENT_KEX_MIN="X25519 3" run_case tls13-default-groups download AES-256-GCM \
        TLS_AES_256_GCM_SHA384 -tls1_3 -- -tls1_3
    NEGOTIATED=X25519MLKEM768 ENDS=server run_case interop-tls13-x25519mlkem768-cptprov-server download AES-256-GCM \
        TLS_AES_256_GCM_SHA384 -tls1_3 -- -tls1_3
    NEGOTIATED=SecP256r1MLKEM768 KEX="ECDH RSA" ENDS=client run_case interop-tls13-secp256r1mlkem768-cptprov-client \
        download AES-256-GCM TLS_AES_256_GCM_SHA384 -tls1_3 -groups SecP256r1MLKEM768 -- -tls1_3 -groups SecP256r1MLKEM768
fi

cpt_finish
