# SPDX-License-Identifier: GPL-2.0
#
#   make            build build/fabprobe
#   make test       install dependencies, build, run every test
#   make demo       install dependencies, build, run the main job
#   make install    install to $(DESTDIR)$(PREFIX)/sbin, the man page, docs, the
#                   Grafana, Prometheus and IPFIX files and the example systemd unit
#   make bench      build and run the benchmarks (bench/, BENCHMARKS.md), as root
#   WERROR=1        warnings are errors (CI)
#   SANITIZE=1      AddressSanitizer + UndefinedBehaviorSanitizer (use another BUILD)
#   SANITIZE=thread ThreadSanitizer (use another BUILD)

# `make` builds build/fabprobe whatever rule is read first (the version
# stamp's dependency below is a rule too, and would otherwise be the goal).
.DEFAULT_GOAL := all

BUILD   ?= build
PREFIX  ?= /usr/local
CLANG   ?= clang
CC      ?= gcc
BPFTOOL ?= bpftool

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
VMLINUX_DIR := vmlinux/$(ARCH)

WARN := -Wall -Wextra
ifeq ($(WERROR),1)
WARN += -Werror
endif

ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ifeq ($(SANITIZE),thread)
SAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
endif

# The builds make test and make demo start use every CPU.
NPROC   := $(shell nproc 2>/dev/null || echo 1)
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# The objects that show the version are built again when it changes: a
# stamp holds it, rewritten only then (else --version and a bundle's
# provenance can name two builds).
VERSION_STAMP := $(BUILD)/version.stamp
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = "$(VERSION)" ] || \
	echo "$(VERSION)" >$(VERSION_STAMP); })

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARN) \
	-I$(VMLINUX_DIR) -Ibpf
CFLAGS  ?= -O2 -g
CFLAGS  += $(WARN) -std=gnu11 -D_GNU_SOURCE -Ibpf -Iuser -I$(BUILD) \
	-DFABPROBE_VERSION='"$(VERSION)"' $(SAN_FLAGS) $(EXTRA_CFLAGS)
LDLIBS  := -lbpf -lelf -lz -lpcap -lncursesw -lmicrohttpd -lmnl -lpthread -lm

