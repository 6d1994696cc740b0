#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/fuzz.sh - the short fuzz run of make test.
#
# Each Go fuzz target of dispatch/ (DER signatures, PKCS#1 and OAEP padding,
# OSSL_PARAM integers), of internal/tlsrec (TLS CBC record padding and MAC
# extraction) and of the simulator (GCM streaming, scalar
# multiplication, ECDSA verification, modular exponentiation) fuzzes for
# FUZZ_SECONDS (default 5); then build/fuzz_evp replays tests/fuzz/corpus
# through EVP into cptprov and the default provider and runs random inputs
# and mutations of it for FUZZ_EVP_SECONDS (default 20). Findings of the
# Go targets land in their package's testdata/fuzz/, those of fuzz_evp in
# /tmp/cptprov-fuzz-findings. A longer, coverage-guided run: make fuzz-long.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit
secs=${FUZZ_SECONDS:-5}
passed=0 failed=0
for t in dispatch:FuzzParseDERSignature dispatch:FuzzPKCS1Unpad dispatch:FuzzOAEPUnpad dispatch:FuzzParamUint64 \
	dispatch:FuzzParamsRoundTrip \
	internal/tlsrec:FuzzPadding internal/tlsrec:FuzzExtractMAC \
	simulator/aesgcm:FuzzStreaming simulator/asym:FuzzScalarMult simulator/asym:FuzzECDSAVerify \
	simulator/asym:FuzzModExp; do
	pkg=${t%%:*} name=${t#*:}
	out=$(go test -run '^$' -fuzz "^$name\$" -fuzztime "${secs}s" -fuzzminimizetime 2s "./$pkg" 2>&1)
	rc=$?
	# Go's fuzzing coordinator (before Go 1.27, go.dev/issue/75804) can end a
	# time-boxed run with a bare "context deadline exceeded" when the
	# deadline races a worker's shutdown on a loaded machine; no input failed
	# then. The rerun is bounded by a count of executions, the number the
	# first run reached, which has no deadline to race.
	if [ $rc -ne 0 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -qi 'failing input\|panic:' <<<"$out"; then
		n=$(grep -Eo 'execs: [0-9]+' <<<"$out" | tail -1 | grep -Eo '[0-9]+')
		[ "${n:-0}" -gt 1000 ] || n=1000
		out=$(go test -run '^$' -fuzz "^$name\$" -fuzztime "${n}x" -fuzzminimizetime 2s "./$pkg" 2>&1)
		rc=$?
	fi
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok   $pkg $name: $(echo "$out" | grep -Eo 'elapsed: [^,]*, execs: [0-9]+' | tail -1)"
	else
		failed=$((failed + 1))
		echo "FAIL $pkg $name"
		echo "$out" | tail -20
	fi
done
B=${CPTPROV_BUILD:-build}
build/fuzz_evp --provider-path "$B" --corpus tests/fuzz/corpus --seconds "${FUZZ_EVP_SECONDS:-20}" >/tmp/cptprov-fuzz-evp.log 2>&1
rc=$?
grep -E '^fuzz_evp:|FAIL' /tmp/cptprov-fuzz-evp.log | head -20
read -r p f < <(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1 \2/p' /tmp/cptprov-fuzz-evp.log | tail -1)
p=${p:-0} f=${f:-1}
[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
echo "$((passed + p)) passed, $((failed + f)) failed"
[ $((failed + f)) -eq 0 ]
