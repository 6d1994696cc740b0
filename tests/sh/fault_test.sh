#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/fault_test.sh - cptprov while the simulated device fails.
#
# For each fault kind (error completions, stalled engines, latency spikes,
# device resets, a ring that stays full, wrong RSA CRT halves, no device at
# all, and all of them at once) build/fault_test runs operations synchronously and in ASYNC jobs
# against the default provider's outputs:
#   fallback on   every operation succeeds with the right output;
#   fallback off  each succeeds with the right output or fails with an
#                 error on the queue, some fail, none hangs
#                 (delays below the request timeout: nothing fails; a
#                 wrong CRT half is caught and recomputed: nothing fails,
#                 nothing wrong is released).
# Then, with all the faults at once and the fallback on, the differential
# harnesses (digests, HMAC, signatures, key exchange, AES-GCM) and the TLS
# exchanges of tests/sh/tls_test.sh (sync and SSL_MODE_ASYNC servers) must pass
# unchanged: the faults are invisible to the application.
#
# The dpdk backend's one fault, its device stopped and restarted under load,
# runs the same two ways.
#
# Every fault_test run prints a "summary:" line; this script ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit
B=${CPTPROV_BUILD:-build}
log=$(mktemp -d /tmp/cptprov-faults.XXXXXX)
trap 'rm -rf "$log"' EXIT
passed=0 failed=0