BPF_HDRS := $(wildcard bpf/*.h)
# The probe, and the loader's clock probe (user/probe/clock.c).
BPF_OBJS := $(BUILD)/fabprobe.bpf.o $(BUILD)/clock.bpf.o
SKEL     := $(BPF_OBJS:.bpf.o=.skel.h)

USER_SRCS := $(wildcard user/*/*.c)
USER_HDRS := $(wildcard user/*/*.h)
USER_OBJS := $(patsubst user/%.c,$(BUILD)/obj/%.o,$(USER_SRCS))
LIB_OBJS  := $(filter-out $(BUILD)/obj/cmd/main.o,$(USER_OBJS))
VERSION_OBJS := $(patsubst user/%.c,$(BUILD)/obj/%.o,$(shell grep -l FABPROBE_VERSION $(USER_SRCS)))
$(VERSION_OBJS): $(VERSION_STAMP)
# Written when the Makefile is read; made again here after a clean in the same run.
$(VERSION_STAMP):
	@mkdir -p $(@D) && echo '$(VERSION)' >$@

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
BPFT_SRCS := $(wildcard tests/bpf/test_*.c)
BPFT_BINS := $(patsubst tests/bpf/%.c,$(BUILD)/tests/%,$(BPFT_SRCS))
# Compiled once, not into each of the ~40 test programs (under ASan that
# was 2.5 s of each link, most of the sanitizer build).
TEST_HELPERS := $(patsubst tests/lib/%.c,$(BUILD)/tests/lib/%.o,$(wildcard tests/lib/*.c))
# Helper programs of the test suites (tests/tools/: sflow_dump, ipfix_emit, ...).
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRCS))

FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB  := $(patsubst user/%.c,$(BUILD)/fuzz/obj/%.o,$(filter-out user/cmd/main.c,$(USER_SRCS)))
# The sources instrumented once (fuzzer-no-link), each harness linked with libFuzzer's main.
FUZZ_CFLAGS := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-std=gnu11 -D_GNU_SOURCE -Ibpf -Iuser -I$(BUILD) -DFABPROBE_VERSION='"$(VERSION)"'

.PHONY: all deps test demo install clean tests-build lab fuzz-build bench

all: $(BUILD)/fabprobe

$(BUILD) $(BUILD)/obj $(BUILD)/tests:
	@mkdir -p $@

$(BPF_OBJS): $(BUILD)/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(SKEL): $(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: user/%.c $(USER_HDRS) $(BPF_HDRS) $(SKEL) | $(BUILD)/obj
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/fabprobe: $(USER_OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/lib/%.o: tests/lib/%.c $(wildcard tests/lib/*.h) $(USER_HDRS) $(BPF_HDRS) $(SKEL)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/lib -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(TEST_HELPERS) $(wildcard tests/lib/*.h) $(LIB_OBJS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib $< $(TEST_HELPERS) $(LIB_OBJS) -o $@ $(LDLIBS) -lcmocka

$(BUILD)/tests/%: tests/bpf/%.c $(TEST_HELPERS) $(wildcard tests/lib/*.h) $(LIB_OBJS) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests/lib $< $(TEST_HELPERS) $(LIB_OBJS) -o $@ $(LDLIBS) -lcmocka

$(BUILD)/tools/%: tests/tools/%.c $(TEST_HELPERS) $(wildcard tests/lib/*.h) $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/lib $< $(TEST_HELPERS) $(LIB_OBJS) -o $@ $(LDLIBS) -lcmocka

# Another tool's XDP program, for the coexistence test.
$(BUILD)/tests/other_xdp.bpf.o: tests/bpf/other_xdp.bpf.c | $(BUILD)/tests
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

tests-build: $(BUILD)/fabprobe $(UNIT_BINS) $(BPFT_BINS) $(TOOL_BINS) $(BUILD)/tests/other_xdp.bpf.o

# libFuzzer harnesses, each linked with the userspace sources (ASan + UBSan).
$(BUILD)/fuzz/obj/%.o: user/%.c $(USER_HDRS) $(BPF_HDRS) $(SKEL)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(patsubst $(BUILD)/obj/%,$(BUILD)/fuzz/obj/%,$(VERSION_OBJS)): $(VERSION_STAMP)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB) $(USER_HDRS) $(BPF_HDRS) $(SKEL)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LIB) -o $@ $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

lab:
	$(MAKE) -C scripts/lab BUILD=$(abspath $(BUILD))/lab

deps:
	@scripts/install-deps.sh

test: deps
	$(MAKE) -j$(NPROC) tests-build lab
	tests/run.sh

demo: deps
	$(MAKE) -j$(NPROC) all lab
	scripts/demo.sh

# Timing lives here, never in `make test` (BENCHMARKS.md).
bench: $(BUILD)/fabprobe
	$(MAKE) -f bench/bench.mk BUILD=$(BUILD) CLANG=$(CLANG) CC=$(CC) BPFTOOL=$(BPFTOOL)
	BUILD=$(BUILD) bench/run.sh

install: $(BUILD)/fabprobe
	install -D -m 0755 $(BUILD)/fabprobe $(DESTDIR)$(PREFIX)/sbin/fabprobe
	install -D -m 0644 docs/fabprobe.8 $(DESTDIR)$(PREFIX)/share/man/man8/fabprobe.8
	install -d $(DESTDIR)$(PREFIX)/share/doc/fabprobe
	install -m 0644 README.md docs/*.md scripts/fabprobe-export.service \
		$(DESTDIR)$(PREFIX)/share/doc/fabprobe/
	for d in grafana prometheus ipfix; do \
		install -D -m 0644 -t $(DESTDIR)$(PREFIX)/share/doc/fabprobe/$$d docs/$$d/* || exit 1; \
	done

clean:
	rm -rf $(BUILD)
