#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test group of cptprov and ends with one line "N passed, N failed"
# summing them all. The tests are the lines of tests/tests.list. Groups: go
# (unit tests, -race), c (C harnesses loading the provider into libcrypto),
# integration (openssl CLI: TLS, speed, servers), package (the Debian
# package installed on this machine); and, not by default, hostbuild
# (harnesses over CPT_HOSTBUILD's provider).
# Usage: tests/run.sh [--list] [group...]   (--list: print each test's
#        name and command, run nothing)
set -uo pipefail
cd "$(dirname "$0")/.." || exit
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(go c integration package)
logdir=
if [ $list = 0 ]; then logdir=$(mktemp -d /tmp/cptprov-test.XXXXXX); fi
passed=0 failed=0

# Adds the counts of a log's "N passed, N failed" lines.
tally() {
	local p f
	read -r p f < <(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1 \2/p' "$1" | awk '{p+=$1; f+=$2} END {print p+0, f+0}')
	passed=$((passed + p))
	failed=$((failed + f))
}

run() { # name, command...
	local name=$1 log="$logdir/$1.log" start=$SECONDS
	shift
	[ $list = 0 ] || { echo "$name: $*"; return; }
	echo "=== $name: $*"
	if "$@" >"$log" 2>&1; then
		tally "$log"
		grep -E '^(FAIL|--- FAIL|not ok)|[0-9]+ passed, [0-9]+ failed' "$log" | tail -5
		echo "=== $name ok ($((SECONDS - start)) s)"
	else
		tally "$log"
		tail -40 "$log"
		echo "=== $name FAILED ($((SECONDS - start)) s, full log $log)"
		# A group that died without counting still counts as a failure.
		grep -qE '[0-9]+ passed, [0-9]+ failed' "$log" || failed=$((failed + 1))
	fi
}

# make bench-quick: the benchmark report and its charts come out whole
# (their figures are not checked: a timed test proves nothing here).
benchquick() {
	make -s bench-quick && echo "1 passed, 0 failed"
}

gotests() {
	go test -race -count=1 -v ./cptdrv/... ./simulator/... ./dpdk/... ./dispatch/... ./stats/... ./internal/... ./bench/... ./cmd/... >"$logdir/go-raw.log" 2>&1
	local rc=$?
	grep -E '^(ok|FAIL|---|panic)' "$logdir/go-raw.log"
	local p f
	p=$(grep -c -- '--- PASS' "$logdir/go-raw.log")
	f=$(grep -c -- '--- FAIL' "$logdir/go-raw.log")
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	echo "$p passed, $f failed"
	return $rc
}

# The table: one test a line (see its header).
mapfile -t rows < <(grep -Ev '^[[:space:]]*(#|$)' tests/tests.list)

# entry NAME PROV ENV COMMAND...: runs one line of the table, {prov} in the
# command standing for PROV.
entry() {
	local name=$1 prov=$2 envs=$3 w cmd=() pre=()
	shift 3
	for w in "$@"; do cmd+=("${w//\{prov\}/$prov}"); done
	[ "$envs" = - ] || IFS=, read -ra pre <<<"$envs"
	if [ ${#pre[@]} -gt 0 ]; then
		run "$name" env "${pre[@]}" "${cmd[@]}"
	else
		run "$name" "${cmd[@]}"
	fi
}

for g in "${groups[@]}"; do
	known=0
	[ "$g" != hostbuild ] || known=1
	if [ "$g" = hostbuild ] && [ $list = 0 ] &&
		{ [ -z "${CPT_HOSTBUILD:-}" ] || [ ! -f "$CPT_HOSTBUILD/cptprov.so" ]; }; then
		echo "hostbuild: CPT_HOSTBUILD does not hold a cptprov.so"
		failed=$((failed + 1))
		continue
	fi
	for row in "${rows[@]}"; do
		read -r name group _ flags envs cmd <<<"$row"
		read -ra cmd <<<"$cmd"
		if [ "$g" = hostbuild ]; then
			# Another build's cptprov.so and libcptgo.so under these
			# harnesses: the Debian 13 leg loads the host's, built against
			# OpenSSL 3.0's headers, into OpenSSL 3.5.
			if [ "$group" != hostbuild ]; then
				case ,$flags, in *,hostbuild,*) name=hostbuild_$name ;; *) continue ;; esac
			fi
			hb=${CPT_HOSTBUILD:-}
			case " ${cmd[*]} " in
			*"{prov}"*) ;;
			*) if [ "$envs" = - ]; then envs=CPTPROV_BUILD=$hb; else envs=CPTPROV_BUILD=$hb,$envs; fi ;;
			esac
			entry "$name" "$hb" "$envs" "${cmd[@]}"
		elif [ "$group" = "$g" ]; then
			known=1
			entry "$name" build "$envs" "${cmd[@]}"
		fi
	done
	if [ $known = 0 ]; then
		echo "unknown group $g"
		failed=$((failed + 1))
	fi
done
[ $list = 0 ] || exit $((failed > 0))
echo "logs: $logdir"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
