#!/usr/bin/env bash
# Runs every test group of cptprov and ends with one line "N passed, N failed"
# summing them all. Groups: go (unit tests, -race), c (C harnesses loading the
# provider into libcrypto), integration (openssl CLI: TLS, speed, fork); and,
# not by default, hostbuild (harnesses over CPT_HOSTBUILD's provider).
# Usage: tests/run.sh [--list] [group...]   (--list: print each test's
#        name and command, run nothing)
set -uo pipefail
cd "$(dirname "$0")/.."
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(go c integration)
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
	go test -race -count=1 -v ./cptdrv/... ./simulator/... ./dispatch/... ./stats/... ./internal/... ./bench/... ./cmd/... >"$logdir/go-raw.log" 2>&1
	local rc=$?
	grep -E '^(ok|FAIL|---|panic)' "$logdir/go-raw.log"
	local p f
	p=$(grep -c -- '--- PASS' "$logdir/go-raw.log")
	f=$(grep -c -- '--- FAIL' "$logdir/go-raw.log")
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	echo "$p passed, $f failed"
	return $rc
}

for g in "${groups[@]}"; do
	case $g in
	go) run go-unit gotests ;;
	c)
		run gcm_test tests/run-c.sh gcm_test
		run gcm_test_device_only env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh gcm_test
		run gcm_test_switching env CPTPROV_CPU_THRESHOLD=100 tests/run-c.sh gcm_test
		# the Go half in forked children: device operations only
		run fork_test env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh fork_test
		# panics injected into Go's update and final: device operations only
		run panic_test env CPTPROV_CPU_THRESHOLD=0 build/panic_test --provider-path build
		run lazy_test build/lazy_test --provider-path build
		run sym_test tests/run-c.sh sym_test
		run sym_test_device_only env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh sym_test
		run sym_test_switching env CPTPROV_CPU_THRESHOLD=100 tests/run-c.sh sym_test
		run chachapoly_test tests/run-c.sh chachapoly_test
		run chachapoly_test_device_only env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh chachapoly_test
		run chachapoly_test_switching env CPTPROV_CPU_THRESHOLD=100 tests/run-c.sh chachapoly_test
		run md_test tests/run-c.sh md_test
		run md_test_device_only env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh md_test
		run mac_test tests/run-c.sh mac_test
		run mac_test_device_only env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh mac_test
		run stitched_test tests/run-c.sh stitched_test
		run stitched_test_device_only env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh stitched_test
		run stitched_test_switching env CPTPROV_CPU_THRESHOLD=100 tests/run-c.sh stitched_test
		run kex_test build/kex_test --provider-path build
		run sig_test tests/run-c.sh sig_test
		run pk_kat_test build/pk_kat_test --provider-path build
		run params_test tests/run-c.sh params_test
		run rsakey_test tests/run-c.sh rsakey_test
		# the default library context holding only the null provider
		run libctx_test tests/run-c.sh libctx_test
		run libctx_test_device_only env CPTPROV_CPU_THRESHOLD=0 tests/run-c.sh libctx_test
		run abandon_test build/abandon_test --provider-path build
		run abandon_test_late_wait env CPTPROV_TEST_WAIT_DELAY_US=150 build/abandon_test --provider-path build
		run callback_test build/callback_test --provider-path build --expect callback
		run callback_test_fd env CPTPROV_ASYNC_NOTIFY=fd build/callback_test --provider-path build --expect fd
		run asan tests/run-asan.sh
		run valgrind tests/run-valgrind.sh
		run faults tests/fault_test.sh
		run fuzz tests/fuzz.sh
		;;
	integration)
		run hygiene tests/hygiene_test.sh
		run config tests/config_test.sh
		run cptstat tests/cptstat_test.sh
		run tls tests/tls_test.sh
		run speed tests/speed_test.sh
		run nginx tests/nginx_test.sh
		run haproxy tests/haproxy_test.sh
		run bench-quick benchquick
		;;
	hostbuild)
		# Another build's cptprov.so and libcptgo.so (CPT_HOSTBUILD) under
		# these harnesses: the Debian 13 leg loads the host's, built against
		# OpenSSL 3.0's headers, into OpenSSL 3.5.
		if [ $list = 0 ] && { [ -z "${CPT_HOSTBUILD:-}" ] || [ ! -f "$CPT_HOSTBUILD/cptprov.so" ]; }; then
			echo "hostbuild: CPT_HOSTBUILD does not hold a cptprov.so"
			failed=$((failed + 1))
			continue
		fi
		for t in gcm_test sym_test chachapoly_test md_test mac_test stitched_test params_test libctx_test; do
			run "hostbuild_$t" env CPTPROV_BUILD="$CPT_HOSTBUILD" tests/run-c.sh "$t"
		done
		for t in kex_test sig_test pk_kat_test abandon_test; do
			run "hostbuild_$t" "build/$t" --provider-path "$CPT_HOSTBUILD"
		done
		run hostbuild_callback_test build/callback_test --provider-path "$CPT_HOSTBUILD" --expect callback
		run hostbuild_tls env CPTPROV_BUILD="$CPT_HOSTBUILD" tests/tls_test.sh
		;;
	*) echo "unknown group $g"; failed=$((failed + 1)) ;;
	esac
done
[ $list = 0 ] || exit 0
echo "logs: $logdir"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
