#!/usr/bin/env bash
# The C side under AddressSanitizer (with leak detection): cptprov.so and the
# gcm_test harness rebuilt with -fsanitize=address into build/asan/, next to
# the same libcptgo.so, then a differential run including the ASYNC jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/asan
mkdir -p "$out"
cp build/libcptgo.so "$out/"
flags=(-std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=address -fno-omit-frame-pointer -Wall -Wextra -Werror)
gcc "${flags[@]}" -fPIC -fvisibility=hidden -shared -o "$out/cptprov.so" provider/*.c -lcrypto -ldl -lpthread
gcc "${flags[@]}" -o "$out/gcm_test" tests/gcm_test.c tests/common.c -lcrypto -lpthread
# Go installs its own signal handlers; ASan must leave SIGSEGV to them.
export ASAN_OPTIONS=detect_leaks=1:handle_segv=0:allow_user_segv_handler=1:abort_on_error=0
exec "$out/gcm_test" --provider cptprov --provider-path "$PWD/$out" --no-stats --iters 200 --expect-async
