// SPDX-License-Identifier: GPL-2.0
/*
 * live.c - the veth benchmark's two halves (bench/run.sh builds the
 * namespaces and runs them):
 *
 *   live send DST_IP SECONDS    sendmmsg RoCEv2-looking UDP datagrams (BTH +
 *                               RETH + 64 bytes + ICRC, to port 4791, 64 QPs)
 *                               for SECONDS; prints the datagrams sent
 *   live hold none|empty|fabprobe IFNAME [EMPTY_OBJ]
 *                               attach nothing, the empty XDP program or
 *                               fabprobe (probe_load + probe_attach, XDP
 *                               only) to IFNAME, print "ready", hold until
 *                               stdin closes, then print the frames fabprobe
 *                               counted
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "probe/collect.h"
#include "frames.h"
#include "probe/probe.h"

#define BURST 64
#define QPS   64

static int send_for(const char *dst, double seconds)
{
	static __u8 payload[QPS][256];
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(FP_ROCE_PORT_DEFAULT)};
	struct mmsghdr msgs[BURST];
	struct iovec iov[BURST];
	size_t len = 0;
	__u64 sent = 0, end;
	int fd;

	if (inet_pton(AF_INET, dst, &sa.sin_addr) != 1)
		return -EINVAL;
	for (int q = 0; q < QPS; q++) {
		struct bench_frame f = {.kind = BENCH_WRITE, .dest_qp = 0x100 + q, .payload = 64};

		len = bench_roce_payload(payload[q], &f);
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	memset(msgs, 0, sizeof(msgs));
	end = bench_now_ns() + (__u64)(seconds * 1e9);
	while (bench_now_ns() < end) {
		int n;

		for (int i = 0; i < BURST; i++) {
			iov[i].iov_base = payload[(sent + i) % QPS];
			iov[i].iov_len = len;
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		n = sendmmsg(fd, msgs, BURST, 0);
		if (n < 0 && errno != ENOBUFS && errno != ECONNREFUSED && errno != EAGAIN)
			return -errno;
		if (n > 0)
			sent += n;
	}
	close(fd);
	printf("%llu\n", (unsigned long long)sent);
	return 0;
}

static void wait_stdin(void)
{
	char buf[64];

	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
}

static int hold(const char *mode, const char *ifname, const char *empty_path)
{
	__u32 ifindex = if_nametoindex(ifname);

	if (!ifindex)
		return -ENODEV;
	if (!strcmp(mode, "none")) {
		wait_stdin();
		return 0;
	}
	if (!strcmp(mode, "empty")) {
		LIBBPF_OPTS(bpf_link_create_opts, o, .flags = XDP_FLAGS_DRV_MODE);
		struct bpf_object *obj = bpf_object__open_file(empty_path, NULL);
		int link;

		if (!obj || bpf_object__load(obj))
			return -EINVAL;
		link = bpf_link_create(bpf_program__fd(bpf_object__next_program(obj, NULL)),
				       ifindex, BPF_XDP, &o);
		if (link < 0)
			return -errno;
		wait_stdin();
		close(link);
		bpf_object__close(obj);
		return 0;
	}
	if (!strcmp(mode, "fabprobe")) {
		struct probe_opts opts = PROBE_OPTS_DEFAULT;
		struct snapshot s = {};
		struct probe p = {};
		int err;

		opts.hooks = PROBE_HOOK_XDP;
		err = probe_load(&p, &opts);
		if (err)
			return err;
		/* Native, as the empty program: the comparison is of the programs alone. */
		err = probe_attach(&p, ifname, PROBE_HOOK_XDP, PROBE_XDP_NATIVE);
		if (!err) {
			wait_stdin();
			err = collect_snapshot(&p, &s);
			if (!err)
				printf("frames %llu roce %llu flows %zu\n",
				       (unsigned long long)s.totals[FP_CNT_FRAMES],
				       (unsigned long long)s.totals[FP_CNT_ROCE], s.n_flows);
		}
		snapshot_free(&s);
		probe_destroy(&p);
		return err;
	}
	return -EINVAL;
}

int main(int argc, char **argv)
{
	int err = -EINVAL;

	if (argc >= 4 && !strcmp(argv[1], "send"))
		err = send_for(argv[2], atof(argv[3]));
	else if (argc >= 4 && !strcmp(argv[1], "hold"))
		err = hold(argv[2], argv[3], argc > 4 ? argv[4] : "build/bench/empty.bpf.o");
	else
		fprintf(stderr, "usage: live send DST_IP SECONDS | live hold "
				"none|empty|fabprobe IFNAME [EMPTY_OBJ]\n");
	if (err)
		fprintf(stderr, "live: %s\n", strerror(-err));
	return err ? 1 : 0;
}
