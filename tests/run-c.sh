#!/usr/bin/env bash
# Runs one C harness (with any further arguments) against cptprov with a
# fresh stats directory, removed afterwards (so the harness is not exec'd:
# the trap must outlive it).
set -euo pipefail
cd "$(dirname "$0")/.."
stats=$(mktemp -d /tmp/cptprov-stats.XXXXXX)
trap 'rm -rf "$stats"' EXIT
h=$1
shift
case $h in
gcm_test) build/gcm_test --provider cptprov --provider-path "$PWD/build" --stats-dir "$stats" --expect-async "$@" ;;
*) "build/$h" --provider cptprov --provider-path "$PWD/build" --stats-dir "$stats" "$@" ;;
esac
