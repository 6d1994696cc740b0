#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one C harness (with any further arguments) against cptprov with a
# fresh stats directory, removed afterwards (so the harness is not exec'd:
# the trap must outlive it); the provider from CPTPROV_BUILD (default
# build/).
set -euo pipefail
cd "$(dirname "$0")/.."
prov=$(cd "${CPTPROV_BUILD:-build}" && pwd)
stats=$(mktemp -d /tmp/cptprov-stats.XXXXXX)
trap 'rm -rf "$stats"' EXIT
h=$1
shift
case $h in
gcm_test) build/gcm_test --provider cptprov --provider-path "$prov" --stats-dir "$stats" --expect-async "$@" ;;
*) "build/$h" --provider cptprov --provider-path "$prov" --stats-dir "$stats" "$@" ;;
esac
