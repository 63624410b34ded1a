// SPDX-License-Identifier: GPL-2.0
/*
 * genpcap.c - writes the replay benchmark's capture: N frames of mixed
 * RoCEv2 traffic between 64 host pairs, 4 queue pairs each (WRITE and READ
 * requests with in-order PSNs, an ACK back every fourth request, a CNP now
 * and then, a quarter of the hosts behind VXLAN VTEPs) and some TCP.
 * Classic pcap, Ethernet, microsecond timestamps 1 us apart.
 *
 *   genpcap FILE [FRAMES]      (default 1000000)
 */
#include <stdio.h>
#include <stdlib.h>

#include "frames.h"

#define HOST_PAIRS 64
#define QPS	   4

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t sec, usec, caplen, len;
};

int main(int argc, char **argv)
{
	struct pcap_file_hdr fh = {
	    .magic = 0xa1b2c3d4, .major = 2, .minor = 4, .snaplen = 65535, .linktype = 1};
	uint32_t psn[HOST_PAIRS * QPS] = {0};
	unsigned long frames = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
	uint8_t buf[4096];
	FILE *out;

	if (argc < 2) {
		fprintf(stderr, "usage: genpcap FILE [FRAMES]\n");
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (!out || fwrite(&fh, sizeof(fh), 1, out) != 1) {
		perror(argv[1]);
		return 1;
	}
	srand(4791);
	for (unsigned long i = 0; i < frames; i++) {
		unsigned int qp = rand() % (HOST_PAIRS * QPS), pair = qp / QPS, roll = rand() % 100;
		struct bench_frame f = {
		    .src_ip = 0x0a010000 | pair << 8 | 1,
		    .dst_ip = 0x0a020000 | pair << 8 | 1,
		    .sport = 49152 + qp * 7,
		    .dest_qp = 0x1000 + qp,
		    .payload = 256,
		    .dscp = 26,
		    .ecn = roll < 3 ? 3 : 2,
		    .vni = 5000 + pair,
		};
		struct pcap_rec_hdr rh;
		size_t len;

		if (roll < 5) {
			f.kind = BENCH_TCP;
		} else if (roll < 8) {
			/* CNPs go back to the requester's QP (Annex A17.9). */
			f.kind = BENCH_CNP;
			f.src_ip = 0x0a020000 | pair << 8 | 1;
			f.dst_ip = 0x0a010000 | pair << 8 | 1;
			f.dscp = 48;
			f.ecn = 0;
		} else if (roll < 28) {
			f.kind = BENCH_ACK;
			f.src_ip = 0x0a020000 | pair << 8 | 1;
			f.dst_ip = 0x0a010000 | pair << 8 | 1;
			f.psn = psn[qp];
		} else {
			f.kind = roll < 33 ? BENCH_READ : BENCH_WRITE;
			if (pair % 4 == 0) /* behind a VTEP: requests in VXLAN, all WRITEs */
				f.kind = BENCH_VXLAN_WRITE;
			f.psn = psn[qp];
			psn[qp] +=
			    f.kind == BENCH_READ ? 16 : 1; /* a READ of 4096 reserves 16 PSNs */
		}
		len = bench_frame_build(buf, &f);
		rh.sec = 1700000000 + i / 1000000;
		rh.usec = i % 1000000;
		rh.caplen = rh.len = len;
		if (fwrite(&rh, sizeof(rh), 1, out) != 1 || fwrite(buf, len, 1, out) != 1) {
			perror(argv[1]);
			return 1;
		}
	}
	if (fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
