# SPDX-License-Identifier: Apache-2.0
# cptprov: build, test, install, benchmark.
#   make            build/cptprov.so and build/libcptgo.so
#   make test       every test (Go unit tests, C harnesses, openssl integration;
#                   the list: tests/tests.list), after vet and lint (shellcheck)
#   make demo       build, then a GCM speed comparison and a TLS exchange on the simulator
#   make install    the provider into OpenSSL's module directory (openssl
#                   version -m), cptstat, its man page and the examples
#                   under PREFIX (default /usr/local); DESTDIR for packagers
#   make uninstall  removes exactly what make install put there
#   make deb        build/cptprov_<version>_<arch>.deb (debhelper)
#   make bench      performance report against the default provider

CC      ?= gcc
GO      ?= go
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE
BUILD   := build
# the dpdk backend's shim, where pkg-config finds libdpdk (see its rule)
DPDK_SHIM := $(if $(shell pkg-config --exists libdpdk 2>/dev/null && echo y),$(BUILD)/libcptdpdk.so)
MODULESDIR := $(shell openssl version -m 2>/dev/null | sed -n 's/^MODULESDIR: "\(.*\)"/\1/p')
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/cptprov

# The version (tools/version.sh: git describe, or a snapshot of the base
# version). build/version holds it and changes only when it does, so that
# what embeds it is rebuilt then, and not at every make.
VERSION ?= $(shell tools/version.sh)
GO_VERSION_LDFLAGS := -X cptprov/internal/version.Version=$(VERSION)
# The hardening options of the environment's flags (Debian's
# dpkg-buildflags, when debian/rules builds the package) for the C that cgo
# compiles, which does not see CFLAGS; LDFLAGS reach Go's external link.
CGO_HARDEN := $(filter -D_FORTIFY_SOURCE=% -fstack-protector% -fstack-clash-protection -fcf-protection%,$(CPPFLAGS) $(CFLAGS))

