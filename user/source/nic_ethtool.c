// SPDX-License-Identifier: GPL-2.0
/*
 * nic_ethtool.c - a netdev's statistics: live through the ethtool ioctl,
 * as `ethtool -S` gets them (ETHTOOL_GSSET_INFO for the count of
 * ETH_SS_STATS strings, then ETHTOOL_GSTRINGS and ETHTOOL_GSTATS), or
 * recorded, from the text `ethtool -S` prints.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "source/nic_priv.h"

/*
 * The kernel writes as many strings and values as the driver has at the
 * moment of each call, whatever count the caller passed; a driver that
 * grows its set between calls (a channel count change) would overrun an
 * exact buffer. So buffers carry this much room, and a count that grew
 * past it, or differs between the calls, means "read again".
 */
#define SLACK	 256
#define ATTEMPTS 3

static int ethtool_ioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static int stats_count(int fd, const char *ifname, __u32 *count)
{
	struct ethtool_sset_info *sset = calloc(1, sizeof(*sset) + sizeof(__u32));
	struct ethtool_drvinfo drv = {.cmd = ETHTOOL_GDRVINFO};
	int err;

	if (!sset)
		return -ENOMEM;
	sset->cmd = ETHTOOL_GSSET_INFO;
	sset->sset_mask = 1ULL << ETH_SS_STATS;
	err = ethtool_ioctl(fd, ifname, sset);
	if (!err && (sset->sset_mask & (1ULL << ETH_SS_STATS))) {
		*count = sset->data[0];
		free(sset);
		return 0;
	}
	free(sset);
	if (err && err != -EOPNOTSUPP)
		return err;
	/* Kernels before 2.6.33 only say it in the driver info. */
	err = ethtool_ioctl(fd, ifname, &drv);
	if (!err)
		*count = drv.n_stats;
	return err;
}

static int read_once(int fd, const char *ifname, __u32 n, struct nic_counters *out)
{
	struct ethtool_gstrings *strings;
	struct ethtool_stats *stats;
	int err;

	strings = calloc(1, sizeof(*strings) + (size_t)(n + SLACK) * ETH_GSTRING_LEN);
	stats = calloc(1, sizeof(*stats) + (size_t)(n + SLACK) * sizeof(__u64));
	if (!strings || !stats) {
		err = -ENOMEM;
		goto out;
	}
	strings->cmd = ETHTOOL_GSTRINGS;
	strings->string_set = ETH_SS_STATS;
	strings->len = n;
	stats->cmd = ETHTOOL_GSTATS;
	stats->n_stats = n;
	err = ethtool_ioctl(fd, ifname, strings);
	if (!err)
		err = ethtool_ioctl(fd, ifname, stats);
	if (err)
		goto out;
	if (strings->len != n || stats->n_stats != n) {
		err = -EAGAIN;
		goto out;
	}
	for (__u32 i = 0; !err && i < n; i++) {
		char name[ETH_GSTRING_LEN + 1];

		/* A name may fill all ETH_GSTRING_LEN bytes, without a NUL. */
		memcpy(name, strings->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		err = nic_counters_add(out, NIC_DOM_ETHTOOL, name, stats->data[i]);
	}
out:
	free(strings);
	free(stats);
	return err;
}

int nic_ethtool_read_live(const char *ifname, struct nic_counters *out, char *err_msg,
			  size_t err_len)
{
	int fd, err = -EAGAIN;
	__u32 n = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		snprintf(err_msg, err_len, "%s: no socket for the ethtool ioctl: %s", ifname,
			 strerror(-err));
		return err;
	}
	for (int attempt = 0; err == -EAGAIN && attempt < ATTEMPTS; attempt++) {
		nic_counters_free(out);
		err = stats_count(fd, ifname, &n);
		if (!err && !n)
			err = -EOPNOTSUPP;
		if (!err && n > NIC_MAX_COUNTERS)
			err = -E2BIG;
		if (!err)
			err = read_once(fd, ifname, n, out);
	}
	close(fd);
	if (err) {
		nic_counters_free(out);
		snprintf(err_msg, err_len, "%s: no ethtool statistics: %s", ifname,
			 err == -EOPNOTSUPP ? "the driver has none" : strerror(-err));
		return err;
	}
	nic_counters_finish(out);
	return 0;
}

int nic_ethtool_parse_text(struct nic_counters *out, const char *text, size_t len)
{
	size_t pos = 0;
	int err = 0;

	/*
	 * `ethtool -S` prints a header ("NIC statistics:") and then one
	 * "     NAME: VALUE" per counter, NAME as the driver spells it (so a
	 * trailing space shows as "NAME : VALUE"). The last colon splits.
	 * Any other line that is not blank (no name, a value that is no
	 * 64-bit number, no colon, longer than any counter's) is left out
	 * and counted, as a counter file that holds no number is.
	 */
	while (!err && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;
		char line[256], *colon = NULL;
		bool counted = false;
		__u64 v;

		if (n < sizeof(line)) {
			memcpy(line, text + pos, n);
			line[n] = '\0';
			colon = strrchr(line, ':');
		}
		if (colon) {
			*colon = '\0';
			/* "NIC statistics:", a header: nothing after its colon. */
			counted = !*nic_trim(colon + 1);
			if (!counted && *nic_trim(line) && !nic_parse_u64(colon + 1, &v)) {
				err = nic_counters_add(out, NIC_DOM_ETHTOOL, line, v);
				counted = true;
			}
		} else if (n < sizeof(line)) {
			counted = !*nic_trim(line);
		}
		if (!counted)
			out->unreadable++;
		pos += n + 1;
	}
	if (err)
		return err;
	nic_counters_finish(out);
	return out->n ? 0 : -EINVAL;
}

int nic_ethtool_read_file(const char *root, const char *ifname, struct nic_counters *out,
			  char *err_msg, size_t err_len)
{
	char path[PATH_MAX], *text;
	size_t len;
	int err;

	err = nic_path(path, sizeof(path), "%s/ethtool/%s", root, ifname);
	if (!err)
		err = nic_read_file(path, &text, &len, NIC_MAX_FILE);
	if (err) {
		snprintf(err_msg, err_len, "cannot read %s/ethtool/%s: %s", root, ifname,
			 strerror(-err));
		return err;
	}
	err = nic_ethtool_parse_text(out, text, len);
	free(text);
	if (err == -EINVAL)
		snprintf(err_msg, err_len, "%s/ethtool/%s has no \"NAME: VALUE\" lines", root,
			 ifname);
	return err;
}
