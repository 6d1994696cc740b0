#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/sh/deb_test.sh - the Debian package as an operator gets it: make
# deb builds build/cptprov_<version>_<arch>.deb with debhelper, lintian
# finds nothing (warnings and errors fail; overrides, each with its
# reason, would be in debian/cptprov.lintian-overrides); apt-get installs
# it on this machine; then only the installed files are used: the version
# agrees everywhere (package, provider, cptstat), `openssl speed -provider
# cptprov` loads it from OpenSSL's module directory, the shipped example
# openssl.cnf (its stats_dir line set) enables it for an s_server/s_client
# exchange and for nginx workers, whose live counters the installed
# cptstat serves on /metrics (promtool check metrics clean); the man page
# renders and systemd-analyze accepts the exporter unit. Last, apt-get
# purge, and none of the files the package installed is left.
#
# As root; it refuses to run where a cptprov package is installed or any
# of its files exists (it would overwrite and then remove them). The
# package is purged at exit whatever happens.
# Ends with "N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh"
cpt_require_build
cd "$(cpt_repo_root)" || exit 2
export DEBIAN_FRONTEND=noninteractive
[ "$(id -u)" = 0 ] || cpt_abort setup "installs a package: run as root"
for tool in apt-get dpkg-buildpackage dh lintian promtool; do
	command -v "$tool" >/dev/null || cpt_abort setup "$tool is missing (tests/deps.sh installs debhelper, lintian, prometheus)"
done
state=$(dpkg-query -W -f='${db:Status-Status}' cptprov 2>/dev/null)
if [ -n "$state" ] && [ "$state" != not-installed ]; then
	cpt_abort setup "a cptprov package is on this machine ($state): remove it (apt-get purge cptprov) first, this test installs and purges its own"
fi
cpt_mktemp_dir T cpt-deb

