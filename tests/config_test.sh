#!/usr/bin/env bash
# tests/config_test.sh - the provider's openssl.cnf section, every key with a
# good and a bad value, and an unknown key. A good value: cptprov is listed
# by `openssl list -providers` and computes a digest. A bad value or an
# unknown key: cptprov is not activated, and the message on stderr names the
# key and the value. Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cpt_require_build
cpt_mktemp_dir T cpt-config
mkdir -p "$T/stats"
passed=0 failed=0

# case NAME EXPECT(ok|refused) LINES [ENV...]
case_() {
	local name=$1 expect=$2 lines=$3 out listed
	shift 3
	cpt_write_config "$T/$name.cnf" "" "?provider=cptprov" "$lines"
	out=$(env "$@" OPENSSL_CONF="$T/$name.cnf" openssl list -providers 2>&1)
	listed=0
	grep -q '^  cptprov' <<<"$out" && listed=1
	if [ "$expect" = ok ]; then
		if [ $listed -eq 1 ] && echo abc | env "$@" OPENSSL_CONF="$T/$name.cnf" openssl dgst -sha256 >/dev/null 2>&1; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "FAIL $name: '$lines' should be accepted"
			echo "$out" | head -5
		fi
	else
		local key=${lines%% =*} value=${lines#*= }
		if [ -n "${KEY:-}" ]; then key=$KEY value=$VALUE; fi
		if [ $listed -eq 0 ] && grep -q "$key" <<<"$out" && grep -qF "\"$value\"" <<<"$out"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "FAIL $name: '$lines' should be refused, naming $key and \"$value\""
			echo "$out" | head -5
		fi
	fi
}

case_ async_notify ok "async_notify = fd"
case_ async_notify_bad refused "async_notify = poll"
case_ backend ok "backend = simulator"
case_ backend_bad refused "backend = cpt-vf"
case_ stats_dir ok "stats_dir = $T/stats"
case_ stats_dir_bad refused "stats_dir = $T/missing"
case_ engines ok "engines = 2"
case_ engines_bad refused "engines = two"
case_ engines_big refused "engines = 1000"
case_ ring_depth ok "ring_depth = 256"
case_ ring_depth_bad refused "ring_depth = 0"
case_ spin ok "engine_spin_us = 20"
case_ spin_bad refused "engine_spin_us = -1"
case_ cpu_threshold ok "cpu_threshold = 0"
case_ cpu_threshold_bad refused "cpu_threshold = 4k"
for fam in aes_cbc aes_ctr aes_gcm des_ede3_cbc chacha20 chacha20_poly1305 sha1 sha256 sha512 hmac aes_cbc_hmac; do
	case_ "thr_$fam" ok "cpu_threshold_$fam = 1024"
	case_ "thr_${fam}_bad" refused "cpu_threshold_$fam = 1e3"
done
case_ fallback ok "fallback = off"
case_ fallback_bad refused "fallback = maybe"
case_ timeout ok "request_timeout_ms = 2000"
case_ timeout_bad refused "request_timeout_ms = 0"
case_ retries ok "retries = 0"
case_ retries_bad refused "retries = 11"
case_ breaker ok "breaker_threshold = 3"
case_ breaker_bad refused "breaker_threshold = 0"
case_ cooldown ok "breaker_cooldown_ms = 250"
case_ cooldown_bad refused "breaker_cooldown_ms = soon"
case_ faults ok "faults = error:rate=0.01;stall:every=500;full:every=300,delay=20ms"
case_ faults_bad refused "faults = explode:every=3"
case_ faults_badkey refused "faults = error:often=3"
case_ log_level ok "log_level = info"
case_ log_level_bad refused "log_level = loud"
case_ log_file ok "log_file = $T/cptprov.log"
case_ log_file_stderr ok "log_file = stderr"
case_ log_file_bad refused "log_file = $T/missing/cptprov.log"
case_ unknown refused "retrys = 1"
case_ unknown2 refused "fallbak = on"
# The test overrides are checked as strictly.
KEY=fallback VALUE=maybe case_ env_fallback_bad refused "" CPTPROV_FALLBACK=maybe
KEY=faults VALUE=bogus case_ env_faults_bad refused "" CPTPROV_FAULTS=bogus
case_ all ok "stats_dir = $T/stats
engines = 2
ring_depth = 512
engine_spin_us = 0
cpu_threshold = 8192
cpu_threshold_sha256 = 65536
fallback = on
request_timeout_ms = 5000
retries = 2
breaker_threshold = 16
breaker_cooldown_ms = 200"

# The log: the device starting, failures, the circuit opening and the
# fallback engaged, one line each, rate-limited (burst of 20).
LOG=$T/events.log
cpt_write_config "$T/log.cnf" "" "?provider=cptprov" "log_level = info
log_file = $LOG
faults = error:every=1
breaker_threshold = 2
retries = 0
cpu_threshold = 0"
if head -c 100000 /dev/urandom | OPENSSL_CONF="$T/log.cnf" openssl dgst -sha256 >/dev/null 2>&1 &&
	grep -q 'info: device started: simulator' "$LOG" &&
	grep -q 'warn: fault injection: error:every=1' "$LOG" &&
	grep -q 'failed an operation without running it (engine error)' "$LOG" &&
	grep -q 'circuit open after repeated device failures: fallback to software engaged' "$LOG" &&
	[ "$(wc -l <"$LOG")" -le 20 ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL log: the events are not all in $LOG:"
	head -20 "$LOG"
fi
# log_level = error keeps the warnings out.
: >"$LOG"
sed -i 's/^log_level = info/log_level = error/' "$T/log.cnf"
if head -c 100000 /dev/urandom | OPENSSL_CONF="$T/log.cnf" openssl dgst -sha256 >/dev/null 2>&1 && [ ! -s "$LOG" ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL log_level = error still logged:"
	head -5 "$LOG"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
