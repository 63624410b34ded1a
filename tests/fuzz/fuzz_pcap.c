// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrary bytes as a capture file: libpcap reads it (pcap or pcapng)
 * and every record goes through replay's link-layer adapter, as replay
 * does before BPF_PROG_TEST_RUN. Nothing may crash or read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pcap/pcap.h>

#include "source/pcap.h"

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	static __u8 frame[65536];
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *hdr;
	const __u8 *pkt;
	FILE *f;
	pcap_t *p;
	int n = 0;

	f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	p = pcap_fopen_offline(f, errbuf); /* owns f from here */
	if (!p) {
		fclose(f);
		return 0;
	}
	while (n++ < 10000 && pcap_next_ex(p, &hdr, &pkt) == 1) {
		size_t len =
		    replay_to_ethernet(pcap_datalink(p), pkt, hdr->caplen, frame, sizeof(frame));

		if (len > sizeof(frame))
			abort();
	}
	pcap_close(p);
	return 0;
}
