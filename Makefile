# moonsched: `make run`, `make test`, `make bench`. Each installs the Debian
# packages it needs when they are missing.

CC       ?= cc
CLANG    ?= clang
PKGS     := libcjson yaml-0.1 libcurl libmicrohttpd gnutls
OPT      ?= -O2
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS += -Iinclude -Icore -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS   += -std=c11 $(OPT) -g -fPIC $(WARN)
# Each object records the headers it includes, so a header change rebuilds
# only what uses it.
DEPFLAGS := -MMD -MP
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread

# LuaJIT built from Debian's source package with hook checks in compiled
# code (lua/build-luajit.sh says why), static, cached outside the tree.
LUAJIT_DIR := $(or $(MOONSCHED_CACHE),$(HOME)/.cache/moonsched)/luajit-checkhook
LUAJIT_LIB := $(LUAJIT_DIR)/lib/libluajit-5.1.a
CPPFLAGS += -I$(LUAJIT_DIR)/include/luajit-2.1
LDLIBS   += $(LUAJIT_LIB) -ldl -lm
# libmoonsched.so keeps its LuaJIT to itself: a LuaJIT host that loads it
# through the FFI (the busted specs) must not bind to it, nor it to the host's.
SO_LDFLAGS := -Wl,--exclude-libs,libluajit-5.1.a
# libmoonsched.so exports the public API only: the headers in
# include/moonsched/ mark their declarations visible, the rest stays hidden.
LIB_CFLAGS := -fvisibility=hidden

# Debian packages the build, the image, the tests and the benchmarks need.
# The tests build the image and run it (tests/e2e/test_deploy.sh).
DEB_BUILD := gcc make pkg-config libcjson-dev libyaml-dev dpkg-dev libcurl4-openssl-dev \
             libmicrohttpd-dev libgnutls28-dev
DEB_IMAGE := podman buildah mmdebstrap
DEB_TEST  := $(DEB_BUILD) libcmocka-dev clang libclang-rt-14-dev luajit lua-busted lua-check python3 \
             jq openssl curl iproute2 zsh fish $(DEB_IMAGE)
DEB_LIVE  := $(DEB_BUILD) python3 openssl curl

