#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Public-key speed of cptprov against OpenSSL's default provider in the same
# run: openssl speed -elapsed for each algorithm, the two providers
# alternated, repeated; prints a markdown table of medians and ratios.
# Usage: bench/bench_pk.sh [-r runs] [-s seconds] [-a async_jobs] [alg...]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. bench/lib.sh
runs=3 secs=2 async=0
while getopts r:s:a: o; do
	case $o in
	r) runs=$OPTARG ;; s) secs=$OPTARG ;; a) async=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
algs=("$@")
[ ${#algs[@]} -gt 0 ] || algs=(rsa2048 rsa4096 ecdsap256 ecdsap384 ecdhp256 ecdhp384 ecdhx25519)
bench_async_flag "$async"

# speed PROVIDER ALG -> "op1/s [op2/s]" (sign verify, or derive)
speed() {
	local prov=()
	[ "$1" = cptprov ] && prov=("${bench_cptprov[@]}")
	timeout 300 openssl speed "${prov[@]}" -elapsed -seconds "$secs" "${asyncflag[@]}" "$2" 2>/dev/null |
		tail -1 | awk '{ if ($0 ~ /ecdh/) print $NF; else print $(NF-1), $NF }'
}

echo "openssl speed -elapsed -seconds $secs ${asyncflag[*]} ALG; median of $runs alternated runs, operations per second"
bench_host
echo
echo "| algorithm | operation | default | cptprov | ratio |"
echo "|---|---|---:|---:|---:|"
for alg in "${algs[@]}"; do
	bench_alternate "$runs" default cptprov "$alg"
	python3 - "$alg" "$(printf '%s;' "${d[@]}")" "$(printf '%s;' "${c[@]}")" <<'PY'
import statistics, sys
alg = sys.argv[1]
runs = lambda s: [[float(x) for x in r.split()] for r in s.split(';') if r.strip()]
d, c = runs(sys.argv[2]), runs(sys.argv[3])
ops = ["derive"] if alg.startswith("ecdh") else ["sign", "verify"]
for i, op in enumerate(ops):
    md, mc = statistics.median(r[i] for r in d), statistics.median(r[i] for r in c)
    print(f"| {alg} | {op} | {md:.0f} | {mc:.0f} | {mc/md:.2f}x |")
PY
done
