#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The demo: cptprov on the simulated CPT next to OpenSSL's default provider.
#  1. AES-256-GCM speed through both providers (openssl speed -elapsed, 3 runs, median)
#  2. the same through OpenSSL ASYNC jobs (-async_jobs 8)
#  3. a TLS 1.3 exchange between openssl s_server and s_client with cptprov
#     enabled by configuration, and the counters that show it did the work
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/sh/lib.sh
cpt_require_build

echo "== 1. AES-256-GCM, openssl speed -elapsed, synchronous"
bench/bench.sh -r 3 -b "1024 16384 65536" aes-256-gcm
echo
echo "== 2. AES-256-GCM through 8 OpenSSL ASYNC jobs (openssl speed -async_jobs 8; 64 KiB, above the CPU path's threshold)"
bench/bench.sh -r 3 -b "65536" -a 8 aes-256-gcm
echo

echo "== 3. TLS 1.3 with cptprov enabled through openssl.cnf"
cpt_mktemp_dir work cptprov-demo
# shellcheck disable=SC2154 # cpt_mktemp_dir assigns work
stats=$work/stats
mkdir -p "$stats"
cpt_write_config "$work/openssl.cnf" "$stats" "?provider=cptprov"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
	-days 1 -subj /CN=localhost >/dev/null 2>&1
head -c 262144 /dev/urandom >"$work/payload"
port=$(cpt_free_port)
(cd "$work" && OPENSSL_CONF="$work/openssl.cnf" exec timeout 30 openssl s_server -accept "127.0.0.1:$port" \
	-cert cert.pem -key key.pem -WWW -naccept 1 -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -quiet) &
server=$!
cpt_on_exit "kill $server"
sleep 0.5
printf 'GET /payload HTTP/1.0\r\n\r\n' | OPENSSL_CONF="$work/openssl.cnf" timeout 30 openssl s_client \
	-connect "127.0.0.1:$port" -quiet -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 2>/dev/null >"$work/got" || true

wait "$server" 2>/dev/null || true
sed -i '1,/^\r$/d' "$work/got"
if cmp -s "$work/payload" "$work/got"; then
	echo "fetched 256 KiB over TLS 1.3 (TLS_AES_256_GCM_SHA384): identical to the served file"
else
	echo "the fetched file differs from the served one"
	exit 1
fi
sleep 1.2
echo "counters of the two processes, s_server and s_client (stats_dir = $stats), read by cptstat:"
build/cptstat -dir "$stats" -keep-dead -per-process