B        := build
# core/<layer>/*.c and core/framework/plugins/*.c; main.c is the program.
CORE_SRC := $(filter-out core/cmd/main.c,$(wildcard core/*/*.c core/*/*/*.c))
# The Lua runtime ships inside the library as generated C arrays.
LUA_SRC  := $(sort $(wildcard lua/moonsched/*.lua))
LUA_GEN  := $(B)/gen/lua_embedded.c
CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/lua_embedded.o
ASAN_OBJ := $(CORE_SRC:%.c=$(B)/asan/%.o) $(B)/asan/gen/lua_embedded.o
# Unit tests mirror core/: tests/unit/<layer>/test_<file>.c.
UNIT_SRC := $(wildcard tests/unit/*/test_*.c tests/unit/*/*/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
ASAN_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests-asan/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_OBJ := $(CORE_SRC:%.c=$(B)/fuzzobj/%.o) $(B)/fuzzobj/gen/lua_embedded.o
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
E2E_SRC  := $(wildcard tests/e2e/*.c)
E2E_BIN  := $(E2E_SRC:tests/e2e/%.c=$(B)/e2e/%)
ASAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

.PHONY: all build run test test-fresh bench bench-compare bench-live churn restarts soak failover deps deps-test unit unit-asan fuzz fuzz-long e2e hostile-asan image clean install
.DEFAULT_GOAL := all

# The build runs in a second make, after deps: pkg-config's flags are read
# when a make starts, so they must be read after the packages are installed.
all: deps
	@$(MAKE) --no-print-directory build

build: $(B)/moonsched $(B)/libmoonsched.a $(B)/libmoonsched.so

# Install what is missing (apt-get update first), as root on Debian.
deps:
	@sh tests/ensure-packages.sh $(DEB_BUILD)
deps-test:
	@sh tests/ensure-packages.sh $(DEB_TEST)

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS:$(OPT)=-O1) $(ASAN) $(DEPFLAGS) -c $< -o $@

$(LUAJIT_LIB): lua/build-luajit.sh lua/luajit-checkhook-itern.patch lua/luajit-libhook.patch \
              lua/luajit-oom-on-trace.patch
	@sh lua/build-luajit.sh >/dev/null

# Objects that include LuaJIT's headers (core/policy is the only layer that
# does, and the generated module list includes its headers).
LUA_USERS := $(wildcard core/policy/*.c) gen/lua_embedded.c
$(foreach d,obj asan fuzzobj,$(LUA_USERS:%.c=$(B)/$(d)/%.o)): | $(LUAJIT_LIB)
# A rebuilt LuaJIT (a new patch) is linked again into everything that has it.
$(B)/moonsched $(B)/libmoonsched.so $(UNIT_BIN) $(ASAN_BIN) $(FUZZ_BIN) $(E2E_BIN): $(LUAJIT_LIB)

$(LUA_GEN): lua/embed.sh $(LUA_SRC)
	@mkdir -p $(dir $@)
	sh lua/embed.sh $(LUA_SRC) >$@.tmp && mv $@.tmp $@

$(B)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/asan/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS:$(OPT)=-O1) $(ASAN) $(DEPFLAGS) -c $< -o $@

# The objects of each library, in a file rewritten only when the list
# changes: a source deleted or renamed leaves no object newer than the
# library, so without it the library would not be made again and would
# keep the stale member (ar adds, never removes).
write_members = @mkdir -p $(dir $@); echo '$(1)' | cmp -s - $@ || echo '$(1)' >$@
$(B)/obj.members: FORCE
	$(call write_members,$(CORE_OBJ))
$(B)/asan.members: FORCE
	$(call write_members,$(ASAN_OBJ))
$(B)/fuzzobj.members: FORCE
	$(call write_members,$(FUZZ_OBJ))

$(B)/libmoonsched.a: $(CORE_OBJ) $(B)/obj.members
	@rm -f $@
	ar rcs $@ $(CORE_OBJ)

$(B)/libmoonsched-asan.a: $(ASAN_OBJ) $(B)/asan.members
	@rm -f $@
	ar rcs $@ $(ASAN_OBJ)

$(B)/libmoonsched.so: $(CORE_OBJ) $(B)/obj.members
	$(CC) -shared $(SO_LDFLAGS) -o $@ $(CORE_OBJ) $(LDLIBS)

# What `moonsched --version` prints: the semantic version of the VERSION
# file (VERSION=... overrides it) and the commit built, from git (with
# -dirty for uncommitted changes; COMMIT=... overrides it, "unknown"
# without git). $(B)/version changes only when one of them does, so main.o
# is rebuilt only then.
VERSION ?= $(shell cat VERSION 2>/dev/null || echo unknown)
COMMIT ?= $(shell git describe --always --dirty --exclude='*' 2>/dev/null || echo unknown)
$(B)/obj/core/cmd/main.o: CPPFLAGS += -DMOONSCHED_VERSION='"$(VERSION)"' -DMOONSCHED_COMMIT='"$(COMMIT)"'
$(B)/obj/core/cmd/main.o: $(B)/version
$(B)/version: FORCE
	@mkdir -p $(B)
	@echo '$(VERSION) $(COMMIT)' | cmp -s - $@ || echo '$(VERSION) $(COMMIT)' >$@
.PHONY: FORCE

$(B)/moonsched: $(B)/obj/core/cmd/main.o $(B)/libmoonsched.a
	$(CC) -o $@ $^ $(LDLIBS)

# The command built with ASan and UBSan, for runs of it under the
# sanitizers (hostile-asan).
$(B)/moonsched-asan: core/cmd/main.c $(B)/libmoonsched-asan.a $(LUAJIT_LIB)
	$(CC) $(CPPFLAGS) -DMOONSCHED_VERSION='"$(VERSION)"' -DMOONSCHED_COMMIT='"$(COMMIT)"' $(CFLAGS:$(OPT)=-O1) $(ASAN) -o $@ $< $(B)/libmoonsched-asan.a $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libmoonsched.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(DEPFLAGS) -Wno-missing-prototypes -o $@ $< $(B)/libmoonsched.a $(LDLIBS) -lcmocka

$(B)/tests-asan/%: tests/unit/%.c $(B)/libmoonsched-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS:$(OPT)=-O1) $(DEPFLAGS) -Wno-missing-prototypes $(ASAN) -o $@ $< $(B)/libmoonsched-asan.a $(LDLIBS) -lcmocka

$(B)/bench/%: tests/bench/%.c $(B)/libmoonsched.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(B)/libmoonsched.a $(LDLIBS)

$(B)/churn/%: tests/churn/%.c $(B)/libmoonsched.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(B)/libmoonsched.a $(LDLIBS)

# The core is compiled once with coverage instrumentation; each target only
# links against it.
$(B)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -std=c11 -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(DEPFLAGS) -c $< -o $@

$(B)/fuzzobj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -std=c11 -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(DEPFLAGS) -c $< -o $@

$(B)/libmoonsched-fuzz.a: $(FUZZ_OBJ) $(B)/fuzzobj.members
	@rm -f $@
	ar rcs $@ $(FUZZ_OBJ)

$(B)/fuzz/%: tests/fuzz/%.c $(B)/libmoonsched-fuzz.a
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -std=c11 -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(B)/libmoonsched-fuzz.a $(LDLIBS)

# Drivers for the end-to-end suites (tests/e2e/test_*.sh) against a real kube-apiserver.
$(B)/e2e/%: tests/e2e/%.c $(B)/libmoonsched.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Wno-missing-prototypes -o $@ $< $(B)/libmoonsched.a $(LDLIBS)

unit: $(UNIT_BIN)
unit-asan: $(ASAN_BIN)
fuzz: $(FUZZ_BIN)

# Every fuzz target in turn for FUZZ_SECONDS (default 1200), new inputs
# that add coverage merged into tests/fuzz/corpus/<name>.
fuzz-long: $(FUZZ_BIN)
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-1200} B=$(B) sh tests/fuzz/fuzz-long.sh
e2e: $(E2E_BIN)

# Each hostile policy HOSTILE_RUNS times (default 20) in the ASan build of
# the command, with the other core busy (tests/hostile/asan-sweep.sh).
HOSTILE_RUNS ?= 20
hostile-asan: $(B)/moonsched-asan
	@B=$(B) HOSTILE_RUNS=$(HOSTILE_RUNS) sh tests/hostile/asan-sweep.sh

# The example cluster through the default profile plus three shipped Lua
# policies (gpu-binpack, spread-by-label, tenant-isolation).
run: all
	$(B)/moonsched simulate --cluster examples/cluster.yaml --config examples/scheduler-config-policies.yaml

# The build runs on every core even when make was called without -j.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

test: deps-test
	@bash tests/e2e/build-kube.sh >/dev/null
	@$(MAKE) --no-print-directory -j$(JOBS) build $(UNIT_BIN) $(ASAN_BIN) $(FUZZ_BIN) $(E2E_BIN) $(B)/churn/churn
	@sh tests/run-tests.sh

# `make test` from a clean clone of HEAD in a fresh Debian bookworm root
# (mmdebstrap): what a new machine has, nothing installed by hand
# (tests/fresh-root.sh; FRESH_ROOT, FRESH_REUSE, FRESH_CMD). Not part of
# `make test`: it builds Kubernetes and the image from nothing.
test-fresh:
	@bash tests/fresh-root.sh

bench: all
	@sh tests/bench/run.sh

# A month of pod churn at 100 pods/s (270,000,000 pods created, bound and
# deleted, 31.25 days: past the interner's 2^28 ids) through the
# scheduler's event handlers: the resident set and the interner's ids stay
# flat (tests/churn/churn.c, docs/reliability.md).
# CHURN_CYCLES shortens it.
churn: all
	@$(MAKE) --no-print-directory $(B)/churn/churn
	@$(B)/churn/churn $(CHURN_CYCLES)

# Two `make bench` JSON tables side by side: make bench-compare OLD=a.json NEW=b.json
bench-compare:
	@sh tests/ensure-packages.sh jq
	@sh tests/bench/compare.sh "$(OLD)" "$(NEW)"

# moonsched run against upstream kube-scheduler on a real kube-apiserver.
bench-live: all
	@sh tests/ensure-packages.sh $(DEB_LIVE)
	@bash tests/e2e/build-kube.sh >/dev/null
	@$(MAKE) --no-print-directory $(B)/bench/noop_binder
	@bash tests/bench/live.sh

# RSS across 20 restarts of the API server (make test runs 8;
# docs/reliability.md, "Restarts of the API server").
restarts: all
	@sh tests/ensure-packages.sh $(DEB_LIVE)
	@bash tests/e2e/build-kube.sh >/dev/null
	@RESTARTS=$${RESTARTS:-20} B=$(B) bash tests/e2e/test_run_restarts.sh

# moonsched run for SOAK_MINUTES (default 30) on a real kube-apiserver under
# churn, SOAK_RESTARTS API server restarts (one, half-way, by default), with
# SOAK_FAILOVER_EVERY (s) three replicas and their leader SIGKILLed that
# often; RSS, descriptors and threads every minute (tests/e2e/soak.sh,
# docs/reliability.md).
soak: all
	@sh tests/ensure-packages.sh $(DEB_LIVE)
	@bash tests/e2e/build-kube.sh >/dev/null
	@SOAK_MINUTES=$${SOAK_MINUTES:-30} B=$(B) nice -n $${SOAK_NICE:-5} bash tests/e2e/soak.sh

# Three replicas under leader election, the leader SIGKILLed every 20 s
# while 5,000 pods are created (preemption included), then the same with
# the taint eviction controller (tests/e2e/failover.sh, docs/reliability.md).
failover: all
	@sh tests/ensure-packages.sh $(DEB_LIVE)
	@bash tests/e2e/build-kube.sh >/dev/null
	@B=$(B) nice -n $${FAILOVER_NICE:-5} bash tests/e2e/failover.sh

# The container image (deploy/Containerfile), tagged localhost/moonsched:latest
# and :VERSION; IMAGE, BUILD_IMAGE, RUNTIME_IMAGE as deploy/build-image.sh says.
image:
	@sh tests/ensure-packages.sh $(DEB_IMAGE)
	@sh deploy/build-image.sh

# The binary, its manual page and shell completions (both made by the
# binary from its help), the shipped policies with their specs, and the
# policy kit (`moonsched policy test` and `init`: the library in
# LIBDIR/moonsched, the kit and the LuaLS annotations in
# DATADIR/moonsched), under $(DESTDIR)$(PREFIX): `make install PREFIX=/usr
# DESTDIR=pkg` for a package. The binary finds the kit from its own path
# (BINDIR/../lib, BINDIR/../share), so LIBDIR and DATADIR stay beside
# BINDIR.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
KIT := $(DESTDIR)$(DATADIR)/moonsched/kit
install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/moonsched/policies \
	    $(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/site-functions \
	    $(DESTDIR)$(DATADIR)/fish/vendor_completions.d $(DESTDIR)$(LIBDIR)/moonsched \
	    $(KIT)/moonsched $(KIT)/init $(DESTDIR)$(DATADIR)/moonsched/types
	install -m 755 $(B)/moonsched $(DESTDIR)$(BINDIR)/moonsched
	$(B)/moonsched man >$(DESTDIR)$(MANDIR)/man1/moonsched.1
	$(B)/moonsched completion bash >$(DESTDIR)$(DATADIR)/bash-completion/completions/moonsched
	$(B)/moonsched completion zsh >$(DESTDIR)$(DATADIR)/zsh/site-functions/_moonsched
	$(B)/moonsched completion fish >$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/moonsched.fish
	install -m 644 policies/*.lua $(DESTDIR)$(DATADIR)/moonsched/policies/
	install -m 755 $(B)/libmoonsched.so $(DESTDIR)$(LIBDIR)/moonsched/libmoonsched.so
	install -m 644 lua/kit/moonsched/kit.lua $(KIT)/moonsched/kit.lua
	install -m 644 lua/kit/luacheck-std.lua $(KIT)/luacheck-std.lua
	install -m 644 lua/kit/init/*.lua $(KIT)/init/
	install -m 644 lua/types/*.lua $(DESTDIR)$(DATADIR)/moonsched/types/

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
