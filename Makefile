# moonsched: `make run`, `make test`, `make bench`. Each installs the Debian
# packages it needs when they are missing.

CC       ?= cc
CLANG    ?= clang
PKGS     := libcjson yaml-0.1
OPT      ?= -O2
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS += -Iinclude -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS   += -std=c11 $(OPT) -g -fPIC $(WARN)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread

# Debian packages the build, the tests and the benchmarks need.
DEB_BUILD := gcc make pkg-config libcjson-dev libyaml-dev
DEB_TEST  := $(DEB_BUILD) libcmocka-dev clang libclang-rt-14-dev

B        := build
CORE_SRC := $(filter-out core/main.c,$(wildcard core/*.c core/plugins/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj/%.o)
ASAN_OBJ := $(CORE_SRC:%.c=$(B)/asan/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
ASAN_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests-asan/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_OBJ := $(CORE_SRC:%.c=$(B)/fuzzobj/%.o)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
ASAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

.PHONY: all run test bench deps deps-test unit unit-asan fuzz clean
.DEFAULT_GOAL := all

all: deps $(B)/moonsched $(B)/libmoonsched.a $(B)/libmoonsched.so

# Install what is missing (apt-get update first), as root on Debian.
deps:
	@sh tests/ensure-packages.sh $(DEB_BUILD)
deps-test:
	@sh tests/ensure-packages.sh $(DEB_TEST)

$(B)/obj/%.o: %.c $(wildcard include/moonsched/*.h core/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/asan/%.o: %.c $(wildcard include/moonsched/*.h core/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS:$(OPT)=-O1) $(ASAN) -c $< -o $@

$(B)/libmoonsched.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/libmoonsched-asan.a: $(ASAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/libmoonsched.so: $(CORE_OBJ)
	$(CC) -shared -o $@ $^ $(LDLIBS)

$(B)/moonsched: $(B)/obj/core/main.o $(B)/libmoonsched.a
	$(CC) -o $@ $^ $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(B)/libmoonsched.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< $(B)/libmoonsched.a $(LDLIBS) -lcmocka

$(B)/tests-asan/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(B)/libmoonsched-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS:$(OPT)=-O1) -Wno-missing-prototypes $(ASAN) -o $@ $< $(B)/libmoonsched-asan.a $(LDLIBS) -lcmocka

# The core is compiled once with coverage instrumentation; each target only
# links against it.
$(B)/fuzzobj/%.o: %.c $(wildcard include/moonsched/*.h core/*.h core/plugins/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -std=c11 -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c $< -o $@

$(B)/libmoonsched-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/fuzz/%: tests/fuzz/%.c $(B)/libmoonsched-fuzz.a
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) -std=c11 -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(B)/libmoonsched-fuzz.a $(LDLIBS)

unit: $(UNIT_BIN)
unit-asan: $(ASAN_BIN)
fuzz: $(FUZZ_BIN)

run: all
	$(B)/moonsched simulate --cluster examples/cluster.yaml

test: deps-test all $(UNIT_BIN) $(ASAN_BIN) $(FUZZ_BIN)
	@sh tests/run-tests.sh

bench: all
	@sh tests/bench/run.sh

clean:
	rm -rf $(B)
