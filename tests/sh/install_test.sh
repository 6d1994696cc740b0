#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/install_test.sh - make install and make uninstall into a DESTDIR
# (as a packager runs them): with PREFIX=/usr the provider and its Go half
# land in OpenSSL's module directory, cptstat in /usr/bin, its man page and
# the examples under /usr/share; the installed cptstat runs and has the
# build's version; then make uninstall removes every file install put
# there, and nothing else (files of others beside them stay). With the
# default PREFIX, cptstat goes to /usr/local/bin.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cpt_require_build
cd "$(cpt_repo_root)" || exit 2
cpt_mktemp_dir T cpt-install
D=$T/root
MODS=$(openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"/\1/p')
[ -n "$MODS" ] || cpt_abort setup "openssl version -m names no module directory"

if make -s install DESTDIR="$D" PREFIX=/usr >"$T/install.log" 2>&1; then
	cpt_pass install "$(find "$D" -type f | wc -l) files"
else
	cpt_abort install "$(tail -5 "$T/install.log")"
fi
missing=""
for f in "$MODS/cptprov.so" "$MODS/libcptgo.so" /usr/bin/cptstat /usr/share/man/man1/cptstat.1 \
	/usr/share/doc/cptprov/openssl.cnf.example /usr/share/doc/cptprov/cptstat-exporter.service; do
	[ -f "$D$f" ] || missing="$missing $f"
done
if [ -z "$missing" ] && [ -x "$D/usr/bin/cptstat" ] && [ -x "$D$MODS/cptprov.so" ]; then
	cpt_pass layout "provider and Go half in $MODS, cptstat in /usr/bin, man page and examples in /usr/share"
else
	cpt_fail layout "missing or not executable:$missing ($(cd "$D" && find . -type f | tr '\n' ' '))"
fi
want=$(cat build/version)
got=$("$D/usr/bin/cptstat" -version 2>&1)
if [ "$got" = "cptstat $want" ]; then
	cpt_pass version "$got"
else
	cpt_fail version "installed cptstat says \"$got\", the build is $want"
fi

# Files of others in the same directories: uninstall must leave them.
touch "$D/usr/bin/other-tool" "$D$MODS/other.so"
if make -s uninstall DESTDIR="$D" PREFIX=/usr >"$T/uninstall.log" 2>&1; then
	left=$(cd "$D" && find . -type f | sort | tr '\n' ' ')
	if [ "$left" = "./usr/bin/other-tool .${MODS}/other.so " ] && [ ! -e "$D/usr/share/doc/cptprov" ]; then
		cpt_pass uninstall "every installed file removed, the others' files kept"
	else
		cpt_fail uninstall "left: $left$([ -e "$D/usr/share/doc/cptprov" ] && echo " and usr/share/doc/cptprov")"
	fi
else
	cpt_fail uninstall "$(tail -5 "$T/uninstall.log")"
fi

rm -rf "$D"
if make -s install DESTDIR="$D" >"$T/install2.log" 2>&1 && [ -x "$D/usr/local/bin/cptstat" ] &&
	[ -f "$D/usr/local/share/man/man1/cptstat.1" ] && [ -f "$D$MODS/cptprov.so" ]; then
	make -s uninstall DESTDIR="$D" >/dev/null 2>&1
	left=$(find "$D" -type f | wc -l)
	if [ "$left" = 0 ]; then
		cpt_pass default-prefix "cptstat in /usr/local/bin, the provider still in $MODS; uninstalled"
	else
		cpt_fail default-prefix "$left files left after uninstall"
	fi
else
	cpt_fail default-prefix "$(tail -5 "$T/install2.log"; cd "$D" 2>/dev/null && find . -type f)"
fi
cpt_finish
