#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/config_test.sh - the provider's openssl.cnf section, every key with a
# good and a bad value, and an unknown key. A good value: cptprov is listed
# by `openssl list -providers` and computes a digest. A bad value or an
# unknown key: cptprov is not activated, and the message on stderr names the
# key and the value. The `algorithms` key: what cptprov then offers in
# `openssl list` and in its TLS groups (build/tls_groups), and TLS handshakes
# on the groups it leaves. Ends with "N passed, N failed".
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
		if [ -n "${KEY:-}" ]; then key=$KEY value=${VALUE:-}; fi
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
case_ log_file_syslog ok "log_file = syslog"
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

# The `algorithms` key. offered CONF LIST: the names (aliases too) cptprov
# offers under CONF, one a line. LIST is an `openssl list` option without its
# dash (cipher-algorithms, key-managers, ...), or tls-groups: the TLS-GROUP
# capability, asked of cptprov by build/tls_groups (OpenSSL 3.0 has no
# `openssl list -tls-groups`, and a handshake cannot tell which provider
# announced a group).
GROUPS_BIN=$(cpt_repo_root)/build/tls_groups
make -s -C "$(cpt_repo_root)" build/tls_groups >"$T/make.log" 2>&1 || {
	failed=$((failed + 1))
	echo "FAIL cannot build $GROUPS_BIN:"
	tail -5 "$T/make.log"
}
offered() {
	if [ "$2" = tls-groups ]; then
		OPENSSL_CONF=$1 "$GROUPS_BIN" | cut -d' ' -f1
	else
		OPENSSL_CONF=$1 openssl list "-$2" | sed -n 's/^ *\(IDs: \)\{0,1\}\(.*\) @ cptprov$/\2/p' |
			tr -d '{}' | tr ',' '\n' | sed 's/^ *//; s/ *$//'
	fi
}

# case_algorithms NAME VALUE CHECK...: `algorithms = VALUE` (no key when
# VALUE is empty) activates cptprov and every CHECK holds: LIST:ALG (cptprov
# offers ALG in LIST), LIST:!ALG (it does not), LIST:none (it offers nothing
# there). Names match without regard to case.
case_algorithms() {
	local name=$1 value=$2 conf=$T/$1.cnf check list alg names wrong=""
	shift 2
	cpt_write_config "$conf" "" "?provider=cptprov" "${value:+algorithms = $value}"
	if ! OPENSSL_CONF=$conf openssl list -providers 2>&1 | grep -q '^  cptprov'; then
		failed=$((failed + 1))
		echo "FAIL $name: 'algorithms = $value' should be accepted"
		OPENSSL_CONF=$conf openssl list -providers 2>&1 | head -3
		return
	fi
	for check in "$@"; do
		list=${check%%:*} alg=${check#*:}
		names=$(offered "$conf" "$list")
		case $alg in
		none) [ -z "$names" ] ;;
		!*) ! grep -qixF -- "${alg#!}" <<<"$names" ;;
		*) grep -qixF -- "$alg" <<<"$names" ;;
		esac || wrong+=" $check"
	done
	if [ -z "$wrong" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL $name: with 'algorithms = $value', not so:$wrong"
	fi
}

# case_algorithms_refused NAME VALUE PROBLEM: cptprov is not activated, and
# the message names the key, the value, the problem (the bad entry) and the
# names accepted.
case_algorithms_refused() {
	local name=$1 value=$2 problem=$3 out
	cpt_write_config "$T/$name.cnf" "" "?provider=cptprov" "algorithms = $value"
	out=$(OPENSSL_CONF="$T/$name.cnf" openssl list -providers 2>&1)
	if ! grep -q '^  cptprov' <<<"$out" && grep -qF "algorithms = \"$value\" is not valid: $problem" <<<"$out" &&
		grep -qF 'NAME one of AES-128-GCM,' <<<"$out" && grep -qF 'X25519, EC, ECDH, ECDSA' <<<"$out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL $name: 'algorithms = $value' should be refused: $problem, with the names accepted"
		echo "$out" | head -5
	fi
}

# Without the key: everything, every group (the checks below that something
# is missing would prove nothing otherwise).
case_algorithms alg_default "" \
	cipher-algorithms:AES-128-GCM cipher-algorithms:AES-256-CBC-HMAC-SHA256 digest-algorithms:SHA2-512 \
	mac-algorithms:HMAC key-managers:X25519 key-managers:EC key-managers:RSA key-managers:RSA-PSS \
	key-exchange-algorithms:X25519 key-exchange-algorithms:ECDH signature-algorithms:ECDSA \
	signature-algorithms:RSA asymcipher-algorithms:RSA tls-groups:x25519 tls-groups:P-256 tls-groups:secp384r1
case_algorithms alg_two "AES-256-GCM, SHA2-256" \
	cipher-algorithms:AES-256-GCM cipher-algorithms:!AES-128-GCM cipher-algorithms:!ChaCha20 \
	digest-algorithms:SHA2-256 digest-algorithms:SHA256 digest-algorithms:!SHA2-512 digest-algorithms:!SHA1 \
	mac-algorithms:none kem-algorithms:none key-exchange-algorithms:none signature-algorithms:none \
	asymcipher-algorithms:none key-managers:none tls-groups:none
case_algorithms alg_aliases "sha256 hmac aes256" \
	digest-algorithms:SHA2-256 digest-algorithms:!SHA2-224 mac-algorithms:HMAC cipher-algorithms:AES-256-CBC \
	cipher-algorithms:!AES-256-GCM
