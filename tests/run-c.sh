#!/usr/bin/env bash
# Runs one C harness against cptprov with a fresh stats directory; the
# provider from CPTPROV_BUILD (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
prov=$(cd "${CPTPROV_BUILD:-build}" && pwd)
stats=$(mktemp -d /tmp/cptprov-stats.XXXXXX)
trap 'rm -rf "$stats"' EXIT
case $1 in
gcm_test) exec build/gcm_test --provider cptprov --provider-path "$prov" --stats-dir "$stats" --expect-async ;;
*) exec "build/$1" --provider cptprov --provider-path "$prov" --stats-dir "$stats" ;;
esac
