#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what building and testing cptprov needs on Debian 12, as root via
# apt-get; as another user it names what is missing and stops.
set -euo pipefail
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v openssl >/dev/null || need+=(openssl)
[ -f /usr/include/openssl/core_dispatch.h ] || need+=(libssl-dev)
command -v python3 >/dev/null || need+=(python3)
# the server integration tests: unmodified Debian nginx and haproxy, curl and h2load as clients
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
command -v curl >/dev/null || need+=(curl)
command -v h2load >/dev/null || need+=(nghttp2-client)
# the C side under memcheck
command -v valgrind >/dev/null || need+=(valgrind)
# make lint: the shell scripts, and the C sources' format with the
# clang-format the tree is formatted with (Debian 12's 14: other versions
# format some constructs differently, so the Debian 13 leg does not check it)
command -v shellcheck >/dev/null || need+=(shellcheck)
if grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
	command -v clang-format >/dev/null || need+=(clang-format)
fi
# the dpdk backend: DPDK's headers and the software cryptodevs its tests
# run on (crypto_openssl; crypto_aesni_gcm and crypto_aesni_mb from
# intel-ipsec-mb), in the ABI of the release's DPDK
command -v pkg-config >/dev/null || need+=(pkgconf)
pkg-config --exists libdpdk 2>/dev/null || need+=(libdpdk-dev)
rte=
case "$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null)" in
bookworm) rte=23 ;;
trixie) rte=25 ;;
esac
if [ -n "$rte" ]; then
	for drv in openssl ipsec-mb; do
		dpkg -s "librte-crypto-$drv$rte" >/dev/null 2>&1 || need+=("librte-crypto-$drv$rte")
	done
fi
# the operators' kit: the Debian package's build (debhelper, and
# build-essential, which dpkg-buildpackage insists on), lintian, man for its
# man page, and promtool to check cptstat's metrics; promtool comes only in
# Debian 12's prometheus package (its server too: installed without
# recommends, so without the node exporter). These four without their
# recommends: the tests need none of them.
norec=()
command -v dh >/dev/null || norec+=(debhelper)
dpkg -s build-essential >/dev/null 2>&1 || norec+=(build-essential)
command -v lintian >/dev/null || norec+=(lintian)
command -v promtool >/dev/null || norec+=(prometheus)
command -v man >/dev/null || need+=(man-db)
if [ $((${#need[@]} + ${#norec[@]})) -gt 0 ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "deps: installing ${need[*]} ${norec[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null
		[ ${#need[@]} = 0 ] || apt-get install -y -qq "${need[@]}" >/dev/null
		if [ ${#norec[@]} -gt 0 ]; then
			# The prometheus package would start (and enable) its server:
			# a test machine gets promtool, not a service on :9090.
			# policy-rc.d (Debian's switch for maintainer scripts) stops
			# the start; the enablement is undone after.
			blocker=
			if [ ! -e /usr/sbin/policy-rc.d ]; then
				blocker=/usr/sbin/policy-rc.d
				printf '#!/bin/sh\nexit 101\n' >"$blocker"
				chmod 755 "$blocker"
			fi
			apt-get install -y -qq --no-install-recommends "${norec[@]}" >/dev/null
			[ -z "$blocker" ] || rm -f "$blocker"
			if [[ " ${norec[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null; then
				systemctl disable prometheus >/dev/null 2>&1 || true
			fi
		fi
	else
		echo "deps: missing Debian packages: ${need[*]} ${norec[*]} (run: sudo apt-get install ${need[*]} ${norec[*]})" >&2
		exit 1
	fi
fi
if ! command -v go >/dev/null; then
	echo "deps: Go is missing: install Go 1.26 or newer (https://go.dev/dl) and put it on PATH" >&2
	exit 1
fi
