// SPDX-License-Identifier: GPL-2.0
#include <time.h>

#include "util/stop.h"

#define SLICE_NS 50000000ULL

volatile sig_atomic_t fp_stopping;

static void on_signal(int sig)
{
	(void)sig;
	fp_stopping = 1;
}

void fp_stop_on_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal}, hup;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A dropped ssh session: a capture still writes its bundle. Under nohup it is ignored. */
	if (!sigaction(SIGHUP, NULL, &hup) && hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void fp_stop_request(void)
{
	fp_stopping = 1;
}

__u64 fp_clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

__u64 fp_mono_ns(void)
{
	return fp_clock_ns(CLOCK_MONOTONIC);
}

__u64 fp_real_ns(void)
{
	return fp_clock_ns(CLOCK_REALTIME);
}

bool fp_sleep(double seconds)
{
	__u64 until = fp_mono_ns() + (__u64)(seconds > 0 ? seconds * 1e9 : 0);

	while (!fp_stopping) {
		__u64 now = fp_mono_ns();
		struct timespec ts = {0, SLICE_NS};

		if (now >= until)
			break;
		if (until - now < SLICE_NS)
			ts.tv_nsec = until - now;
		nanosleep(&ts, NULL);
	}
	return !fp_stopping;
}
