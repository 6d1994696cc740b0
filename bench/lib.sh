# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034 # the variables are the scripts'
# bench/lib.sh - what the openssl speed scripts share; sourced by them from
# the repository root: . bench/lib.sh

# openssl's options that load build/cptprov.so ahead of the default
# provider and prefer cptprov's implementations.
bench_cptprov=(-provider-path "$PWD/build" -provider cptprov -provider default -propquery provider=cptprov)

# bench_async_flag N: asyncflag, openssl speed's -async_jobs N (none for 0).
bench_async_flag() {
	asyncflag=()
	if [ "$1" -gt 0 ]; then
		asyncflag=(-async_jobs "$1")
	fi
}

# bench_host: the report's line on the machine and OpenSSL.
bench_host() {
	echo "$(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(openssl version)"
}

# bench_evp_rate: from openssl speed -evp's output (stdin), the bytes per
# second of its one size.
bench_evp_rate() {
	awk 'toupper($1) ~ /^AES|^CHACHA|^DES|^SHA|^HMAC/ && NF >= 2 { v=$NF; sub(/k$/, "", v); print v * 1000 }' | tail -1
}

# bench_alternate RUNS A B ARGS...: the script's speed function on A and
# on B (with ARGS), alternated, RUNS times each: their outputs in d and c.
bench_alternate() {
	local runs=$1 a=$2 b=$3 i
	shift 3
	d=() c=()
	for ((i = 0; i < runs; i++)); do
		d+=("$(speed "$a" "$@")")
		c+=("$(speed "$b" "$@")")
	done
}
