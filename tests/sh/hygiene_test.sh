#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/hygiene_test.sh - what git tracks is source: no executable or
# shared object (ELF), no libFuzzer finding outside the corpus, nothing
# over 1 MiB (build outputs committed by mistake were 8-16 MB binaries);
# and every C harness and shell test is run by a line of tests/tests.list
# (one left out of the table would silently never run); every source file
# and script names its licence (an SPDX line near its top).
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
elf=() big=() finds=() nolicence=()
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	[ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] && elf+=("$f")
	[ "$(stat -c %s "$f")" -gt $((1024 * 1024)) ] && big+=("$f")
	case $f in
	crash-* | leak-* | timeout-* | oom-* | */crash-* | */leak-*) finds+=("$f") ;;
	esac
	case $f in
	*.c | *.h | *.go | *.s | *.sh | *.def | Makefile | .ci/run)
		head -n 5 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || nolicence+=("$f")
		;;
	esac
done
check "tracked ELF files (build output)" "${elf[@]}"
check "tracked files over 1 MiB" "${big[@]}"
check "tracked fuzz findings outside tests/fuzz/corpus" "${finds[@]}"
check "source files without an SPDX licence line" "${nolicence[@]}"
# The programs of the table's "needs" column and the words of its commands.
listed=" $(awk '!/^[[:space:]]*(#|$)/ { gsub(",", " ", $3); printf "%s ", $3; for (i = 6; i <= NF; i++) printf "%s ", $i }' tests/tests.list)"
unlisted=()
for f in tests/*.c tests/c/*.c tests/fuzz/*.c tests/*_test.sh tests/sh/*_test.sh; do
	[ -e "$f" ] || continue
	case $f in
	tests/c/common.c) ;;
	*.c) n=${f##*/} && [[ $listed == *" ${n%.c} "* ]] || unlisted+=("$f") ;;
	*) [[ $listed == *" $f "* ]] || unlisted+=("$f") ;;
	esac
done
check "tests no line of tests/tests.list runs" "${unlisted[@]}"
echo "${#files[@]} tracked files checked"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