# make deb from a make that may run this test: its jobserver is not ours.
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s deb >"$T/build.log" 2>&1; then
	mapfile -t debs < <(ls build/cptprov_*.deb)
	[ ${#debs[@]} = 1 ] || cpt_abort build "want one build/cptprov_*.deb, have: ${debs[*]}"
	DEB=$PWD/${debs[0]}
	cpt_pass build "${DEB##*/}"
else
	cpt_abort build "make deb: $(tail -15 "$T/build.log")"
fi
VERSION=$(dpkg-deb -f "$DEB" Version)
if [ "$VERSION" = "$(tools/version.sh)" ]; then
	cpt_pass version-package "package version $VERSION, the tree's"
else
	cpt_fail version-package "package $VERSION, tree $(tools/version.sh)"
fi

# Warnings and errors fail; info tags are shown.
if lintian -I --fail-on error,warning "$DEB" >"$T/lintian.log" 2>&1; then
	cpt_pass lintian "$(grep -c '^[EWI]:' "$T/lintian.log") tags$(grep '^I:' "$T/lintian.log" | sed 's/^/; /' | tr -d '\n')"
else
	cpt_fail lintian "$(grep -v '^running with root' "$T/lintian.log" | head -10)"
fi

# Nothing of the package may be there before it.
mapfile -t pkgfiles < <(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
there=()
for f in "${pkgfiles[@]}"; do [ -e "$f" ] && there+=("$f"); done
[ ${#there[@]} = 0 ] || cpt_abort setup "the package's files are already there (make install?): ${there[*]}"

purge() {
	dpkg-query -W -f='${db:Status-Status}' cptprov 2>/dev/null | grep -qv not-installed || return 0
	apt-get purge -y -q cptprov
}
cpt_on_exit purge
# Minimal images tell dpkg to leave documentation out (path-exclude): the
# package's examples and man page are part of what it installs here.
inc=()
for f in "${pkgfiles[@]}"; do
	case $f in /usr/share/*) inc+=(-o "DPkg::Options::=--path-include=$f") ;; esac
done
if apt-get install -y -q "${inc[@]}" "$DEB" >"$T/install.log" 2>&1 && [ "$(dpkg-query -W -f='${db:Status-Status}' cptprov)" = installed ]; then
	cpt_pass install "apt-get install ./${DEB##*/}"
else
	cpt_abort install "$(tail -10 "$T/install.log")"
fi
mapfile -t listed < <(dpkg -L cptprov)
files=()
for f in "${listed[@]}"; do [ -f "$f" ] && files+=("$f"); done

MODS=$(openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"/\1/p')
missing=""
for f in "$MODS/cptprov.so" "$MODS/libcptgo.so" /usr/bin/cptstat /usr/share/man/man1/cptstat.1.gz \
	/usr/share/doc/cptprov/openssl.cnf.example /usr/share/doc/cptprov/cptstat-exporter.service; do
	[[ " ${files[*]} " == *" $f "* ]] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	cpt_pass layout "${#files[@]} files: the provider in $MODS, cptstat, its man page, the examples"
else
	cpt_fail layout "not installed:$missing"
fi

# The installed provider, from the module directory (no -provider-path).
prov=$(OPENSSL_CONF=/dev/null openssl list -providers -verbose -provider cptprov 2>&1)
if grep -q "version: $VERSION\$" <<<"$prov" && grep -q "build info: cptprov $VERSION " <<<"$prov" &&
	[ "$(/usr/bin/cptstat -version)" = "cptstat $VERSION" ]; then
	cpt_pass version-installed "provider version and buildinfo, cptstat -version: $VERSION"
else
	cpt_fail version-installed "$prov / $(/usr/bin/cptstat -version 2>&1)"
fi

# The shipped example, with its stats_dir line set to this test's directory.
STATS=$T/stats
mkdir -p "$STATS" && chmod 777 "$STATS"
CONF=$T/openssl.cnf
sed "s|^# stats_dir = .*|stats_dir = $STATS|" /usr/share/doc/cptprov/openssl.cnf.example >"$CONF"
[ "$(grep -c '^stats_dir = ' "$CONF")" = 1 ] || cpt_abort config "the example has no \"# stats_dir = \" line to set"

OPENSSL_CONF=$CONF cpt_run_pid "$T/speed.pid" 60 openssl speed -seconds 1 -bytes 65536 \
	-provider cptprov -provider default -propquery '?provider=cptprov' -evp aes-256-gcm >"$T/speed.log" 2>&1
n=$(cpt_stats_get "$STATS" "$(cat "$T/speed.pid")" AES-256-GCM device)
if grep -q '^AES-256-GCM ' "$T/speed.log" && [ "${n:-0}" -gt 0 ]; then
	cpt_pass speed "openssl speed -provider cptprov: $n AES-256-GCM operations on the device"
else
	cpt_fail speed "device ops ${n:-none}: $(tail -3 "$T/speed.log")"
fi

# A TLS exchange between s_server and s_client, both under the example.
cpt_tls_server_setup "$T" "$T" || cpt_abort tls "cannot make the certificates"
TPORT=$(cpt_free_port)
OPENSSL_CONF=$CONF cpt_run_pid "$T/server.pid" 30 openssl s_server -accept "127.0.0.1:$TPORT" \
	-cert "$T/ec.crt" -key "$T/ec.key" -naccept 1 -www >"$T/server.log" 2>&1 &
cpt_wait_listen "$TPORT" 10
printf 'GET / HTTP/1.0\r\n\r\n' | OPENSSL_CONF=$CONF cpt_run_pid "$T/client.pid" 30 openssl s_client \
	-connect "127.0.0.1:$TPORT" -tls1_3 -ign_eof >"$T/client.log" 2>&1
wait
why=""
for side in server client; do
	for alg in AES-256-GCM X25519; do
		n=$(cpt_stats_get "$STATS" "$(cat "$T/$side.pid")" "$alg" ops)
		[ "${n:-0}" -gt 0 ] || why="$why $side $alg ${n:-none};"
	done
done
if grep -q '^HTTP/1.0 200' "$T/client.log" && [ -z "$why" ]; then
	cpt_pass tls "TLS 1.3 over the example config: both ends' X25519 and AES-256-GCM in cptprov"
else
	cpt_fail tls "$why $(grep -iE 'error|alert' "$T/client.log" "$T/server.log" | head -3)"
fi

# nginx workers under the example, watched by the installed exporter.
mkdir -p "$T/www"
head -c 65536 /dev/urandom >"$T/www/f"
PORT=$(cpt_free_port)
if cpt_nginx_start "$T" "$CONF" "$PORT"; then
	MPORT=$(cpt_free_port)
	cpt_exporter_start EXPORTER /usr/bin/cptstat "$STATS" "$MPORT" || cpt_fail exporter "$(cat "$STATS.exporter.log")"
	for _ in 1 2 3; do
		curl -sS --cacert "$T/ca.crt" --resolve "localhost:$PORT:127.0.0.1" -o /dev/null "https://localhost:$PORT/f" ||
			cpt_fail fetch "https://localhost:$PORT/f"
	done
	sleep 0.5
	why=""
	if curl -sSf -o "$T/metrics.txt" "http://127.0.0.1:$MPORT/metrics" 2>"$T/curl.err"; then
		for p in $(cpt_nginx_workers "$T"); do
			n=$(cpt_prom_sum "$T/metrics.txt" cptprov_ops_total "$p")
			[ "${n:-0}" -gt 0 ] || why="$why worker $p: ops ${n:-none};"
		done
		out=$(promtool check metrics <"$T/metrics.txt" 2>&1) || why="$why promtool: $out"
	else
		why="scrape: $(cat "$T/curl.err")"
	fi
	if [ -z "$why" ]; then
		cpt_pass metrics "/usr/bin/cptstat -listen: the nginx workers' counters, promtool clean"
	else
		cpt_fail metrics "$why"
	fi
	kill "$EXPORTER"
	cpt_nginx_stop "$T"
else
	cpt_fail nginx "did not start: $(tail -5 "$T/logs/start.log" "$T/logs/error.log" 2>/dev/null)"
fi

if out=$(MANWIDTH=80 man --warnings cptstat 2>&1 >/dev/null) && [ -z "$out" ]; then
	cpt_pass man "man cptstat renders without warnings"
else
	cpt_fail man "$out"
fi
if ! command -v systemd-analyze >/dev/null; then
	cpt_pass unit "no systemd-analyze here: the unit is not checked"
elif out=$(systemd-analyze verify /usr/share/doc/cptprov/cptstat-exporter.service 2>&1) && [ -z "$out" ]; then
	cpt_pass unit "systemd-analyze verify: the exporter unit is sound"
else
	cpt_fail unit "$out"
fi

if apt-get purge -y -q cptprov >"$T/purge.log" 2>&1; then
	left=()
	for f in "${files[@]}" /usr/share/doc/cptprov; do [ -e "$f" ] && left+=("$f"); done
	state=$(dpkg-query -W -f='${db:Status-Status}' cptprov 2>/dev/null)
	if [ ${#left[@]} = 0 ] && { [ -z "$state" ] || [ "$state" = not-installed ]; }; then
		cpt_pass purge "apt-get purge: none of the ${#files[@]} files left, no package state"
	else
		cpt_fail purge "left: ${left[*]} (state ${state:-none})"
	fi
else
	cpt_fail purge "$(tail -5 "$T/purge.log")"
fi
cpt_finish
