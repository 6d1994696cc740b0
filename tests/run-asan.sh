#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The C side under AddressSanitizer (with leak detection): cptprov.so and the
# gcm, sym, chachapoly, md, mac, stitched, kex, sig, pk_kat, params and rsakey harnesses rebuilt with -fsanitize=address into
# build/asan/, next to the same libcptgo.so, then differential runs
# including the ASYNC jobs. Ends with the summed "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/asan
mkdir -p "$out"
cp build/libcptgo.so "$out/"
flags=(-std=c11 -D_GNU_SOURCE -DCPTPROV_VERSION="\"$(tools/version.sh)\"" -O1 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror)
gcc "${flags[@]}" -Iinclude -Iprovider -Ibuild -fPIC -fvisibility=hidden -shared -o "$out/cptprov.so" provider/*.c -lcrypto -ldl -lpthread
for t in gcm_test sym_test chachapoly_test md_test mac_test stitched_test kex_test sig_test pk_kat_test params_test rsakey_test; do
	gcc "${flags[@]}" -o "$out/$t" "tests/c/$t.c" tests/c/common.c -lcrypto -lpthread
done
# Go installs its own signal handlers; ASan must leave SIGSEGV to them.
export ASAN_OPTIONS=detect_leaks=1:handle_segv=0:allow_user_segv_handler=1:abort_on_error=0
rc=0
"$out/gcm_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --iters 200 --expect-async >"$out/gcm.log" 2>&1 || rc=1
"$out/sym_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --iters 60 --maxlen 65536 >"$out/sym.log" 2>&1 || rc=1
"$out/chachapoly_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --iters 60 --maxlen 65536 >"$out/chachapoly.log" 2>&1 || rc=1
"$out/md_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --iters 60 --maxlen 65536 >"$out/md.log" 2>&1 || rc=1
"$out/mac_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --iters 60 --maxlen 65536 >"$out/mac.log" 2>&1 || rc=1
"$out/stitched_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --iters 10 >"$out/stitched.log" 2>&1 || rc=1
"$out/kex_test" --provider-path "$PWD/$out" --iters 5 >"$out/kex.log" 2>&1 || rc=1
"$out/sig_test" --provider-path "$PWD/$out" --iters 3 >"$out/sig.log" 2>&1 || rc=1
"$out/pk_kat_test" --provider-path "$PWD/$out" >"$out/pk_kat.log" 2>&1 || rc=1
"$out/params_test" --provider cptprov --provider-path "$PWD/$out" --no-stats >"$out/params.log" 2>&1 || rc=1
"$out/rsakey_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --sizes "1024 2048" >"$out/rsakey.log" 2>&1 || rc=1
for l in gcm sym chachapoly md mac stitched kex sig pk_kat params rsakey; do
	{ grep -E "ERROR: (Address|Leak)Sanitizer|FAIL" "$out/$l.log" || true; } | head -5
	tail -1 "$out/$l.log"
done | tee "$out/summary.log"
if grep -qE "ERROR: (Address|Leak)Sanitizer" "$out"/*.log; then rc=1; fi
sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1 \2/p' "$out/summary.log" |
	awk -v rc=$rc '{p+=$1; f+=$2} END {print p+0 " passed, " f+(rc && !f) " failed"}'
exit $rc