# step NAME CMD...: runs CMD, adds its "N passed, N failed" line to ours.
step() {
	local name=$1 out p f
	shift
	out="$log/$name.log"
	"$@" >"$out" 2>&1
	local rc=$?
	grep -E '^(summary|soak):' "$out"
	read -r p f < <(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1 \2/p' "$out" |
		awk '{p+=$1; f+=$2} END {print p+0, f+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $name (rc $rc):"
		grep -E 'FAIL|error' "$out" | head -20
		# A crash says why only at its end (glibc's abort message, a
		# Go traceback's first lines).
		if [ "$rc" -ge 128 ]; then
			echo "... killed by signal $((rc - 128)); the output's end:"
			grep -v ' warn: ' "$out" | tail -25
		fi
	else
		echo "ok   $name"
	fi
}

# The device path for every size (no CPU path), a short request timeout so
# that stalls resolve quickly.
export CPTPROV_CPU_THRESHOLD=0 CPTPROV_REQUEST_TIMEOUT_MS=50

MIXED="error:rate=0.05,seed=11;reset:every=97;stall:every=89;full:every=211,delay=5ms;delay:every=13,delay=1ms;crt:every=3"
declare -A PLANS=(
	[error]="error:rate=0.2,seed=5"
	[stall]="stall:every=5"
	[delay]="delay:every=3,delay=2ms"
	[reset]="reset:every=7"
	# Longer than the request timeout: without the fallback, requests queued
	# behind engines that take nothing must time out, however fast the
	# machine (at 20 ms, none did in some loaded runs).
	[full]="full:every=9,delay=60ms"
	[crt]="crt:every=2"
	[absent]="absent"
	[mixed]="$MIXED"
)
for kind in error stall delay reset full crt absent mixed; do
	plan=${PLANS[$kind]}
	stats=$(mktemp -d "$log/stats.XXXXXX")
	step "$kind-fallback-on" env CPTPROV_FAULTS="$plan" CPTPROV_FALLBACK=on \
		"$B/fault_test" --provider-path "$B" --stats-dir "$stats" --expect ok
	expect=clean timeout=$CPTPROV_REQUEST_TIMEOUT_MS
	[ "$kind" = delay ] && expect=ok
	# A wrong CRT half costs a recomputation, not a device failure: with a
	# timeout that the longer queue cannot reach, nothing may fail.
	[ "$kind" = crt ] && expect=ok timeout=5000
	step "$kind-fallback-off" env CPTPROV_FAULTS="$plan" CPTPROV_FALLBACK=off CPTPROV_REQUEST_TIMEOUT_MS="$timeout" \
		"$B/fault_test" --provider-path "$B" --stats-dir "$stats" --expect "$expect"
done

# The dpdk backend's device stopped under load (its only fault kind: the
# cryptodev stopped, then started again 2 ms later), both policies.
if [ -e "$B/libcptdpdk.so" ]; then
	for fb in on off; do
		expect=ok
		[ "$fb" = off ] && expect=clean
		stats=$(mktemp -d "$log/stats.XXXXXX")
		step "dpdk-reset-fallback-$fb" env CPTPROV_TEST_BACKEND=dpdk CPTPROV_FAULTS="reset:every=7,delay=2ms" \
			CPTPROV_FALLBACK=$fb "$B/fault_test" --provider-path "$B" --stats-dir "$stats" --expect "$expect"
	done
fi

# The differential harnesses and TLS under all the faults, fallback on.
export CPTPROV_FAULTS=$MIXED CPTPROV_FALLBACK=on
# Jobs abandoned while their requests are in flight, haproxy-style, while
# requests stall, fail, reset and fall back (results right, no write after
# abandon, no hang, no fd left).
step abandon-faults "$B/abandon_test" --provider-path "$B"
step abandon-faults-late-wait env CPTPROV_TEST_WAIT_DELAY_US=150 "$B/abandon_test" --provider-path "$B"
# A soak of fixed length: the resident set flat after warm-up (+4 MiB at
# most), the fds where they were. A longer one: FAULT_SOAK_SECONDS=3600.
stats=$(mktemp -d "$log/stats.XXXXXX")
step soak "$B/fault_test" --provider-path "$B" --stats-dir "$stats" --expect ok --soak "${FAULT_SOAK_SECONDS:-30}"
for h in md_test mac_test sig_test kex_test; do
	args=()
	# sig_test's sweep of raw ECDSA input lengths is thousands of device
	# operations for the stalls to hold up, and tests no fault path.
	[ "$h" = sig_test ] && args=(--skip ecdsa_lengths)
	step "$h-faults" tests/run-c.sh "$h" "${args[@]}"
done
# Without --expect-async: while the circuit is open the operations run in
# software before the job could pause, and a subtest may see no pause.
stats=$(mktemp -d "$log/stats.XXXXXX")
step gcm_test-faults "$B/gcm_test" --provider cptprov --provider-path "$PWD/$B" --stats-dir "$stats"
# TLS with the fallback off while the device fails: every connection either
# completes or fails, none hangs, and the server stays up (configured
# through openssl.cnf this time: fallback = off in the section). A record
# the server cannot encrypt is an error on its side; libssl then sends its
# alert under a sequence number the client does not expect, so the client
# reports a bad record MAC: the connection is lost, not silently wrong.
tls_fallback_off() (
	. tests/sh/lib.sh
	local t conf port srv ok=0 failed_clean=0 hung=0 i rc
	t=$(mktemp -d "$log/tls.XXXXXX")
	conf=$t/openssl.cnf
	cpt_write_config "$conf" "" "?provider=cptprov" "fallback = off
request_timeout_ms = 50
faults = error:every=5;stall:every=23"
	OPENSSL_CONF=/dev/null openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$t/k.pem" -out "$t/c.pem" -subj /CN=localhost -days 1 >/dev/null 2>&1
	port=$(cpt_free_port)
	env -u CPTPROV_FAULTS -u CPTPROV_FALLBACK -u CPTPROV_CPU_THRESHOLD OPENSSL_CONF="$conf" timeout 120 openssl s_server -accept "$port" \
		-cert "$t/c.pem" -key "$t/k.pem" -www -quiet >"$t/srv.log" 2>&1 &
	srv=$!
	cpt_wait_listen "$port" 10 || true
	for i in $(seq 12); do
		echo "GET / HTTP/1.0" | env -u CPTPROV_FAULTS -u CPTPROV_FALLBACK -u CPTPROV_CPU_THRESHOLD OPENSSL_CONF="$conf" timeout 20 \
			openssl s_client -connect "127.0.0.1:$port" -quiet >"$t/cli.$i.log" 2>&1
		rc=$?
		if [ $rc -eq 124 ] || [ $rc -ge 128 ]; then
			hung=$((hung + 1))
		elif grep -q "HTTP/1.0 200" "$t/cli.$i.log"; then
			ok=$((ok + 1))
		else
			failed_clean=$((failed_clean + 1))
		fi
	done
	local alive=0
	kill -0 "$srv" 2>/dev/null && alive=1
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	echo "summary: TLS with fallback off: $ok handshakes served, $failed_clean failed cleanly, $hung hung; server alive $alive"
	if [ $hung -eq 0 ] && [ $alive -eq 1 ] && [ $failed_clean -gt 0 ] && [ $ok -gt 0 ]; then
		echo "1 passed, 0 failed"
	else
		tail -5 "$t/srv.log"
		echo "0 passed, 1 failed"
		return 1
	fi
)
step tls-fallback-off tls_fallback_off
step tls-faults env TLS_TEST_CASES="tls13-aes256gcm tls12-aes128gcm tls13-aes256gcm-async tls12-aes128gcm-async tls13-aes128gcm-ecdsa" tests/sh/tls_test.sh
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
