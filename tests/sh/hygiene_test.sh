#!/usr/bin/env bash
# tests/sh/hygiene_test.sh - what git tracks is source: no executable or
# shared object (ELF), no libFuzzer finding outside the corpus, nothing
# over 1 MiB (build outputs committed by mistake were 8-16 MB binaries).
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit
passed=0 failed=0
check() { # description, offending files...
	local what=$1
	shift
	if [ $# -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL $what: $*"
	fi
}
mapfile -d '' files < <(git ls-files -z)
elf=() big=() finds=()
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	[ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] && elf+=("$f")
	[ "$(stat -c %s "$f")" -gt $((1024 * 1024)) ] && big+=("$f")
	case $f in
	crash-* | leak-* | timeout-* | oom-* | */crash-* | */leak-*) finds+=("$f") ;;
	esac
done
check "tracked ELF files (build output)" "${elf[@]}"
check "tracked files over 1 MiB" "${big[@]}"
check "tracked fuzz findings outside tests/fuzz/corpus" "${finds[@]}"
echo "${#files[@]} tracked files checked"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