PROV_SRC := $(wildcard provider/*.c)
PROV_HDR := $(wildcard provider/*.h) provider/algorithms.def provider/reasons.def
GO_SRC   := $(shell find . \( -name '*.go' -o -name '*.s' -o -name '*.c' -o -name '*.h' \) -not -path './build/*' -not -path './tests/*' -not -path './bench/*.c' -not -name '*_test.go') dispatch/algorithms_gen.go dispatch/reasons_gen.go go.mod
# The C programs the tests run: the "needs" column of tests/tests.list.
# (A "#" inside $(shell) is passed on as written by make 4.3 and escaped by
# older ones; gawk, which debhelper brings, warns about "\#".)
HASH := \#
TEST_BIN := $(addprefix $(BUILD)/,$(shell awk '!/^[[:space:]]*($(HASH)|$$)/ && $$3 != "-" { n = split($$3, a, ","); for (i = 1; i <= n; i++) print a[i] }' tests/tests.list | sort -u))
TEST_CC   = $(CC) -std=c11 $(CPPFLAGS) $(CFLAGS) $(WARN) -Itests/c -o $@ $< tests/c/common.c -lcrypto -lpthread

.PHONY: all test test-after-deps test-build test-debian13 unit ctest itest demo install uninstall deb bench bench-quick bench-detail deps vet lint fmt clean fuzz-long FORCE

all: $(BUILD)/cptprov.so $(BUILD)/libcptgo.so $(BUILD)/cptstat $(DPDK_SHIM)

$(BUILD):
	mkdir -p $(BUILD)

$(BUILD)/version: FORCE | $(BUILD)
	@echo '$(VERSION)' >$@.tmp; cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# The statistics viewer (its own binary: no Go runtime in OpenSSL's hosts).
# Hardened as Debian wants its binaries: position independent (ASLR) and
# bound at load (read-only relocations); Go links it itself, so its own
# -bindnow rather than LDFLAGS.
$(BUILD)/cptstat: $(GO_SRC) $(BUILD)/version | $(BUILD)
	CGO_CFLAGS="-O2 -g $(CGO_HARDEN)" $(GO) build -trimpath -buildmode=pie \
		-ldflags '$(GO_VERSION_LDFLAGS) -bindnow' -o $@ ./cmd/cptstat

# The C half: what OpenSSL loads. Links libcrypto dynamically (ASYNC job
# state is thread-local inside libcrypto).
# It compiles against cgo's prototypes of the Go exports (libcptgo.h, see
# provider/goapi.h) but never links libcptgo.so: loader.c opens it lazily.
# include/ holds what the provider and the simulator share.
PROV_INC := -Iinclude -Iprovider -I$(BUILD)
$(BUILD)/cptprov.so: $(PROV_SRC) $(PROV_HDR) $(wildcard include/*.h) $(BUILD)/libcptgo.h $(BUILD)/version | $(BUILD)
	$(CC) -std=c11 $(CPPFLAGS) -DCPTPROV_VERSION='"$(VERSION)"' $(PROV_INC) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -shared \
		$(LDFLAGS) -o $@ $(PROV_SRC) -lcrypto -ldl -lpthread

# The Go half, loaded lazily. -Bsymbolic binds the runtime's
# pthread_getattr_np call to the caching version in provider/golib.
# Go's build cache does not see headers outside a package's directory: the
# header's hash in CGO_CFLAGS makes a changed cptabi.h rebuild the package.
# Its header, libcptgo.h (cgo's prototypes of the exports), is kept for
# cptprov.so's build.
$(BUILD)/libcptgo.so $(BUILD)/libcptgo.h &: $(GO_SRC) provider/cptabi.h provider/algorithms.def provider/reasons.def | $(BUILD)
	CGO_ENABLED=1 CGO_CFLAGS="-O2 -g $(CGO_HARDEN) -DCPT_ABI_HASH=$$(cat provider/cptabi.h provider/algorithms.def provider/reasons.def | sha256sum | cut -c1-16)" \
	$(GO) build -buildmode=c-shared -trimpath \
		-ldflags '-s -w -extldflags "-Wl,-Bsymbolic $(LDFLAGS)"' -o $(BUILD)/libcptgo.so ./provider/golib

# The dpdk backend's shim over DPDK's cryptodev library, built where
# pkg-config finds libdpdk (tests/deps.sh installs it); the Go half loads it
# with dlopen only for backend = dpdk, so neither half links DPDK. Without
# it, backend = dpdk refuses activation and says why.
$(BUILD)/libcptdpdk.so: dpdk/shim/cptdpdk.c dpdk/shim/cptdpdk.h | $(BUILD)
	$(CC) -std=gnu11 $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -shared -o $@ $< \
		$$(pkg-config --cflags libdpdk) $$(pkg-config --libs libdpdk) -lpthread

# The shim's own harness: linked with it, not with tests/c/common.c.
$(BUILD)/dpdk_shim_test: tests/c/dpdk_shim_test.c dpdk/shim/cptdpdk.h $(DPDK_SHIM) | $(BUILD)
	$(CC) -std=c11 $(CPPFLAGS) $(CFLAGS) $(WARN) -Idpdk/shim -o $@ $< -L$(BUILD) -lcptdpdk \
		-Wl,-rpath,'$$ORIGIN' -lcrypto -lpthread

# The DPDK device alone through the shim, for the bench's dpdk step.
$(BUILD)/bench_dpdkdev: bench/bench_dpdkdev.c dpdk/shim/cptdpdk.h $(DPDK_SHIM) | $(BUILD)
	$(CC) -std=c11 $(CPPFLAGS) $(CFLAGS) $(WARN) -Idpdk/shim -o $@ $< -L$(BUILD) -lcptdpdk \
		-Wl,-rpath,'$$ORIGIN'

# Go's copy of the algorithm list, committed (dispatch's tests fail when it
# is out of date with the list).
dispatch/algorithms_gen.go: provider/algorithms.def $(wildcard internal/algdef/*.go internal/algdef/gen/*.go)
	cd dispatch && $(GO) generate -run 'algorithms\.def' .
# The same for the reasons.
dispatch/reasons_gen.go: provider/reasons.def $(wildcard internal/algdef/*.go internal/algdef/gen/*.go)
	cd dispatch && $(GO) generate -run 'reasons\.def' .

# C harnesses (tests/c), the fuzz harness (tests/fuzz) and the benchmark
# programs (bench), each linked with the harnesses' common code.
$(BUILD)/%: tests/c/%.c tests/c/common.c tests/c/common.h | $(BUILD)
	$(TEST_CC)
$(BUILD)/%: tests/fuzz/%.c tests/c/common.c tests/c/common.h | $(BUILD)
	$(TEST_CC)
$(BUILD)/%: bench/%.c tests/c/common.c tests/c/common.h | $(BUILD)
	$(TEST_CC)

deps:
	@tests/deps.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./cptdrv/... ./simulator/... ./dpdk/... ./dispatch/... ./stats/... ./provider/... ./internal/... ./bench/... ./cmd/...

# shellcheck over every tracked shell script, following what they source
# (lib.sh); a finding that is wrong is disabled in place, with the reason.
# The C sources' format (.clang-format: the provider's, tests' and bench's
# style at the root, the simulator's own in simulator/), checked with the
# clang-format major version the tree is formatted with; `make fmt` applies
# it.
CLANG_FORMAT_MAJOR := 14
C_FILES = $$(git ls-files '*.c' '*.h')
lint:
	@command -v shellcheck >/dev/null || { echo "lint needs shellcheck (make deps installs it)"; exit 1; }
	shellcheck -x -P SCRIPTDIR $$(git ls-files '*.sh') .ci/run
	@if clang-format --version 2>/dev/null | grep -q "version $(CLANG_FORMAT_MAJOR)\."; then \
		echo "clang-format --dry-run -Werror (C sources)"; clang-format --dry-run -Werror $(C_FILES); \
	else \
		echo "lint: no clang-format $(CLANG_FORMAT_MAJOR) here: the C sources' format is checked where there is (Debian 12)"; \
	fi

fmt:
	clang-format -i $(C_FILES)
	gofmt -w $$(git ls-files '*.go')

unit:
	tests/run.sh go

ctest: all $(TEST_BIN)
	tests/run.sh c

itest: all
	tests/run.sh integration

# Everything, with one closing "N passed, N failed" line.
# What deps installs can change what this Makefile builds (DPDK_SHIM is
# decided when it is read): the rest runs in a make started after it.
test: deps
	@$(MAKE) --no-print-directory test-after-deps

test-after-deps: vet lint all $(TEST_BIN)
	tests/run.sh

# What make test builds, without vet and without running anything.
test-build: deps
	@$(MAKE) --no-print-directory all $(TEST_BIN)

# The whole suite again inside a Debian 13 root (OpenSSL 3.5, nginx 1.26,
# haproxy 3.0; made with debootstrap, cached in /var/cache/cptprov), which
# also loads the host's build/cptprov.so: see tests/debian13.sh. As root.
test-debian13: all
	tests/debian13.sh

demo: deps
	@$(MAKE) --no-print-directory all
	tools/demo.sh

# Coverage-guided fuzzing of the EVP harness with libFuzzer and
# AddressSanitizer (needs clang: apt-get install clang), FUZZ_TIME seconds
# (default 600), growing tests/fuzz/corpus; findings are crash-* files here.
FUZZ_TIME ?= 600
fuzz-long: all
	command -v clang >/dev/null || { echo "fuzz-long needs clang (apt-get install clang)"; exit 1; }
	clang -std=c11 $(CPPFLAGS) -O1 -g -DCPT_LIBFUZZER -fsanitize=fuzzer,address $(WARN) \
		-Itests/c -o $(BUILD)/fuzz_evp_libfuzzer tests/fuzz/fuzz_evp.c tests/c/common.c -lcrypto -lpthread
	ASAN_OPTIONS=detect_leaks=0:handle_segv=0:allow_user_segv_handler=1 CPTPROV_BUILD=$(BUILD) \
		$(BUILD)/fuzz_evp_libfuzzer -max_total_time=$(FUZZ_TIME) -max_len=800 tests/fuzz/corpus

# What make install puts where, the one list install, uninstall and the
# Debian package (debian/rules runs make install) follow: mode:file:directory.
# The module directory is OpenSSL's, whatever PREFIX is: OpenSSL looks
# there. The examples are documentation, not configuration: installing
# cptprov enables nothing until an openssl.cnf loads it.
INSTALL_LIST = \
	0755:$(BUILD)/cptprov.so:$(MODULESDIR) \
	0755:$(BUILD)/libcptgo.so:$(MODULESDIR) \
	$(if $(DPDK_SHIM),0755:$(DPDK_SHIM):$(MODULESDIR)) \
	0755:$(BUILD)/cptstat:$(BINDIR) \
	0644:docs/cptstat.1:$(MANDIR)/man1 \
	0644:openssl.cnf.example:$(DOCDIR) \
	0644:docs/cptstat-exporter.service:$(DOCDIR)

install: all
	@test -n "$(MODULESDIR)" || { echo "cannot find OpenSSL's module directory (openssl version -m)"; exit 1; }
	@set -e; for e in $(INSTALL_LIST); do \
		mode=$${e%%:*} f=$${e#*:}; d=$(DESTDIR)$${f#*:} f=$${f%%:*}; \
		echo "install $$f $$d/"; install -d "$$d"; install -m "$$mode" "$$f" "$$d/"; \
	done

# The files, then cptprov's own documentation directory (the others,
# such as the module directory and bin, are shared).
uninstall:
	@test -n "$(MODULESDIR)" || { echo "cannot find OpenSSL's module directory (openssl version -m)"; exit 1; }
	@for e in $(INSTALL_LIST); do \
		f=$${e#*:}; d=$(DESTDIR)$${f#*:} f=$${f%%:*}; \
		if [ -e "$$d/$${f##*/}" ]; then echo "rm $$d/$${f##*/}"; rm -f "$$d/$${f##*/}"; fi; \
	done
	@-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null; true

# The package: the tree (what git tracks, and new files it does not ignore)
# copied to build/deb-src, where dpkg-buildpackage builds it with debhelper
# (debian/), so that its outputs stay in build/. The changelog is made
# there, with the version of tools/version.sh.
deb: | $(BUILD)
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || { echo "make deb needs debhelper (make deps installs it)"; exit 1; }
	rm -rf $(BUILD)/deb-src $(BUILD)/cptprov_* $(BUILD)/cptprov-dbgsym_*
	mkdir -p $(BUILD)/deb-src
	if git rev-parse --git-dir >/dev/null 2>&1; then git ls-files -z --cached --others --exclude-standard; \
	else find . \( -path ./build -o -path ./.git \) -prune -o -type f -print0; fi | tar -c --null -T - | tar -x -C $(BUILD)/deb-src
	debian/changelog.sh '$(VERSION)' >$(BUILD)/deb-src/debian/changelog
	cd $(BUILD)/deb-src && dpkg-buildpackage -b -us -uc
	ls $(BUILD)/cptprov_*.deb

# The report: cptprov against the default provider, tables and charts in
# bench/results/<date>-<host>/ (about 30 minutes).
bench: all $(BUILD)/bench_ops $(BUILD)/cptbench $(if $(DPDK_SHIM),$(BUILD)/bench_dpdkdev)
	$(BUILD)/cptbench

# The same, short and on a subset (about three minutes): make test runs it
# and checks that the report and charts come out whole.
bench-quick: all $(BUILD)/bench_ops $(BUILD)/cptbench $(if $(DPDK_SHIM),$(BUILD)/bench_dpdkdev)
	rm -rf $(BUILD)/bench-quick
	$(BUILD)/cptbench -quick -out $(BUILD)/bench-quick
	$(BUILD)/cptbench -check $(BUILD)/bench-quick

$(BUILD)/cptbench: $(GO_SRC) $(BUILD)/version | $(BUILD)
	$(GO) build -ldflags '$(GO_VERSION_LDFLAGS)' -o $@ ./bench/cptbench

# The older, finer-grained benchmarks: crossovers, record paths, fibers,
# calls into Go after an idle spell.
bench-detail: all $(BUILD)/bench_fibercall $(BUILD)/bench_idlecall $(BUILD)/bench_stitched
	$(BUILD)/bench_fibercall --provider-path $(BUILD)
	$(BUILD)/bench_idlecall --provider-path $(BUILD)
	bench/bench.sh
	bench/bench.sh -b "1024 16384" -a 8 aes-256-gcm
	bench/bench.sh -r 3 -b "64 1024 16384" aes-128-cbc aes-256-cbc aes-128-ctr aes-256-ctr des-ede3-cbc chacha20 chacha20-poly1305 sha1 sha256 sha512
	bench/bench.sh -r 3 -b "64 16384" aes-128-cbc-hmac-sha1 aes-256-cbc-hmac-sha1 aes-128-cbc-hmac-sha256 aes-256-cbc-hmac-sha256
	$(BUILD)/bench_stitched --provider-path $(BUILD) --runs 3 --sizes "64 1024 4096 16384" AES-128-CBC-HMAC-SHA1 AES-256-CBC-HMAC-SHA1 AES-128-CBC-HMAC-SHA256 AES-256-CBC-HMAC-SHA256
	bench/bench_crossover.sh
	bench/bench_crossover.sh chacha20 chacha20-poly1305
	bench/bench_pk.sh

clean:
	rm -rf $(BUILD)
