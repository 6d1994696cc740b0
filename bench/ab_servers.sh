#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two TLS servers side by side, as the report's "side by side" rows run
# them, for comparing two builds or two configurations of cptprov (the
# report compares cptprov with stock only). Both servers are started
# together and loaded at once, each by its own h2load (32 clients, a new
# handshake per request, `Connection: close`); a server's CPU is its
# workers' threads' schedstat nanoseconds. Which load starts first
# alternates from round to round, so that the order falls on both sides.
#
# Usage: bench/ab_servers.sh [-w workload] [-r rounds] [-n handshakes] [-p port] A B
#   A, B      stock, a directory holding cptprov.so (and its libcptgo.so),
#             or an openssl.cnf
#   workload  rsa (TLS 1.3, RSA-2048, X25519), ecdsa (TLS 1.3, P-256,
#             P-256), tls12 (ECDHE-RSA-AES128-GCM-SHA256, X25519) or
#             haproxy (ssl-mode-async, TLS 1.3 RSA-2048, X25519)
# Prints each round's CPU per handshake of A and of B and B/A, then the
# median of B/A. A server through cptprov must have loaded it in every
# worker. Needs nginx, h2load and (for haproxy) haproxy: make deps.
set -euo pipefail
wl=rsa rounds=6 count=3000 port=18600
while getopts w:r:n:p: o; do
	case $o in
	w) wl=$OPTARG ;; r) rounds=$OPTARG ;; n) count=$OPTARG ;; p) port=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || {
	sed -n '/^# Usage/,/^# Prints/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
case $wl in rsa | ecdsa | tls12 | haproxy) ;; *)
	echo "unknown workload $wl" >&2
	exit 2
	;;
esac
export PATH=$PATH:/usr/sbin
dir=$(mktemp -d)
chmod 755 "$dir"
pids=() hpids=()
cleanup() {
	local p
	# nginx stops gracefully on QUIT, haproxy's master on TERM.
	for p in "${pids[@]}"; do kill -QUIT "$p" 2>/dev/null || true; done
	for p in "${hpids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	sleep 0.5
	rm -rf "$dir"
}
trap cleanup EXIT

mkdir "$dir/www"
echo ok >"$dir/www/small"
cert=rsa group=X25519
[ "$wl" = ecdsa ] && cert=ecdsa group=P-256
if [ $cert = rsa ]; then
	newkey=(-newkey rsa:2048)
else
	newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256)
fi
OPENSSL_CONF=/dev/null openssl req -x509 "${newkey[@]}" -nodes -sha256 -subj /CN=localhost \
	-keyout "$dir/k.pem" -out "$dir/c.pem" -days 2 2>/dev/null
cat "$dir/c.pem" "$dir/k.pem" >"$dir/ck.pem"

# conf SIDE TAG: the openssl.cnf that runs a server through SIDE.
conf() {
	if [ "$1" = stock ]; then
		echo "/dev/null"
	elif [ -d "$1" ]; then
		cat >"$dir/openssl-$2.cnf" <<-EOF
			openssl_conf = openssl_init
			[openssl_init]
			providers = provider_sect
			alg_section = algorithm_sect
			[provider_sect]
			default = default_sect
			cptprov = cptprov_sect
			[default_sect]
			activate = 1
			[cptprov_sect]
			module = $(cd "$1" && pwd)/cptprov.so
			activate = 1
			[algorithm_sect]
			default_properties = ?provider=cptprov
		EOF
		echo "$dir/openssl-$2.cnf"
	else
		cd "$(dirname "$1")" && echo "$PWD/$(basename "$1")"
	fi
}

