#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Prints cptprov's version, the one string the provider's version and
# buildinfo parameters, cptstat -version, the Debian package and the bench
# report show. It must be a valid Debian upstream version that sorts in
# the order the trees were made:
#   a tag vX.Y.Z           X.Y.Z
#   N commits after it     X.Y.Z+gitN.HASH    (after X.Y.Z, before X.Y.Z+1)
#   no tag yet             BASE~gitDATE.HASH  (DATE: the commit's, UTC, to
#                          the second; "~" sorts before BASE itself)
#   uncommitted changes    +dirty appended
#   no git tree            0.0.0+unknown (make VERSION=... overrides)
set -eu
base=0.1.0
cd "$(dirname "$0")/.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo 0.0.0+unknown
	exit 0
fi
dirty=
# Refresh the index first (as git describe --dirty does): a file rewritten
# with the same bytes only looks changed to diff-index. A read-only tree
# cannot refresh, and then says +dirty only where bytes differ or stat
# data does.
git update-index -q --refresh >/dev/null 2>&1 || true
git diff-index --quiet HEAD -- 2>/dev/null || dirty=+dirty
if desc=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	desc=${desc#v}
	case $desc in
	*-*-g*)
		n=${desc%-g*}
		echo "${n%-*}+git${n##*-}.${desc##*-g}$dirty"
		;;
	*) echo "$desc$dirty" ;;
	esac
else
	echo "$base~git$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d.%H%M%S).$(git rev-parse --short HEAD)$dirty"
fi
