#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Prints the package's debian/changelog for VERSION (tools/version.sh's,
# through make deb): the version lives in one place, so the changelog is
# made, not committed. Its date is the commit's, which makes the package's
# timestamps (SOURCE_DATE_EPOCH) those of the tree it was built from.
set -eu
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
cd "$(dirname "$0")/.."
maint=$(sed -n 's/^Maintainer: //p' debian/control)
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
subject=$(git log -1 --format=%s 2>/dev/null || echo "built from a tree without git")
# Entries are wrapped at 80 columns (lintian).
entry=$(echo "Built from the cptprov tree: $subject." | fold -s -w 74 | sed 's/ *$//; 1s/^/  * /; 2,$s/^/    /')
cat <<END
cptprov ($1) unstable; urgency=medium

$entry

 -- $maint  $date
END
