#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Speed of cptprov against OpenSSL's default provider, in the same run:
# openssl speed -elapsed -evp for each size, the two providers interleaved,
# each point repeated; prints a markdown table of medians and ratios.
# Usage: bench/bench.sh [-r runs] [-s seconds] [-b "sizes"] [-a async_jobs] [alg...]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. bench/lib.sh
runs=5 secs=1 sizes="16 64 256 1024 8192 16384" async=0
while getopts r:s:b:a: o; do
	case $o in
	r) runs=$OPTARG ;; s) secs=$OPTARG ;; b) sizes=$OPTARG ;; a) async=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
algs=("$@")
[ ${#algs[@]} -gt 0 ] || algs=(aes-128-gcm aes-256-gcm)
bench_async_flag "$async"

# speed PROVIDER ALG SIZE -> bytes per second
speed() {
	local prov=()
	[ "$1" = cptprov ] && prov=("${bench_cptprov[@]}")
	timeout 120 openssl speed "${prov[@]}" -elapsed -seconds "$secs" -bytes "$3" "${asyncflag[@]}" -evp "$2" 2>/dev/null | bench_evp_rate
}

echo "openssl speed -elapsed -seconds $secs ${asyncflag[*]} -evp ALG -bytes SIZE; median of $runs interleaved runs per point"
bench_host
echo
echo "| algorithm | bytes | default MB/s | cptprov MB/s | ratio | cptprov spread |"
echo "|---|---:|---:|---:|---:|---:|"
for alg in "${algs[@]}"; do
	for size in $sizes; do
		bench_alternate "$runs" default cptprov "$alg" "$size"
		python3 - "$alg" "$size" "${d[*]}" "${c[*]}" <<'PY'
import statistics, sys
alg, size, d, c = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
md, mc = statistics.median(d), statistics.median(c)
spread = (max(c) - min(c)) / mc * 100 if mc else 0
print(f"| {alg.upper()} | {size} | {md/1e6:.0f} | {mc/1e6:.0f} | {mc/md:.2f}x | ±{spread/2:.0f}% |")
PY
	done
done