case_algorithms alg_no_x25519 "all, -X25519" \
	key-managers:!X25519 key-exchange-algorithms:!X25519 tls-groups:!x25519 \
	key-managers:EC key-exchange-algorithms:ECDH tls-groups:P-256 cipher-algorithms:AES-128-GCM digest-algorithms:SHA1
# A signature brings in its key management, not the key exchange on it; the
# key management's groups come too (libssl keeps a group only from the
# provider whose key management it fetches: the handshakes below).
case_algorithms alg_ecdsa "ECDSA" \
	signature-algorithms:ECDSA key-managers:EC key-exchange-algorithms:!ECDH key-managers:!X25519 \
	signature-algorithms:!RSA tls-groups:P-256 tls-groups:!x25519 cipher-algorithms:none
case_algorithms alg_no_ec "all, -EC" \
	key-managers:!EC signature-algorithms:!ECDSA key-exchange-algorithms:!ECDH \
	tls-groups:!P-256 tls-groups:!secp256r1 tls-groups:!P-521 \
	tls-groups:x25519 signature-algorithms:RSA key-exchange-algorithms:X25519
case_algorithms alg_no_ecdh "all, -ECDH" \
	key-exchange-algorithms:!ECDH key-managers:EC signature-algorithms:ECDSA tls-groups:P-256
case_algorithms alg_in_order "all, -EC, ECDSA" \
	signature-algorithms:ECDSA key-managers:EC key-exchange-algorithms:!ECDH
case_algorithms alg_all_later "AES-128-GCM all -SHA1" \
	cipher-algorithms:ChaCha20 digest-algorithms:!SHA1 digest-algorithms:SHA2-256 key-managers:RSA
# RSA: the key management, the signature and the cipher; the signature also
# takes RSA-PSS keys, so it needs that key management too.
case_algorithms alg_rsa "RSA" \
	key-managers:RSA key-managers:RSA-PSS signature-algorithms:RSA asymcipher-algorithms:RSA \
	signature-algorithms:!ECDSA key-managers:!EC tls-groups:none
case_algorithms alg_no_rsapss "-RSA-PSS" \
	key-managers:!RSA-PSS signature-algorithms:!RSA key-managers:RSA asymcipher-algorithms:RSA
case_algorithms_refused alg_unknown "AES-999" "AES-999 is not an algorithm of cptprov"
case_algorithms_refused alg_unknown_later "AES-128-GCM, AES-999" "AES-999 is not an algorithm of cptprov"
case_algorithms_refused alg_nonsense "nonsense" "nonsense is not an algorithm of cptprov"
case_algorithms_refused alg_remove_all "-all" "it leaves cptprov no algorithm to offer"
case_algorithms_refused alg_remove_only "ECDSA, -EC" "it leaves cptprov no algorithm to offer"
case_algorithms_refused alg_empty "" "it leaves cptprov no algorithm to offer"

# handshake NAME CONF GROUP TEMPKEY: a TLS 1.3 handshake over 127.0.0.1,
# s_server and s_client both under CONF and limited to GROUP, succeeds with
# a key exchange on TEMPKEY (as s_client names it: "Server Temp Key" in
# OpenSSL 3.0, "Peer Temp Key" in 3.5).
handshake() {
	local name=$1 conf=$2 group=$3 port out spid
	port=$(cpt_free_port)
	OPENSSL_CONF=$conf timeout 30 openssl s_server -accept "127.0.0.1:$port" -cert "$T/tls/ec.crt" \
		-key "$T/tls/ec.key" -groups "$group" -naccept 1 -www >"$T/$name.server.log" 2>&1 &
	spid=$!
	cpt_wait_listen "$port" 10
	out=$(printf 'GET / HTTP/1.0\r\n\r\n' | OPENSSL_CONF=$conf timeout 30 openssl s_client \
		-connect "127.0.0.1:$port" -groups "$group" -tls1_3 -ign_eof 2>&1)
	wait "$spid"
	if grep -qE "^(Server|Peer) Temp Key: .*$4" <<<"$out" && grep -q '^HTTP/1.0 200' <<<"$out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL $name: no TLS handshake on $group under $conf:"
		grep -iE 'error|alert|Temp Key' <<<"$out" "$T/$name.server.log" | head -5
	fi
}
mkdir -p "$T/tls"
if cpt_tls_server_setup "$T/tls" "$T/tls"; then
	# x25519 from the default provider when cptprov no longer offers it.
	handshake tls_no_x25519 "$T/alg_no_x25519.cnf" X25519 X25519
	# P-256 when cptprov keeps the EC key management but not ECDH: the key
	# exchange runs in the default provider on cptprov's exported key.
	handshake tls_ecdsa_p256 "$T/alg_ecdsa.cnf" P-256 prime256v1
	handshake tls_no_ecdh_p256 "$T/alg_no_ecdh.cnf" P-256 prime256v1
	handshake tls_no_ec_p256 "$T/alg_no_ec.cnf" P-256 prime256v1
else
	failed=$((failed + 1))
	echo "FAIL cannot make the TLS certificates"
fi

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
# A configuration problem goes to the configured log too (and to stderr).
: >"$LOG"
cpt_write_config "$T/log_refused.cnf" "" "?provider=cptprov" "log_file = $LOG
ring_depth = lots"
OPENSSL_CONF="$T/log_refused.cnf" openssl list -providers >/dev/null 2>&1
if grep -q 'cptprov\[[0-9]*\] error: cptprov: ring_depth = "lots" is not valid: .* (not activated)$' "$LOG"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL the refusal is not in the log $LOG:"
	head -5 "$LOG"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