# start CONF PORT TAG: a server (nginx, or haproxy with a plain nginx
# behind it) through CONF; its master's pid in master_TAG.
start() {
	local cnf=$1 p=$2 tag=$3 srv
	if [ "$wl" = haproxy ] && [ "$tag" != backend ]; then
		cat >"$dir/h-$tag.cfg" <<-EOF
			global
			    nbthread 2
			    ssl-mode-async
			    tune.ssl.cachesize 0
			    pidfile $dir/$tag.pid
			defaults
			    mode http
			    timeout connect 5s
			    timeout client 60s
			    timeout server 60s
			frontend tls
			    bind 127.0.0.1:$p ssl crt $dir/ck.pem no-tls-tickets
			    default_backend files
			backend files
			    server local 127.0.0.1:$port
		EOF
		OPENSSL_CONF=$cnf haproxy -W -D -f "$dir/h-$tag.cfg"
	else
		srv="listen 127.0.0.1:$p ssl; ssl_protocols TLSv1.3; ssl_certificate $dir/c.pem; ssl_certificate_key $dir/k.pem;"
		[ "$wl" = tls12 ] && srv="listen 127.0.0.1:$p ssl; ssl_protocols TLSv1.2; ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256; ssl_certificate $dir/c.pem; ssl_certificate_key $dir/k.pem;"
		[ "$tag" = backend ] && srv="listen 127.0.0.1:$p;"
		local user=""
		[ "$(id -u)" -eq 0 ] && user="user root;"
		cat >"$dir/n-$tag.conf" <<-EOF
			daemon on; worker_processes 2; pid $dir/$tag.pid; error_log $dir/$tag.err; $user
			events { worker_connections 1024; }
			http { access_log off; ssl_session_cache off; ssl_session_tickets off;
			  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir;
			  uwsgi_temp_path $dir; scgi_temp_path $dir;
			  server { $srv root $dir/www; } }
		EOF
		OPENSSL_CONF=$cnf nginx -c "$dir/n-$tag.conf" -p "$dir"
	fi
	local i pid=""
	for ((i = 0; i < 100; i++)); do
		[ -s "$dir/$tag.pid" ] && pid=$(cat "$dir/$tag.pid") && break
		sleep 0.05
	done
	[ -n "$pid" ] || {
		echo "the server through $cnf did not start" >&2
		exit 1
	}
	printf -v "master_$tag" %s "$pid"
	if [ "$wl" = haproxy ] && [ "$tag" != backend ]; then
		hpids+=("$pid")
	else
		pids+=("$pid")
	fi
	sleep 0.5
}

# cpu TAG: the nanoseconds the server's workers' threads have run.
cpu() {
	local m=master_$1 s=0 p t
	for p in $(pgrep -P "${!m}"); do
		for t in /proc/"$p"/task/*/schedstat; do
			s=$((s + $(cut -d' ' -f1 "$t" 2>/dev/null || echo 0)))
		done
	done
	echo "$s"
}

# load PORT OUT: one round's h2load on PORT.
load() {
	OPENSSL_CONF=/dev/null h2load -n "$count" -c 32 --groups "$group" -H 'Connection: close' \
		"https://127.0.0.1:$1/small" >"$2" 2>&1
}

succeeded() { grep -o '[0-9]* succeeded' "$1" | cut -d' ' -f1; }

[ "$wl" = haproxy ] && start /dev/null "$port" backend
ca=$(conf "$1" a)
cb=$(conf "$2" b)
start "$ca" $((port + 1)) a
start "$cb" $((port + 2)) b
# Warm-up: the workers load the providers, and cptprov its Go half.
load $((port + 1)) "$dir/wa"
load $((port + 2)) "$dir/wb"
for side in a b; do
	arg=$1
	[ $side = b ] && arg=$2
	[ "$arg" = stock ] && continue
	m=master_$side
	for p in $(pgrep -P "${!m}"); do
		grep -q cptprov.so "/proc/$p/maps" || {
			echo "$arg: worker $p did not load cptprov.so" >&2
			exit 1
		}
	done
done
ratios=()
for ((i = 1; i <= rounds; i++)); do
	a0=$(cpu a) b0=$(cpu b)
	if ((i % 2)); then
		load $((port + 1)) "$dir/ha" &
		load $((port + 2)) "$dir/hb" &
	else
		load $((port + 2)) "$dir/hb" &
		load $((port + 1)) "$dir/ha" &
	fi
	wait
	a1=$(cpu a) b1=$(cpu b)
	sa=$(succeeded "$dir/ha") sb=$(succeeded "$dir/hb")
	r=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v sa="$sa" -v sb="$sb" \
		'BEGIN { printf "%.0f %.0f %.3f", a / sa / 1000, b / sb / 1000, (b / sb) / (a / sa) }')
	read -r ua ub ratio <<<"$r"
	echo "round $i: A $ua µs, B $ub µs per handshake, B/A $ratio ($sa and $sb handshakes)"
	ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median B/A %.3f over %d rounds (%s to %s)\n", m, NR, v[1], v[NR] }'
