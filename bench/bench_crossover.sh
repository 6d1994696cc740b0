#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where the CPU path should stop: openssl speed -elapsed -evp through
# cptprov with every update on the device (CPTPROV_CPU_THRESHOLD=0) and
# with every update on the CPU path (threshold 1 GiB), alternated, median of
# the runs; the ratio is device / CPU. cpu_threshold's default is the first
# size where the device path comes within 10% of the CPU path.
# Usage: bench/bench_crossover.sh [-r runs] [-s seconds] [-b "sizes"] [alg...]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. bench/lib.sh
runs=3 secs=1 sizes="64 256 1024 2048 4096 8192 16384"
while getopts r:s:b: o; do
	case $o in
	r) runs=$OPTARG ;; s) secs=$OPTARG ;; b) sizes=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
algs=("$@")
[ ${#algs[@]} -gt 0 ] || algs=(aes-128-cbc aes-256-cbc aes-128-ctr aes-256-ctr)

# speed THRESHOLD ALG SIZE -> bytes per second
speed() {
	CPTPROV_CPU_THRESHOLD=$1 timeout 120 openssl speed "${bench_cptprov[@]}" -elapsed -seconds "$secs" \
		-bytes "$3" -evp "$2" 2>/dev/null | bench_evp_rate
}

echo "openssl speed -elapsed -seconds $secs -evp ALG -bytes SIZE through cptprov; median of $runs alternated runs"
echo
echo "| algorithm | bytes | device MB/s | CPU path MB/s | device / CPU |"
echo "|---|---:|---:|---:|---:|"
for alg in "${algs[@]}"; do
	for size in $sizes; do
		bench_alternate "$runs" 0 1073741824 "$alg" "$size"
		python3 - "$alg" "$size" "${d[*]}" "${c[*]}" <<'PY'
import statistics, sys
alg, size, d, c = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
md, mc = statistics.median(d), statistics.median(c)
print(f"| {alg.upper()} | {size} | {md/1e6:.0f} | {mc/1e6:.0f} | {md/mc:.2f} |")
PY
	done
done
