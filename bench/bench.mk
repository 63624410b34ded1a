# SPDX-License-Identifier: GPL-2.0
#
# bench.mk - builds the benchmarks into $(BUILD)/bench; `make bench` (top
# Makefile) runs it after building fabprobe, then bench/run.sh.
#
#   $(B)/empty.bpf.o          the baseline XDP_PASS program
#   $(B)/newflow/             fabprobe's object built with -DFP_BENCH_NEW_FLOW
#   $(B)/pktcost              per-packet cost, update path (normal object)
#   $(B)/pktcost-newflow      per-packet cost, insert path (new-flow object)
#   $(B)/genpcap              writes the replay capture
#   $(B)/userspace            collect / analyse / render timings, map memory
#   $(B)/live                 veth sender and XDP holder
#   $(B)/sflow                the sFlow decoder alone, against memcpy
#   $(B)/abcost               paired per-packet cost of several builds of the XDP program
#   $(B)/threads              BPF_PROG_TEST_RUN on 1 and on every thread: replay's ceiling
#   $(B)/ref/fabprobe.bpf.o   the XDP object of commit REF (default main), for abcost
#   $(B)/sflow_source         the sFlow source end to end, and its listener's loss
#   $(B)/walk.skel.h          a BPF iterator over the flow table: the floor of its read

BUILD   ?= build
CLANG   ?= clang
CC      ?= gcc
BPFTOOL ?= bpftool
B       := $(BUILD)/bench

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Wextra -Ivmlinux/$(ARCH) -Ibpf
BENCH_CFLAGS := -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -Ibpf -Iuser -Ibench
LDLIBS := -lbpf -lelf -lz -lpcap -lncursesw -lmicrohttpd -lmnl -lpthread -lm

BPF_HDRS := $(wildcard bpf/*.h)
LIB_OBJS := $(filter-out $(BUILD)/obj/cmd/main.o,$(patsubst user/%.c,$(BUILD)/obj/%.o,$(wildcard user/*/*.c)))
# Every userspace source but main.c, so the link follows the tree as it is split.
LIB_SRCS := $(filter-out user/cmd/main.c,$(wildcard user/*/*.c))
BENCH_HDRS := bench/bench.h bench/frames.h

.PHONY: all FORCE
all: $(B)/empty.bpf.o $(B)/pktcost $(B)/pktcost-newflow $(B)/genpcap $(B)/userspace $(B)/live \
	$(B)/sflow $(B)/abcost $(B)/sflow_source $(B)/threads

$(B) $(B)/newflow:
	@mkdir -p $@

$(B)/empty.bpf.o: bench/empty.bpf.c | $(B)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/walk.bpf.o: bench/walk.bpf.c $(BPF_HDRS) | $(B)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/walk.skel.h: $(B)/walk.bpf.o
	$(BPFTOOL) gen skeleton $< name walk_bpf > $@.tmp && mv $@.tmp $@

$(B)/newflow/fabprobe.bpf.o: bpf/fabprobe.bpf.c $(BPF_HDRS) | $(B)/newflow
	$(CLANG) $(BPF_CFLAGS) -DFP_BENCH_NEW_FLOW -c $< -o $@

$(B)/newflow/fabprobe.skel.h: $(B)/newflow/fabprobe.bpf.o
	$(BPFTOOL) gen skeleton $< name fabprobe_bpf > $@.tmp && mv $@.tmp $@

$(B)/pktcost: bench/pktcost.c $(BENCH_HDRS) $(LIB_OBJS) | $(B)
	$(CC) $(BENCH_CFLAGS) -I$(BUILD) $< $(LIB_OBJS) -o $@ $(LDLIBS)

# The userspace library compiled again, against the new-flow skeleton.
$(B)/pktcost-newflow: bench/pktcost.c $(BENCH_HDRS) $(LIB_SRCS) $(wildcard user/*/*.h) \
		$(B)/newflow/fabprobe.skel.h $(BUILD)/clock.skel.h
	$(CC) $(BENCH_CFLAGS) -DBENCH_NEW_FLOW -DFABPROBE_VERSION='"bench"' -I$(B)/newflow \
		-I$(BUILD) $< $(LIB_SRCS) -o $@ $(LDLIBS)

$(B)/genpcap: bench/genpcap.c $(BENCH_HDRS) | $(B)
	$(CC) $(BENCH_CFLAGS) $< -o $@

$(B)/userspace: bench/userspace.c $(BENCH_HDRS) $(LIB_OBJS) $(B)/walk.skel.h | $(B)
	$(CC) $(BENCH_CFLAGS) -I$(BUILD) -I$(B) $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(B)/live: bench/live.c $(BENCH_HDRS) $(LIB_OBJS) | $(B)
	$(CC) $(BENCH_CFLAGS) -I$(BUILD) $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(B)/threads: bench/threads.c $(BENCH_HDRS) $(LIB_OBJS) | $(B)
	$(CC) $(BENCH_CFLAGS) -I$(BUILD) $< $(LIB_OBJS) -o $@ $(LDLIBS)

# Only the decoder and the test encoder: no BPF, no skeleton.
$(B)/sflow: bench/sflow.c bench/bench.h user/source/sflow_decode.c user/source/sflow_decode.h \
		tests/lib/sflow_enc.c tests/lib/sflow_enc.h | $(B)
	$(CC) $(BENCH_CFLAGS) -Itests/lib $< user/source/sflow_decode.c tests/lib/sflow_enc.c -o $@
$(B)/abcost: bench/abcost.c $(BENCH_HDRS) | $(B)
	$(CC) $(BENCH_CFLAGS) $< -o $@ -lbpf -lelf -lz

# Another commit's bpf/ built as this tree builds it: abcost's "before".
REF ?= main
$(B)/ref/fabprobe.bpf.o: FORCE | $(B)
	rm -rf $(B)/ref && mkdir -p $(B)/ref
	git archive $(REF) bpf vmlinux | tar -x -C $(B)/ref
	cd $(B)/ref && $(CLANG) $(BPF_CFLAGS) -c bpf/fabprobe.bpf.c -o fabprobe.bpf.o

$(B)/sflow_source: bench/sflow_source.c bench/bench.h $(LIB_OBJS) tests/lib/sflow_enc.c tests/lib/frames.c | $(B)
	$(CC) $(BENCH_CFLAGS) -Itests/lib $< tests/lib/sflow_enc.c tests/lib/frames.c $(LIB_OBJS) -o $@ $(LDLIBS) -lmnl
