#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/debian13.sh - the whole suite on Debian 13 (trixie): OpenSSL 3.5,
# nginx 1.26, haproxy 3.0, gcc 14 (make test-debian13, in .ci/run).
#
# A trixie root made with debootstrap from Debian's registry is kept in
# DEBIAN13_ROOT (default /var/cache/cptprov/debian13, see below). The suite
# runs chrooted in it, in private mount, PID and network namespaces:
#   /src             this checkout, read-only
#   /src/build       build/debian13/build of this checkout (the root's build
#                    output; the host's build/ stays as it was)
#   /hostbuild       the host's build/, read-only: the cptprov.so built
#                    against the host's OpenSSL 3.0 headers, which the
#                    hostbuild group of tests/run.sh loads into OpenSSL 3.5
#   /tmp             build/debian13/tmp (the test logs, kept for a look after
#                    a failure, emptied at the start of the next suite run)
#   /usr/local/go    the host's Go toolchain, read-only (Go is no Debian
#                    package here)
#   /run/cptprov-host-ca.crt  the host's CA certificates, read-only, for
#                    Go's module proxy
#   /proc /dev /sys  a fresh proc for the PID namespace, the host's /dev (a
#                    private /dev/shm) and /sys read-only
# Every mount lives in the private mount namespace: the kernel drops them all
# when the namespace's last process exits, also when this script is killed
# (the PID namespace ends every process inside with its first one), and the
# EXIT trap unmounts them in order before that. The tests see only a loopback
# interface: servers on 127.0.0.1 cannot meet those of a suite running on the
# host at the same time. Go's modules are downloaded beforehand, with the
# network, into the root's module cache.
#
# Why /var/cache and not build/: the root is machine state, not output of a
# checkout. It survives make clean and the fresh clone of every CI run, and
# the checkouts of one machine share it (a lock serialises its setup; the
# runs themselves only read it, apart from the Go caches under /root).
# Changing the package list below installs the difference on the next run;
# a root older than DEBIAN13_REFRESH_DAYS (default 7) gets Debian's updates.
# Delete the directory to start from scratch.
#
# Usage: tests/debian13.sh [group...]   (tests/run.sh's groups; default: go
#        c integration hostbuild; not package, which installs into the
#        root that every run only reads). Run as root. Ends with tests/run.sh's
#        "N passed, N failed" line.
#        tests/debian13.sh -c COMMAND   runs COMMAND (sh) in /src instead,
#        under the same mounts: e.g. -c 'make -s test-build &&
#        tests/sh/tls_test.sh -v'.
# Env:   DEBIAN13_ROOT, DEBIAN13_MIRROR (default http://deb.debian.org/debian),
#        DEBIAN13_REFRESH_DAYS, DEBIAN13_TIMEOUT (seconds for the suite,
#        default 3600).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${DEBIAN13_ROOT:-/var/cache/cptprov/debian13}
mirror=${DEBIAN13_MIRROR:-http://deb.debian.org/debian}
refresh_days=${DEBIAN13_REFRESH_DAYS:-7}
suite_timeout=${DEBIAN13_TIMEOUT:-3600}
work=$repo/build/debian13
# What tests/deps.sh checks for (the suite runs offline here: deps.sh must
# find it all), plus what a minimal root lacks: procps (pgrep, ps). The
# package group's tools (debhelper, build-essential, lintian, man-db) too,
# though that group does not run here: deps.sh checks for them.
packages=(gcc libc6-dev make openssl libssl-dev python3 nginx haproxy curl nghttp2-client valgrind shellcheck procps
	pkgconf libdpdk-dev librte-crypto-openssl25 librte-crypto-ipsec-mb25 prometheus man-db debhelper
	build-essential lintian)

closed=0
fail() {
	echo "debian13: $*" >&2
	exit 1
}
# Whatever stops this script before the suite's own closing line still ends
# with one.
# shellcheck disable=SC2317 # run by the EXIT traps (shellcheck 0.9 cannot see it)
close() {
	[ "$closed" = 1 ] || echo "0 passed, 1 failed"
}

if [ -z "${CPT_DEBIAN13_NS:-}" ]; then
	trap close EXIT
	[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot, mounts)"
	if ! command -v debootstrap >/dev/null; then
		echo "debian13: installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
			fail "cannot install debootstrap"
	fi
	command -v go >/dev/null || fail "Go is missing (see tests/deps.sh)"
	{ [ -f "$repo/build/cptprov.so" ] && [ -f "$repo/build/libcptgo.so" ]; } ||
		fail "missing the host's build/cptprov.so (make all)"
	# unshare waits for its child ignoring INT and TERM: this shell hands
	# them to the child, the namespaces' first process, whose end takes
	# every process inside with it (and that of the namespaces their
	# mounts). --kill-child: the same when unshare itself is killed.
	export CPT_DEBIAN13_NS=1
	unshare --mount --propagation private --pid --fork --kill-child -- "$0" "$@" <&0 &
	ns=$!
	# shellcheck disable=SC2317 # run by the INT and TERM trap
	stop() {
		local init
		init=$(pgrep -P "$ns") || return 0
		kill -TERM "$init" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$init" 2>/dev/null || return 0
			sleep 0.2
		done
		kill -KILL "$init" 2>/dev/null
	}
	trap stop INT TERM
	# wait returns early for a trapped signal: until unshare is gone.
	rc=0
	wait "$ns" || rc=$?
	while kill -0 "$ns" 2>/dev/null; do
		rc=0
		wait "$ns" || rc=$?
	done
	closed=1 # the namespace's shell printed the closing line
	exit "$rc"
fi

# From here on: the first process of private mount and PID namespaces.
command=
if [ "${1:-}" = -c ]; then
	[ $# = 2 ] || fail "usage: $0 -c COMMAND"
	command=$2
	set --
fi
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(go c integration hostbuild)
goroot=$(go env GOROOT)
mounts=()

# shellcheck disable=SC2317 # run by the EXIT trap
unmount_all() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -R "${mounts[$i]}" 2>/dev/null || umount -R -l "${mounts[$i]}" 2>/dev/null || true
	done
	mounts=()
}
trap 'unmount_all; close' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# bg_wait command...: runs it so that INT or TERM act at once (bash runs a
# trap only once the foreground command it waits for has ended).
bg_wait() {
	"$@" <&0 &
	wait $!
}

# mnt [mount options...] SOURCE TARGET: mounts and records TARGET.
mnt() {
	local target=${*: -1} source=${*: -2:1}
	if [ -f "$source" ]; then
		[ -e "$target" ] || touch "$target"
	else
		mkdir -p "$target"
	fi
	mount "$@"
	mounts+=("$target")
}

in_root() { # command... (with the network, for setup)
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/local/go/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@" 8>&- 9>&-
}

mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9

if [ ! -f "$root/.cptprov-root" ]; then
	echo "debian13: debootstrap trixie into $root ($mirror)"
	start=$SECONDS
	# Into a new directory, renamed when complete: an interrupted debootstrap
	# leaves nothing that looks like a root.
	rm -rf --one-file-system "$root.new"
	bg_wait debootstrap --variant=minbase trixie "$root.new" "$mirror" >"$root.new.log" 2>&1 ||
		{ tail -20 "$root.new.log" >&2; fail "debootstrap failed (log $root.new.log)"; }
	# Packages must not start their services in the root: nginx would listen
	# on the host's port 80.
	printf '#!/bin/sh\nexit 101\n' >"$root.new/usr/sbin/policy-rc.d"
	chmod 0755 "$root.new/usr/sbin/policy-rc.d"
	{
		echo "deb $mirror trixie main"
		echo "deb $mirror trixie-updates main"
		echo "deb ${mirror%/debian}/debian-security trixie-security main"
	} >"$root.new/etc/apt/sources.list"
	printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root.new/etc/hosts"
	touch "$root.new/.cptprov-root"
	rm -rf --one-file-system "$root"
	mv "$root.new" "$root"
	mv "$root.new.log" "$root/.cptprov-debootstrap.log"
	echo "debian13: debootstrap done ($((SECONDS - start)) s)"
fi

# The host's DNS configuration and /dev while setting up (apt-get, Go's
# module proxy).
mnt --bind -o ro /etc/resolv.conf "$root/etc/resolv.conf"
mnt -t proc proc "$root/proc"
mnt --rbind /dev "$root/dev"
mnt -t tmpfs -o mode=1777 shm "$root/dev/shm"
mnt --rbind -o ro /sys "$root/sys"

want="${packages[*]}"
if [ "$(cat "$root/.cptprov-packages" 2>/dev/null)" != "$want" ] ||
	[ -n "$(find "$root/.cptprov-packages" -mtime "+$refresh_days" 2>/dev/null)" ]; then
	echo "debian13: apt-get install ${packages[*]}"
	start=$SECONDS
	bg_wait in_root apt-get update -qq >/dev/null || fail "apt-get update in the root failed"
	bg_wait in_root apt-get -y -qq -o Dpkg::Options::=--force-confold upgrade >/dev/null ||
		fail "apt-get upgrade in the root failed"
	bg_wait in_root apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null ||
		fail "apt-get install in the root failed"
	in_root apt-get clean
	echo "$want" >"$root/.cptprov-packages"
	echo "debian13: packages done ($((SECONDS - start)) s)"
fi
# The runs only read the root: other checkouts may run beside this one.
flock -s 9

# One run of a checkout at a time: they would share its build and logs.
mkdir -p "$work/build" "$work/tmp"
exec 8>"$work/lock"
flock 8
# A suite run starts with an empty /tmp; a -c command keeps the last
# suite's logs.
[ -n "$command" ] || find "$work/tmp" -mindepth 1 -delete
mnt --bind -o ro "$goroot" "$root/usr/local/go"
mnt --bind -o ro "$repo" "$root/src"
mnt --bind -o ro "$repo/build" "$root/hostbuild"
mnt --bind "$work/build" "$root/src/build"
mnt --bind "$work/tmp" "$root/tmp"

# The host's CA certificates for Go's module proxy: its way out may pass a
# proxy that only the host trusts.
mnt --bind -o ro /etc/ssl/certs/ca-certificates.crt "$root/run/cptprov-host-ca.crt"
bg_wait in_root sh -c 'cd /src && SSL_CERT_FILE=/run/cptprov-host-ca.crt GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go mod download' ||
	fail "go mod download failed"
echo "debian13: $(in_root openssl version), $(in_root nginx -v 2>&1), $(in_root haproxy -v | head -1)"

# The suite, without the network: make test without vet (gofmt and go vet
# do not depend on OpenSSL, and git ls-files cannot see a worktree's
# repository from inside the root).
# Its output also goes to build/debian13/suite.log: a suite cut short (the
# timeout) has no closing line of its own.
run_offline() { # command (sh, in /src)
	# shellcheck disable=SC2016 # the inner shell expands them
	unshare --net -- sh -c '
		ip link set lo up || exit 1
		exec timeout -k 10 "$0" chroot "$1" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
			PATH=/usr/local/go/bin:/usr/sbin:/usr/bin:/sbin:/bin GOTOOLCHAIN=local GOPROXY=off \
			GOFLAGS=-buildvcs=false CPT_HOSTBUILD=/hostbuild CMD="$2" sh -c "cd /src && eval \"\$CMD\""
	' "$suite_timeout" "$root" "$1" 8>&- 9>&-
}
set +e
if [ -n "$command" ]; then
	closed=1
	bg_wait run_offline "$command"
	exit
fi
rm -f "$work/suite.rc"
{
	run_offline "make -s test-build && exec tests/run.sh ${groups[*]}"
	echo $? >"$work/suite.rc"
} 2>&1 | tee "$work/suite.log" &
wait $!
rc=$(cat "$work/suite.rc" 2>/dev/null || echo 1)
closed=1
if ! tail -1 "$work/suite.log" | grep -qE '^[0-9]+ passed, [0-9]+ failed$'; then
	[ "$rc" -ne 124 ] || echo "debian13: the suite ran out of its $suite_timeout s"
	read -r p f < <(sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p' "$work/suite.log" | tail -1)
	echo "${p:-0} passed, $((${f:-0} + 1)) failed"
	[ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
